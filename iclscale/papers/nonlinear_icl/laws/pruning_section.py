"""The report's pruning section for nonlinear_icl ([L24] Fig. 5A's layout): per pruning method the error against
the pruning rate R over the sorted neuron magnitudes, and a sentence saying where each method starts to cost
error (iclscale.analysis.levels.cost_onset). The generic report calls `pruning_section`
(iclscale.analysis.catalogue)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iclscale.analysis.levels import cost_onset
from iclscale.analysis.page import Section, e, num
from iclscale.analysis.select import label

if TYPE_CHECKING:
    import altair as alt

    from iclscale.analysis.reader import Results

ONSET_DEFINITION = (
    "Definition (this tool's, not from the paper): pruning at rate R <em>costs</em> error when the paired "
    "increase over the unpruned model (the same seed's model and test prompts, error at R minus error at "
    "R = 0) has a 95% bootstrap interval over seeds above 0 <em>and</em> a mean larger than the seed-to-seed "
    "standard deviation of the unpruned error; pruning <em>starts to cost</em> at the smallest such R of the grid."
)
WIDTH, HEIGHT = 380, 240  # as iclscale.analysis.law_chart_marks'


def pruning_section(results: Results, add_chart) -> Section | None:
    """The section, when runs were pruned (eval params prune_method, prune_ratio); None otherwise."""
    findings = pruning_findings(results)
    if not findings:
        return None
    section = Section(
        "Pruning",
        "<p>Per pruning method, the test error of the trained model against the pruning rate R (mean ± 1 s.d. "
        "over seeds), with the magnitude of every MLP neuron as bars (right axis; sorted, so the bar at R "
        "is the neuron that magnitude pruning removes on reaching R; mean over seeds by rank) and the "
        "hinge loss below. " + ONSET_DEFINITION + "</p>",
    )
    for finding in findings:
        chart = add_chart(pruning_chart(finding), f"pruning {finding.label}")
        section.items.append((f"Pruning — {finding.label}", chart, f"<p>{finding.text_html()}</p>"))
    return section


def varying(rows, exclude: set[str], params: list[str]) -> list[str]:
    return [p for p in params if p in rows and p not in exclude and rows[p].nunique(dropna=False) > 1]


@dataclass
class PruningFinding:
    """One group's pruning results: per-(method, R, seed) error and hinge, the sorted neuron magnitudes,
    the small-neuron share, and per method the onset of the cost."""

    group: dict[str, Any]
    table: Any  # DataFrame: prune_method, prune_ratio, seed, test_error, test_hinge
    magnitudes: Any  # DataFrame: rank, low, high (as a pruning rate), magnitude (mean over seeds)
    score: str
    share: float
    share_sd: float
    unpruned: float
    unpruned_sd: float
    onsets: dict[str, tuple[float, Any]]  # method -> (onset R or NaN, per-R levels of cost_onset)
    metric: str = "test_error"

    @property
    def label(self) -> str:
        return label(self.group)

    def sentence(self, method: str) -> str:
        onset, levels = self.onsets[method]
        name = {"magnitude": "Magnitude pruning (smallest first)", "largest": "Largest-first pruning"}.get(
            method, f"{method.capitalize()} pruning"
        )
        if not math.isfinite(onset):
            tested = levels["x"].max() if len(levels) else math.nan
            return f"{name} does not cost error at any R of the grid (up to R = {num(tested)})."
        row = levels[levels["x"] == onset].iloc[0]
        below = levels[(levels["x"] < onset) & (levels["x"] > 0)]
        free = f"; no smaller R costs (R = {num(below['x'].max())} is free)" if len(below) else ""
        return (
            f"{name} starts to cost error at R = {onset:g}: mean increase {num(row['increase'])} "
            f"[{num(row['increase_low'])}, {num(row['increase_high'])}] over the unpruned error "
            f"{num(self.unpruned)} (seed-to-seed s.d. {num(self.unpruned_sd)}){free}."
        )

    def text_html(self) -> str:
        parts = [e(self.sentence(m)) for m in self.onsets]
        if math.isfinite(self.share):
            parts.append(
                e(
                    f"The small-neuron share |L^c|/m (the lower group of a 2-means split of log ‖r_i‖, r_i = row i "
                    f"of W_O W_V; not from the paper) is {self.share:.3g} ± {self.share_sd:.2g} (mean ± s.d. over "
                    f"seeds); the paper reports ≈ 15% and a free region up to it (Fig. 5A)."
                )
            )
        parts.append(e(f"Neuron magnitudes scored by {SCORE_TEXT.get(self.score, self.score)}."))
        return " ".join(parts)


SCORE_TEXT = {"wowv": "‖row i of W_O W_V‖ (Thm 3.7's r_i)", "wo": "‖row i of W_O‖ (Fig. 5's caption)"}
MAGNITUDE_COLUMNS = {"wowv": "neuron_magnitude_", "wo": "neuron_wo_magnitude_"}


def pruning_findings(results: Results) -> list[PruningFinding]:
    """Pruning results grouped by every other param that varies; empty without pruning data."""
    import numpy as np

    runs = results.runs
    if not {"prune_method", "prune_ratio", "test_error"} <= set(runs.columns):
        return []
    runs = runs[runs["status"] == "ok"]
    if "learner" in runs:
        runs = runs[runs["learner"].fillna("transformer") == "transformer"]
    runs = runs[runs["prune_method"] != "small"]  # the whole small set, not a ratio: its own law fits it
    if not len(runs) or not (runs["prune_method"] != "none").any():
        return []
    keys = varying(runs, {"prune_method", "prune_ratio", "seed"}, results.params())
    parts = runs.groupby(keys, dropna=False, sort=True) if keys else [((), runs)]
    findings = []
    for key, part in parts:
        key = key if isinstance(key, tuple) else (key,)
        group = {k: (v.item() if hasattr(v, "item") else v) for k, v in zip(keys, key, strict=True)}
        columns = ["prune_method", "prune_ratio", "seed", "test_error"]
        table = part[columns + (["test_hinge"] if "test_hinge" in part else [])].copy()
        unpruned_rows = part[(part["prune_method"] == "none") | (part["prune_ratio"] == 0)]
        per_seed = unpruned_rows.groupby("seed")["test_error"].mean()
        onsets = {}
        for method in sorted(m for m in part["prune_method"].unique() if m != "none"):
            rows = table[table["prune_method"] == method][["prune_ratio", "seed", "test_error"]]
            if not (rows["prune_ratio"] == 0).any() and len(per_seed):
                base = per_seed.rename("test_error").reset_index().assign(prune_ratio=0.0)
                rows = concat([rows, base])
            onsets[method] = cost_onset(rows, "prune_ratio", "test_error", 0.0)
        score = str(group.get("prune_score", part["prune_score"].iloc[0] if "prune_score" in part else "wowv"))
        magnitudes = _sorted_magnitudes(part, score)
        share_values = (
            part.drop_duplicates("run_id")["small_neuron_fraction"] if "small_neuron_fraction" in part else []
        )
        shown = score == "wowv" and len(share_values)
        findings.append(
            PruningFinding(
                group=group,
                table=table,
                magnitudes=magnitudes,
                score=score,
                share=float(np.mean(share_values)) if shown else math.nan,
                share_sd=float(np.std(share_values, ddof=1)) if shown and len(share_values) > 1 else 0.0,
                unpruned=float(per_seed.mean()) if len(per_seed) else math.nan,
                unpruned_sd=float(per_seed.std(ddof=1)) if len(per_seed) > 1 else 0.0,
                onsets=onsets,
            )
        )
    return findings


def concat(frames):
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


def _sorted_magnitudes(part, score: str):
    """Mean over runs (seeds) of each run's neuron magnitudes sorted ascending, placed on the pruning-rate
    axis: the neuron of rank i (0-based) spans [i/m, (i+1)/m]."""
    import numpy as np
    import pandas as pd

    prefix = MAGNITUDE_COLUMNS.get(score, MAGNITUDE_COLUMNS["wowv"])
    columns = sorted(c for c in part.columns if c.startswith(prefix) and c[len(prefix) :].isdigit())
    if not columns:
        return pd.DataFrame(columns=["rank", "low", "high", "magnitude"])
    values = part.drop_duplicates("run_id")[columns].to_numpy(float)
    values = values[np.isfinite(values).all(axis=1)]
    if not len(values):
        return pd.DataFrame(columns=["rank", "low", "high", "magnitude"])
    m = values.shape[1]
    mean = np.sort(values, axis=1).mean(axis=0)
    return pd.DataFrame(
        {"rank": np.arange(m), "low": np.arange(m) / m, "high": np.arange(1, m + 1) / m, "magnitude": mean}
    )


METHOD_COLOURS = {"none": "#777777", "random": "#d95f02", "magnitude": "#1b9e77", "largest": "#7570b3"}


def pruning_chart(finding: PruningFinding) -> alt.TopLevelMixin:
    """[L24] Fig. 5A's layout: error against the pruning rate per method (mean ± 1 s.d. over seeds, left
    axis) over the sorted neuron magnitudes as light-blue bars (right axis), the small-neuron share and
    the onset of magnitude pruning's cost as rules; the hinge loss in a panel below."""
    import altair as alt

    table = finding.table
    methods = sorted(
        table["prune_method"].unique(), key=lambda m: list(METHOD_COLOURS).index(m) if m in METHOD_COLOURS else 9
    )
    colour = alt.Color(
        "prune_method:N",
        title="pruning",
        scale=alt.Scale(domain=methods, range=[METHOD_COLOURS.get(m, "#000000") for m in methods]),
        legend=alt.Legend(orient="bottom"),
    )
    x_scale = alt.Scale(domain=[0, 1] if len(finding.magnitudes) else alt.Undefined, nice=False)
    x_enc = alt.X("prune_ratio:Q", title="pruning rate R", scale=x_scale)

    def panel(metric: str, title: str):
        stats = (
            table.groupby(["prune_method", "prune_ratio"])[metric]
            .agg(["mean", "std"])
            .reset_index()
            .fillna({"std": 0.0})
        )
        stats = stats.assign(low=stats["mean"] - stats["std"], high=stats["mean"] + stats["std"])
        y = alt.Y("mean:Q", title=title)
        return [
            alt.Chart(stats)
            .mark_rule(opacity=0.6)
            .encode(x=x_enc, y=alt.Y("low:Q", title=title), y2="high:Q", color=colour),
            alt.Chart(stats)
            .mark_line(point=True)
            .encode(x=x_enc, y=y, color=colour, tooltip=["prune_method:N", "prune_ratio:Q", "mean:Q", "std:Q"]),
        ]

    curves = panel(finding.metric, f"{finding.metric} (mean ± 1 s.d.)")
    notes = ["bars: sorted neuron magnitudes (right axis, mean over seeds by rank)"]
    if math.isfinite(finding.share):
        notes.append(f"dashed: small-neuron share |L^c|/m = {finding.share:.2f}")
        curves.append(_vertical_rule(finding.share, [4, 3]))
    if "magnitude" in finding.onsets and math.isfinite(finding.onsets["magnitude"][0]):
        onset = finding.onsets["magnitude"][0]
        notes.append(f"dotted: magnitude pruning costs from R = {onset:g}")
        curves.append(_vertical_rule(onset, [1, 2]))
    main = alt.layer(*curves)
    if len(finding.magnitudes):
        bars = (
            alt.Chart(finding.magnitudes)
            .mark_bar(color="#9ecae1", opacity=0.6)
            .encode(
                x=alt.X("low:Q", scale=x_scale),
                x2="high:Q",
                y=alt.Y(
                    "magnitude:Q", title="neuron magnitude (sorted; mean over seeds)", axis=alt.Axis(orient="right")
                ),
                y2=alt.datum(0),
                tooltip=["rank:Q", "magnitude:Q"],
            )
        )
        main = alt.layer(bars, main).resolve_scale(y="independent")
    main = main.properties(
        width=WIDTH + 60,
        height=HEIGHT,
        title={
            "text": f"Pruning: {finding.metric} vs R — {finding.label}",
            "anchor": "start",
            "subtitle": notes,
        },
    )
    if "test_hinge" not in table:
        return main
    hinge = alt.layer(*panel("test_hinge", "hinge loss")).properties(width=WIDTH + 60, height=120)
    return alt.vconcat(main, hinge)


def _vertical_rule(x: float, dash: list[int]):
    import altair as alt
    import pandas as pd

    return alt.Chart(pd.DataFrame({"x": [x]})).mark_rule(strokeDash=dash, color="black").encode(x="x:Q")

"""The report's Figure 1 section for cooccurrence ([Y24] Fig. 1): per setting (init preset, readout, …), (a) the
changes of the key–query scores ΔA_ij on μ1, μ2, μ3 and (b) the training loss and the per-type losses against
gradient-flow time t = η·step, T1 marked; a table of Figure 1's criteria per seed (iclscale.analysis.catalogue.
cooccurrence.phases); and, when runs differ in η only, their losses against t on one chart (the gradient-flow
collapse, our check). The generic report calls `figure1_section` (iclscale.analysis.catalogue)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from iclscale.analysis.page import Section, e, num
from iclscale.papers.cooccurrence.laws.common import STUDY
from iclscale.papers.cooccurrence.laws.phases import (
    FALLING_SCORES,
    RISING_SCORES,
    TYPE_LOSSES,
    figure1_criteria,
    phase_boundary,
    score_change,
    wide,
)

if TYPE_CHECKING:
    from iclscale.analysis.reader import Results

SETTING = ("init", "readout", "m", "m1", "c0", "c1", "L", "n", "d", "tokens", "lr")
WIDTH, HEIGHT = 360, 220
POINTS_PER_CURVE = 100  # records drawn per run (every k-th; the records are log-spaced): charts stay small
CRITERIA = (
    ("still_in_phase1", "(1) max|ΔA| on [0, T1] < 10% of its run maximum", "phase1_score_share"),
    ("peaks_inside_phase1", "(2) type-2 and type-3 losses peak inside (0, T1)", "T_peak_type2"),
    ("scores_move_as_claimed", "(3) ΔA12, ΔA21 rise and ΔA31, ΔA32 fall at every Phase-2 record", None),
    ("losses_fall_in_phase2", "(4) every per-type loss falls at every Phase-2 record", None),
)


def figure1_section(results: Results, add_chart) -> Section | None:
    if results.study != STUDY or "gf_time" not in set(results.curves["metric"]):
        return None
    times = results.curves.loc[results.curves["metric"] == "gf_time", "value"]
    if not (times > 0).any():  # nothing trained (rates at initialisation only): no course to draw
        return None
    runs = results.runs.drop_duplicates("run_id")
    runs = runs[runs["status"] == "ok"]
    varying = [p for p in SETTING if p in runs and runs[p].nunique() > 1]
    section = Section(
        "Figure 1: the two phases",
        "<p>[Y24] Fig. 1 per setting: (a) ΔA_ij = μ_iᵀW_KᵀW_Qμ_j(t) − (t = 0), key i, query j, for the four "
        "pairs Thm 3.2(i) names (ΔA12, ΔA21 should rise, ΔA31, ΔA32 fall in Phase 2); (b) the training loss and "
        "the mean loss of each sample type (1: μ1 and μ2; 2: μ1 only; 3: μ2 only; 4: neither). x: gradient-flow "
        "time t = η·step, log scale; the dashed line is T1, the first record with every training sample "
        "correct (seed median). Every seed is drawn. The table gives our Figure 1 criteria per seed and T_attn, the "
        "first t at which max|ΔA_ij| reaches 5% of its run maximum (ours: the phases are separate when "
        "T_attn > T1).</p>",
    )
    for setting, part in runs.groupby([p for p in varying if p != "lr"] or (lambda _: 0), sort=True):
        for lr, same_lr in part.groupby("lr", sort=True):
            title = _title(varying, setting, lr)
            curves = {row.run_id: wide(results.curves, row.run_id) for row in same_lr.itertuples()}
            table = pd.DataFrame(
                [
                    {"seed": same_lr.loc[same_lr.run_id == r, "seed"].iloc[0], **figure1_criteria(c)}
                    for r, c in curves.items()
                ]
            )
            chart = add_chart(figure1_chart(curves, seed_median(table["T1"])), f"figure 1 {title}")
            section.items.append((f"Figure 1 — {title}", chart, criteria_html(table)))
        if part["lr"].nunique() > 1:
            chart = add_chart(collapse_chart(results, part), f"collapse {setting}")
            text = e(collapse_summary(results, part))
            section.items.append(("Gradient-flow collapse: loss against t = η·step at each η", chart, f"<p>{text}</p>"))
    return section if section.items else None


def _title(varying, setting, lr) -> str:
    values = setting if isinstance(setting, tuple) else (setting,)
    named = [f"{p} = {v}" for p, v in zip([p for p in varying if p != "lr"], values, strict=False)]
    return ", ".join([*named, f"η = {lr:g}"])


def criteria_html(table: pd.DataFrame) -> str:
    """Per seed: T1, the peaks, the share of the score change before T1, and which criteria hold."""
    header = "<tr><th>seed</th><th>T1</th><th>type-2/3 peaks</th><th>max|ΔA| share by T1</th><th>T_attn</th>" + "".join(
        f"<th>{e(text)}</th>" for _, text, _ in CRITERIA
    )
    rows = []
    for r in table.sort_values("seed").itertuples():
        cells = [str(r.seed), num(r.T1), f"{num(r.T_peak_type2)}, {num(r.T_peak_type3)}", num(r.phase1_score_share)]
        cells.append(num(r.T_attn))
        cells += ["yes" if getattr(r, name, 0.0) == 1.0 else "no" for name, _, _ in CRITERIA]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    held = {name: int((table.get(name, pd.Series(dtype=float)) == 1.0).sum()) for name, _, _ in CRITERIA}
    summary = "; ".join(
        f"{text.split(' ')[0]} holds on {held[name]} of {len(table)} seeds" for name, text, _ in CRITERIA
    )
    return f"<p>{e(summary)}.</p><div class='wide'><table>{header}</tr>{''.join(rows)}</table></div>"


def thinned(run: pd.DataFrame) -> pd.DataFrame:
    step = max(1, -(-len(run) // POINTS_PER_CURVE))
    return run.iloc[::step]


def _long(curves: dict[str, pd.DataFrame], columns, of) -> pd.DataFrame:
    frames = []
    for run_id, run in curves.items():
        values = thinned(of(run)[list(columns)].assign(t=run["gf_time"].to_numpy(), run_id=run_id))
        frames.append(values.melt(id_vars=["t", "run_id"], var_name="curve", value_name="value"))
    out = pd.concat(frames, ignore_index=True)
    return out[out["t"] > 0]  # log time axis


def figure1_chart(curves: dict[str, pd.DataFrame], T1: float):
    import altair as alt

    x = alt.X("t:Q", title="gradient-flow time t = η·step", scale=alt.Scale(type="log"))
    rule = alt.Chart(pd.DataFrame({"t": [T1]})).mark_rule(strokeDash=[5, 3], color="black").encode(x="t:Q")
    scores = _long(curves, [*RISING_SCORES, *FALLING_SCORES], score_change)
    panel_a = (
        alt.Chart(scores)
        .mark_line()
        .encode(
            x=x,
            y=alt.Y("value:Q", title="ΔA_ij (key i, query j)"),
            color=alt.Color("curve:N", title=""),
            detail="run_id:N",
        )
    )
    losses = _long(curves, ["loss", *TYPE_LOSSES], lambda run: run)
    panel_b = (
        alt.Chart(losses)
        .mark_line()
        .encode(
            x=x,
            y=alt.Y("value:Q", title="training loss", scale=alt.Scale(type="log")),
            color=alt.Color("curve:N", title=""),
            detail="run_id:N",
        )
    )
    a = alt.layer(panel_a, rule).properties(width=WIDTH, height=HEIGHT, title="(a) attention scores")
    b = alt.layer(panel_b, rule).properties(width=WIDTH, height=HEIGHT, title="(b) training losses")
    return alt.hconcat(a, b).resolve_scale(color="independent")


COLLAPSE_POINTS = 50  # log-spaced flow times at which the losses of the step sizes are compared


def seed_median(values) -> float:
    """The median over the seeds whose T1 was found; NaN where none was (numpy would also warn)."""
    values = np.asarray(values, float)
    return float(np.median(values[~np.isnan(values)])) if (~np.isnan(values)).any() else float("nan")


def collapse_summary(results: Results, runs: pd.DataFrame) -> str:
    """How far the losses at the different η lie apart at equal flow time: the seed-median loss of each η,
    interpolated (log–log) at common times, against the smallest η's; and each η's seed-median T1."""
    medians, T1 = {}, {}
    for lr, same in runs.groupby("lr", sort=True):
        curves = [wide(results.curves, run_id) for run_id in same["run_id"]]
        T1[lr] = seed_median([phase_boundary(c) for c in curves])
        medians[lr] = [c.loc[c["gf_time"] > 0, ["gf_time", "loss"]].to_numpy() for c in curves]
    start = max(c[0, 0] for runs_ in medians.values() for c in runs_)
    end = min(c[-1, 0] for runs_ in medians.values() for c in runs_)
    if not end > start:
        return "the step sizes share no flow time to compare at"
    t = np.geomspace(start, end, COLLAPSE_POINTS)

    def median_loss(runs_):
        return np.median([np.exp(np.interp(np.log(t), np.log(c[:, 0]), np.log(c[:, 1]))) for c in runs_], axis=0)

    reference = min(medians)
    base = median_loss(medians[reference])
    parts = [
        f"η = {lr:g}: at most {np.max(np.abs(median_loss(runs_) / base - 1)):.1%} from η = {reference:g}"
        for lr, runs_ in medians.items()
        if lr != reference
    ]
    found = ", ".join(f"{T1[lr]:.3g} (η = {lr:g})" for lr in T1)
    return (
        f"Seed-median training loss at equal flow time t ∈ [{start:.3g}, {end:.3g}]: {'; '.join(parts)}. "
        f"T1 (seed median): {found}."
    )


def collapse_chart(results: Results, runs: pd.DataFrame):
    import altair as alt

    frames = []
    for row in runs.itertuples():
        run = wide(results.curves, row.run_id)
        frames.append(
            pd.DataFrame({"t": run["gf_time"], "loss": run["loss"], "η": f"{row.lr:g}", "run_id": row.run_id})
        )
    data = pd.concat(frames, ignore_index=True)
    data = data[data["t"] > 0]
    return (
        alt.Chart(data)
        .mark_line()
        .encode(
            x=alt.X("t:Q", title="gradient-flow time t = η·step", scale=alt.Scale(type="log")),
            y=alt.Y("loss:Q", title="training loss", scale=alt.Scale(type="log")),
            color=alt.Color("η:N"),
            detail="run_id:N",
        )
        .properties(width=WIDTH, height=HEIGHT)
    )

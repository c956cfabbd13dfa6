"""`iclscale report DIR`: fit the sweep's laws and write OUT/index.html, OUT/fits.csv and a PNG of
every chart under OUT/charts/.

Besides the laws and the sweep's curves, sections appear when the data call for them (whatever the
sweep is named): "Pruning" when runs were pruned (eval params prune_method/prune_ratio): per pruning
method the error against the pruning rate over the sorted neuron magnitudes, and a sentence saying where
each method starts to cost error; "In-context learning vs classical learners" when a `learner` eval
param takes several values: error against the context length per learner, one panel per α'.

The page works offline: the Vega, Vega-Lite and Vega-Embed JavaScript is inlined once (from
vl-convert's bundle) and every chart is embedded as its JSON spec, drawn as SVG.
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis import verdict as verdict_rule
from analysis.law import Law, LawFit
from analysis.reader import Results, load_results
from usererror import UserError

FITS_COLUMNS = (
    "law",
    "x",
    "y",
    "exponent",
    "ci_low",
    "ci_high",
    "theory_low",
    "theory_high",
    "r2",
    "n_points",
    "n_censored",
    "verdict",
)
PNG_SCALE = 1.5


@dataclass
class Report:
    out: Path
    fits: list[LawFit]
    charts: list[tuple[str, str]] = field(default_factory=list)  # (title, png path relative to out)

    @property
    def index(self) -> Path:
        return self.out / "index.html"

    @property
    def fits_csv(self) -> Path:
        return self.out / "fits.csv"


def fit_sweep_laws(results: Results) -> list[LawFit]:
    """Fit the frozen sweep's `laws:`; when it lists none, every law of its study whose data are
    present: some group has points at as many x values as the law's verdict rule asks for (a law whose
    x does not vary in the sweep is left out). A named law with no rows at all still gets a row, saying so."""
    from analysis.laws import get_law, laws_of_study

    named = results.sweep.get("laws") or []
    if not named:
        found = [law.evaluate(results) for law in laws_of_study(results.study)]
        return [
            fit
            for fits in found
            if any(f.n_points and f.n_levels >= f.law.rule.min_levels for f in fits)
            for fit in fits
        ]
    fits = []
    for name in named:
        law = get_law(name, f"{results.directory}/sweep.yaml: laws")
        fits.extend(law.evaluate(results) or [_no_data(law, results)])
    return fits


def _no_data(law: Law, results: Results) -> LawFit:
    reason = f"no {law.study} rows matching the law's conditions in {results.directory}"
    return LawFit(
        law=law,
        group={},
        statistic="",
        estimate=math.nan,
        ci_low=math.nan,
        ci_high=math.nan,
        prediction=None,
        verdict=verdict_rule.Verdict(verdict_rule.INCONCLUSIVE, reason),
    )


def write_report(directory: str, out: str | None = None) -> Report:
    results = load_results(directory)  # UserError for a missing or empty directory
    if out is None and "://" in str(directory):
        raise UserError(f"results {directory!r} are not on a local disk: give --out DIR for the report")
    out_dir = Path(out) if out else Path(directory) / "report"
    try:
        (out_dir / "charts").mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"--out {out_dir}: cannot create the report folder: {error.strerror}") from None
    for stale in (out_dir / "charts").glob("*.png"):  # from an earlier report of this directory
        stale.unlink()
    fits = fit_sweep_laws(results)
    report = Report(out_dir, fits)
    write_fits_csv(fits, report.fits_csv)

    from analysis import charts as chart_module

    law_sections = []
    for fit in fits:
        chart = chart_module.law_chart(fit)
        law_sections.append((fit, _add_chart(report, chart, f"law {fit.law.name} {fit.group_label}")))
    sweep_charts = [
        (title, _add_chart(report, chart, title))
        for title, chart in chart_module.training_curve_charts(results) + chart_module.probe_charts(results)
    ]
    sections = data_sections(results, report)
    report.index.write_text(render_html(results, report, law_sections, sweep_charts, sections), encoding="utf-8")
    return report


def write_fits_csv(fits: list[LawFit], path: Path) -> None:
    import pandas as pd

    rows = [fit.row() for fit in fits]
    table = pd.DataFrame(rows) if rows else pd.DataFrame(columns=FITS_COLUMNS)
    rest = [c for c in table.columns if c not in FITS_COLUMNS]
    table[[*FITS_COLUMNS, *rest]].to_csv(path, index=False)


def _add_chart(report: Report, chart, title: str) -> dict | None:
    """Save the chart's PNG; return its spec and file name for the page (None without a chart)."""
    if chart is None:
        return None
    import vl_convert

    spec = chart.to_dict()
    name = f"{len(report.charts):02d}-{_slug(title)}.png"
    png = vl_convert.vegalite_to_png(spec, scale=PNG_SCALE, vl_version=_vl_version())
    (report.out / "charts" / name).write_bytes(png)
    report.charts.append((title, f"charts/{name}"))
    return {"spec": spec, "png": f"charts/{name}", "title": title}


def _vl_version() -> str:
    import altair

    return ".".join(altair.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:80]


# HTML -----------------------------------------------------------------------------------------
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; padding: 0 1em; color: #222; }
.wide { overflow-x: auto; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.consistent { background: #d9f0d3; font-weight: bold; }
.inconsistent { background: #f4c7c3; font-weight: bold; }
.inconclusive { background: #fbe9b7; font-weight: bold; }
.chart { margin: 1em 0 2em 0; }
.note { color: #555; font-size: 0.9em; }
code { background: #f6f6f6; padding: 0 0.2em; }
"""


def render_html(results: Results, report: Report, law_sections, sweep_charts, sections=()) -> str:
    import vl_convert

    embeds = []
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>iclscale report: {_e(results.name)}</title>",
        f"<style>{STYLE}</style>",
        # Vega, Vega-Lite and Vega-Embed, inlined: the page needs no network
        f"<script>{_inline_script(vl_convert.javascript_bundle(vl_version=_vl_version()))}</script>",
        "</head><body>",
        f"<h1>Sweep <code>{_e(results.name)}</code> — study <code>{_e(results.study)}</code></h1>",
        _overview(results),
        "<h2>Laws</h2>",
        _which_laws(results),
        _summary_table(report.fits),
        _verdict_rule_html(),
    ]
    for index, (fit, chart) in enumerate(law_sections):
        parts.append(_law_section(fit, chart, index, embeds))
    for section in sections:
        parts.append(f"<h2>{_e(section.title)}</h2>{section.intro}")
        for subtitle, chart, text in section.items:
            parts.append(f"<h3>{_e(subtitle)}</h3>{text}" + _chart_div(chart, embeds))
    parts.append("<h2>Sweep</h2>")
    if not sweep_charts:
        parts.append('<p class="note">No training curves or varying final metrics to show.</p>')
    for title, chart in sweep_charts:
        parts.append(f"<h3>{_e(title)}</h3>" + _chart_div(chart, embeds))
    parts.append("<script>\n" + "\n".join(embeds) + "\n</script>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _overview(results: Results) -> str:
    runs = results.runs.drop_duplicates("run_id")
    counts = runs["status"].value_counts().to_dict()
    status = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("ok", "diverged", "failed"))
    axes = ", ".join(f"{a} ({results.runs[a].nunique(dropna=False)})" for a in results.grid_axes()) or "none"
    description = results.sweep.get("description") or ""
    return (
        f"<p>{_e(description)}</p>"
        f"<p>Results <code>{_e(results.directory)}</code>: {len(runs)} configs ({status}); "
        f"{len(results.runs)} rows with eval points; seeds {_e(str(sorted(results.runs['seed'].unique().tolist())))}; "
        f"axes: {_e(axes)}.</p>"
    )


def _which_laws(results: Results) -> str:
    named = results.sweep.get("laws") or []
    if named:
        return f"<p>The laws named in the sweep's <code>laws:</code> list: {_e(', '.join(named))}.</p>"
    return (
        f"<p>The sweep names no laws, so every law of study <code>{_e(results.study)}</code> whose data are "
        "present is fitted (see <code>iclscale laws</code>).</p>"
    )


def _summary_table(fits: list[LawFit]) -> str:
    head = (
        "<tr><th>law</th><th>group</th><th>statistic</th><th>estimate</th><th>interval</th>"
        "<th>theory</th><th>R²</th><th>points (censored, left out)</th><th>verdict</th>"
        "<th>other readings of the theory, judged the same way</th></tr>"
    )
    rows = []
    for i, fit in enumerate(fits):
        theory = fit.prediction.primary if fit.prediction else None
        alternatives = "<br>".join(
            f'{_e(h.name)} {_e(h.band.describe())}: <span class="{v.verdict}">{v.verdict}</span>'
            for h, v in fit.alternatives
        )
        rows.append(
            "<tr>"
            f'<td><a href="#law-{i}">{_e(fit.law.name)}</a></td>'
            f"<td>{_e(fit.group_label)}</td>"
            f"<td>{_e(fit.statistic)}</td>"
            f'<td class="num">{_num(fit.estimate)}</td>'
            f'<td class="num">[{_num(fit.ci_low)}, {_num(fit.ci_high)}]</td>'
            f"<td>{_e(theory.band.describe()) if theory else '—'}</td>"
            f'<td class="num">{_num(fit.r2)}</td>'
            f'<td class="num">{fit.n_points} ({fit.n_censored}, {fit.n_excluded})</td>'
            f'<td class="{fit.verdict.verdict}" title="{_e(fit.verdict.reason)}">{fit.verdict.verdict}</td>'
            f"<td>{alternatives}</td>"
            "</tr>"
        )
    return f"<div class='wide'><table>{head}{''.join(rows)}</table></div>"


def _verdict_rule_html() -> str:
    doc = verdict_rule.__doc__.split("The rule, in order:")[1].split("The thresholds below")[0]
    defaults = verdict_rule.VerdictRule()
    return (
        "<details><summary>How verdicts are decided</summary>"
        f"<pre>{_e(doc.strip())}</pre>"
        f"<p class='note'>Default thresholds (this tool's, not from any paper; a law may set its own): "
        f"min x values {defaults.min_levels}, min points {defaults.min_points}, max censored fraction "
        f"{defaults.max_censored_fraction:.0%}, max interval width {defaults.max_interval_width}. "
        "Intervals are 95% bootstrap percentile intervals over seeds (2000 resamples, seeds resampled "
        "within each x value); the OLS t-interval is given too, and reported instead when every x value "
        "has a single seed.</p></details>"
    )


def _law_section(fit: LawFit, chart: dict | None, index: int, embeds: list[str]) -> str:
    law = fit.law
    items = [
        ("claim", law.claim),
        ("source", law.citation),
        ("conditions", law.conditions),
        ("measure", law.measure.describe() + (f" vs {law.x_label}" if law.x else "")),
        ("prediction", law.prediction_text),
        ("verdict", f"{fit.verdict.verdict}: {fit.verdict.reason}"),
        ("interval", f"{fit.interval_method}; OLS t-interval [{_num(fit.ols_low)}, {_num(fit.ols_high)}]"),
        (
            "points",
            f"{fit.n_points} used at {fit.n_levels} x values, {fit.n_censored} censored, "
            f"{fit.n_excluded} left out (outside the regime flags or not ok)",
        ),
    ]
    if fit.prediction:
        hypotheses = [(fit.prediction.primary, fit.verdict), *fit.alternatives]
        items.append(
            (
                "hypotheses",
                "; ".join(f"{h.name} {h.band.describe()} ({h.source}): {v.verdict}" for h, v in hypotheses),
            )
        )
    sensitivity = {k: v for k, v in fit.sensitivity.items() if math.isfinite(v)}
    if sensitivity:
        items.append(("sensitivity", "; ".join(f"{k}: {v:.3g}" for k, v in sensitivity.items())))
    if fit.combination:
        items.append(("combination", fit.combination_text()))
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in items)
    return (
        f'<h3 id="law-{index}">{_e(law.name)} — {_e(fit.group_label)} '
        f'<span class="{fit.verdict.verdict}">{fit.verdict.verdict}</span></h3>'
        f"<table>{rows}</table>" + _chart_div(chart, embeds)
    )


def _chart_div(chart: dict | None, embeds: list[str]) -> str:
    if chart is None:
        return '<p class="note">No chart: no points.</p>'
    div = f"chart-{len(embeds)}"
    spec = _script_safe(json.dumps(chart["spec"], default=_json_default))
    embeds.append(
        f'vegaEmbed("#{div}", {spec}, {{"renderer": "svg", "actions": false}})'
        ".catch(function (error) { console.error(error); });"
    )
    return f'<div class="chart"><div id="{div}"></div><a href="{_e(chart["png"])}">PNG</a></div>'


def _json_default(value: Any):
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serialisable: {value!r}")


def _script_safe(text: str) -> str:
    """JSON placed inside <script>: a literal '</' would end the element early ('<\\/' is the same
    JSON string)."""
    return text.replace("</", "<\\/")


def _inline_script(code: str) -> str:
    """JavaScript placed inside <script>: only '</script' can end it early. (Escaping every '</'
    would break regex literals such as /</g.)"""
    return re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)


def _e(text: Any) -> str:
    return html.escape(str(text))


def _num(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.3g}"


# Sections driven by the data present (not by the sweep's name) --------------------------------------
ONSET_DEFINITION = (
    "Definition (this tool's, not from the paper): pruning at rate R <em>costs</em> error when the paired "
    "increase over the unpruned model (the same seed's model and test prompts, error at R minus error at "
    "R = 0) has a 95% bootstrap interval over seeds above 0 <em>and</em> a mean larger than the seed-to-seed "
    "standard deviation of the unpruned error; pruning <em>starts to cost</em> at the smallest such R of the grid."
)
SMALL_ERROR = 0.05  # "a small error" in the classical-learner comparison: not from the paper


@dataclass
class Section:
    """A report section of its own: a title, an HTML introduction, and (subtitle, chart, HTML) items."""

    title: str
    intro: str
    items: list[tuple[str, dict | None, str]] = field(default_factory=list)


def data_sections(results: Results, report: Report) -> list[Section]:
    """Sections that the data call for: pruning results (prune_method/prune_ratio eval params) and
    classical learners (a learner eval param with more than one value)."""
    from analysis import charts as chart_module

    sections = []
    findings = pruning_findings(results)
    if findings:
        section = Section(
            "Pruning",
            "<p>Per pruning method, the test error of the trained model against the pruning rate R (mean ± 1 s.d. "
            "over seeds), with the magnitude of every MLP neuron as bars (right axis; sorted, so the bar at R "
            "is the neuron that magnitude pruning removes on reaching R; mean over seeds by rank) and the "
            "hinge loss below. " + ONSET_DEFINITION + "</p>",
        )
        for finding in findings:
            title = f"pruning {finding.label}"
            chart = _add_chart(report, chart_module.pruning_chart(finding), title)
            section.items.append((f"Pruning — {finding.label}", chart, f"<p>{finding.text_html()}</p>"))
        sections.append(section)
    comparisons = baseline_findings(results)
    if comparisons:
        section = Section(
            "In-context learning vs classical learners",
            "<p>Test error against the context length for the trained transformer (ICL) and classical learners "
            "fit on each prompt's demonstrations, one panel per α' (mean ± 1 s.d. over seeds). 'Reaches' "
            f"means a seed-mean error ≤ {SMALL_ERROR:g} (this tool's threshold for a small error, not from "
            "the paper).</p>",
        )
        for finding in comparisons:
            title = f"learners {finding.label}"
            chart = _add_chart(report, chart_module.baselines_chart(finding), title)
            section.items.append((f"Learners — {finding.label}", chart, finding.html()))
        sections.append(section)
    return sections


def _varying(rows, exclude: set[str], params: list[str]) -> list[str]:
    return [p for p in params if p in rows and p not in exclude and rows[p].nunique(dropna=False) > 1]


def _label(group: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in group.items()) or "all"


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
        return _label(self.group)

    def sentence(self, method: str) -> str:
        onset, levels = self.onsets[method]
        name = {"magnitude": "Magnitude pruning (smallest first)", "largest": "Largest-first pruning"}.get(
            method, f"{method.capitalize()} pruning"
        )
        if not math.isfinite(onset):
            tested = levels["x"].max() if len(levels) else math.nan
            return f"{name} does not cost error at any R of the grid (up to R = {_num(tested)})."
        row = levels[levels["x"] == onset].iloc[0]
        below = levels[(levels["x"] < onset) & (levels["x"] > 0)]
        free = f"; no smaller R costs (R = {_num(below['x'].max())} is free)" if len(below) else ""
        return (
            f"{name} starts to cost error at R = {onset:g}: mean increase {_num(row['increase'])} "
            f"[{_num(row['increase_low'])}, {_num(row['increase_high'])}] over the unpruned error "
            f"{_num(self.unpruned)} (seed-to-seed s.d. {_num(self.unpruned_sd)}){free}."
        )

    def text_html(self) -> str:
        parts = [_e(self.sentence(m)) for m in self.onsets]
        if math.isfinite(self.share):
            parts.append(
                _e(
                    f"The small-neuron share |L^c|/m (the lower group of a 2-means split of log ‖r_i‖, r_i = row i "
                    f"of W_O W_V; not from the paper) is {self.share:.3g} ± {self.share_sd:.2g} (mean ± s.d. over "
                    f"seeds); the paper reports ≈ 15% and a free region up to it (Fig. 5A)."
                )
            )
        parts.append(_e(f"Neuron magnitudes scored by {SCORE_TEXT.get(self.score, self.score)}."))
        return " ".join(parts)


SCORE_TEXT = {"wowv": "‖row i of W_O W_V‖ (Thm 3.7's r_i)", "wo": "‖row i of W_O‖ (Fig. 5's caption)"}
MAGNITUDE_COLUMNS = {"wowv": "neuron_magnitude_", "wo": "neuron_wo_magnitude_"}


def pruning_findings(results: Results) -> list[PruningFinding]:
    """Pruning results grouped by every other param that varies; empty without pruning data."""
    import numpy as np

    from analysis.measures import cost_onset

    runs = results.runs
    if not {"prune_method", "prune_ratio", "test_error"} <= set(runs.columns):
        return []
    runs = runs[runs["status"] == "ok"]
    if "learner" in runs:
        runs = runs[runs["learner"].fillna("transformer") == "transformer"]
    runs = runs[runs["prune_method"] != "small"]  # the whole small set, not a ratio: its own law fits it
    if not len(runs) or not (runs["prune_method"] != "none").any():
        return []
    keys = _varying(runs, {"prune_method", "prune_ratio", "seed"}, results.params())
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
                rows = _concat([rows, base])
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


def _concat(frames):
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


@dataclass
class BaselineFinding:
    """One group's comparison of the transformer with classical learners: error per (learner, α', l_ts, seed)."""

    group: dict[str, Any]
    table: Any  # DataFrame: learner, alpha_test, l_ts, seed, test_error

    @property
    def label(self) -> str:
        return _label(self.group)

    def means(self):
        return self.table.groupby(["alpha_test", "learner", "l_ts"], as_index=False)["test_error"].mean()

    def reaching(self):
        """Per (α', learner): the smallest l_ts whose seed-mean error is ≤ SMALL_ERROR (NaN if none)."""
        means = self.means()
        hit = means[means["test_error"] <= SMALL_ERROR].groupby(["alpha_test", "learner"])["l_ts"].min()
        every = means[["alpha_test", "learner"]].drop_duplicates().set_index(["alpha_test", "learner"])
        return every.join(hit.rename("l_ts")).reset_index()

    def sentences(self) -> list[str]:
        out = []
        reach = self.reaching()
        means = self.means()
        for alpha in sorted(reach["alpha_test"].unique(), reverse=True):
            part = reach[reach["alpha_test"] == alpha]
            alpha_means = means[means["alpha_test"] == alpha]
            mean_error = alpha_means.groupby("learner")["test_error"].mean()
            order = part.assign(
                rank_l=part["l_ts"].fillna(math.inf), rank_e=part["learner"].map(mean_error)
            ).sort_values(["rank_l", "rank_e"])
            best = order.iloc[0]
            listed = ", ".join(
                f"{r.learner} at l_ts = {int(r.l_ts)}" if math.isfinite(r.rank_l) else f"{r.learner} never"
                for r in order.itertuples()
            )
            longest = alpha_means["l_ts"].max()
            out.append(
                f"α' = {alpha:g}: first context length with seed-mean error ≤ {SMALL_ERROR:g} — {listed} "
                f"(l_ts up to {longest:g}); the most sample-efficient is {best['learner']} "
                "(ties broken by the mean error over all l_ts)."
            )
        return out

    def html(self) -> str:
        means = self.means()
        tables = []
        for alpha in sorted(means["alpha_test"].unique(), reverse=True):
            part = means[means["alpha_test"] == alpha]
            wide = part.pivot(index="learner", columns="l_ts", values="test_error")
            head = "<tr><th>learner \\ l_ts</th>" + "".join(f"<th>{_e(_num(float(c)))}</th>" for c in wide.columns)
            rows = "".join(
                f"<tr><td>{_e(learner)}</td>"
                + "".join(f'<td class="num">{_num(float(v))}</td>' for v in wide.loc[learner])
                + "</tr>"
                for learner in wide.index
            )
            tables.append(f"<p>α' = {_e(_num(float(alpha)))}: seed-mean test error</p><table>{head}</tr>{rows}</table>")
        text = "".join(f"<p>{_e(s)}</p>" for s in self.sentences())
        return text + "<div class='wide'>" + "".join(tables) + "</div>"


def baseline_findings(results: Results) -> list[BaselineFinding]:
    """Classical-learner comparisons grouped by every other param that varies; empty without them."""
    runs = results.runs
    if not {"learner", "l_ts", "alpha_test", "test_error"} <= set(runs.columns):
        return []
    runs = runs[(runs["status"] == "ok") & runs["learner"].notna()]
    if runs["learner"].nunique() < 2:
        return []
    if "prune_method" in runs:
        runs = runs[(runs["prune_method"].fillna("none") == "none") | (runs["prune_ratio"].fillna(0) == 0)]
    keys = _varying(runs, {"learner", "l_ts", "alpha_test", "seed"}, results.params())
    parts = runs.groupby(keys, dropna=False, sort=True) if keys else [((), runs)]
    out = []
    for key, part in parts:
        key = key if isinstance(key, tuple) else (key,)
        group = {k: (v.item() if hasattr(v, "item") else v) for k, v in zip(keys, key, strict=True)}
        table = part[["learner", "alpha_test", "l_ts", "seed", "test_error"]].copy()
        table = table.sort_values("alpha_test", ascending=False, kind="stable")
        out.append(BaselineFinding(group, table))
    return out

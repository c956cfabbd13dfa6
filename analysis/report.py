"""`iclscale report DIR`: fit the sweep's laws and write OUT/index.html, OUT/fits.csv and a PNG of
every chart under OUT/charts/.

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
from iclscale.errors import UserError

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
    present. A named law with no rows at all still gets a row, saying so."""
    from analysis.laws import get_law, laws_of_study

    named = results.sweep.get("laws") or []
    if not named:
        found = [law.evaluate(results) for law in laws_of_study(results.study)]
        return [fit for fits in found if any(f.n_points for f in fits) for fit in fits]
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
    report.index.write_text(render_html(results, report, law_sections, sweep_charts), encoding="utf-8")
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


def render_html(results: Results, report: Report, law_sections, sweep_charts) -> str:
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

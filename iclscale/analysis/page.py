"""The report's HTML page, laid out like a paper's results: the overview and a table of contents, the laws'
summary table, one section per law with its chart first, the study's own sections, the search (a search
sweep), then the sweep's charts: the training curves of the metrics the laws measure, the other curves and the
final metrics folded (<details>). Works offline: the Vega, Vega-Lite and Vega-Embed JavaScript is inlined once
(from vl-convert's bundle) and every chart is embedded as its JSON spec, drawn as SVG."""

from __future__ import annotations

import html
import json
import math
import re
import textwrap
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from iclscale.analysis import verdict as verdict_rule

if TYPE_CHECKING:
    from iclscale.analysis.lawfit import LawFit
    from iclscale.analysis.reader import Results

VERDICT_TEXT = {verdict_rule.OUTSIDE: "outside the theorem's conditions"}


def verdict_line(verdict: verdict_rule.Verdict) -> str:
    """The verdict in words with its reason (the reason of "outside" already says it)."""
    name = VERDICT_TEXT.get(verdict.verdict, verdict.verdict)
    return verdict.reason if verdict.reason.startswith(name) else f"{name}: {verdict.reason}"


def brief_reason(reason: str, limit: int = 110, verdict: str = "") -> str:
    """A verdict's reason in a few words: long parenthesised asides and the statistics after a colon dropped
    (`a pure power law is rejected (F = …) but the paper's form c0 + c1·L′² (…) fits: lack-of-fit p = …` reads
    `a pure power law is rejected but the paper's form c0 + c1·L′² fits`), cut at `limit` characters."""
    text = " ".join(reason.split())
    if verdict and text.startswith(verdict):  # "outside the theorem's conditions: each of the 5 points violates …"
        text = text[len(verdict) :].lstrip(" :;,")
    text = _without_asides(text)
    head, colon, rest = text.partition(": ")
    if colon and len(head) >= 25 and "=" in rest:  # the statistics behind a stated reason
        text = head
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _without_asides(text: str, shortest: int = 18) -> str:
    """The text without its parenthesised asides (nested ones included) of `shortest` characters or more;
    short ones, such as "value(s)" or "(needs 3)", stay."""
    out, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "(":
            if depth == 0:
                start = i
            depth += 1
        elif char == ")" and depth:
            depth -= 1
            if depth == 0:
                aside = text[start : i + 1]
                keep = len(aside) < shortest or start == 0 or text[start - 1] != " "
                if keep:
                    out.append(aside)
                elif out and out[-1].endswith(" "):
                    out[-1] = out[-1][:-1]
        elif depth == 0:
            out.append(char)
    if depth:  # an unbalanced "(": keep the rest as it is
        out.append(text[start:])
    return re.sub(r"\s{2,}", " ", "".join(out))


@dataclass
class Section:
    """A report section of its own: a title, an HTML introduction, and (subtitle, chart, HTML) items."""

    title: str
    intro: str
    items: list[tuple[str, dict | None, str]] = field(default_factory=list)
    first: bool = False  # shown before the laws (a search sweep's search: its laws are per tried value)


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
.chart { margin: 1em 0 2em 0; overflow-x: auto; }
nav.toc { background: #f7f7f7; border: 1px solid #ddd; padding: 0.5em 1.5em; margin: 1em 0; font-size: 0.9em; }
nav.toc ol { margin: 0.3em 0; padding-left: 1.4em; } nav.toc li { margin: 0.15em 0; }
nav.toc .badge { font-size: 0.85em; padding: 0 0.4em; }
details.fold { margin: 1em 0; } details.fold > summary { cursor: pointer; font-size: 1.2em; font-weight: bold; }
.verdict-line { font-size: 1.05em; margin: 0.3em 0 0.6em 0; }
.note { color: #555; font-size: 0.9em; }
code { background: #f6f6f6; padding: 0 0.2em; }
.outside { background: #e4e4e4; font-weight: bold; }
figure.law-figure { margin: 0.5em 0 1em 0; } figure.law-figure .chart { margin-bottom: 0.3em; }
figure.law-figure figcaption { font-size: 0.92em; color: #333; max-width: 1060px; }
section.headlines { font-size: 1.1em; border-left: 4px solid #888; padding: 0.2em 1em; margin: 1em 0; }
section.headlines ul { margin: 0.3em 0; padding-left: 1.2em; } section.headlines li { margin: 0.3em 0; }
section.headlines a { color: inherit; text-decoration: none; } section.headlines a:hover { text-decoration: underline; }
"""


def render_html(
    results: Results,
    fits,
    law_sections,
    sweep_charts,
    sections=(),
    vl_version: str = "",
    notes=(),
    key_metrics=(),
    headlines: str = "",
) -> str:
    """`law_sections`: (fit, chart, caption) per law; `headlines`: the block the page opens with
    (iclscale.analysis.headlines); `key_metrics`: the metrics the laws measure, whose training curves are shown open,
    the rest folded."""
    embeds = []
    key_curves = [(t, c) for t, c in sweep_charts if t.startswith("curve ") and t[6:] in set(key_metrics)]
    other_curves = [(t, c) for t, c in sweep_charts if t.startswith("curve ") and (t, c) not in key_curves]
    probes = [(t, c) for t, c in sweep_charts if not t.startswith("curve ")]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>iclscale report: {e(results.name)}</title>",
        f"<style>{STYLE}</style>",
        # Vega, Vega-Lite and Vega-Embed, inlined: the page needs no network
        f"<script>{_bundle(vl_version)}</script>",
        "</head><body>",
        f"<h1>Sweep <code>{e(results.name)}</code> — study <code>{e(results.study)}</code></h1>",
        headlines,  # first: one sentence per law, its figure below in its section
        _overview(results),
        *(f"<p class='note'>{e(note)}</p>" for note in notes),
        _contents(fits, sections, key_curves, other_curves, probes),
    ]
    for number, section in enumerate(sections):
        if section.first:
            parts.append(_section_html(section, number, embeds))
    parts += [
        '<h2 id="laws">Laws</h2>',
        _which_laws(results),
        _summary_table(fits),
        _verdict_rule_html(),
    ]
    for index, (fit, chart, caption) in enumerate(law_sections):
        parts.append(_law_section(fit, chart, caption, index, embeds))
    for number, section in enumerate(sections):
        if not section.first:
            parts.append(_section_html(section, number, embeds))
    parts += _sweep_html(bool(sweep_charts), key_curves, other_curves, probes, embeds)
    parts.append("<script>\n" + "\n".join(embeds) + "\n</script>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _sweep_html(any_chart: bool, key_curves, other_curves, probes, embeds: list[str]) -> list[str]:
    """The Sweep section: the curves of the metrics the laws measure, open; the other curves and the final metrics
    against the axes, folded."""
    parts = ['<h2 id="sweep">Sweep</h2>']
    if not any_chart:
        parts.append('<p class="note">No training curves or varying final metrics to show.</p>')
    if key_curves:
        parts.append('<h3 id="key-curves">Training curves of the metrics the laws measure</h3>')
    for title, chart in key_curves:
        parts.append(f"<h4>{e(title)}</h4>" + chart_div(chart, embeds))
    for anchor, label, group in (("other-curves", "Other training curves", other_curves),
                                 ("probes", "Final metrics against the sweep's axes", probes)):  # fmt: skip
        if group:
            parts.append(f'<details class="fold" id="{anchor}"><summary>{label} ({len(group)} charts)</summary>')
            parts += [f"<h4>{e(title)}</h4>" + chart_div(chart, embeds) for title, chart in group]
            parts.append("</details>")
    return parts


def _section_html(section: Section, number: int, embeds: list[str]) -> str:
    parts = [f'<a id="section-{number}"></a><h2>{e(section.title)}</h2>{section.intro}']
    for subtitle, chart, text in section.items:
        parts.append(f"<h3>{e(subtitle)}</h3>{text}" + chart_div(chart, embeds))
    return "\n".join(parts)


def _contents(fits, sections, key_curves, other_curves, probes) -> str:
    """The table of contents: every law with its verdict, the study's sections, the sweep's chart groups."""
    laws = "".join(
        f'<li><a href="#law-{i}">{e(fit.law.name)} — {e(fit.group_label)}{e(judged_as(fit))}</a> '
        f'<span class="badge {fit.verdict.verdict}">{e(VERDICT_TEXT.get(fit.verdict.verdict, fit.verdict.verdict))}'
        "</span></li>"
        for i, fit in enumerate(fits)
    )
    section_items = [(s.first, f'<li><a href="#section-{i}">{e(s.title)}</a></li>') for i, s in enumerate(sections)]
    items = [item for first, item in section_items if first]
    items.append(f'<li><a href="#laws">Laws</a> ({len(fits)})<ol>{laws}</ol></li>')
    items += [item for first, item in section_items if not first]
    sweep = []
    for anchor, label, group in (("key-curves", "training curves of the laws' metrics", key_curves),
                                 ("other-curves", "other training curves (folded)", other_curves),
                                 ("probes", "final metrics against the axes (folded)", probes)):  # fmt: skip
        if group:
            sweep.append(f'<li><a href="#{anchor}">{label}</a> ({len(group)})</li>')
    items.append(f'<li><a href="#sweep">Sweep</a><ol>{"".join(sweep)}</ol></li>')
    return f'<nav class="toc"><strong>Contents</strong><ol>{"".join(items)}</ol></nav>'


def _overview(results: Results) -> str:
    runs = results.runs.drop_duplicates("run_id")
    counts = runs["status"].value_counts().to_dict()
    status = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("ok", "diverged", "failed"))
    axes = ", ".join(f"{a} ({results.runs[a].nunique(dropna=False)})" for a in results.grid_axes()) or "none"
    description = results.sweep.get("description") or ""
    return (
        f"<p>{e(description)}</p>"
        f"<p>Results <code>{e(results.directory)}</code>: {len(runs)} configs ({status}); "
        f"{len(results.runs)} rows with eval points; seeds {e(str(sorted(results.runs['seed'].unique().tolist())))}; "
        f"axes: {e(axes)}.</p>"
    )


def _which_laws(results: Results) -> str:
    named = results.sweep.get("laws") or []
    if named:
        return f"<p>The laws named in the sweep's <code>laws:</code> list: {e(', '.join(named))}.</p>"
    return (
        f"<p>The sweep names no laws, so every law of study <code>{e(results.study)}</code> whose data are "
        "present is fitted (see <code>iclscale laws</code>).</p>"
    )


def _summary_table(fits: list[LawFit]) -> str:
    head = (
        "<tr><th>law</th><th>group</th><th>statistic</th><th>estimate</th><th>interval</th>"
        "<th>theory</th><th>R²</th><th>points (censored, left out)</th>"
        "<th>inside / outside the theorem's conditions</th><th>verdict</th>"
        "<th>other readings of the theory, judged the same way</th></tr>"
    )
    rows = []
    for i, fit in enumerate(fits):
        theory = fit.prediction.primary if fit.prediction else None
        alternatives = "<br>".join(
            f'{e(h.name)} {e(h.band.describe())}: <span class="{v.verdict}">{v.verdict}</span>'
            for h, v in fit.alternatives
        )
        rows.append(
            "<tr>"
            f'<td><a href="#law-{i}">{e(fit.law.name)}</a></td>'
            f"<td>{e(fit.group_label)}</td>"
            f"<td>{e(fit.statistic)}</td>"
            f'<td class="num">{num(fit.estimate)}</td>'
            f'<td class="num">[{num(fit.ci_low)}, {num(fit.ci_high)}]</td>'
            f"<td>{e(theory.band.describe()) if theory else '—'}</td>"
            f'<td class="num">{num(fit.r2)}</td>'
            f'<td class="num">{fit.n_points} ({fit.n_censored}, {fit.n_excluded})</td>'
            f'<td class="num">{fit.n_inside} / {fit.n_outside}</td>' + verdict_cell(fit) + f"<td>{alternatives}</td>"
            "</tr>"
        )
    return f"<div class='wide'><table>{head}{''.join(rows)}</table></div>"


def verdict_cell(fit: LawFit) -> str:
    verdict = fit.verdict.verdict
    return f'<td class="{verdict}" title="{e(fit.verdict.reason)}">{e(VERDICT_TEXT.get(verdict, verdict))}</td>'


def _verdict_rule_html() -> str:
    rule = "\n".join(textwrap.fill(line, 110, subsequent_indent="   ") for line in verdict_rule.rule_lines())
    return (
        "<details><summary>How verdicts are decided</summary>"
        f"<pre>{e(rule)}</pre>"
        "<p class='note'>The numbers are this tool's defaults, not from any paper; a law may set its own. Exponents "
        "and slopes get 95% Student t-intervals: OLS where every x is its own trained model, over per-seed fits "
        "where one model is measured at every x (paired); censored points enter a Tobit likelihood on log y (Wald "
        "t-interval). Statistics of seed-means (a minimum, Spearman's ρ, a crossing) get a parametric "
        "t-bootstrap of the means (seeds resampled whole where paired). "
        "benchmarks/calibration.py measures their coverage (docs/laws-and-verdicts.md).</p></details>"
    )


def _law_section(fit: LawFit, chart: dict | None, caption: str, index: int, embeds: list[str]) -> str:
    law = fit.law
    verdict = VERDICT_TEXT.get(fit.verdict.verdict, fit.verdict.verdict)
    items = [
        ("claim", law.claim),
        ("source", law.citation),
        ("conditions", law.conditions),
        ("measure", law.measure.describe() + (f" vs {law.x_label}" if law.x else "")),
        ("prediction", law.prediction_text),
        ("verdict", verdict_line(fit.verdict)),
        ("interval", f"{fit.interval_method}; OLS t-interval [{num(fit.ols_low)}, {num(fit.ols_high)}]"),
        (
            "points",
            f"{fit.n_points} used at {fit.n_levels} x values, {fit.n_censored} censored, {fit.n_excluded} left "
            f"out ({fit.n_outside} outside the theorem's conditions, the rest not ok)",
        ),
    ]
    if fit.experiment is not None:
        items.insert(0, ("the paper's experiment", fit.experiment.describe()))
    if law.regime is not None:
        items.append(("theorem's conditions", law.regime.text))
    if law.versus_printed is not None:
        items.append(("versus the paper", law.versus_printed.describe()))
    items += diagnosis_items(law.name)
    items += form_items(fit)
    if fit.prediction:
        hypotheses = [(fit.prediction.primary, fit.verdict), *fit.alternatives]
        items.append(
            ("hypotheses", "; ".join(f"{h.name} {h.band.describe()} ({h.source}): {v.verdict}" for h, v in hypotheses))
        )
    sensitivity = {k: v for k, v in fit.sensitivity.items() if math.isfinite(v)}
    if sensitivity:
        items.append(("sensitivity", "; ".join(f"{k}: {v:.3g}" for k, v in sensitivity.items())))
    if fit.combination:
        items.append(("combination", fit.combination_text()))
    rows = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in items)
    reason = brief_reason(fit.verdict.reason, verdict=verdict)
    return (  # the chart first, as a paper's figure, its caption under it, then the evidence behind its verdict
        f'<h3 id="law-{index}">{e(law.name)} — {e(fit.group_label)}{e(judged_as(fit))} '
        f'<span class="{fit.verdict.verdict}">{e(verdict)}</span></h3>'
        f'<figure class="law-figure">{chart_div(chart, embeds)}'
        f"<figcaption>{e(caption)}</figcaption></figure>"
        f'<p class="verdict-line">{e(law.claim)} — <strong>{e(verdict)}</strong>: {e(reason)}</p>'
        f"<details open><summary>the fit, the prediction and the evidence</summary><table>{rows}</table></details>"
    )


def judged_as(fit: LawFit) -> str:
    return f" — the paper's experiment, {fit.experiment.figure}" if fit.experiment is not None else ""


def diagnosis_items(law: str) -> list[tuple[str, str]]:
    """Why the law's claim does not reproduce, where the catalogue says (iclscale.analysis.law.Diagnosis): shown with
    every verdict of the law, whichever this sweep's is."""
    from iclscale.analysis.diagnoses import diagnoses_of_law

    return [(f"diagnosis of claim {claim.label}", d.describe()) for claim, d in diagnoses_of_law(law)]


def form_items(fit: LawFit) -> list[tuple[str, str]]:
    """The form checks: lack of fit, local exponents, the censored and drop-censored fits, other forms."""
    items = []
    if fit.lack_of_fit is not None:
        rejected = "rejected" if fit.lack_of_fit.rejected else "not rejected"
        items.append(("lack of fit", f"{fit.lack_of_fit.describe()} against the cell means: the curve is {rejected}"))
    if fit.local is not None and len(fit.local.slope):
        local = zip(fit.local.x_low, fit.local.x_high, fit.local.slope, strict=True)
        steps = ", ".join(f"{lo:.3g}→{hi:.3g}: {s:.3g}" for lo, hi, s in local)
        items.append(("local exponents" if fit.law.kind.name != "linear" else "local slopes", steps))
    whole, local_all = fit.details.get("lack_of_fit_all"), fit.details.get("local_all")
    if whole is not None or local_all is not None:
        text = "; ".join([whole.describe()] if whole is not None else [])
        text += f"; local exponents {local_all.describe()}" if local_all is not None else ""
        items.append(("form over all points (those outside the conditions included)", text.lstrip("; ")))
    for name in ("censored fit", "drop-censored fit"):
        found = fit.details.get(name)
        if found and (name == "censored fit" or "censored fit" in fit.details):
            items.append((name, f"{found['exponent']:.3g} [{found['ci_low']:.3g}, {found['ci_high']:.3g}] "
                                f"({found['points']} points)"))  # fmt: skip
    if fit.forms is not None:
        items.append(("forms", fit.forms.describe()))
    return items


EXPORT_ONLY = '{"export": true, "source": false, "compiled": false, "editor": false}'  # save as SVG/PNG, offline


def chart_div(chart: dict | None, embeds: list[str]) -> str:
    if chart is None:
        return '<p class="note">No chart: no points.</p>'
    div = f"chart-{len(embeds)}"
    spec = _script_safe(json.dumps(chart["spec"], default=_json_default))
    embeds.append(
        f'vegaEmbed("#{div}", {spec}, {{"renderer": "svg", "actions": {EXPORT_ONLY}}})'
        ".catch(function (error) { console.error(error); });"
    )
    link = f'<a href="{e(chart["png"])}">PNG</a>' if chart.get("png") else ""
    return f'<div class="chart"><div id="{div}"></div>{link}</div>'


def _json_default(value: Any):
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serialisable: {value!r}")


def _script_safe(text: str) -> str:
    """JSON placed inside <script>: a literal '</' would end the element early ('<\\/' is the same
    JSON string)."""
    return text.replace("</", "<\\/")


@cache
def _bundle(vl_version: str) -> str:
    """Vega, Vega-Lite and Vega-Embed as one inline script (2 s to build: kept for the next report)."""
    import vl_convert

    return _inline_script(vl_convert.javascript_bundle(vl_version=vl_version))


def _inline_script(code: str) -> str:
    """JavaScript placed inside <script>: only '</script' can end it early. (Escaping every '</'
    would break regex literals such as /</g.)"""
    return re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)


def e(text: Any) -> str:
    return html.escape(str(text))


def num(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.3g}"

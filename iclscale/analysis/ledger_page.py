"""The claims ledger's offline page (DIR/index.html): the verdict counts per paper, the sensitivity to the hidden
constants, and one row per claim (its words, verdict, estimates, evidence and provenance), filtered by paper and
verdict in the page itself; nothing is fetched."""

from __future__ import annotations

import html
from typing import Any

from iclscale.analysis.ledger import FIT_RULE_HEAD, OUTSIDE, VERDICTS, estimate_text
from iclscale.sweeps.budget import CUSTOM, QUICK

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1500px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; font-size: 0.9em; }
#claims { width: 100%; table-layout: fixed; } #claims td { overflow-wrap: anywhere; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.5em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
td.n { text-align: right; }
.consistent { background: #d8f0d8; } .inconsistent { background: #f6d3d3; } .inconclusive { background: #fbefc8; }
.outside { background: #e4e4e4; } .not-run, .no-law { background: #fff; color: #777; }
.quote { font-style: italic; color: #333; } .small { font-size: 0.85em; color: #555; }
code { font-size: 0.85em; word-break: break-all; }
details summary { cursor: pointer; color: #246; }
.filters { margin: 1em 0; } .filters label { margin-right: 1.5em; }
"""

SCRIPT = """
function applyFilters() {
  const paper = document.getElementById('paper').value, verdict = document.getElementById('verdict').value;
  let shown = 0;
  for (const row of document.querySelectorAll('tr.claim')) {
    const on = (!paper || row.dataset.paper === paper) && (!verdict || row.dataset.verdict === verdict);
    row.style.display = on ? '' : 'none';
    shown += on;
  }
  document.getElementById('shown').textContent = shown;
}
document.getElementById('paper').addEventListener('change', applyFilters);
document.getElementById('verdict').addEventListener('change', applyFilters);
applyFilters();
"""


def render_page(data: dict[str, Any]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(v)}</th>" for v in VERDICTS)
    count_rows = "".join(
        f"<tr><th>{e(p['paper'])}</th>"
        + "".join(f'<td class="n {_css(v)}">{p["counts"][v]}</td>' for v in VERDICTS)
        + f'<td class="n">{sum(p["counts"].values())}</td></tr>'
        for p in data["papers"]
    )
    totals = {v: sum(p["counts"][v] for p in data["papers"]) for v in VERDICTS}
    count_rows += (
        "<tr><th>all papers</th>"
        + "".join(f'<td class="n">{totals[v]}</td>' for v in VERDICTS)
        + f'<td class="n">{sum(totals.values())}</td></tr>'
    )
    paper_options = "".join(f'<option value="{e(p["tag"])}">{e(p["paper"])}</option>' for p in data["papers"])
    verdict_options = "".join(f'<option value="{e(v)}">{e(v)}</option>' for v in VERDICTS)
    rows = "".join(_claim_row(c) for c in data["claims"])
    roots = ", ".join(f"<code>{e(r)}</code>" for r in data["roots"]) or "none"
    claim_rule, fit_rule = _rules_html(data["verdict_rule"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>iclscale claims ledger</title><style>{STYLE}</style></head>
<body>
<h1>Claims ledger</h1>
<p class="small">Every claim of every paper in the catalogue, judged on the result roots {roots}; generated
{e(data["generated_at"])} by iclscale at commit <code>{e(data["git_commit"])}</code>.
Claim verdict: {e(claim_rule)}.
A "quick" verdict rests on fewer seeds, search trials or training steps than the catalogue's sweep files
(<code>iclscale reproduce --budget quick</code>): a preview, not a result to cite.
Also as <a href="claims.json">claims.json</a> and <a href="claims.csv">claims.csv</a>.</p>
{fit_rule}<table id="counts"><tr><th>paper</th>{head}<th>claims</th></tr>{count_rows}</table>
{_sensitivity_table(data)}
<div class="filters"><label>paper <select id="paper"><option value="">all</option>{paper_options}</select></label>
<label>verdict <select id="verdict"><option value="">all</option>{verdict_options}</select></label>
<span class="small"><span id="shown"></span> claims shown</span></div>
<table id="claims"><colgroup><col style="width:4em"><col style="width:3.5em"><col style="width:7em"><col>
<col style="width:8em"><col style="width:28%"><col style="width:22%"></colgroup>
<tr><th>paper</th><th>claim</th><th>anchor</th><th>claim and the paper's words</th>
<th>verdict: the theorem's law inside its conditions / the paper's experiment</th>
<th>estimates (interval, method, reading → verdict)</th><th>evidence and provenance</th></tr>{rows}</table>
<script>{SCRIPT}</script>
</body></html>
"""


def _experiment_cell(experiment: dict[str, Any] | None) -> str:
    if not experiment:
        return ""
    e = html.escape
    return (
        f"<div class='{_css(experiment['verdict'])}'>the paper's experiment ({e(experiment['figure'])}): "
        f"{e(experiment['verdict'])}</div><div class='quote small'>“{e(experiment['quote'])}”</div>"
    )


def _sensitivity_table(data: dict[str, Any]) -> str:
    """How many claims of each paper have a fit inside their theorems' conditions at each value of the hidden
    constants (the ledger's `sensitivity`)."""
    papers_ = [p for p in data["papers"] if p.get("sensitivity")]
    if not papers_:
        return ""
    e = html.escape
    keys = list(papers_[0]["sensitivity"])
    head = "".join(f"<th>{e(k)}</th>" for k in keys)
    rows = "".join(
        f"<tr><th>{e(p['paper'])}</th>" + "".join(f'<td class="n">{p["sensitivity"][k]}</td>' for k in keys) + "</tr>"
        for p in papers_
    )
    return (
        "<p class='small'>Claims with a fit inside their theorems' conditions were every hidden Ω/O constant this "
        "value (the ledger judges at 1; a claim's c* is the largest value at which one of its fits is inside):</p>"
        f"<table id='sensitivity'><tr><th>hidden constants</th>{head}</tr>{rows}</table>"
    )


def _rules_html(rule: str) -> tuple[str, str]:
    """claims.json's verdict_rule as (the claim's rule, the fit's rule folded in <details>: "" in a ledger written
    before the fit's rule was part of it)."""
    claim, head, fits = rule.partition(f". {FIT_RULE_HEAD} ")
    if not head:
        return claim, ""
    return (
        claim,
        f"<details class='small'><summary>How each fit's verdict is decided</summary>{html.escape(fits)}</details>\n",
    )


def _css(verdict: str) -> str:
    return verdict.replace(" ", "-")


def _claim_row(c: dict[str, Any]) -> str:
    e = html.escape
    quote = f'<div class="quote">“{e(c["quote"])}”</div>' if c["quote"] else ""
    readings = "".join(
        f"<li><code>{e(law['name'])}</code>: {e(law['reading'])}"
        + (f" <i>({e(law['versus_printed'])})</i>" if law["versus_printed"] else "")
        + "</li>"
        for law in c["laws"]
    )
    conditions = "".join(f"<li>{e(text)}</li>" for text in c["conditions"])
    details = (
        f"<details><summary>laws, readings, conditions</summary><ul>{readings}</ul><ul class='small'>{conditions}</ul>"
        "</details>"
        if c["laws"]
        else ""
    )
    estimates = "".join(
        f'<li class="{_css(x["verdict"])}"><a href="{e(x["report"])}">{e(estimate_text(x))}</a></li>'
        for x in c["estimates"]
    )
    verdict = c["verdict"] + (f" ({c['budget']})" if c["budget"] in (QUICK, CUSTOM) else "")
    constant = c.get("c_star")
    if c["verdict"] == OUTSIDE and isinstance(constant, float):
        verdict += f"; inside only if the hidden constants were ≤ c* = {constant:.3g}"
    experiment = c.get("experiment")
    if experiment:
        estimates += "".join(
            f'<li class="{_css(x["verdict"])}"><a href="{e(x["report"])}">the paper\'s experiment: '
            f"{e(estimate_text(x))}</a></li>"
            for x in experiment["estimates"]
        )
    evidence = []
    carried = c.get("carried")
    if carried:  # an earlier ledger's verdict for a claim these roots did not run: said first, in the verdict too
        verdict += f" — carried from the ledger of {carried.get('generated_at')}, not re-run here"
        evidence.append(
            f"<b>carried</b>: not re-run in these roots; the verdict and evidence are the ledger of "
            f"{e(str(carried.get('generated_at')))} at commit <code>{e(str(carried.get('git_commit'))[:12])}</code>, "
            "judged by that commit's code"
        )
    if c["laws_not_run"]:
        evidence.append("<b>laws not run here</b>: " + e(", ".join(c["laws_not_run"])))
    if c["diagnosis"]:
        evidence.append("<b>diagnosis</b>: " + e("; ".join(c["diagnosis"])))
    if c["negative_control"]:
        evidence.append("<b>negative control</b>: " + e("; ".join(c["negative_control"])))
    if c["root"]:
        evidence.append(
            f"{len(c['seeds'])} seeds ({e(' '.join(map(str, c['seeds'])))}), {c['configs']} configs in "
            f"<code>{e(c['root'])}</code> ({e(', '.join(c['sweeps']))}); commit "
            f"<code>{e(', '.join(x[:12] for x in c['git_commits']))}</code>; runs finished "
            f"{e(str(c['runs_finished']['last']))}"
        )
    elif c["laws"]:
        evidence.append(f"not run in these roots; sweeps: {e(', '.join(c['sweeps']) or 'none in the catalogue')}")
    else:
        evidence.append("no law in the catalogue tests this claim")
    if c["command"]:
        evidence.append(f"<details><summary>command</summary><code>{e(c['command'])}</code></details>")
    if len(c["history"]) > 1:
        history = "".join(
            f"<li>{e(str(h['finished']))}: {e(h['verdict'])} ({e(h['budget'])}, <code>{e(h['root'])}</code>)</li>"
            for h in c["history"]
        )
        evidence.append(f"<details><summary>history</summary><ul>{history}</ul></details>")
    return (
        f'<tr class="claim" data-paper="{e(c["paper_tag"])}" data-verdict="{e(c["verdict"])}">'
        f"<td>{e(c['paper_tag'])}</td><td>{e(c['claim_id'])}</td><td>{e(c['anchor'])}</td>"
        f"<td>{e(c['claim'])}{quote}{details}</td><td class='{_css(c['verdict'])}'>{e(verdict)}"
        f"{_experiment_cell(experiment)}</td>"
        f"<td><ul>{estimates}</ul></td><td class='small'>{'<br>'.join(evidence)}</td></tr>"
    )

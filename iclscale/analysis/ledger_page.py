"""The claims ledger's offline page (DIR/index.html): the verdict counts per paper, the sensitivity to the hidden
constants, and one line per claim (its verdict, the estimate it rests on, the reason in a sentence, the diagnosis)
with everything else folded under it (the estimates grouped by law, conditions, controls, command, history);
filtered by paper, verdict and free text in the page itself; nothing is fetched."""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import Any

from iclscale.analysis.ledger import FIT_RULE_HEAD, NO_LAW, NOT_RUN, OUTSIDE, VERDICTS, estimate_text
from iclscale.sweeps.budget import CUSTOM, FULL, QUICK

COLUMNS = (
    "4.5em 4.5em 7em minmax(10em, 1fr) 9em 20% 17% 17%"  # paper, id, anchor, claim, verdict, estimate, why, diagnosis
)

STYLE = f"""
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1500px; padding: 0 1em; color: #222; }}
table {{ border-collapse: collapse; font-size: 0.9em; }}
th, td {{ border: 1px solid #ccc; padding: 0.3em 0.5em; vertical-align: top; text-align: left; }}
th {{ background: #f3f3f3; }}
td.n {{ text-align: right; }}
.consistent {{ background: #d8f0d8; }} .inconsistent {{ background: #f6d3d3; }} .inconclusive {{ background: #fbefc8; }}
.outside {{ background: #e4e4e4; }} .not-run, .no-law {{ background: #fff; color: #777; }}
.quote {{ font-style: italic; color: #333; }} .small {{ font-size: 0.85em; color: #555; }}
code {{ font-size: 0.85em; word-break: break-all; }}
details summary {{ cursor: pointer; color: #246; }}
.filters {{ margin: 1em 0; }} .filters label {{ margin-right: 1.5em; }} #search {{ width: 22em; }}
.line {{ display: grid; grid-template-columns: {COLUMNS}; font-size: 0.9em; border-bottom: 1px solid #ddd; }}
.line > span {{ padding: 0.25em 0.4em; overflow-wrap: anywhere; }}
.head {{ font-weight: bold; background: #f3f3f3; position: sticky; top: 0; }}
details.claim > summary {{ color: inherit; list-style: none; }}
details.claim > summary::-webkit-details-marker {{ display: none; }}
details.claim > summary:hover {{ background: #f5f8fc; }}
details.claim > summary .id::before {{ content: "▸ "; color: #246; }}
details.claim[open] > summary .id::before {{ content: "▾ "; }}
details.claim[open] {{ background: #fafafa; }} details.claim {{ scroll-margin-top: 2.5em; }}
.more {{ padding: 0.3em 1em 1em 7em; font-size: 0.9em; }} .more ul {{ margin: 0.2em 0; }}
.badge {{ display: inline-block; font-size: 0.8em; padding: 0 0.35em; border-radius: 0.3em; margin-left: 0.2em;
  white-space: nowrap; }}
.badge.carried {{ background: #5b3a8c; color: #fff; }} .badge.budget {{ background: #555; color: #fff; }}
.elsewhere {{ color: #5b3a8c; font-weight: bold; }}
"""

SCRIPT = """
const claims = [...document.querySelectorAll('.claim')];
function applyFilters() {
  const paper = document.getElementById('paper').value, verdict = document.getElementById('verdict').value;
  const terms = document.getElementById('search').value.toLowerCase().split(/\\s+/).filter(Boolean);
  const all = document.getElementById('show-all').checked;
  let shown = 0, hidden = 0;
  for (const claim of claims) {
    const match = (!paper || claim.dataset.paper === paper) && (!verdict || claim.dataset.verdict === verdict)
      && terms.every(t => claim.dataset.search.includes(t));
    // a claim that did not run is hidden unless asked: the box ticked, or its verdict chosen
    const idle = claim.dataset.ran === 'no' && !all && verdict !== claim.dataset.verdict;
    const on = match && !idle;
    claim.style.display = on ? '' : 'none';
    shown += on;
    hidden += match && idle;
  }
  document.getElementById('shown').textContent = shown;
  document.getElementById('hidden').textContent = hidden ? `; ${hidden} not run hidden` : '';
}
for (const id of ['paper', 'verdict', 'show-all']) document.getElementById(id).addEventListener('change', applyFilters);
document.getElementById('search').addEventListener('input', applyFilters);
applyFilters();
// index.html#C24-C3 opens that claim, shown even where the filters would hide it
const linked = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
if (linked && linked.classList.contains('claim')) {
  linked.open = true; linked.style.display = ''; linked.scrollIntoView();
}
"""

LINE_HEAD = (
    "<div class='line head'><span>paper</span><span>claim</span><span>anchor</span><span>the claim</span>"
    "<span>verdict</span><span>the estimate it rests on</span><span>why, in a sentence</span><span>diagnosis</span>"
    "</div>"
)


def resting_estimate(claim: dict[str, Any]) -> dict[str, Any] | None:
    """The one estimate the claim's verdict rests on, by a fixed rule a reader can redo: the first of its estimates
    (claims.json's order: each sweep's report, section by section) whose verdict is the claim's — for a consistent
    claim its first consistent fit, for an inconsistent one its first inconsistent fit, for an outside or
    inconclusive one its first outside or inconclusive fit. None where no estimate has the claim's verdict (not
    run, no law, or inconclusive only because a law was not fitted: `laws_not_run` says why)."""
    return next((e for e in claim["estimates"] if e["verdict"] == claim["verdict"]), None)


def first_sentence(text: str, limit: int = 160) -> str:
    """The text's first sentence, cut to `limit` characters: up to the first ". ", "; ", "! " or "? " outside
    parentheses; a parenthesis longer than PAREN characters shortened to its first clause ("(a; b)" → "(a; …)")."""
    text, out, depth, inner = text.strip(), [], 0, []
    for i, char in enumerate(text):
        if depth == 0 and char in ".;!?" and text[i + 1 : i + 2] in (" ", "\n"):
            break
        if char == "(":
            depth += 1
        if depth:
            inner.append(char)
        else:
            out.append(char)
        if char == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append(_short_parenthesis("".join(inner)))
                inner = []
    if inner:  # a parenthesis not closed before the end
        out.append(_short_parenthesis("".join(inner)))
    sentence = "".join(out).rstrip(" ,:;.")
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


PAREN = 60


def _short_parenthesis(text: str) -> str:
    if len(text) <= PAREN:
        return text
    clause = re.split(r"[;:] ", text[1:], maxsplit=1)[0]
    return f"({clause}; …)" if len(clause) <= PAREN else "(…)"


def short_estimate(e: dict[str, Any]) -> str:
    """An estimate in a few words: the law (without its study), the group, the value, its interval, the band."""

    def g(x):
        return "–" if x is None else f"{x:.3g}"

    group = f" {e['group']}" if e["group"] else ""
    theory = f" vs {e['theory']}" if e["theory"] else ""
    return f"{e['law'].split('.', 1)[-1]}{group}: {g(e['estimate'])} [{g(e['ci_low'])}, {g(e['ci_high'])}]{theory}"


def ran(claim: dict[str, Any]) -> bool:
    return claim["verdict"] not in (NOT_RUN, NO_LAW)


def is_preview(data: dict[str, Any]) -> bool:
    """A ledger of previews only: some claim ran, and none at the catalogue's full budget (every one quick, or
    custom: narrowed by overrides). Its claims not run are hidden by default: it shows what ran unless asked."""
    budgets = {c["budget"] for c in data["claims"] if ran(c)}
    return bool(budgets) and FULL not in budgets


def the_reason(claim: dict[str, Any]) -> str:
    """The claim's verdict in one sentence: the resting estimate's reason, or why no estimate bears it."""
    resting = resting_estimate(claim)
    if resting is not None:
        return first_sentence(resting["reason"]) or f"{resting['verdict']} (the report gives no reason)"
    if claim["verdict"] == NO_LAW:
        return "no law in the catalogue tests this claim"
    if claim["verdict"] == NOT_RUN:
        return "not run in these roots"
    if claim["laws_not_run"]:
        names = ", ".join(name.split(".", 1)[-1] for name in claim["laws_not_run"])
        return f"not every law fitted: {names} not run here"
    return "no fit has the claim's verdict (see its fits)"


def the_diagnosis(claim: dict[str, Any], limit: int = 200) -> str:
    """The claim's first diagnosis, its first sentence cut to `limit`; a catalogue diagnosis (written from the
    catalogue's full run) beside a preview's fits says so, so that its numbers are not taken for this run's."""
    if not claim["diagnosis"]:
        return ""
    text = first_sentence(claim["diagnosis"][0], limit)
    own = text.startswith(("open (generated", "regime (generated"))
    if ran(claim) and claim["budget"] in (QUICK, CUSTOM) and not own:
        return f"the catalogue's (from its full run): {text}"
    return text


def verdict_line(claim: dict[str, Any]) -> str:
    """`iclscale laws --verdicts`: tag, id, verdict (budget; carried), the resting estimate, the diagnosis's start."""
    verdict = claim["verdict"] + (f" ({claim['budget']})" if claim["budget"] in (QUICK, CUSTOM) else "")
    carried = claim.get("carried")
    if carried:
        verdict += f", carried from {str(carried.get('generated_at'))[:10]}"
    resting = resting_estimate(claim)
    line = f"{claim['paper_tag']:<5} {claim['claim_id']:<4} {verdict:<14} "
    line += short_estimate(resting) if resting is not None else the_reason(claim)
    diagnosis = the_diagnosis(claim, 80)
    return line + (f" — {diagnosis}" if diagnosis else "")


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
    lines = "".join(claim_html(c) for c in data["claims"])
    roots = ", ".join(f"<code>{e(r)}</code>" for r in data["roots"]) or "none"
    claim_rule, fit_rule = _rules_html(data["verdict_rule"])
    idle = sum(not ran(c) for c in data["claims"])
    preview = is_preview(data)
    hidden = "" if idle else " hidden"  # nothing to show or hide
    ticked = "" if preview else " checked"
    why = " (hidden by default: this ledger holds previews only, no claim at full budget)" if preview else ""
    show_all = (
        f"<label{hidden}><input type='checkbox' id='show-all'{ticked}> show the {idle} claims not run here{why}</label>"
    )
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
<label>search <input type="search" id="search" placeholder="paper, claim, law, verdict…"></label>
{show_all}
<span class="small"><span id="shown"></span> claims shown<span id="hidden"></span></span></div>
<p class="small">One line per claim: the estimate its verdict rests on is its first fit with the claim's verdict;
click a line for its fits grouped by law, conditions, controls, command and history.</p>
<div id="claims">{LINE_HEAD}{lines}</div>
<script>{SCRIPT}</script>
</body></html>
"""


def _experiment_html(experiment: dict[str, Any] | None) -> str:
    if not experiment:
        return ""
    e = html.escape
    fits = "".join(
        f'<li class="{_css(x["verdict"])}"><a href="{e(x["report"])}">{e(estimate_text(x))}</a></li>'
        for x in experiment["estimates"]
    )
    return (
        f"<p><span class='{_css(experiment['verdict'])}'>the paper's experiment ({e(experiment['figure'])}): "
        f"{e(experiment['verdict'])}</span> <span class='quote small'>“{e(experiment['quote'])}”</span></p>"
        + (f"<ul>{fits}</ul>" if fits else "")
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


def law_counts(name: str, fits: list[dict[str, Any]]) -> str:
    """A law's summary line: "M_norm_vs_Lambda: 4 fits — 1 consistent, 2 outside, 1 inconclusive"."""
    short = name.split(".", 1)[-1]
    if not fits:
        return f"{short}: not fitted here"
    counts = Counter(x["verdict"] for x in fits)
    per_verdict = ", ".join(f"{counts[v]} {v}" for v in (*VERDICTS, *sorted(set(counts) - set(VERDICTS))) if counts[v])
    return f"{short}: {len(fits)} fit{'s' if len(fits) > 1 else ''} — {per_verdict}"


def _fits_by_law(c: dict[str, Any], elsewhere: str) -> str:
    """The claim's estimates grouped by law (the claim's laws first, in order), each law's line with its counts per
    verdict and, folded under it, its reading and its fits (each linked to its report's section)."""
    e = html.escape
    readings = {law["name"]: law for law in c["laws"]}
    names = list(dict.fromkeys([*readings, *(x["law"] for x in c["estimates"])]))
    parts = []
    for name in names:
        fits = [x for x in c["estimates"] if x["law"] == name]
        law = readings.get(name)
        reading = (
            f"<div class='small'><code>{e(name)}</code>: {e(law['reading'])}"
            + (f" <i>({e(law['versus_printed'])})</i>" if law["versus_printed"] else "")
            + "</div>"
            if law
            else f"<div class='small'><code>{e(name)}</code></div>"
        )
        # the statistic and method said once where every fit of the law shares them (the usual case)
        shared = {(x["statistic"], x["method"]) for x in fits}
        common = len(shared) == 1
        if common and fits:
            statistic, method = next(iter(shared))
            reading += f"<div class='small'>each fit: {e(statistic or 'estimate')}" + (
                f" ({e(method)})</div>" if method else "</div>"
            )
        items = "".join(
            f'<li class="{_css(x["verdict"])}"><a href="{e(x["report"])}">'
            + e(f"{short_estimate(x)} → {x['verdict']}" if common else estimate_text(x))
            + f"</a>{elsewhere}"
            + (f"<div class='small'>{e(first_sentence(x['reason'], 200))}</div>" if x["reason"] else "")
            + "</li>"
            for x in fits
        )
        parts.append(
            f"<details class='law'><summary>{e(law_counts(name, fits))}</summary>{reading}<ul>{items}</ul></details>"
        )
    return "".join(parts)


def claim_html(c: dict[str, Any]) -> str:
    """One claim: its line (a <summary>) and, folded under it, everything else."""
    e = html.escape
    resting = resting_estimate(c)
    carried = c.get("carried")
    verdict = e(c["verdict"])
    if c["budget"] in (QUICK, CUSTOM):
        verdict += (
            f" <span class='badge budget' title='fewer seeds, trials or steps than the catalogue'>{c['budget']}</span>"
        )
    elsewhere = ""
    if carried:  # an earlier ledger's verdict for a claim these roots did not run: said on the line itself
        day = str(carried.get("generated_at"))[:10]
        verdict += (
            f" <span class='badge carried' title='not re-run here: the ledger of "
            f"{e(str(carried.get('generated_at')))}'>carried · {e(day)}</span>"
        )
        elsewhere = f" <span class='elsewhere small'>(from the ledger of {e(day)}, not this run)</span>"
    constant = c.get("c_star")
    if c["verdict"] == OUTSIDE and isinstance(constant, float):
        verdict += f"<div class='small'>c* = {constant:.3g}</div>"
    if resting is not None:
        estimate = f"<a href='{e(resting['report'])}'>{e(short_estimate(resting))}</a>{elsewhere}"
    else:
        estimate = "—"
    laws = dict.fromkeys([*(law["name"] for law in c["laws"]), *(x["law"] for x in c["estimates"])])
    search = " ".join(
        [c["paper_tag"], c["paper"], c["claim_id"], c["anchor"], c["claim"], c["verdict"], *laws,
         "carried" if carried else ""]
    ).lower()  # fmt: skip
    claim = c["claim"] if len(c["claim"]) <= 140 else c["claim"][:139].rstrip() + "…"
    line = (
        f"<summary class='line'><span>{e(c['paper_tag'])}</span><span class='id'>{e(c['claim_id'])}</span>"
        f"<span class='small'>{e(c['anchor'])}</span><span title='{e(c['claim'])}'>{e(claim)}</span>"
        f"<span class='{_css(c['verdict'])}'>{verdict}</span><span class='small'>{estimate}</span>"
        f"<span class='small'>{e(the_reason(c))}</span><span class='small'>{e(the_diagnosis(c))}</span></summary>"
    )
    return (
        f'<details class="claim" id="{e(c["paper_tag"])}-{e(c["claim_id"])}" data-paper="{e(c["paper_tag"])}" '
        f'data-verdict="{e(c["verdict"])}" '
        f'data-ran="{"yes" if ran(c) else "no"}" data-search="{e(search)}">{line}<div class="more">{_more(c)}</div>'
        "</details>"
    )


def _more(c: dict[str, Any]) -> str:
    """What the line folds: the claim and the paper's words, the fits by law, the experiment, conditions,
    diagnoses, controls, provenance, command and history."""
    e = html.escape
    parts = [f"<p>{e(c['claim'])}</p>"]
    if c["quote"]:
        parts.append(f'<p class="quote">“{e(c["quote"])}”</p>')
    carried, elsewhere = _carried_html(c.get("carried"))
    parts.append(carried)
    if c["laws"] or c["estimates"]:
        parts.append("<b>Fits, by law</b>" + _fits_by_law(c, elsewhere))
    parts.append(_experiment_html(c.get("experiment")))
    if c["laws_not_run"]:
        parts.append("<p><b>laws not run here</b>: " + e(", ".join(c["laws_not_run"])) + "</p>")
    parts.append(_titled_list("Conditions", c["conditions"], " class='small'"))
    parts.append(_titled_list("Diagnosis", c["diagnosis"]))
    parts.append(_titled_list("Negative controls", c["negative_control"], " class='small'"))
    if c["root"]:
        parts.append(
            f"<p class='small'>{len(c['seeds'])} seeds ({e(' '.join(map(str, c['seeds'])))}), {c['configs']} configs "
            f"in <code>{e(c['root'])}</code> ({e(', '.join(c['sweeps']))}); commit "
            f"<code>{e(', '.join(x[:12] for x in c['git_commits']))}</code>; runs finished "
            f"{e(str(c['runs_finished']['last']))}</p>"
        )
    elif c["laws"]:
        parts.append(
            f"<p class='small'>not run in these roots; sweeps: "
            f"{e(', '.join(c['sweeps']) or 'none in the catalogue')}</p>"
        )
    else:
        parts.append("<p class='small'>no law in the catalogue tests this claim</p>")
    if c["command"]:
        parts.append(f"<details><summary>command</summary><code>{e(c['command'])}</code></details>")
    if len(c["history"]) > 1:
        history = "".join(
            f"<li>{e(str(h['finished']))}: {e(h['verdict'])} ({e(h['budget'])}, <code>{e(h['root'])}</code>)</li>"
            for h in c["history"]
        )
        parts.append(f"<details><summary>history</summary><ul>{history}</ul></details>")
    return "".join(parts)


def _carried_html(carried: dict[str, Any] | None) -> tuple[str, str]:
    """A carried claim's note (its verdict is an earlier ledger's) and the mark its fits carry; both empty else."""
    if not carried:
        return "", ""
    e, when = html.escape, str(carried.get("generated_at"))
    note = (
        f"<p class='elsewhere'>carried: not re-run in these roots; the verdict and evidence are the ledger of "
        f"{e(when)} at commit <code>{e(str(carried.get('git_commit'))[:12])}</code>, "
        "judged by that commit's code (its report links are relative to that ledger's folder)</p>"
    )
    return note, f" <span class='elsewhere small'>(the ledger of {e(when[:10])})</span>"


def _titled_list(title: str, items: list[str], ul_class: str = "") -> str:
    """A bold title over the items as a list; nothing for no items."""
    if not items:
        return ""
    return f"<b>{title}</b><ul{ul_class}>" + "".join(f"<li>{html.escape(t)}</li>" for t in items) + "</ul>"

"""Per-paper result pages, generated from a claims ledger (claims.json, `iclscale.analysis.ledger`): what each
paper's claims and sweeps gave on the run the ledger was made from, for the repository's docs/results/.

    python -m iclscale.analysis.result_pages docs/results    # rewrites DIR/<tag>.md, README.md, index.html, claims.csv

from DIR/claims.json (written by `iclscale ledger ROOT --out DIR`). Nothing on a page is typed by hand: the
verdicts, estimates and reasons are the ledger's, the times are the stores' (each pack's training wall time) and
`iclscale reproduce`'s log (ROOT/reproduce.jsonl). tests/test_result_pages.py fails when a committed page differs
from what this module makes of the committed claims.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from iclscale.analysis.ledger import VERDICTS
from iclscale.analysis.ledger_files import claims_csv
from iclscale.analysis.ledger_page import render_page

HEADER = "<!-- Generated from claims.json by `python -m iclscale.analysis.result_pages DIR`: do not edit by hand. -->"
SHOWN_ESTIMATES = 4  # per claim on a page; claims.json has them all


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _number(x: float | None) -> str:
    return "–" if x is None else f"{x:.3g}"


def estimate_line(e: dict[str, Any]) -> str:
    """One fit as a sentence: the law (and group), the estimate with its interval and method, the verdict and why."""
    law = e["law"].split(".", 1)[-1] + (f" ({e['group']})" if e.get("group") else "")
    if e.get("estimate") is None:
        value = ""
    else:
        method = f", {e['method']}" if e.get("method") else ""
        value = f" {e.get('statistic') or 'estimate'} {_number(e['estimate'])} "
        value += f"[{_number(e.get('ci_low'))}, {_number(e.get('ci_high'))}{method}]"
        value += f" vs {e['theory']}" if e.get("theory") else ""
    reason = f": {e['reason']}" if e.get("reason") else ""
    return f"`{law}`{value} → **{e['verdict']}**{reason} ({e['sweep']})"


def run_summary(paper: dict[str, Any], sweeps: list[dict[str, Any]]) -> list[str]:
    budgets = sorted({s["budget"] for s in sweeps})
    commits = sorted({c[:7] for s in sweeps for c in s["git_commits"]})
    finished = sorted(t for s in sweeps for t in s["runs_finished"].values() if t)
    lines = [
        f"- Sweeps with data: {paper['sweeps_run']} of the paper's {paper['sweeps_total']} catalogue sweeps"
        + (f" (budget: {', '.join(budgets)})" if budgets else ""),
        f"- Training time: {_minutes(paper['train_time_s'])} (the sum of the packs' wall times)",
    ]
    for run in paper["reproduce"]:
        lines.append(
            f"- `iclscale reproduce` ({run['budget']}): its sweeps took {_minutes(run['wall_s'])} of wall time on "
            f"{run.get('cpus') or '?'} CPUs from {run['started_at']} ({run['ended']}; reports after them not counted)"
        )
    if finished:
        lines.append(f"- Runs finished {finished[0][:16]} – {finished[-1][:16]} UTC, commit {', '.join(commits)}")
    return lines


def paper_page(paper: dict[str, Any], claims: list[dict[str, Any]], sweeps: list[dict[str, Any]]) -> str:
    counts = ", ".join(f"{paper['counts'][v]} {v}" for v in VERDICTS if paper["counts"].get(v))
    out = [HEADER, "", f"# Results: {paper['paper']}", ""]
    out += run_summary(paper, sweeps)
    out += [f"- Claims: {counts}", "", "## Claims", "", "| claim | anchor | claim | verdict |", "|---|---|---|---|"]
    for c in claims:
        out.append(f"| {c['claim_id']} | {_cell(c['anchor'])} | {_cell(c['claim'])} | {c['verdict']} |")
    out += ["", "## Why each verdict", ""]
    for c in claims:
        out.append(f"**{c['claim_id']}** ({c['verdict']}). {c['claim']}")
        out.append("")
        for e in c["estimates"][:SHOWN_ESTIMATES]:
            out.append(f"- {estimate_line(e)}")
        if len(c["estimates"]) > SHOWN_ESTIMATES:
            out.append(f"- … {len(c['estimates']) - SHOWN_ESTIMATES} more fits in claims.json")
        if not c["estimates"]:
            out.append(f"- {c['verdict']}" + (f": `{c['command'][:200]}`" if c["verdict"] == "not run" else ""))
        for d in c["diagnosis"]:
            out.append(f"- Diagnosis: {d}")
        out.append("")
    out += ["## Sweeps", "", "| sweep | configs | seeds | training | fits by verdict |", "|---|---:|---:|---:|---|"]
    for s in sorted(sweeps, key=lambda s: s["sweep"]):
        verdicts = ", ".join(f"{n} {v}" for v, n in s["verdicts"].items()) or "no law fitted"
        out.append(f"| `{s['sweep']}` | {s['configs']} | {s['seeds']} | {_minutes(s['train_time_s'])} | {verdicts} |")
    return "\n".join(out) + "\n"


def index_page(data: dict[str, Any]) -> str:
    out = [HEADER, "", "# Results", ""]
    out.append(
        f"The claims ledger of the catalogue (claims.json, schema `{data['schema']}`; `index.html` is the same "
        "ledger as one offline page), generated by `iclscale ledger` from the result roots of one run of "
        "`iclscale reproduce`. The rule: " + data["verdict_rule"] + "."
    )
    out += [
        "",
        "| paper | sweeps run | training | " + " | ".join(VERDICTS) + " |",
        "|---|---:|---:|" + "---:|" * len(VERDICTS),
    ]
    for p in data["papers"]:
        counts = " | ".join(str(p["counts"].get(v, 0)) for v in VERDICTS)
        out.append(
            f"| [{p['paper']}]({p['tag']}.md) | {p['sweeps_run']} of {p['sweeps_total']} | "
            f"{_minutes(p['train_time_s'])} | {counts} |"
        )
    return "\n".join(out) + "\n"


def render(data: dict[str, Any]) -> dict[str, str]:
    """File name → text: one page per paper, the index, and the ledger's HTML page and CSV."""
    pages = {"README.md": index_page(data), "index.html": render_page(data), "claims.csv": claims_csv(data)}
    for paper in data["papers"]:
        claims = [c for c in data["claims"] if c["paper_tag"] == paper["tag"]]
        sweeps = [s for s in data.get("sweeps", []) if s["paper_tag"] == paper["tag"]]
        pages[f"{paper['tag']}.md"] = paper_page(paper, claims, sweeps)
    return pages


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m iclscale.analysis.result_pages DIR (DIR/claims.json written by iclscale ledger)")
        return 2
    folder = Path(args[0])
    source = folder / "claims.json"
    if not source.is_file():
        print(f"result_pages: {source}: no such file (write it with `iclscale ledger ROOT --out {folder}`)")
        return 2
    pages = render(json.loads(source.read_text(encoding="utf-8")))
    for name, text in pages.items():
        (folder / name).write_text(text, encoding="utf-8", newline="")
    print(f"wrote {len(pages) - 2} pages, index.html and claims.csv in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

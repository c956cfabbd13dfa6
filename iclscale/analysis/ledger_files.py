"""The claims ledger's files: DIR/claims.json (schema: docs/claims.schema.json), every claim of every paper judged on
the roots (iclscale.analysis.ledger) with the papers' and the sweeps' entries; DIR/claims.csv, one row per claim;
and DIR/index.html, the offline page (iclscale.analysis.ledger_page)."""

from __future__ import annotations

import csv
import datetime
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iclscale.analysis.ledger import (
    NO_LAW,
    NOT_RUN,
    VERDICTS,
    entry,
    estimate_text,
    link,
    sensitivity,
    verdict_rule_text,
)
from iclscale.analysis.ledger_page import render_page
from iclscale.analysis.ledger_reports import SweepResult, check_roots, read_roots, reproduce_invocations
from iclscale.catalogue import sweeps_of_studies
from iclscale.errors import UserError
from iclscale.paper import Paper, by_citation

SCHEMA = "iclscale-claims/1"


@dataclass
class Ledger:
    out: Path
    claims: list[dict[str, Any]]
    counts: dict[str, dict[str, int]]  # paper -> verdict -> claims

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def build_ledger(roots: list[str], out: str | os.PathLike, earlier: str | os.PathLike | None = None) -> dict[str, Any]:
    """claims.json's content: every claim of every paper, judged on the roots; with `earlier` (an earlier ledger's
    claims.json), a claim no root ran keeps that ledger's entry, labelled as carried (`carried_entries`)."""
    out_dir = Path(out).resolve()
    per_root = read_roots(roots)
    claims = [entry(p, claim, per_root, out_dir) for p in by_citation() for claim in p.load_laws().claims]
    if earlier is not None:
        claims = carried_entries(claims, read_earlier(earlier))
    sweeps = [sweep_entry(s, out_dir) for _, found in per_root for s in found]
    counts = {
        p.citation: {v: sum(1 for c in claims if c["paper"] == p.citation and c["verdict"] == v) for v in VERDICTS}
        for p in by_citation()
    }
    from iclscale.sweeps.store import git_commit

    return {
        "schema": SCHEMA,
        "generated_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "roots": [str(root) for root, _ in per_root],
        "verdict_rule": verdict_rule_text(),
        "papers": [
            {
                **paper_entry(p, counts[p.citation], sweeps, [root for root, _ in per_root]),
                "sensitivity": sensitivity([c for c in claims if c["paper"] == p.citation]),
            }
            for p in by_citation()
        ],
        "claims": claims,
        "sweeps": sweeps,
    }


def read_earlier(path: str | os.PathLike) -> dict[str, Any]:
    """An earlier ledger's claims.json; UserError in one line when it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("schema") != SCHEMA or not isinstance(data.get("claims"), list):
            raise ValueError(f"not an {SCHEMA} file")
    except (OSError, ValueError, AttributeError) as error:
        raise UserError(f"--carry-from {path}: cannot read an earlier ledger: {error}") from None
    return data


def carried_entries(claims: list[dict[str, Any]], earlier: dict[str, Any]) -> list[dict[str, Any]]:
    """Each claim that no root ran replaced by the earlier ledger's entry for it, where that one was judged: the
    verdict of an earlier run, judged by the code of its commit, kept visible (not dropped to "not run") and
    labelled `carried` with that ledger's date and commit, so that no reader takes it for this run's."""
    before = {(c["paper_tag"], c["claim_id"]): c for c in earlier["claims"]}
    source = {"generated_at": earlier.get("generated_at"), "git_commit": earlier.get("git_commit")}
    out = []
    for claim in claims:
        old = before.get((claim["paper_tag"], claim["claim_id"]))
        if claim["verdict"] != NOT_RUN or old is None or old["verdict"] in (NOT_RUN, NO_LAW):
            out.append(claim)
            continue
        # the claim's text, laws and conditions are today's; its evidence is the earlier run's
        evidence = {k: old.get(k, claim[k]) for k in CARRIED_FIELDS}
        out.append({**claim, **evidence, "carried": {**old.get("carried", source), "verdict_now": NOT_RUN}})
    return out


CARRIED_FIELDS = ("verdict", "budget", "estimates", "c_star", "experiment", "diagnosis", "seeds", "configs", "root",
                  "git_commits", "runs_finished", "reports", "history", "laws_not_run")  # fmt: skip
"""What a carried claim takes from the earlier ledger: its run's evidence and verdict."""


def sweep_entry(sweep: SweepResult, out: Path) -> dict[str, Any]:
    """One results directory as the ledger saw it: what ran, how long it trained, what its fits say."""
    paper = next((p for p in by_citation() if sweep.study in p.studies), None)
    verdicts = [row.get("verdict", "") for row in sweep.fits]
    return {
        "sweep": sweep.name,
        "paper_tag": paper.tag if paper else "",
        "study": sweep.study,
        "root": str(sweep.root),
        "budget": sweep.budget,
        "configs": sweep.configs,
        "seeds": len(sweep.seeds),
        "train_time_s": round(sweep.train_time_s, 1),
        "model_steps": sweep.model_steps,
        "runs_finished": {"first": sweep.first_finished or None, "last": sweep.last_finished or None},
        "git_commits": sweep.commits,
        "laws": len({row.get("law") for row in sweep.fits}),
        "verdicts": {v: verdicts.count(v) for v in VERDICTS if verdicts.count(v)},
        "report": link(sweep.report, out),
    }


def paper_entry(paper: Paper, counts: dict[str, int], sweeps: list[dict[str, Any]], roots: list[Path]):
    """A paper's counts, and its sweeps' run: how many of its catalogue sweeps have data, their training time,
    and the `iclscale reproduce` invocations logged in the roots (ROOT/reproduce.jsonl), with their wall times."""
    mine = [s for s in sweeps if s["paper_tag"] == paper.tag]
    return {
        "paper": paper.citation,
        "tag": paper.tag,
        "studies": list(paper.studies),
        "counts": counts,
        "sweeps_total": len(sweeps_of_studies(paper.studies)),
        "sweeps_run": len({s["sweep"] for s in mine}),
        "train_time_s": round(sum(s["train_time_s"] for s in mine), 1),
        "reproduce": reproduce_invocations(roots, paper.tag),
    }


CSV_COLUMNS = (
    "paper_tag",
    "claim_id",
    "verdict",
    "budget",
    "anchor",
    "claim",
    "quote",
    "estimates",
    "c_star",
    "experiment",
    "laws",
    "laws_not_run",
    "readings",
    "conditions",
    "sweeps",
    "diagnosis",
    "negative_control",
    "seeds",
    "configs",
    "root",
    "git_commits",
    "runs_finished",
    "command",
    "reports",
    "history",
    "carried_from",
    "paper",
)


def _experiment_text(experiment: dict[str, Any] | None) -> str:
    if not experiment:
        return ""
    estimates = "; ".join(estimate_text(e) for e in experiment["estimates"])
    return f"{experiment['verdict']} ({experiment['figure']}, {experiment['sweep']})" + (
        f": {estimates}" if estimates else ""
    )


def _carried_text(carried: dict[str, Any] | None) -> str:
    if not carried:
        return ""
    return f"the ledger of {carried.get('generated_at')} (commit {str(carried.get('git_commit'))[:8]}): not re-run"


def csv_row(claim: dict[str, Any]) -> dict[str, str]:
    flat = {
        **claim,
        "estimates": "; ".join(estimate_text(e) for e in claim["estimates"]),
        "experiment": _experiment_text(claim.get("experiment")),
        "c_star": "" if claim.get("c_star") is None else claim["c_star"],
        "laws": "; ".join(law["name"] for law in claim["laws"]),
        "laws_not_run": "; ".join(claim["laws_not_run"]),
        "readings": "; ".join(law["reading"] for law in claim["laws"]),
        "conditions": "; ".join(claim["conditions"]),
        "sweeps": "; ".join(claim["sweeps"]),
        "diagnosis": "; ".join(claim["diagnosis"]),
        "negative_control": "; ".join(claim["negative_control"]),
        "seeds": " ".join(map(str, claim["seeds"])),
        "git_commits": " ".join(claim["git_commits"]),
        "runs_finished": claim["runs_finished"]["last"] or "",
        "reports": " ".join(claim["reports"]),
        "history": "; ".join(f"{h['finished']} {h['verdict']} ({h['budget']}, {h['root']})" for h in claim["history"]),
        "carried_from": _carried_text(claim.get("carried")),
    }
    return {key: str(flat[key]) for key in CSV_COLUMNS}


def claims_csv(data: dict[str, Any]) -> str:
    """claims.csv's text: one row per claim (CSV_COLUMNS)."""
    import io

    stream = io.StringIO(newline="")
    writer = csv.DictWriter(stream, CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(csv_row(c) for c in data["claims"])
    return stream.getvalue()


def write_ledger(roots: list[str], out: str | os.PathLike, earlier: str | os.PathLike | None = None) -> Ledger:
    check_roots(roots)  # before the default out (ROOT/ledger) creates a missing root
    out_dir = Path(out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"--out {out_dir}: cannot create the ledger folder: {error.strerror}") from None
    data = build_ledger(roots, out_dir, earlier)
    (out_dir / "claims.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out_dir / "claims.csv").write_text(claims_csv(data), encoding="utf-8", newline="")
    ledger = Ledger(out_dir, data["claims"], {p["paper"]: p["counts"] for p in data["papers"]})
    ledger.index.write_text(render_page(data), encoding="utf-8")
    return ledger

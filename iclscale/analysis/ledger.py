"""The claims ledger: every claim of every paper in the catalogue, its verdict regenerated from result stores,
written as DIR/claims.json (schema: docs/claims.schema.json), DIR/claims.csv and DIR/index.html (one offline page).
This module judges; iclscale.analysis.ledger_reports reads the results directories (each report, rewritten where
stale, and the store's provenance), iclscale.analysis.ledger_files writes the files and ledger_page the page.

Inputs. A results root holds one results directory per sweep (ROOT/<sweep name>, as `iclscale reproduce` writes
them); a single sweep's directory is a root too. Each directory's report (DIR/report/fits.csv, one row per law
and group, in the order of the report's sections `#law-<i>`) gives the fits; the store gives the provenance: seeds,
configs, `git_commit` and `finished_at` of the runs behind each verdict.

Per claim (the catalogue's `Claim`), its laws' rows from every sweep of the root are gathered and reduced to one
verdict, conservatively (a claim holds only where every part of it holds):

- "not run": no sweep in the root fitted any of its laws; "no law": the catalogue has no law testing it;
- "outside": every row is outside the theorems' conditions;
- "inconsistent": some row (inside the conditions) is inconsistent;
- "consistent": every row inside the conditions is consistent, and every law of the claim has such rows;
- "inconclusive": otherwise (some row inconclusive, none inconsistent).

A verdict rests on the catalogue's sweeps as written ("full") or on fewer seeds, search trials or steps than the
sweep files give ("quick", `iclscale reproduce --budget quick`): the ledger says which, from the frozen sweep.
With several roots, each claim's latest verdict (the root whose runs finished last) is shown, with the verdicts
of the other roots as its history.

The paper's own words for each claim live beside the catalogue, in iclscale/papers/<paper>/laws/quotes.yaml (claim
id: quote), and tests/test_claim_quotes.py finds each quote in the paper's text.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iclscale.paper import Paper
from iclscale.sweeps.budget import CUSTOM, FULL, QUICK

if TYPE_CHECKING:
    from iclscale.analysis.ledger_reports import SweepResult

CONSISTENT, INCONSISTENT, INCONCLUSIVE, OUTSIDE = "consistent", "inconsistent", "inconclusive", "outside"
NOT_RUN, NO_LAW = "not run", "no law"
VERDICTS = (CONSISTENT, INCONSISTENT, INCONCLUSIVE, OUTSIDE, NOT_RUN, NO_LAW)


# The catalogue's sweeps of a claim (the papers and their sweep files are iclscale.paper's and iclscale.catalogue's)
def sweeps_of_claim(claim) -> list:
    from iclscale.analysis.laws import LAWS
    from iclscale.catalogue import sweeps_of_law

    found: dict[str, Any] = {}
    for name in claim.laws:
        if name in LAWS:
            found.update((s.name, s) for s in sweeps_of_law(LAWS[name]))
    return list(found.values())


# A claim's entry -----------------------------------------------------------------------------------------
def claim_verdict(verdicts: list[str]) -> str:
    """The claim's verdict from its rows' verdicts (see the module's docstring)."""
    if not verdicts:
        return NOT_RUN
    inside = [v for v in verdicts if v != OUTSIDE]
    if not inside:
        return OUTSIDE
    if INCONSISTENT in inside:
        return INCONSISTENT
    if all(v == CONSISTENT for v in inside):
        return CONSISTENT
    return INCONCLUSIVE


@dataclass
class Judged:
    """A claim judged on one root."""

    verdict: str
    rows: list[tuple[SweepResult, int, dict[str, Any]]] = field(default_factory=list)  # (sweep, section, row)

    @property
    def sweeps(self) -> list[SweepResult]:
        return list({id(s): s for s, _, _ in self.rows}.values())

    @property
    def finished(self) -> str:
        return max((s.last_finished for s in self.sweeps), default="")

    @property
    def budget(self) -> str:
        budgets = {s.budget for s in self.sweeps}
        return QUICK if QUICK in budgets else (CUSTOM if CUSTOM in budgets else FULL)


EXPERIMENT = "experiment"


def judge(claim, results: list[SweepResult]) -> Judged:
    """The claim on one root. A part not tested is not shown to hold: where some of its laws have no fit inside
    the theorems' conditions in the root, a claim whose other laws all hold is inconclusive, not consistent. The
    paper's experiment's fits (`judge_experiment`) are not the theorem's evidence."""
    rows = [
        (s, i, row)
        for s in results
        for i, row in enumerate(s.fits)
        if row.get("law") in claim.laws and row.get("judged") != EXPERIMENT
    ]
    verdict = claim_verdict([row.get("verdict", "") for _, _, row in rows])
    tested = {row.get("law") for _, _, row in rows if row.get("verdict") != OUTSIDE}
    if verdict == CONSISTENT and set(claim.laws) - tested:
        verdict = INCONCLUSIVE
    return Judged(verdict, rows)


def judge_experiment(claim, results: list[SweepResult]) -> Judged:
    """The paper's own experiment behind the claim (iclscale.analysis.law.Experiment) on one root: its laws' fits on
    every point of its sweep, judged against what the paper says of its figure."""
    experiment = getattr(claim, "experiment", None)
    if experiment is None:
        return Judged(NOT_RUN)
    rows = [
        (s, i, row)
        for s in results
        if s.name == experiment.sweep
        for i, row in enumerate(s.fits)
        if row.get("judged") == EXPERIMENT and row.get("law") in experiment.laws
    ]
    return Judged(claim_verdict([row.get("verdict", "") for _, _, row in rows]), rows)


def experiment_entry(claim, per_root: list[tuple[Path, list[SweepResult]]], out: Path) -> dict[str, Any] | None:
    """claims.json's `experiment`: the paper's figure, its words, its sweep and the verdict on the latest root."""
    experiment = getattr(claim, "experiment", None)
    if experiment is None:
        return None
    judged = [judge_experiment(claim, results) for _, results in per_root]
    ran = sorted((j for j in judged if j.rows), key=lambda j: j.finished)
    latest = ran[-1] if ran else Judged(NOT_RUN)
    return {
        "figure": experiment.figure,
        "sweep": experiment.sweep,
        "quote": experiment.quote,
        "laws": list(experiment.laws),
        "verdict": latest.verdict,
        "budget": latest.budget if latest.rows else "",
        "estimates": [estimate_of(s, i, row, out) for s, i, row in latest.rows],
    }


def _number(text: Any) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def estimate_of(sweep: SweepResult, section: int, row: dict[str, Any], out: Path) -> dict[str, Any]:
    """One law's fit on one group, as the ledger shows it."""
    return {
        "law": row.get("law", ""),
        "group": row.get("group", ""),
        "sweep": sweep.name,
        "statistic": row.get("statistic", ""),
        "estimate": _number(row.get("exponent")),
        "ci_low": _number(row.get("ci_low")),
        "ci_high": _number(row.get("ci_high")),
        "method": row.get("method") or row.get("interval_method") or "",
        "theory": row.get("theory", ""),
        "theory_low": _number(row.get("theory_low")),
        "theory_high": _number(row.get("theory_high")),
        "verdict": row.get("verdict", ""),
        "reason": row.get("reason", ""),
        "n_points": int(_number(row.get("n_points")) or 0),
        "report": f"{link(sweep.report, out)}#law-{section}",
        "c_star": _constant(row.get("c_star")),
        "binding": row.get("binding_condition") or "",
    }


def _constant(text: Any) -> float | str | None:
    """A fit's c* as claims.json holds it: a number, "inf" where no hidden constant limits the fit, None where
    the report predates c*."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return "inf" if value == math.inf else (value if math.isfinite(value) else None)


def claim_constant(estimates: list[dict[str, Any]]) -> float | str | None:
    """The claim's c*: the largest value of the hidden constants at which some fit of it lies inside its
    theorem's conditions (None where no fit states one)."""
    values = [math.inf if e.get("c_star") == "inf" else e.get("c_star") for e in estimates]
    values = [v for v in values if v is not None]
    if not values:
        return None
    best = max(values)
    return "inf" if best == math.inf else best


SENSITIVITY_CONSTANTS = (10.0, 1.0, 0.1, 0.01, 0.001)


def sensitivity(claims: list[dict[str, Any]]) -> dict[str, int]:
    """How many of the claims would have a fit inside their theorems' conditions were the hidden constants
    each of SENSITIVITY_CONSTANTS (claims with no c*, not run, are not counted)."""
    values = [math.inf if c.get("c_star") == "inf" else c.get("c_star") for c in claims]
    values = [v for v in values if v is not None]
    return {f"{constant:g}": sum(1 for v in values if v >= constant) for constant in SENSITIVITY_CONSTANTS}


def estimate_text(e: dict[str, Any]) -> str:
    def g(x):
        return "–" if x is None else f"{x:.3g}"

    law = e["law"].split(".", 1)[-1]
    interval = f"{e['statistic'] or 'estimate'} {g(e['estimate'])} [{g(e['ci_low'])}, {g(e['ci_high'])}]"
    method = f" ({e['method']})" if e["method"] else ""
    theory = f" vs {e['theory']}" if e["theory"] else ""
    group = f" {e['group']}" if e["group"] else ""
    return f"{law}{group}: {interval}{method}{theory} → {e['verdict']}"


def _describe(item: Any) -> str:
    return item.describe() if hasattr(item, "describe") else str(item)


def diagnoses(claim, laws: list, estimates: list[dict[str, Any]]) -> list[str]:
    """Why (part of) the claim does not reproduce, where the catalogue says (`diagnoses`/`diagnosis` on the
    claim or its laws: optional fields), each measured number it cites rendered from this run's `estimates`."""
    found = [*(getattr(claim, "diagnoses", None) or ()), getattr(claim, "diagnosis", None)]
    for law in laws:
        found.append(getattr(law, "diagnosis", None))
    return [d.describe(estimates) if hasattr(d, "evidence") else _describe(d) for d in found if d]  # a Diagnosis


def generated_diagnosis(verdict: str, estimates: list[dict[str, Any]]) -> list[str]:
    """For a claim judged but not consistent that the catalogue has not diagnosed: what this run's fits say, marked
    as generated (a reader sees at once it is the run's own account, not the catalogue's explanation)."""
    if verdict in (CONSISTENT, NOT_RUN, NO_LAW) or not estimates:
        return []
    if verdict == OUTSIDE:
        best = max(estimates, key=lambda e: -1.0 if e.get("c_star") is None else math.inf if e["c_star"] == "inf"
                   else e["c_star"])  # fmt: skip
        constant = best.get("c_star")
        if isinstance(constant, float) and constant > 0:
            return [f"regime (generated from this run): inside only if the hidden constants were ≤ c* = "
                    f"{constant:.3g} (binding: {best.get('binding') or 'see the reason'})"]  # fmt: skip
        return ["regime (generated from this run): an explicit or measured condition of the theorem fails at every "
                "point; no value of the hidden constants brings one inside"]  # fmt: skip
    judged = next((e for e in estimates if e["verdict"] == verdict), estimates[0])
    return [f"open (generated from this run; not yet explained): {judged['law']} on {judged['sweep']}: "
            f"{judged['reason'][:300]}"]  # fmt: skip


def controls(laws: list) -> list[str]:
    """The laws' negative controls (iclscale.analysis.controls) and their outcomes: each law run on data planted
    at its prediction (must be consistent) and clearly off it (must be inconsistent)."""
    return [control_outcome(law.name) for law in laws]


@functools.cache
def control_outcome(name: str) -> str:
    """One law's control, run once per process (the ledger asks per claim; 248 laws take ~15 s)."""
    from iclscale.analysis import controls as negative
    from iclscale.analysis.laws import LAWS

    outcome = negative.run(LAWS[name])
    short = name.split(".", 1)[-1]
    if outcome.plan.right is None:
        return f"{short}: {outcome.plan.describe()}"
    wrong = f", wrong → {outcome.wrong}" if outcome.plan.wrong is not None else ""
    result = "passed" if outcome.passed else "FAILED"
    return f"{short}: {outcome.plan.describe()} — {result} (right → {outcome.right}{wrong})"


def run_command(files: list, root: Path, overrides: dict[str, list[str]]) -> str:
    """The commands that train the claim's sweeps into the root (resuming) and write their reports."""
    parts = []
    for file in files:
        out = root / file.name
        extra = "".join(f" {o}" for o in overrides.get(file.name, ()))
        parts.append(f"iclscale sweep run {Path(file.path).stem} --out {out}{extra} && iclscale report {out}")
    return " && ".join(parts)


def entry(paper: Paper, claim, per_root: list[tuple[Path, list[SweepResult]]], out: Path) -> dict[str, Any]:
    from iclscale.analysis.laws import LAWS

    laws = [LAWS[name] for name in claim.laws if name in LAWS]
    files = sweeps_of_claim(claim)
    judged = [(root, judge(claim, results)) for root, results in per_root]
    ran = sorted(((root, j) for root, j in judged if j.rows), key=lambda rj: rj[1].finished)
    root, latest = ran[-1] if ran else (per_root[0][0] if per_root else Path("results"), Judged(NOT_RUN))
    verdict = latest.verdict if claim.laws else NO_LAW
    sweeps = latest.sweeps
    overrides = {s.name: s.overrides for s in sweeps}
    estimates = [estimate_of(s, i, row, out) for s, i, row in latest.rows]
    fitted = {row["law"] for _, _, row in latest.rows}
    quote = paper.quotes().get(claim.label, "")
    return {
        "paper": paper.citation,
        "paper_tag": paper.tag,
        "claim_id": claim.label,
        "anchor": claim.source,
        "claim": claim.text,
        "quote": quote,
        "conditions": list(dict.fromkeys(law.conditions for law in laws)),
        "laws": [
            {
                "name": law.name,
                "reading": law.prediction_text,
                "citation": law.citation,
                "versus_printed": _describe(law.versus_printed) if getattr(law, "versus_printed", None) else "",
            }
            for law in laws
        ],
        "sweeps": [f.name for f in files],
        "verdict": verdict,
        "laws_not_run": [name for name in claim.laws if latest.rows and name not in fitted],
        "budget": latest.budget if latest.rows else "",
        "estimates": estimates,
        "c_star": claim_constant(estimates),
        "experiment": experiment_entry(claim, per_root, out),
        "diagnosis": diagnoses(claim, laws, estimates) or generated_diagnosis(verdict, estimates),
        "negative_control": controls(laws),
        "seeds": sorted({seed for s in sweeps for seed in s.seeds}),
        "configs": sum(s.configs for s in sweeps),
        "root": str(root) if latest.rows else "",
        "git_commits": sorted({c for s in sweeps for c in s.commits}),
        "runs_finished": {
            "first": min((s.first_finished for s in sweeps), default="") or None,
            "last": latest.finished or None,
        },
        "command": run_command(files, root, overrides) if files else "",
        "reports": list(dict.fromkeys(e["report"].split("#")[0] for e in estimates)),
        "history": [history_item(r, j) for r, j in ran],
    }


def history_item(root: Path, judged: Judged) -> dict[str, Any]:
    return {
        "root": str(root),
        "verdict": judged.verdict,
        "budget": judged.budget,
        "finished": judged.finished or None,
        "git_commits": sorted({c for s in judged.sweeps for c in s.commits}),
    }


def link(path: Path, out: Path) -> str:
    try:
        return os.path.relpath(path, out).replace(os.sep, "/")
    except ValueError:  # another drive
        return path.resolve().as_uri()


CLAIM_RULE = (
    "a claim is consistent when every law of it is fitted and every fit inside the theorems' conditions is "
    "consistent, inconsistent when one is, outside when all are outside, inconclusive otherwise "
    "(iclscale.analysis.ledger)"
)
FIT_RULE_HEAD = "A fit's verdict (iclscale.analysis.verdict.rule_lines):"


def verdict_rule_text() -> str:
    """claims.json's `verdict_rule`: how a claim's verdict comes from its fits', then the rule each fit follows,
    generated from the constants the code applies (never copied)."""
    from iclscale.analysis.verdict import rule_lines

    return f"{CLAIM_RULE}. {FIT_RULE_HEAD} " + " ".join(rule_lines())

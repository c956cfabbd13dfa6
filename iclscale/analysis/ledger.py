"""The claims ledger: every claim of every paper in the catalogue, its verdict regenerated from result stores,
written as DIR/claims.json (schema: docs/claims.schema.json), DIR/claims.csv and DIR/index.html (one offline page).

Inputs. A results root holds one results directory per sweep (ROOT/<sweep name>, as `iclscale reproduce` writes
them); a single sweep's directory is a root too. Each directory's report (DIR/report/fits.csv, one row per law
and group, in the order of the report's sections `#law-<i>`) is read where the ledger wrote it from the store as
it is now and with the analysis code as it is now (a fingerprint in DIR/report/.ledger-source), and (re)written
first (`iclscale.analysis.report.write_report`) otherwise. The store itself gives the provenance: seeds, configs,
`git_commit` and `finished_at` of the runs behind each verdict.

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

The paper's own words for each claim live beside the catalogue, in analysis/catalogue/<paper>/quotes.yaml (claim
id: quote), and tests/test_claim_quotes.py finds each quote in the paper's text.
"""

from __future__ import annotations

import csv
import datetime
import functools
import html
import json
import math
import os
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from iclscale.catalogue import sweeps_of_studies
from iclscale.errors import UserError
from iclscale.paper import Paper, by_citation
from iclscale.sweeps.budget import CUSTOM, FULL, QUICK

REPO = Path(__file__).resolve().parents[2]
SCHEMA = "iclscale-claims/1"
CONSISTENT, INCONSISTENT, INCONCLUSIVE, OUTSIDE = "consistent", "inconsistent", "inconclusive", "outside"
NOT_RUN, NO_LAW = "not run", "no law"
VERDICTS = (CONSISTENT, INCONSISTENT, INCONCLUSIVE, OUTSIDE, NOT_RUN, NO_LAW)
REPRODUCE_LOG = "reproduce.jsonl"
"""ROOT/reproduce.jsonl: one line per `iclscale reproduce` into the root (papers, budget, start, wall time, how it
ended), so that a paper's wall time on the machine that ran it is data the ledger reads, summed over resumes."""


# The catalogue's sweeps of a claim (the papers and their sweep files are iclscale.paper's and iclscale.catalogue's)
def sweeps_of_claim(claim) -> list:
    from iclscale.analysis.laws import LAWS
    from iclscale.catalogue import sweeps_of_law

    found: dict[str, Any] = {}
    for name in claim.laws:
        if name in LAWS:
            found.update((s.name, s) for s in sweeps_of_law(LAWS[name]))
    return list(found.values())


# One results directory: its fits and provenance ------------------------------------------------------------
@dataclass
class SweepResult:
    directory: Path
    root: Path
    name: str
    study: str
    fits: list[dict[str, Any]]  # fits.csv rows
    report: Path  # the report's index.html
    seeds: list[int]
    configs: int
    commits: list[str]
    first_finished: str
    last_finished: str
    budget: str
    overrides: list[str]
    train_time_s: float = 0.0  # the sum of its packs' training wall times (each pack once)


def results_directories(root: Path) -> list[Path]:
    """The results directories of a root: the root itself when it holds a sweep.yaml, else its sub-folders
    that do (one per sweep)."""
    if (root / "sweep.yaml").is_file():
        return [root]
    return sorted(p for p in root.iterdir() if (p / "sweep.yaml").is_file() and (p / "runs").is_dir())


SOURCE = ".ledger-source"  # in DIR/report: the fingerprint of the store the ledger last wrote the report from


@cache
def analysis_digest() -> str:
    """The code a report's verdicts come from: iclscale.analysis (but the ledger's own modules, which only read
    reports) and every paper's laws (the catalogue's and installed papers'), so that a report made by other
    analysis code is rewritten."""
    import hashlib

    digest = hashlib.sha256()
    here = Path(__file__).resolve()
    readers = {here, here.with_name("result_pages.py")}
    folders = [here.parent, *(p.quotes_file.resolve().parent for p in by_citation())]  # each paper's laws folder
    for folder in dict.fromkeys(folders):
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".py", ".yaml") and path not in readers:
                digest.update(f"{path.relative_to(folder)}\n".encode() + path.read_bytes())
    return digest.hexdigest()


def store_fingerprint(directory: Path) -> str:
    """What the report is made of: the frozen sweep's text and every committed fragment (name, size, mtime), the
    threshold and search answers, and the analysis code (`analysis_digest`). (Every `sweep run` rewrites
    sweep.yaml, so its time alone says nothing.)"""
    import hashlib

    digest = hashlib.sha256((directory / "sweep.yaml").read_bytes())
    digest.update(analysis_digest().encode())
    for path in sorted([*(directory / "runs").glob("*.parquet"), *directory.glob("thresholds.csv"),
                        *directory.glob("search_best.yaml")]):  # fmt: skip
        stat = path.stat()
        digest.update(f"{path.name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def has_runs(directory: Path) -> bool:
    return any((directory / "runs").glob("*.parquet"))


def report_is_fresh(directory: Path, fingerprint: str | None = None) -> bool:
    """Whether the ledger wrote DIR/report from the store as it is now (its `store_fingerprint`, given or
    computed), with the analysis code as it is now."""
    source = directory / "report" / SOURCE
    return (
        (directory / "report" / "fits.csv").is_file()
        and source.is_file()
        and source.read_text(encoding="utf-8") == (fingerprint or store_fingerprint(directory))
    )


def refresh_report(directory: Path, fingerprint: str | None = None) -> str | None:
    """(Re)write the directory's report and record the fingerprint it was made from (given, or taken before the
    report is read, so that runs stored meanwhile make it stale); the one-line error of a directory that cannot be
    reported, None when written. A quick preview's report goes without PNG files (its charts are in the page, each
    with a menu that saves it as SVG or PNG)."""
    from iclscale.analysis.report import write_report
    from iclscale.sweeps.store import Location, read_frozen_sweep

    fingerprint = fingerprint or store_fingerprint(directory)
    try:
        write_report(str(directory), png=budget_of(read_frozen_sweep(Location(directory)) or {}) != QUICK)
    except UserError as error:
        return str(error)
    (directory / "report" / SOURCE).write_text(fingerprint, encoding="utf-8")
    return None


def refresh_reports(directories: list[Path]) -> dict[Path, str]:
    """Rewrite every stale report (`report_is_fresh`) of these directories, one process per core where there are
    several: a report takes 5–30 s, most of it drawing charts in one thread, and a catalogue has dozens. The
    processes are spawned, not forked (the caller may hold Ray or torch threads). Returns the directories that
    could not be reported, with why."""
    fingerprints = {d: store_fingerprint(d) for d in directories if has_runs(d)}
    stale = [d for d, fingerprint in fingerprints.items() if not report_is_fresh(d, fingerprint)]
    workers = min(len(stale), os.cpu_count() or 1)
    if stale:
        print(f"ledger: writing {len(stale)} reports (new runs or other analysis code), {workers} at a time",
              file=sys.stderr, flush=True)  # fmt: skip
    if workers <= 1:
        errors = [refresh_report(d, fingerprints[d]) for d in stale]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            errors = list(pool.map(refresh_report, stale, [fingerprints[d] for d in stale]))
    return {d: error for d, error in zip(stale, errors, strict=True) if error}


def read_sweep_result(directory: Path, root: Path) -> SweepResult | None:
    """The directory's fits and provenance, (re)writing its report first unless the ledger wrote it from the store
    as it is now; None where the directory holds no runs yet."""
    from iclscale.sweeps.store import read_store

    if not has_runs(directory):
        return None
    if not report_is_fresh(directory) and (error := refresh_report(directory)):
        raise UserError(error)
    fits_csv = directory / "report" / "fits.csv"
    with open(fits_csv, newline="", encoding="utf-8") as stream:
        fits = list(csv.DictReader(stream))
    data = read_store(str(directory), curves=False)
    frozen = data.sweep or {}
    runs = data.runs
    finished = sorted(str(v) for v in runs.get("finished_at", []) if isinstance(v, str) and v)
    commits = sorted({str(v) for v in runs.get("git_commit", []) if isinstance(v, str) and v})
    return SweepResult(
        directory=directory,
        root=root,
        name=str(frozen.get("name") or directory.name),
        study=str(frozen.get("study") or ""),
        fits=fits,
        report=directory / "report" / "index.html",
        seeds=sorted(int(s) for s in runs["seed"].dropna().unique()),
        configs=int(runs["run_id"].nunique()),
        commits=commits,
        first_finished=finished[0] if finished else "",
        last_finished=finished[-1] if finished else "",
        budget=budget_of(frozen),
        overrides=list(frozen.get("overrides") or []),
        train_time_s=train_time(runs),
    )


def train_time(runs) -> float:
    """Seconds its packs trained: each pack's wall time once (every run row of a pack repeats it)."""
    if "pack_id" not in runs or "wall_time_s" not in runs:
        return 0.0
    packs = runs[["pack_id", "wall_time_s"]].dropna().drop_duplicates("pack_id")
    return float(packs["wall_time_s"].sum())


def budget_of(frozen: dict[str, Any]) -> str:
    """The budget of a results directory's runs (iclscale.sweeps.budget.budget_of), against the catalogue file of
    its frozen sweep's name."""
    from iclscale.catalogue import sweep_named
    from iclscale.sweeps import budget

    return budget.budget_of(frozen, sweep_named(frozen.get("name")))


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
        "report": f"{_link(sweep.report, out)}#law-{section}",
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


def diagnoses(claim, laws: list) -> list[str]:
    """Why (part of) the claim does not reproduce, where the catalogue says (`diagnoses`/`diagnosis` on the
    claim or its laws: optional fields)."""
    found = [*(getattr(claim, "diagnoses", None) or ()), getattr(claim, "diagnosis", None)]
    for law in laws:
        found.append(getattr(law, "diagnosis", None))
    return [_describe(d) for d in found if d]


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
        "diagnosis": diagnoses(claim, laws) or generated_diagnosis(verdict, estimates),
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


def _link(path: Path, out: Path) -> str:
    try:
        return os.path.relpath(path, out).replace(os.sep, "/")
    except ValueError:  # another drive
        return path.resolve().as_uri()


# The ledger -----------------------------------------------------------------------------------------------
@dataclass
class Ledger:
    out: Path
    claims: list[dict[str, Any]]
    counts: dict[str, dict[str, int]]  # paper -> verdict -> claims

    @property
    def index(self) -> Path:
        return self.out / "index.html"


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


def build_ledger(roots: list[str], out: str | os.PathLike) -> dict[str, Any]:
    """claims.json's content: every claim of every paper, judged on the roots."""
    out_dir = Path(out).resolve()
    per_root = []
    checked = check_roots(roots)
    unreadable = refresh_reports([d for root in checked for d in results_directories(root)])
    for root in checked:
        found = []
        for directory in results_directories(root):
            try:
                if directory in unreadable:
                    raise UserError(unreadable[directory])
                result = read_sweep_result(directory, root)
            except UserError as error:  # one unreadable directory does not hide the others' verdicts
                print(f"ledger: {directory} left out: {error}", file=sys.stderr)
                continue
            if result is not None:
                found.append(result)
        per_root.append((root, found))
    claims = [entry(p, claim, per_root, out_dir) for p in by_citation() for claim in p.load_laws().CLAIMS]
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
        "runs_finished": {"first": sweep.first_finished or None, "last": sweep.last_finished or None},
        "git_commits": sweep.commits,
        "laws": len({row.get("law") for row in sweep.fits}),
        "verdicts": {v: verdicts.count(v) for v in VERDICTS if verdicts.count(v)},
        "report": _link(sweep.report, out),
    }


def paper_entry(paper: Paper, counts: dict[str, int], sweeps: list[dict[str, Any]], roots: list[Path]):
    """A paper's counts, and its sweeps' run: how many of its catalogue sweeps have data, their training time,
    and the `iclscale reproduce` invocations logged in the roots (ROOT/reproduce.jsonl), with their wall times."""
    mine = [s for s in sweeps if s["paper_tag"] == paper.tag]
    invocations = []
    for root in roots:
        log = root / REPRODUCE_LOG
        if log.is_file():
            for line in log.read_text(encoding="utf-8").splitlines():
                try:
                    item = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if paper.tag in item.get("papers", ()):
                    invocations.append({**item, "root": str(root)})
    return {
        "paper": paper.citation,
        "tag": paper.tag,
        "studies": list(paper.studies),
        "counts": counts,
        "sweeps_total": len(sweeps_of_studies(paper.studies)),
        "sweeps_run": len({s["sweep"] for s in mine}),
        "train_time_s": round(sum(s["train_time_s"] for s in mine), 1),
        "reproduce": invocations,
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
    "paper",
)


def _experiment_text(experiment: dict[str, Any] | None) -> str:
    if not experiment:
        return ""
    estimates = "; ".join(estimate_text(e) for e in experiment["estimates"])
    return f"{experiment['verdict']} ({experiment['figure']}, {experiment['sweep']})" + (
        f": {estimates}" if estimates else ""
    )


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
    }
    return {key: str(flat[key]) for key in CSV_COLUMNS}


def check_roots(roots: list[str]) -> list[Path]:
    """The roots as local directories; UserError for one that is not."""
    checked = []
    for text in roots:
        if "://" in str(text):
            raise UserError(f"ledger: results root {text!r} is not on a local disk; copy it here first")
        root = Path(text)  # as given: a relative root keeps the ledger's commands and links portable
        if not root.is_dir():
            raise UserError(f"ledger: results root {text!r} does not exist or is not a directory")
        checked.append(root)
    return checked


def claims_csv(data: dict[str, Any]) -> str:
    """claims.csv's text: one row per claim (CSV_COLUMNS)."""
    import io

    stream = io.StringIO(newline="")
    writer = csv.DictWriter(stream, CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(csv_row(c) for c in data["claims"])
    return stream.getvalue()


def write_ledger(roots: list[str], out: str | os.PathLike) -> Ledger:
    check_roots(roots)  # before the default out (ROOT/ledger) creates a missing root
    out_dir = Path(out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"--out {out_dir}: cannot create the ledger folder: {error.strerror}") from None
    data = build_ledger(roots, out_dir)
    (out_dir / "claims.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out_dir / "claims.csv").write_text(claims_csv(data), encoding="utf-8", newline="")
    ledger = Ledger(out_dir, data["claims"], {p["paper"]: p["counts"] for p in data["papers"]})
    ledger.index.write_text(render_page(data), encoding="utf-8")
    return ledger


# The page ------------------------------------------------------------------------------------------------
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

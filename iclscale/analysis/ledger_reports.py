"""The results directories the claims ledger reads (iclscale.analysis.ledger): each one's report, read where the
ledger wrote it from the store as it is now and with the analysis code as it is now, (re)written first otherwise,
one process per core; and the provenance the store gives (seeds, configs, commits, when the runs finished, the
budget, the training time).

A results root holds one results directory per sweep (ROOT/<sweep name>, as `iclscale reproduce` writes them); a
single sweep's directory is a root too. A report's fingerprint (`store_fingerprint`: the frozen sweep, the committed
fragments, the analysis code) is kept in DIR/report/.ledger-source.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from iclscale.errors import UserError
from iclscale.paper import by_citation
from iclscale.sweeps.budget import QUICK

REPRODUCE_LOG = "reproduce.jsonl"
"""ROOT/reproduce.jsonl: one line per `iclscale reproduce` into the root (papers, budget, start, wall time, how it
ended), so that a paper's wall time on the machine that ran it is data the ledger reads, summed over resumes."""
LEDGER_MODULES = (
    "ledger.py", "ledger_reports.py", "ledger_files.py", "ledger_page.py", "result_pages.py", "sweep_tables.py"
)  # fmt: skip
"""The ledger's own modules, which only read reports (and the README tables made from the ledger): their code does
not make a report stale."""


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
    model_steps: int = 0  # steps × configs it stored (iclscale.sweeps.cost predicts the next run's time from it)


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
    readers = {here.with_name(name) for name in LEDGER_MODULES}
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
    from iclscale.sweeps.store import Location
    from iclscale.sweeps.store_frozen import read_frozen_sweep

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
    processes are spawned, not forked (the caller may hold Ray or torch threads). Ctrl-C (or SIGTERM raised as an
    exception) terminates them at once: multiprocessing's Pool, because its `terminate` stops running tasks,
    which concurrent.futures cannot; a report cut short has no SOURCE and is rewritten next time. Returns the
    directories that could not be reported, with why."""
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

        pool = multiprocessing.get_context("spawn").Pool(workers)
        try:
            errors = pool.starmap(refresh_report, [(d, fingerprints[d]) for d in stale], chunksize=1)
            pool.close()
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
    return {d: error for d, error in zip(stale, errors, strict=True) if error}


def read_sweep_result(directory: Path, root: Path) -> SweepResult | None:
    """The directory's fits and provenance, (re)writing its report first unless the ledger wrote it from the store
    as it is now; None where the directory holds no runs yet."""
    from iclscale.sweeps.store_read import read_store

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
        model_steps=model_steps(runs),
    )


def model_steps(runs) -> int:
    """Steps × configs stored: each config once (a config's eval points repeat its row)."""
    if "steps" not in runs or "run_id" not in runs:
        return 0
    return int(runs.drop_duplicates("run_id")["steps"].fillna(0).sum())


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


def read_roots(roots: list[str]) -> list[tuple[Path, list[SweepResult]]]:
    """Each root with its results directories' fits and provenance, every stale report rewritten first (in
    parallel); a directory that cannot be read is left out, saying why, and does not hide the others."""
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
    return per_root


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


def reproduce_invocations(roots: list[Path], tag: str) -> list[dict[str, Any]]:
    """The `iclscale reproduce` invocations of the paper `tag` logged in the roots (ROOT/reproduce.jsonl)."""
    invocations = []
    for root in roots:
        log = root / REPRODUCE_LOG
        if log.is_file():
            for line in log.read_text(encoding="utf-8").splitlines():
                try:
                    item = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if tag in item.get("papers", ()):
                    invocations.append({**item, "root": str(root)})
    return invocations

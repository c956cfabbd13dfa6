"""Each paper's table of catalogue sweeps in its README, generated so that no README holds a size or a time typed by
hand: the sweep, what it runs (its file's `description:`), its size (configs × steps, counted from the sweep file)
and the training time of the committed full run (docs/results/claims.json's `train_time_s`, the wall time of its
packs, no report). `python scripts/readme_diagnoses.py` writes each table between `<!-- sweeps: KEY -->` markers
(KEY as the diagnosis blocks', iclscale.analysis.diagnoses.paper_key); tests/test_sweep_tables.py holds the READMEs'
copies equal to it."""

from __future__ import annotations

from iclscale.analysis.diagnoses import COMMITTED_LEDGER, paper_key
from iclscale.catalogue import sweeps_of_paper
from iclscale.paper import Paper, papers

BEGIN, END = "<!-- sweeps: {} -->", "<!-- /sweeps: {} -->"


def size(sweep) -> str:
    """configs × steps as the sweep file plans them; an Optuna search's size is its trials' (their steps are
    searched), and a threshold search trains only part of the grid it lists."""
    if sweep.search is not None:
        return f"{sweep.search['trials']} trials per search × {len(sweep.seeds)} seeds"
    steps = [int(config.as_dict().get("steps", 0)) for config in sweep.configs()]
    if not any(steps):
        return f"{len(steps):,} configs, untrained (measured at step 0)"
    shown = f"{min(steps):,}–{max(steps):,}" if len(set(steps)) > 1 else f"{max(steps, default=0):,}"
    return f"{len(steps):,} × {shown}" + (" (a threshold search: fewer)" if sweep.threshold is not None else "")


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "not run"
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def table(paper: Paper) -> str:
    """The paper's sweeps, one row each, in file-name order."""
    from iclscale.sweeps.cost import ledger_sweeps

    timed = {s["sweep"]: s.get("train_time_s") for s in ledger_sweeps(COMMITTED_LEDGER)}
    lines = [
        "| sweep | what it runs | configs × steps | training time (committed run) |",
        "|---|---|---|---|",
    ]
    for sweep in sweeps_of_paper(paper):
        what = " ".join((sweep.description or "").split()).replace("|", "\\|")
        lines.append(f"| `{sweep.name}` | {what} | {size(sweep)} | {duration(timed.get(sweep.name))} |")
    return "\n".join(lines) + (
        "\n\nTraining time: the wall time of the sweep's packs in the committed full run (docs/results/claims.json), "
        "on the project's 2-core machine, often beside other work: an upper bound; `iclscale sweep plan NAME` "
        "predicts it for this machine before anything trains."
    )


def blocks() -> dict[str, str]:
    """Each built-in paper's table by its marker key."""
    return {paper_key(paper.citation): table(paper) for paper in papers()}

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
    from iclscale.sweeps.cost import config_steps, steps_text

    if sweep.search is not None:
        return f"{sweep.search['trials']} trials per search × {len(sweep.seeds)} seeds"
    steps = config_steps(sweep)
    if not any(steps):
        return f"{len(steps):,} configs, untrained (measured at step 0)"
    fewer = " (a threshold search: fewer)" if sweep.threshold is not None else ""
    return f"{len(steps):,} × {steps_text(steps)}{fewer}"


def duration(seconds: float | None) -> str:
    from iclscale.sweeps.cost import duration_text

    return "not run" if seconds is None else duration_text(seconds, minute_decimals=1)


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

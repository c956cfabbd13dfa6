"""Where modules moved when each paper got its own folder and the project one import name: the one-line
"moved to" message for a module path a user may have typed (a study's `implementation`, an entry point)."""

from __future__ import annotations

TRAINER_MODULES = (
    "cachedir", "compiling", "footprint", "measuring", "params", "precompiled", "recipe", "registry", "replay",
    "rng", "runtime", "statusline", "study", "train_output", "train_progress", "training",
)  # fmt: skip
PREFIXES = (
    ("iclscale.studies.patterns", "iclscale.papers.common.patterns"),
    ("iclscale.studies.noisy_patterns", "iclscale.papers.common.noisy_patterns"),
    ("iclscale.studies.outliers", "iclscale.papers.common.outliers"),
    ("iclscale.studies", "iclscale.papers"),
    ("analysis.catalogue", "iclscale.papers.<paper>.laws"),
    ("analysis", "iclscale.analysis"),
    ("sweeps", "iclscale.sweeps"),
    ("usererror", "iclscale.errors"),
    *((f"iclscale.{name}", f"iclscale.trainer.{name}") for name in TRAINER_MODULES),
)


def moved_to(module: str) -> str | None:
    """The new name of a module from before the move (None: not an old name)."""
    for old, new in PREFIXES:
        if module == old or module.startswith(old + "."):
            return new + module[len(old) :]
    return None


def moved_message(module: str) -> str | None:
    new = moved_to(module)
    return None if new is None else f"the module {module} moved to {new}"

"""The catalogue's sweep files, each read once: every installed paper's sweep files parsed into
`iclscale.sweeps.spec.Sweep`s (name, study, laws, seeds, steps, the `quick:` block), and found by name, study or law.

The papers themselves (their tags, seeds, studies and quotes) are `iclscale.paper`'s; this index sits above the
sweep files' parser, so that the analysis (the ledger, `iclscale laws`) and the command line (`iclscale reproduce`)
read a sweep file's facts from the one parser that checks them, never from the YAML again. A catalogue file that
does not parse is the paper's bug: the UserError names it (tests/test_catalogue.py holds every built-in one).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from iclscale.paper import Paper, papers, shown

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep


@functools.cache
def sweeps_of_paper(paper: Paper) -> tuple[Sweep, ...]:
    """The paper's sweep files, parsed (in file-name order); read once per process."""
    from iclscale.sweeps.spec import load_sweep

    return tuple(load_sweep(path) for path in paper.sweep_files())


def sweeps() -> tuple[Sweep, ...]:
    """Every installed paper's sweep files, parsed: the built-in papers', then installed ones'."""
    return tuple(sweep for paper in papers() for sweep in sweeps_of_paper(paper))


def sweeps_of_studies(studies) -> list[Sweep]:
    """The catalogue sweeps whose study is one of these (a paper's: `paper.studies`)."""
    return [sweep for sweep in sweeps() if sweep.study.name in studies]


def sweep_named(name: str | None) -> Sweep | None:
    """The catalogue sweep whose `name:` is this (a frozen sweep's name, say); None for a sweep of no paper."""
    return next((sweep for sweep in sweeps() if sweep.name == name), None)


def shown_path(sweep: Sweep) -> str:
    """Its file as reports print it: relative to the repository for a built-in paper (iclscale.paper.shown)."""
    from pathlib import Path

    return shown(Path(sweep.path))


def sweeps_of_law(law) -> list[Sweep]:
    """The sweep files that fit this law: those naming it under `laws:`; where none does, those of its study
    that name no law (the report then fits every law of the study with data)."""
    every = sweeps()
    named = [s for s in every if law.name in s.laws]
    return named or [s for s in every if s.study.name == law.study and not s.laws]


def files_by_law() -> dict[str, list[str]]:
    """Law name -> the catalogue's sweep files (shown paths) that name it in their `laws:` list."""
    found: dict[str, list[str]] = {}
    for sweep in sweeps():
        for name in sweep.laws:
            found.setdefault(name, []).append(shown_path(sweep))
    return found

"""A paper: one folder (or one installed distribution) holding a theory paper's studies, laws and sweep files.

A paper's package defines `PAPER = Paper(...)` in its `__init__.py`, naming its parts by module so that reading
the list of papers imports neither torch nor the trainer nor the laws:

- `declarations`: a torch-free module with `DECLARATIONS`, the paper's `StudyInfo`s (their params; each names
  its implementation class as "module:Class", loaded only to train);
- `laws`: a module whose `PAPER_LAWS = PaperLaws(...)` holds its claims, laws, report sections, derived variables,
  control configs, run summaries and a smoke config per study (iclscale.paper_laws: the laws contract), read by
  iclscale.analysis and by the trainer's contract tests;
- `sweeps`: the folder of its sweep files, found by name (`iclscale sweep run demo`).

The built-in papers are listed in `iclscale.papers.BUILT_IN`; an installed distribution adds its own through
an entry point in the group `iclscale.papers` whose value is its `Paper` (docs/writing-a-paper.md):

    [project.entry-points."iclscale.papers"]
    my_paper = "my_paper:PAPER"
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from iclscale.errors import UserError
from iclscale.paper_laws import PaperLaws, Smoke, laws_of_module

ENTRY_POINT_GROUP = "iclscale.papers"


@dataclass(frozen=True)
class Paper:
    name: str  # short and unique: the folder's or the distribution's name
    citation: str  # how reports and the ledger name it, e.g. "Collins et al. 2024 [C24], seed 004"
    tag: str  # its short name: `iclscale reproduce C24`, the ledger's paper column
    studies: tuple[str, ...]  # its studies' names (the declarations define them)
    declarations: str  # module with DECLARATIONS
    laws: str  # module with PAPER_LAWS (iclscale.paper_laws)
    sweeps: Path  # folder of its sweep files
    seed: str = ""  # a built-in paper's text is shared/seeds/<seed>_*.txt ("004"); "" for an installed one

    def load_declarations(self) -> tuple:
        return tuple(importlib.import_module(self.declarations).DECLARATIONS)

    def load_laws(self) -> PaperLaws:
        """Its laws module's record, checked (iclscale.paper_laws); UserError naming the module otherwise."""
        try:
            module = importlib.import_module(self.laws)
        except UserError as error:  # a PaperLaws refused while the module was built
            raise UserError(f"{self.laws}: {error}") from error
        return laws_of_module(module, self.studies)

    def sweep_files(self) -> list[Path]:
        """Its sweep files, sorted by name."""
        return sorted(self.sweeps.glob("*.yaml"))

    @property
    def quotes_file(self) -> Path:
        """quotes.yaml beside its laws module (claim id: the paper's own words), found without importing the laws."""
        spec = importlib.util.find_spec(self.laws)
        origin = Path(spec.origin) if spec and spec.origin else self.sweeps.parent / "laws" / "__init__.py"
        return origin.parent / "quotes.yaml"

    def quotes(self) -> dict[str, str]:
        """Claim id -> the paper's own words, whitespace folded ({} without a quotes.yaml)."""
        return _quotes(str(self.quotes_file))


@functools.cache
def papers() -> tuple[Paper, ...]:
    """The built-in papers, then those of installed distributions (entry points, sorted by name)."""
    from iclscale.papers import BUILT_IN

    found = [importlib.import_module(f"iclscale.papers.{name}").PAPER for name in BUILT_IN]
    for entry in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            paper = entry.load()
        except ModuleNotFoundError as error:
            from iclscale.moved import moved_message

            reason = moved_message(error.name or "") or str(error)
            raise UserError(f"the paper {entry.name!r} ({entry.value}) failed to load: {reason}") from error
        except Exception as error:  # a broken plug-in must not take the built-in papers down with it
            raise UserError(f"the paper {entry.name!r} ({entry.value}) failed to load: {error}") from error
        if not isinstance(paper, Paper):
            raise UserError(f"the entry point {entry.name!r} ({entry.value}) is not an iclscale.paper.Paper")
        found.append(paper)
    names = [p.name for p in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(f"two installed papers are both called {', '.join(twice)}")
    return tuple(found)


def paper_of_study(study: str) -> Paper | None:
    return next((p for p in papers() if study in p.studies), None)


def smoke_configs() -> dict[str, Smoke]:
    """Every installed study's smoke config (its paper's PaperLaws), by study: what the trainer's contract tests and
    benchmarks/device_check.py train, so that a new paper is covered without editing a list."""
    return {study: paper.load_laws().smoke[study] for paper in papers() for study in paper.studies}


def by_citation() -> list[Paper]:
    """The papers in the order reports and the ledger list them: by citation."""
    return sorted(papers(), key=lambda p: p.citation)


def find_papers(names: list[str]) -> list[Paper]:
    """Papers by tag (C24 or [C24]), seed (004 or "seed 004"), a study's name, its name or its citation, each
    once, in the order asked; UserError naming the known ones otherwise."""
    known = by_citation()
    chosen: list[Paper] = []
    for name in names:
        key = name.strip().lower().removeprefix("seed").strip()
        match = [p for p in known if _answers_to(p, name, key)]
        if not match:
            choices = "; ".join(f"{p.tag} (seed {p.seed}, studies {', '.join(p.studies)})" for p in known)
            raise UserError(f"unknown paper {name!r}; papers: {choices}")
        chosen += [p for p in match if p not in chosen]
    return chosen


def _answers_to(paper: Paper, name: str, key: str) -> bool:
    names = (paper.tag.lower(), paper.seed, paper.citation.lower(), paper.name.lower())
    return key in names or name in paper.studies or key.strip("[]") == paper.tag.lower()


@functools.cache
def _quotes(path: str) -> dict[str, str]:
    import yaml

    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as stream:
        data = yaml.safe_load(stream) or {}
    return {str(key): " ".join(str(value).split()) for key, value in data.items()}


REPOSITORY = Path(__file__).resolve().parents[1]


def sweep_files() -> list[Path]:
    """Every paper's sweep files: the built-in papers', then installed ones', each paper's sorted by name."""
    return [path for paper in papers() for path in paper.sweep_files()]


def shown(path: Path) -> str:
    """A sweep file's path as reports print it: relative to the repository for a built-in paper."""
    try:
        return path.resolve().relative_to(REPOSITORY).as_posix()
    except ValueError:
        return str(path)


def find_sweep(name: str) -> Path:
    """The catalogue sweep file called `name` (its file name without .yaml), in any installed paper."""
    from iclscale.errors import did_you_mean

    files = sweep_files()
    found = [path for path in files if path.stem == name.removesuffix(".yaml")]
    if len(found) > 1:  # two installed papers' files of one name: neither is chosen behind the user's back
        raise UserError(f"two catalogue sweeps are called {name!r}: {', '.join(map(shown, found))}; give its path")
    if found:
        return found[0]
    by_name = {path.stem: path for path in files}
    raise UserError(
        f"no sweep file {name!r} and no catalogue sweep of that name{did_you_mean(name, by_name)} "
        f"(`iclscale sweeps` lists them)"
    )

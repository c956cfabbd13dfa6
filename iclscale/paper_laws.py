"""The laws contract: what a paper's laws module gives the framework, as one typed record.

A paper's laws module (`Paper.laws`) ends with

    PAPER_LAWS = PaperLaws(claims=..., laws=..., smoke={study: Smoke(...)}, ...)

and the framework reads nothing else from it: iclscale.analysis (laws, claims, report sections, derived variables,
the negative controls, `iclscale train`'s run summary), the trainer's contract tests and benchmarks/device_check.py
(the smoke configs) all go through the record that `Paper.load_laws()` returns. Like pytest's plugin manager with an
unknown hook, a name the contract does not know is refused where it is written, never ignored: the record's fields
are keyword-only and an unknown one is an error naming the fields; a laws module without `PAPER_LAWS`, or with a
module global that reads like a field (`CONTROL_CONFIGS`, or the old `LAWS`, `CLAIMS`, ...), is refused at load; so
is a study the paper does not declare, and a study without its smoke config.

Neutral like iclscale.paper (it imports no analysis): the fields' types are named in comments.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import ModuleType
from typing import Any

from iclscale.errors import UserError, did_you_mean, unknown_name

CONTRACT = "PAPER_LAWS"
"""The one name the framework reads from a paper's laws module."""


@dataclass(frozen=True)
class Smoke:
    """A study at a small size, trained in seconds: how the trainer's contract tests (compiled = eager, CUDA = CPU)
    and benchmarks/device_check.py exercise it. `config`: the params every member of the pack shares (small sizes,
    few steps); `variations`: one dict per member (two or more), the params it changes, train-role ones so that the
    members share a pack and are told apart by it, as in a sweep."""

    config: Mapping[str, Any]
    variations: tuple[Mapping[str, Any], ...]

    def __post_init__(self):
        object.__setattr__(self, "config", dict(self.config))
        object.__setattr__(self, "variations", tuple(dict(v) for v in self.variations))
        if len(self.variations) < 2:
            raise UserError(f"Smoke: {len(self.variations)} variations; give two or more (a pack of one is no pack)")

    def configs(self) -> list[dict[str, Any]]:
        """The params of each member of the pack."""
        return [{**self.config, **variation} for variation in self.variations]


@dataclass(frozen=True, kw_only=True)
class PaperLaws:
    """Everything a paper's laws module gives the framework (docs/writing-a-paper.md, "The laws")."""

    claims: tuple[Any, ...]  # iclscale.analysis.law.Claim: every claim of the paper, with the laws testing it
    laws: tuple[Any, ...]  # iclscale.analysis.law.Law: the laws the claims name
    smoke: Mapping[str, Smoke]  # every study of the paper: its small config for the contract tests
    sections: tuple[Callable, ...] = ()  # report pages of its own: section(results, add_chart) -> Section | None
    # the combinations of params its laws' x may name: {name: iclscale.analysis.derived.DerivedVariable}
    derived: Mapping[str, Any] = field(default_factory=dict)
    # {study: params}: one config inside every theorem's conditions of the study, a tuple giving a param's levels,
    # for the negative controls (iclscale.analysis.controls)
    control_config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # {study: function(one run's curves, one row per record step) -> dict}: what `iclscale train` prints about a
    # run's course beside its final metrics (a training-dynamics paper's phases, say)
    run_summary: Mapping[str, Callable] = field(default_factory=dict)
    # the laws module's folder (its quotes.yaml, the ledger's quotes of each claim, lives there): set at load, not
    # given by the paper
    folder: Path | None = field(default=None, init=False, compare=False)

    def __new__(cls, *args, **given):
        # the dataclass's __init__ would raise a bare TypeError; this names the contract's fields
        names = [f.name for f in fields(cls) if f.init]
        if args:
            raise UserError(f"PaperLaws takes keyword arguments only ({', '.join(names)})")
        for name in given:
            if name not in names:
                raise UserError(unknown_name("field of PaperLaws", name, names))
        return super().__new__(cls)

    def __post_init__(self):
        for name in ("claims", "laws", "sections"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in ("smoke", "derived", "control_config", "run_summary"):
            object.__setattr__(self, name, dict(getattr(self, name)))
        for study, smoke in self.smoke.items():
            if not isinstance(smoke, Smoke):
                raise UserError(f"PaperLaws(smoke=...): {study!r} is given a {type(smoke).__name__}, not a Smoke")


FIELD_NAMES = tuple(f.name.upper() for f in fields(PaperLaws) if f.init)
"""A module global named like a field (in capitals, as the contract's names were before the record) is refused."""
_CAPITALS = re.compile(r"[A-Z][A-Z0-9_]*")
_CHECKED: dict[int, PaperLaws] = {}


def laws_of_module(module: ModuleType, studies: tuple[str, ...]) -> PaperLaws:
    """The module's record, checked against the paper's studies; UserError naming the module otherwise."""
    where = module.__name__
    _refuse_stray_fields(module, where)
    record = vars(module).get(CONTRACT)
    if not isinstance(record, PaperLaws):
        found = "defines no" if record is None else f"has a {type(record).__name__} as its"
        raise UserError(
            f"{where} {found} {CONTRACT} = PaperLaws(...), the laws contract{did_you_mean(CONTRACT, vars(module))} "
            f"(docs/writing-a-paper.md)"
        )
    if _CHECKED.get(id(record)) is record:
        return record
    _check_studies(record, studies, where)
    if getattr(module, "__file__", None):  # a module made in memory (a test's) has no file
        object.__setattr__(record, "folder", Path(module.__file__).parent)
    _CHECKED[id(record)] = record
    return record


def _refuse_stray_fields(module: ModuleType, where: str) -> None:
    """A module global named like a field of the contract (FIELD_NAMES) would be ignored: say where it belongs."""
    for name in vars(module):
        if name != CONTRACT and _CAPITALS.fullmatch(name):
            close = difflib.get_close_matches(name, FIELD_NAMES, n=1, cutoff=0.8)
            if close:
                raise UserError(
                    f"{where} defines {name}, which iclscale does not read: the laws contract is the one record "
                    f"{CONTRACT} = PaperLaws(...); give it as PaperLaws({close[0].lower()}=...) "
                    f"(docs/writing-a-paper.md)"
                )


def _check_studies(record: PaperLaws, studies: tuple[str, ...], where: str) -> None:
    """Every study of the paper has a smoke config, and the per-study fields name only the paper's studies."""
    missing = [study for study in studies if study not in record.smoke]
    if missing:
        raise UserError(
            f"{where}: no smoke config for the study {missing[0]!r} (PaperLaws(smoke={{study: Smoke(...)}}): the small "
            f"config the trainer's contract tests train it at)"
        )
    for name in ("smoke", "control_config", "run_summary"):
        for study in getattr(record, name):
            if study not in studies:
                raise UserError(f"{where}: PaperLaws({name}=...): {unknown_name('study', study, studies)}")

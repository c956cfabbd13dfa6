"""Derived variables: the combinations of params a paper states its laws in (a scaling variable such as
n·L²/σ², a total such as M1 + M2), as columns beside the params.

Each paper defines its own in its laws record, `PaperLaws(derived={name: DerivedVariable})` (iclscale.paper_laws),
and they
are looked up by study: two papers may use one symbol for different things (L a Lipschitz constant in one, a
sequence length in another), so a name means what the study's paper says it means, and a study gets no
column from another paper's table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from iclscale.paper import paper_of_study


@dataclass(frozen=True)
class DerivedVariable:
    """A product of powers of params, e.g. Λ = n¹ L² σ⁻² (the powers tell a multi-variable fit which
    combination the law claims the measure depends on), or with `sum`, a weighted sum, e.g. M = M1 + M2 (the
    weights in `powers`), or with `terms`, a sum of products of powers, e.g. c0²m1/L + c1²m (no multi-variable
    power-law fit for either: a sum is not a product of powers)."""

    name: str  # column name
    symbol: str
    powers: dict[str, float]
    meaning: str
    sum: bool = False
    terms: tuple[dict[str, float], ...] = ()

    @property
    def params(self) -> list[str]:
        return list(dict.fromkeys(p for term in self.terms for p in term)) if self.terms else list(self.powers)

    @property
    def is_product(self) -> bool:
        return not self.sum and not self.terms

    def compute(self, table) -> np.ndarray:
        if self.terms:
            return sum(_product(table, term) for term in self.terms)
        if self.sum:
            return sum(weight * np.asarray(table[param], dtype=float) for param, weight in self.powers.items())
        return _product(table, self.powers)


def _product(table, powers: dict[str, float]) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.ones(len(table))
        for param, power in powers.items():
            value = value * np.asarray(table[param], dtype=float) ** power
    return value


def derived_variables(study: str | None) -> Mapping[str, DerivedVariable]:
    """The study's derived variables by name: its paper's laws record's `derived` (none for a study no installed
    paper declares)."""
    paper = paper_of_study(study) if study else None
    if paper is None:
        return {}
    return dict(paper.load_laws().derived)


def ingredients(variable: str, study: str | None) -> dict[str, float]:
    """The params a variable is made of, with their powers (a plain param: itself, power 1; the params of a
    sum of terms: power 1, as they enter no product)."""
    derived = derived_variables(study).get(variable)
    if derived is None:
        return {variable: 1.0}
    return {p: 1.0 for p in derived.params} if derived.terms else dict(derived.powers)


def symbol(variable: str, study: str | None) -> str:
    derived = derived_variables(study).get(variable)
    return derived.symbol if derived is not None else variable


def add_derived(runs, study: str | None = None):
    """`runs` with each derived variable whose params are all columns added as a column: the variables of
    `study`, or, without it, those of each row's study (the column `study`)."""
    runs = runs.copy()
    if study is not None:
        by_study = [(study, None)]
    elif "study" in runs:
        by_study = [(name, (runs["study"] == name).to_numpy()) for name in runs["study"].dropna().unique()]
        if len(by_study) == 1:
            by_study = [(by_study[0][0], None)]  # one study: its columns over every row
    else:
        by_study = []
    for name, rows in by_study:
        for variable in derived_variables(name).values():
            if not all(p in runs.columns for p in variable.params):
                continue
            if rows is None:
                runs[variable.name] = variable.compute(runs)
            else:
                runs.loc[rows, variable.name] = variable.compute(runs[rows])
    return runs

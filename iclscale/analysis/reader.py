"""A results directory as pandas DataFrames, with the variables that laws are stated in.

Reads through `iclscale.sweeps.store.read_store` (which raises `usererror.UserError` for a missing directory or one
without runs) and adds derived variables such as Λ = nL²/σ² as columns of `runs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from iclscale.sweeps.store import KEY_COLUMNS as ID_COLUMNS
from iclscale.sweeps.store import PROVENANCE_COLUMNS, STATUS_COLUMNS


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


DERIVED = {
    # Λ := nL²/σ², the scaling variable of [C24] Theorem 3.4 (σ = 0 gives Λ = inf, left out of fits)
    "Lambda": DerivedVariable("Lambda", "Λ", {"n": 1, "L": 2, "sigma": -2}, "Λ = nL²/σ² ([C24] Thm 3.4)"),
    # M := M1 + M2, the number of patterns of [LW23] Thm 1 (relevant plus irrelevant)
    "M": DerivedVariable("M", "M", {"M1": 1, "M2": 1}, "M = M1 + M2 ([LW23] §3.2)", sum=True),
    # r := α·l_ts/(p_a·l_tr): [LM25] Thm 2 (c)'s α < min(1, p_a·l_tr/l_ts) is r < 1 (α < 1 throughout)
    "outlier_ratio": DerivedVariable(
        "outlier_ratio", "r", {"alpha": 1, "l_ts": 1, "p_a": -1, "l_tr": -1}, "r = α·l_ts/(p_a·l_tr) ([LM25] Thm 2)"
    ),
    # [Y24] Lemma 4.1 / §4.1: the Phase-1 rate scale (σ0² + σ1²)·m·m1 with the theory init's σ0 = c0/√(Lm),
    # σ1 = c1/√m1 (a = ±1, ‖a‖² = m1): c0²·m1/L + c1²·m
    "phase1_rate": DerivedVariable(
        "phase1_rate",
        "(σ0²+σ1²)m·m1",
        {},
        "(σ0² + σ1²)·m·m1 = c0²m1/L + c1²m, theory init ([Y24] Lemma 4.1, §4.1)",
        terms=({"c0": 2, "m1": 1, "L": -1}, {"c1": 2, "m": 1}),
    ),
}


def ingredients(variable: str) -> dict[str, float]:
    """The params a variable is made of, with their powers (a plain param: itself, power 1; the params of a
    sum of terms: power 1, as they enter no product)."""
    if variable not in DERIVED:
        return {variable: 1.0}
    derived = DERIVED[variable]
    return {p: 1.0 for p in derived.params} if derived.terms else dict(derived.powers)


def symbol(variable: str) -> str:
    return DERIVED[variable].symbol if variable in DERIVED else variable


@dataclass
class Results:
    """One results directory: the frozen sweep, runs (with derived columns) and curves."""

    directory: str
    sweep: dict[str, Any]
    runs: Any  # pandas.DataFrame, one row per (config, eval point)
    curves: Any  # pandas.DataFrame, long: run_id, step, metric, value, eval_key, eval params
    thresholds: Any = None
    """pandas.DataFrame of DIR/thresholds.csv, one row per search of a threshold search (iclscale.sweeps.threshold),
    or None."""

    @property
    def study(self) -> str:
        if self.sweep.get("study"):
            return self.sweep["study"]
        return str(self.runs["study"].iloc[0])

    @property
    def name(self) -> str:
        return self.sweep.get("name") or str(self.runs["sweep"].iloc[0])

    def params(self, *roles: str) -> list[str]:
        """Param columns of the given roles (all roles when none given), as the frozen sweep lists them."""
        declared = self.sweep.get("params") or {}
        if not declared:  # an old store without the params block: every column that is not a metric
            return [c for c in self.runs.columns if c in self._non_metric_columns() and c not in _RESERVED]
        return [n for n, spec in declared.items() if (not roles or spec.get("role") in roles) and n in self.runs]

    def title(self, variable: str) -> str:
        """A chart axis title: the param's symbol and meaning where the frozen sweep's params block gives
        them (keys `symbol`, `meaning`), a derived variable's definition, else the column name."""
        if variable in DERIVED:
            return DERIVED[variable].meaning
        spec = (self.sweep.get("params") or {}).get(variable) or {}
        name, meaning = spec.get("symbol"), short_meaning(spec.get("meaning") or "")
        head = f"{name} ({variable})" if name and name != variable else variable
        return f"{head}: {meaning}" if meaning else head

    def grid_axes(self) -> list[str]:
        """Params that take more than one value in the sweep: grid axes, case keys, eval axes."""
        return [p for p in self.params() if self.runs[p].nunique(dropna=False) > 1]

    def metrics(self) -> list[str]:
        """Numeric final-metric columns of runs (neither params, ids, status, provenance nor derived)."""
        skip = set(self.params()) | set(_RESERVED) | set(DERIVED)
        return [c for c in self.runs.columns if c not in skip and _numeric(self.runs[c])]

    def _non_metric_columns(self) -> set[str]:
        metrics = set(self.curves["metric"].unique()) if len(self.curves) else set()
        return {c for c in self.runs.columns if c not in metrics}


_RESERVED = (*ID_COLUMNS, *STATUS_COLUMNS, *PROVENANCE_COLUMNS)
TITLE_LENGTH = 60


def short_meaning(meaning: str) -> str:
    """A param's meaning without its citation (the part from " (" on), at most TITLE_LENGTH characters."""
    text = meaning.split(" ([")[0].split(" (")[0].strip()
    return text if len(text) <= TITLE_LENGTH else text[: TITLE_LENGTH - 1].rstrip() + "…"


def _numeric(column) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def load_results(directory: str) -> Results:
    """Read a results directory (UserError when it does not exist or holds no runs)."""
    from iclscale.sweeps.store import read_store

    data = read_store(directory)
    runs = add_derived(data.runs)
    return Results(str(directory), data.sweep or {}, runs, data.curves, read_thresholds(directory))


def read_thresholds(directory: str):
    """DIR/thresholds.csv as a DataFrame (a threshold search's answers), or None when there is none."""
    import io

    import pandas as pd

    from iclscale.sweeps.store import Location

    location = Location(directory)
    if not location.exists("thresholds.csv"):
        return None
    return pd.read_csv(io.StringIO(location.read_text("thresholds.csv")), keep_default_na=False, na_values=[""])


def add_derived(runs):
    """Add each derived variable whose params are all columns of `runs`."""
    runs = runs.copy()
    for variable in DERIVED.values():
        if all(p in runs.columns for p in variable.params):
            runs[variable.name] = variable.compute(runs)
    return runs


def curves_with_params(results: Results, metric: str | None = None):
    """Curves joined with their config's params (one set per run_id), for grouping and faceting."""
    curves = results.curves if metric is None else results.curves[results.curves["metric"] == metric]
    config_params = [p for p in results.params("shape", "train") if p not in curves.columns]
    configs = results.runs.drop_duplicates("run_id")[["run_id", "seed", "status", *config_params]]
    return curves.merge(configs, on="run_id", how="inner")

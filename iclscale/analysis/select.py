"""The rows a law reads, split into groups, with the points outside the theorem's conditions set aside.

Every kind of law selects its rows the same way: the law's study, the `where` filters, an optional row
filter (e.g. test tasks from the training distribution), status ok (diverged and failed rows are counted,
not used), the measure (`value`, `censored`, `left_censored`), and the regime (`Law.regime`): a config
outside the theorem's conditions is set aside, counted and drawn grey. Groups are the law's `group_by`
params plus every other param that varies in the rows and is neither one of the law's axes nor pooled (a fit
over x must hold everything else fixed).

Resampling. Each row gets a `stratum` (iclscale.analysis.fits): the values of the law's axes and pooled params that
change the trained model. Axes that do not (eval-role params, the training step) are measured on one model
per seed, so a law whose axes are all of that sort has one stratum: its bootstrap resamples seeds, not cells.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iclscale.analysis.derived import add_derived, derived_variables
from iclscale.analysis.frames import joined

if TYPE_CHECKING:
    import pandas as pd

    from iclscale.analysis.law import Law
    from iclscale.analysis.reader import Results

WITHIN_MODEL = ("step",)  # axes along which one trained model is measured, besides the eval-role params


@dataclass
class Group:
    key: dict[str, Any]  # the params that vary between groups: the group's label
    params: dict[str, Any]  # every param constant within the group (key included): what `predict` reads
    rows: Any  # DataFrame of measured rows inside the regime: value, censored, left_censored, stratum, …
    outside: Any  # DataFrame like `rows`: outside the regime
    n_not_ok: int  # rows left out for their status (diverged, failed)
    paired: bool  # one model per seed measured at every x

    @functools.cached_property
    def regime_constants(self) -> tuple[float, float, str]:
        """(c*, c_all, binding): the largest value of the theorem's hidden constants at which some point of the
        group lies inside its conditions (below `CONSTANTS`: the factor they would have to shrink by), the
        largest at which every point does, and the condition that binds c*. +inf where no hidden constant
        limits the group, 0 where an explicit or measured condition keeps every point out. Computed once per
        group (evaluate and the verdict's reason both read it)."""
        import pandas as pd

        both = pd.concat([self.rows, self.outside])
        if "regime_constant" not in both or not len(both):
            return math.inf, math.inf, ""
        constants = both["regime_constant"].astype(float).fillna(0.0)
        best = constants.idxmax()
        binding = both.loc[best, "regime_binding"] if "regime_binding" in both else ""
        binding = binding.iloc[0] if isinstance(binding, pd.Series) else binding
        return float(constants.max()), float(constants.min()), str(binding or "")

    @property
    def label(self) -> str:
        return label(self.key)

    @property
    def n_excluded(self) -> int:
        return len(self.outside) + self.n_not_ok


def label(group: dict[str, Any]) -> str:
    return ", ".join(f"{k}={text(v)}" for k, v in group.items()) or "all"


def text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "null"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def select(law: Law, results: Results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The measured rows with status ok (column `in_regime`), and the rows left out for their status."""
    runs = results.runs
    if results.study != law.study:
        empty = runs.iloc[0:0]
        return empty.assign(value=[], censored=[], left_censored=[], in_regime=[]), empty
    for param, allowed in law.where.items():
        runs = runs[runs[param].isin(allowed)] if param in runs else runs.iloc[0:0]
    if law.row_filter is not None:
        runs = law.row_filter(runs)
    if law.one_row_per_run:
        runs = runs.drop_duplicates("run_id")
    ok = runs["status"] == "ok"
    from iclscale.analysis.conditions import CONSTANTS

    constant, binding = regime_constant(law, results, runs[ok])
    measured = law.measure.per_run(
        results, runs[ok].assign(in_regime=constant >= CONSTANTS, regime_constant=constant, regime_binding=binding)
    )
    if "left_censored" not in measured:
        measured = measured.assign(left_censored=False)
    return law.kind.prepare(law, measured), runs[~ok]


def inside_regime(law: Law, results: Results, runs: pd.DataFrame) -> pd.Series:
    """True for rows inside the law's regime at the hidden constants `CONSTANTS` (`regime_constant`)."""
    from iclscale.analysis.conditions import CONSTANTS

    return regime_constant(law, results, runs)[0] >= CONSTANTS


def regime_constant(law: Law, results: Results, runs: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Per row, the largest value of the theorem's hidden constants at which the row is inside its conditions,
    and the condition that binds there: +inf where no hidden-constant condition limits the row (and every other
    condition holds), 0 where an explicit or measured condition fails (no constant brings it inside). Flags and
    measured conditions count only if they hold for every seed of a config: dropping single seeds would bias the
    config's mean (they depend on the measured runs)."""
    import numpy as np
    import pandas as pd

    from iclscale.analysis.conditions import EXPLICIT, HIDDEN_CONSTANT, MEASURED

    constant = pd.Series(np.inf, index=runs.index)
    binding = pd.Series("", index=runs.index, dtype=object)
    regime = law.regime
    if regime is None or not len(runs):
        return constant, binding
    explicit = pd.Series(True, index=runs.index)
    hidden = regime.of_kind(HIDDEN_CONSTANT)
    if regime.inside is not None or regime.of_kind(EXPLICIT) or hidden:
        derived = add_derived(runs, law.study)
        if regime.inside is not None:
            explicit &= _booleans(regime.inside(derived), runs.index)
        for condition in regime.of_kind(EXPLICIT):
            explicit &= _booleans(condition.test(derived), runs.index)
        for condition in hidden:
            ratio = pd.Series(np.asarray(condition.test(derived), dtype=float), index=runs.index).fillna(0.0)
            tighter = ratio < constant
            binding[tighter] = condition.text
            constant = constant.where(~tighter, ratio)
    flags = [f for f in regime.flags if f in runs]
    measured = regime.of_kind(MEASURED)
    if flags or regime.measured is not None or measured:
        flagged = (runs[flags].fillna(0) >= 1).all(axis=1)
        if regime.measured is not None:
            flagged &= _booleans(regime.measured(results, runs), runs.index)
        for condition in measured:
            flagged &= _booleans(condition.test(results, runs), runs.index)
        config = [p for p in results.params() if p in runs and p != "seed"]
        if config:
            key = joined(runs, config)
            flagged = flagged.groupby(key).transform("all")
        explicit &= flagged
    binding[~explicit] = "an explicit or measured condition"
    return constant.where(explicit, 0.0), binding


def _booleans(values: Any, index) -> pd.Series:
    import pandas as pd

    return pd.Series(values, index=index).fillna(False).astype(bool)


def group_columns(law: Law, results: Results, rows: pd.DataFrame) -> list[str]:
    ignored = set(law.axes) | set(law.pool) | {"seed"} | set(derived_variables(law.study))
    if law.one_row_per_run:
        ignored |= set(results.params("eval"))
    varying = [
        p
        for p in results.params()
        if p in rows and p not in ignored and p not in law.group_by and rows[p].nunique(dropna=False) > 1
    ]
    return [p for p in law.group_by if p in rows] + varying


def groups(law: Law, results: Results) -> list[Group]:
    """The law's groups, sorted by their params."""
    import pandas as pd

    measured, not_ok = select(law, results)
    if law.x and law.x not in measured and all(p in measured for p in law.axes):
        measured = add_derived(measured, law.study)
    if law.x and law.x not in measured and len(measured):  # the swept variable is not in these results
        return []
    both = pd.concat([measured, not_ok.assign(in_regime=False, not_ok=True)], ignore_index=True)
    if not len(both):
        return []
    both["not_ok"] = both["not_ok"].fillna(False).astype(bool) if "not_ok" in both else False
    # cast once here, not per group (each cast a copy of the wide frame); column by column, not `astype` of a
    # mapping, which leaves the frame in fragments
    both["censored"] = both["censored"].astype(bool)
    both["left_censored"] = both["left_censored"].fillna(False).astype(bool)
    both["value"] = both["value"].astype(float)
    columns = group_columns(law, results, both)
    within = set(results.params("eval")) | set(WITHIN_MODEL)
    model_axes = [a for a in (*law.axes, *law.pool) if a in both and a not in within]
    both["stratum"] = joined(both, model_axes) if model_axes else ""
    paired = bool(law.axes) and not any(a in model_axes for a in law.axes)
    constant = [p for p in results.params() if p in both and p not in law.axes]
    parts = both.groupby(columns, dropna=False, sort=True) if columns else [((), both)]
    out = []
    for key, part in parts:
        key = key if isinstance(key, tuple) else (key,)
        group = dict(zip(columns, (plain(k) for k in key), strict=True))
        fixed = {p: plain(part[p].iloc[0]) for p in constant if part[p].nunique(dropna=False) == 1}
        inside = part["in_regime"].fillna(False).astype(bool)
        rows = part[inside]
        outside = part[~inside & ~part["not_ok"]]
        out.append(Group(group, {**fixed, **group}, rows, outside, int(part["not_ok"].sum()), paired))
    return out


def plain(value: Any) -> Any:
    """numpy scalars → Python values; NaN → None (a null param)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def measured_points(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows whose value is measured exactly: not censored, finite."""
    import numpy as np

    return rows[~rows["censored"] & np.isfinite(rows["value"].astype(float))]


def chart_points(rows: pd.DataFrame, x: str | None, numeric: bool = True) -> pd.DataFrame:
    """What a law's chart draws: every finite value, the censored ones included (drawn at their bound and
    marked as bounds, never in the statistic), with columns value, seed, censored, left_censored and x (the
    law's x as floats, its raw values with `numeric` False, 0 without an x)."""
    import numpy as np

    shown = rows[np.isfinite(rows["value"].astype(float))]
    if x is None:
        values = np.zeros(len(shown))
    else:
        values = shown[x].astype(float).to_numpy() if numeric else shown[x].to_numpy()
    return shown[["value", "seed", "censored", "left_censored"]].assign(x=values)

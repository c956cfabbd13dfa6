"""The planted rows of a negative control (iclscale.analysis.controls): the control's config, and each kind's planter.

What is planted. Each kind knows its statistic (`PLANTERS`): a power law plants value = 10·x^p, a line
a + b·x, a curve the law's own function with the judged constant set, a bound a constant (or, for a spread,
cells a factor apart), a trend a monotone sequence, a threshold values ε/10 and 10ε on either side of x0, a
diagonal minimum 1 + |pretraining − test|, a comparison the subject at a ratio of the others. The law's
measure is replaced by the planted column and its row filter dropped: the control tests the statistic, the
prediction, the regime and the verdict, not how the study reads a metric off its runs (the studies' tests do);
for the same reason a regime's conditions on measured curves are taken as met (a planted table has no curves).
Every other param is set from the study's control config (`control_config` of its paper's laws record: one
config inside every theorem's conditions of the study), the law's `where` and its own `control_params`,
and every regime flag is set to 1, so the planted points lie inside the law's regime.

The design (seeds, scatter) is this tool's choice, not from any paper.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from iclscale.analysis.derived import add_derived, derived_variables

if TYPE_CHECKING:
    import pandas as pd

    from iclscale.analysis.law import Law

SEEDS = 8
SCATTER = 0.02  # log-normal s.d. of the planted values (multiplicative 2%)
PLANTED = "planted_value"


# The control's config ---------------------------------------------------------------------------------
def control_config(law: Law) -> dict[str, Any]:
    """The params the planted rows carry: the study's control config, the law's `where` (first allowed value)
    and the law's own `control_params`. A tuple value is a param's levels (the first level is its value where
    the param is not swept)."""
    from iclscale.analysis.catalogue import control_config as study_config

    config = dict(study_config(law.study))
    swept = {law.x, *law.axes}
    for param, allowed in law.where.items():  # a swept param keeps the allowed values as its levels
        if allowed:
            config[param] = tuple(allowed) if param in swept and len(allowed) > 1 else allowed[0]
    config.update(law.control_params)
    return config


def value_of(config: Mapping[str, Any], param: str) -> Any:
    value = config.get(param)
    return value[0] if isinstance(value, tuple) else value


def levels_of(config: Mapping[str, Any], param: str) -> tuple:
    value = config.get(param)
    if not isinstance(value, tuple):
        raise KeyError(f"no levels for {param!r} in the control config")
    return value


def fixed(config: Mapping[str, Any]) -> dict[str, Any]:
    return {param: value_of(config, param) for param in config}


def swept_param(law: Law, config: Mapping[str, Any]) -> str:
    """The one param the control sweeps for the law's x: x itself, or the first ingredient with levels that the
    law does not group by."""
    candidates = list(law.axes) if law.axes else []
    if law.x and law.x not in derived_variables(law.study) and law.x in config and isinstance(config[law.x], tuple):
        return law.x
    for param in candidates:
        if isinstance(config.get(param), tuple) and param not in law.group_by:
            return param
    raise KeyError(f"no levels in the control config for any of {candidates or [law.x]}")


def x_values(law: Law, table: pd.DataFrame) -> np.ndarray:
    """The law's x for planted rows (a derived variable or a kind's transform, computed as the law does)."""
    prepared = law.kind.prepare(law, add_derived(table, law.study))
    return np.asarray(prepared[law.x], dtype=float)


# Planting ---------------------------------------------------------------------------------------------
def _scatter(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.exp(rng.normal(0.0, SCATTER, n))


def _rows(config: Mapping[str, Any], varied: Mapping[str, Any], seeds: int = SEEDS) -> list[dict]:
    """One row per (cell, seed): every config param fixed, `varied` a list of cells (dicts of params)."""
    base = fixed(config)
    return [{**base, **cell, "seed": seed} for cell in varied for seed in range(seeds)]


def sweep_rows(law: Law, config: Mapping[str, Any]) -> list[dict]:
    param = swept_param(law, config)
    return _rows(config, [{param: level} for level in levels_of(config, param)])


def _x_cells(law: Law, config: Mapping[str, Any]) -> list[dict]:
    if not law.x:
        return [{}]
    param = swept_param(law, config)
    return [{param: level} for level in levels_of(config, param)]


def _noisy(rows: list[dict], values: np.ndarray, rng: np.random.Generator) -> list[dict]:
    noisy = np.asarray(values, dtype=float) * _scatter(rng, len(rows))
    return [{**row, PLANTED: float(v)} for row, v in zip(rows, noisy, strict=True)]


def plant_power(law: Law, config, statistic: float, rng) -> list[dict]:
    import pandas as pd

    rows = sweep_rows(law, config)
    x = x_values(law, pd.DataFrame(rows))
    return _noisy(rows, 10.0 * x**statistic, rng)


def plant_linear(law: Law, config, statistic: float, rng) -> list[dict]:
    """a + b·x, with the judged one (slope or intercept) planted; the other 1 (slope) or 1 (intercept).
    The scatter is additive here (a line may cross 0): 0.2% of the planted range."""
    import pandas as pd

    rows = sweep_rows(law, config)
    x = x_values(law, pd.DataFrame(rows))
    slope, intercept = (statistic, 1.0) if law.kind.statistic == "slope" else (1.0 / max(np.ptp(x), 1e-12), statistic)
    y = intercept + slope * x
    spread = SCATTER / 10 * max(np.ptp(y), abs(intercept), 1e-3)
    return [{**row, PLANTED: float(v)} for row, v in zip(rows, y + rng.normal(0, spread, len(y)), strict=True)]


def plant_curve(law: Law, config, statistic: float, rng) -> list[dict]:
    """The law's own curve f(x; θ), the judged constant planted, the others at the middle of their bounds (1
    where unbounded)."""
    import pandas as pd

    kind = law.kind
    rows = sweep_rows(law, config)
    x = x_values(law, pd.DataFrame(rows))
    params = fixed(config)
    lows, highs = curve_bounds(kind, x, params)
    theta = []
    for name, low, high in zip(kind.constants, lows, highs, strict=True):
        if name == kind.judged:
            theta.append(statistic)
        elif math.isfinite(low) and math.isfinite(high):
            theta.append((low + high) / 2)
        else:
            theta.append(1.0)
    return _noisy(rows, kind.function(x, params, *theta), rng)


def curve_bounds(kind, x, params) -> tuple[np.ndarray, np.ndarray]:
    """A curve's (lows, highs) per constant, as its fit uses them."""
    n = len(kind.constants)
    lows, highs = kind.bounds(x, params) if kind.bounds else (-math.inf, math.inf)
    return np.broadcast_to(np.asarray(lows, float), n), np.broadcast_to(np.asarray(highs, float), n)


def plant_bound(law: Law, config, statistic: float, rng) -> list[dict]:
    """The same value in every cell (its reduction over cells is that value); for a spread (largest /
    smallest seed-mean), cells alternate between 1 and the planted ratio. Additive scatter (a value may be ≤ 0),
    none where the prediction is a point with no tolerance (a share of seeds that must be 1, say: only the exact
    value meets it)."""
    cells = _x_cells(law, config)
    if law.kind.aggregate == "spread":
        values = [1.0 if i % 2 == 0 else statistic for i in range(len(cells))]
        if len(cells) < 2:
            raise KeyError(f"a spread needs two levels of {law.x} in the control config")
    else:
        values = [statistic] * len(cells)
    rows = _rows(config, cells)
    planted = np.repeat(values, SEEDS)
    band = law.predict(fixed(config)).primary.band
    exact = band.low == band.high and law.rule.band_tolerance() == 0
    noise = rng.normal(0, 0.0 if exact else SCATTER * max(abs(statistic), 0.05) / 4, len(rows))
    return [{**row, PLANTED: float(v)} for row, v in zip(rows, planted + noise, strict=True)]


def plant_trend(law: Law, config, statistic: float, rng) -> list[dict]:
    """Seed-means rising (statistic > 0) or falling with x, each step 10× the scatter."""
    import pandas as pd

    rows = sweep_rows(law, config)
    x = x_values(law, pd.DataFrame(rows))
    rank = np.searchsorted(np.unique(x), x).astype(float)
    return _noisy(rows, np.exp(np.sign(statistic) * rank * 10 * SCATTER), rng)


def plant_threshold(law: Law, config, statistic: float, rng) -> list[dict]:
    """ε/10 where the claim puts x on the good side of `statistic` (x0), 10ε elsewhere; the wrong control
    plants x0 beyond every level, so every level the claim puts on the good side lies above ε."""
    import pandas as pd

    kind = law.kind
    rows = sweep_rows(law, config)
    x = x_values(law, pd.DataFrame(rows))
    good = x >= statistic if kind.good_side == "above" else x <= statistic
    return _noisy(rows, np.where(good, kind.threshold / 10, kind.threshold * 10), rng)


def plant_diagonal(law: Law, config, statistic: float, rng) -> list[dict]:
    """On the grid pretraining × test value: 1 + |log(pretrain/test)| (minimum on the diagonal) where the
    planted fraction is 1, 1 − that/10 (minimum at the farthest pretraining value) where it is 0."""
    row_axis = law.kind.row_axis
    levels = levels_of(config, row_axis)
    cells = [{row_axis: a, law.x: b} for a in levels for b in levels]
    rows = _rows(config, cells)
    distance = np.array([abs(math.log(r[row_axis] / r[law.x])) for r in rows])
    values = 1 + distance if statistic >= 0.5 else 1 - distance / 10
    return _noisy(rows, values, rng)


def plant_comparison(law: Law, config, statistic: float, rng) -> list[dict]:
    """The subject at `statistic` × the other setting's value, at every x."""
    kind = law.kind
    other = next((v for v in law.where.get(kind.param, ()) if v != kind.subject), "other")
    x_cells = _x_cells(law, config)
    cells = [{**cell, kind.param: setting} for cell in x_cells for setting in (kind.subject, other)]
    rows = _rows(config, cells)
    values = [statistic if row[kind.param] == kind.subject else 1.0 for row in rows]
    return _noisy(rows, values, rng)


def plant_flat(law: Law, config, statistic: float, rng) -> list[dict]:
    """Flat (1) up to `statistic` (the onset), then rising by 50% per level; the edge metric from the config."""
    rows = sweep_rows(law, config)
    x = np.array([r[law.x] for r in rows], dtype=float)
    levels = np.unique(x)
    steps = np.maximum(0, np.searchsorted(levels, x) - np.searchsorted(levels, statistic) + 1)
    return _noisy(rows, 1 + 0.5 * steps * (x >= statistic), rng)


def plant_onset(law: Law, config, statistic: float, rng) -> list[dict]:
    """`first` costs from the second x level on, `second` from the level `statistic` levels later (a
    negative statistic swaps them)."""
    kind = law.kind
    levels = levels_of(config, law.x)
    first_at, second_at = (1, 1 + int(statistic)) if statistic >= 0 else (1 - int(statistic), 1)
    cells, values = [], []
    for variant, at in ((kind.first, first_at), (kind.second, second_at)):
        for i, level in enumerate(levels):
            cells.append({law.x: level, kind.param: variant})
            values.append(1.0 + 0.5 * max(0, i - at + 1))
    rows = _rows(config, cells)
    return _noisy(rows, np.repeat(values, SEEDS), rng)


PLANTERS: dict[str, Callable] = {
    "power law": plant_power,
    "max{} term": plant_power,
    "linear": plant_linear,
    "curve": plant_curve,
    "bound": plant_bound,
    "trend": plant_trend,
    "threshold": plant_threshold,
    "diagonal minimum": plant_diagonal,
    "comparison": plant_comparison,
    "flat region": plant_flat,
    "earlier onset": plant_onset,
}

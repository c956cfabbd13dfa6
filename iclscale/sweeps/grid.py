"""A sweep's grid points: each case × grid combination, in file order. A search runs one Optuna study per grid
point (iclscale.sweeps.search) and a threshold search one bisection per point and seed (iclscale.sweeps.threshold)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from iclscale.errors import shorten

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep


def grid_points(sweep: Sweep) -> list[dict[str, Any]]:
    """Each case × grid combination, in file order (one search each)."""
    points, seen = [], set()  # a set of canonical keys: `in list` made 20,000 points take minutes
    axes = list(sweep.grid)
    for case in sweep.cases or [{}]:
        for values in itertools.product(*(sweep.grid[a] for a in axes)):
            point = {**case, **dict(zip(axes, values, strict=True))}
            key = repr(sorted(point.items()))
            if key not in seen:
                seen.add(key)
                points.append(point)
    return points


def label(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items()) or "(defaults)"


def check_at_grid_points(sweep: Sweep, name: str, values: list[Any], where: str) -> None:
    """Each grid point with `name` set to each of `values` must pass the study's checks."""
    for point, value in itertools.product(grid_points(sweep), values):
        sweep.study.resolve({**sweep.fixed, **point, name: value}, 0, f"{where} = {shorten(value)} at {label(point)}")

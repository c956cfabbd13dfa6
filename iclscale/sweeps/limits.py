"""Caps on a sweep's size, counted by arithmetic before any config is built: a grid of 10⁶ values
or a 10¹⁰-config product is refused at once instead of filling memory. `--max-configs N`,
`--max-eval-points N` and `--max-records N` raise them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from iclscale.errors import UserError
from iclscale.trainer.params import MAX_RECORDS


@dataclass(frozen=True)
class Limits:
    """The caps; the defaults plan in a few seconds on a laptop."""

    max_configs: int = 100_000
    max_eval_points: int = 10_000
    max_records: int = MAX_RECORDS  # per run: each record holds every metric of every config of a pack


def check_size(sweep: Any, limits: Limits, where: str) -> None:
    """Count configs and eval points by arithmetic, before anything is expanded."""
    configs = max(1, len(sweep.cases)) * math.prod(len(v) for v in sweep.grid.values()) * len(sweep.seeds)
    if configs > limits.max_configs:
        raise UserError(
            f"{where}: grid: {configs:,} configs (cases × grid × seeds) is past the cap of {limits.max_configs:,}; "
            "shrink the grid, or raise the cap with --max-configs N"
        )
    points = math.prod(len(v) for v in sweep.eval.values())
    if points > limits.max_eval_points:
        raise UserError(
            f"{where}: eval: {points:,} eval points is past the cap of {limits.max_eval_points:,}; "
            "shrink the eval grid, or raise the cap with --max-eval-points N"
        )

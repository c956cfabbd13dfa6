"""An eval-role threshold axis (the shortest test prompt l_ts, the largest test outlier fraction) searched on
each trained model without retraining, through the trainer's refine hook (`iclscale.trainer.training.train_pack`).

`iclscale.sweeps.threshold.run_threshold` trains each (grid point, seed) config once, measured during training at its
searches' first values. Once a pack (or each part of it) is trained, `EvalSearch.refine` runs every search of
every model in it to its end: it collects the open searches' next values as eval points (the cell's eval point
with the axis set), measures the trained pack at them (`evaluate`, the final record only) and reads the
outcomes again, until no search is open. A search's state is `iclscale.sweeps.bisect.search_state` of its outcomes, the
same function of the same values that `iclscale.sweeps.threshold.states` computes from the store afterwards. One
evaluation covers the whole pack, so every model is measured at every value any search of the pack asked
for, and all of them are kept: `measured_pack` adds each measured (config, eval point) to the pack's rows,
stored like any eval point (keyed by run_id and eval point: a re-run finds the searches ended and trains
nothing; nothing is stored twice). Evaluations are cheap next to training: the count that matters is one
training per model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iclscale.sweeps.bisect import OPEN, search_state
from iclscale.trainer.params import EvalPoint, eval_point

if TYPE_CHECKING:
    from iclscale.sweeps.plan import PackPlan
    from iclscale.sweeps.threshold_spec import ThresholdSpec


@dataclass(frozen=True)
class EvalSearch:
    """What a trial needs to search an eval axis on its pack (small and picklable: it travels to Ray workers)."""

    spec: ThresholdSpec
    cells: tuple[EvalPoint, ...]
    """The sweep's eval points: one search per cell and model."""

    def at(self, cell: EvalPoint, value) -> EvalPoint:
        return eval_point({**dict(cell), self.spec.axis: value})

    def refine(self, result, evaluate: Callable[[Sequence[EvalPoint]], None]) -> None:
        """The trainer's refine hook: measure the pack until every search of every model in it has ended."""
        from iclscale.sweeps.threshold_spec import spec_axis

        axis = spec_axis(self.spec)
        while True:
            wanted = []
            for k in range(len(result.configs)):
                for cell in self.cells:
                    state = search_state(axis, self.outcomes(result, k, cell))
                    if state.status == OPEN:
                        wanted.append(self.at(cell, state.proposal))
            new = [point for point in dict.fromkeys(wanted) if point not in result.evals]
            if not new:  # every search ended (or asks for a value whose evaluation failed: it stops as failed)
                return
            evaluate(new)

    def outcomes(self, result, k: int, cell: EvalPoint) -> dict:
        """{axis value: criterion holds} for model k at every value measured in this cell (a diverged model fails)."""
        from iclscale.sweeps.threshold_spec import holds

        spec, base = self.spec, {**dict(cell), self.spec.axis: None}
        out = {}
        for point in result.eval_points:
            values = dict(point)
            metric = (result.evals.get(point) or {}).get(spec.metric)
            if metric is None or {**values, spec.axis: None} != base or not spec.low <= values[spec.axis] <= spec.high:
                continue
            judged = math.nan if result.status[k] == "diverged" else float(metric[-1][k])
            out[values[spec.axis]] = holds(spec, judged)
        return out


def measured_pack(pack: PackPlan, result) -> PackPlan:
    """The pack with every (config, eval point) the refine hook measured among the rows it writes."""
    from dataclasses import replace

    from iclscale.sweeps.store import eval_key

    planned = set(pack.eval_points)
    extra = set()
    for point in result.eval_points:
        if point in planned:
            continue
        records = (result.evals.get(point) or {}).values()
        failed = (getattr(result, "eval_errors", None) or {}).get(point) is not None
        for k, config in enumerate(result.configs):
            # a pack trained in parts measured each part apart: a model another part measured here is NaN
            measured = failed or result.status[k] == "diverged" or any(math.isfinite(r[-1][k]) for r in records)
            if measured:
                extra.add((config.run_id, eval_key(point)))
    return replace(pack, eval_points=list(result.eval_points), missing=pack.missing | extra)

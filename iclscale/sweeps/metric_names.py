"""The final metrics a sweep may search or judge on, checked before any training.

A metric is known when its study declares it (StudyInfo.metrics, with the common ones: `#` an index, see
`StudyInfo.metric`), so planning a sweep imports no torch. Which of them are measured at eval points, not
probes of the parameters, the declarations do not say: a threshold search along an eval axis asks a 0-step
pack (`eval_point_metric_names`), when it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from iclscale.errors import UserError
from iclscale.trainer.registry import COMMON_METRICS, StudyInfo

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep
    from iclscale.trainer.params import Config, EvalPoint


def declared_metric_names(info: StudyInfo) -> list[str]:
    """The study's final metrics as declared (a family as its pattern: `neuron_magnitude_#`)."""
    return sorted({m.name for m in (*info.metrics, *COMMON_METRICS)})


def missing_metric(sweep: Sweep, known: set[str] | None = None) -> str:
    """The message for a search metric the study does not report, with the ones it does when `known`."""
    where = f"sweep file {sweep.path}: search.metric"
    listed = f"; its final metrics are: {', '.join(sorted(known))}" if known else ""
    return f"{where}: study {sweep.study.name} reports no metric {sweep.search['metric']!r}{listed}"


def check_metric(sweep: Sweep) -> None:
    """Refuse a search metric its study does not declare, before any training."""
    if sweep.study.metric(sweep.search["metric"]) is None:
        raise UserError(missing_metric(sweep, set(declared_metric_names(sweep.study))))


def eval_point_metric_names(sweep: Sweep, config: Config, point: EvalPoint) -> set[str] | None:
    """The final metrics the study measures at the eval point (not its probes, not train_loss) for `config`, from
    a 0-step pack of it; None when the study refuses 0 steps (the first training checks it instead)."""
    from iclscale.trainer.training import train_pack

    info = sweep.study
    steps = config.as_dict().get("steps")
    try:
        probe, _ = info.resolve({**config.as_dict(), **({"steps": 0} if steps else {})}, config.seed, "probe")
    except UserError:
        return None
    result = train_pack(info, [probe], [point], 1, device="cpu")
    return set(result.evals[point])

"""Packed training: K configs of one study trained together as one batched model.

Each config has its own parameters, learning rate, random streams and optimizer state; the loss
is summed over the pack (per-config gradients come from `vmap(grad_and_value(...))`, which is the
same thing). A config whose loss or gradient turns non-finite is marked diverged and frozen; its
pack-mates go on.

Every study's recipe names its loop length `steps`, its optimizer `optimizer` (shape role), and
its learning rate `lr` and per-iteration decay `lr_decay` (train role).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.func import functional_call, grad_and_value, vmap

from iclscale.optim import OPTIMIZERS
from iclscale.params import Config, EvalPoint
from iclscale.registry import StudyInfo
from iclscale.study import Pack, PackedModel, Study
from iclscale.tensors import per_config

OK, DIVERGED = "ok", "diverged"

Progress = Callable[[int, int, "PackResult"], None]
"""Called after every record with (step, total steps, the result so far)."""


@dataclass
class PackResult:
    """What one pack produced: per-config status and metrics at every recorded step."""

    configs: list[Config]
    eval_points: list[EvalPoint]
    record_steps: list[int] = field(default_factory=list)
    probes: dict[str, list[np.ndarray]] = field(default_factory=dict)
    evals: dict[EvalPoint, dict[str, list[np.ndarray]]] = field(default_factory=dict)
    status: list[str] = field(default_factory=list)
    diverged_step: list[int | None] = field(default_factory=list)
    wall_time: float = 0.0
    device: str = "cpu"

    def _records_of(self, k: int) -> int:
        """How many records belong to config k: those taken before it diverged."""
        last = self.diverged_step[k]
        return sum(1 for s in self.record_steps if last is None or s < last)

    def final_metrics(self, k: int, point: EvalPoint) -> dict[str, float]:
        """Config k's metrics at its last record (the end of training, or just before diverging)."""
        r = self._records_of(k) - 1
        out = {name: float(values[r][k]) for name, values in self.probes.items()}
        out.update({name: float(values[r][k]) for name, values in self.evals[point].items()})
        return out

    def curve(self, k: int) -> list[tuple[int, str, float, EvalPoint | None]]:
        """Config k's recorded (step, metric, value, eval point or None for probes)."""
        rows = []
        for r in range(self._records_of(k)):
            step = self.record_steps[r]
            rows += [(step, name, float(v[r][k]), None) for name, v in self.probes.items()]
            for point, metrics in self.evals.items():
                rows += [(step, name, float(v[r][k]), point) for name, v in metrics.items()]
        return [row for row in rows if not np.isnan(row[2])]  # NaN marks "not recorded" (train_loss at step 0)


def resolve_device(name: str = "auto") -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def train_pack(
    info: StudyInfo,
    configs: Sequence[Config],
    eval_points: Sequence[EvalPoint],
    record_every: int,
    device: torch.device | str = "cpu",
    progress: Progress | None = None,
) -> PackResult:
    """Train K configs with equal shape params together; record metrics every `record_every` steps."""
    start = time.perf_counter()
    study = info.load()
    pack = Pack.build(info, list(configs), device)
    pack.constants = study.constants(pack)
    model, steps, initial = None, 0, {}
    if study.trainable:
        module = study.module(pack).to(pack.device)
        initial = {name: p.detach().clone() for name, p in study.init_params(pack).items()}
        params = {name: p.clone() for name, p in initial.items()}
        model = PackedModel(module, params)
        steps = int(pack.shape["steps"])

    result = PackResult(list(configs), list(eval_points), device=str(pack.device))
    result.evals = {point: {} for point in eval_points}
    active = torch.ones(pack.K, dtype=torch.bool, device=pack.device)
    diverged_at = torch.zeros(pack.K, dtype=torch.int64, device=pack.device)  # 0: not diverged
    loss_sum = torch.zeros(pack.K, device=pack.device)
    since_record = 0

    def record(step: int) -> None:
        nonlocal loss_sum, since_record
        pack.step, pack.final = step, step == steps
        measured = model
        if model is not None and not bool(active.all()):
            # a diverged config's records are discarded; measure it on its initial parameters so
            # that no study has to cope with non-finite values
            measured = PackedModel(
                model.module, {n: torch.where(per_config(active, p), p, initial[n]) for n, p in params.items()}
            )
        with torch.no_grad():
            metrics = dict(study.probes(pack, measured))
            if since_record:
                metrics["train_loss"] = loss_sum / since_record
            _append(result.probes, metrics, len(result.record_steps))
            for point in eval_points:
                _append(result.evals[point], study.evaluate(pack, measured, dict(point)), len(result.record_steps))
        result.record_steps.append(step)
        loss_sum, since_record = torch.zeros_like(loss_sum), 0
        if progress is not None:
            progress(step, steps, result)

    record(0)
    if steps:
        optimizer = OPTIMIZERS[pack.shape["optimizer"]](params, pack.hp["lr"], pack.hp.get("lr_decay"))
        grad_fn = vmap(grad_and_value(_config_loss(study, module)))
        for t in range(steps):
            batch = study.sample_batch(pack, t)
            grads, loss = grad_fn(params, pack.hp, batch)
            finite = torch.isfinite(loss)
            for g in grads.values():
                finite &= torch.isfinite(g).flatten(1).all(dim=1)
            # the update of iteration t would have been non-finite (no host sync: fine on CUDA too)
            diverged_at = torch.where(active & ~finite, t + 1, diverged_at)
            active &= finite
            with torch.no_grad():
                optimizer.step(grads, active)
            loss_sum += torch.where(active, loss.detach(), 0.0)
            since_record += 1
            if (t + 1) % record_every == 0 or t + 1 == steps:
                record(t + 1)

    result.diverged_step = [step or None for step in diverged_at.tolist()]
    result.status = [OK if s is None else DIVERGED for s in result.diverged_step]
    result.wall_time = time.perf_counter() - start
    return result


def _config_loss(study: Study, module: torch.nn.Module) -> Callable:
    def loss(params: dict[str, torch.Tensor], hp: Mapping[str, torch.Tensor], batch: Any) -> torch.Tensor:
        def predict(*inputs: torch.Tensor) -> Any:
            return functional_call(module, params, inputs)

        return study.loss(predict, batch, hp)

    return loss


def _append(store: dict[str, list[np.ndarray]], metrics: Mapping[str, torch.Tensor], n_before: int) -> None:
    """Add one record; a metric missing from some records (e.g. measured only at the end) is NaN there."""
    K = None
    for name, value in metrics.items():
        values = value.detach().to("cpu", torch.float64).numpy()
        K = len(values)
        store.setdefault(name, [np.full(K, np.nan)] * n_before).append(values)
    for column in store.values():
        if len(column) == n_before:
            column.append(np.full(len(column[0]) if column else K, np.nan))

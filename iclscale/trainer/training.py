"""Packed training: a pack of configs of one study trained together as one batched model.

The study's functions are written for one config (`iclscale.trainer.study`); here they are vectorised with
`torch.func.vmap` over the pack, and one training step — batch, loss, gradient, optimizer update and
divergence mask — is one function of the stacked tensors, compiled with `torch.compile` when the pack's
steps and size say compilation pays (`iclscale.trainer.compiling.decide`, never a clock). A config whose loss
or gradient turns non-finite is marked diverged and frozen; its pack-mates go on. Results do not depend on the
pack size, on the pack a config lands in, or on compilation (within float tolerance): every random number is a
pure function of the config's seed, and every update is elementwise per config.

A pack that does not fit in memory is trained in parts (`iclscale.trainer.footprint`), never out of memory.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.func import grad_and_value, vmap

from iclscale.trainer import recipe, replay
from iclscale.trainer.compiling import StepRunner, decide, resolve_mode
from iclscale.trainer.measuring import Measurer, append
from iclscale.trainer.params import Config, EvalPoint, RecordSchedule
from iclscale.trainer.registry import StudyInfo
from iclscale.trainer.study import Net, Pack, PackNet, Study, config_view

OK, DIVERGED = "ok", "diverged"

Progress = Callable[..., None]
"""Called with (step, total steps, the result so far): after every record; between records at most every
`REPORT_S` seconds, with the steps the host has launched (no wait for the device: on CUDA the step count runs
ahead by the launch queue, while every record copies to the host anyway); and with `compiling=True` just before
the step compiles (once per shape and process), `compiling=False` once it has, so that rates can leave the
compilation out."""
REPORT_S = 1.0
Refine = Callable[["PackResult", Callable[[Sequence[EvalPoint]], None]], None]
"""Called once a pack (or each part of it) is trained, with its result and `evaluate(points)`, which measures
the trained models at more eval points and adds them to the result (final record only): an eval axis
searched on the trained models without retraining (iclscale.sweeps.eval_refine)."""


@dataclass
class PackResult:
    """What one pack produced: per-config status and metrics at every recorded step."""

    configs: list[Config]
    eval_points: list[EvalPoint]
    record_steps: list[int] = field(default_factory=list)
    probes: dict[str, list[np.ndarray]] = field(default_factory=dict)
    evals: dict[EvalPoint, dict[str, list[np.ndarray]]] = field(default_factory=dict)
    eval_errors: dict[EvalPoint, str | None] = field(default_factory=dict)
    """The error of an eval point whose evaluation raised (its metrics are then absent), else None."""
    status: list[str] = field(default_factory=list)
    diverged_step: list[int | None] = field(default_factory=list)
    wall_time: float = 0.0
    device: str = "cpu"
    compiled: bool = False
    compile_path: str = "eager"
    """How the training steps ran (`iclscale.trainer.compiling.StepRunner.path`): compiled, loaded, eager, or
    "eager: graph break" / "eager: compile failed" where compiling was refused."""
    graphs: int = 0
    """Compiled graphs per training step: 1 when compiled (always whole), 0 when eager."""
    graph_breaks: list[str] = field(default_factory=list)
    """What stopped the step from tracing as one graph (empty when it did, or was never tried)."""
    graphed: bool = False
    """Whether steps were replayed from CUDA graphs (`iclscale.trainer.replay`); False too where a capture failed."""

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

    @classmethod
    def concatenate(cls, parts: Sequence[PackResult]) -> PackResult:
        """The result of a pack trained in parts (same record steps, configs in order)."""
        first = parts[0]
        points = list(dict.fromkeys(point for p in parts for point in p.eval_points))  # parts may refine apart
        sizes = [len(p.configs) for p in parts]
        joined = cls([c for p in parts for c in p.configs], points, list(first.record_steps))
        joined.probes = _join([p.probes for p in parts], sizes)
        joined.evals = {point: _join([p.evals.get(point, {}) for p in parts], sizes) for point in points}
        joined.eval_errors = {
            point: next((p.eval_errors.get(point) for p in parts if p.eval_errors.get(point)), None) for point in points
        }
        joined.status = [s for p in parts for s in p.status]
        joined.diverged_step = [s for p in parts for s in p.diverged_step]
        joined.wall_time = sum(p.wall_time for p in parts)
        joined.device, joined.compiled = first.device, any(p.compiled for p in parts)
        joined.compile_path, joined.graphs = first.compile_path, max(p.graphs for p in parts)
        joined.graph_breaks = list(dict.fromkeys(reason for p in parts for reason in p.graph_breaks))
        joined.graphed = any(p.graphed for p in parts)
        return joined


def _join(tables: Sequence[dict[str, list[np.ndarray]]], sizes: Sequence[int]) -> dict[str, list[np.ndarray]]:
    """Per-part metric records joined along the configs; a metric a part lacks is NaN for its configs."""
    names = dict.fromkeys(name for table in tables for name in table)
    records = max(len(column) for table in tables for column in table.values()) if names else 0
    joined = {}
    for name in names:
        columns = []
        for r in range(records):
            parts = []
            for table, size in zip(tables, sizes, strict=True):
                column = table.get(name)
                parts.append(column[r] if column is not None else np.full(size, np.nan))
            columns.append(np.concatenate(parts))
        joined[name] = columns
    return joined


def resolve_device(name: str = "auto") -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def train_pack(
    info: StudyInfo,
    configs: Sequence[Config],
    eval_points: Sequence[EvalPoint],
    record: RecordSchedule | int = 50,
    device: torch.device | str = "cpu",
    progress: Progress | None = None,
    compile: str = "auto",
    memory_limit: int | None = None,
    refine: Refine | None = None,
    graph_steps: int | None = None,
) -> PackResult:
    """Train configs with equal shape params together as one pack, recording at `record` (every k steps, or a
    schedule). `compile`: "auto" (when it pays), "on" or "off". `memory_limit` (bytes) overrides the
    device's free memory when sizing parts. `refine` measures the trained parts at more eval points.
    `graph_steps`: on CUDA, steps per replayed CUDA graph (`iclscale.trainer.replay`; None: its environment
    variable, default none)."""
    from iclscale.trainer.footprint import check_evaluation, pack_parts

    check_evaluation(info, list(configs), list(eval_points), torch.device(device))
    schedule = record if isinstance(record, RecordSchedule) else RecordSchedule(every=record)
    device = torch.device(device)
    start = time.perf_counter()
    parts = pack_parts(info, list(configs), list(eval_points), device, short_run, memory_limit)
    results = []
    for index, (members, padding) in enumerate(parts):
        trainer = PackTrainer(info, members, list(eval_points), device)
        report = progress if len(parts) == 1 else _part_progress(progress, index, len(parts))
        result = trainer.run(schedule, report, compile, graph_steps, planned=len(configs))
        if refine is not None:
            refine(result, lambda points, trainer=trainer, result=result: trainer.evaluate_final(result, points))
        results.append(_drop_padding(result, padding))
    result = results[0] if len(results) == 1 else PackResult.concatenate(results)
    result.wall_time = time.perf_counter() - start
    return result


def short_run(info: StudyInfo, configs: list[Config], eval_points: list[EvalPoint], device: torch.device) -> None:
    """What the memory sizer (iclscale.trainer.footprint) measures a pack on: set-up, two steps and a record."""
    trainer = PackTrainer(info, configs, eval_points, device)
    with trainer.defaults():
        state = trainer.start_state()
        if trainer.steps:
            runner, fixed = trainer.runner("off"), trainer.step_inputs()
            for t in range(min(2, trainer.steps)):
                state = runner(*state, *fixed, torch.tensor(t))
        result = PackResult(configs, eval_points)
        result.evals, result.eval_errors = {p: {} for p in eval_points}, dict.fromkeys(eval_points)
        trainer.record(result, 0, state[2], None)  # not final: final-only measurements are host-side


def _part_progress(progress: Progress | None, index: int, count: int) -> Progress | None:
    if progress is None:
        return None
    return lambda step, steps, result, **event: progress(index * steps + step, count * steps, result, **event)


def _drop_padding(result: PackResult, padding: int) -> PackResult:
    """Remove the copies that made a last part as large as the others (one compiled shape for all parts)."""
    if not padding:
        return result
    keep = len(result.configs) - padding
    result.configs, result.status, result.diverged_step = (
        result.configs[:keep],
        result.status[:keep],
        result.diverged_step[:keep],
    )
    result.probes = {n: [v[:keep] for v in column] for n, column in result.probes.items()}
    result.evals = {p: {n: [v[:keep] for v in column] for n, column in m.items()} for p, m in result.evals.items()}
    return result


class PackTrainer:
    """One pack on one device: its stacked parameters, buffers, optimizer state and divergence mask."""

    def __init__(self, info: StudyInfo, configs: list[Config], eval_points: list[EvalPoint], device: torch.device):
        self.info, self.study = info, info.load()
        self.pack = Pack.build(info, configs, device)
        self.eval_points = eval_points
        self.steps = int(self.pack.shape["steps"]) if self.study.trainable else 0
        self.params, self.buffers, self.initial, self.opt_state, self.training_set = {}, {}, {}, {}, None
        self.measurer = Measurer(self.study, self.pack, eval_points)
        with self.defaults():
            self.pack.const = self.pack.map(self.study.constants)
            self.module = self.study.module(self.pack.view()) if self.study.trainable else None
            if self.module is not None:
                self._init_tensors()

    # The study's functions for one config ----------------------------------------------------------
    def defaults(self):
        return self.pack.defaults()

    def _init_tensors(self) -> None:
        values = self.pack.map(self.study.init, randomness="same")
        optimizer = self.pack.shape["optimizer"]
        trainable = [name for name, _ in self.module.named_parameters()]
        frozen = [name for name, _ in self.module.named_buffers()]
        missing = [name for name in (*trainable, *frozen) if name not in values]
        if missing:
            raise ValueError(f"study {self.info.name}: init gives no value for {missing}")
        # contiguous: the compiled step is specialised to its inputs' strides, and its outputs are contiguous
        self.params = {name: values[name].contiguous() for name in trainable}
        self.buffers = {name: values[name].contiguous() for name in frozen}
        self.initial = {name: p.clone() for name, p in self.params.items()}
        self.opt_state = {n: torch.zeros_like(p) for n, p in recipe.initial_state(optimizer, self.params).items()}
        if self.pack.shape["optimizer"] == "gd":  # full-batch gradient descent on a set drawn once
            self.training_set = self.pack.map(self.study.training_set)

    # Training and recording ------------------------------------------------------------------------
    def run(
        self,
        schedule: RecordSchedule,
        progress: Progress | None = None,
        compile: str = "auto",
        graph_steps: int | None = None,
        planned: int | None = None,
    ) -> PackResult:
        """Train and record. `planned`: the size of the pack this one is a part of (default its own), what
        "auto" decides on (`iclscale.trainer.compiling.decide`)."""
        start = time.perf_counter()
        result = PackResult(self.pack.configs, self.eval_points, device=str(self.pack.device))
        result.evals = {point: {} for point in self.eval_points}
        result.eval_errors = dict.fromkeys(self.eval_points)
        record_after = schedule.record_steps(self.steps)  # sorted, ends with self.steps
        record_at = set(record_after)
        planned = planned or self.pack.pack_size
        mode = resolve_mode(compile)
        # "auto" draws a trained pack's test sets compiled only where its step compiles: one decision, on numbers
        eager_steps = mode == "auto" and self.steps and not decide(mode, self.steps, planned, self.values_per_config)
        self.measurer.compile = "off" if eager_steps else mode
        self.measurer.planned = planned
        with self.defaults():
            state = self.start_state()
            self.params, self.opt_state, active, diverged_at, loss_sum = state

            def report(step: int, **event) -> None:
                if progress is not None:
                    progress(step, self.steps, result, **event)

            runner = self.runner(mode, planned) if self.steps else None
            fixed = self.step_inputs()
            settling = bool(self.graph_steps(graph_steps))  # graph() settles the step (compiles it) up front
            example = (*state, *fixed, torch.zeros((), dtype=torch.int64))
            # compiled in graph() or in the loop's first step; the first record's test-set draws compile with it
            compiling = runner is not None and runner.compiles(example, settling)
            if compiling:
                report(0, compiling=True)
            self.record(result, 0, active, None)
            if not compiling:
                report(0)
            graph = self.graph(runner, graph_steps) if self.steps else None
            since, t, reported = 0, 0, time.monotonic()
            while t < self.steps:
                next_record = record_after[bisect.bisect_right(record_after, t)]
                state, done = _advance(graph, runner, state, fixed, t, next_record)
                since, t = since + done, t + done
                if compiling:
                    compiling, reported = False, time.monotonic()
                    report(t, compiling=False)
                if t in record_at:
                    self.params, self.opt_state, active, diverged_at, loss_sum = state
                    self.record(result, t, active, loss_sum / since)
                    state = (self.params, self.opt_state, active, diverged_at, torch.zeros_like(loss_sum))
                    since, reported = 0, time.monotonic()
                    report(t)
                elif progress is not None and time.monotonic() - reported >= REPORT_S:
                    reported = time.monotonic()
                    report(t)
            self.params, self.opt_state, active, diverged_at, _ = state
            _note_how_it_ran(result, runner, graph)
        self.active = active
        result.diverged_step = [step or None for step in diverged_at.tolist()]
        result.status = [OK if s is None else DIVERGED for s in result.diverged_step]
        result.wall_time = time.perf_counter() - start
        return result

    def start_state(self) -> tuple:
        """What a step updates: params, optimizer state, the active mask, the step each config diverged at
        (0: not diverged) and the summed training loss since the last record."""
        size = self.pack.pack_size
        active, diverged_at = torch.ones(size, dtype=torch.bool), torch.zeros(size, dtype=torch.int64)
        return self.params, self.opt_state, active, diverged_at, torch.zeros(size)

    def step_inputs(self) -> tuple:
        """What a step reads and never changes."""
        return self.buffers, self.pack.hp, self.pack.rng.base, self.pack.const, self.training_set

    def runner(self, compile: str, planned: int | None = None) -> StepRunner:
        key = (self.info.name, tuple(self.pack.shape.items()), self.pack.device.type)
        if key not in _STEPS:
            _STEPS[key] = make_step(self.info, self.study, self.module, self.pack.shape), self.module
        step, module = _STEPS[key]
        external, size, values = {"module": module}, planned or self.pack.pack_size, self.values_per_config
        return StepRunner(step, self.steps, compile, ("step", *key), external, pack_size=size, values=values)

    @property
    def values_per_config(self) -> int:
        """Trained values (parameter elements) of one config: a shape, so a pure input of "auto"'s decision."""
        return sum(p.numel() for p in self.params.values()) // self.pack.pack_size

    def graph(self, runner: StepRunner, graph_steps: int | None) -> replay.GraphedSteps | None:
        """k steps per replayed CUDA graph (`iclscale.trainer.replay`) when asked for on CUDA; they replay the step
        as `runner` settles it now (compiled unless compile is "off")."""
        steps = self.graph_steps(graph_steps)
        if not steps:
            return None
        state = self.start_state()
        example = (*state, *self.step_inputs(), torch.zeros((), dtype=torch.int64, device=self.pack.device))
        return replay.graphed(runner.settled(example), steps, len(state), self.pack.device)

    def graph_steps(self, graph_steps: int | None) -> int:
        """Steps per replayed CUDA graph for this pack (0: none; graphs are for CUDA only)."""
        return replay.graph_steps(graph_steps) if self.pack.device.type == "cuda" else 0

    def measured_net(self, active: torch.Tensor) -> PackNet | None:
        """The parameters to measure: a diverged config is measured on its initial parameters (its records
        are discarded), so that no study has to cope with non-finite values."""
        if self.module is None:
            return None
        params = {n: torch.where(_per_config(active, p), p, self.initial[n]) for n, p in self.params.items()}
        return PackNet(self.module, {**params, **self.buffers})

    def record(self, result: PackResult, step: int, active: torch.Tensor, train_loss: torch.Tensor | None) -> None:
        """Probes and every eval point on the current parameters (see `iclscale.trainer.measuring`); full-batch GD
        also records `gf_time`, the time of the gradient flow it discretises."""
        flow_time = self.flow_time(step) if self.pack.shape.get("optimizer") == "gd" else None
        self.measurer.record(result, step, step == self.steps, self.measured_net(active), train_loss, flow_time)

    def flow_time(self, step: int) -> torch.Tensor:
        """(pack_size,) gradient-flow time t = Σ_{s<step} η_s of each config (η·step for a constant rate)."""
        hp = self.pack.hp
        return recipe.elapsed_time(self.pack.shape["schedule"], hp["lr"], hp["lr_decay"], step, self.steps)

    def evaluate_final(self, result: PackResult, points: Sequence[EvalPoint]) -> None:
        """Measure the trained pack at more eval points (after `run`): their final record only (NaN before)."""
        net = self.measured_net(self.active)
        with self.defaults(), torch.no_grad():
            for point in points:
                if point in result.evals:
                    continue
                result.eval_points = [*result.eval_points, point]
                result.evals[point], result.eval_errors[point] = {}, None
                try:
                    found = self.measurer.evaluate(net, dict(point), True)
                except Exception as error:  # an eval point that cannot be computed fails alone
                    result.eval_errors[point] = f"{type(error).__name__}: {error}"[:2000]
                    continue
                append(result.evals[point], found, len(result.record_steps) - 1)


_STEPS: dict[tuple, tuple[Callable, torch.nn.Module]] = {}
"""One step function (and the module it closes over) per (study, shape params, device type), so that
`torch.compile` compiles it once per process: packs and parts of packs with the same shapes reuse it."""


def make_step(info: StudyInfo, study: Study, module: torch.nn.Module, shape: Mapping[str, Any]) -> Callable:
    """One training iteration of a whole pack, a pure function of the stacked tensors (what is compiled)."""
    from iclscale.trainer.rng import Stream

    steps, full_batch = int(shape["steps"]), shape["optimizer"] == "gd"
    view_class = info.config

    def one(params, buffers, state, hp, key, const, data, active, t):
        c = config_view(view_class, shape, hp, Stream(key), const)
        batch = data if full_batch else study.batch(c, t)
        grads, loss = grad_and_value(lambda p: study.loss(Net(module, {**p, **buffers}), batch, c))(params)
        finite = torch.isfinite(loss)
        for g in grads.values():
            finite = finite & torch.isfinite(g).all()
        lr = recipe.learning_rate(shape["schedule"], c.lr, c.lr_decay, t, steps)
        new_params, new_state = recipe.update(shape["optimizer"], params, grads, state, lr, t)
        ok = active & finite
        new_params = {n: torch.where(ok, v, params[n]) for n, v in new_params.items()}
        new_state = {n: torch.where(ok, v, state[n]) for n, v in new_state.items()}
        return new_params, new_state, ok, loss

    one_per_config = vmap(one, in_dims=(0, 0, 0, 0, 0, 0, 0 if full_batch else None, 0, None))

    def step(params, opt_state, active, diverged_at, loss_sum, buffers, hp, keys, const, data, t):
        new_params, new_state, ok, loss = one_per_config(params, buffers, opt_state, hp, keys, const, data, active, t)
        diverged_at = torch.where(active & ~ok, t + 1, diverged_at)  # the update of iteration t was non-finite
        return new_params, new_state, ok, diverged_at, loss_sum + torch.where(ok, loss.detach(), 0.0)

    return step


def _advance(graph, runner: StepRunner, state: tuple, fixed: tuple, t: int, next_record: int) -> tuple[tuple, int]:
    """From step t toward the next record: one replayed graph of k steps where k steps fit before the record, else
    one step. The new state and the steps done."""
    # the step count filled in on the device: copied from host memory it would wait for the GPU
    count = torch.full((), t, dtype=torch.int64)
    if graph is not None and next_record - t >= graph.steps:
        state, _ = replay.call_or_fall_back(graph, runner, (*state, *fixed, count))
        return state, graph.steps
    return runner(*state, *fixed, count), 1


def _note_how_it_ran(result: PackResult, runner: StepRunner | None, graph: replay.GraphedSteps | None) -> None:
    """Whether the steps ran compiled (and how: path, graphs, breaks) and whether as replayed CUDA graphs."""
    result.compiled = runner is not None and runner.compiled
    if runner is not None:
        result.compile_path, result.graphs, result.graph_breaks = runner.path, runner.graphs, runner.breaks
    result.graphed = graph is not None and graph.replay is not None and not graph.failed


def _per_config(value: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """A (pack_size,) tensor shaped to broadcast against a (pack_size, ...) tensor."""
    return value.reshape(-1, *([1] * (like.ndim - 1)))

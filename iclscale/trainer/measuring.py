"""Measuring a pack at a record: the study's probes and every eval point, per config under vmap.

An eval point's test set is the same at every record (a pure function of the config's seed and the
point), so a study that separates drawing it (`Study.test_data`) from measuring on it (`evaluate(...,
data=...)`) has it drawn once and kept while it fits in `TEST_DATA_SHARE` of the free memory; otherwise
it is drawn again at each record. An eval point whose evaluation raises fails alone: its error is kept
in `PackResult.eval_errors` and its metrics are absent; probes, training and the other points go on.

Drawing a large pack's test set is compiled on the CPU like the training step (`iclscale.trainer.compiling`), in
chunks of `DRAW_CHUNK` configs: fused, the counter hash and the transforms after it ran 4.5× faster than
eagerly (seed 004's 256 test tasks for 4096 configs: 0.7 s against 3.1 s of CPU). "auto" compiles a pack of
at least `DRAW_CHUNK` configs (as planned); the trainer sets "off" for a pack whose step "auto" leaves eager
(`iclscale.trainer.compiling.decide`). No clock and no cache decides: the compiled and eager draws agree
within float tolerance only, and a config's bits must not depend on the machine's load.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
from torch.func import vmap
from torch.utils._pytree import tree_leaves, tree_map

from iclscale.trainer import compiling
from iclscale.trainer.params import EvalPoint
from iclscale.trainer.rng import Stream
from iclscale.trainer.study import Net, Pack, PackNet, Study, config_view

TEST_DATA_SHARE = 0.25
DRAW_CHUNK = 256
"""Configs per call of a compiled test-set draw: the compiled function is specialised to it, so a size
independent of the pack size keeps one saved draw per study, shape params and eval point."""


class Measurer:
    def __init__(self, study: Study, pack: Pack, eval_points: list[EvalPoint], compile: str = "off"):
        self.study, self.pack, self.eval_points = study, pack, eval_points
        self.compile = compiling.resolve_mode(compile)
        self.planned = pack.pack_size  # the size of the pack this one is a part of: what "auto" decides on
        self.draws_test_data = type(study).test_data is not Study.test_data
        self.test_data: dict[tuple, Any] = {}

    def record(
        self,
        result,
        step: int,
        final: bool,
        net: PackNet | None,
        train_loss: torch.Tensor | None,
        flow_time: torch.Tensor | None = None,
    ) -> None:
        with torch.no_grad():
            metrics = self.vmapped(lambda n, c: self.study.probes(n, c, final), net)
            if train_loss is not None:
                metrics["train_loss"] = train_loss
            if flow_time is not None:
                metrics["gf_time"] = flow_time
            measured = [(result.probes, metrics)]
            for point in self.eval_points:
                if result.eval_errors[point] is not None:
                    continue
                try:
                    found = self.evaluate(net, dict(point), final)
                except Exception as error:  # an eval point that cannot be computed fails alone
                    result.eval_errors[point] = f"{type(error).__name__}: {error}"[:2000]
                    result.evals[point] = {}
                    continue
                measured.append((result.evals[point], found))
            for (store, _), values in zip(measured, to_host([found for _, found in measured]), strict=True):
                append(store, values, len(result.record_steps))
        result.record_steps.append(step)

    def evaluate(self, net: PackNet | None, point: Mapping[str, Any], final: bool) -> dict[str, torch.Tensor]:
        found = self.study.pack_evaluate(self.pack, net, point, final)
        if found is not None:
            return found
        if not self.draws_test_data:
            return self.vmapped(lambda n, c: self.study.evaluate(n, c, point, final), net)
        data = self.data_for(point)
        return self.vmapped(lambda n, c, d: self.study.evaluate(n, c, point, final, data=d), net, data)

    def data_for(self, point: Mapping[str, Any]) -> Any:
        """The pack's test set of an eval point: kept from an earlier record, or drawn (and kept if it fits)."""
        names = self.study.test_data_params or tuple(point)
        key = tuple((name, point[name]) for name in names)
        if key in self.test_data:
            return self.test_data[key]
        data = self.draw(point)
        from iclscale.trainer.footprint import free_memory

        held = sum(_bytes(d) for d in self.test_data.values())
        if held + _bytes(data) <= TEST_DATA_SHARE * free_memory(self.pack.device):
            self.test_data[key] = data
        return data

    def draw(self, point: Mapping[str, Any]) -> Any:
        """The pack's test set of an eval point: compiled in chunks when that pays (module docstring), else eager."""
        eager = lambda c: self.study.test_data(c, point)  # noqa: E731
        pack, size = self.pack, min(DRAW_CHUNK, self.pack.pack_size)
        if self.compile == "off" or pack.device.type != "cpu" or (self.compile == "auto" and self.planned < DRAW_CHUNK):
            return pack.map(eager)
        info = pack.info
        fn = draw_function(self.study, info.config, pack.shape, dict(point))
        key = ("test_data", info.name, tuple(pack.shape.items()), tuple(sorted(dict(point).items())), "cpu")
        example = chunk_inputs(pack, 0, size)
        try:
            compiled = compiling.compile_function(fn, example, key)
            return map_in_chunks(compiled, pack, size)
        except Exception as error:  # an op the compiler cannot take, a graph break: eager still works
            compiling.failed("the test-set draw", "drawing eagerly", error)
            return pack.map(eager)

    def vmapped(self, measure: Callable, net: PackNet | None, *extra: Any) -> dict[str, torch.Tensor]:
        """A per-config measurement `measure(net, c, *extra)` over the whole pack."""
        module = net.module if net is not None else None

        def one(params, hp, key, const, *extra):
            return measure(
                Net(module, params) if module is not None else None, self.pack.view_of(hp, key, const), *extra
            )

        params = net.params if net is not None else {}
        return vmap(one, chunk_size=self.pack.chunk)(params, self.pack.hp, self.pack.rng.base, self.pack.const, *extra)


def _bytes(tree: Any) -> int:
    return sum(leaf.numel() * leaf.element_size() for leaf in tree_leaves(tree) if isinstance(leaf, torch.Tensor))


def to_host(tables: list[Mapping[str, torch.Tensor]]) -> list[dict[str, np.ndarray]]:
    """Every metric of a record as float64 host arrays, in one device-to-host copy per device: on CUDA a copy
    per metric waited for the device each time. (float64 is exact for every float32 value: the bits do not
    depend on where they are converted.)"""
    values = [value.detach() for table in tables for value in table.values() if isinstance(value, torch.Tensor)]
    flat: dict[torch.device, np.ndarray] = {}
    for device in dict.fromkeys(value.device for value in values):
        on_device = [value.reshape(-1).to(torch.float64) for value in values if value.device == device]
        flat[device] = torch.cat(on_device).to("cpu").numpy()
    offsets = dict.fromkeys(flat, 0)
    host = []
    for table in tables:
        host.append({})
        for name, value in table.items():
            if not isinstance(value, torch.Tensor):  # measured on the host already
                host[-1][name] = np.asarray(value, dtype=np.float64)
                continue
            start, offsets[value.device] = offsets[value.device], offsets[value.device] + value.numel()
            host[-1][name] = flat[value.device][start : offsets[value.device]].reshape(value.shape)
    return host


def append(store: dict[str, list[np.ndarray]], metrics: Mapping[str, torch.Tensor | np.ndarray], n_before: int) -> None:
    """Add one record; a metric missing from some records (e.g. measured only at the end) is NaN there."""
    size = None
    for name, value in metrics.items():
        values = value if isinstance(value, np.ndarray) else value.detach().to("cpu", torch.float64).numpy()
        size = len(values)
        store.setdefault(name, [np.full(size, np.nan)] * n_before).append(values)
    for column in store.values():
        if len(column) == n_before:
            column.append(np.full(len(column[0]) if column else size, np.nan))


def draw_function(study: Study, view_class: type, shape: Mapping[str, Any], point: Mapping[str, Any]) -> Callable:
    """The test set of one eval point for a chunk of configs (their params, stream keys and constants): what is
    compiled. It closes over nothing but the study, the config view class and plain values, so it can be saved."""

    def one(hp, key, const):
        return study.test_data(config_view(view_class, shape, hp, Stream(key), const), point)

    return lambda hp, keys, const: vmap(one)(hp, keys, const)


def chunk_inputs(pack: Pack, start: int, size: int) -> tuple:
    """Params, stream keys and constants of configs start, start + 1, …, padded with the first config."""
    index = torch.arange(start, start + size, device=pack.device)
    index = torch.where(index < pack.pack_size, index, 0)
    return (
        {name: value[index] for name, value in pack.hp.items()},
        pack.rng.base[index],
        {name: value[index] for name, value in pack.const.items()},
    )


def map_in_chunks(fn: Callable, pack: Pack, size: int) -> Any:
    """`fn` of `chunk_inputs` over the whole pack, written into one (pack_size, ...) result (not copied in pieces)."""
    out = None
    for start in range(0, pack.pack_size, size):
        found = fn(*chunk_inputs(pack, start, size))
        if out is None:
            out = tree_map(lambda x: x.new_empty((pack.pack_size, *x.shape[1:])), found)
        count = min(size, pack.pack_size - start)
        for whole, part in zip(tree_leaves(out), tree_leaves(found), strict=True):
            whole[start : start + count] = part[:count]
    return out

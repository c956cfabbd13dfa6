"""What a study implements: plain functions of ONE config, which the trainer vectorises over a pack.

A study is written the way the paper is: for a single model. Each function takes `c`, one config as
the study sees it (`config_view`), an instance of the study's config class (iclscale.trainer.configclass):

- every param as an attribute: shape params as Python values (`c.d`, `c.task_class`), train params as
  0-d tensors (`c.L`, `c.sigma`: under `vmap` each config has its own);
- `c.rng`, the config's random stream (`iclscale.trainer.rng.Stream`): draws are pure functions of
  (seed, purpose, step, index);
- `c.const`, the config's constants: tensors drawn once for the whole trial (a subspace B, a task set).

and the trainer runs `vmap` over a pack of configs (`torch.func`), so no study code ever sees the pack dimension:

    module(c)             the model, an nn.Module whose forward reads like the paper's equations
    constants(c)          per-config draws fixed for the trial (default: none)
    init(c)               initial values of the module's parameters and buffers (frozen tensors), by name
    batch(c, step)        the training batch of iteration `step` (optimizer sgd / adam)
    training_set(c)       the fixed training set of full-batch gradient descent (optimizer gd)
    loss(net, batch, c)   the scalar training loss; `net(*inputs)` runs the model, `net.params` holds its tensors
    probes(net, c, final) metrics of the parameters alone: name -> 0-d tensor
    evaluate(net, c, point, final)  metrics at one eval point (every eval-role param): name -> 0-d tensor
    test_data(c, point)   optional: the eval point's test set, drawn once and passed to evaluate as `data`

Tensors created inside these functions (`torch.eye(c.d)`) land on the pack's device in the recipe's
float type: the trainer sets both as defaults while it runs them.

Where vectorising is impossible or wasteful, a study may measure at pack level instead:
`pack_evaluate(pack, net, point, final)` returns (pack_size,) metrics for a point, or None to use `evaluate`.

The pack size, `Pack.pack_size`, is the number of configs trained together; shapes at pack level lead with
it, written (pack_size, ...). The name is the framework's own: papers keep their symbols.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.func import functional_call, vmap

from iclscale.trainer.params import Config
from iclscale.trainer.registry import StudyInfo
from iclscale.trainer.rng import Stream

Batch = Any
"""Whatever `batch` returns and `loss` takes: a tensor, or a tuple or dict of tensors."""

DTYPES = {"float32": torch.float32, "float64": torch.float64}

MAP_CHUNK = 64
"""Configs per vmap call outside the training step (set-up, probes, evaluation) on the CPU: eager code over a
whole pack streams every intermediate through memory; in chunks they stay in cache (a test set for a pack of
4096 was drawn 5× faster in chunks of 64). On CUDA each chunk is another round of kernel launches and host
syncs (a record of 8192 configs: 2,953 kernel-like ops in chunks of 64), so there the whole pack is one
chunk: its memory is sized by the pack's parts (`iclscale.trainer.footprint` measures set-up and a record at
packs of 1024 and 2048, so the record's per-config bytes are in its model)."""


def map_chunk(device: torch.device) -> int | None:
    """Configs per vmap call outside the training step (`MAP_CHUNK`); None: the whole pack at once."""
    return MAP_CHUNK if device.type == "cpu" else None


class Net:
    """A module bound to one config's tensors: `net(*inputs)` is the forward with `net.params`."""

    def __init__(self, module: nn.Module, params: Mapping[str, torch.Tensor]):
        self.module = module
        self.params = params

    def __call__(self, *inputs: Any) -> Any:
        return functional_call(self.module, dict(self.params), inputs)


class PackNet(Net):
    """The same for stacked (pack_size, ...) tensors and inputs, at pack level."""

    def __call__(self, *inputs: Any) -> Any:
        return vmap(lambda params, *x: functional_call(self.module, params, x))(dict(self.params), *inputs)


def config_view(view_class: type, shape: Mapping[str, Any], train: Mapping[str, torch.Tensor], rng: Stream, const):
    """One config as its study sees it (`view_class`: the study's `info.config`, looked up outside compiled code)."""
    return view_class(**shape, **train, rng=rng, const=dict(const))


@dataclass
class Pack:
    """Configs with equal shape params, stacked: what pack-level code (the trainer, `pack_evaluate`) sees."""

    info: StudyInfo
    configs: list[Config]
    shape: dict[str, Any]
    hp: dict[str, torch.Tensor]
    """Train params as (pack_size,) tensors."""
    rng: Stream
    device: torch.device
    dtype: torch.dtype = torch.float32
    const: dict[str, torch.Tensor] = field(default_factory=dict)
    """Per-config constants, stacked (pack_size, ...)."""

    @classmethod
    def build(cls, info: StudyInfo, configs: list[Config], device: torch.device | str = "cpu") -> Pack:
        if not configs:
            raise ValueError("a pack needs at least one config")
        device = torch.device(device)
        shape_names = info.names("shape")
        shape = {name: configs[0][name] for name in shape_names}
        for config in configs[1:]:
            if config.shape_key(shape_names) != tuple(shape.values()):
                raise ValueError("configs in one pack must have equal shape params")
        dtype = DTYPES[shape.get("dtype", "float32")]
        hp = {}
        for p in info.params:
            if p.role == "train":
                kind = {float: dtype, int: torch.int64, bool: torch.bool}[p.type]
                hp[p.name] = torch.tensor([c[p.name] for c in configs], dtype=kind, device=device)
        rng = Stream.from_seeds([c.seed for c in configs], device)
        return cls(info, list(configs), shape, hp, rng, device, dtype)

    @property
    def pack_size(self) -> int:
        """The number of configs trained together."""
        return len(self.configs)

    def view(self) -> Any:
        """The stacked configs as one view (attributes are (pack_size,) tensors): for pack-level code only."""
        return self.view_of(self.hp, self.rng.base, self.const)

    def view_of(self, hp: Mapping[str, torch.Tensor], key: torch.Tensor, const: Mapping[str, torch.Tensor]) -> Any:
        """One config as its study sees it, from its slices of `hp`, the stream keys and `const` (under vmap)."""
        return config_view(self.info.config, self.shape, hp, Stream(key), const)

    def map(self, fn: Callable[[Any], Any], randomness: str = "error") -> Any:
        """`fn(c)` of every config, stacked: a function written for one config, vmapped over the pack in
        chunks of `map_chunk` configs. torch's own random generator is an error inside (every draw must come
        from `c.rng`), except with randomness="same", for initialisation: module constructors draw initial
        weights that are thrown away."""
        one = lambda hp, key, const: fn(self.view_of(hp, key, const))  # noqa: E731
        with self.defaults():
            return vmap(one, randomness=randomness, chunk_size=self.chunk)(self.hp, self.rng.base, self.const)

    @property
    def chunk(self) -> int | None:
        """Configs per vmap call outside the training step on this pack's device (`map_chunk`)."""
        return map_chunk(self.device)

    @contextlib.contextmanager
    def defaults(self) -> Iterator[None]:
        """Tensors a study creates land on the pack's device, in the recipe's float type. (The device is a
        torch function mode, which costs Python work on every op: not entered for the CPU, the default.)"""
        previous = torch.get_default_dtype()
        torch.set_default_dtype(self.dtype)
        try:
            with torch.device(self.device) if self.device.type != "cpu" else contextlib.nullcontext():
                yield
        finally:
            torch.set_default_dtype(previous)

    def subset(self, index: torch.Tensor | slice) -> Pack:
        """Some of the configs, with their params, streams and constants (the same values as in the full pack)."""
        configs = self.configs[index] if isinstance(index, slice) else [self.configs[i] for i in index.tolist()]
        hp = {name: value[index] for name, value in self.hp.items()}
        const = {name: value[index] for name, value in self.const.items()}
        return Pack(self.info, configs, self.shape, hp, self.rng[index], self.device, self.dtype, const)


class Study:
    """One paper's setting. Subclasses are registered by a `StudyInfo` in their package's declaration module.
    See the module docstring for the per-config functions."""

    trainable: bool = True
    """A measurement-only study (an oracle) sets False: it has `probes` and `evaluate` only."""

    def __init__(self, info: StudyInfo):
        self.info = info

    def module(self, c: Any) -> nn.Module:
        raise NotImplementedError

    def constants(self, c: Any) -> dict[str, torch.Tensor]:
        return {}

    def init(self, c: Any) -> dict[str, torch.Tensor]:
        raise NotImplementedError

    def batch(self, c: Any, step: torch.Tensor) -> Batch:
        raise NotImplementedError

    def training_set(self, c: Any) -> Batch:
        raise NotImplementedError(f"study {self.info.name} has no fixed training set for full-batch gradient descent")

    def loss(self, net: Net, batch: Batch, c: Any) -> torch.Tensor:
        raise NotImplementedError

    def probes(self, net: Net | None, c: Any, final: bool) -> dict[str, torch.Tensor]:
        return {}

    def evaluate(
        self, net: Net | None, c: Any, point: Mapping[str, Any], final: bool, data: Any = None
    ) -> dict[str, torch.Tensor]:
        """Metrics at one eval point; `data` is `test_data(c, point)` when the study defines it."""
        return {}

    test_data_params: tuple[str, ...] | None = None
    """The eval params that decide `test_data` (None: all of them), so that points differing only in how
    they measure (a pruning ratio, say) share one test set."""

    def test_data(self, c: Any, point: Mapping[str, Any]) -> Any:
        """The test set of an eval point, drawn once per pack and reused at every record while it fits in
        memory (the trainer passes it to `evaluate` as `data`). A study that does not define it draws its
        test data inside `evaluate`, at every record."""
        raise NotImplementedError

    def pack_evaluate(
        self, pack: Pack, net: PackNet | None, point: Mapping[str, Any], final: bool
    ) -> dict[str, torch.Tensor] | None:
        """(pack_size,) metrics at one eval point measured at pack level, or None to vmap `evaluate` (the default)."""
        return None

"""What a study implements, and the pack it is handed.

A study writes its model once, for a single config, as a plain `nn.Module` whose forward reads
like the paper's equations. The trainer stacks K configs' parameters and vectorises that module
with `torch.func` (`functional_call` under `vmap`). Samplers draw for the whole pack at once from
per-config streams (`iclscale.rng.Streams`), with per-config hyperparameters as (K,) tensors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.func import functional_call, vmap

from iclscale.params import Config
from iclscale.registry import StudyInfo
from iclscale.rng import Streams

Batch = tuple[torch.Tensor, ...]
"""Tensors with a leading pack dimension K; under vmap each config sees its own slice."""


@dataclass
class Pack:
    """K configs with equal shape params, as the study sees them while training."""

    info: StudyInfo
    configs: list[Config]
    shape: dict[str, Any]
    hp: dict[str, torch.Tensor]
    rng: Streams
    device: torch.device
    dtype: torch.dtype = torch.float32
    constants: dict[str, torch.Tensor] = field(default_factory=dict)
    """Per-config draws fixed for a whole trial (e.g. a subspace B), from `Study.constants`."""
    step: int = 0
    """The step being recorded, set by the trainer before `probes` and `evaluate`."""
    final: bool = False
    """True at the last record: measurements too costly to repeat (baselines, pruning) may run only then."""

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
        hp = {}
        for p in info.params:
            if p.role == "train":
                dtype = torch.float32 if p.type is float else torch.int64
                hp[p.name] = torch.tensor([c[p.name] for c in configs], dtype=dtype, device=device)
        seeds = torch.tensor([c.seed for c in configs], dtype=torch.int64, device=device)
        return cls(info, list(configs), shape, hp, Streams(seeds, device), device)

    @property
    def K(self) -> int:
        return len(self.configs)


class PackedModel:
    """A single-config module applied to K stacked parameter sets at once."""

    def __init__(self, module: nn.Module, params: dict[str, torch.Tensor]):
        self.module = module
        self.params = params
        self._forward = vmap(self._forward_one)

    def _forward_one(self, params: dict[str, torch.Tensor], *inputs: torch.Tensor) -> Any:
        return functional_call(self.module, params, inputs)

    def __call__(self, *inputs: torch.Tensor) -> Any:
        """Inputs and outputs carry the leading pack dimension K."""
        return self._forward(self.params, *inputs)


Predict = Callable[..., torch.Tensor]


class Study:
    """One paper's setting: sampler, model, loss and measurements. Subclasses are registered by
    a `StudyInfo` in their package's declaration module."""

    def __init__(self, info: StudyInfo):
        self.info = info

    def constants(self, pack: Pack) -> dict[str, torch.Tensor]:
        """Per-config random draws fixed for the whole trial; the trainer stores them in `pack.constants`."""
        return {}

    # Training (a measurement-only study, such as an oracle, sets trainable = False) -----------
    trainable: bool = True

    def module(self, pack: Pack) -> nn.Module:
        """The single-config model. Its parameters are replaced by each config's own."""
        raise NotImplementedError

    def init_params(self, pack: Pack) -> dict[str, torch.Tensor]:
        """Initial trainable parameters, stacked: name -> (K, ...), names as in `module`."""
        raise NotImplementedError

    def sample_batch(self, pack: Pack, step: int) -> Batch:
        """The training batch of iteration `step` for every config: a pure function of (seed, step)."""
        raise NotImplementedError

    def loss(self, predict: Predict, batch: Batch, hp: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """One config's scalar training loss; `batch` and `hp` are that config's slices."""
        raise NotImplementedError

    # Measurements -----------------------------------------------------------------------------
    def probes(self, pack: Pack, model: PackedModel | None) -> dict[str, torch.Tensor]:
        """Metrics of the current parameters that need no eval params: name -> (K,)."""
        return {}

    def evaluate(self, pack: Pack, model: PackedModel | None, point: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        """Metrics at one eval point (an assignment of every eval-role param): name -> (K,)."""
        return {}

"""The study `scalar_sgd`, written for one config (iclscale.trainer.study: the trainer vmaps it over a pack).

The claim is about the expected excess risk E(w − a)², so a config trains `chains` independent copies of w
side by side, each on its own examples, and reports their mean (one chain's (w − a)² scatters like a χ²
with one degree of freedom).
"""

from __future__ import annotations

import torch
from torch import nn

from iclscale.trainer import configclass
from iclscale.trainer.study import Study
from scalar_sgd.declaration import SCALAR_SGD

# `c` below: one config, a class made from the declared params; loading the study checks every `c.<name>` read
ScalarSGDConfig = configclass.of(SCALAR_SGD)


class Lines(nn.Module):
    """ŷ_r = w_r·x for each chain r."""

    def __init__(self, chains: int):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(chains))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w[:, None] * x  # x: (chains, B)


class ScalarSGD(Study):
    def module(self, c: ScalarSGDConfig) -> nn.Module:
        return Lines(c.chains)

    def init(self, c: ScalarSGDConfig) -> dict[str, torch.Tensor]:
        return {"w": torch.zeros(c.chains)}  # w = 0: the initial error is −a

    def batch(self, c: ScalarSGDConfig, step):
        """B fresh examples per chain: x ~ N(0, 1), y = a·x + σ·ε (draws are a pure function of seed and step)."""
        x = c.rng.normal("x", step, (c.chains, c.batch))
        noise = c.rng.normal("noise", step, (c.chains, c.batch))
        return x, c.a * x + c.sigma * noise

    def loss(self, net, batch, c: ScalarSGDConfig) -> torch.Tensor:
        """½ mean (w·x − y)² per chain, summed over chains (so that each chain takes its own SGD step)."""
        x, y = batch
        return 0.5 * ((net(x) - y) ** 2).mean(dim=-1).sum()

    def probes(self, net, c: ScalarSGDConfig, final: bool) -> dict[str, torch.Tensor]:
        w = net.params["w"]
        return {"excess_risk": ((w - c.a) ** 2).mean(), "w": w.mean()}

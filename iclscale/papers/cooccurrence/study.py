"""Study `cooccurrence`: [Y24]'s one-layer transformer trained by full-batch gradient descent on a fixed set.

App. A: n = 60 sequences of Def. 2.1 (30/10/10/10 of the four types), L = 5, d = 64, m = 128, m1 = 256,
"Kaiming initialization", gradient descent with learning rate 0.01 for 30000 epochs on the logistic loss
(Eq. 2). Gradient descent with step η is the Euler scheme of the gradient flow the theory analyses; the
trainer records its time t = η·step as `gf_time`. Recorded at every record: everything of `probes`, and on a
fresh test set from D (Def. 2.1 with iid random tokens) the loss and error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from iclscale.papers.cooccurrence.data import FIRST_RANDOM, random_sample, sample_sequences
from iclscale.papers.cooccurrence.declaration import COOCCURRENCE
from iclscale.papers.cooccurrence.model import CooccurrenceTransformer, initial_weights, signs
from iclscale.papers.cooccurrence.probes import (
    balancing,
    conserved_drift,
    drifts,
    logistic_loss,
    losses,
    margins,
    mlp_values,
    norm_identity,
    rates,
    scores_and_values,
    softmax_weights,
)
from iclscale.trainer import configclass
from iclscale.trainer.study import Batch, Net, Study

# the `c` its functions take: made from the declared params (iclscale.trainer.configclass)
CooccurrenceConfig = configclass.of(COOCCURRENCE)

RANDOM_SAMPLE = 61  # random tokens whose score and Gram drifts are tracked (with μ1, μ2, μ3: 64); not from the paper


class Cooccurrence(Study):
    def constants(self, c: CooccurrenceConfig) -> dict[str, torch.Tensor]:
        """The fixed training set (App. A), which random tokens occur in it, and a sample of those."""
        train = sample_sequences(c.rng, "train", c.n, c.L, c.d, distinct=c.tokens == "distinct")
        seen = torch.zeros(c.d).index_add(0, train.tokens.reshape(-1), torch.ones(train.tokens.numel())) > 0
        random_seen = seen & (torch.arange(c.d) >= FIRST_RANDOM)
        return {
            "tokens": train.tokens,
            "y": train.y,
            "random_seen": random_seen,
            "random_sample": random_sample(random_seen, RANDOM_SAMPLE),
        }

    def module(self, c: CooccurrenceConfig) -> nn.Module:
        return CooccurrenceTransformer(c.d, c.m, c.m1, trainable_readout=c.readout == "trainable")

    def init(self, c: CooccurrenceConfig) -> dict[str, torch.Tensor]:
        weights = initial_weights(c.rng, c.init, c.d, c.L, c.m, c.m1, c.c0, c.c1)
        if c.readout == "pm1_fixed":
            weights["a"] = signs(c.rng, c.m1)  # a_j ~ U{±1} whatever the preset ([Y24] §2.2)
        return weights

    def training_set(self, c: CooccurrenceConfig) -> Batch:
        return c.const["tokens"], c.const["y"]

    def loss(self, net: Net, batch: Batch, c: CooccurrenceConfig) -> torch.Tensor:
        tokens, y = batch
        return logistic_loss(margins(net, tokens, y)).mean()  # L̂ = (1/n) Σ ℓ(y_iF_i) ([Y24] Eq. 2)

    def trainable(self, c: CooccurrenceConfig) -> tuple[str, ...]:
        return ("W_Q", "W_K", "W_V", "W", "a") if c.readout == "trainable" else ("W_Q", "W_K", "W_V", "W")

    def probes(self, net: Net, c: CooccurrenceConfig, final: bool) -> dict[str, torch.Tensor]:
        tokens, y, seen = c.const["tokens"], c.const["y"], c.const["random_seen"]
        margin = margins(net, tokens, y)
        initial = self.init(c)  # a pure function of the config: the weights at t = 0
        return {
            **losses(margin),
            **mlp_values(net.params, seen),
            **scores_and_values(net.params),
            **softmax_weights(net.params, initial, tokens),
            **drifts(net.params, initial, c.const["random_sample"]),
            **conserved_drift(net.params, initial),
            **balancing(margin),
            **rates(net, self.trainable(c), tokens, y, seen),
            "u_norm2_rate_identity": norm_identity(net.params, margin),
        }

    def test_data(self, c: CooccurrenceConfig, point: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        """n_test fresh sequences from D (Def. 2.1, random tokens iid), drawn once: the same at every record."""
        test = sample_sequences(c.rng, "test", point["n_test"], c.L, c.d, distinct=False)
        return test.tokens, test.y

    def evaluate(
        self, net: Net, c: CooccurrenceConfig, point: Mapping[str, Any], final: bool, data=None
    ) -> dict[str, torch.Tensor]:
        """Loss and error on the test set (the paper reports none; C20's generalisation)."""
        tokens, y = data
        margin = margins(net, tokens, y)
        error = (margin < 0).to(margin.dtype) + 0.5 * (margin == 0).to(margin.dtype)  # a tie counts half
        return {"test_loss": logistic_loss(margin).mean(), "test_error": error.mean()}

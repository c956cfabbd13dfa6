"""Study `softmax_window`: pretraining the attention unit as in Collins et al. 2024 [C24] App J.

Each iteration draws `tasks_per_iter` fresh tasks (the paper: one), each a prompt of n labelled
points and N queries; the loss is the squared error against the noise-free targets, averaged
over queries and tasks. Recorded: ‖M‖₂ and the shape of M, the subspace error ρ(M, B) for the
low-rank classes, and the test MSE at every eval point (another L' or task class: Thm 3.5, Fig 5).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from iclscale.papers.softmax_window.data import Prompts, covariate_transform, sample_prompts, subspace
from iclscale.papers.softmax_window.declaration import LOW_RANK_CLASSES, SOFTMAX_WINDOW
from iclscale.papers.softmax_window.model import LinearAttention, SoftmaxAttention, attention_matrix
from iclscale.trainer import configclass
from iclscale.trainer.study import Batch, Net, Study

# the `c` its functions take: made from the declared params (iclscale.trainer.configclass)
SoftmaxWindowConfig = configclass.of(SOFTMAX_WINDOW)

TEST_ELEMENTS_PER_CONFIG = 2**14  # one test chunk holds about this many floats per config


def query_count(c: SoftmaxWindowConfig) -> int:
    """N = ⌊√n⌋ unless `queries` sets it ([C24] App J)."""
    return c.queries or math.isqrt(c.n)


class SoftmaxWindow(Study):
    def constants(self, c: SoftmaxWindowConfig) -> dict[str, torch.Tensor]:
        drawn = {}
        if c.task_class in LOW_RANK_CLASSES:  # drawn only where training reads it: a QR per config at set-up
            drawn["B"], drawn["B_perp"] = subspace(c.rng, c.d, c.k)
        if c.covariates == "lowrank_gaussian":
            drawn["covariate_transform"] = covariate_transform(c.rng, c.d)
        return drawn

    def module(self, c: SoftmaxWindowConfig) -> nn.Module:
        if c.attention == "softmax":
            return SoftmaxAttention(c.d, c.tied)
        return LinearAttention(c.d, c.tied, divide_by_n=c.linear_norm == "n")

    def init(self, c: SoftmaxWindowConfig) -> dict[str, torch.Tensor]:
        init = c.init_scale * torch.eye(c.d)  # M_K = M_Q = c·I ([C24] App J: c = 0.001)
        return {"M_K": init} if c.tied else {"M_K": init, "M_Q": init.clone()}

    def prompts(
        self,
        c: SoftmaxWindowConfig,
        purpose: str,
        step,
        tasks: int,
        task_class: str,
        L: torch.Tensor,
        constants: Mapping[str, torch.Tensor] | None = None,
    ) -> Prompts:
        return sample_prompts(
            c.rng,
            purpose,
            step,
            tasks=tasks,
            n=c.n,
            queries=query_count(c),
            d=c.d,
            covariates=c.covariates,
            task_class=task_class,
            L=L,
            sigma=c.sigma,
            nu=c.nu,
            constants=c.const if constants is None else constants,
            hills_mode=c.hills_mode,
        )

    def batch(self, c: SoftmaxWindowConfig, step) -> Batch:
        p = self.prompts(c, "train", step, c.tasks_per_iter, c.task_class, c.L)
        return p.x_context, p.y_context, p.x_query, p.f_query

    def training_set(self, c: SoftmaxWindowConfig) -> Batch:
        """A fixed set of `train_set_tasks` prompts, for full-batch gradient descent (optimizer gd)."""
        p = self.prompts(c, "train_set", 0, c.train_set_tasks, c.task_class, c.L)
        return p.x_context, p.y_context, p.x_query, p.f_query

    def loss(self, net: Net, batch: Batch, c: SoftmaxWindowConfig) -> torch.Tensor:
        x_context, y_context, x_query, f_query = batch
        # (1/N) Σ_q (h(x_q) − f(x_q))², averaged over the iteration's tasks ([C24] eq. ICL, App J)
        return ((net(x_context, y_context, x_query) - f_query) ** 2).mean()

    def probes(self, net: Net, c: SoftmaxWindowConfig, final: bool) -> dict[str, torch.Tensor]:
        M_K = net.params["M_K"]
        M = attention_matrix(M_K, net.params.get("M_Q", M_K))
        singular = torch.linalg.svdvals(M)
        isotropic_part = torch.diagonal(M).mean() * torch.eye(c.d)
        metrics = {
            "M_spectral_norm": singular[0],  # ‖M‖₂, the inverse window scale (Figs 3, 4)
            "M_isotropy_ratio": singular[0] / singular[-1],  # σ_max/σ_min: 1 for M* ∝ I (Lemma B.5)
            "M_anisotropy": torch.linalg.matrix_norm(M - isotropic_part) / torch.linalg.matrix_norm(M),
        }
        if c.task_class in LOW_RANK_CLASSES:
            metrics.update(subspace_errors(M, c.const["B"], c.const["B_perp"]))
        return metrics

    def test_data(self, c: SoftmaxWindowConfig, point: Mapping[str, Any]) -> list[Batch]:
        """A fixed set of `test_tasks` fresh tasks (another L' or task class at an eval point), in chunks whose
        size never depends on the pack size: the test set must not."""
        task_class = point["test_class"] or c.task_class
        L = c.L if point["L_test"] is None else torch.full_like(c.L, point["L_test"])
        constants = c.const
        if task_class in LOW_RANK_CLASSES and "B" not in constants:  # trained on another class: B drawn now
            constants = {**constants, "B": subspace(c.rng, c.d, c.k)[0]}  # the same B set-up would have drawn
        chunk = max(1, TEST_ELEMENTS_PER_CONFIG // ((c.n + query_count(c)) * c.d))
        chunks = []
        for index, start in enumerate(range(0, point["test_tasks"], chunk)):
            p = self.prompts(c, "test", index, min(chunk, point["test_tasks"] - start), task_class, L, constants)
            chunks.append((p.x_context, p.y_context, p.x_query, p.f_query))
        return chunks

    def evaluate(
        self, net: Net, c: SoftmaxWindowConfig, point: Mapping[str, Any], final: bool, data: list[Batch]
    ) -> dict[str, torch.Tensor]:
        """Test MSE against the noise-free targets."""
        total = torch.zeros((), dtype=torch.float64)
        for x_context, y_context, x_query, f_query in data:
            error = (net(x_context, y_context, x_query) - f_query) ** 2
            total = total + error.double().mean(dim=-1).sum()
        return {"test_mse": (total / point["test_tasks"]).to(c.L.dtype)}


def subspace_errors(M: torch.Tensor, B: torch.Tensor, B_perp: torch.Tensor) -> dict[str, torch.Tensor]:
    """ρ(M, B) of [C24] App J.1 in the three readings of the garbled formula (ours)."""
    sigma_min = torch.linalg.svdvals(B.transpose(-1, -2) @ M @ B)[-1]
    spurious = B_perp.transpose(-1, -2) @ M @ B_perp
    return {
        "rho_MB": torch.linalg.matrix_norm(spurious, ord=2) / sigma_min,  # ‖B_⊥ᵀMB_⊥‖₂ / σ_min(BᵀMB)
        "rho_MB_rows": torch.linalg.matrix_norm(B_perp.transpose(-1, -2) @ M, ord=2) / sigma_min,  # ‖B_⊥ᵀM‖₂ / …
        "rho_MB_fro": torch.linalg.matrix_norm(spurious) / sigma_min,  # ‖B_⊥ᵀMB_⊥‖_F / σ_min(BᵀMB)
    }

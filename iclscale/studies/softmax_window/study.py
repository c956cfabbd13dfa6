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

from iclscale.studies.softmax_window.data import Prompts, covariate_transform, sample_prompts, subspace
from iclscale.studies.softmax_window.model import LinearAttention, SoftmaxAttention, attention_matrix
from iclscale.study import Batch, Pack, PackedModel, Predict, Study

TEST_ELEMENTS_PER_CONFIG = 2**14  # one test chunk holds about this many floats per config


def query_count(shape: Mapping[str, Any]) -> int:
    """N = ⌊√n⌋ unless `queries` sets it ([C24] App J)."""
    return shape["queries"] or math.isqrt(shape["n"])


class SoftmaxWindow(Study):
    def constants(self, pack: Pack) -> dict[str, torch.Tensor]:
        d, k = pack.shape["d"], pack.shape["k"]
        drawn = {}
        if k < d:
            drawn["B"], drawn["B_perp"] = subspace(pack.rng, d, k)
        if pack.shape["covariates"] == "lowrank_gaussian":
            drawn["covariate_transform"] = covariate_transform(pack.rng, d)
        return drawn

    def module(self, pack: Pack) -> nn.Module:
        d, tied = pack.shape["d"], pack.shape["tied"]
        if pack.shape["attention"] == "softmax":
            return SoftmaxAttention(d, tied)
        return LinearAttention(d, tied, divide_by_n=pack.shape["linear_norm"] == "n")

    def init_params(self, pack: Pack) -> dict[str, torch.Tensor]:
        # M_K = M_Q = c·I ([C24] App J: c = 0.001)
        eye = torch.eye(pack.shape["d"], device=pack.device)
        init = pack.hp["init_scale"].view(-1, 1, 1) * eye
        return {"M_K": init} if pack.shape["tied"] else {"M_K": init, "M_Q": init.clone()}

    def prompts(self, pack: Pack, purpose: str, step: int, tasks: int, task_class: str, L: torch.Tensor) -> Prompts:
        s = pack.shape
        return sample_prompts(
            pack.rng,
            purpose,
            step,
            tasks=tasks,
            n=s["n"],
            queries=query_count(s),
            d=s["d"],
            covariates=s["covariates"],
            task_class=task_class,
            L=L,
            sigma=pack.hp["sigma"],
            nu=pack.hp["nu"],
            constants=pack.constants,
            hills_mode=s["hills_mode"],
        )

    def sample_batch(self, pack: Pack, step: int) -> Batch:
        p = self.prompts(pack, "train", step, pack.shape["tasks_per_iter"], pack.shape["task_class"], pack.hp["L"])
        return p.x_context, p.y_context, p.x_query, p.f_query

    def loss(self, predict: Predict, batch: Batch, hp: Mapping[str, torch.Tensor]) -> torch.Tensor:
        x_context, y_context, x_query, f_query = batch
        # (1/N) Σ_q (h(x_q) − f(x_q))², averaged over the iteration's tasks ([C24] eq. ICL, App J)
        return ((predict(x_context, y_context, x_query) - f_query) ** 2).mean()

    def probes(self, pack: Pack, model: PackedModel) -> dict[str, torch.Tensor]:
        M_K = model.params["M_K"]
        M = attention_matrix(M_K, model.params.get("M_Q", M_K))
        singular = torch.linalg.svdvals(M)
        trace_part = torch.diagonal(M, dim1=-2, dim2=-1).mean(-1).view(-1, 1, 1) * torch.eye(
            M.shape[-1], device=M.device
        )
        metrics = {
            "M_spectral_norm": singular[:, 0],  # ‖M‖₂, the inverse window scale (Figs 3, 4)
            "M_isotropy_ratio": singular[:, 0] / singular[:, -1],  # σ_max/σ_min: 1 for M* ∝ I (Lemma B.5)
            "M_anisotropy": torch.linalg.matrix_norm(M - trace_part) / torch.linalg.matrix_norm(M),
        }
        if pack.shape["task_class"].startswith("lowrank"):
            metrics.update(subspace_errors(M, pack.constants["B"], pack.constants["B_perp"]))
        return metrics

    def evaluate(self, pack: Pack, model: PackedModel, point: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        """Test MSE against the noise-free targets on a fixed set of fresh tasks per config."""
        task_class = point["test_class"] or pack.shape["task_class"]
        L = pack.hp["L"] if point["L_test"] is None else torch.full_like(pack.hp["L"], point["L_test"])
        s = pack.shape
        per_task = (s["n"] + query_count(s)) * s["d"]
        chunk = max(1, TEST_ELEMENTS_PER_CONFIG // per_task)  # never depends on K: the test set must not
        total = torch.zeros(pack.K, dtype=torch.float64, device=pack.device)
        for index, start in enumerate(range(0, point["test_tasks"], chunk)):
            tasks = min(chunk, point["test_tasks"] - start)
            p = self.prompts(pack, "test", index, tasks, task_class, L)
            error = (model(p.x_context, p.y_context, p.x_query) - p.f_query) ** 2
            total += error.double().mean(dim=-1).sum(dim=-1)
        return {"test_mse": (total / point["test_tasks"]).float()}


def subspace_errors(M: torch.Tensor, B: torch.Tensor, B_perp: torch.Tensor) -> dict[str, torch.Tensor]:
    """ρ(M, B) of [C24] App J.1 in the three readings of the garbled formula (spec §8.6)."""
    sigma_min = torch.linalg.svdvals(B.transpose(-1, -2) @ M @ B)[:, -1]
    spurious = B_perp.transpose(-1, -2) @ M @ B_perp
    return {
        "rho_MB": torch.linalg.matrix_norm(spurious, ord=2) / sigma_min,  # ‖B_⊥ᵀMB_⊥‖₂ / σ_min(BᵀMB)
        "rho_MB_rows": torch.linalg.matrix_norm(B_perp.transpose(-1, -2) @ M, ord=2) / sigma_min,  # ‖B_⊥ᵀM‖₂ / …
        "rho_MB_fro": torch.linalg.matrix_norm(spurious) / sigma_min,  # ‖B_⊥ᵀMB_⊥‖_F / σ_min(BᵀMB)
    }

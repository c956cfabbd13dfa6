"""Study `feature_selector`: Li, Wang et al. 2023 [LW23], one config.

    data   x = λμ_j + κν_k + n, ‖n‖ ≤ τ; y = ±q, ‖q‖ = β; tasks (a, b) from T (Eq. 1, 3; §3.2)
    model  F(Ψ; P) = aᵀ ReLU(W_O Σ_{i≤l} W_V p_i softmax_i((W_K p_i)ᵀ W_Q p_{l+1}))   (Eq. 2: [L24]'s model)
    init   W_Q, W_K = δ on the first d_X diagonal entries, W_V = δ·I, W_O ~ N(0, ξ²), a ~ U{±1/m} fixed (§2)
    loss   ℓ = max{0, 1 − y·F(Ψ; P)}, mini-batch SGD on B fresh prompts per step, N = BT (§2, Thm 1)

Recorded at every eval point: `test_error` (sign(F) ≠ y, ties half), `test_hinge`, `test_attn_same` (A_* on
the test prompts, Cor. 1) and, out of domain, `ood_conditions` (1 where Thm 2's conditions all hold). Probes at
every record: the mechanism measurements of Prop. 1–2 and Lemmas 3, 5, 7 (see probes.py) on fixed in-domain prompts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from iclscale.papers.common import EVAL_CHUNK_PROMPTS
from iclscale.papers.common.hinge import hinge, misclassified
from iclscale.papers.common.noisy_patterns import (
    FeatureNoise,
    cone_blocks,
    cone_combinations,
    sample_noisy_prompts,
    spare_axes,
)
from iclscale.papers.common.one_layer_transformer import OneLayerTransformer, attention_weights
from iclscale.papers.common.patterns import (
    Prompts,
    TaskSet,
    all_tasks,
    label_embedding,
    training_tasks,
    unit_patterns,
)
from iclscale.papers.feature_selector import probes
from iclscale.papers.feature_selector.declaration import FEATURE_SELECTOR, attention_widths
from iclscale.trainer import configclass
from iclscale.trainer.study import Batch, Net, Study

# the `c` its functions take: made from the declared params (iclscale.trainer.configclass)
FeatureSelectorConfig = configclass.of(FEATURE_SELECTOR)


@dataclass
class Domain:
    """Where prompts come from: tasks, unit relevant and irrelevant directions, the label embedding q."""

    tasks: TaskSet
    relevant: torch.Tensor  # (M, d_X): μ_j/β, or μ′_j/β out of domain
    irrelevant: torch.Tensor  # (M2, d_X): ν_k/β, or ν′_k/β
    q: torch.Tensor  # (d_Y,)


IN_THE_CONE = ("cone", "cone_orthonormal")  # the two readings of Thm 2's μ′ (declaration: ood_relevant)


def ood_conditions(point: Mapping[str, Any], length: int, alpha_test: torch.Tensor) -> torch.Tensor:
    """[LW23] Thm 2's sufficient conditions at an eval point: μ′ in the non-negative cone of the μ, ν′ ∉ span{μ}
    (true of both ν′ choices), the labels ±q unchanged, and l_ts ≥ 2/α′ (Eq. 64)."""
    shape_ok = point["ood_relevant"] in IN_THE_CONE and point["ood_label"] == "same"
    return (length * alpha_test >= 2) & shape_ok


class FeatureSelector(Study):
    # Data -------------------------------------------------------------------------------------------
    def constants(self, c: FeatureSelectorConfig) -> dict[str, torch.Tensor]:
        """T (cyclic or every pair), the trained T′ ⊆ T (all of T unless n_train_tasks drops some) and T \\ T′."""
        offsets = torch.tensor(1 if c.task_set == "cyclic" else c.M1 - 1)
        full = training_tasks(c.rng, "train_tasks", c.M1, offsets, torch.tensor(0))
        trained = training_tasks(c.rng, "train_tasks", c.M1, offsets, c.n_train_tasks)
        left_out = TaskSet.from_mask(full.membership(c.M1) & ~trained.membership(c.M1))
        sets = {"all": full, "train": trained, "left_out": left_out}
        return {f"{name}_{part}": getattr(s, part) for name, s in sets.items() for part in ("pairs", "count")}

    def tasks(self, c: FeatureSelectorConfig, which: str) -> TaskSet:
        return TaskSet(c.const[f"{which}_pairs"], c.const[f"{which}_count"])

    def domain(self, c: FeatureSelectorConfig, name: str, point: Mapping[str, Any] | None = None) -> Domain:
        """ "train" (T′), "id" (T), "id_left_out" (T \\ T′) or "ood" (the construction named by `point`)."""
        relevant, irrelevant = unit_patterns(
            c.d_x, c.M1, c.M2, c.rng.device
        )  # μ_j = βe_j, ν_k = βe_{M1+k}: orthogonal (§3.2), axes ours
        q = label_embedding(c.d_y, c.beta, device=c.rng.device)  # ‖q‖ = β ([LW23] §3.2)
        if name == "ood":
            return self.ood_domain(c, point, relevant, irrelevant, q)
        which = {"train": "train", "id": "all", "id_left_out": "left_out"}[name]
        return Domain(self.tasks(c, which), relevant, irrelevant, q)

    def ood_domain(self, c: FeatureSelectorConfig, point, relevant, irrelevant, q) -> Domain:
        """[LW23] §3.5: tasks on every ordered pair of M1′ test-relevant μ′ (Eq. 11), ν′ and labels by `point`."""
        count, kind, used = point["ood_M1"], point["ood_relevant"], c.M1 + c.M2
        if kind in ("cone", "negative"):
            ood_relevant = cone_combinations(relevant, count, point["ood_mix"], 1.0 if kind == "cone" else -1.0)
        elif kind == "cone_orthonormal":
            ood_relevant = cone_blocks(relevant, count)  # §3.5's "another orthonormal basis"
        elif kind == "irrelevant":
            ood_relevant = irrelevant[:count]  # μ′ ∈ span{ν}
        else:
            ood_relevant, used = spare_axes(c.d_x, used, count), used + count  # μ′ ⟂ span{μ, ν}
        ood_irrelevant = spare_axes(c.d_x, used, point["ood_M2"]) if point["ood_irrelevant"] == "spare" else irrelevant
        label = point["ood_label"]
        q = (
            label_embedding(c.d_y, c.beta, axis=1, device=c.rng.device)
            if label == "orthogonal"
            else (-q if label == "swapped" else q)
        )
        return Domain(TaskSet.of(all_tasks(count, c.rng.device)), ood_relevant, ood_irrelevant, q)

    def prompts(
        self, c: FeatureSelectorConfig, domain: Domain, purpose: str, step, *, count: int, length: int, fraction
    ) -> Prompts:
        noise = FeatureNoise(c.lambda_star, c.tau, c.lambda_mode, c.kappa_mode, c.noise_mode)
        return sample_noisy_prompts(
            c.rng,
            purpose,
            step,
            tasks=domain.tasks,
            prompts=count,
            length=length,
            fraction=fraction,
            relevant_units=domain.relevant,
            irrelevant_units=domain.irrelevant,
            beta=c.beta,
            q=domain.q,
            noise=noise,
        )

    # Model and training -------------------------------------------------------------------------------
    def module(self, c: FeatureSelectorConfig) -> nn.Module:
        m_a, m_b = attention_widths(vars(c))
        return OneLayerTransformer(c.d_x + c.d_y, m_a, m_b, c.m, c.attend_to_query)  # [LW23] Eq. 2

    def init(self, c: FeatureSelectorConfig) -> dict[str, torch.Tensor]:
        D, (m_a, m_b) = c.d_x + c.d_y, attention_widths(vars(c))
        # W_Q, W_K: δ on the first d_X diagonal entries; W_V: δ on every diagonal entry ([LW23] §2)
        W_QK = c.delta * (torch.eye(m_a, D) * (torch.arange(D) < c.d_x).to(torch.get_default_dtype()))
        W_O = c.xi * c.rng.normal("init/W_O", 0, (c.m, m_b))  # W_O ~ N(0, ξ²) ([LW23] §2)
        a = torch.where(c.rng.uniform("init/a", 0, (c.m,)) < 0.5, 1.0 / c.m, -1.0 / c.m)  # U{±1/m}, fixed
        return {"W_Q": W_QK, "W_K": W_QK.clone(), "W_V": c.delta * torch.eye(m_b, D), "W_O": W_O, "a": a}

    def batch(self, c: FeatureSelectorConfig, step) -> Batch:
        train = self.domain(c, "train")
        prompts = self.prompts(c, train, "train", step, count=c.batch_size, length=c.l_tr, fraction=c.alpha)
        return prompts.tokens, prompts.z

    def loss(self, net: Net, batch: Batch, c: FeatureSelectorConfig) -> torch.Tensor:
        P, y = batch
        return hinge(y * net(P)).mean()  # R = (1/B) Σ_n max{0, 1 − y^n F(Ψ; P^n)} ([LW23] §2)

    # Measurements ------------------------------------------------------------------------------------
    def probes(self, net: Net, c: FeatureSelectorConfig, final: bool) -> dict[str, torch.Tensor]:
        params, domain = net.params, self.domain(c, "id")
        prompts = self.prompts(c, domain, "probe", 0, count=c.probe_prompts, length=c.l_tr, fraction=c.alpha)
        initial = self.init(c)
        return {
            **probes.feature_norms(params, c.beta * domain.relevant, c.beta * domain.irrelevant, c.d_x),
            **probes.label_block_invariants(params, c.d_x, c.d_y),
            **probes.attention_mass(params, prompts, c.attend_to_query),
            **probes.mlp_splits(params, prompts, c.d_x, c.attend_to_query),
            **probes.lucky_neurons(params, initial, domain.q, c.d_x),
        }

    def test_alpha_and_length(self, c: FeatureSelectorConfig, point: Mapping[str, Any]) -> tuple[Any, int]:
        """The test prompts' α and length: the eval point's, else the training ones."""
        alpha = c.alpha if point["alpha_test"] is None else torch.tensor(float(point["alpha_test"]))
        return alpha, c.l_tr if point["l_ts"] is None else point["l_ts"]

    def test_chunk(
        self, c: FeatureSelectorConfig, point: Mapping[str, Any], domain: Domain, size: int, chunk: int
    ) -> Prompts:
        """Chunk `chunk` of the eval point's test prompts: draw `chunk` of the test stream, the same at every record
        (what `StudyInfo.eval_values` sizes)."""
        alpha, length = self.test_alpha_and_length(c, point)
        return self.prompts(c, domain, f"test/{point['domain']}", chunk, count=size, length=length, fraction=alpha)

    def evaluate(
        self, net: Net, c: FeatureSelectorConfig, point: Mapping[str, Any], final: bool
    ) -> dict[str, torch.Tensor]:
        count, domain = point["eval_prompts"], self.domain(c, point["domain"], point)
        alpha, length = self.test_alpha_and_length(c, point)
        wrong, loss, attn_same, matched = (torch.zeros((), dtype=torch.float64) for _ in range(4))
        for chunk in range(math.ceil(count / EVAL_CHUNK_PROMPTS)):  # chunk k: draw k, the same at every record
            size = min(EVAL_CHUNK_PROMPTS, count - chunk * EVAL_CHUNK_PROMPTS)
            prompts = self.test_chunk(c, point, domain, size, chunk)
            margin = prompts.z * net(prompts.tokens)  # y·F(Ψ; P)
            wrong = wrong + misclassified(margin).sum()
            loss = loss + hinge(margin).double().sum()
            attn = attention_weights(net.params["W_Q"], net.params["W_K"], prompts.tokens, c.attend_to_query)
            same = prompts.draw.same_as_query
            attn_same = attn_same + (attn[..., : same.shape[-1]] * same).sum().double()
            matched = matched + same.any(-1).double().sum()
        has_tasks, dtype = domain.tasks.count > 0, torch.get_default_dtype()
        metrics = {
            "test_error": torch.where(has_tasks, wrong / count, math.nan).to(dtype),
            "test_hinge": torch.where(has_tasks, loss / count, math.nan).to(dtype),
            "test_attn_same": torch.where(has_tasks & (matched > 0), attn_same / matched, math.nan).to(dtype),
            "test_no_match": (1 - matched / count).to(dtype),
        }
        if point["domain"] == "ood":
            metrics["ood_conditions"] = ood_conditions(point, length, alpha).to(dtype)
        return metrics

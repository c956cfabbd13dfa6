"""Studies `nonlinear_icl` and `nonlinear_icl_gpt2`: training on the binary ICL prompts of Li et al. 2024 [L24].

Both train by minimising the hinge loss ℓ = max{0, 1 − z·F(Ψ; P)} ([L24] Eq. 3) on a fresh batch of B
prompts every iteration (Alg. 1: online SGD), on the training tasks T_tr (the cyclic set of §5, or
App. A.2's sets), and record at every eval point:

- `test_error`: the in-context classification error Pr(z·F ≤ 0) ([L24] §5; ties count half), and
  `test_hinge`: the expected hinge loss, the theory's generalization error (Eq. 4, 5), on a fixed set of
  test prompts per config: in-domain on unseen tasks T \\ T_tr only (§5), or out-of-domain (Eq. 8).
  Recorded at every record, so iterations-to-ε can be read afterwards for any ε.

The one-layer study adds pruning (measured at the final record), classical learners (final record) and
the mechanism probes of Fig. 2 (every record; per-neuron magnitudes at the final record).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from iclscale.studies.nonlinear_icl.baselines import classical_error
from iclscale.studies.nonlinear_icl.gpt2 import GPT2Classifier, initial_params
from iclscale.studies.nonlinear_icl.model import OneLayerTransformer
from iclscale.studies.nonlinear_icl.probes import attention_probes, neuron_magnitude_table, neuron_probes
from iclscale.studies.nonlinear_icl.pruning import neuron_magnitudes, prune, removed_neurons
from iclscale.studies.patterns import (
    OOD_RELEVANT,
    Prompts,
    TaskSet,
    all_tasks,
    condition_3_2,
    label_embedding,
    ood_relevant_units,
    ood_split,
    sample_prompts,
    training_tasks,
    unit_patterns,
    unseen_tasks,
)
from iclscale.study import Batch, Pack, PackedModel, Predict, Study

EVAL_CHUNK_PROMPTS = 256
"""Test prompts drawn and evaluated together. Fixed rather than sized by K, so that a config's test set
(chunk c is the draw of step c) does not depend on the pack it runs in."""

FIG2_OOD = {"S1": 1.28, "odr_split": "equal", "K_ood": 5.0}
"""The out-of-domain data of [L24] Fig. 2 A–B (a = b = 0.64), used by the probes."""


def hinge(margin: torch.Tensor) -> torch.Tensor:
    """ℓ = max{0, 1 − z·F} ([L24] §2.1), from the margin z·F."""
    return torch.clamp(1.0 - margin, min=0.0)


def misclassified(margin: torch.Tensor) -> torch.Tensor:
    """1{z·F < 0}, and ½ for a tie z·F = 0 (not from the paper: the expected error of a coin-flip tie-break)."""
    return (margin < 0).double() + 0.5 * (margin == 0).double()


@dataclass
class Domain:
    """Where prompts come from: the tasks, the relevant and irrelevant unit directions, and the range K of
    the irrelevant coefficient κ ~ U(−K, K)."""

    tasks: TaskSet
    relevant: torch.Tensor  # (M, d_X): IDR μ_j/β, or ODR μ'_j/β
    irrelevant: torch.Tensor  # (M2, d_X): IDI ν_k/β (= ODI, ν'_k = ν_k)
    kappa_range: torch.Tensor | float

    @property
    def has_tasks(self) -> torch.Tensor:
        """(K,) bool: False for a config left without tasks (no unseen task when T_tr = T)."""
        return self.tasks.count > 0


class PatternICL(Study):
    """What both studies share: task sets, prompts, the hinge loss and the test error."""

    # Data ---------------------------------------------------------------------------------------
    def constants(self, pack: Pack) -> dict[str, torch.Tensor]:
        M1 = pack.shape["M1"]
        train = training_tasks(pack.rng, "train_tasks", M1, pack.hp["U"], pack.hp["n_train_tasks"])
        unseen = unseen_tasks(train, M1)
        return {
            "train_pairs": train.pairs,
            "train_count": train.count,
            "unseen_pairs": unseen.pairs,
            "unseen_count": unseen.count,
        }

    def tasks(self, pack: Pack, which: str) -> TaskSet:
        """The "train" (T_tr) or "unseen" (T \\ T_tr) tasks of each config."""
        return TaskSet(pack.constants[f"{which}_pairs"], pack.constants[f"{which}_count"])

    def domain(self, pack: Pack, name: str, K_ood: float = 0.0, S1: float = 0.0, odr_split: str = "solve") -> Domain:
        """ "train" and "id_train" (T_tr), "id" (T \\ T_tr, [L24] §5), "ood" (T' on μ'_j, [L24] Eq. 8, §5)."""
        s = pack.shape
        relevant, irrelevant = unit_patterns(s["d_x"], s["M1"], s["M2"], pack.device)
        if name == "ood":  # κ' ~ U(−K', K'); ODI ν'_i = ν_i ([L24] §5)
            tasks = TaskSet.shared(all_tasks(OOD_RELEVANT, pack.device), pack.K)
            return Domain(tasks, ood_relevant_units(ood_split(S1, odr_split), relevant), irrelevant, K_ood)
        tasks = self.tasks(pack, "unseen" if name == "id" else "train")
        return Domain(tasks, relevant, irrelevant, pack.hp["K"])

    def prompts(
        self, pack: Pack, domain: Domain, purpose: str, step: int, *, count: int, length: int, fraction: torch.Tensor
    ) -> Prompts:
        """`count` prompts of `length` demonstrations per config from `domain` (draw `step` of `purpose`)."""
        return sample_prompts(
            pack.rng,
            purpose,
            step,
            tasks=domain.tasks,
            prompts=count,
            length=length,
            fraction=fraction,
            relevant_units=domain.relevant,
            irrelevant_units=domain.irrelevant,
            beta=pack.hp["beta"],
            kappa_range=domain.kappa_range,
            q=label_embedding(pack.shape["d_y"], pack.hp["q_norm"], pack.device),
        )

    def test_domain(self, pack: Pack, point: Mapping[str, Any]) -> Domain:
        return self.domain(pack, point["domain"], point["K_ood"], point["S1"], point["odr_split"])

    def test_chunks(self, pack: Pack, point: Mapping[str, Any], count: int) -> Iterator[Prompts]:
        """The first `count` test prompts of an eval point, chunk by chunk. Chunk c is step c of purpose
        "test/<domain>": the same prompts at every record, and the same random numbers at another α' or S1
        (common random numbers across the eval grid)."""
        domain = self.test_domain(pack, point)
        fraction = torch.full((pack.K,), float(point["alpha_test"]), device=pack.device)
        for chunk, start in enumerate(range(0, count, EVAL_CHUNK_PROMPTS)):
            size = min(EVAL_CHUNK_PROMPTS, count - start)
            yield self.prompts(
                pack, domain, f"test/{point['domain']}", chunk, count=size, length=point["l_ts"], fraction=fraction
            )

    # Training -----------------------------------------------------------------------------------
    def sample_batch(self, pack: Pack, step: int) -> Batch:
        s = pack.shape
        domain = self.domain(pack, "train")
        prompts = self.prompts(
            pack, domain, "train", step, count=s["batch_size"], length=s["l_tr"], fraction=pack.hp["alpha"]
        )
        return prompts.tokens, prompts.z

    def loss(self, predict: Predict, batch: Batch, hp: Mapping[str, torch.Tensor]) -> torch.Tensor:
        P, z = batch
        return hinge(z * predict(P)).mean()  # (1/B) Σ_n max{0, 1 − z^n F(Ψ; P^n)} ([L24] Eq. 3, 23)

    # Measurements ---------------------------------------------------------------------------------
    def probes(self, pack: Pack, model: PackedModel) -> dict[str, torch.Tensor]:
        train = self.tasks(pack, "train")
        return {
            "condition_3_2": condition_3_2(train, pack.shape["M1"]).holds.float(),  # [L24] Condition 3.2
            "train_task_count": train.count.float(),
            "unseen_task_count": pack.constants["unseen_count"].float(),
        }

    def evaluate(self, pack: Pack, model: PackedModel, point: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        return self.test_metrics(pack, model, point)

    def test_metrics(self, pack: Pack, model: PackedModel, point: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        """`test_error` and `test_hinge` of a (possibly pruned) model; NaN for a config with no test task."""
        count = point["eval_prompts"]
        wrong = torch.zeros(pack.K, dtype=torch.float64, device=pack.device)
        loss = torch.zeros_like(wrong)
        for prompts in self.test_chunks(pack, point, count):
            margin = prompts.z * model(prompts.tokens)  # z·F(Ψ; P)
            wrong += misclassified(margin).sum(-1)
            loss += hinge(margin).double().sum(-1)
        has_tasks = self.test_domain(pack, point).has_tasks
        metrics = {
            "test_error": torch.where(has_tasks, wrong / count, math.nan).float(),
            "test_hinge": torch.where(has_tasks, loss / count, math.nan).float(),
        }
        if point["domain"] == "ood":  # ‖μ'_1‖/β: 1 unless S1 was infeasible (spec §2.5)
            norm = ood_split(point["S1"], point["odr_split"]).relative_norm
            metrics["odr_norm_ratio"] = torch.full_like(metrics["test_error"], norm)
        return metrics


class NonlinearICL(PatternICL):
    """The one-layer Transformer of [L24] Eq. 2."""

    def module(self, pack: Pack) -> nn.Module:
        s = pack.shape
        return OneLayerTransformer(s["d_x"] + s["d_y"], s["m_a"], s["m_b"], s["m"], s["attend_to_query"])

    def init_params(self, pack: Pack) -> dict[str, torch.Tensor]:
        s, device = pack.shape, pack.device
        D, m = s["d_x"] + s["d_y"], s["m"]
        delta = pack.hp["delta"].view(-1, 1, 1)
        # W_Q = W_K = δ on the first d_X diagonal entries, W_V = δ on every diagonal entry ([L24] §2.3)
        feature_columns = (torch.arange(D, device=device) < s["d_x"]).float()
        W_QK = delta * (torch.eye(s["m_a"], D, device=device) * feature_columns)
        W_V = delta * torch.eye(s["m_b"], D, device=device)
        # W_O ~ N(0, ξ²), ξ = 1/√m; a ~ U{±1/m}, fixed ([L24] §2.3)
        W_O = pack.rng.normal("init/W_O", 0, (m, s["m_b"])) / math.sqrt(m)
        scale = 1.0 / m if s["a_scale"] == "1/m" else 1.0 / math.sqrt(m)
        a = torch.where(pack.rng.uniform("init/a", 0, (m,)) < 0.5, scale, -scale)
        return {"W_Q": W_QK, "W_K": W_QK.clone(), "W_V": W_V, "W_O": W_O, "a": a}

    def probes(self, pack: Pack, model: PackedModel) -> dict[str, torch.Tensor]:
        s = pack.shape
        metrics = super().probes(pack, model)
        # (A), (B) on unseen-task ID prompts and on Fig. 2's OOD prompts, at the training α and l_tr
        for name in ("id", "ood") if s["M1"] >= 6 else ("id",):  # the OOD patterns of [L24] §5 need μ_1..μ_6
            domain = self.domain(pack, name, **(FIG2_OOD if name == "ood" else {}))
            prompts = self.prompts(
                pack, domain, f"probe/{name}", 0, count=s["probe_prompts"], length=s["l_tr"], fraction=pack.hp["alpha"]
            )
            found = attention_probes(
                model.params, prompts, domain.relevant, domain.irrelevant, s["attend_to_query"], name
            )
            metrics.update({key: torch.where(domain.has_tasks, v, math.nan) for key, v in found.items()})
        relevant = self.domain(pack, "id").relevant
        q = label_embedding(s["d_y"], 1.0, pack.device)
        metrics.update(neuron_probes(model.params, s["d_x"], s["d_y"], relevant, q))  # (C), (D), (E)
        if pack.final:
            metrics.update(neuron_magnitude_table(model.params))  # Fig. 5A's bars
        return metrics

    def evaluate(self, pack: Pack, model: PackedModel, point: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        if point["learner"] != "transformer":
            return self.classical_metrics(pack, point) if pack.final else {}
        if point["prune_method"] == "none":
            return self.test_metrics(pack, model, point)
        if not pack.final:
            return {}
        magnitudes = neuron_magnitudes(model.params, point["prune_score"])
        random_keys = pack.rng.uniform("prune/random", 0, (pack.shape["m"],))  # one random order per config
        removed = removed_neurons(magnitudes, point["prune_method"], point["prune_ratio"], random_keys)
        pruned = PackedModel(model.module, prune(model.params, removed))
        return {**self.test_metrics(pack, pruned, point), "pruned_fraction": removed.float().mean(-1)}

    def classical_metrics(self, pack: Pack, point: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        """`test_error` of a classical learner ([L24] Fig. 4) on the first `baseline_prompts` test prompts."""
        d_x, count = pack.shape["d_x"], point["baseline_prompts"]
        errors = torch.zeros(pack.K, dtype=torch.float64, device=pack.device)
        for prompts in self.test_chunks(pack, point, count):
            x = prompts.tokens[..., :d_x]
            labels = prompts.draw.context_label
            error = classical_error(point["learner"], x[..., :-1, :], labels, x[..., -1, :], prompts.z)
            errors += error.double() * prompts.z.shape[1]
        has_tasks = self.test_domain(pack, point).has_tasks
        return {"test_error": torch.where(has_tasks, errors / count, math.nan).float()}


class NonlinearICLGPT2(PatternICL):
    """The 3-layer, 2-head GPT-2 of [L24] Fig. 3, from random initialisation (see gpt2.py)."""

    def module(self, pack: Pack) -> nn.Module:
        s = pack.shape
        return GPT2Classifier(
            s["d_x"] + s["d_y"],
            s["n_layer"],
            s["n_head"],
            s["n_embd"],
            s["n_positions"],
            from_query=s["positions"] == "from_query",
        )

    def init_params(self, pack: Pack) -> dict[str, torch.Tensor]:
        def normal(purpose: str, shape: tuple[int, ...]) -> torch.Tensor:
            return pack.rng.normal(purpose, 0, shape)

        return initial_params(self.module(pack), pack.shape["n_layer"], normal)

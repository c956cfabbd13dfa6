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
from typing import Any, Generic, TypeVar

import torch
from torch import nn
from torch.func import vmap

from iclscale.papers.common import EVAL_CHUNK_PROMPTS
from iclscale.papers.common.hinge import hinge, misclassified
from iclscale.papers.common.patterns import (
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
from iclscale.papers.nonlinear_icl.baselines import classical_error
from iclscale.papers.nonlinear_icl.declaration import NONLINEAR_ICL, NONLINEAR_ICL_GPT2, PatternConfig
from iclscale.papers.nonlinear_icl.gpt2 import GPT2Classifier, initial_params
from iclscale.papers.nonlinear_icl.model import OneLayerTransformer
from iclscale.papers.nonlinear_icl.probes import attention_probes, neuron_magnitude_table, neuron_probes
from iclscale.papers.nonlinear_icl.pruning import neuron_magnitudes, prune, removed_neurons
from iclscale.trainer import configclass
from iclscale.trainer.study import Batch, Net, Pack, PackNet, Study

# the `c` each study's functions take: made from the declared params (iclscale.trainer.configclass)
NonlinearICLConfig = configclass.of(NONLINEAR_ICL)
NonlinearICLGPT2Config = configclass.of(NONLINEAR_ICL_GPT2)

FIG2_OOD = {"S1": 1.28, "odr_split": "equal", "K_ood": 5.0}
"""The out-of-domain data of [L24] Fig. 2 A–B (a = b = 0.64), used by the probes."""


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
        """False for a config left without tasks (no unseen task when T_tr = T)."""
        return self.tasks.count > 0


ConfigT = TypeVar("ConfigT", bound=PatternConfig)
"""The config class of a study on these prompts: the shared functions read only what PatternConfig holds."""


class PatternICL(Study, Generic[ConfigT]):
    """What both studies share: task sets, prompts, the hinge loss and the test error."""

    # Data ---------------------------------------------------------------------------------------
    def constants(self, c: ConfigT) -> dict[str, torch.Tensor]:
        train = training_tasks(c.rng, "train_tasks", c.M1, c.U, c.n_train_tasks)
        unseen = unseen_tasks(train, c.M1)
        return {
            "train_pairs": train.pairs,
            "train_count": train.count,
            "unseen_pairs": unseen.pairs,
            "unseen_count": unseen.count,
        }

    def tasks(self, c: ConfigT, which: str) -> TaskSet:
        """The "train" (T_tr) or "unseen" (T \\ T_tr) tasks."""
        return TaskSet(c.const[f"{which}_pairs"], c.const[f"{which}_count"])

    def domain(self, c: ConfigT, name: str, K_ood: float = 0.0, S1: float = 0.0, odr_split: str = "solve") -> Domain:
        """ "train" and "id_train" (T_tr), "id" (T \\ T_tr, [L24] §5), "ood" (T' on μ'_j, [L24] Eq. 8, §5)."""
        relevant, irrelevant = unit_patterns(c.d_x, c.M1, c.M2, c.rng.device)
        if name == "ood":  # κ' ~ U(−K', K'); ODI ν'_i = ν_i ([L24] §5)
            tasks = TaskSet.of(all_tasks(OOD_RELEVANT, c.rng.device))
            return Domain(tasks, ood_relevant_units(ood_split(S1, odr_split), relevant), irrelevant, K_ood)
        return Domain(self.tasks(c, "unseen" if name == "id" else "train"), relevant, irrelevant, c.K)

    def prompts(self, c: ConfigT, domain: Domain, purpose: str, step, *, count: int, length: int, fraction) -> Prompts:
        """`count` prompts of `length` demonstrations from `domain` (draw `step` of `purpose`)."""
        return sample_prompts(
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
            kappa_range=domain.kappa_range,
            q=label_embedding(c.d_y, c.q_norm, device=c.rng.device),
        )

    def test_domain(self, c: ConfigT, point: Mapping[str, Any]) -> Domain:
        return self.domain(c, point["domain"], point["K_ood"], point["S1"], point["odr_split"])

    def test_chunk(self, c: ConfigT, point: Mapping[str, Any], count: int, chunk: int) -> Prompts:
        """Chunk `chunk` of the first `count` test prompts of an eval point: step `chunk` of purpose
        "test/<domain>", so the same prompts at every record, and the same random numbers at another α' or S1
        (common random numbers across the eval grid)."""
        size = min(EVAL_CHUNK_PROMPTS, count - chunk * EVAL_CHUNK_PROMPTS)
        fraction = torch.tensor(float(point["alpha_test"]))
        domain = self.test_domain(c, point)
        return self.prompts(
            c, domain, f"test/{point['domain']}", chunk, count=size, length=point["l_ts"], fraction=fraction
        )

    def test_chunks(self, c: ConfigT, point: Mapping[str, Any], count: int) -> Iterator[Prompts]:
        for chunk in range(math.ceil(count / EVAL_CHUNK_PROMPTS)):
            yield self.test_chunk(c, point, count, chunk)

    # Training -----------------------------------------------------------------------------------
    def batch(self, c: ConfigT, step) -> Batch:
        prompts = self.prompts(
            c, self.domain(c, "train"), "train", step, count=c.batch_size, length=c.l_tr, fraction=c.alpha
        )
        return prompts.tokens, prompts.z

    def loss(self, net: Net, batch: Batch, c: ConfigT) -> torch.Tensor:
        P, z = batch
        return hinge(z * net(P)).mean()  # (1/B) Σ_n max{0, 1 − z^n F(Ψ; P^n)} ([L24] Eq. 3, 23)

    # Measurements ---------------------------------------------------------------------------------
    def probes(self, net: Net, c: ConfigT, final: bool) -> dict[str, torch.Tensor]:
        dtype = torch.get_default_dtype()
        train = self.tasks(c, "train")
        return {
            "condition_3_2": condition_3_2(train, c.M1).holds.to(dtype),  # [L24] Condition 3.2
            "train_task_count": train.count.to(dtype),
            "unseen_task_count": c.const["unseen_count"].to(dtype),
        }

    test_data_params = ("domain", "alpha_test", "l_ts", "K_ood", "S1", "odr_split", "eval_prompts")
    """What decides the test prompts: points that differ only in pruning or learner share them."""

    def test_data(self, c: ConfigT, point: Mapping[str, Any]) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """The first `eval_prompts` test prompts of the point, chunk by chunk: (tokens, z)."""
        return [(prompts.tokens, prompts.z) for prompts in self.test_chunks(c, point, point["eval_prompts"])]

    def evaluate(self, net: Net, c: ConfigT, point: Mapping[str, Any], final: bool, data) -> dict[str, torch.Tensor]:
        return self.test_metrics(net, c, point, data)

    def test_metrics(self, net: Net, c: ConfigT, point: Mapping[str, Any], data) -> dict[str, torch.Tensor]:
        """`test_error` and `test_hinge` of a (possibly pruned) model; NaN for a config with no test task."""
        count = point["eval_prompts"]
        wrong = torch.zeros((), dtype=torch.float64)
        loss = torch.zeros((), dtype=torch.float64)
        for tokens, z in data:
            margin = z * net(tokens)  # z·F(Ψ; P)
            wrong = wrong + misclassified(margin).sum()
            loss = loss + hinge(margin).double().sum()
        has_tasks = self.test_domain(c, point).has_tasks
        dtype = torch.get_default_dtype()
        metrics = {
            "test_error": torch.where(has_tasks, wrong / count, math.nan).to(dtype),
            "test_hinge": torch.where(has_tasks, loss / count, math.nan).to(dtype),
        }
        if point["domain"] == "ood":  # ‖μ'_1‖/β: 1 unless S1 was infeasible (Fig. 3A's 1.3 > √1.64)
            metrics["odr_norm_ratio"] = torch.tensor(ood_split(point["S1"], point["odr_split"]).relative_norm)
        return metrics


class NonlinearICL(PatternICL[NonlinearICLConfig]):
    """The one-layer Transformer of [L24] Eq. 2."""

    def module(self, c: NonlinearICLConfig) -> nn.Module:
        return OneLayerTransformer(c.d_x + c.d_y, c.m_a, c.m_b, c.m, c.attend_to_query)

    def init(self, c: NonlinearICLConfig) -> dict[str, torch.Tensor]:
        D, m = c.d_x + c.d_y, c.m
        # W_Q = W_K = δ on the first d_X diagonal entries, W_V = δ on every diagonal entry ([L24] §2.3)
        feature_columns = (torch.arange(D) < c.d_x).to(torch.get_default_dtype())
        W_QK = c.delta * (torch.eye(c.m_a, D) * feature_columns)
        W_V = c.delta * torch.eye(c.m_b, D)
        # W_O ~ N(0, ξ²), ξ = 1/√m; a ~ U{±1/m}, fixed ([L24] §2.3)
        W_O = c.rng.normal("init/W_O", 0, (m, c.m_b)) / math.sqrt(m)
        scale = 1.0 / m if c.a_scale == "1/m" else 1.0 / math.sqrt(m)
        a = torch.where(c.rng.uniform("init/a", 0, (m,)) < 0.5, scale, -scale)
        return {"W_Q": W_QK, "W_K": W_QK.clone(), "W_V": W_V, "W_O": W_O, "a": a}

    def probes(self, net: Net, c: NonlinearICLConfig, final: bool) -> dict[str, torch.Tensor]:
        metrics = super().probes(net, c, final)
        # (A), (B) on unseen-task ID prompts and on Fig. 2's OOD prompts, at the training α and l_tr
        for name in ("id", "ood") if c.M1 >= 6 else ("id",):  # the OOD patterns of [L24] §5 need μ_1..μ_6
            domain = self.domain(c, name, **(FIG2_OOD if name == "ood" else {}))
            prompts = self.prompts(
                c, domain, f"probe/{name}", 0, count=c.probe_prompts, length=c.l_tr, fraction=c.alpha
            )
            found = attention_probes(net.params, prompts, domain.relevant, domain.irrelevant, c.attend_to_query, name)
            metrics.update({key: torch.where(domain.has_tasks, v, math.nan) for key, v in found.items()})
        relevant = self.domain(c, "id").relevant
        metrics.update(neuron_probes(net.params, c.d_x, c.d_y, relevant, label_embedding(c.d_y)))  # (C), (D), (E)
        if final:
            metrics.update(neuron_magnitude_table(net.params))  # Fig. 5A's bars
        return metrics

    def evaluate(
        self, net: Net, c: NonlinearICLConfig, point: Mapping[str, Any], final: bool, data
    ) -> dict[str, torch.Tensor]:
        if point["prune_method"] == "none":
            return self.test_metrics(net, c, point, data)
        if not final:
            return {}
        magnitudes = neuron_magnitudes(net.params, point["prune_score"])
        random_keys = c.rng.uniform("prune/random", 0, (c.m,))  # one random order per config
        removed = removed_neurons(magnitudes, point["prune_method"], point["prune_ratio"], random_keys)
        pruned = Net(net.module, prune(net.params, removed))
        return {**self.test_metrics(pruned, c, point, data), "pruned_fraction": removed.to(magnitudes.dtype).mean()}

    def pack_evaluate(self, pack: Pack, net: PackNet, point: Mapping[str, Any], final: bool):
        """Classical learners ([L24] Fig. 4) fit one scikit-learn model per prompt: not vectorisable, so they
        are measured here, at pack level, on the first `baseline_prompts` test prompts, at the final record."""
        if point["learner"] == "transformer":
            return None
        if not final:
            return {}
        count, d_x = point["baseline_prompts"], pack.shape["d_x"]
        errors = torch.zeros(pack.pack_size, dtype=torch.float64)
        has_tasks = None
        for chunk in range(math.ceil(count / EVAL_CHUNK_PROMPTS)):
            prompts, has_tasks = pack_prompts(self, pack, point, count, chunk)
            x = prompts.tokens[..., :d_x]
            error = classical_error(
                point["learner"], x[..., :-1, :], prompts.draw.context_label, x[..., -1, :], prompts.z
            )
            errors += error.double() * prompts.z.shape[1]
        return {"test_error": torch.where(has_tasks, errors / count, math.nan).to(pack.dtype)}


def pack_prompts(study: PatternICL, pack: Pack, point: Mapping[str, Any], count: int, chunk: int):
    """Chunk `chunk` of every config's test prompts (the same prompts `evaluate` sees), stacked, and whether
    each config has test tasks."""

    def one(hp, key, const):
        c = pack.view_of(hp, key, const)
        return study.test_chunk(c, point, count, chunk), study.test_domain(c, point).has_tasks

    return vmap(one)(pack.hp, pack.rng.base, pack.const)


class NonlinearICLGPT2(PatternICL[NonlinearICLGPT2Config]):
    """The 3-layer, 2-head GPT-2 of [L24] Fig. 3, from random initialisation (see gpt2.py)."""

    def module(self, c: NonlinearICLGPT2Config) -> nn.Module:
        return GPT2Classifier(
            c.d_x + c.d_y, c.n_layer, c.n_head, c.n_embd, c.n_positions, from_query=c.positions == "from_query"
        )

    def init(self, c: NonlinearICLGPT2Config) -> dict[str, torch.Tensor]:
        return initial_params(self.module(c), c.n_layer, lambda purpose, shape: c.rng.normal(purpose, 0, shape))

"""Study `mamba_outliers`: Mamba vs the linear Transformer in context with outliers, as in [LM25].

Training ([LM25] Alg. 1): plain SGD on the hinge loss ℓ = max{0, 1 − z·F(Ψ; P)} (Eq. 4) over a fresh batch of B
prompts every iteration, from the M1 cyclic training tasks (a_j → +1, a_{j+1} → −1; App. C, Condition 1) with a
fraction p_a of demonstrations carrying an outlier κ_a·v*_s and a random label (Eq. 6, Def. 1).

Evaluation at every record, on a fixed set of test prompts per config over all M1(M1 − 1) tasks (Eq. 5, Def. 2):
- `test_error` = Pr(z·F < 0) (a tie counts half) and `test_hinge`, with outliers κ_a'·v' at fraction α
  (or placed, Table 1) and labels flipped, targeted or random (Fig. 2);
- `error_trained`, `error_reversed`, `error_gap2`, `error_other`: the same by task group (cyclic offset b − a of
  the task: 1 trained, M1 − 1 the reversed pairs, ±2 gap-2, the rest; our runs find the α = 0 floor on gap 2, README);
- `error_v1..3`: the same prompts with every outlier on one unseen v'_s (Thm 2 (a): any v' ∈ 𝒱'), outlier_set unseen;
- the attention and gate measurements of `probes` per layer (Figs. 3–6).
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
from iclscale.papers.common.outliers import (
    OutlierDraw,
    add_outliers,
    coefficients_with_sum,
    combined_units,
    outlier_labels,
    outlier_units,
    pick,
    sample_outliers,
    unseen_coefficients,
)
from iclscale.papers.common.patterns import (
    PromptDraw,
    TaskSet,
    all_tasks,
    cyclic_tasks,
    embed,
    features,
    label_embedding,
    sample_prompt_draw,
    unit_patterns,
)
from iclscale.papers.mamba_outliers.declaration import MAMBA_OUTLIERS
from iclscale.papers.mamba_outliers.model import OneLayer, Stack, layer_inputs
from iclscale.papers.mamba_outliers.probes import layer_prefix, prompt_metrics, prompt_sums, weight_probes
from iclscale.trainer import configclass
from iclscale.trainer.study import Batch, Net, Study

# the `c` its functions take: made from the declared params (iclscale.trainer.configclass)
MambaOutliersConfig = configclass.of(MAMBA_OUTLIERS)

TASK_GROUPS = ("trained", "reversed", "gap2", "other")


def task_group(task: torch.Tensor, M1: int) -> torch.Tensor:
    """Index into TASK_GROUPS of tasks (..., 2) by their cyclic offset k = b − a mod M1: 1 is a training task,
    M1 − 1 a reversed one, 2 or M1 − 2 a gap-2 task (its patterns form no training task), the rest other."""
    offset = (task[..., 1] - task[..., 0]) % M1
    gap2 = (offset == 2) | (offset == M1 - 2)
    return torch.where(offset == 1, 0, torch.where(offset == M1 - 1, 1, torch.where(gap2, 2, 3)))


@dataclass
class OutlierPrompts:
    """Prompts with outliers, and what they were drawn from (to redraw them with other outlier directions)."""

    draw: PromptDraw
    outliers: OutlierDraw
    labels: torch.Tensor  # (n, l): the demonstrations' labels after the outliers' relabelling
    clean_x: torch.Tensor  # (n, l + 1, d): features before the outliers are added
    magnitude: torch.Tensor | float
    tokens: torch.Tensor  # (n, l + 1, d + 1)

    def with_vectors(self, vectors: torch.Tensor) -> torch.Tensor:
        """The same prompts with every outlier on `vectors` (n, l, d) instead."""
        x = add_outliers(self.clean_x, self.outliers.is_outlier, vectors, self.magnitude)
        return embed(x, self.labels, label_embedding(1, device=x.device))


class MambaOutliers(Study):
    # Model ------------------------------------------------------------------------------------
    def module(self, c: MambaOutliersConfig) -> nn.Module:
        d0, hidden, gated = c.d + 1, c.hidden or c.d + 1, c.model == "mamba"
        if c.layers == 1:
            return OneLayer(d0, hidden, gated)
        return Stack(c.layers, d0, hidden, gated, c.residual, full=c.lt_attention == "full_mean")

    def init(self, c: MambaOutliersConfig) -> dict[str, torch.Tensor]:
        d0, hidden = c.d + 1, c.hidden or c.d + 1
        # the first d diagonal entries of W_B, W_C are δ ([LM25] §2, Alg. 1), the rest 0 (our reading)
        diagonal = c.delta * torch.eye(hidden, d0) * (torch.arange(d0) < c.d).to(torch.get_default_dtype())
        if c.layers == 1:
            params = {"W_B": diagonal, "W_C": diagonal.clone()}
            if c.model == "mamba":  # w ~ N(0, I_{d+1}/(d+1)) ([LM25] §2)
                params["w"] = c.rng.normal("init/w", 0, (d0,)) / math.sqrt(d0)
            return params
        stacked = diagonal.expand(c.layers, hidden, d0).clone()
        params = {"W_B": stacked, "W_C": stacked.clone()}
        if c.model == "mamba":  # every column of every W as w (not from the paper)
            params["W"] = c.rng.normal("init/W", 0, (c.layers, d0, d0)) / math.sqrt(d0)
        return params

    def layer_weights(self, params: Mapping[str, torch.Tensor], c: MambaOutliersConfig) -> list[tuple]:
        """(W_B, W_C, w or None) of each layer; w is the label channel's gate column (§2: w = w_{d0}; Eq. 92)."""
        if c.layers == 1:
            return [(params["W_B"], params["W_C"], params.get("w"))]
        W = params.get("W")
        return [(params["W_B"][k], params["W_C"][k], None if W is None else W[k][:, -1]) for k in range(c.layers)]

    # Data -------------------------------------------------------------------------------------
    def units(self, c: MambaOutliersConfig, renormalise: bool = True) -> dict[str, torch.Tensor]:
        relevant, irrelevant = unit_patterns(c.d, c.M1, c.M2, c.rng.device)
        train = outlier_units(c.d, c.M1, c.M2, c.V, c.rng.device)
        found = {"relevant": relevant, "irrelevant": irrelevant, "train": train}
        if c.V >= 3:
            found["unseen"] = combined_units(unseen_coefficients(c.V, c.rng.device), train, renormalise)
        return found

    def prompts(
        self,
        c: MambaOutliersConfig,
        purpose: str,
        step,
        *,
        tasks: TaskSet,
        count: int,
        length: int,
        K,
        fraction,
        outlier_set: str,
        magnitude,
        label_mode: str,
        target: float = 1.0,
        placement: str = "bernoulli",
        outliers: int | None = None,
        outlier_sum: float = 0.0,
        renormalise: bool = True,
    ) -> OutlierPrompts:
        """`count` prompts of `length` demonstrations ([LM25] Def. 1 and 2): every demonstration on μ_a or μ_b
        (fraction 1 of `sample_prompt_draw`), outliers on the directions of `outlier_set`."""
        units = self.units(c, renormalise)
        draw = sample_prompt_draw(
            c.rng,
            purpose,
            step,
            tasks=tasks,
            prompts=count,
            length=length,
            fraction=torch.full((), 1.0, device=c.rng.device),  # a fill on the device, not a host copy (CUDA graphs)
            relevant_count=c.M1,
            irrelevant_count=c.M2,
            kappa_range=K,
        )
        if outlier_set == "sum_L":
            table = None
        elif outlier_set in ("v1", "v2", "v3"):
            s = int(outlier_set[1]) - 1
            table = units["unseen"][s : s + 1]
        else:
            table = units[outlier_set]  # the V training v*_s or the three unseen v'_s
        directions = 1 if table is None else table.shape[0]
        drawn = sample_outliers(
            c.rng,
            purpose,
            step,
            prompts=count,
            length=length,
            fraction=fraction,
            directions=directions,
            placement=placement,
            count=outliers,
        )
        if table is None:  # sum_L: a fresh unit λ with Σλ = L for every demonstration
            normals = c.rng.normal(purpose + "/outlier_lambda", step, (count, length, c.V))
            vectors = coefficients_with_sum(normals, outlier_sum) @ units["train"]
        else:
            vectors = pick(drawn.direction, table)
        labels = outlier_labels(draw.context_label, drawn, label_mode, target)
        clean_x = features(draw, units["relevant"], units["irrelevant"], c.beta)  # μ_j + κν_k, norms β
        x = add_outliers(clean_x, drawn.is_outlier, vectors, magnitude)  # + κ_a v (Eq. 6, 7)
        return OutlierPrompts(
            draw, drawn, labels, clean_x, magnitude, embed(x, labels, label_embedding(1, device=x.device))
        )

    def batch(self, c: MambaOutliersConfig, step) -> Batch:
        prompts = self.prompts(
            c,
            "train",
            step,
            tasks=TaskSet.of(
                cyclic_tasks(c.M1, 1, c.rng.device) if c.train_tasks == "cyclic" else all_tasks(c.M1, c.rng.device)
            ),
            count=c.batch_size,
            length=c.l_tr,
            K=c.K,
            fraction=c.p_a,
            outlier_set="train",
            magnitude=c.kappa_a,
            label_mode="random",
        )
        return prompts.tokens, prompts.draw.z

    def loss(self, net: Net, batch: Batch, c: MambaOutliersConfig) -> torch.Tensor:
        P, z = batch
        return hinge(z * net(P)).mean()  # (1/B) Σ_n max{0, 1 − z^n F(Ψ; P^n)} ([LM25] Eq. 4, 19)

    # Measurements -------------------------------------------------------------------------------
    def probes(self, net: Net, c: MambaOutliersConfig, final: bool) -> dict[str, torch.Tensor]:
        units = self.units(c)
        metrics = {}
        for layer, (W_B, W_C, w) in enumerate(self.layer_weights(net.params, c)):
            metrics.update(weight_probes(W_B, W_C, w, units, layer_prefix(layer)))
        return metrics

    def test_chunk(self, c: MambaOutliersConfig, point: Mapping[str, Any], size: int, chunk: int) -> OutlierPrompts:
        """Chunk `chunk` of the eval point's test prompts: draw `chunk` of purpose "test", so the same prompts at
        every record and the same random numbers at another α, κ_a', label mode or placement."""
        count = point["outlier_count"]
        if point["placement"] != "bernoulli" and count is None:
            count = math.floor(point["alpha"] * point["l_ts"] + 0.5)  # round(α·l_ts) (our reading of Table 1)
        return self.prompts(
            c,
            "test",
            chunk,
            tasks=TaskSet.of(all_tasks(c.M1, c.rng.device)),
            count=size,
            length=point["l_ts"],
            K=point["K_test"],
            fraction=torch.tensor(point["alpha"]),
            outlier_set=point["outlier_set"],
            magnitude=point["kappa_a_test"],
            label_mode=point["label_mode"],
            target=float(point["target_label"]),
            placement=point["placement"],
            outliers=count,
            outlier_sum=point["outlier_sum"],
            renormalise=point["renormalise"],
        )

    def evaluate(
        self, net: Net, c: MambaOutliersConfig, point: Mapping[str, Any], final: bool
    ) -> dict[str, torch.Tensor]:
        total = point["eval_prompts"]
        per_v = point["outlier_set"] == "unseen"
        unseen = self.units(c, point["renormalise"]).get("unseen")
        sums: dict[str, torch.Tensor] = {}

        def add(name: str, value: torch.Tensor) -> None:
            sums[name] = sums.get(name, 0.0) + value.double()

        for chunk in range(math.ceil(total / EVAL_CHUNK_PROMPTS)):
            size = min(EVAL_CHUNK_PROMPTS, total - chunk * EVAL_CHUNK_PROMPTS)
            prompts = self.test_chunk(c, point, size, chunk)
            z = prompts.draw.z
            margin = z * net(prompts.tokens)  # z·F(Ψ; P')
            wrong = misclassified(margin)
            add("wrong", wrong.sum())
            loss = hinge(margin)
            add("hinge", loss.sum())
            add("outliers", prompts.outliers.is_outlier.sum())
            group = task_group(prompts.draw.task, c.M1)
            for g, name in enumerate(TASK_GROUPS):
                add(f"wrong_{name}", (wrong * (group == g)).sum())
                add(f"n_{name}", (group == g).sum())
            add("hinge_trained", (loss * (group == 0)).sum())
            if per_v:
                for s in range(3):
                    vectors = unseen[s].expand(*prompts.outliers.direction.shape, -1)
                    add(f"wrong_v{s + 1}", misclassified(z * net(prompts.with_vectors(vectors))).sum())
            self.add_mechanism(net, c, prompts, per_v, final, add)
        return self.test_metrics(c, sums, total, per_v, point["l_ts"])

    def add_mechanism(
        self, net: Net, c: MambaOutliersConfig, prompts: OutlierPrompts, per_v: bool, final: bool, add
    ) -> None:
        """The probes' sums per layer, on the layer's input tokens (our reading of §4.2)."""
        weights = self.layer_weights(net.params, c)
        if c.layers == 1:
            inputs = [prompts.tokens]
        else:
            W = net.params.get("W")
            full = W is None and c.lt_attention == "full_mean"
            inputs = layer_inputs(prompts.tokens, net.params["W_B"], net.params["W_C"], W, c.residual, full)
        direction = prompts.outliers.direction if per_v else None
        same, is_outlier = prompts.draw.same_as_query, prompts.outliers.is_outlier
        W = net.params.get("W") if c.layers > 1 else None  # a stack's whole gate matrices
        for layer, (tokens, (W_B, W_C, w)) in enumerate(zip(inputs, weights, strict=True)):
            W_layer = None if W is None else W[layer]
            sums = prompt_sums(tokens, W_B, W_C, w, same, is_outlier, direction, final, W_layer)
            for name, value in sums.items():
                add(f"{layer}/{name}", value)

    def test_metrics(self, c: MambaOutliersConfig, sums, total: int, per_v: bool, l_ts: int) -> dict[str, torch.Tensor]:
        dtype = torch.get_default_dtype()
        metrics = {
            "test_error": sums["wrong"] / total,  # [LM25] Eq. 5 over all tasks
            "test_hinge": sums["hinge"] / total,
            "outlier_fraction": sums["outliers"] / (total * l_ts),
        }
        for name in TASK_GROUPS:
            n = sums[f"n_{name}"]
            metrics[f"error_{name}"] = torch.where(n > 0, sums[f"wrong_{name}"] / n.clamp(min=1), math.nan)
        # the hinge on the M1 training tasks alone (the batch-size laws' criterion: no gap-2 floor)
        n = sums["n_trained"]
        metrics["hinge_trained"] = torch.where(n > 0, sums["hinge_trained"] / n.clamp(min=1), math.nan)
        if per_v:
            for s in range(1, 4):
                metrics[f"error_v{s}"] = sums[f"wrong_v{s}"] / total
        for layer in range(c.layers):
            own = {name.split("/", 1)[1]: v for name, v in sums.items() if name.startswith(f"{layer}/")}
            metrics.update(prompt_metrics(own, layer_prefix(layer), total))
        return {name: value.to(dtype) for name, value in metrics.items()}

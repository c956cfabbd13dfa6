"""Mechanism probes of the one-layer model ([L24] §4, Fig. 2; (A)–(E) are our measures), on stacked parameters.

(A) Q/K norms and projections ([L24] Prop. 4.1): ‖W_Q p_query‖, ‖W_K p_i‖ and |e(XDR(p))ᵀ W p| with
    e(v) = [v/β; 0] padded into the m_a-dim query/key space (Fig. 2A; valid because W_Q, W_K start as
    δ·[I_{d_X} 0], so their first d_X output axes are the feature axes), plus the largest off-target
    projections on other relevant (Eq. 18) and on irrelevant (Eq. 19) patterns.
(B) Attention mass on demonstrations sharing the query's relevant pattern ([L24] Cor. 4.3), next to
    the uniform share |N|/l.
(C, D) Rows r_i of W_O W_V ([L24] Prop. 4.5): the feature part r_{i,d_X} against μ̄ = Σ_j μ_j/M1 and the
    label part r_{i,d_Y} against sign(a_i)·q, as norms and angles (degrees), for 5 neurons with a_i > 0
    and 5 with a_i < 0 (the first of each sign by index: a fixed, random choice, Fig. 2 C–D) and averaged
    over the large neurons L.
(E) The small/large split of ‖r_i‖ ([L24] Thm 3.7): 2-means on log ‖r_i‖ (not from the paper).

Written for one config's parameters and prompts.
"""

from __future__ import annotations

import math

import torch

from iclscale.papers.common.patterns import Prompts
from iclscale.papers.nonlinear_icl.model import attention_weights
from iclscale.papers.nonlinear_icl.pruning import neuron_magnitudes, small_neurons

TRACKED_PER_SIGN = 5


def _projections(vectors: torch.Tensor, directions: torch.Tensor) -> torch.Tensor:
    """|e(v)ᵀ W p| for every pattern direction v/β (M, d_X): vectors (..., m_a) → (..., M)."""
    return (vectors[..., : directions.shape[-1]] @ directions.T).abs()


def _projection_stats(vectors: torch.Tensor, own: torch.Tensor, relevant: torch.Tensor, irrelevant: torch.Tensor):
    """Mean norm, mean |projection on its own relevant pattern|, mean of the largest off-target projections."""
    on_relevant = _projections(vectors, relevant)
    own_mask = torch.nn.functional.one_hot(own, relevant.shape[0]).bool()
    on_own = (on_relevant * own_mask).sum(-1)
    off_relevant = torch.where(own_mask, 0.0, on_relevant).amax(-1)
    off_irrelevant = _projections(vectors, irrelevant).amax(-1)
    return [t.mean() for t in (vectors.norm(dim=-1), on_own, off_relevant, off_irrelevant)]


def attention_probes(
    params: dict[str, torch.Tensor],
    prompts: Prompts,
    relevant: torch.Tensor,
    irrelevant: torch.Tensor,
    attend_to_query: bool,
    prefix: str,
) -> dict[str, torch.Tensor]:
    """(A) and (B) on one probe set, with metric names starting with `prefix`. relevant: the prompts' relevant
    patterns over β (IDR μ_j/β or ODR μ'_j/β), (M, d_X); irrelevant: ν_k/β, (M2, d_X)."""
    P, draw = prompts.tokens, prompts.draw
    l = P.shape[-2] - 1
    queries = P[..., -1, :] @ params["W_Q"].T  # W_Q p_query
    keys = P[..., :-1, :] @ params["W_K"].T  # W_K p_i, demonstrations
    metrics = {}
    for name, vectors, own in (("q", queries, draw.relevant[..., -1]), ("k", keys, draw.relevant[..., :-1])):
        norm, on_own, off_relevant, off_irrelevant = _projection_stats(vectors, own, relevant, irrelevant)
        metrics[f"{prefix}_{name}_norm"] = norm
        metrics[f"{prefix}_{name}_on_pattern"] = on_own  # [L24] Eq. 17
        metrics[f"{prefix}_{name}_off_relevant"] = off_relevant  # Eq. 18
        metrics[f"{prefix}_{name}_off_irrelevant"] = off_irrelevant  # Eq. 19

    attn = attention_weights(params["W_Q"], params["W_K"], P, attend_to_query)
    same = draw.same_as_query.to(attn.dtype)
    metrics[f"{prefix}_attn_same"] = (attn[..., :l] * same).sum(-1).mean()  # [L24] Cor. 4.3
    metrics[f"{prefix}_attn_other"] = (attn[..., :l] * (1 - same)).sum(-1).mean()
    metrics[f"{prefix}_attn_same_uniform"] = same.mean()  # |N|/l: what uniform attention would give
    if attend_to_query:
        metrics[f"{prefix}_attn_query"] = attn[..., l].mean()
    return metrics


def angle_degrees(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """The angle between u and v along the last axis, in degrees (NaN where either is zero)."""
    cosine = (u * v).sum(-1) / (u.norm(dim=-1) * v.norm(dim=-1))
    return torch.rad2deg(torch.arccos(cosine.clamp(-1.0, 1.0)))


def _masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.where(mask, values, 0.0).sum(-1) / mask.sum(-1)


def tracked_neurons(a: torch.Tensor) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """The first `TRACKED_PER_SIGN` neurons with a_i > 0 ("pos") and with a_i < 0 ("neg"), by index:
    (indices (5,), valid (5,)); a slot is invalid when there are fewer neurons of that sign."""
    tracked = {}
    for name, has_sign in (("pos", a > 0), ("neg", a < 0)):
        index = torch.argsort((~has_sign).to(torch.int8), stable=True)[:TRACKED_PER_SIGN]
        tracked[name] = (index, torch.arange(len(index)) < has_sign.sum())
    return tracked


def neuron_probes(
    params: dict[str, torch.Tensor], d_x: int, d_y: int, relevant_units: torch.Tensor, q: torch.Tensor
) -> dict[str, torch.Tensor]:
    """(C), (D), (E): parameters only. relevant_units: in-domain (M1, d_X); q: label direction (d_Y,)."""
    R = params["W_O"] @ params["W_V"]  # rows r_i ([L24] Thm 3.7)
    feature, label = R[..., :d_x], R[..., d_x : d_x + d_y]
    sign = torch.sign(params["a"])
    mean_pattern = relevant_units.mean(dim=0)  # μ̄/β ([L24] Prop. 4.5); β does not change angles
    feature_norm, label_norm = feature.norm(dim=-1), label.norm(dim=-1)
    feature_angle = angle_degrees(feature, mean_pattern.expand_as(feature))  # [L24] Eq. 21
    label_angle = angle_degrees(label, sign[..., None] * q)  # q_e = sign(a_i)·q, [L24] Eq. 22
    magnitude = R.norm(dim=-1)  # ‖r_i‖, as neuron_magnitudes(params, "wowv")
    small = small_neurons(magnitude)
    large = ~small
    metrics = {
        "small_neuron_fraction": small.float().mean(-1),  # |L^c|/m ([L24] Thm 3.7; Fig. 5: ≈ 15%)
        "neuron_magnitude_median": magnitude.median(dim=-1).values,
        "small_neuron_magnitude_max": torch.where(small, magnitude, 0.0).amax(-1),
        "large_neuron_magnitude_min": torch.where(large, magnitude, math.inf).amin(-1),
        "large_feature_norm": _masked_mean(feature_norm, large),
        "large_feature_angle": _masked_mean(feature_angle, large),
        "large_label_norm": _masked_mean(label_norm, large),
        "large_label_angle": _masked_mean(label_angle, large),
    }
    for sign_name, (index, valid) in tracked_neurons(params["a"]).items():
        for j in range(index.shape[0]):
            for name, values in (
                ("feature_norm", feature_norm),
                ("feature_angle", feature_angle),
                ("label_norm", label_norm),
                ("label_angle", label_angle),
            ):
                metrics[f"neuron_{sign_name}{j}_{name}"] = torch.where(valid[j], values[index[j]], math.nan)
    return metrics


def neuron_magnitude_table(params: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Every neuron's ‖r_i‖ (`neuron_magnitude_007`) and ‖W_O[i]‖ (`neuron_wo_magnitude_007`), by neuron index,
    for Fig. 5A's bars; sorting them gives the magnitude at each pruning rate."""
    wowv, wo = neuron_magnitudes(params, "wowv"), neuron_magnitudes(params, "wo")
    metrics = {}
    for i in range(wowv.shape[-1]):
        metrics[f"neuron_magnitude_{i:03d}"] = wowv[i]
        metrics[f"neuron_wo_magnitude_{i:03d}"] = wo[i]
    return metrics

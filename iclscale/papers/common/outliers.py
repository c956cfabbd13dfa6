"""Additive outliers in the pattern data model (an extension of `iclscale.papers.common.patterns`).

From Li, Lu, Cui, Chen, Wang, "Can Mamba learn in context with outliers? A theoretical generalization
analysis" [LM25] §3.2 (seed 002). A demonstration is clean, x = μ_j + κ·ν_k with the task's label, or carries an
additive outlier on a direction orthogonal to every pattern:

    training ([LM25] Eq. 6, Def. 1):  x = μ_j + κ ν_k + κ_a v*_s   with probability p_a, label a fair coin
    test     ([LM25] Eq. 7, Def. 2):  x = μ_j + κ' ν_k + κ_a' v'_s with probability α, label "an arbitrary
                                      function": flipped, one targeted label, or a coin ([LM25] §4.1, Fig. 2)

with v'_s ∈ 𝒱' = {Σ_i λ_i v*_i : Σ_i λ_i ≥ L > 0, ‖v'‖ = 1} ([LM25] Eq. 11). The queries are clean.

The V training directions sit on the spare axes past M1 + M2: v*_s = e_{M1+M2+s}, unit norm and orthonormal
(our reading: not stated, implied by ‖v'‖ = 1 ([LM25] Eq. 11) for the given λ). The demonstrations' patterns,
labels and κ come from `patterns.sample_prompt_draw` with fraction 1 (every demonstration on μ_a or μ_b,
[LM25] Def. 1); this module draws which demonstrations are outliers (`sample_outliers`), relabels them
(`outlier_labels`) and adds κ_a·v to their features (`add_outliers`). Table 1 places an exact number of outliers
farthest from the query, at random, or closest to it (`outlier_mask`).

Written for one config, like `patterns`: draws come from the config's stream under the caller's purpose, so
test prompts at another α share their random numbers (an outlier at α stays one at every larger α).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.utils._pytree import register_dataclass

from iclscale.papers.common.patterns import split_uniform
from iclscale.trainer.rng import Stream

PLACEMENTS = ("bernoulli", "farthest", "random", "closest")
"""bernoulli: each demonstration independently with probability α ([LM25] Eq. 7); the others place exactly
`count` outliers: farthest from the query (the first positions, FQ), at random positions (R), or closest to
it (the last positions, CQ) ([LM25] Table 1)."""

LABEL_MODES = ("flip", "targeted", "random")
"""The outliers' labels at test ([LM25] §4.1): (A) the task's label flipped, (B) one targeted label, (C) a coin."""

UNSEEN_COEFFICIENTS = ((0.7, 0.6, -0.4), (0.4, 0.7, -0.6), (-0.7, 0.5, 0.5))
"""λ of the three unseen test outliers v'_s = Σ_i λ_i v*_i ([LM25] §4): Σλ = 0.9, 0.5, 0.3, so L = 0.3."""


def outlier_units(d_x: int, M1: int, M2: int, V: int, device=None) -> torch.Tensor:
    """v*_s = e_{M1+M2+s}, s ∈ [V]: the training outlier directions on the spare axes, (V, d_X)."""
    if M1 + M2 + V > d_x:
        raise ValueError(f"M1 + M2 + V = {M1 + M2 + V} orthogonal directions do not fit in d = {d_x}")
    return torch.eye(d_x, device=device)[M1 + M2 : M1 + M2 + V]


def unseen_coefficients(V: int, device=None) -> torch.Tensor:
    """The paper's λ (3, V), padded with zeros on v*_4.. when V > 3 ([LM25] §4 combines v*_1..v*_3)."""
    if V < 3:
        raise ValueError(f"the unseen outliers of [LM25] §4 combine v*_1..v*_3 and need V ≥ 3, got V = {V}")
    # filled on the device, entry by entry: a table copied from host memory would stop a CUDA graph capture
    table = torch.stack(
        [torch.stack([torch.full((), value, device=device) for value in row]) for row in UNSEEN_COEFFICIENTS]
    )
    return torch.nn.functional.pad(table, (0, V - 3))


def coefficient_sum_threshold(coefficients: torch.Tensor) -> torch.Tensor:
    """L = min_s Σ_i λ_{s,i}: the largest L with every v'_s in 𝒱' ([LM25] Eq. 11)."""
    return coefficients.sum(-1).min(-1).values


def combined_units(coefficients: torch.Tensor, train_units: torch.Tensor, renormalise: bool) -> torch.Tensor:
    """v' = Σ_i λ_i v*_i: coefficients (..., V) → (..., d_X). The paper's three have norms 1.005, 1.005, 0.995;
    Eq. 11 asks ‖v'‖ = 1, which `renormalise` enforces."""
    v = coefficients @ train_units
    return v / v.norm(dim=-1, keepdim=True) if renormalise else v


def coefficients_with_sum(normals: torch.Tensor, L: float | torch.Tensor) -> torch.Tensor:
    """Unit λ ∈ R^V with Σλ = L exactly, one per row of `normals` (..., V) (standard normals): λ = (L/V)·1 +
    √(1 − L²/V)·u with u the normals projected off 1 and normalised, uniform on that circle of 𝒱' (Eq. 11's
    boundary; not from the paper, which gives three fixed λ). Needs L² ≤ V."""
    V = normals.shape[-1]
    u = normals - normals.mean(-1, keepdim=True)
    u = u / u.norm(dim=-1, keepdim=True).clamp(min=1e-12)
    return L / V + (1.0 - L * L / V) ** 0.5 * u


@dataclass
class OutlierDraw:
    """Which demonstrations of n prompts carry an outlier, on which direction, and a coin for random labels."""

    is_outlier: torch.Tensor  # (n, l) bool
    direction: torch.Tensor  # (n, l) long: index into the set of outlier directions
    coin: torch.Tensor  # (n, l): ±1, the label of a randomly labelled outlier


register_dataclass(OutlierDraw)


def outlier_mask(u: torch.Tensor, fraction: torch.Tensor | float, placement: str, count: int | None) -> torch.Tensor:
    """(n, l) bool from uniforms u (n, l). bernoulli: u < α (monotone in α: common random numbers); else exactly
    `count` outliers per prompt, at the first positions (farthest), the last (closest), or the positions of
    the `count` smallest u (random)."""
    l = u.shape[-1]
    position = torch.arange(l, device=u.device)
    if placement == "bernoulli":
        return u < fraction
    if count is None or not 0 <= count <= l:
        raise ValueError(f"placement {placement} needs 0 ≤ count ≤ l = {l} outliers, got {count}")
    if placement == "farthest":
        return (position < count).expand(u.shape)
    if placement == "closest":
        return (position >= l - count).expand(u.shape)
    if placement == "random":
        return torch.argsort(torch.argsort(u, dim=-1), dim=-1) < count
    raise ValueError(f"unknown placement {placement!r}; expected one of {', '.join(PLACEMENTS)}")


def sample_outliers(
    rng: Stream,
    purpose: str,
    step,
    *,
    prompts: int,
    length: int,
    fraction: torch.Tensor | float,
    directions: int,
    placement: str = "bernoulli",
    count: int | None = None,
) -> OutlierDraw:
    """Draw the outliers of n = `prompts` prompts of `length` demonstrations: the mask (`outlier_mask`), a direction
    uniform over `directions` ([LM25] Eq. 6: "v*_s uniformly sampled") and a fair coin per demonstration."""
    shape = (prompts, length)
    is_outlier = outlier_mask(rng.uniform(purpose + "/outlier", step, shape), fraction, placement, count)
    direction, coin = split_uniform(rng.uniform(purpose + "/outlier_direction", step, shape), directions)
    return OutlierDraw(is_outlier, direction, torch.where(coin < 0.5, 1.0, -1.0))


def outlier_labels(
    label: torch.Tensor, outliers: OutlierDraw, mode: str, target: float | torch.Tensor = 1.0
) -> torch.Tensor:
    """The demonstrations' labels (n, l) with the outliers' replaced ([LM25] Def. 1: a coin in training; §4.1 at
    test: (A) flip = −y, (B) targeted = `target`, (C) random = a coin). `label`: the task's labels (n, l)."""
    if mode == "flip":
        replaced = -label
    elif mode == "targeted":
        replaced = torch.full_like(label, 1.0) * target
    elif mode == "random":
        replaced = outliers.coin
    else:
        raise ValueError(f"unknown label mode {mode!r}; expected one of {', '.join(LABEL_MODES)}")
    return torch.where(outliers.is_outlier, replaced, label)


def add_outliers(
    x: torch.Tensor, is_outlier: torch.Tensor, vectors: torch.Tensor, magnitude: torch.Tensor | float
) -> torch.Tensor:
    """x + κ_a·v on the outlier demonstrations ([LM25] Eq. 6, 7); the query (last column) stays clean.
    x (n, l + 1, d_X); is_outlier (n, l); vectors (n, l, d_X), each demonstration's unit direction."""
    added = magnitude * is_outlier[..., None].to(x.dtype) * vectors
    return x + torch.cat([added, torch.zeros_like(added[..., :1, :])], dim=-2)


def pick(direction: torch.Tensor, units: torch.Tensor) -> torch.Tensor:
    """units[direction]: (n, l) indices into (S, d_X) → (n, l, d_X) (a row lookup, as `patterns.features`)."""
    return torch.nn.functional.embedding(direction, units)

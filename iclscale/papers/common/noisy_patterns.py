"""Seed 001's extension of the pattern data model (`iclscale.papers.common.patterns`): noisy features.

Li, Wang et al. 2023, "Transformers as multi-task feature selectors" [LW23] §3.2, Eq. 3: every token is

    x = λ·μ_j + κ·ν_k + n,   λ > 0, |κ| ≤ 1, ‖n‖ ≤ τ,   λ_* = min λ (Eq. 4),   y = ±q with ‖q‖ = β,

on the tasks, demonstration fractions and embedding of `patterns` (a prompt is a `PromptDraw` plus these
coefficients). The paper gives only the bounds: the distributions below are ours, each in two
readings. Out of domain ([LW23] §3.5, Thm 2), test-relevant directions are combinations of the μ
(`cone_combinations`) and new directions sit on spare axes (`spare_axes`).

Written for one config, like `patterns`; every draw comes from the config's stream under the caller's purpose.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import torch

from iclscale.papers.common.patterns import Prompts, TaskSet, embed, features, sample_prompt_draw
from iclscale.trainer.rng import Stream


@dataclass
class FeatureNoise:
    """How λ, κ and n of Eq. 3 are drawn: λ ~ U[λ_*, 1] ("uniform") or λ = λ_* ("fixed"); κ ~ U(−1, 1)
    ("uniform", Eq. 3's |κ| ≤ 1) or κ = 1 − λ ("one_minus_lambda", the proofs' x = λμ + (1 − λ)ν); n uniform
    in the τ-ball ("ball") or on its sphere ("sphere", ‖n‖ = τ). lambda_star, tau: 0-d tensors."""

    lambda_star: torch.Tensor
    tau: torch.Tensor
    lambda_mode: str = "uniform"
    kappa_mode: str = "uniform"
    noise_mode: str = "ball"


def relevant_coefficients(u: torch.Tensor, lambda_star: torch.Tensor, mode: str) -> torch.Tensor:
    """λ of every column from uniforms u: λ_* + (1 − λ_*)·u, or λ_* itself ([LW23] Eq. 3–4: λ ≥ λ_* > 0)."""
    if mode == "fixed":
        return lambda_star * torch.ones_like(u)
    return lambda_star + (1 - lambda_star) * u


def bounded_noise(rng: Stream, purpose: str, step, shape: tuple[int, ...], d: int, tau, mode: str) -> torch.Tensor:
    """n ∈ R^d with ‖n‖ ≤ τ ([LW23] Eq. 3), (*shape, d): τ·U^{1/d}·g/‖g‖ (uniform in the ball) or τ·g/‖g‖."""
    direction = rng.sphere(purpose + "/direction", step, shape, d)
    if mode == "sphere":
        return tau * direction
    radius = tau * rng.uniform(purpose + "/radius", step, shape) ** (1.0 / d)
    return radius[..., None] * direction


def sample_noisy_prompts(
    rng: Stream,
    purpose: str,
    step,
    *,
    tasks: TaskSet,
    prompts: int,
    length: int,
    fraction: torch.Tensor,
    relevant_units: torch.Tensor,
    irrelevant_units: torch.Tensor,
    beta: torch.Tensor,
    q: torch.Tensor,
    noise: FeatureNoise,
) -> Prompts:
    """Prompts of [LW23] §3.2: `sample_prompt_draw` (κ ~ U(−1, 1)), then λ, κ and n by `noise`, x by Eq. 3."""
    draw = sample_prompt_draw(
        rng,
        purpose,
        step,
        tasks=tasks,
        prompts=prompts,
        length=length,
        fraction=fraction,
        relevant_count=relevant_units.shape[-2],
        irrelevant_count=irrelevant_units.shape[-2],
        kappa_range=1.0,
    )
    columns = draw.kappa.shape
    lam = relevant_coefficients(rng.uniform(purpose + "/lambda", step, columns), noise.lambda_star, noise.lambda_mode)
    if noise.kappa_mode == "one_minus_lambda":
        draw = dataclasses.replace(draw, kappa=1 - lam)
    n = bounded_noise(rng, purpose + "/noise", step, columns, relevant_units.shape[-1], noise.tau, noise.noise_mode)
    x = features(draw, relevant_units, irrelevant_units, beta, lam) + n  # λμ_j + κν_k + n ([LW23] Eq. 3)
    return Prompts(draw, embed(x, draw.context_label, q))


def cone_combinations(relevant_units: torch.Tensor, count: int, mix: float, sign: float = 1.0) -> torch.Tensor:
    """Unit test-relevant directions μ'_j/β = (u_j + sign·w·u_{j+1 mod M1})/√(1 + w²), j < count: (count, d_X).

    sign = +1, w ≥ 0: μ'_j lies in the non-negative cone of the μ ([LW23] Thm 2's first condition; rescaled to
    norm β, our reading of §3.5's "orthonormal"); w = 0 gives μ'_j = μ_j. sign = −1: a negative coefficient
    (Remark 1 violated). Not from the paper: which combinations ((μ_1 + μ_2)/√2 generalised to neighbours)."""
    M1 = relevant_units.shape[-2]
    if not 1 <= count <= M1:
        raise ValueError(f"{count} test-relevant patterns cannot be combined from M1 = {M1} (need M1' ≤ M1)")
    following = torch.roll(relevant_units, -1, dims=-2)
    return ((relevant_units + sign * mix * following) / math.sqrt(1 + mix * mix))[:count]


def cone_blocks(relevant_units: torch.Tensor, count: int) -> torch.Tensor:
    """Unit test-relevant directions that are orthonormal and in the non-negative cone of the μ: μ'_j/β = the
    normalised sum of the j-th of `count` contiguous blocks of u_1 … u_M1 (the first M1 mod count blocks one longer),
    so the blocks are disjoint and μ'_j ⟂ μ'_k: (count, d_X). [LW23] §3.5: the μ′, ν′ "form another orthonormal
    basis", and Thm 2 puts μ′ in the cone; only disjoint supports satisfy both. Which blocks: not from the paper."""
    M1 = relevant_units.shape[-2]
    if not 1 <= count <= M1:
        raise ValueError(f"{count} test-relevant patterns cannot be combined from M1 = {M1} (need M1' ≤ M1)")
    sizes = [M1 // count + (1 if j < M1 % count else 0) for j in range(count)]
    blocks = torch.repeat_interleave(torch.arange(count), torch.tensor(sizes))  # block of each u_i
    membership = torch.nn.functional.one_hot(blocks, count).to(relevant_units.dtype).T  # (count, M1)
    return (membership @ relevant_units) / torch.tensor(sizes, dtype=relevant_units.dtype).sqrt()[:, None]


def spare_axes(d_x: int, start: int, count: int) -> torch.Tensor:
    """e_{start+1} … e_{start+count} of R^{d_X}: unit directions orthogonal to every pattern on the first `start`
    axes (new test-irrelevant ν', or test-relevant directions outside span{μ}): (count, d_X)."""
    if start + count > d_x:
        raise ValueError(f"{count} new directions after the first {start} axes do not fit in d_X = {d_x}")
    return torch.eye(d_x)[start : start + count]

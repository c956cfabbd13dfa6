"""The data model of Collins et al. 2024 [C24] §2: covariates on the sphere, task classes, prompts.

Written for one config: T tasks, P points per task, d dimensions; per-config scalars (L, σ, ν) are
0-d tensors. Every draw comes from the config's stream `rng` (the trainer vmaps over the pack).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from iclscale.trainer.rng import Stream


# Covariates ---------------------------------------------------------------------------------
def sample_covariates(
    kind: str,
    rng: Stream,
    purpose: str,
    step: int,
    shape: tuple[int, ...],
    d: int,
    transform: torch.Tensor | None = None,
) -> torch.Tensor:
    """Points on the sphere S^{d-1}, shape (*shape, d)."""
    if kind == "isotropic":  # U^d: x = g/‖g‖, g ~ N(0, I_d) ([C24] §2)
        return rng.sphere(purpose, step, shape, d)
    g = rng.normal(purpose, step, (*shape, d))
    if kind == "nonisotropic":  # U^d_S: x = S_d x̃/‖S_d x̃‖, S_d = diag(1, ..., d) ([C24] §3.2)
        z = g * torch.arange(1, d + 1, dtype=g.dtype, device=g.device)
    elif kind in ("lowrank_gaussian", "lowrank_gaussian_task"):  # x = J̃x̃/‖J̃x̃‖, J̃ = (JᵀJ)^{1/2} ([C24] App J.1)
        while transform.ndim < g.ndim + 1:  # (d, d) per trial or (T, d, d) per task, against (T, P, d)
            transform = transform.unsqueeze(-3)
        z = (transform @ g.unsqueeze(-1)).squeeze(-1)
    else:
        raise ValueError(f"unknown covariates {kind!r}")
    return z / z.norm(dim=-1, keepdim=True)


def covariate_transform(
    rng: Stream, d: int, purpose: str = "covariate_transform", step: int = 0, shape: tuple[int, ...] = ()
) -> torch.Tensor:
    """J̃ = (JᵀJ)^{1/2} with J_ij ~ N(0, 1) ([C24] App J.1): (*shape, d, d) — one per trial by
    default, or one per task with shape = (tasks,). Computed in float64 (a badly conditioned J)."""
    J = rng.normal(purpose, step, (*shape, d, d)).double()
    eigenvalues, vectors = torch.linalg.eigh(J.transpose(-1, -2) @ J)
    root = vectors @ torch.diag_embed(eigenvalues.clamp(min=0).sqrt()) @ vectors.transpose(-1, -2)
    return root.to(torch.get_default_dtype())


def subspace(rng: Stream, d: int, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """B ∈ O^{d×k} and its complement B_⊥: a Gaussian matrix, then QR ([C24] App J.1)."""
    G = rng.normal("subspace", 0, (d, d)).double()
    Q, R = torch.linalg.qr(G)
    Q = Q * torch.sign(torch.diagonal(R, dim1=-2, dim2=-1)).unsqueeze(-2)  # unique QR: diag(R) > 0
    dtype = torch.get_default_dtype()
    return Q[..., :k].to(dtype), Q[..., k:].to(dtype)


# Task classes -------------------------------------------------------------------------------
@dataclass
class Tasks:
    """T sampled functions. `tasks(x)` maps x (T, P, d) to f(x) (T, P)."""

    task_class: str
    direction: torch.Tensor  # (T, d): w, or B·a for the low-rank classes
    coef: torch.Tensor  # (T, 3): the class's scalar coefficients
    hills_mode: str = "frequency"

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        u = torch.einsum("tpd,td->tp", x, self.direction)  # wᵀx
        c = [self.coef[..., j : j + 1] for j in range(3)]
        match self.task_class:
            case "affine":  # f(x) = l·wᵀx + b ([C24] Def 3.2)
                return c[0] * u + c[1]
            case "relu":  # f(x) = l_1 (wᵀx)_+ + l_2 (−wᵀx)_+ + b ([C24] Def 3.2, C.2)
                return c[0] * torch.relu(u) + c[1] * torch.relu(-u) + c[2]
            case "cos":  # f(x) = cos(L·wᵀx) ([C24] §3.2)
                return torch.cos(c[0] * u)
            case "linear":  # f(x) = L·wᵀx ([C24] §3.1)
                return c[0] * u
            case "hills":  # F_ν,hills on the circle x = (cos θ, sin θ) ([C24] App J, Fig 1)
                return self._hills(x, c)
            case "lowrank_linear":  # f(x) = aᵀBᵀx ([C24] Def 4.2)
                return u
            case "lowrank_affine":  # f(x) = aᵀBᵀx + 2 ([C24] App J.1)
                return u + 2.0
            case "lowrank_quadratic":  # f(x) = (aᵀBᵀx)² ([C24] App J.1)
                return u**2
            case "lowrank_cos":  # f(x) = cos(4·aᵀBᵀx) ([C24] App J.1)
                return torch.cos(4.0 * u)
        raise ValueError(f"unknown task class {self.task_class!r}")

    def _hills(self, x: torch.Tensor, c: list[torch.Tensor]) -> torch.Tensor:
        """F_ν,hills at the angle θ of x, with c = (ν, b): the paper's formula is read two ways (`hills_mode`)."""
        theta = torch.atan2(x[..., 1], x[..., 0])
        if self.hills_mode == "frequency":
            return torch.cos(c[0] * (theta - c[1]))  # cos(ν(θ − b)): our reading
        return c[0] * torch.cos(theta - c[1])  # ν·cos(θ − b): the OCR's literal text


def sample_tasks(
    task_class: str,
    rng: Stream,
    purpose: str,
    step: int,
    count: int,
    d: int,
    L: torch.Tensor,
    nu: torch.Tensor,
    basis: torch.Tensor | None = None,
    hills_mode: str = "frequency",
) -> Tasks:
    """`count` tasks from D(F): the class's distribution in [C24] (see Tasks)."""
    u = rng.uniform(purpose + "/coef", step, (count, 3))
    if task_class in ("affine", "relu"):  # l, b (and l_2) ~ Unif[−L, L] ([C24] Def 3.2)
        coef = L * (2 * u - 1)
    elif task_class in ("cos", "linear"):
        coef = L.expand_as(u)
    elif task_class == "hills":  # coefficients (ν, b), b ~ Unif[−π, π] ([C24] App J)
        b = math.pi * (2 * u[..., 1] - 1)
        coef = torch.stack([nu.expand_as(b), b, torch.zeros_like(b)], -1)
    else:
        coef = u
    if task_class.startswith("lowrank"):  # a ~ L·U^k, direction B·a, so aᵀBᵀx = (Ba)ᵀx
        k = basis.shape[-1]
        a = rng.sphere(purpose + "/direction", step, (count,), k) * L
        direction = a @ basis.T
    else:  # w ~ U^d
        direction = rng.sphere(purpose + "/direction", step, (count,), d)
    return Tasks(task_class, direction, coef, hills_mode)


# Prompts ------------------------------------------------------------------------------------
@dataclass
class Prompts:
    """ICL prompts ([C24] eq. 1–2): n labelled points y_i = f(x_i) + ε_i, and N queries with the
    noise-free targets f(x_q) that the loss compares against."""

    x_context: torch.Tensor  # (T, n, d)
    y_context: torch.Tensor  # (T, n)
    x_query: torch.Tensor  # (T, N, d)
    f_query: torch.Tensor  # (T, N)


def sample_prompts(
    rng: Stream,
    purpose: str,
    step: int,
    *,
    tasks: int,
    n: int,
    queries: int,
    d: int,
    covariates: str,
    task_class: str,
    L: torch.Tensor,
    sigma: torch.Tensor,
    nu: torch.Tensor,
    constants: dict[str, torch.Tensor],
    hills_mode: str,
) -> Prompts:
    """Draw `tasks` prompts. Prompts with another task class or L but the same purpose
    and step share their covariates, noise and task draws (common random numbers)."""
    transform = constants.get("covariate_transform")
    if covariates == "lowrank_gaussian_task":  # a new non-uniform distribution for every task
        transform = covariate_transform(rng, d, purpose + "/covariate_transform", step, (tasks,))
    x = sample_covariates(covariates, rng, purpose + "/x", step, (tasks, n + queries), d, transform)
    f = sample_tasks(task_class, rng, purpose + "/task", step, tasks, d, L, nu, constants.get("B"), hills_mode)
    fx = f(x)
    noise = rng.normal(purpose + "/noise", step, (tasks, n))  # ε ~ N(0, σ²) ([C24] §3.2)
    y = fx[..., :n] + sigma * noise
    return Prompts(x[..., :n, :], y, x[..., n:, :], fx[..., n:])

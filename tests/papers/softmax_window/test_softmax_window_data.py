"""The data model of Collins et al. 2024: covariates, task classes, the exact L-scaling symmetry."""

import math

import pytest
import torch

from iclscale.papers.softmax_window.data import (
    covariate_transform,
    sample_covariates,
    sample_prompts,
    sample_tasks,
    subspace,
)
from iclscale.papers.softmax_window.declaration import FULL_RANK_CLASSES, LOW_RANK_CLASSES
from iclscale.trainer.rng import Stream

rng = Stream.from_seeds(0)  # one config, as a study sees it


@pytest.mark.parametrize("kind", ["isotropic", "nonisotropic", "lowrank_gaussian"])
def test_covariates_lie_on_the_sphere(kind):
    x = sample_covariates(kind, rng, "x", 0, (50, 10), 6, covariate_transform(rng, 6))
    assert x.shape == (50, 10, 6)
    assert torch.allclose(x.norm(dim=-1), torch.ones(50, 10), atol=1e-5)


def test_isotropic_covariates_are_centred_with_covariance_identity_over_d():
    x = sample_covariates("isotropic", Stream.from_seeds(3), "x", 0, (100_000,), 4).double()
    assert x.mean(0).abs().max() < 0.01
    assert torch.allclose(x.T @ x / len(x), torch.eye(4, dtype=torch.float64) / 4, atol=0.01)


def test_nonisotropic_covariates_favour_later_coordinates():
    x = sample_covariates("nonisotropic", Stream.from_seeds(3), "x", 0, (20_000,), 5)
    second_moments = (x**2).mean(0)
    assert torch.all(second_moments[1:] > second_moments[:-1])


def test_subspace_is_orthonormal_and_complemented():
    B, B_perp = subspace(rng, 7, 2)
    Q = torch.cat([B, B_perp], dim=-1)
    assert torch.allclose(Q.T @ Q, torch.eye(7), atol=1e-5)


LIPSCHITZ = {
    "affine": 1.0,
    "relu": 1.0,
    "cos": 1.0,
    "linear": 1.0,
    "lowrank_linear": 1.0,
    "lowrank_affine": 1.0,
    "lowrank_quadratic": 2.0,
    "lowrank_cos": 4.0,
}


@pytest.mark.parametrize("task_class", [*FULL_RANK_CLASSES, *LOW_RANK_CLASSES])
@pytest.mark.parametrize("L", [0.5, 3.0])
def test_sampled_functions_respect_their_lipschitz_bound(task_class, L):
    """|f(x) − f(x')| ≤ Lip·‖x − x'‖ over many random pairs, including near pairs."""
    d = 5
    B, _ = subspace(rng, d, 2)
    f = sample_tasks(task_class, rng, "t", 0, 40, d, torch.tensor(L), torch.tensor(0.0), B)
    x = sample_covariates("isotropic", rng, "x", 0, (40, 400), d)
    nearby = x + 0.05 * rng.normal("dx", 0, (40, 400, d))
    nearby = nearby / nearby.norm(dim=-1, keepdim=True)
    for a, b in [(x, nearby), (x, x.roll(1, dims=1))]:
        ratio = (f(a) - f(b)).abs() / (a - b).norm(dim=-1).clamp(min=1e-6)
        bound = LIPSCHITZ[task_class] * (L**2 if task_class == "lowrank_quadratic" else L)
        assert ratio.max().item() <= bound * (1 + 1e-3)
        assert ratio.max().item() > 0.1 * bound  # and the sampled functions are not trivially flat


def test_hills_frequency_has_nu_hills_on_the_circle():
    theta = torch.linspace(-math.pi, math.pi, 2001)
    x = torch.stack([theta.cos(), theta.sin()], -1).expand(1, -1, -1)
    f = sample_tasks("hills", Stream.from_seeds(0), "t", 0, 1, 2, torch.tensor(1.0), torch.tensor(6.0))
    values = f(x)[0]
    maxima = ((values[1:-1] > values[:-2]) & (values[1:-1] > values[2:])).sum().item()
    assert maxima == 6
    constant = sample_tasks("hills", Stream.from_seeds(0), "t", 0, 1, 2, torch.tensor(1.0), torch.tensor(0.0))
    assert torch.allclose(constant(x), torch.ones_like(constant(x)))  # ν = 0: f ≡ 1 (Remark 2.1(i))


@pytest.mark.parametrize("task_class", ["affine", "relu"])
def test_loss_symmetry_L_squared(task_class):
    """ℒ(M; L, σ) = L²·ℒ(M; 1, σ/L) for the affine and ReLU classes (derived here from Def. 3.2), with common
    random numbers."""
    from iclscale.papers.softmax_window.model import SoftmaxAttention

    unit = SoftmaxAttention(4)
    with torch.no_grad():
        unit.M_K.copy_(torch.randn(4, 4, generator=torch.Generator().manual_seed(0)))
    L, sigma = 3.0, 0.6

    def loss(L_value, sigma_value):
        p = sample_prompts(
            Stream.from_seeds(11),
            "sym",
            0,
            tasks=512,
            n=30,
            queries=5,
            d=4,
            covariates="isotropic",
            task_class=task_class,
            L=torch.tensor(L_value),
            sigma=torch.tensor(sigma_value),
            nu=torch.tensor(0.0),
            constants={},
            hills_mode="frequency",
        )
        with torch.no_grad():
            return ((unit(p.x_context, p.y_context, p.x_query) - p.f_query) ** 2).double().mean().item()

    assert loss(L, sigma) == pytest.approx(L**2 * loss(1.0, sigma / L), rel=1e-5)
    assert loss(L, sigma) != pytest.approx(L**2 * loss(1.0, sigma), rel=1e-2)  # σ must scale too

"""Seed 001's noisy patterns (iclscale.papers.common.noisy_patterns): x = λμ + κν + n of [LW23] Eq. 3, the OOD
directions."""

import math

import pytest
import torch

from iclscale.papers.common.noisy_patterns import (
    FeatureNoise,
    bounded_noise,
    cone_combinations,
    relevant_coefficients,
    sample_noisy_prompts,
    spare_axes,
)
from iclscale.papers.common.patterns import TaskSet, cyclic_tasks, features, label_embedding, unit_patterns
from iclscale.trainer.rng import Stream

M1, M2, D_X, D_Y = 4, 16, 24, 3


def _prompts(noise: FeatureNoise, beta=1.5, prompts=600, seed=0):
    relevant, irrelevant = unit_patterns(D_X, M1, M2)
    return sample_noisy_prompts(
        Stream.from_seeds([seed])[0],
        "t",
        0,
        tasks=TaskSet.of(cyclic_tasks(M1, 1)),
        prompts=prompts,
        length=12,
        fraction=torch.tensor(0.6),
        relevant_units=relevant,
        irrelevant_units=irrelevant,
        beta=torch.tensor(beta),
        q=label_embedding(D_Y, beta),
        noise=noise,
    )


def _parts(prompts, beta):
    """λ, κ and n recovered from the features: μ_j and ν_k sit on their own axes."""
    x, draw = prompts.tokens[..., :D_X], prompts.draw
    lam = x.gather(-1, draw.relevant[..., None])[..., 0] / beta
    kappa = x.gather(-1, M1 + draw.irrelevant[..., None])[..., 0] / beta
    pure = features(draw, *unit_patterns(D_X, M1, M2), torch.tensor(beta), lam)
    return lam, kappa, x - pure


def test_noiseless_tokens_are_lambda_mu_plus_kappa_nu():
    noise = FeatureNoise(torch.tensor(0.3), torch.tensor(0.0))
    prompts = _prompts(noise)
    lam, kappa, rest = _parts(prompts, 1.5)
    assert torch.all(rest.abs() < 1e-6)  # x = λμ_j + κν_k exactly at τ = 0 ([LW23] Eq. 3)
    assert lam.min() >= 0.3 and lam.max() <= 1.0  # λ ~ U[λ_*, 1]: λ_* is the smallest coefficient (Eq. 4)
    assert lam.mean().item() == pytest.approx(0.65, abs=0.01)
    assert kappa.abs().max() <= 1.0 and kappa.mean().abs() < 0.03  # κ ~ U(−1, 1)


def test_fixed_lambda_and_one_minus_lambda_kappa():
    noise = FeatureNoise(torch.tensor(0.4), torch.tensor(0.0), lambda_mode="fixed", kappa_mode="one_minus_lambda")
    lam, kappa, _ = _parts(_prompts(noise), 1.5)
    assert torch.allclose(lam, torch.full_like(lam, 0.4)) and torch.allclose(kappa, torch.full_like(kappa, 0.6))


@pytest.mark.parametrize("mode", ["ball", "sphere"])
def test_noise_is_bounded_by_tau(mode):
    tau, d = 0.2, 24
    n = bounded_noise(Stream.from_seeds([3])[0], "noise", 0, (20000,), d, torch.tensor(tau), mode)
    norms = n.norm(dim=-1)
    assert norms.max() <= tau * (1 + 1e-5)
    if mode == "sphere":
        assert torch.allclose(norms, torch.full_like(norms, tau))
    else:  # uniform in the ball: P(‖n‖ ≤ rτ) = r^d
        assert (norms <= 0.9 * tau).float().mean().item() == pytest.approx(0.9**d, abs=0.01)
    assert n.mean(0).abs().max() < 0.01  # no preferred direction


def test_tokens_carry_the_noise_and_labels_are_plus_minus_q_of_norm_beta():
    prompts = _prompts(FeatureNoise(torch.tensor(0.5), torch.tensor(0.25), noise_mode="sphere"), beta=2.0)
    _, _, rest = _parts(prompts, 2.0)
    off_pattern = rest.clone()  # the noise outside the two pattern axes of each token
    off_pattern.scatter_(-1, prompts.draw.relevant[..., None], 0.0)
    off_pattern.scatter_(-1, M1 + prompts.draw.irrelevant[..., None], 0.0)
    assert off_pattern.norm(dim=-1).max() <= 0.25 + 1e-5 and off_pattern.norm(dim=-1).mean() > 0.2
    labels = prompts.tokens[..., :-1, D_X:]
    assert torch.allclose(labels.norm(dim=-1), torch.full(labels.shape[:-1], 2.0))  # ‖q‖ = β ([LW23] §3.2)
    assert torch.allclose(labels, prompts.draw.context_label[..., None] * label_embedding(D_Y, 2.0))
    assert torch.all(prompts.tokens[..., -1, D_X:] == 0)  # the query's label slot is 0 (Eq. 1)


def test_relevant_coefficients_readings():
    u = torch.tensor([0.0, 0.5, 1.0])
    assert relevant_coefficients(u, torch.tensor(0.2), "uniform").tolist() == pytest.approx([0.2, 0.6, 1.0])
    assert relevant_coefficients(u, torch.tensor(0.2), "fixed").tolist() == pytest.approx([0.2] * 3)


def test_cone_combinations_are_unit_non_negative_and_negative_ones_are_not():
    relevant, _ = unit_patterns(D_X, M1, M2)
    cone = cone_combinations(relevant, 3, 1.0)
    assert torch.allclose(cone.norm(dim=-1), torch.ones(3))
    coefficients = cone @ relevant.T  # k_{j,i} of μ′_j = Σ_i k_{j,i} μ_i
    assert torch.all(coefficients >= 0) and torch.allclose(coefficients[0], torch.tensor([1, 1, 0, 0]) / math.sqrt(2))
    assert torch.allclose(cone @ cone.T, torch.tensor([[1, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]]))
    negative = cone_combinations(relevant, 3, 0.5, sign=-1.0) @ relevant.T
    assert (negative < 0).sum().item() == 3 and torch.allclose(cone_combinations(relevant, 2, 0.0), relevant[:2])
    with pytest.raises(ValueError, match="M1' ≤ M1"):
        cone_combinations(relevant, 5, 1.0)


def test_spare_axes_are_orthogonal_to_every_pattern():
    relevant, irrelevant = unit_patterns(D_X, M1, M2)
    spare = spare_axes(D_X, M1 + M2, 4)
    assert torch.all(spare @ relevant.T == 0) and torch.all(spare @ irrelevant.T == 0)
    assert torch.allclose(spare @ spare.T, torch.eye(4))
    with pytest.raises(ValueError, match="do not fit"):
        spare_axes(D_X, M1 + M2, 5)

"""Mechanism probes of Li et al. 2024 Fig. 2 (our measures of it) on hand-made parameters."""

import pytest
import torch
from torch.func import vmap

from iclscale.papers.common.patterns import TaskSet, cyclic_tasks, label_embedding, sample_prompts, unit_patterns
from iclscale.papers.nonlinear_icl.probes import attention_probes, neuron_probes
from iclscale.papers.nonlinear_icl.pruning import small_neurons
from iclscale.trainer.rng import Stream

D_X, D_Y, M1, M2 = 30, 30, 6, 24


def _prompts(beta=3.0):
    mu, nu = unit_patterns(D_X, M1, M2)
    prompts = sample_prompts(
        Stream.from_seeds(0),
        "probe",
        0,
        tasks=TaskSet.of(cyclic_tasks(M1, 1)),
        prompts=64,
        length=20,
        fraction=torch.tensor(0.8),
        relevant_units=mu,
        irrelevant_units=nu,
        beta=torch.tensor(beta),
        kappa_range=torch.tensor(0.5),
        q=label_embedding(D_Y),
    )
    return prompts, mu, nu


def _attention_params(scale):
    W = scale * torch.diag((torch.arange(60) < D_X).float())  # scale·[I_{d_X} 0]
    return {"W_Q": W, "W_K": W.clone()}


def test_projections_and_attention_mass_at_zero_and_large_scale():
    prompts, mu, nu = _prompts()
    uniform = attention_probes(_attention_params(0.0), prompts, mu, nu, False, "id")
    assert uniform["id_attn_same"].item() == pytest.approx(uniform["id_attn_same_uniform"].item(), rel=1e-6)
    assert uniform["id_q_norm"].item() == 0.0

    sharp = attention_probes(_attention_params(2.0), prompts, mu, nu, False, "id")
    assert sharp["id_attn_same"].item() > 0.99  # scores 4β² on same-pattern demonstrations, ≤ 4β²K² elsewhere
    assert sharp["id_attn_same"].item() + sharp["id_attn_other"].item() == pytest.approx(1.0, abs=1e-6)
    # W_Q p_query = 2x: its projection on μ_j/β is 2β, on the irrelevant pattern 2β|κ| ≤ β, on other μ 0
    assert sharp["id_q_on_pattern"].item() == pytest.approx(6.0, rel=1e-6)
    assert sharp["id_q_off_relevant"].item() == 0.0
    assert 0 < sharp["id_q_off_irrelevant"].item() < 3.0
    assert sharp["id_q_norm"].item() > sharp["id_q_on_pattern"].item()
    with_query = attention_probes(_attention_params(2.0), prompts, mu, nu, True, "id")
    assert 0 < with_query["id_attn_query"].item() < 1


def test_neuron_probes_measure_feature_and_label_parts():
    mu, _ = unit_patterns(D_X, M1, M2)
    q = label_embedding(D_Y)
    m = 12
    a = torch.tensor([1.0, -1.0] * (m // 2)) / m
    mean_pattern = mu.mean(0) / mu.mean(0).norm()
    # rows r_i = (c_i·μ̄, sign(a_i)·d_i·q) with W_V = I: large neurons 0..9, small ones 10, 11
    c = torch.tensor([2.0] * 10 + [0.01, 0.01])
    d = torch.tensor([3.0] * 10 + [0.01, 0.01])
    rows = torch.cat([c[:, None] * mean_pattern, torch.sign(a)[:, None] * d[:, None] * q], dim=1)
    params = {"W_O": rows, "W_V": torch.eye(60), "a": a}
    found = neuron_probes(params, D_X, D_Y, mu, q)
    assert found["small_neuron_fraction"].item() == pytest.approx(2 / 12)
    assert found["large_feature_norm"].item() == pytest.approx(2.0, rel=1e-5)
    assert found["large_label_norm"].item() == pytest.approx(3.0, rel=1e-5)
    assert found["large_feature_angle"].item() == pytest.approx(0.0, abs=0.1)  # aligned with μ̄ (Eq. 21)
    assert found["large_label_angle"].item() == pytest.approx(0.0, abs=0.1)  # with sign(a_i)·q (Eq. 22)
    assert found["neuron_neg0_label_norm"].item() == pytest.approx(3.0, rel=1e-5)  # neuron 1, the first a_i < 0
    flipped = dict(params, a=-a)
    assert neuron_probes(flipped, D_X, D_Y, mu, q)["large_label_angle"].item() == pytest.approx(180.0, abs=0.1)


def test_two_means_split_finds_the_gap():
    magnitudes = torch.tensor([[0.1, 2.0, 0.12, 1.8, 2.2, 0.09, 1.9], [1.0, 1.1, 0.9, 1.05, 0.001, 0.95, 1.02]])
    assert vmap(small_neurons)(magnitudes).tolist() == [
        [True, False, True, False, False, True, False],
        [False, False, False, False, True, False, False],
    ]
    assert not small_neurons(torch.ones(1)).any()
    counts = vmap(small_neurons)(torch.rand(3, 60) + 1).sum(1)
    assert torch.all((counts >= 1) & (counts <= 59))  # two non-empty groups

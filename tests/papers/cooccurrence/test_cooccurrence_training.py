"""Training the co-occurrence transformer (seed 003): gradient-flow time, exact flow rates, balancing sums."""

import numpy as np
import pytest
import torch

from iclscale.trainer.params import RecordSchedule
from iclscale.trainer.registry import study_info
from iclscale.trainer.study import Pack
from iclscale.trainer.training import train_pack

SMALL = {"d": 24, "n": 12, "m": 16, "m1": 8}


def _train(steps, lr, record, seeds=(0,), **extra):
    info = study_info("cooccurrence")
    resolved = [info.resolve({**SMALL, "steps": steps, "lr": lr, **extra}, s, "t") for s in seeds]
    point = resolved[0][1]
    result = train_pack(info, [c for c, _ in resolved], [point], record)
    return result, point


def _series(result, name, k=0):
    return np.array([values[k] for values in result.probes[name]])


def test_gradient_flow_time_is_lr_times_step():
    result, _ = _train(40, 0.05, RecordSchedule(log=8))
    assert np.allclose(_series(result, "gf_time"), 0.05 * np.array(result.record_steps))


@pytest.mark.parametrize("readout", ["pm1_fixed", "trainable"])
def test_flow_rates_are_the_finite_differences_of_small_steps(readout):
    """dX/dt (autograd, at step 0) ≈ (X(1) − X(0))/η for a small η (our check)."""
    eta = 1e-6
    result, _ = _train(1, eta, RecordSchedule(every=1), init="theory", readout=readout, c0=1.0, c1=1.0)
    for name in ("G1", "G3", "A12", "A31", "v12", "u_norm2", "p12", "p13", "loss"):
        x = _series(result, name)
        rate = _series(result, f"rate_{name}")[0]
        assert (x[1] - x[0]) / eta == pytest.approx(rate, rel=1e-3, abs=1e-9), name


def test_readout_norm_rate_is_eq5_for_a_fixed_readout():
    """d‖Wᵀa‖²/dt = (2‖a‖²/n) Σ g_i y_iF_i exactly under gradient flow with a fixed ([Y24] Eq. 5)."""
    fixed, _ = _train(20, 0.1, RecordSchedule(every=5), readout="pm1_fixed")
    assert np.allclose(_series(fixed, "rate_u_norm2"), _series(fixed, "u_norm2_rate_identity"), rtol=1e-9)
    trained, _ = _train(20, 0.1, RecordSchedule(every=5), readout="trainable")
    assert not np.allclose(_series(trained, "rate_u_norm2")[1:], _series(trained, "u_norm2_rate_identity")[1:])


def test_balancing_sums_from_the_margins():
    """S_k = Σ_{i∈I_k} 1/(1 + e^{y_iF_i}) and R = (S2 + S3 + S4 − S1)/(S1 − S2), by hand from the model's outputs."""
    info = study_info("cooccurrence")
    config, point = info.resolve({**SMALL, "steps": 0}, 3, "t")
    study, pack = info.load(), Pack.build(info, [config])
    pack.const = pack.map(study.constants)
    init = {k: v[0] for k, v in pack.map(study.init, randomness="same").items()}
    from iclscale.trainer.study import Net

    module = study.module(pack.view())
    F = Net(module, init)(pack.const["tokens"][0]).double()
    g = torch.sigmoid(-pack.const["y"][0].double() * F).numpy()
    S = [g[0:6].sum(), g[6:8].sum(), g[8:10].sum(), g[10:12].sum()]  # n = 12: 6/2/2/2
    result = train_pack(info, [config], [point], 1)
    for k in range(4):
        assert result.final_metrics(0, point)[f"S{k + 1}"] == pytest.approx(S[k], rel=1e-6)
    R = (S[1] + S[2] + S[3] - S[0]) / (S[0] - S[1])
    assert result.final_metrics(0, point)["R"] == pytest.approx(R, rel=1e-6)


def test_gradient_descent_lowers_the_loss_through_both_phases():
    """A small model, torch_default init, to flow time 30: every sample becomes correct, the loss falls, and the
    test loss falls too (step 0.15 rather than the paper's 0.01 to keep the test short)."""
    result, point = _train(200, 0.15, RecordSchedule(log=10), seeds=(0, 1))
    for k in range(2):
        loss, margin = _series(result, "loss", k), _series(result, "min_margin", k)
        assert loss[-1] < 0.5 * loss[0]
        assert margin[0] < 0 < margin[-1]
        assert result.final_metrics(k, point)["test_loss"] < loss[0]


def test_packed_equals_one_at_a_time():
    """Three configs differing in c1, lr and seed trained in one pack give each its own run's numbers."""
    info = study_info("cooccurrence")
    variations = [{"c1": 0.5}, {"lr": 0.05, "c0": 0.3}, {}]
    resolved = [
        info.resolve({**SMALL, "init": "theory", "steps": 15, "lr": 0.1, "n_test": 60, **v}, s, "t")
        for s, v in enumerate(variations)
    ]
    configs, point = [c for c, _ in resolved], resolved[0][1]
    packed = train_pack(info, configs, [point], 5)
    for k, config in enumerate(configs):
        alone = train_pack(info, [config], [point], 5).final_metrics(0, point)
        together = packed.final_metrics(k, point)
        for name in ("loss", "min_margin", "A12", "G3", "rate_G1", "S1", "test_loss", "gf_time"):
            assert together[name] == pytest.approx(alone[name], rel=1e-9, abs=1e-12), (k, name)
    assert packed.final_metrics(0, point)["loss"] != packed.final_metrics(2, point)["loss"]


def test_loss_rate_is_minus_the_squared_gradient_and_the_ratios_follow():
    """dL̂/dt = −‖∇L̂‖² under gradient flow; the study's Thm F.8 and Lemma 4.7 ratios are built from it."""
    info = study_info("cooccurrence")
    config, point = info.resolve({**SMALL, "steps": 0, "init": "theory", "c0": 1.0, "c1": 1.0}, 4, "t")
    study, pack = info.load(), Pack.build(info, [config])
    pack.const = pack.map(study.constants)
    weights = {k: v[0].double().requires_grad_(k != "a") for k, v in pack.map(study.init, randomness="same").items()}
    from iclscale.trainer.study import Net

    tokens, y = pack.const["tokens"][0], pack.const["y"][0].double()
    loss = torch.nn.functional.softplus(-y * Net(study.module(pack.view()).double(), weights)(tokens)).mean()
    grads = torch.autograd.grad(loss, [w for k, w in weights.items() if k != "a"])
    found = train_pack(info, [config], [point], 1).final_metrics(0, point)
    assert found["rate_loss"] == pytest.approx(-sum((g**2).sum() for g in grads).item(), rel=1e-9)
    assert found["loss_rate_ratio"] == pytest.approx(-found["rate_loss"] / (found["u_norm2"] * found["loss"] ** 2))
    assert found["rate_A12_over_loss"] == pytest.approx(found["rate_A12"] / found["loss"])
    assert found["G_signal_min"] == min(found["G1"], found["G2"], -found["G3"])
    S1, S2, S3, S4 = (found[f"S{k}"] for k in (1, 2, 3, 4))
    assert found["R_prime"] == pytest.approx((S2 + S3 + S4 - S1) / (S1 - S3))


def test_drifts_are_zero_at_the_start_and_match_the_weights_after_training():
    """The Gram and score drifts of Thm E.28 by hand from the trained weights: key Gram on μ1..μ3 and the
    sampled random tokens, neuron Gram over all pairs, and the random-token score ratio against ΔA12."""
    from iclscale.papers.cooccurrence.probes import drifts

    info = study_info("cooccurrence")
    config, point = info.resolve({**SMALL, "steps": 30, "lr": 0.2, "init": "theory", "c0": 1.0, "c1": 1.0}, 5, "t")
    result = train_pack(info, [config], [point], RecordSchedule(steps=(0, 30)))
    for name in ("key_gram_drift", "query_gram_drift", "value_gram_drift", "neuron_gram_drift"):
        assert _series(result, name)[0] == 0.0 and _series(result, name)[1] > 0
    study, pack = info.load(), Pack.build(info, [config])
    pack.const = pack.map(study.constants)
    sample = pack.const["random_sample"][0]
    seen = pack.const["random_seen"][0]
    assert sample.shape == (min(61, SMALL["d"] - 3),) and bool(seen[sample].all())
    initial = {k: v[0].double() for k, v in pack.map(study.init, randomness="same").items()}
    moved = {k: v + 0.01 * torch.randn_like(v) for k, v in initial.items()}
    found = drifts(moved, initial, sample)
    tokens = torch.cat([torch.tensor([0, 1, 2]), sample])
    K, K0 = moved["W_K"][:, tokens], initial["W_K"][:, tokens]
    assert found["key_gram_drift"].item() == pytest.approx((K.T @ K - K0.T @ K0).abs().max().item())
    W, W0 = moved["W"], initial["W"]
    assert found["neuron_gram_drift"].item() == pytest.approx((W @ W.T - W0 @ W0.T).abs().max().item())
    A = K.T @ moved["W_Q"][:, tokens] - K0.T @ initial["W_Q"][:, tokens]
    random_max = max(A[3:, :3].abs().max(), A[:3, 3:].abs().max(), A[3:, 3:].abs().max())
    assert found["random_score_change_ratio"].item() == pytest.approx((random_max / A[0, 1].abs()).item())


def test_the_largest_output_is_recorded_for_lemma_d8():
    """max_i |F(X_i)| ([Y24] Lemma D.8 bounds it at t = 0): at least |min_i y_iF_i| at every record, and small at
    the theory's initialisation with small c0, c1 (|F(0)| ≲ 2σ0σ1√(2Lm1m log(·)) = O(c0·c1))."""
    result, _ = _train(20, 0.1, RecordSchedule(every=5), init="theory", readout="pm1_fixed", c0=0.1, c1=0.1)
    largest, smallest_margin = _series(result, "max_abs_output"), _series(result, "min_margin")
    assert np.all(largest >= np.abs(smallest_margin) - 1e-12)
    assert 0 < largest[0] <= 0.05

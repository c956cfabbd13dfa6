"""Training the co-occurrence transformer (seed 003): gradient-flow time, exact flow rates, balancing sums."""

import numpy as np
import pytest
import torch

from iclscale.params import RecordSchedule
from iclscale.registry import study_info
from iclscale.study import Pack
from iclscale.training import train_pack

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
    """dX/dt (autograd, at step 0) ≈ (X(1) − X(0))/η for a small η (spec §7.1's check)."""
    eta = 1e-6
    result, _ = _train(1, eta, RecordSchedule(every=1), init="theory", readout=readout, c0=1.0, c1=1.0)
    for name in ("G1", "G3", "A12", "A31", "v12", "u_norm2"):
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
    from iclscale.study import Net

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

"""Packed training: a config's result does not depend on its pack, its position or the pack size."""

import numpy as np
import pytest

from iclscale.trainer.training import DIVERGED, OK, train_pack

SHORT = {"steps": 60, "d": 3, "n": 12, "tasks_per_iter": 2}


def _configs(info, variations):
    out = []
    for seed, extra in enumerate(variations):
        config, point = info.resolve({**SHORT, **extra}, seed, "test")
        out.append(config)
    return out, point


VARIATIONS = [
    {"L": 0.5},
    {"L": 2.0, "sigma": 0.3},
    {"lr": 0.03},
    {"lr_decay": 0.99, "init_scale": 0.01},
    {"L": 1.5, "lr": 0.2},
    {"sigma": 0.0},
]


def _finals(result, point):
    return [result.final_metrics(k, point) for k in range(len(result.configs))]


def _assert_close(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == pytest.approx(b[name], rel=2e-4, abs=1e-6), name


def test_packed_equals_one_at_a_time(softmax_window):
    configs, point = _configs(softmax_window, VARIATIONS)
    packed = _finals(train_pack(softmax_window, configs, [point], 20), point)
    for k, config in enumerate(configs):
        alone = train_pack(softmax_window, [config], [point], 20)
        _assert_close(packed[k], alone.final_metrics(0, point))
        # the curves too, record by record
        packed_curve = train_pack(softmax_window, configs, [point], 20).curve(k) if k == 0 else None
        if packed_curve is not None:
            alone_curve = alone.curve(0)
            assert [r[:2] for r in packed_curve] == [r[:2] for r in alone_curve]
            np.testing.assert_allclose([r[2] for r in packed_curve], [r[2] for r in alone_curve], rtol=2e-4, atol=1e-6)


def test_results_do_not_depend_on_pack_order_or_size(softmax_window):
    configs, point = _configs(softmax_window, VARIATIONS)
    forward = _finals(train_pack(softmax_window, configs, [point], 30), point)
    order = [3, 0, 5, 1, 4, 2]
    shuffled = _finals(train_pack(softmax_window, [configs[i] for i in order], [point], 30), point)
    for position, k in enumerate(order):
        _assert_close(forward[k], shuffled[position])
    halves = _finals(train_pack(softmax_window, configs[:2], [point], 30), point)
    for k in range(2):
        _assert_close(forward[k], halves[k])


def test_seeds_matter(softmax_window):
    a, point = softmax_window.resolve(SHORT, 0, "t")
    b, _ = softmax_window.resolve(SHORT, 1, "t")
    result = train_pack(softmax_window, [a, b], [point], 60)
    assert result.final_metrics(0, point)["M_spectral_norm"] != result.final_metrics(1, point)["M_spectral_norm"]


def test_a_diverging_config_is_frozen_and_does_not_disturb_its_pack_mates(softmax_window):
    configs, point = _configs(softmax_window, [{"L": 0.5}, {"lr": 1e30}, {"L": 2.0}])
    packed = train_pack(softmax_window, configs, [point], 20)
    assert packed.status == [OK, DIVERGED, OK]
    assert packed.diverged_step[1] is not None and packed.diverged_step[1] <= SHORT["steps"]
    last_good = packed.final_metrics(1, point)  # measured at its last record before diverging
    assert np.isfinite(last_good["M_spectral_norm"]) and np.isfinite(last_good["test_mse"])
    assert max(r[0] for r in packed.curve(1)) < packed.diverged_step[1]  # no records after diverging
    for k in (0, 2):
        _assert_close(
            packed.final_metrics(k, point),
            train_pack(softmax_window, [configs[k]], [point], 20).final_metrics(0, point),
        )


def test_configs_with_different_shapes_cannot_share_a_pack(softmax_window):
    a, point = softmax_window.resolve({"d": 3}, 0, "t")
    b, _ = softmax_window.resolve({"d": 4}, 0, "t")
    with pytest.raises(ValueError, match="equal shape params"):
        train_pack(softmax_window, [a, b], [point], 10)


def test_eval_points_measure_one_trained_model(softmax_window):
    config, _ = softmax_window.resolve(SHORT, 0, "t")
    points = [softmax_window.resolve({"L_test": v}, 0, "t")[1] for v in (0.25, 1.0, 4.0)]
    result = train_pack(softmax_window, [config], points, 60)
    errors = [result.final_metrics(0, p)["test_mse"] for p in points]
    assert errors[0] < errors[1] < errors[2]  # the trained window fits L' = 1 best; larger L' is worse
    norms = {result.final_metrics(0, p)["M_spectral_norm"] for p in points}
    assert len(norms) == 1  # one model, several eval points


def test_the_test_set_and_the_oracle_sample_do_not_depend_on_K(softmax_window):
    """Evaluation and Monte Carlo draw in chunks sized by (n, d) only: a big pack sees the same data."""
    from iclscale.trainer.registry import study_info

    config, point = softmax_window.resolve({**SHORT, "steps": 0, "test_tasks": 2000}, 7, "t")
    others = [softmax_window.resolve({**SHORT, "steps": 0, "L": 1 + k / 10}, 100 + k, "t")[0] for k in range(99)]
    alone = train_pack(softmax_window, [config], [point], 1).final_metrics(0, point)["test_mse"]
    packed = train_pack(softmax_window, [*others, config], [point], 1).final_metrics(99, point)["test_mse"]
    assert packed == pytest.approx(alone, rel=1e-5)

    oracle = study_info("softmax_window_oracle")
    settings = {"d": 2, "n": 50, "mc_tasks": 3000, "w_points": 21}
    target, opoint = oracle.resolve(settings, 5, "t")
    mates = [oracle.resolve({**settings, "sigma": 0.1 + k / 100}, k, "t")[0] for k in range(40)]
    w_alone = train_pack(oracle, [target], [opoint], 1).final_metrics(0, opoint)["w_star"]
    w_packed = train_pack(oracle, [*mates, target], [opoint], 1).final_metrics(40, opoint)["w_star"]
    assert w_packed == pytest.approx(w_alone, rel=1e-5)

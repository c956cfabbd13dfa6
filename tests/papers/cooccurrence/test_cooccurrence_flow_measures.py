"""Measures in gradient-flow time (iclscale.papers.cooccurrence.laws.flow_measures) on curves built by hand."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from iclscale.papers.cooccurrence.laws.flow_measures import (
    AtLevel,
    ChangeFromStart,
    FirstTimeReaching,
    FractionAfter,
    InitialValue,
    LevelTimeSlope,
    PhaseValue,
    SlopeAfter,
    Window,
)


def _curves(runs):
    """runs: {run_id: (lr, {metric: values per step})}, records at steps 0, 10, 20, …; gf_time = lr·step."""
    rows = []
    for run_id, (lr, metrics) in runs.items():
        n = len(next(iter(metrics.values())))
        steps = 10 * np.arange(n)
        for metric, values in {**metrics, "gf_time": lr * steps}.items():
            rows += [{"run_id": run_id, "step": s, "metric": metric, "value": v, "eval_key": None}
                     for s, v in zip(steps, values, strict=True)]  # fmt: skip
    return SimpleNamespace(curves=pd.DataFrame(rows))


def _rows(*run_ids):
    return pd.DataFrame({"run_id": list(run_ids), "eval_key": [""] * len(run_ids), "seed": range(len(run_ids))})


def _measured(measure, results, *run_ids):
    return measure.per_run(results, _rows(*run_ids)).set_index("run_id")


def test_first_time_reaching_is_in_flow_time_and_censored_like_steps():
    results = _curves(
        {
            "slow": (0.01, {"margin": [-1, -0.5, -0.1, 0.2, 1.0]}),  # crosses at step 30: t = 0.3
            "fast": (0.1, {"margin": [-1, -0.5, -0.1, 0.2, 1.0]}),  # the same steps, t = 3
            "never": (0.01, {"margin": [-1, -0.9, -0.8, -0.7, -0.6]}),
        }
    )
    found = _measured(FirstTimeReaching("margin", threshold=0.0, below=False), results, "slow", "fast", "never")
    assert found.loc["slow", "value"] == pytest.approx(0.3) and found.loc["fast", "value"] == pytest.approx(3.0)
    assert not found.loc["slow", "censored"]
    assert found.loc["never", "censored"] and found.loc["never", "value"] == pytest.approx(0.4)


def test_reciprocal_slope_recovers_a_loss_falling_as_one_over_kappa_t():
    t = 0.1 * 10 * np.arange(12)  # lr 0.1: t = 0, 1, …, 11
    loss = 1 / (0.7 + 2.5 * np.maximum(t - 3, 0))  # Phase 2 from t = 3 at κ = 2.5
    margin = np.where(t >= 3, 1.0, -1.0)
    results = _curves({"r": (0.1, {"loss": loss, "margin": margin})})
    window = Window("margin", 0.0, below=False, factor=1.0)
    found = _measured(SlopeAfter("loss", window=window), results, "r")
    assert found.loc["r", "value"] == pytest.approx(2.5)
    power = _curves({"p": (0.1, {"loss": 2 / np.maximum(t - 3, 0.5) ** 1.3, "margin": margin})})
    loglog = _measured(SlopeAfter("loss", window=Window("margin", 0.0, False, 2.0), transform="loglog"), power, "p")
    assert loglog.loc["p", "value"] == pytest.approx(-1.3)


def test_fraction_after_counts_the_phase_records_inside_the_band():
    rate = [5.0, 5.0, -1.0, 1.0, 1.0, -2.0, 1.0, 1.0]  # from the crossing at index 3: 4 of 5 positive
    margin = [-1, -1, -1, 0.5, 1, 2, 3, 4]
    results = _curves({"r": (0.01, {"rate": rate, "margin": margin}), "n": (0.01, {"rate": rate, "margin": [-1] * 8})})
    found = _measured(FractionAfter("rate", window=Window("margin", 0.0, False), low=0.0), results, "r", "n")
    assert found.loc["r", "value"] == pytest.approx(4 / 5) and not found.loc["r", "censored"]
    assert found.loc["n", "censored"]  # Phase 2 never starts: nothing to count


def test_change_from_start_is_last_minus_first():
    results = _curves({"r": (0.01, {"A12": [0.5, 0.4, 0.7, 0.9]}), "s": (0.01, {"A12": [0.2, 0.1, 0.0, -0.3]})})
    found = _measured(ChangeFromStart("A12"), results, "r", "s")
    assert found.loc["r", "value"] == pytest.approx(0.4) and found.loc["s", "value"] == pytest.approx(-0.5)


def test_initial_value_reads_step_zero_absolute_and_as_a_ratio():
    results = _curves({"r": (0.01, {"rate_G3": [-0.3, 5.0, 7.0], "rate_G1": [1.5, 9.0, 9.0]})})
    assert _measured(InitialValue("rate_G3"), results, "r").loc["r", "value"] == pytest.approx(-0.3)
    ratio = _measured(InitialValue("rate_G3", absolute=True, over="rate_G1"), results, "r")
    assert ratio.loc["r", "value"] == pytest.approx(0.2) and not ratio.loc["r", "censored"]


def test_phase_value_at_the_start_and_growth_over_the_phase():
    norm = [1.0, 2.0, 4.0, 5.0, 6.0, 10.0]
    results = _curves({"r": (0.01, {"u": norm, "margin": [-1, -1, 1, 2, 3, 4]})})
    window = Window("margin", 0.0, below=False)
    assert _measured(PhaseValue("u", window=window), results, "r").loc["r", "value"] == pytest.approx(4.0)
    growth = _measured(PhaseValue("u", window=window, statistic="growth"), results, "r")
    assert growth.loc["r", "value"] == pytest.approx(10.0 / 4.0 - 1)
    assert _measured(PhaseValue("u", window=window, statistic="max"), results, "r").loc["r", "value"] == 10.0
    assert _measured(PhaseValue("u", window=window, statistic="median"), results, "r").loc["r", "value"] == 5.5
    with pytest.raises(ValueError, match="statistic must be one of"):
        PhaseValue("u", window=window, statistic="mean")


@pytest.mark.parametrize(
    "power, slope, levels", [(1.0, 1.0, (0.1, 0.03, 0.01, 0.003)), (0.5, 2.0, (0.2, 0.1, 0.05, 0.03))]
)
def test_level_time_slope_reads_the_time_to_reach_each_level(power, slope, levels):
    """L = 1/(1/L(T1) + (κ(t − T1))^power) reaches ε at t − T1 = (1/ε − 1/L(T1))^(1/power)/κ: slope 1/power."""
    t = 0.01 * 10 * np.arange(4000)  # records at t = 0, 0.1, …
    loss = 1 / (2.0 + (3.0 * np.maximum(t - 1.0, 0)) ** power)
    results = _curves({"r": (0.01, {"loss": loss, "margin": np.where(t >= 1.0, 1.0, -1.0)})})
    window = Window("margin", 0.0, below=False)
    found = _measured(LevelTimeSlope("loss", window=window, levels=levels), results, "r")
    assert found.loc["r", "value"] == pytest.approx(slope, rel=0.02) and not found.loc["r", "censored"]
    too_few = _measured(LevelTimeSlope("loss", window=window, levels=(0.1, 1e-9)), results, "r")
    assert too_few.loc["r", "censored"]


def test_at_level_reads_a_metric_at_the_first_record_the_loss_reaches_a_level_not_at_the_end():
    """[Y24] Thm 3.3 states C12 at T* (the loss at a level), not at the end of training: two runs that reach the
    level at different records are read there; a run that never does is censored."""
    results = _curves(
        {
            "early": (0.1, {"loss": [0.7, 0.2, 0.009, 0.005, 0.001], "A12": [1.0, 1.5, 2.0, 2.5, 3.0]}),
            "late": (0.1, {"loss": [0.7, 0.3, 0.1, 0.05, 0.01], "A12": [1.0, 1.1, 1.2, 1.3, 1.4]}),
            "never": (0.1, {"loss": [0.7, 0.6, 0.5, 0.4, 0.3], "A12": [0.0, 1.0, 2.0, 3.0, 4.0]}),
        }
    )
    change = _measured(AtLevel("A12", level=0.01, change=True), results, "early", "late", "never")
    assert change.loc["early", "value"] == pytest.approx(1.0)  # at step 20, not the last record's 2.0
    assert change.loc["late", "value"] == pytest.approx(0.4) and not change.loc["late", "censored"]
    assert change.loc["never", "censored"] and np.isnan(change.loc["never", "value"])
    ratio = _measured(AtLevel("A12", level=0.01, over="loss"), results, "early")
    assert ratio.loc["early", "value"] == pytest.approx(2.0 / 0.009)

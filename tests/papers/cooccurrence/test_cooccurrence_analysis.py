"""The phases of Yang et al. 2024 (seed 003) read off curves built by hand: T1, the peaks, Figure 1's criteria."""

import numpy as np
import pandas as pd
import pytest

from iclscale.papers.cooccurrence.laws.phases import (
    SCORES,
    TYPE_LOSSES,
    figure1_criteria,
    phase_boundary,
    run_summary,
    wide,
)


def _run(t, margin, scores=None, losses=None):
    run = pd.DataFrame({"gf_time": t, "min_margin": margin})
    for name in SCORES:
        run[name] = (scores or {}).get(name, np.zeros(len(t)))
    for name in TYPE_LOSSES:
        run[name] = (losses or {}).get(name, np.linspace(0.7, 0.1, len(t)))
    return run


def _figure1_like():
    """Phase 1 on t < 3 (margin < 0), the type-2/3 losses peaking at t = 1, the scores moving after T1."""
    t = np.arange(8.0)
    margin = np.array([-0.3, -0.2, -0.1, 0.1, 0.5, 1.0, 2.0, 3.0])
    bump = np.array([0.70, 0.75, 0.72, 0.60, 0.40, 0.30, 0.20, 0.10])
    after = np.maximum(t - 3, 0) + np.array([0, 0.01, 0.02, 0.03, 0, 0, 0, 0])  # still (<10%) in Phase 1
    scores = {"A12": 0.1 * after, "A21": 0.2 * after, "A31": -0.1 * after, "A32": -0.2 * after}
    return _run(t, margin, scores, {"loss_type2": bump, "loss_type3": bump})


def test_T1_is_the_first_time_every_sample_is_correct():
    assert phase_boundary(_figure1_like()) == 3.0
    assert np.isnan(phase_boundary(_run(np.arange(3.0), [-1.0, -0.5, -0.1])))


def test_figure1_criteria_hold_on_figure1_like_curves():
    found = figure1_criteria(_figure1_like())
    assert found["T_peak_type2"] == found["T_peak_type3"] == 1.0
    assert found["phase1_score_share"] == pytest.approx((0.2 * 0.03) / (0.2 * 4))  # ΔA21 at T1 over its end
    assert found["still_in_phase1"] == found["peaks_inside_phase1"] == 1.0
    assert found["scores_move_as_claimed"] == found["losses_fall_in_phase2"] == 1.0


def test_each_criterion_can_fail():
    run = _figure1_like()
    run.loc[2, "A12"] = 0.5  # attention moves in Phase 1
    run.loc[6, "A31"] = 1.0  # a common-token score rises in Phase 2
    run.loc[5, "loss_type4"] = 0.9  # a loss rises in Phase 2
    run["loss_type2"] = np.linspace(0.9, 0.1, 8)  # no interior peak: largest at t = 0
    found = figure1_criteria(run)
    assert found["still_in_phase1"] == 0.0 and found["peaks_inside_phase1"] == 0.0
    assert found["scores_move_as_claimed"] == 0.0 and found["falling_A31"] == pytest.approx(3 / 4)
    assert found["losses_fall_in_phase2"] == 0.0 and found["falling_loss_type4"] == pytest.approx(3 / 4)


def test_wide_pivots_one_run_and_leaves_eval_metrics_out():
    curves = pd.DataFrame(
        {
            "run_id": ["a", "a", "a", "a", "b"],
            "step": [1, 0, 0, 1, 0],
            "metric": ["loss", "loss", "test_loss", "gf_time", "loss"],
            "value": [0.5, 0.7, 0.9, 0.01, 0.1],
            "eval_key": [None, None, "k", None, None],
        }
    )
    run = wide(curves, "a")
    assert list(run.index) == [0, 1] and list(run["loss"]) == [0.7, 0.5] and "test_loss" not in run


def test_T_attn_is_when_the_scores_reach_five_percent_of_their_largest_change():
    found = figure1_criteria(_figure1_like())
    # max|ΔA| per record: 0, 0.002, 0.004, 0.006, 0.2, 0.4, 0.6, 0.8: 5% of 0.8 = 0.04 is first reached at t = 4
    assert found["T_attn"] == 4.0 and found["attention_separation"] == pytest.approx(4.0 / 3.0)


def test_the_run_summary_says_when_the_losses_peak_and_whether_before_T1():
    run = _figure1_like().assign(loss=np.linspace(0.7, 0.1, 8))
    run.index = 10 * np.arange(8)  # steps
    summary = run_summary(run)
    assert summary["T1"] == 3.0 and summary["T1_step"] == 30 and summary["loss_falls"]
    assert summary["T_peak_type2"] == summary["T_peak_type3"] == 1.0
    assert summary["one_target_losses_peak_before_T1"] and summary["peak_loss_type2"] == 0.75
    run["loss_type3"] = np.linspace(0.9, 0.1, 8)  # largest at t = 0: no peak inside Phase 1
    assert not run_summary(run)["one_target_losses_peak_before_T1"]

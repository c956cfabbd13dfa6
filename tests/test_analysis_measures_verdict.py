"""Measures (thresholds, censoring) and the verdict rule on constructed cases."""

import math

import numpy as np
import pandas as pd
import pytest

from iclscale.analysis.measures import first_step_reaching, mean_of_last, threshold_along_axis
from iclscale.analysis.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, INSIDE, Band, VerdictRule, judge


def curves_of(series: dict[str, list[float]], metric: str = "test_mse") -> pd.DataFrame:
    rows = [
        {"run_id": run, "eval_key": None, "step": 10 * i, "metric": metric, "value": v}
        for run, values in series.items()
        for i, v in enumerate(values)
    ]
    return pd.DataFrame(rows)


def test_first_step_reaching_a_threshold_and_censoring():
    curves = curves_of({"fast": [1.0, 0.2, 0.05, 0.01], "slow": [1.0, 0.5, 0.2, 0.09], "never": [1.0, 0.8, 0.7, 0.6]})
    steps = first_step_reaching(curves, "test_mse", 0.1).set_index("run_id")
    assert steps.loc["fast", "value"] == 20 and not steps.loc["fast", "censored"]
    assert steps.loc["slow", "value"] == 30
    # never reached: T > the last record, kept as the bound (right-censored)
    assert steps.loc["never", "censored"] and not steps.loc["never", "left_censored"]
    assert steps.loc["never", "value"] == 30
    looser = first_step_reaching(curves, "test_mse", 0.7).set_index("run_id")
    assert looser.loc["never", "value"] == 20 and not looser.loc["never", "censored"]
    assert looser.loc[["fast", "slow"], "left_censored"].all()  # at 10, the first record after step 0: T ≤ 10
    above = first_step_reaching(curves, "test_mse", 0.75, below=False).set_index("run_id")
    assert above.loc["fast", "value"] == 0 and not above.loc["fast", "censored"]  # at step 0: no bound to give
    late = curves_of({"a": [0.05, 0.01]}).assign(step=lambda t: t["step"] + 10)  # first record at step 10
    early = first_step_reaching(late, "test_mse", 0.1).set_index("run_id")
    assert early.loc["a", "left_censored"] and early.loc["a", "censored"] and early.loc["a", "value"] == 10
    # not there at step 0, there at the next record: T in (0, 10], only a bound (the records cannot resolve it)
    next_record = first_step_reaching(curves_of({"b": [1.0, 0.05, 0.01]}), "test_mse", 0.1).set_index("run_id")
    assert next_record.loc["b", "left_censored"] and next_record.loc["b", "value"] == 10


def test_mean_of_last_records():
    curves = curves_of({"a": [4.0, 3.0, 2.0, 1.0]})
    assert mean_of_last(curves, "test_mse", 2)["value"].item() == pytest.approx(1.5)
    assert mean_of_last(curves, "test_mse", 10)["value"].item() == pytest.approx(2.5)


def test_threshold_along_an_axis_per_group_and_seed():
    table = pd.DataFrame(
        {
            "alpha": [0.2] * 3 + [0.8] * 3 + [0.2] * 3,
            "l_tr": [5, 10, 20] * 3,
            "seed": [0] * 6 + [1] * 3,
            "err": [0.5, 0.05, 0.01, 0.04, 0.02, 0.01, 0.5, 0.4, 0.3],
        }
    )
    out = threshold_along_axis(table, "l_tr", "err", 0.1, ["alpha"]).set_index(["alpha", "seed"])
    assert out.loc[(0.2, 0), "value"] == 10 and not out.loc[(0.2, 0), "censored"]
    # reached at the grid's smallest value: the threshold may lie below it (left-censored at 5)
    assert out.loc[(0.8, 0), "value"] == 5 and out.loc[(0.8, 0), "left_censored"]
    # never reached: beyond the grid (right-censored at its largest value)
    assert out.loc[(0.2, 1), "censored"] and not out.loc[(0.2, 1), "left_censored"]
    assert out.loc[(0.2, 1), "value"] == 20


BAND = Band(0.2, 0.4)


@pytest.mark.parametrize(
    ("interval", "expected"),
    [
        ((0.25, 0.30), CONSISTENT),  # inside the band
        ((0.35, 0.50), INCONCLUSIVE),  # straddles its upper edge: neither inside nor outside
        ((0.45, 0.55), INCONSISTENT),  # wholly above it
        ((-0.1, 0.1), INCONSISTENT),  # wholly below it
        ((-0.5, 0.9), INCONCLUSIVE),  # holds the band and far more
    ],
)
def test_verdict_is_an_equivalence_test(interval, expected):
    assert judge(BAND, *interval, n_points=20, n_levels=5).verdict == expected


def test_the_tolerance_widens_the_band_and_nothing_else():
    point = Band.point(1 / 3)
    assert judge(point, 0.30, 0.35, 20, 5).verdict == INCONCLUSIVE  # a point holds no interval by itself
    assert judge(point, 0.30, 0.35, 20, 5, tolerance=0.1).verdict == CONSISTENT
    assert judge(point, 0.36, 0.41, 20, 5, tolerance=0.1).verdict == CONSISTENT
    assert judge(point, 0.36, 0.41, 20, 5, tolerance=0.01).verdict == INCONSISTENT
    # an interval that touches the widened band is not outside it, nor inside: the C20 case of issue 21
    at_most_zero = Band(-math.inf, 0.0)
    touching = judge(at_most_zero, 0.097, 0.14, 20, 5, tolerance=0.1)
    assert touching.verdict == INCONCLUSIVE and "straddles" in touching.reason
    assert judge(at_most_zero, 0.11, 0.14, 20, 5, tolerance=0.1).verdict == INCONSISTENT
    # a one-sided band is widened at its finite end only
    assert Band(-math.inf, -1.0).widened(0.1) == Band(-math.inf, -0.9)
    rule = VerdictRule(tolerance=0.05)
    assert judge(point, 0.30, 0.35, 20, 5, rule=rule).verdict == CONSISTENT  # the law's own tolerance
    assert VerdictRule(tolerance=0.05, mode=INSIDE).band_tolerance(0.1) == 0.0  # an effect: no widening


def test_verdict_needs_enough_evidence():
    assert judge(BAND, 0.25, 0.3, n_points=20, n_levels=3).verdict == INCONCLUSIVE  # three x values
    assert VerdictRule().min_levels == 4
    assert judge(BAND, 0.25, 0.3, n_points=3, n_levels=5).verdict == INCONCLUSIVE  # three points
    censored = judge(BAND, 0.25, 0.3, n_points=10, n_levels=5, n_censored=11)  # more than half censored
    assert censored.verdict == INCONCLUSIVE and "censored" in censored.reason
    assert judge(BAND, math.nan, math.nan, 20, 5).verdict == INCONCLUSIVE
    # a miss with too few x values is still inconclusive: two points say little about a slope
    assert judge(BAND, 0.9, 1.0, n_points=20, n_levels=2).verdict == INCONCLUSIVE


def test_verdict_inside_rule_for_one_sided_claims():
    decreasing = Band(-math.inf, 0.0)
    rule = VerdictRule(mode=INSIDE, min_levels=2)
    assert judge(decreasing, -0.9, -0.5, 10, 2, rule=rule).verdict == CONSISTENT
    assert judge(decreasing, -0.3, 0.1, 10, 2, rule=rule).verdict == INCONCLUSIVE  # straddles 0
    assert judge(decreasing, 0.1, 0.3, 10, 2, rule=rule).verdict == INCONSISTENT
    floor = Band(1 / 3, math.inf)
    assert judge(floor, 0.40, 0.45, 6, 3, rule=rule).verdict == CONSISTENT
    assert judge(floor, 0.20, 0.30, 6, 3, rule=rule).verdict == INCONSISTENT


def test_band_rejects_reversed_ends():
    with pytest.raises(ValueError):
        Band(0.5, 0.1)
    assert Band(0.2, 0.4).describe() == "[0.2, 0.4]" and Band(-math.inf, 0).describe() == "< 0"
    assert np.isclose(Band.point(0.25).low, 0.25)

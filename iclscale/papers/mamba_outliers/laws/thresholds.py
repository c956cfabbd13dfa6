"""[LM25] Theorems 2 and 4 read along the test variables (sweep `mamba_outliers_thresholds.yaml`: one trained model per
config, measured over a grid of test α × l_ts, no retraining):

- Mamba's error ≤ ε for α < min(1, p_a·l_tr/l_ts) (Thm 2 (c)): a threshold at r = α·l_ts/(p_a·l_tr) = 1, pooled
  over every trained p_a, l_tr and test l_ts (the collapse Thm 2 (c)'s min(1, p_a·l_tr/l_ts) suggests; pooling is ours);
- the l_ts thresholds: the smallest l_ts with error ≤ ε grows as (1 − α)^(−1) for Mamba (Thm 2 (d), Eq. 12) and as
  (1/2 − α)^(−2)·α for the LT near α = 1/2 (Thm 4 (d), Eq. 15);
- the LT's error ≤ exp(−l_ts(1/2 − α)²α) for α < 1/2 (proof of Thm 4, Eq. 79).

Each on all 30 tasks and on the M1 trained tasks (the α = 0 floor sits on gap-2 tasks in our runs, README).
ε = THEOREM_EPSILON = 0.1 as in `common` (not from the paper): the level each law reads and the ε its training regime
(Thms 1/3 (i), (ii)) is checked at."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from iclscale.analysis.kinds import Bound, PowerLaw, Threshold
from iclscale.analysis.law import (
    EXPLICIT,
    HIDDEN_CONSTANT,
    STRONGER,
    Condition,
    Hypothesis,
    Law,
    Prediction,
    VersusPrinted,
    inside_rule,
)
from iclscale.analysis.measures import FinalValue, ThresholdAlongAxis, final_value
from iclscale.analysis.verdict import Band, VerdictRule
from iclscale.papers.mamba_outliers.laws.common import LM25, ONE_LAYER, STUDY, THEOREM_EPSILON, trained_regime
from iclscale.papers.mamba_outliers.laws.fig2 import ERRORS, STRICT, THRESHOLD_RULE

EXPONENT_RULE = VerdictRule(max_interval_width=0.5)  # not from the paper: l*_ts comes from a doubling grid


EPSILON = THEOREM_EPSILON


def theorem2_l_ts(rows):
    """[LM25] Thm 2 (d): l_ts ≳ (1 − α)^(−1)·log M1, as l_ts over its floor (the largest hidden constant met)."""
    alpha = rows["alpha"].astype(float)
    needed = rows["M1"].astype(float).map(math.log) / (1.0 - alpha).clip(lower=1e-9)
    return rows["l_ts"].astype(float) / needed


THEOREM2 = (
    Condition(
        "κ_a′ ≥ κ_a (Thm 2 (b))",
        EXPLICIT,
        lambda rows: rows["kappa_a_test"].astype(float) >= rows["kappa_a"].astype(float),
    ),
    Condition("l_ts ≳ (1 − α)⁻¹·ln M1 (Thm 2 (d))", HIDDEN_CONSTANT, theorem2_l_ts),
)


def r_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] Thm 2 (c): error ≤ ε if α < min(1, p_a·l_tr/l_ts), i.e. r = α·l_ts/(p_a·l_tr) < 1
    return Prediction(Hypothesis("r* = 1", Band.point(1.0 - STRICT), "[LM25] Theorem 2 (c)"))


def _positive_p_a(runs):
    """r is undefined at p_a = 0 (Thm 2 (c) then allows no outliers at all)."""
    return runs[runs["p_a"].astype(float) > 0]


def _r_law(metric: str, suffix: str) -> Law:
    return Law(
        name=f"{STUDY}.mamba_threshold_r{suffix}",
        study=STUDY,
        claim=f"Mamba's test error is ≤ ε wherever r = α·l_ts/(p_a·l_tr) < 1 ({ERRORS[metric]})",
        citation=f"{LM25} Theorem 2 (c), (d) (Eqs. 10, 12)",
        conditions=f"ε = {EPSILON:g} (not from the paper); a sufficient condition (no 'only if'); pooled over the "
        "trained p_a, l_tr and the test l_ts; points count only where κ_a′ ≥ κ_a and l_ts ≥ (1 − α)^(−1)·log M1 (Thm 2 "
        "(b), (d); constant 1 not from the paper), trained inside Thm 1 at the same ε",
        prediction_text=f"error ≤ {EPSILON:g} at every r < 1",
        measure=FinalValue(metric),
        x="outlier_ratio",
        predict=r_prediction,
        kind=Threshold(threshold=EPSILON, good_side="below", necessary=False),
        group_by=("label_mode", "kappa_a_test"),
        where={**ONE_LAYER, "model": ("mamba",), "placement": ("bernoulli",)},
        row_filter=_positive_p_a,
        one_row_per_run=False,
        regime=trained_regime(EPSILON, also=THEOREM2, source="Thm 2, trained inside Thm 1"),
        rule=THRESHOLD_RULE,
    )


# The l_ts thresholds: smallest l_ts with error ≤ ε, against α --------------------------------------------------------
def inverse_one_minus(alpha: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 - alpha)


def lt_tail_variable(alpha: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return alpha / (0.5 - alpha) ** 2


def _unit_exponent(source: str):
    def predict(params: Mapping[str, Any]) -> Prediction:
        return Prediction(Hypothesis("exponent 1", Band.point(1.0), source))

    return predict


def _below_half(runs):
    """Thm 4 speaks of α < 1/2 only."""
    return runs[runs["alpha"].astype(float) < 0.5 - 1e-9]


def _positive_alpha(runs):
    return runs[runs["alpha"].astype(float) > 0]


def _l_ts_law(model: str, metric: str, suffix: str) -> Law:
    mamba = model == "mamba"
    x_text = "(1 − α)^(−1)" if mamba else "(1/2 − α)^(−2)·α"
    source = "[LM25] Theorem 2 (d), Eq. (12)" if mamba else "[LM25] Theorem 4 (d), Eq. (15)"
    return Law(
        name=f"{STUDY}.{model}_l_ts_threshold{suffix}",
        # (1 − α)⁻¹ = 1.1 … 20, evenly spread on log axes (the study config's α levels crowd near 1.1)
        control_params={"alpha": (0.1, 0.5, 0.7, 0.8, 0.9, 0.95)} if mamba else {},
        regime=trained_regime(EPSILON),
        study=STUDY,
        claim=f"{'Mamba' if mamba else 'the LT'} needs l_ts ≳ {x_text}·log M1 test demonstrations for error ≤ ε "
        f"({ERRORS[metric]})",
        citation=f"{LM25} {source.removeprefix('[LM25] ')}",
        conditions=f"ε = {EPSILON:g} (not from the paper); l*_ts = the smallest test l_ts of the grid with error ≤ ε, "
        "per trained model and α (censored at the grid's ends); M1 fixed"
        + ("" if mamba else "; α < 1/2 only (Thm 4 (c))"),
        prediction_text=f"exponent 1 of l*_ts vs {x_text}",
        measure=ThresholdAlongAxis(metric, axis="l_ts", threshold=EPSILON),
        x="one_over_one_minus_alpha" if mamba else "lt_tail_variable",
        predict=_unit_exponent(source),
        kind=PowerLaw(transform=inverse_one_minus if mamba else lt_tail_variable, param="alpha", x_text=x_text),
        group_by=("label_mode", "kappa_a_test"),
        where={**ONE_LAYER, "model": (model,), "placement": ("bernoulli",)},
        row_filter=_positive_alpha if mamba else (lambda runs: _positive_alpha(_below_half(runs))),
        one_row_per_run=False,
        rule=EXPONENT_RULE,
        versus_printed=VersusPrinted(
            STRONGER, "Eqs. (12), (15) say l_ts ≳ · suffices; the law asks the smallest l_ts to scale as the bound"
        ),
    )


# The LT's exponential tail --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OverTailBound(FinalValue):
    """The final error over [LM25] Eq. (79)'s bound exp(−l_ts(1/2 − α)²α), per (run, eval point)."""

    def describe(self) -> str:
        return f"final {self.metric} / exp(−l_ts(1/2 − α)²α)"

    @property
    def label(self) -> str:
        return f"{self.metric} / exp(-l_ts(1/2-alpha)^2 alpha)"

    def per_run(self, results, rows):
        out = final_value(rows, self.metric)
        alpha, l_ts = rows["alpha"].astype(float), rows["l_ts"].astype(float)
        out["value"] = out["value"] / np.exp(-l_ts * (0.5 - alpha) ** 2 * alpha)  # [LM25] Eq. (79)
        return out


def tail_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] proof of Thm 4, Eq. (79): L^{0−1} ≤ exp(−l_ts(1/2 − α)²α) for α < 1/2
    return Prediction(Hypothesis("error / bound ≤ 1", Band(0.0, 1.0), "[LM25] proof of Theorem 4, Eq. (79)"))


def _tail_law(metric: str, suffix: str) -> Law:
    return Law(
        name=f"{STUDY}.lt_error_tail_bound{suffix}",
        control_params={"l_ts": 400},  # Thm 4's l_ts condition up to α = 0.45
        regime=trained_regime(EPSILON),
        study=STUDY,
        claim=f"the LT's test error is ≤ exp(−l_ts(1/2 − α)²α) for α < 1/2 ({ERRORS[metric]})",
        citation=f"{LM25} proof of Theorem 4, Eq. (79)",
        conditions="α < 1/2; the proof's worst case is flipped labels (any labelling is claimed); one group per "
        "test l_ts, the statistic the largest ratio over α",
        prediction_text="max over α < 1/2 of error / exp(−l_ts(1/2 − α)²α) ≤ 1",
        measure=OverTailBound(metric),
        x="alpha",
        predict=tail_prediction,
        kind=Bound(aggregate="max", statistic_text="largest seed-mean over α of error / exp(−l_ts(1/2 − α)²α)"),
        group_by=("label_mode", "kappa_a_test", "l_ts"),
        where={**ONE_LAYER, "model": ("lt",), "placement": ("bernoulli",)},
        row_filter=_below_half,
        one_row_per_run=False,
        rule=inside_rule(min_levels=2, min_points=4),
    )


LAWS = tuple(
    law
    for metric, suffix in (("test_error", ""), ("error_trained", "_trained_tasks"))
    for law in (_r_law(metric, suffix), _l_ts_law("mamba", metric, suffix), _l_ts_law("lt", metric, suffix),
                _tail_law(metric, suffix))
)  # fmt: skip

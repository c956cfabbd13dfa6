"""[LW23] Theorem 1's conditions, each measured as what it takes: the noise breakdown τ_crit (τ ≤ O(1/M1)) and the
growth of T with τ up to it (Eq. 6); the training prompt length (Eq. 5); the width and batch conditions; the task
coverage of Lemma 1. The iterations T against M, λ_*, η and α are judged in `iterations`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from iclscale.analysis.kinds import Bound, Curve, PowerLaw
from iclscale.analysis.law import (
    STRONGER,
    Hypothesis,
    Law,
    Prediction,
    VersusPrinted,
    exponent_prediction,
    inside_rule,
)
from iclscale.analysis.measures import FinalValue, ThresholdAlongAxis
from iclscale.analysis.verdict import INSIDE, OVERLAP, Band, VerdictRule
from iclscale.papers.feature_selector.laws.common import (
    EPSILON,
    EXPONENT_RULE,
    IN_DOMAIN,
    LW23,
    STUDY,
    SUFFICIENT,
    T_MEASURE,
    THEOREM_1,
    theorem_1_regime,
)


def tau_crit_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Thm 1: τ ≤ O(1/M1) and the factor (1 − ε_m − τM1)^(−1/2) of Eq. (6) blows up at τ = (1 − ε_m)/M1
    return exponent_prediction(
        -1.0,
        "[LW23] Thm 1, Eq. (6) (τ ≤ O(1/M1))",
        Band(-1.0, math.inf),
        "the condition τ ≤ O(1/M1) as sufficient: the breakdown may come later",
    )


TAU_CRIT_VS_M1 = Law(
    name=f"{STUDY}.tau_crit_vs_M1",
    regime=theorem_1_regime(without=("noise",)),  # τ is what it measures
    study=STUDY,
    claim="training breaks down at a noise bound τ_crit ≈ (1 − ε_m)/M1, i.e. τ_crit ∝ 1/M1",
    citation=f"{LW23} Theorem 1, Eq. (6)",
    conditions="τ_crit = the smallest τ of the grid with final in-domain error ≥ 0.1 (our reading of Thm 1's "
    "τ ≤ O(1/M1); 0.1 not from the paper) at T_max, per M1 and seed; M2 = max(M1² − M1, 8) and the width m "
    "Thm 1 asks at each M1 vary with M1 (pooled); d_X held fixed across M1 (with d_X = M the noise ball's share "
    "on each pattern axis would shrink "
    "as M1 grows: a confound); every run counts (a breakdown is the event measured)",
    prediction_text="exponent of τ_crit vs M1: −1 (bound reading ≥ −1)",
    measure=ThresholdAlongAxis("test_error", axis="tau", threshold=0.1, below=False),
    x="M1",
    predict=tau_crit_prediction,
    kind=PowerLaw(),
    pool=("M2", "d_x", "m"),
    where={"domain": ("id",)},
    one_row_per_run=False,
    rule=EXPONENT_RULE,
)


def l_tr_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Thm 1 Eq. (5): l_tr ≥ Ω(2 log M/α) ∝ α⁻¹ (the proof's Eq. 38 has 2 log M1/α)
    return exponent_prediction(
        -1.0,
        "[LW23] Thm 1, Eq. (5); App. A.1, Eq. (38)",
        Band(-1.0, math.inf),
        "Eq. (5) as an upper bound on the requirement; not stated by the paper",
    )


L_TR_VS_ALPHA = Law(
    name=f"{STUDY}.l_tr_vs_alpha",
    regime=theorem_1_regime(without=("l_tr",)),  # l_tr is what it measures
    study=STUDY,
    claim="the training prompt length needed grows as 1/α",
    citation=f"{LW23} Theorem 1, Eq. (5)",
    conditions="required l_tr = the smallest l_tr of the grid whose model reaches in-domain error ≤ 0.01 at "
    "l_ts = l_tr after T = 2000 (T fixed: not from the paper); every run counts (failing is the event measured)",
    prediction_text="exponent of the required l_tr vs α: −1 (bound reading ≥ −1)",
    measure=ThresholdAlongAxis("test_error", axis="l_tr", threshold=EPSILON),
    x="alpha",
    predict=l_tr_prediction,
    kind=PowerLaw(),
    where={"domain": ("id",)},
    one_row_per_run=False,
    rule=EXPONENT_RULE,
)


def coverage_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] §3.3 assumes, "for simplicity", training tasks that use every μ_i as the +1 and as the −1 pattern (Lemma 1:
    # |T| ≥ M1); with fewer than M1 of the cyclic tasks some μ_i is never one of them. The paper states no experiment
    # and no failure without it: "errors expected" is ours
    return Prediction(Hypothesis("error > 0.01 on left-out tasks", Band(EPSILON, math.inf), "[LW23] Lemma 1", INSIDE))


TASK_COVERAGE = Law(
    name=f"{STUDY}.task_coverage",
    study=STUDY,
    claim="training tasks that leave some μ_i never +1 (or never −1) leave the model failing on the tasks left out",
    citation=f"{LW23} Lemma 1",
    conditions="trained on 1–3 of the M1 = 4 cyclic tasks, tested on the left-out ones (domain id_left_out); the "
    "expected failure is our reading of Lemma 1, not a claim of the paper",
    prediction_text="the smallest seed-mean error over the ablations (1–3 training tasks) > 0.01 (whole interval)",
    measure=FinalValue("test_error"),
    x="n_train_tasks",
    predict=coverage_prediction,
    kind=Bound(aggregate="min", statistic_text="smallest seed-mean left-out-task error over n_train_tasks"),
    where={"domain": ("id_left_out",), "n_train_tasks": (1, 2, 3)},
    one_row_per_run=False,
    rule=inside_rule(min_levels=1, min_points=2),
    versus_printed=VersusPrinted(
        STRONGER,
        "§3.3 assumes the coverage 'for simplicity' (to avoid bias) and Lemma 1 counts the tasks it takes (|T| ≥ M1); "
        "the paper proves nothing without it, while this law asks that breaking it makes the model fail on the tasks "
        "left out (our ablation: a failure here would not contradict the paper)",
    ),
)


# Theorem 1's width and batch conditions (claims S13, S14) ---------------------------------------------------------
def width_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Thm 1: m ≥ ε_m⁻² M1² log N; at fixed N = BT and ε_m an exponent 2 in M1 (claim S13)
    return exponent_prediction(
        2.0,
        "[LW23] Thm 1 (m ≥ ε_m⁻² M1² log N)",
        Band(-math.inf, 2.0),
        "Thm 1's width as a sufficient condition: the width needed may grow slower; not stated by the paper",
    )


MEASURED_CONDITION = {"m": ("width",), "batch_size": ("batch",), "tau": ("noise",)}  # a grid axis measured


def _required_vs_m1(name, axis, symbol, x, kind, predict, claim, citation, how, prediction_text) -> Law:
    """The smallest value of a grid `axis` whose final in-domain error is ≤ ε, per M1 and seed, against M1. The
    width m, where it is not the axis, is the one Thm 1 asks at each M1: it varies with M1 and is pooled."""
    pooled = ("M2", "d_x") if axis == "m" else ("M2", "d_x", "m")
    varying = "M2 = max(M1² − M1, 8), d_X = M" + ("" if axis == "m" else " and the width m Thm 1 asks")
    return Law(
        name=f"{STUDY}.{name}",
        study=STUDY,
        claim=claim,
        citation=f"{LW23} {citation}",
        regime=theorem_1_regime(without=MEASURED_CONDITION.get(axis, ())),
        conditions=f"required {symbol} = the smallest {symbol} of the grid whose final in-domain error is ≤ 0.01 "
        f"{how}, per M1 and seed (ε not from the paper; a staircase on the grid); {varying} "
        f"vary with M1 (pooled); every run counts (failing is the event measured). {THEOREM_1}",
        prediction_text=prediction_text,
        measure=ThresholdAlongAxis("test_error", axis=axis, threshold=EPSILON),
        x=x,
        predict=predict,
        kind=kind,
        pool=pooled,
        where={"domain": ("id",)},
        one_row_per_run=False,
        rule=EXPONENT_RULE,
    )


WIDTH_VS_M1 = _required_vs_m1(
    "width_vs_M1",
    "m",
    "m",
    "M1",
    PowerLaw(),
    width_prediction,
    "the MLP width needed for zero in-domain error grows as M1² (m ≥ ε_m⁻² M1² log N)",
    "Theorem 1; Lemma 7",
    "after a fixed T (N = BT fixed, so log N is constant)",
    "exponent of the required m vs M1: 2 (bound reading ≤ 2)",
)


def m1_log_m1(m1):
    """x = M1·ln M1 of [LW23] Thm 1's batch condition."""
    m1 = np.asarray(m1, dtype=float)
    return m1 * np.log(m1)


def batch_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Thm 1, Eq. (39): B > Ω(M1 log M1) (coupon collector: every task in every batch); exponent 1 in M1 ln M1
    return exponent_prediction(
        1.0,
        "[LW23] Thm 1; App. A.1, Eq. (39)",
        Band(-math.inf, 1.0),
        "Thm 1's batch as a sufficient condition: the batch needed may grow slower; not stated by the paper",
    )


BATCH_VS_M1 = _required_vs_m1(
    "batch_vs_M1",
    "batch_size",
    "B",
    "M1_ln_M1",
    PowerLaw(transform=m1_log_m1, param="M1", x_text="M1·ln M1"),
    batch_prediction,
    "the batch needed for zero in-domain error grows as M1·log M1 (B > Ω(M1 log M1))",
    "Theorem 1; App. A.1, Eq. (39)",
    "after a fixed number of iterations T (Theorem 1's T does not depend on B once B > Ω(M1 log M1); a "
    "fixed sample budget N = B·T would instead make T = N/B grow as B shrinks; T not from the paper; exploratory: the "
    "coupon-collector bound of Eq. 39 is loose)",
    "exponent of the required B vs M1·ln M1: 1 (bound reading ≤ 1)",
)


def _noise_curve(tau, params, A, e):
    # [LW23] Thm 1 Eq. (6): T ∝ (1 − ε_m − τM1)^(−1/2), ε_m written e and fitted
    return A * (1 - e - tau * params["M1"]) ** -0.5


def e_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Thm 1: ε_m ∈ (0, 1/2)
    return Prediction(Hypothesis("e = ε_m ∈ [0, 1/2)", Band(0.0, 0.5), "[LW23] Thm 1 (ε_m ∈ (0, 1/2))", OVERLAP))


T_VS_TAU_CURVE = Law(
    name=f"{STUDY}.T_vs_tau_curve",
    study=STUDY,
    claim="iterations to zero in-domain error grow as (1 − ε_m − τM1)^(−1/2) with the noise bound τ",
    citation=f"{LW23} Theorem 1, Eq. (6)",
    conditions="A and e fitted on log axes per M1 (iclscale.analysis.kinds.Curve); e < 1 − τM1 at every τ where "
    "training reached ε, so training at τM1 ≥ 1 forces e < 0; runs never reaching ε are left out and counted. "
    f"{THEOREM_1}",
    prediction_text="e of the fitted curve in [0, 1/2) (the interval meets it)",
    measure=T_MEASURE,
    x="tau",
    predict=e_prediction,
    kind=Curve(
        function=_noise_curve,
        constants=("A", "e"),
        judged="e",
        initial=lambda x, y, params: (float(np.exp(np.log(y).mean())), min(0.0, 0.5 - x.max() * params["M1"])),
        bounds=lambda x, params: ((0.0, -1e3), (math.inf, 1 - x.max() * params["M1"] - 1e-6)),
        form_text="T = A(1 − e − τM1)^(−1/2)",
    ),
    group_by=("M1",),
    **{**IN_DOMAIN, "rule": VerdictRule(min_levels=4, min_points=8, max_interval_width=0.5)},
)

# Point 2 of issue 23 (common.SUFFICIENT): each law against the statement printed
L_TR_VS_ALPHA, WIDTH_VS_M1, BATCH_VS_M1 = (
    replace(law, versus_printed=VersusPrinted(STRONGER, SUFFICIENT.format(what=what)))
    for law, what in (
        (L_TR_VS_ALPHA, "training prompt length (Eq. 5)"),
        (WIDTH_VS_M1, "width m"),
        (BATCH_VS_M1, "batch B"),
    )
)
TAU_CRIT_VS_M1, T_VS_TAU_CURVE = (
    replace(
        law,
        versus_printed=VersusPrinted(
            STRONGER,
            "Thm 1 needs τ ≤ O(1/M1) as a sufficient condition; reading it as where training breaks down "
            "(τ_crit ∝ 1/M1, T ∝ (1 − ε_m − τM1)^(−1/2) up to the breakdown) is ours, not printed",
        ),
    )
    for law in (TAU_CRIT_VS_M1, T_VS_TAU_CURVE)
)

LAWS = (
    TAU_CRIT_VS_M1,
    T_VS_TAU_CURVE,
    L_TR_VS_ALPHA,
    WIDTH_VS_M1,
    BATCH_VS_M1,
    TASK_COVERAGE,
)

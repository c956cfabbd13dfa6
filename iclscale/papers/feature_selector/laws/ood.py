"""[LW23] Theorem 2, Corollary 1 and Remark 1: out-of-domain prompts. Test-relevant patterns μ′ in the
non-negative cone of the μ, new irrelevant ν′ outside span{μ}, labels ±q and l_ts ≥ 2/α′ give zero error (Eq. 64,
69–71) with attention ≥ 1 − Θ(1/M) on same-pattern demonstrations (Eq. 12); Remark 1's conditions, violated, are
"not proved to fail"."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from iclscale.analysis.kinds import Bound, Curve, PowerLaw
from iclscale.analysis.law import OTHER_READING, STRONGER, Hypothesis, Law, Prediction, VersusPrinted, inside_rule
from iclscale.analysis.law import exponent_prediction as _exponent
from iclscale.analysis.measures import FinalCombination, FinalValue, ThresholdAlongAxis
from iclscale.analysis.verdict import INSIDE, OVERLAP, Band, VerdictRule
from iclscale.papers.feature_selector.laws.common import EPSILON, EXPONENT_RULE, LW23, SELECTED, STUDY

L_TS_EPSILON = 0.05  # ε for the required l_ts: not from the paper (error ½(1 − α′/2)^l_ts is never exactly 0)
THEOREM_2 = (
    "Theorem 2's conditions: μ′ in the cone (M1′ = 3), 8 new ν′ on spare axes, labels ±q; judged per reading of μ′ "
    "(ood_relevant): cone = (μ_j + μ_{j+1})/√2, overlapping (μ′_1·μ′_2 = β²/2), and cone_orthonormal = normalised "
    "sums of disjoint blocks of the μ, orthonormal as §3.5 says ('another orthonormal basis')"
)
IN_THE_CONE = ("cone", "cone_orthonormal")  # the two readings of μ′ (iclscale's feature_selector declaration)
CONE = {"domain": ("ood",), "ood_relevant": IN_THE_CONE, "ood_label": ("same",)}
ONE_CELL = inside_rule(min_levels=1, min_points=2)


def long_enough(runs):
    """Rows with l_ts ≥ 2/α′ (Theorem 2's third condition)."""
    return runs[runs["l_ts"] * runs["alpha_test"] >= 2] if "l_ts" in runs and len(runs) else runs


def hinge_prediction(params: Mapping[str, Any]) -> Prediction | None:
    # [LW23] App. A.4, Eq. (69)–(71): F > 1 − 1/M1 for y = +1 (< −(1 − 1/M1) for −1), so the hinge loss ≤ 1/M1
    M1 = params.get("M1")
    if M1 is None:
        return None
    return Prediction(Hypothesis(f"hinge ≤ 1/M1 = {1 / M1:.3g}", Band(0.0, 1 / M1), "[LW23] Eq. (69)–(71)", INSIDE))


OOD_HINGE_BOUND = Law(
    name=f"{STUDY}.ood_hinge_below_inverse_M1",
    study=STUDY,
    claim="where Theorem 2's conditions hold, the out-of-domain hinge loss is at most 1/M1",
    citation=f"{LW23} Theorem 2; App. A.4, Eq. (69)–(71)",
    conditions=f"{THEOREM_2}, l_ts ≥ 2/α′ (α′, l_ts pooled); per M1; selection-regime runs only",
    prediction_text="seed-mean OOD hinge ≤ 1/M1 at each M1 (the whole interval)",
    measure=FinalValue("test_hinge"),
    x=None,
    predict=hinge_prediction,
    kind=Bound(aggregate="mean", statistic_text="seed-mean OOD hinge loss"),
    group_by=("M1", "ood_relevant"),
    where=CONE,
    row_filter=long_enough,
    one_row_per_run=False,
    pool=("alpha_test", "l_ts"),
    regime=SELECTED,
    rule=ONE_CELL,
)


def hinge_slope_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Eq. (69)–(71): OOD hinge ≤ 1/M1 ("Loss ≤ ε if M1 ≥ ε⁻¹"): read as a decay at least as fast as 1/M1
    return Prediction(Hypothesis("exponent ≤ −1", Band(-math.inf, -1.0), "[LW23] Eq. (69)–(71)", OVERLAP))


OOD_HINGE_VS_M1 = Law(
    name=f"{STUDY}.ood_hinge_vs_M1",
    study=STUDY,
    claim="the out-of-domain hinge loss falls at least as fast as 1/M1 (Loss ≤ ε once M1 ≥ 1/ε)",
    citation=f"{LW23} Theorem 2; App. A.4, Eq. (69)–(71)",
    conditions=f"{THEOREM_2}, l_ts ≥ 2/α′; M2 = max(M1² − M1, 8), d_X = M + 12 and the width m the theorem asks "
    "vary with M1 (pooled); an upper bound read as a slope (ours); seeds with zero hinge are left out of the log fit "
    "and counted; selection-regime runs only",
    prediction_text="exponent of the mean OOD hinge loss vs M1 ≤ −1",
    measure=FinalValue("test_hinge"),
    x="M1",
    predict=hinge_slope_prediction,
    kind=PowerLaw(),
    group_by=("ood_relevant",),
    where=CONE,
    row_filter=long_enough,
    one_row_per_run=False,
    pool=("M2", "d_x", "m", "alpha_test", "l_ts"),
    regime=SELECTED,
    rule=EXPONENT_RULE,
    versus_printed=VersusPrinted(
        STRONGER,
        "Eq. (69)–(71) bound the hinge by 1/M1; over the sweep's M1 a hinge under the bound meets it whatever its "
        "slope there, so a slope ≤ −1 asks more than printed (`ood_hinge_below_inverse_M1` judges the bound)",
    ),
)


def zero_error_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Thm 2: "achieves zero generalization error" (0.01 on 1024 prompts: not from the paper)
    return Prediction(Hypothesis("error ≤ 0.01", Band(0.0, EPSILON), "[LW23] Theorem 2", INSIDE))


OOD_ZERO_ERROR = Law(
    name=f"{STUDY}.ood_zero_error",
    study=STUDY,
    claim="where Theorem 2's conditions hold, the out-of-domain error is zero",
    citation=f"{LW23} Theorem 2; Remark 1",
    conditions=f"{THEOREM_2}, l_ts ≥ 2/α′ (rows with l_ts < 2/α′ left out); selection-regime runs only",
    prediction_text="the largest seed-mean OOD error over l_ts (α′ pooled) ≤ 0.01 (the whole interval)",
    measure=FinalValue("test_error"),
    x="l_ts",
    predict=zero_error_prediction,
    kind=Bound(aggregate="max", statistic_text="largest seed-mean OOD error over l_ts"),
    group_by=("ood_relevant",),
    where=CONE,
    row_filter=long_enough,
    one_row_per_run=False,
    pool=("alpha_test",),
    regime=SELECTED,
    rule=ONE_CELL,
)


def ood_concentration_prediction(params: Mapping[str, Any]) -> Prediction | None:
    # [LW23] Cor. 1 Eq. (12): Σ_{s∈N_*} attn ≥ 1 − Θ(1/M) on OOD prompts; Θ(1) = 1 not from the paper
    M1, M2 = params.get("M1"), params.get("M2")
    if M1 is None or M2 is None:
        return None
    M = int(M1) + int(M2)
    return Prediction(Hypothesis(f"1 − A_* ≤ 1/M = {1 / M:.3g}", Band(0.0, 1 / M), "[LW23] Cor. 1, Eq. (12)", INSIDE))


OOD_ATTENTION = Law(
    name=f"{STUDY}.ood_attention_concentrates",
    study=STUDY,
    claim="on out-of-domain prompts the attention still concentrates on demonstrations sharing the query's μ′",
    citation=f"{LW23} Corollary 1, Eq. (12)",
    conditions=f"{THEOREM_2}, l_ts ≥ 2/α′ (α′, l_ts pooled); N_* by the test-relevant pattern; selection-regime "
    "runs only",
    prediction_text="seed-mean of 1 − A_* on OOD prompts ≤ 1/M at each M1 (the whole interval)",
    measure=FinalCombination("test_attn_same", combine="one_minus"),
    x=None,
    predict=ood_concentration_prediction,
    kind=Bound(aggregate="mean", statistic_text="seed-mean of 1 − A_* (OOD)"),
    group_by=("M1", "M2", "ood_relevant"),
    where=CONE,
    row_filter=long_enough,
    pool=("alpha_test", "l_ts"),
    one_row_per_run=False,
    regime=SELECTED,
    rule=ONE_CELL,
    versus_printed=VersusPrinted(STRONGER, "Θ(1/M) read as ≤ 1/M: the constant 1 is ours"),
)


def l_ts_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Thm 2, App. A.4 Eq. (64): l_ts ≥ 2/α′, ∝ α′⁻¹
    return _exponent(
        -1.0,
        "[LW23] Theorem 2; Eq. (64)",
        Band(-1.0, math.inf),
        "Eq. (64) as an upper bound on the requirement; not stated by the paper",
    )


L_TS_VS_ALPHA_TEST = Law(
    name=f"{STUDY}.l_ts_vs_alpha_test",
    study=STUDY,
    claim="the test prompt length needed out of domain grows as 1/α′ (l_ts ≥ 2/α′)",
    citation=f"{LW23} Theorem 2; App. A.4, Eq. (64)",
    conditions=f"{THEOREM_2}; required l_ts = the smallest l_ts of the grid with OOD error ≤ 0.05 (not from the "
    "paper), per α′ and seed, on one trained model per seed; selection-regime runs only",
    prediction_text="exponent of the required l_ts vs α′: −1 (bound reading ≥ −1)",
    measure=ThresholdAlongAxis("test_error", axis="l_ts", threshold=L_TS_EPSILON),
    x="alpha_test",
    predict=l_ts_prediction,
    kind=PowerLaw(),
    group_by=("ood_relevant",),
    where=CONE,
    one_row_per_run=False,
    regime=SELECTED,
    rule=EXPONENT_RULE,
    versus_printed=VersusPrinted(
        STRONGER,
        "Eq. (64) gives l_ts ≥ 2/α′ as sufficient; the point exponent reads it as the length needed (the bound "
        "reading beside it is the printed claim)",
    ),
)


# The no-match curve: error ≈ ½(1 − α′/2)^l_ts (ours, derived from [LW23] Eq. 64) --------------------------------------
RESOLVED_ERRORS = 5  # a point is fitted when the curve predicts ≥ 5 wrong prompts among the eval prompts (ours)


def _no_match_curve(l_ts, params, A, p):
    # derived here from [LW23] Thm 2 / Eq. (64): each demonstration shares the query's pattern with
    # probability α′/2, so none of l_ts does with probability (1 − α′/2)^l_ts; such a prompt a coin flip gives
    # error ½(1 − α′/2)^l_ts. Here A (½) and p (α′/2) are free
    return A * (1 - p) ** l_ts


def resolvable(runs):
    """Rows whose predicted error ½(1 − α′/2)^l_ts leaves ≥ RESOLVED_ERRORS wrong prompts among the eval prompts:
    beyond, most seeds measure exactly 0, which a fit on log axes cannot use (dropping only the zeros would bias
    the rest upward). Selected on x by the prediction, never on the measured error."""
    if not len(runs) or "l_ts" not in runs:
        return runs
    predicted = 0.5 * (1 - runs["alpha_test"].astype(float) / 2) ** runs["l_ts"].astype(float)
    return runs[predicted * runs["eval_prompts"].astype(float) >= RESOLVED_ERRORS]


def _no_match_law(name: str, judged: str, predict, prediction_text: str, width: float) -> Law:
    """`width`: the resolution the sweep's grid gives the constant; the band around the point is ± width/2 (an
    equivalence band needs a tolerance: a point alone is met by no interval; this tool's choice)."""
    return Law(
        name=f"{STUDY}.{name}",
        study=STUDY,
        claim="out of domain, the error is that of the prompts with no demonstration sharing the query's pattern, "
        "answered by a coin flip: ½(1 − α′/2)^l_ts",
        citation=f"{LW23} Theorem 2; App. A.4, Eq. (64) (the curve is our derivation, not the paper's)",
        conditions=f"{THEOREM_2}; one trained model per seed, every l_ts (below 2/α′ too); A and p of A(1 − p)^l_ts "
        "fitted on log axes per α′ (iclscale.analysis.kinds.Curve); only l_ts where the curve predicts ≥ 5 wrong "
        "prompts among "
        f"the eval prompts (not from the paper); the interval width allowed ({width:g}) is not from the paper; "
        "selection-regime runs only",
        prediction_text=prediction_text,
        measure=FinalValue("test_error"),
        x="l_ts",
        predict=predict,
        kind=Curve(
            function=_no_match_curve,
            constants=("A", "p"),
            judged=judged,
            initial=lambda x, y, params: (0.5, float(params["alpha_test"]) / 2),
            bounds=lambda x, params: ((1e-6, 1e-6), (1.0, 1 - 1e-6)),
            form_text="error = A(1 − p)^l_ts",
        ),
        group_by=("alpha_test", "ood_relevant"),
        where=CONE,
        row_filter=resolvable,
        one_row_per_run=False,
        regime=SELECTED,
        rule=VerdictRule(min_levels=4, min_points=8, max_interval_width=width, tolerance=width / 2),
        versus_printed=VersusPrinted(
            OTHER_READING, "the paper prints no error curve: ½(1 − α′/2)^l_ts is our derivation from Eq. (64)"
        ),
    )


def no_match_rate_prediction(params: Mapping[str, Any]) -> Prediction | None:
    # derived here from [LW23] Eq. (64): a demonstration shares the query's test-relevant pattern w.p. α′/2
    alpha = params.get("alpha_test")
    if alpha is None:
        return None
    half = float(alpha) / 2
    return Prediction(Hypothesis(f"p = α′/2 = {half:.3g}", Band.point(half), "[LW23] Eq. (64); our curve", OVERLAP))


def no_match_level_prediction(params: Mapping[str, Any]) -> Prediction:
    # ours: a prompt with no same-pattern demonstration is a coin flip (error ½)
    return Prediction(Hypothesis("A = ½", Band.point(0.5), "ours (from [LW23] Eq. (64))", OVERLAP))


OOD_NO_MATCH_RATE = _no_match_law(
    "ood_error_vs_l_ts_rate",
    "p",
    no_match_rate_prediction,
    "p of the fitted A(1 − p)^l_ts = α′/2 (the interval meets it, width ≤ 0.1)",
    0.1,  # the step of α′/2 on the sweep's grid
)
OOD_NO_MATCH_LEVEL = _no_match_law(
    "ood_error_vs_l_ts_level",
    "A",
    no_match_level_prediction,
    "A of the fitted A(1 − p)^l_ts = ½ (the interval meets it, width ≤ 0.25)",
    0.25,  # half the predicted ½
)


def violated_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Remark 1: the conditions (1) μ′ in the non-negative cone, (2) labels ±q, (3) l_ts ≥ 2/α′. Violated,
    # the theorem says nothing; "degraded error" is our expectation, not the paper's claim
    return Prediction(
        Hypothesis("error > 0.01 (expected, not proved)", Band(EPSILON, math.inf), "[LW23] Remark 1", INSIDE)
    )


def _violations(runs):
    """The violating variants at the longest test prompt (so only the violated condition differs)."""
    if "ood_relevant" not in runs or not len(runs):
        return runs
    violating = ~runs["ood_relevant"].isin(IN_THE_CONE) | (runs["ood_label"] != "same")
    return runs[violating & (runs["l_ts"] == runs["l_ts"].max())]


OOD_VIOLATIONS = Law(
    name=f"{STUDY}.ood_conditions_violated",
    study=STUDY,
    claim="out-of-domain prompts that violate Remark 1's conditions (negative coefficient, μ′ ∈ span{ν}, μ′ on fresh "
    "axes, labels q′ ⟂ q or swapped) lose the zero-error guarantee",
    citation=f"{LW23} Theorem 2; Remark 1",
    conditions="the longest l_ts of the sweep, every α′; per variant; the paper proves nothing here (reported "
    "as 'conditions violated'); selection-regime runs only",
    prediction_text="seed-mean OOD error > 0.01 per variant (the whole interval); exploratory",
    measure=FinalValue("test_error"),
    x=None,
    predict=violated_prediction,
    kind=Bound(aggregate="mean", statistic_text="seed-mean OOD error"),
    group_by=("ood_relevant", "ood_label"),
    where={"domain": ("ood",)},
    row_filter=_violations,
    one_row_per_run=False,
    pool=("alpha_test",),
    regime=SELECTED,
    rule=ONE_CELL,
    versus_printed=VersusPrinted(STRONGER, "Remark 1 only withdraws the guarantee; the expected degradation is ours"),
)

LAWS = (
    OOD_HINGE_BOUND,
    OOD_HINGE_VS_M1,
    OOD_ZERO_ERROR,
    OOD_ATTENTION,
    L_TS_VS_ALPHA_TEST,
    OOD_NO_MATCH_RATE,
    OOD_NO_MATCH_LEVEL,
    OOD_VIOLATIONS,
)

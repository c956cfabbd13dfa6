"""The laws of seed 000: Li, Wang, Lu, Cui, Chen, "How Do Nonlinear Transformers Learn and Generalize in
In-Context Learning?", ICML 2024 (PMLR 235, arXiv 2402.15607), cited as [L24]. Spec:
shared/specs/seed-000.md §6 (L1–L14).

Theorem 3.3 is a sufficient condition: if m, B, l_tr, l_ts and T are at least the stated orders, the
trained model's expected hinge loss is O(ε). Its exponents (T ∝ α^{-2/3}, l_tr ∝ α^{-1}, …) describe the
*bound*; an empirical minimal requirement is expected to follow the same trend, not necessarily the same
exponent (spec §6). So every exponent law judges the paper's own reading ("T is linear in α^{-2/3}",
Fig. 6) as its primary hypothesis and, beside it, the *bound reading*: a measured requirement can grow no
faster than the bound towards the theorem's hard end (α → 0, β → ∞, M1 → ∞, η → 0), which is a one-sided
band for the exponent.

Measured quantities (not from the paper where marked): "T" is the first recorded iteration at which the
in-domain error on unseen tasks is ≤ ε = 0.01 (spec §6 ε_thr; the paper's Fig. 3A text uses "< 0.01");
"required l_tr" (l_ts) is the smallest grid value whose final error is ≤ ε; the pruning laws read the final
record. Thresholds, verdict widths and the Ω(m) constant below are this tool's choices.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from analysis.law import (
    BoundLaw,
    FlatRegionLaw,
    Hypothesis,
    LinearLaw,
    PowerLaw,
    Prediction,
    ThresholdLaw,
    TransformedPowerLaw,
    inside_rule,
)
from analysis.measures import FinalValue, FirstStepReaching, IncreaseOver, SamplesToReach, ThresholdAlongAxis
from analysis.verdict import INSIDE, OVERLAP, Band, VerdictRule

L24 = "Li, Wang, Lu, Cui, Chen 2024 [L24] (ICML 2024, arXiv 2402.15607)"
STUDY, GPT2 = "nonlinear_icl", "nonlinear_icl_gpt2"
EPSILON = 0.01  # ε for "T" and for the S1 threshold: spec §6 ε_thr; [L24] Fig. 3A text "< 0.01"
L_TS_EPSILON = 0.05  # ε for the required test length: not from the paper (spec §11 used 0.05 and 0.1)
TASKS_EPSILON = EPSILON  # "error ≈ 0" in Fig. 7 read as ≤ 0.01, the ε_thr of spec §6 (Fig. 7 gives no number)
EXPONENT_RULE = VerdictRule(max_interval_width=0.3)  # 0.3 wide at most: not from the paper
THEOREM_3_3 = (
    "Theorem 3.3 holds when Condition 3.2 holds (|T_tr| ≥ M1, every (pattern, label) covered equally), "
    "m ≥ Ω(M1² log M1), B ≥ Ω(max{ε⁻², M1} log M1), l_tr ≥ max{Ω(log M1/α), Ω(1/(β²α))}, l_ts ≥ α'⁻¹, "
    "η ≤ 1, T = Θ(η⁻¹ M1 α^{-2/3} β^{-2/3} √log M1); it bounds the expected hinge loss by O(ε). "
    "A sufficient condition: the exponent of the bound is predicted, the exponent of a measured "
    "requirement only as a trend (spec §6)"
)


# Row filters --------------------------------------------------------------------------------------
def transformer_unpruned(runs):
    """The trained transformer itself, measured at every record: no classical learner, no pruning (both are
    measured at the final record only)."""
    keep = runs["status"].notna()
    if "learner" in runs:
        keep &= runs["learner"].fillna("transformer") == "transformer"
    if "prune_method" in runs:
        keep &= runs["prune_method"].fillna("none") == "none"
    return runs[keep]


# How the in-domain exponent laws select and judge their rows: unseen-task (id) error of the unpruned
# transformer, every eval point of a run kept, the exponent verdict rule
IN_DOMAIN_EXPONENT = {
    "where": {"domain": ("id",)},
    "row_filter": transformer_unpruned,
    "one_row_per_run": False,
    "rule": EXPONENT_RULE,
}

OOD_ONLY = ("K_ood", "S1", "odr_split")  # eval params that change nothing in domain id


def transformer_unpruned_once_in_domain(runs):
    """`transformer_unpruned`, with in-domain rows kept at one value of the OOD-only eval params (K', S1):
    a sweep measuring both domains would otherwise fit the same in-domain numbers once per K'."""
    runs = transformer_unpruned(runs)
    if "domain" not in runs:
        return runs
    keep = runs["domain"] != "id"
    first = runs["domain"] == "id"
    for param in OOD_ONLY:
        if param in runs and runs.loc[first, param].nunique() > 1:
            first &= runs[param] == runs.loc[runs["domain"] == "id", param].iloc[0]
    return runs[keep | first]


def longest_test_prompt(runs):
    """Transformer rows at the longest test prompt in the data (the plateau of Fig. 3A's curves, l_ts = 20)."""
    runs = transformer_unpruned(runs)
    if "l_ts" not in runs or not len(runs):
        return runs
    return runs[runs["l_ts"] == runs["l_ts"].max()]


def app_a2_task_sets(runs):
    """App. A.2's task sets only (n_train_tasks > 0; 0 is the cyclic default), transformer rows."""
    runs = transformer_unpruned(runs)
    return runs[runs["n_train_tasks"] > 0] if "n_train_tasks" in runs else runs.iloc[0:0]


def transformer_rows(runs):
    """Rows of the trained transformer (pruned or not), no classical learner."""
    if "learner" not in runs:
        return runs
    return runs[runs["learner"].fillna("transformer") == "transformer"]


# Exponent laws (Theorem 3.3) ----------------------------------------------------------------------
def _exponent(point: float, point_source: str, bound: Band, bound_text: str) -> Prediction:
    return Prediction(
        Hypothesis(f"exponent {point:.3g}", Band.point(point), point_source),
        (Hypothesis("bound reading", bound, bound_text, OVERLAP),),
    )


def t_vs_alpha_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.3 (iv), Eq. (10): T = Θ(η⁻¹ M1 α^{-2/3} β^{-2/3} √log M1); §3.3 insight 3, Fig. 6 (right)
    return _exponent(
        -2 / 3,
        "[L24] Thm 3.3 (iv), Eq. (10); Fig. 6 right (T linear in α^{-2/3})",
        # bound reading: T* ≤ c·α^{-2/3} for every α ∈ (0, 1] needs T* to grow no faster as α → 0
        Band(-2 / 3, math.inf),
        "[L24] Eq. (10) as an upper bound on the requirement (spec §6); not stated by the paper",
    )


def t_vs_beta_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.3 (iv), Eq. (10): the β^{-2/3} factor (the proof's Eq. 83 also has δ^{-2/3}, spec §10.9)
    return _exponent(
        -2 / 3,
        "[L24] Thm 3.3 (iv), Eq. (10)",
        # bound reading: T* ≤ c·β^{-2/3} as β grows (β ≥ 1) needs T* to fall at least as fast
        Band(-math.inf, -2 / 3),
        "[L24] Eq. (10) as an upper bound on the requirement (spec §6); not stated by the paper",
    )


def t_vs_m1_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.3 (iv), Eq. (10): T ∝ M1·√log M1, so exponent 1 against x = M1·√(ln M1)
    return _exponent(
        1.0,
        "[L24] Thm 3.3 (iv), Eq. (10)",
        Band(-math.inf, 1.0),  # bound reading: T* grows no faster than M1·√log M1 as M1 grows
        "[L24] Eq. (10) as an upper bound on the requirement (spec §6); not stated by the paper",
    )


def t_vs_eta_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.3 (iv), Eq. (10): T ∝ η⁻¹ (η ≤ 1)
    return _exponent(
        -1.0,
        "[L24] Thm 3.3 (iv), Eq. (10)",
        Band(-1.0, math.inf),  # bound reading: T* grows no faster than 1/η as η → 0
        "[L24] Eq. (10) as an upper bound on the requirement (spec §6); not stated by the paper",
    )


def l_tr_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.3 (iii), Eq. (9): l_tr ≥ max{Ω(log M1/α), Ω(1/(β²α))} ∝ α⁻¹; §3.3 insight 2; Fig. 6 left
    return _exponent(
        -1.0,
        "[L24] Thm 3.3 (iii), Eq. (9); Fig. 6 left (l_tr linear in 1/α)",
        Band(-1.0, math.inf),  # bound reading: the required l_tr grows no faster than 1/α as α → 0
        "[L24] Eq. (9) as an upper bound on the requirement (spec §6); not stated by the paper",
    )


def l_ts_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.3 (iii), Eq. (9): l_ts ≥ α'⁻¹; Remark 3.5 (OOD); Fig. 3B
    return _exponent(
        -1.0,
        "[L24] Thm 3.3 (iii), Eq. (9); Thm 3.4, Remark 3.5; Fig. 3B",
        Band(-1.0, math.inf),  # bound reading: the required l_ts grows no faster than 1/α' as α' → 0
        "[L24] Eq. (9) as an upper bound on the requirement (spec §6); not stated by the paper",
    )


def _t_law(name: str, x: str, predict, claim: str, conditions: str) -> PowerLaw:
    return PowerLaw(
        name=f"{STUDY}.{name}",
        study=STUDY,
        claim=claim,
        citation=f"{L24} Theorem 3.3 (iv), Eq. (10)",
        conditions=f"{conditions}; in-domain error on unseen tasks T \\ T_tr (§5). {THEOREM_3_3}",
        prediction_text=f"exponent of T vs {x}: {predict({}).primary.band.describe()} "
        f"(bound reading {predict({}).alternatives[0].band.describe()})",
        measure=FirstStepReaching("test_error", threshold=EPSILON),
        x=x,
        predict=predict,
        **IN_DOMAIN_EXPONENT,
    )


T_VS_ALPHA = _t_law(
    "T_vs_alpha",
    "alpha",
    t_vs_alpha_prediction,
    "the iterations T needed to reach unseen-task error ≤ 0.01 scale as α^{-2/3}",
    "β, M1, η, B, l_tr held fixed, l_tr long enough for every α of the grid",
)
T_VS_BETA = _t_law(
    "T_vs_beta",
    "beta",
    t_vs_beta_prediction,
    "the iterations T needed to reach unseen-task error ≤ 0.01 scale as β^{-2/3}",
    "α, M1, η, B, l_tr, K held fixed; β ≥ 1 (K fixed, so the irrelevant part κν scales with β too)",
)
T_VS_ETA = _t_law(
    "T_vs_eta",
    "lr",
    t_vs_eta_prediction,
    "the iterations T needed to reach unseen-task error ≤ 0.01 scale as η^{-1}",
    "α, β, M1, B, l_tr held fixed; η ≤ 1",
)


def m1_sqrt_log_m1(m1):
    """x = M1·√(ln M1) of [L24] Eq. (10)."""
    return np.asarray(m1, dtype=float) * np.sqrt(np.log(np.asarray(m1, dtype=float)))


T_VS_M1 = TransformedPowerLaw(
    name=f"{STUDY}.T_vs_M1",
    study=STUDY,
    claim="the iterations T needed to reach unseen-task error ≤ 0.01 scale as M1·√(log M1)",
    citation=f"{L24} Theorem 3.3 (iv), Eq. (10)",
    conditions="α, β, η, B, l_tr, M2 held fixed; the theorem also needs m ≳ M1² log M1, B ≳ M1 log M1 and "
    "l_tr ≳ log M1/α (a sweep at fixed m leaves the larger M1 below the first); not in the paper's figures. "
    + THEOREM_3_3,
    prediction_text="exponent 1 of T vs M1·√(ln M1) (bound reading ≤ 1)",
    measure=FirstStepReaching("test_error", threshold=EPSILON),
    x="M1_sqrt_ln_M1",
    param="M1",
    transform=m1_sqrt_log_m1,
    x_text="M1·√(ln M1)",
    predict=t_vs_m1_prediction,
    **IN_DOMAIN_EXPONENT,
)

SAMPLES_VS_ALPHA = PowerLaw(
    name=f"{STUDY}.samples_vs_alpha",
    study=STUDY,
    claim="the training samples N = B·T needed to reach unseen-task error ≤ 0.01 scale as α^{-2/3}",
    citation=f"{L24} Theorem 3.3 (iv), Eq. (10) with N = BT; §3.3 insight 3",
    conditions="as T vs α (spec §6 L5): β, M1, η, l_tr held fixed; at one B per group N* is B·T*, so the "
    "exponent is T's; a sweep that also grids B fits N* per B. " + THEOREM_3_3,
    prediction_text="exponent of N = B·T vs alpha: -0.667 (bound reading ≥ -0.667)",
    # [L24] Thm 3.3 (iv): N = BT samples with T ∝ α^{-2/3} (Eq. 10); insight 3: "the required number of
    # iterations and the training samples is proportional to α^{-2/3}"
    measure=SamplesToReach("test_error", threshold=EPSILON),
    x="alpha",
    predict=t_vs_alpha_prediction,
    **IN_DOMAIN_EXPONENT,
)


L_TR_VS_ALPHA = PowerLaw(
    name=f"{STUDY}.l_tr_vs_alpha",
    study=STUDY,
    claim="the training prompt length needed for unseen-task error ≤ 0.01 after a fixed budget scales as α^{-1}",
    citation=f"{L24} Theorem 3.3 (iii), Eq. (9); App. A.1, Figure 6 (left)",
    conditions="a fixed iteration budget for every (α, l_tr); required l_tr = the smallest l_tr of the grid whose "
    "final unseen-task error is ≤ 0.01 (integer grid: a staircase); the bound is max{log M1/α, 1/(β²α)}. "
    + THEOREM_3_3,
    prediction_text="exponent −1 of the required l_tr vs α (bound reading ≥ −1)",
    measure=ThresholdAlongAxis("test_error", axis="l_tr", threshold=EPSILON),
    x="alpha",
    predict=l_tr_prediction,
    **IN_DOMAIN_EXPONENT,
)


def m1_squared_log_m1(m1):
    """x = M1²·ln M1 of [L24] Thm 3.3 (i)."""
    m1 = np.asarray(m1, dtype=float)
    return m1**2 * np.log(m1)


def width_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.3 (i): m ≥ Ω(M1² log M1) neurons suffice; exponent 1 against x = M1²·ln M1
    return _exponent(
        1.0,
        "[L24] Thm 3.3 (i)",
        Band(-math.inf, 1.0),  # bound reading: the width needed grows no faster than M1² log M1 as M1 grows
        "[L24] Thm 3.3 (i) as an upper bound on the requirement (spec §6); not stated by the paper",
    )


WIDTH_VS_M1 = TransformedPowerLaw(
    name=f"{STUDY}.width_vs_M1",
    study=STUDY,
    claim="the MLP width m needed for unseen-task error ≤ 0.01 grows as M1²·log M1",
    citation=f"{L24} Theorem 3.3 (i)",
    conditions="a fixed iteration budget for every (M1, m); required m = the smallest m of the grid whose final "
    "unseen-task error is ≤ 0.01 (ε not from the paper; a staircase on the grid); a sufficient condition: "
    "a measured width may grow slower than the bound (spec §6 L10, optional there; not a figure of the paper). "
    + THEOREM_3_3,
    prediction_text="exponent 1 of the required m vs M1²·ln M1 (bound reading ≤ 1)",
    measure=ThresholdAlongAxis("test_error", axis="m", threshold=EPSILON),
    x="M1_squared_ln_M1",
    param="M1",
    transform=m1_squared_log_m1,
    x_text="M1²·ln M1",
    predict=width_prediction,
    **IN_DOMAIN_EXPONENT,
)


def hinge_vs_batch_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.3 (ii): B ≥ Ω(max{ε⁻², M1} log M1) gives hinge loss O(ε): ε ∝ √(log M1 / B), exponent −1/2 in B
    return _exponent(
        -0.5,
        "[L24] Thm 3.3 (ii), (11)",
        Band(-0.5, math.inf),  # bound reading: the loss grows no faster than B^{-1/2} as B shrinks
        "[L24] Thm 3.3 (ii) as an upper bound on the loss (spec §6); not stated by the paper",
    )


HINGE_VS_BATCH = PowerLaw(
    name=f"{STUDY}.hinge_vs_batch",
    study=STUDY,
    claim="the hinge loss reached after training falls with the batch size B as B^{-1/2}",
    citation=f"{L24} Theorem 3.3 (ii), (11)",
    conditions="final unseen-task hinge loss after a budget long enough to converge at every B; the theorem "
    "needs B ≳ M1 log M1 (≈ 11 at M1 = 6); weak (spec §6 L11): a loss far below its bound need not follow "
    "the bound's slope, and a loss of exactly 0 cannot enter a log–log fit (counted as left out). " + THEOREM_3_3,
    prediction_text="exponent of the hinge loss vs B: -0.5 (bound reading ≥ -0.5)",
    measure=FinalValue("test_hinge"),
    x="batch_size",
    predict=hinge_vs_batch_prediction,
    **IN_DOMAIN_EXPONENT,
)


def _l_ts_law(study: str) -> PowerLaw:
    return PowerLaw(
        name=f"{study}.l_ts_vs_alpha_test",
        study=study,
        claim="the test prompt length needed for error ≤ 0.05 scales as α'^{-1}, in and out of domain",
        citation=f"{L24} Theorem 3.3 (iii), Eq. (9); Theorem 3.4, Remark 3.5; Figure 3B",
        conditions="one trained model per seed measured at every (α', l_ts) (eval params); required l_ts = the "
        "smallest l_ts of the grid whose error is ≤ 0.05 (ε not from the paper), per domain; " + THEOREM_3_3,
        prediction_text="exponent −1 of the required l_ts vs α' (bound reading ≥ −1)",
        measure=ThresholdAlongAxis("test_error", axis="l_ts", threshold=L_TS_EPSILON),
        x="alpha_test",
        predict=l_ts_prediction,
        group_by=("domain",),
        row_filter=transformer_unpruned_once_in_domain,
        one_row_per_run=False,
        rule=EXPONENT_RULE,
    )


L_TS_VS_ALPHA_TEST = _l_ts_law(STUDY)
GPT2_L_TS_VS_ALPHA_TEST = _l_ts_law(GPT2)


# Threshold laws -------------------------------------------------------------------------------------
def tasks_threshold_prediction(group: Mapping[str, Any]) -> Prediction | None:
    # [L24] Condition 3.2 and Lemma B.11: |T_tr| ≥ M1 is needed to cover every (pattern, label) pair;
    # App. A.2, Fig. 7: error significant for |T_tr| < M1, ≈ 0 for |T_tr| ≥ M1 (sets built around T_tr0)
    M1 = group.get("M1")
    if M1 is None:
        return None
    return Prediction(Hypothesis("|T_tr|* = M1", Band.point(float(M1)), "[L24] Condition 3.2, Lemma B.11; Fig. 7"))


TRAIN_TASKS_THRESHOLD = ThresholdLaw(
    name=f"{STUDY}.train_tasks_threshold",
    study=STUDY,
    claim="unseen-task error is ≈ 0 iff the number of training tasks |T_tr| ≥ M1 (App. A.2's task sets)",
    citation=f"{L24} Condition 3.2, Lemma B.11; App. A.2, Figure 7",
    conditions="task sets of App. A.2: a random subset of the cyclic T_tr0 below M1 (Condition 3.2 fails), "
    "T_tr0 plus random other tasks from M1 on; 'error ≈ 0' read as final error ≤ 0.01 (spec §6's ε_thr; "
    "Fig. 7 gives no number); "
    "the theorem gives the 'if' (Condition 3.2 ⇒ Thm 3.3), Fig. 7 the 'only if'",
    prediction_text="per M1: error ≤ 0.01 at every |T_tr| ≥ M1 and > 0.01 at every |T_tr| < M1",
    measure=FinalValue("test_error"),
    x="n_train_tasks",
    predict=tasks_threshold_prediction,
    group_by=("M1",),
    where={"domain": ("id",)},
    row_filter=app_a2_task_sets,
    one_row_per_run=False,
    rule=VerdictRule(min_levels=3, min_points=4),
    threshold=TASKS_EPSILON,
    good_side="above",
    necessary=True,
)


def tasks_vs_m1_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Condition 3.2 / Lemma B.11: |T_tr| ≥ M1, reached by the cyclic set (§3.3): |T_tr|* = M1, exponent 1
    return Prediction(Hypothesis("exponent 1 (|T_tr|* = M1)", Band.point(1.0), "[L24] Condition 3.2; Fig. 7"))


TRAIN_TASKS_VS_M1 = PowerLaw(
    name=f"{STUDY}.train_tasks_vs_M1",
    study=STUDY,
    claim="the number of training tasks needed for unseen-task error ≤ 0.01 grows as M1 (|T_tr|* = M1)",
    citation=f"{L24} Condition 3.2, Lemma B.11; App. A.2, Figure 7",
    conditions="App. A.2's task sets; required |T_tr| = the smallest |T_tr| of the grid with final error ≤ 0.01 "
    "(ε not from the paper); the prefactor 1 is tested by the threshold law beside it",
    prediction_text="exponent 1 of the required |T_tr| vs M1",
    measure=ThresholdAlongAxis("test_error", axis="n_train_tasks", threshold=TASKS_EPSILON),
    x="M1",
    predict=tasks_vs_m1_prediction,
    where={"domain": ("id",)},
    row_filter=app_a2_task_sets,
    one_row_per_run=False,
    rule=EXPONENT_RULE,
)


def s1_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.4, Eq. (12): μ'_j = Σ_i k_{j,i} μ_i with S_j = Σ_i k_{j,i} ≥ 1 ⇒ OOD error O(ε);
    # Fig. 3A: "< 0.01 when S1 ≥ 1 and deviates from 0 when S1 < 1" (the necessity, shown on GPT-2)
    return Prediction(Hypothesis("S1* = 1", Band.point(1.0), "[L24] Thm 3.4, Eq. (12); Fig. 3A"))


def _s1_law(study: str, necessary: bool) -> ThresholdLaw:
    model = "GPT-2 (Fig. 3A's model)" if study == GPT2 else "the one-layer Transformer (Thm 3.4's model)"
    if necessary:
        name, claim = "ood_error_threshold_S1", "out-of-domain error is < 0.01 iff the coefficient sum S1 ≥ 1"
        source = f"{L24} Theorem 3.4, Eq. (12) (if); Figure 3A (only if, empirical)"
        text = "error ≤ 0.01 at every S1 ≥ 1 and > 0.01 at every S1 < 1"
    else:
        name, claim = "ood_error_sufficient_S1", "out-of-domain error is < 0.01 whenever the coefficient sum S1 ≥ 1"
        source = f"{L24} Theorem 3.4, Eq. (12)"
        text = "error ≤ 0.01 at every S1 ≥ 1 (no claim below 1)"
    return ThresholdLaw(
        name=f"{study}.{name}",
        study=study,
        claim=claim,
        citation=source,
        conditions=f"{model}; OOD data of §5 (μ'_1 = 0.3(μ_1 − μ_2) + aμ_5 + bμ_6, S1 = a + b; ODI = IDI), read at "
        "the longest test prompt in the sweep (Fig. 3A: 20); the theorem's O(ε) has no number: ε = 0.01 is "
        "Fig. 3A's; S1 = 1.3 is infeasible at ‖μ'_1‖ = β (a = b = 0.65, spec §2.5)",
        prediction_text=text,
        measure=FinalValue("test_error"),
        x="S1",
        predict=s1_prediction,
        where={"domain": ("ood",)},
        row_filter=longest_test_prompt,
        one_row_per_run=False,
        rule=VerdictRule(min_levels=3, min_points=4),
        threshold=EPSILON,
        good_side="above",
        necessary=necessary,
    )


OOD_S1_THRESHOLD = _s1_law(STUDY, necessary=True)
OOD_S1_SUFFICIENT = _s1_law(STUDY, necessary=False)
GPT2_OOD_S1_THRESHOLD = _s1_law(GPT2, necessary=True)
GPT2_OOD_S1_SUFFICIENT = _s1_law(GPT2, necessary=False)


# Pruning (Theorem 3.7) --------------------------------------------------------------------------------
def magnitude_pruning_prediction(group: Mapping[str, Any]) -> Prediction | None:
    # [L24] Thm 3.7 Eq. (14)–(15): pruning the small neurons L^c (‖r_i‖ ≤ O(1/√M)) costs only O(ε + M1^{-1/2});
    # Fig. 5A: magnitude pruning does not hurt up to ≈ 15%, the share of small neurons
    share = group.get("small_neuron_fraction")
    if share is None or not math.isfinite(share):
        return None
    return Prediction(
        Hypothesis(
            f"free up to the small-neuron share |L^c|/m = {share:.3g}",
            Band(share, math.inf),
            "[L24] Thm 3.7 Eq. (14)–(15); Fig. 5A",
        )
    )


MAGNITUDE_PRUNING_FREE = FlatRegionLaw(
    name=f"{STUDY}.magnitude_pruning_free",
    study=STUDY,
    claim="magnitude-based pruning (smallest neurons first) does not raise the error while it removes only "
    "the small neurons L^c",
    citation=f"{L24} Theorem 3.7, Eq. (14)–(15); Section 5.1, Figure 5A",
    conditions="trained one-layer model, neurons scored by ‖r_i‖ = ‖row i of W_O W_V‖ (Thm 3.7's score; the "
    "report also draws Fig. 5's ‖row i of W_O‖); the small set L^c is the lower group of a 2-means split of "
    "log ‖r_i‖ (spec §8E, not from the paper); 'costs' = the paired increase over R = 0 has a 95% bootstrap "
    "interval above 0 and "
    "exceeds the unpruned error's seed-to-seed s.d. (not from the paper). The theorem allows an O(ε + M1^{-1/2}) "
    "rise of the hinge loss; the claim tested is Fig. 5A's: no visible rise of the classification error",
    prediction_text="the first pruning ratio R that costs error lies above |L^c|/m",
    measure=FinalValue("test_error"),
    x="prune_ratio",
    predict=magnitude_pruning_prediction,
    where={"prune_method": ("magnitude",), "prune_score": ("wowv",)},
    row_filter=transformer_rows,
    one_row_per_run=False,
    rule=VerdictRule(min_levels=3, min_points=4),
    baseline=0.0,
    edge_metric="small_neuron_fraction",
)


def small_pruning_cost_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.7 Eq. (15): pruning all of L^c leaves E[ℓ] ≤ O(ε + M1^{-1/2}): the M1^{-1/2} term
    return Prediction(
        Hypothesis("exponent -0.5", Band.point(-0.5), "[L24] Thm 3.7, Eq. (15)"),
        # bounded as M1 grows (the ε term stays): the increase does not grow with M1
        (Hypothesis("bound reading: not growing", Band(-math.inf, 0.0), "[L24] Eq. (15) as a bound (spec §6 L12)"),),
    )


SMALL_PRUNING_COST_VS_M1 = PowerLaw(
    name=f"{STUDY}.small_pruning_cost_vs_M1",
    study=STUDY,
    claim="pruning all the small neurons L^c raises the hinge loss by at most O(M1^{-1/2}) (plus ε)",
    citation=f"{L24} Theorem 3.7, Eq. (15)",
    conditions="trained one-layer model; prune_method 'small' removes exactly L^c (the lower 2-means group of "
    "log ‖r_i‖, spec §8E, not from the paper); measured: final unseen-task hinge loss after pruning minus the "
    "same model's unpruned hinge loss on the same prompts (spec §6 L12); α' ≥ M1^{-1/2}; Eq. (15) bounds the "
    "loss by O(ε + M1^{-1/2}), so the exponent −1/2 holds only where the M1 term dominates; an increase ≤ 0 "
    "cannot enter the log–log fit (counted as left out)",
    prediction_text="exponent of the hinge-loss increase vs M1: -0.5 (bound reading ≤ 0: not growing with M1)",
    measure=IncreaseOver("test_hinge", param="prune_method", baseline="none", ignore=("prune_ratio", "prune_score")),
    x="M1",
    predict=small_pruning_cost_prediction,
    where={"prune_method": ("small",), "prune_score": ("wowv",), "domain": ("id",)},
    row_filter=transformer_rows,
    one_row_per_run=False,
    rule=EXPONENT_RULE,
)


def largest_pruning_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.7 Eq. (16): pruning S ⊂ L, |S| = Rm, gives E[ℓ] ≥ Ω(R + (α'M1)⁻¹): a loss growing linearly in R
    return Prediction(Hypothesis("slope > 0", Band(0.0, math.inf), "[L24] Thm 3.7, Eq. (16)", INSIDE))


LARGEST_PRUNING_LINEAR = LinearLaw(
    name=f"{STUDY}.largest_pruning_linear",
    study=STUDY,
    claim="pruning a share R of the large neurons raises the hinge loss linearly in R",
    citation=f"{L24} Theorem 3.7, Eq. (16); Remark 3.8",
    conditions="largest-first pruning by ‖r_i‖ (S ⊂ L while R ≤ |L|/m; not a figure of the paper, spec §5); expected "
    "hinge loss, the theorem's quantity (spec §11 recommends it over the error); α' ≥ Ω(M1^{-1/2}); Eq. (16) "
    "is a lower bound Ω(R + 1/(α'M1)): the slope's sign is predicted, linearity is shown by R² and the slopes "
    "on the two halves of the R grid",
    prediction_text="slope of the hinge loss vs R > 0 (the whole interval)",
    measure=FinalValue("test_hinge"),
    x="prune_ratio",
    predict=largest_pruning_prediction,
    where={"prune_method": ("largest",), "prune_score": ("wowv",)},
    row_filter=transformer_rows,
    one_row_per_run=False,
    rule=inside_rule(min_levels=3),
)


def pruned_alpha_test_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.7 Eq. (16): the Ω(1/(α'M1)) term; Fig. 5B: a larger α' improves the pruned model
    return Prediction(Hypothesis("decreasing in α'", Band(-math.inf, 0.0), "[L24] Thm 3.7 Eq. (16); Fig. 5B", INSIDE))


PRUNED_LOSS_VS_ALPHA_TEST = PowerLaw(
    name=f"{STUDY}.pruned_loss_vs_alpha_test",
    study=STUDY,
    claim="the pruned model's hinge loss falls as the test fraction α' grows",
    citation=f"{L24} Theorem 3.7, Eq. (16); Section 5.1, Figure 5B",
    conditions="largest-first pruning at R ∈ {0.1, 0.2, 0.3, 0.4} (the rates are this tool's choice), per R; "
    "Eq. (16)'s 1/(α'M1) is a lower-bound term: the sign of the trend is predicted, not its exponent",
    prediction_text="exponent of the hinge loss vs α' < 0 (the whole interval)",
    measure=FinalValue("test_hinge"),
    x="alpha_test",
    predict=pruned_alpha_test_prediction,
    where={"prune_method": ("largest",), "prune_score": ("wowv",), "prune_ratio": (0.1, 0.2, 0.3, 0.4)},
    row_filter=transformer_rows,
    one_row_per_run=False,
    rule=inside_rule(min_levels=3),
)


def large_share_prediction(group: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.7 Eq. (14): |L| = Ω(m); the constant is not given: |L| ≥ m/2 (small share ≤ 1/2) is this
    # tool's reading; Fig. 5A's bars show ≈ 15% small neurons
    return Prediction(
        Hypothesis("|L^c|/m ≤ 1/2", Band(0.0, 0.5), "[L24] Thm 3.7 Eq. (14) (constant 1/2 not from the paper)"),
        (Hypothesis("≈ 15% (Fig. 5A)", Band(0.1, 0.2), "[L24] §5.1 'around 15%' (±5% not from the paper)"),),
    )


SMALL_NEURON_SHARE = BoundLaw(
    name=f"{STUDY}.small_neuron_share",
    study=STUDY,
    claim="after training, most MLP neurons are large: |L| = Ω(m), the small ones a minority (≈ 15% in Fig. 5A)",
    citation=f"{L24} Theorem 3.7, Eq. (14); Section 5.1, Figure 5A",
    conditions="trained one-layer model; L^c = the lower group of a 2-means split of log ‖r_i‖ (spec §8E, not "
    "from the paper); the Ω(m) constant is not given",
    prediction_text="seed-mean of |L^c|/m ≤ 1/2 (beside it: 0.1–0.2, the paper's ≈ 15%)",
    measure=FinalValue("small_neuron_fraction"),
    x=None,
    predict=large_share_prediction,
    row_filter=transformer_rows,
    one_row_per_run=True,
    rule=VerdictRule(mode=INSIDE, min_levels=1, min_points=2, max_interval_width=0.5),
    aggregate="mean",
    statistic_text="seed-mean of the small-neuron share |L^c|/m",
)

LAWS = (
    T_VS_ALPHA,
    T_VS_BETA,
    T_VS_M1,
    T_VS_ETA,
    SAMPLES_VS_ALPHA,
    L_TR_VS_ALPHA,
    L_TS_VS_ALPHA_TEST,
    WIDTH_VS_M1,
    HINGE_VS_BATCH,
    TRAIN_TASKS_THRESHOLD,
    TRAIN_TASKS_VS_M1,
    OOD_S1_THRESHOLD,
    OOD_S1_SUFFICIENT,
    MAGNITUDE_PRUNING_FREE,
    SMALL_PRUNING_COST_VS_M1,
    LARGEST_PRUNING_LINEAR,
    PRUNED_LOSS_VS_ALPHA_TEST,
    SMALL_NEURON_SHARE,
    GPT2_L_TS_VS_ALPHA_TEST,
    GPT2_OOD_S1_THRESHOLD,
    GPT2_OOD_S1_SUFFICIENT,
)

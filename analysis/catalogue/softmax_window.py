"""The laws of seed 004: Collins, Parulekar, Mokhtari, Sanghavi, Shakkottai, "In-Context Learning
with Transformers: Softmax Attention Adapts to Function Lipschitzness", NeurIPS 2024
(arXiv 2402.11639), cited as [C24]. Spec: shared/specs/seed-004.md §5.

Notation: Λ := nL²/σ²; w_KQ is the scalar of the minimiser M* = w_KQ·Σ⁻¹ (Lemma B.5). The store's
‖M‖₂ and the oracle's w (logits w·x_iᵀx) equal 2·w_KQ of App B.1's kernel exp(−w_KQ‖x_i − x‖²);
a constant factor, so exponents are unaffected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from analysis.law import BoundLaw, DiagonalMinimum, Hypothesis, PowerLaw, Prediction, inside_rule
from analysis.measures import FinalValue, FinalValueScaled, OracleMinimiser, RelativeToStart
from analysis.verdict import OVERLAP, Band, VerdictRule

C24 = "Collins et al. 2024 [C24] (NeurIPS 2024, arXiv 2402.11639)"
THEORY_CLASSES = ("affine", "relu")  # the task classes Theorems 3.4–3.6 cover (Def 3.2)
LOW_RANK_CLASSES = ("lowrank_linear", "lowrank_affine", "lowrank_quadratic", "lowrank_cos")
EXPONENT_RULE = VerdictRule(max_interval_width=0.25)  # 0.25: not from the paper (the bands are 0.1–0.5 wide)


# Row filters ----------------------------------------------------------------------------------
def in_distribution(runs):
    """Rows whose test tasks come from the training distribution: L' = L and the same class."""
    keep = runs["status"].notna()
    if "L_test" in runs:
        keep &= runs["L_test"].isna() | (runs["L_test"] == runs["L"])
    if "test_class" in runs:
        keep &= runs["test_class"].isna() | (runs["test_class"] == runs["task_class"])
    return runs[keep]


def same_family_with_test_L(runs):
    """Rows tested on the training class; a null L_test (= the training L) written out as L."""
    if "L_test" not in runs:
        return runs.iloc[0:0]
    same_class = runs["test_class"].isna() | (runs["test_class"] == runs["task_class"])
    runs = runs[same_class].copy()
    runs["L_test"] = runs["L_test"].fillna(runs["L"])
    return runs


# Theorem 3.4: the window scale against Λ -------------------------------------------------------
def window_scale_prediction(group: Mapping[str, Any]) -> Prediction | None:
    """The exponent γ of w* ∝ Λ^γ (and of ‖M‖₂, which is 2·w_KQ), for the group's d and task class."""
    d, task_class = group.get("d"), group.get("task_class")
    if d is None or task_class not in THEORY_CLASSES:
        return None
    if task_class == "affine":
        # [C24] Thm 3.4 Case 1, exponents from App E.2 eq. (17): Ω(Λ^{1/(d+4)}) ≤ |w_KQ| ≤ O(Λ^{2(d+2)/(d(d+4))})
        primary = Hypothesis(
            "Thm 3.4 affine band [1/(d+4), 2(d+2)/(d(d+4))]",
            Band(1 / (d + 4), 2 * (d + 2) / (d * (d + 4))),
            "[C24] Thm 3.4 Case 1; App E.2 eq. (17)",
        )
    else:
        # [C24] Thm 3.4 Case 2, from App E.1 and the proof of E.3: Ω(Λ^β) ≤ w_KQ ≤ O(Λ^{2β}), β = 1/(d+2)
        primary = Hypothesis(
            "Thm 3.4 ReLU band [1/(d+2), 2/(d+2)]",
            Band(1 / (d + 2), 2 / (d + 2)),
            "[C24] Thm 3.4 Case 2; App E.1, E.3",
        )
    alternatives = [
        # Affine: balancing the bias L²/w² (Lemma C.6) against the variance σ²w^{d/2}/n (Lemma D.1)
        # gives w* ≍ Λ^{2/(d+4)}: derived from the paper's bounds (spec §5.1), not stated as a result.
        Hypothesis("point 2/(d+4)", Band.point(2 / (d + 4)), "[C24] Lemmas C.6 + D.1 balanced (derived, spec §5.1)"),
        # [C24] §3.1 sketch: L_signal = Θ(L²/w), L_noise = Θ(σ²w^{d/2}/n) → w* ≍ Λ^{2/(d+2)}
        Hypothesis("point 2/(d+2)", Band.point(2 / (d + 2)), "[C24] §3.1 sketch (ReLU / modified softmax)"),
    ]
    if d >= 2:
        # Not from the paper: S^{d−1} has intrinsic dimension d−1 (its own Lemma G.1 cap measure ∝
        # ε^{(d−1)/2}), so the window counting may run with d−1 in place of d (spec §8.2).
        e = d - 1
        if task_class == "affine":
            band = Band(1 / (e + 4), 2 * (e + 2) / (e * (e + 4)))
            point = 2 / (e + 4)
        else:
            band = Band(1 / (e + 2), 2 / (e + 2))
            point = 2 / (e + 2)
        not_paper = "not from the paper: d−1 in place of d (spec §8.2)"
        alternatives += [
            Hypothesis("band with d−1", band, not_paper),
            Hypothesis("point with d−1", Band.point(point), not_paper),
        ]
    return Prediction(primary, tuple(alternatives))


WINDOW_SCALE_TEXT = (
    "γ in w ∝ Λ^γ: affine [1/(d+4), 2(d+2)/(d(d+4))], ReLU [1/(d+2), 2/(d+2)] (Thm 3.4); beside them the "
    "points 2/(d+4), 2/(d+2) and the d−1 variants (not from the paper). d = 2: affine [0.167, 0.667], ReLU "
    "[0.25, 0.5]; d = 5: affine [0.111, 0.311], ReLU [0.143, 0.286]"
)
WINDOW_SCALE_CONDITIONS = (
    "isotropic covariates (Σ = I, Assumption 3.3), affine or ReLU tasks, n = Ω(1) and "
    "Ω(n^{-2/d}) ≤ σ² ≤ O(nL²), i.e. Λ ≳ 1; the proof also needs w_KQ ≥ d + √d, "
    "w_KQ ≤ (n/log n)^{2/d} and n ≳ (L²/σ²)^{d/2} (ReLU) or (L²/σ²)^{(d+2)/2} (affine)"
)

M_NORM_VS_LAMBDA = PowerLaw(
    name="softmax_window.M_norm_vs_Lambda",
    study="softmax_window",
    claim="the trained window scale ‖M‖₂ grows as a power of Λ = nL²/σ², inside Theorem 3.4's band",
    citation=f"{C24} Theorem 3.4 (App E.1–E.3, eq. (17)); Lemma B.5",
    conditions=WINDOW_SCALE_CONDITIONS + "; M trained to convergence (the minimiser is what the theorem describes)",
    prediction_text=WINDOW_SCALE_TEXT,
    measure=FinalValue("M_spectral_norm"),
    x="Lambda",
    predict=window_scale_prediction,
    group_by=("d", "task_class"),
    where={"attention": ("softmax",), "covariates": ("isotropic",), "task_class": THEORY_CLASSES},
    rule=EXPONENT_RULE,
)

W_STAR_VS_LAMBDA = PowerLaw(
    name="softmax_window.w_star_vs_Lambda",
    study="softmax_window_oracle",
    claim="the oracle minimiser w* of ℒ(w·I) grows as a power of Λ = nL²/σ², inside Theorem 3.4's band",
    citation=f"{C24} Theorem 3.4 (App E.1–E.3, eq. (17)); Lemma B.5 (M* = w_KQ·I)",
    conditions=WINDOW_SCALE_CONDITIONS + "; configs whose regime flags are not all 1 (for every seed) are left out",
    prediction_text=WINDOW_SCALE_TEXT,
    measure=OracleMinimiser(),
    x="Lambda",
    predict=window_scale_prediction,
    group_by=("d", "task_class"),
    where={"attention": ("softmax",), "covariates": ("isotropic",), "task_class": THEORY_CLASSES},
    # the proof's conditions (spec §5.1): w_KQ ≥ d + √d (Lemma C.5), w_KQ ≤ (n/log n)^{2/d}
    # (Lemma D.1), n ≳ (L²/σ²)^{d/2} or ^{(d+2)/2} (App E.1/E.2)
    regime_flags=("regime_window", "regime_noise_lemma", "regime_context"),
    rule=EXPONENT_RULE,
)


# Theorem 3.5 / Fig 1: softmax test error falls with n ------------------------------------------
def error_rate_prediction(group: Mapping[str, Any]) -> Prediction:
    """The sign of the exponent of test error against n (< 0), with the paper's rates beside it."""
    # [C24] Thm 3.5 (App E.3): ℒ ≤ O(L²/Λ^β) → 0 as n grows; Fig 1 bottom row (softmax error falls with n)
    primary = Hypothesis("decreasing in n (exponent < 0)", Band(-math.inf, 0.0), "[C24] Thm 3.5 / App E.3; Fig 1")
    d, task_class = group.get("d"), group.get("task_class")
    alternatives = []
    if d is not None and task_class == "relu":
        alternatives = [
            # [C24] Thm 3.5 / E.3: ℒ ≤ O(L²Λ^{−1/(d+2)}), the bound's rate in n
            Hypothesis("bound rate −1/(d+2)", Band.point(-1 / (d + 2)), "[C24] Thm 3.5 / E.3", OVERLAP),
            # [C24] §3.1 sketch heuristic: ℒ ≍ L²Λ^{−2/(d+2)}
            Hypothesis("sketch rate −2/(d+2)", Band.point(-2 / (d + 2)), "[C24] §3.1 sketch", OVERLAP),
        ]
    elif d is not None and task_class == "affine":
        alternatives = [
            # [C24] App E.2: ℒ ≤ O(L²(σ²d/(nL²))^{2/(d+4)})
            Hypothesis("bound rate −2/(d+4)", Band.point(-2 / (d + 4)), "[C24] App E.2", OVERLAP),
            # Lemmas C.6 + D.1 balanced: ℒ ≍ L²Λ^{−4/(d+4)} (derived from the paper's bounds, spec §5.3)
            Hypothesis("balance rate −4/(d+4)", Band.point(-4 / (d + 4)), "[C24] C.6 + D.1 (derived)", OVERLAP),
        ]
    return Prediction(primary, tuple(alternatives))


SOFTMAX_ERROR_DECREASES_IN_N = PowerLaw(
    name="softmax_window.softmax_error_decreases_in_n",
    study="softmax_window",
    claim="the test error of trained softmax attention falls as the context length n grows",
    citation=f"{C24} Theorem 3.5 (App E.3) and Figure 1 (bottom row)",
    conditions="softmax attention, test tasks from the training distribution, everything but n held fixed; "
    "the rates beside the sign hold for the optimal M, ReLU/affine tasks",
    prediction_text="exponent of test error vs n < 0; beside it the rates −1/(d+2), −2/(d+2) (ReLU), "
    "−2/(d+4), −4/(d+4) (affine)",
    measure=FinalValue("test_mse"),
    x="n",
    predict=error_rate_prediction,
    group_by=("d", "task_class"),
    where={"attention": ("softmax",)},
    row_filter=in_distribution,
    one_row_per_run=True,
    rule=inside_rule(min_levels=2),  # a sign needs two n values (not from the paper)
)


# Theorem 3.6: the linear-attention floor -------------------------------------------------------
def linear_floor_prediction(group: Mapping[str, Any]) -> Prediction:
    # [C24] Thm 3.6 (Lemma F.1 for affine): ℒ_LA(M) ≥ E_f[(E_x f)²] ≥ Var(b) = L²/3 for every M and n
    return Prediction(Hypothesis("ℒ/L² ≥ 1/3 for every n", Band(1 / 3, math.inf), "[C24] Thm 3.6, proof; Lemma F.1"))


LINEAR_FLOOR = BoundLaw(
    name="softmax_window.linear_floor",
    study="softmax_window",
    claim="linear attention's test error stays at or above L²/3 for every context length n",
    citation=f"{C24} Theorem 3.6 (proof: ℒ_LA ≥ E_f[(E_x f)²] ≥ Var(b) = L²/3); Lemma F.1",
    conditions="linear attention, affine or ReLU tasks, isotropic covariates (E x = 0 on the sphere), "
    "test tasks from the training distribution",
    prediction_text="min over n of the seed-mean of test_mse / L² ≥ 1/3, independent of n",
    measure=FinalValueScaled("test_mse", by="L", power=2),
    x="n",
    predict=linear_floor_prediction,
    group_by=("d", "task_class"),
    where={"attention": ("linear",), "covariates": ("isotropic",), "task_class": THEORY_CLASSES},
    row_filter=in_distribution,
    # a bound: consistent unless the interval lies wholly below 1/3; 0.1 wide at most (not from the paper)
    rule=VerdictRule(min_levels=1, min_points=2, max_interval_width=0.1),
    aggregate="min",
    statistic_text="min over n of the seed-mean of test_mse / L²",
)


# Theorem 3.5: the Lipschitz transfer grid ------------------------------------------------------
def transfer_prediction(group: Mapping[str, Any]) -> Prediction:
    # [C24] Thm 3.5: pretrained at L, tested at L' > L the error is Ω(L'²/Λ^{2β}) (window too wide);
    # at L' < L it is Ω(σ²Λ^{dβ/2}/n) (too narrow): the best pretraining L for test L' is L' itself
    return Prediction(Hypothesis("every minimum on the diagonal", Band.point(1.0), "[C24] Thm 3.5 (App E.3)"))


TRANSFER_DIAGONAL = DiagonalMinimum(
    name="softmax_window.transfer_diagonal",
    study="softmax_window",
    claim="for test tasks of Lipschitz constant L', the softmax unit pretrained at L = L' has the smallest error",
    citation=f"{C24} Theorem 3.5 (App E.3); Figure 5 (right)",
    conditions="softmax attention pretrained on ReLU tasks D(F_L^+), tested on D(F_L'^+) (eval L_test), "
    "a grid where some test L' are also pretraining L",
    prediction_text="fraction of test L' whose best pretraining L is L' = 1",
    measure=FinalValue("test_mse"),
    x="L_test",
    row_axis="L",
    predict=transfer_prediction,
    group_by=("d", "task_class"),
    where={"attention": ("softmax",), "task_class": ("relu",)},
    row_filter=same_family_with_test_L,
    one_row_per_run=False,
    rule=inside_rule(min_levels=2),
)


# Theorem 4.4 / Fig 9: subspace recovery --------------------------------------------------------
RECOVERED = 0.1  # "ρ → 0" read as ρ_end ≤ 0.1·ρ_start: not from the paper (Fig 9 shows curves only)


def subspace_prediction(group: Mapping[str, Any]) -> Prediction | None:
    attention = group.get("attention")
    if attention == "softmax":
        # [C24] Thm 4.4 / H.5: M* = c·BBᵀ, so ρ(M, B) = ‖B_⊥ᵀMB_⊥‖/σ_min(BᵀMB) → 0; Fig 9
        return Prediction(Hypothesis("ρ falls to ≤ 0.1 of its start", Band(0.0, RECOVERED), "[C24] Thm 4.4; Fig 9"))
    if attention == "linear":
        # [C24] App J.1, Fig 9: linear attention learns no meaningful structure (ρ stays flat or high)
        return Prediction(Hypothesis("ρ stays above 0.1 of its start", Band(RECOVERED, math.inf), "[C24] Fig 9"))
    return None


SUBSPACE_RECOVERY = BoundLaw(
    name="softmax_window.subspace_recovery",
    study="softmax_window",
    claim="softmax attention recovers the task subspace (ρ(M, B) → 0); linear attention does not",
    citation=f"{C24} Theorem 4.4 (App H.5) and Figure 9 (App J.1)",
    conditions="low-rank task classes (k < d); the theorem covers f = aᵀBᵀx with σ = 0 or n = 2 under a norm "
    "constraint, Fig 9 goes beyond it; threshold 0.1 not from the paper",
    prediction_text="seed-mean of ρ_end/ρ_start: ≤ 0.1 for softmax, > 0.1 for linear attention",
    measure=RelativeToStart("rho_MB", k=1),
    x=None,
    predict=subspace_prediction,
    group_by=("task_class", "attention"),
    where={"task_class": LOW_RANK_CLASSES},
    rule=inside_rule(min_levels=1, min_points=2),
    aggregate="mean",
    statistic_text="seed-mean of ρ(M, B) at the end / at the start",
)

LAWS = (
    M_NORM_VS_LAMBDA,
    W_STAR_VS_LAMBDA,
    SOFTMAX_ERROR_DECREASES_IN_N,
    LINEAR_FLOOR,
    TRANSFER_DIAGONAL,
    SUBSPACE_RECOVERY,
)

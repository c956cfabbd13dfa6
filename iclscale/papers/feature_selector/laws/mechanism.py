"""[LW23] Propositions 1–2 and Figure 1: the trained attention promotes the relevant features and concentrates
on same-pattern demonstrations; the MLP decodes mainly from the label part; Lemma 3's W_O update split. The
Θ(·) constants are not given: where a band needs one it is 1, flagged "not from the paper"."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from iclscale.analysis.kinds import Bound, PowerLaw
from iclscale.analysis.law import STRONGER, Hypothesis, Law, Prediction, VersusPrinted, exponent_prediction, inside_rule
from iclscale.analysis.measures import FinalCombination, FinalValue
from iclscale.analysis.verdict import INSIDE, OVERLAP, Band
from iclscale.papers.feature_selector.laws.common import EXPONENT_RULE, LW23, SELECTED, STUDY

ONE_CELL = inside_rule(min_levels=1, min_points=2)


def _patterns(params: Mapping[str, Any]) -> int | None:
    M1, M2 = params.get("M1"), params.get("M2")
    return None if M1 is None or M2 is None else int(M1) + int(M2)


# Proposition 1, Eq. (9): attention concentration in domain ------------------------------------------------------
def concentration_prediction(params: Mapping[str, Any]) -> Prediction | None:
    # [LW23] Prop. 1 Eq. (9): Σ_{s∈N_*} attn → 1 − Θ(1/M^C), C > 1, so 1 − A_* ≤ 1/M with the constant 1 (not from
    # the paper)
    M = _patterns(params)
    if M is None:
        return None
    return Prediction(Hypothesis(f"1 − A_* ≤ 1/M = {1 / M:.3g}", Band(0.0, 1 / M), "[LW23] Prop. 1, Eq. (9)", INSIDE))


ATTENTION_CONCENTRATES = Law(
    name=f"{STUDY}.attention_concentrates",
    study=STUDY,
    claim="after training, the attention mass off the demonstrations sharing the query's relevant pattern is Θ(M^(−C))",
    citation=f"{LW23} Proposition 1, Eq. (9); Figure 1",
    conditions="trained model, in-domain probe prompts (prompts with no same-pattern demonstration left out); "
    "Θ(1) = 1 and C ≥ 1 (not from the paper); selection-regime runs only (the others counted)",
    prediction_text="seed-mean of 1 − A_* ≤ 1/M (the whole interval)",
    measure=FinalCombination("attn_same", combine="one_minus"),
    x=None,
    predict=concentration_prediction,
    kind=Bound(aggregate="mean", statistic_text="seed-mean of 1 − A_*"),
    group_by=("M1", "M2"),
    regime=SELECTED,
    rule=ONE_CELL,
    versus_printed=VersusPrinted(STRONGER, "Θ(1/M^C) read as ≤ 1/M: the constant 1 and C ≥ 1 are ours"),
)


def complement_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Prop. 1 Eq. (9): 1 − A_* = Θ(M^(−C)) with C > 1
    return Prediction(Hypothesis("exponent ≤ −1 (C > 1)", Band(-math.inf, -1.0), "[LW23] Prop. 1, Eq. (9)", OVERLAP))


ATTENTION_COMPLEMENT_VS_M = Law(
    name=f"{STUDY}.attention_complement_vs_M",
    study=STUDY,
    claim="the attention mass off the query's pattern falls faster than 1/M",
    citation=f"{LW23} Proposition 1, Eq. (9)",
    conditions="M varied through M2 at M1 = 4; in-domain probe prompts; a decay needs each model trained long "
    "enough (T = 3000 here, fixed); selection-regime runs only",
    prediction_text="exponent of the final 1 − A_* vs M ≤ −1",
    measure=FinalCombination("attn_same", combine="one_minus"),
    x="M",
    predict=complement_prediction,
    kind=PowerLaw(),
    pool=("d_x",),
    regime=SELECTED,
    rule=EXPONENT_RULE,
)


# Proposition 1, Eq. (7)–(8): relevant features promoted, irrelevant ones not -------------------------------------
def promotion_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Prop. 1 Eq. (7)–(8): ‖W μ_j‖ ≥ Θ(√log M) while ‖W ν_l‖ ≤ Θ(1); §3.4: "maintains the training-irrelevant
    # features close to the initialization". The ratio's lower end √log M takes Θ(1) = 1 (not from the paper)
    M = _patterns(params) or 2
    return Prediction(
        Hypothesis(
            f"ratio ≥ √ln M = {math.sqrt(math.log(M)):.3g}",
            Band(math.sqrt(math.log(M)), math.inf),
            "[LW23] Prop. 1, Eq. (7)–(8)",
            INSIDE,
        ),
        (Hypothesis("ratio > 1", Band(1.0, math.inf), "[LW23] §3.4 (promoted vs kept near init)", INSIDE),),
    )


def _promotion_law(weights: str) -> Law:
    return Law(
        name=f"{STUDY}.w{weights}_relevant_over_irrelevant",
        study=STUDY,
        claim=f"training promotes W_{weights.upper()}'s relevant features: ‖W_{weights.upper()}μ‖ grows to "
        f"Θ(√log M) while ‖W_{weights.upper()}ν‖ stays Θ(1)",
        citation=f"{LW23} Proposition 1, Eq. (7)–(8); Figure 1(a)",
        conditions="mean over j of ‖W[:, :d_X] μ_j‖ over the mean over l of ‖W[:, :d_X] ν_l‖ at the end (both δβ at "
        "init); selection-regime runs only",
        prediction_text="seed-mean of ‖Wμ‖/‖Wν‖ ≥ √ln M (beside it: > 1), the whole interval",
        measure=FinalCombination(f"w{weights}_mu_norm", other=f"w{weights}_nu_norm", combine="ratio"),
        x=None,
        predict=promotion_prediction,
        kind=Bound(aggregate="mean", statistic_text=f"seed-mean of ‖W_{weights.upper()}μ‖/‖W_{weights.upper()}ν‖"),
        group_by=("M1", "M2"),
        regime=SELECTED,
        rule=ONE_CELL,
    )


CONSTANT_ONE = VersusPrinted(STRONGER, "the Θ(·) constant is taken as 1 (the paper gives none)")
WQ_PROMOTION = replace(_promotion_law("q"), versus_printed=CONSTANT_ONE)
WK_PROMOTION = replace(_promotion_law("k"), versus_printed=CONSTANT_ONE)


# Proposition 2, Eq. (10) and Figure 1(b): the MLP decodes from the label part ------------------------------------
def label_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Prop. 2 Eq. (10): the label part's contribution exceeds the feature part's; Fig. 1(b)
    return Prediction(
        Hypothesis("label/feature > 1", Band(1.0, math.inf), "[LW23] Prop. 2, Eq. (10); Fig. 1(b)", INSIDE)
    )


def _label_law(side: str) -> Law:
    if side == "in":
        split = (
            "input-side split (the plotted one): sa = W_V^x Σ A_s x_s + W_V^y Σ A_s y_s, so W_O sa splits "
            "exactly into what the feature inputs and the label inputs contribute"
        )
    else:
        split = (
            "output-coordinate split, Eq. (10) as printed: W_O[:, :d_X]·sa[:d_X] against "
            "W_O[:, d_X:d_X+d_Y]·sa[d_X:d_X+d_Y]; W_V mixes label information into the feature coordinates"
        )
    return Law(
        name=f"{STUDY}.mlp_label_over_feature_{side}put_split",
        study=STUDY,
        claim="the MLP's pre-ReLU output comes mainly from the label embedding, not the features",
        citation=f"{LW23} Proposition 2, Eq. (10); Figure 1(b)",
        conditions=f"{split}; each part is its signed contribution to the correct side summed over the active "
        "neurons, y·Σ_i a_i 1[z_i > 0] z_i^part, on in-domain probe prompts; selection-regime runs only",
        prediction_text="seed-mean of label/feature contribution > 1 (the whole interval)",
        measure=FinalCombination(f"mlp_{side}_label", other=f"mlp_{side}_feature", combine="ratio"),
        x=None,
        predict=label_prediction,
        kind=Bound(aggregate="mean", statistic_text=f"seed-mean of label/feature ({side}put split)"),
        group_by=("M1", "M2"),
        regime=SELECTED,
        rule=ONE_CELL,
    )


MLP_LABEL_INPUT_SPLIT = _label_law("in")
MLP_LABEL_OUTPUT_SPLIT = replace(
    _label_law("out"),
    versus_printed=VersusPrinted(
        STRONGER,
        "Eq. (10) holds 'for a constant fraction of i ∈ [m]'; this law asks the sum over all active neurons to "
        "favour the label part (`mlp_label_over_feature_neuron_fraction` judges the printed per-neuron statement)",
    ),
)

NEURON_FRACTION = 1 / 16  # [LW23] Lemma 7: |𝒲(0)|, |𝒰(0)| ≥ m/16·(1 − ε_m − τM1); the constant at ε_m = τ = 0


def neuron_fraction_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Prop. 2 Eq. (10): for a constant fraction of i ∈ [m], the label part of W_O[i]·sa exceeds the feature
    # part; the fraction is the lucky neurons' (Lemma 7: at least m/16·(1 − ε_m − τM1) each), read at ε_m = τ = 0
    return Prediction(
        Hypothesis(
            f"fraction ≥ 1/16 = {NEURON_FRACTION:.3g}",
            Band(NEURON_FRACTION, 1.0),
            "[LW23] Prop. 2, Eq. (10); Lemma 7 (the constant)",
            INSIDE,
        ),
        (Hypothesis("fraction > 0", Band(0.0, 1.0), "[LW23] Prop. 2, Eq. (10) ('a constant fraction')", INSIDE),),
    )


MLP_LABEL_NEURON_FRACTION = Law(
    name=f"{STUDY}.mlp_label_over_feature_neuron_fraction",
    study=STUDY,
    claim="for a constant fraction of the neurons i, the label coordinates' part of W_O[i]·sa exceeds the feature "
    "coordinates' part (Eq. 10 as printed, per neuron)",
    citation=f"{LW23} Proposition 2, Eq. (10); Lemma 7",
    conditions="the fraction of (neuron i ∈ [m], in-domain probe prompt) pairs with W_O[i, "
    "d_X:d_X+d_Y]·sa[d_X:d_X+d_Y] "
    "> W_O[i, :d_X]·sa[:d_X] (probe `prop2_out_fraction`); the constant 1/16 is Lemma 7's lucky-neuron share at "
    "ε_m = τ = 0 (not stated with Prop. 2); selection-regime runs only. The printed statement is weak: with W_O "
    "random the fraction is ≈ 1/2 already at initialisation (the probe's step-0 record shows it), so it does not "
    "tell a trained MLP from an untrained one; `prop2_out_active_fraction` (active neurons on the label's side) is "
    "recorded beside it",
    prediction_text="seed-mean of the fraction of neurons satisfying Eq. (10) ≥ 1/16 (beside it: > 0), the whole "
    "interval",
    measure=FinalValue("prop2_out_fraction"),
    x=None,
    predict=neuron_fraction_prediction,
    kind=Bound(aggregate="mean", statistic_text="seed-mean fraction of neurons with Eq. (10)"),
    group_by=("M1", "M2"),
    regime=SELECTED,
    rule=ONE_CELL,
)


# Lemma 3, Eq. (15)–(16): the W_O update split on lucky neurons ----------------------------------------------------
def wo_split_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LW23] Lemma 3 Eq. (15)–(16): ‖ΔW_O[i, label]‖ = Θ(δβ²/a), ‖ΔW_O[i, feature]‖ = Θ(δβ²λ_*/a): ratio ∝ λ_*
    return exponent_prediction(
        1.0,
        "[LW23] Lemma 3, Eq. (15)–(16)",
        Band(0.0, math.inf),
        "the direction only: more feature change where features are larger",
    )


WO_SPLIT_VS_LAMBDA = Law(
    name=f"{STUDY}.wo_feature_over_label_vs_lambda_star",
    study=STUDY,
    claim="on lucky neurons the accumulated W_O change on the feature columns over the label columns is ≈ λ_*",
    citation=f"{LW23} Lemma 3, Eq. (15)–(16)",
    conditions="lucky neurons 𝒲 ∪ 𝒰 at the end (our reading of Lemma 7), ‖ΔW_O‖ on each column block; "
    "λ ≡ λ_*; exploratory (claim S12); selection-regime runs only",
    prediction_text="exponent of the feature/label change ratio vs λ_*: +1 (beside it: > 0)",
    measure=FinalValue("lucky_dWO_ratio"),
    x="lambda_star",
    predict=wo_split_prediction,
    kind=PowerLaw(),
    where={"lambda_mode": ("fixed",)},
    regime=SELECTED,
    rule=EXPONENT_RULE,
)

LAWS = (
    ATTENTION_CONCENTRATES,
    ATTENTION_COMPLEMENT_VS_M,
    WQ_PROMOTION,
    WK_PROMOTION,
    MLP_LABEL_INPUT_SPLIT,
    MLP_LABEL_OUTPUT_SPLIT,
    MLP_LABEL_NEURON_FRACTION,
    WO_SPLIT_VS_LAMBDA,
)

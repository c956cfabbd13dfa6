"""[L24] Section 4 and Figure 2: the mechanism of the trained one-layer model. Attention concentrates on the
demonstrations that share the query's pattern (Cor. 4.3), Q/K project onto the example's own pattern
(Prop. 4.1), the large MLP neurons align with μ̄ and ±q (Prop. 4.5), and their norms grow linearly in t
(App. B, Eq. 233). The Θ(·) and O(·) constants are not given: where a band needs one it is 1, flagged "not
from the paper"."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from iclscale.analysis.kinds import Bound, Linear, PowerLaw
from iclscale.analysis.law import STRONGER, WEAKER, Hypothesis, Law, Prediction, VersusPrinted, inside_rule
from iclscale.analysis.measures import CurveValues, FinalCombination
from iclscale.analysis.verdict import INSIDE, OVERLAP, Band
from iclscale.papers.nonlinear_icl.laws.common import EXPONENT_RULE, L24, STUDY, WIDTH_FOLLOWS_M1, theorem_3_3_regime

ONE_ROW = inside_rule(min_levels=1, min_points=2)
# §4 describes "the trained model after being updated by T (characterized in (10)) iterations" (Prop. 4.1):
# the model of Thm 3.3, so under its conditions; no ε is fixed by these claims
MECHANISM_REGIME = theorem_3_3_regime(None, source="§4 (the model trained as in Thm 3.3 (i)–(iv))")
DOMAIN_TEXT = {"id": "unseen-task in-domain prompts", "ood": "Fig. 2's out-of-domain prompts (a = b = 0.64, K' = 5)"}


# Corollary 4.3: attention concentration --------------------------------------------------------------
def concentration_prediction(params: Mapping[str, Any]) -> Prediction:
    # [L24] Cor. 4.3, Remark 4.4: Σ_{s∈N} attn_s ≥ 1 − Θ(M1^{-C}): the weights concentrate on N rather than
    # spreading uniformly (Fig. 2B); uniform attention would give the share |N|/l
    return Prediction(Hypothesis("above the uniform share", Band(0.0, math.inf), "[L24] Cor. 4.3; Fig. 2B", INSIDE))


def _concentration_law(domain: str) -> Law:
    return Law(
        name=f"{STUDY}.attention_concentrates_{domain}",
        regime=MECHANISM_REGIME,
        study=STUDY,
        claim="after training, attention puts more mass on demonstrations sharing the query's pattern than uniform "
        "attention would",
        citation=f"{L24} Corollary 4.3, Remark 4.4; Figure 2B",
        conditions=f"trained one-layer model, probes on {DOMAIN_TEXT[domain]} at the training α and l_tr "
        "(Fig. 2B's measure)",
        prediction_text="seed-mean of attention mass on N minus the uniform share |N|/l > 0 (the whole interval)",
        measure=FinalCombination(f"{domain}_attn_same", other=f"{domain}_attn_same_uniform", combine="difference"),
        x=None,
        predict=concentration_prediction,
        kind=Bound(aggregate="mean", statistic_text="seed-mean of attn on N − |N|/l"),
        rule=ONE_ROW,
    )


# Cor. 4.3 puts all but Θ(M1^(−C)) of the mass on N; these laws ask only for more than uniform attention
_MORE_THAN_UNIFORM = VersusPrinted(
    WEAKER,
    "Cor. 4.3 puts all but Θ(M1^(−C)) of the attention on N; this law asks only for more than the uniform share "
    "(the decay in M1 is `attention_complement_vs_M1`)",
)
ATTENTION_CONCENTRATES_ID = replace(_concentration_law("id"), versus_printed=_MORE_THAN_UNIFORM)
ATTENTION_CONCENTRATES_OOD = replace(_concentration_law("ood"), versus_printed=_MORE_THAN_UNIFORM)


def complement_prediction(params: Mapping[str, Any]) -> Prediction:
    # [L24] Cor. 4.3 Eq. (20): 1 − Σ_{s∈N} attn_s = Θ(M1^{-C}) with C > 1 (the exponent is garbled in the text)
    return Prediction(
        Hypothesis("exponent ≤ −1 (C > 1)", Band(-math.inf, -1.0), "[L24] Cor. 4.3, Eq. (20)", OVERLAP),
    )


ATTENTION_COMPLEMENT_VS_M1 = Law(
    name=f"{STUDY}.attention_complement_vs_M1",
    pool=WIDTH_FOLLOWS_M1,
    regime=MECHANISM_REGIME,
    study=STUDY,
    claim="the attention mass off the query's pattern falls polynomially in M1, faster than 1/M1",
    citation=f"{L24} Corollary 4.3, Eq. (20)",
    conditions="trained one-layer models at several M1, everything else fixed; unseen-task in-domain probe prompts; "
    "the exponent C > 1 is read from a garbled text extraction; a decay needs the model trained long enough at "
    "every M1",
    prediction_text="exponent of 1 − attn on N vs M1 ≤ −1",
    measure=FinalCombination("id_attn_same", combine="one_minus"),
    x="M1",
    predict=complement_prediction,
    kind=PowerLaw(),
    rule=EXPONENT_RULE,
)


# Proposition 4.1: Q/K projections ---------------------------------------------------------------------
def projection_prediction(params: Mapping[str, Any]) -> Prediction | None:
    # [L24] Prop. 4.1 Eq. (17)–(18): on-pattern ≥ Ω(√log M1), off-target ≤ O(√log M1·(1/M1 + 1/M2)), so
    # off-target / on-pattern ≤ O(1/M1 + 1/M2); the constant 1 is not from the paper
    M1, M2 = params.get("M1"), params.get("M2")
    if M1 is None or M2 is None:
        return None
    bound = 1 / M1 + 1 / M2
    return Prediction(
        Hypothesis(f"≤ 1/M1 + 1/M2 = {bound:.3g}", Band(0.0, bound), "[L24] Prop. 4.1, Eq. (17)–(18)", INSIDE),
        # [L24] Remark 4.2: the components in other directions are "relatively smaller" (no constant at all)
        (Hypothesis("smaller than on-pattern", Band(0.0, 1.0), "[L24] Remark 4.2", INSIDE),),
    )


def _projection_law(weights: str, symbol: str) -> Law:
    return Law(
        name=f"{STUDY}.{weights}_projection_on_pattern",
        regime=MECHANISM_REGIME,
        study=STUDY,
        claim=f"the trained W_{symbol} projects {'the query' if weights == 'q' else 'each demonstration'} onto its own "
        "relevant pattern; its projection on any other relevant pattern is smaller by a factor O(1/M1 + 1/M2)",
        citation=f"{L24} Proposition 4.1, Eq. (17)–(18); Figure 2A",
        conditions="trained one-layer model, unseen-task in-domain probe prompts (Fig. 2A's norms); e(v) = [v/β; 0] "
        "is a valid pattern direction because W_Q, W_K start as δ·[I 0]; the O(·) constant is taken as 1 (not from the "
        "paper); Eq. (19) (irrelevant patterns) is recorded as a probe",
        prediction_text="seed-mean of the largest off-target projection / the on-pattern projection ≤ 1/M1 + 1/M2 "
        "(beside it: < 1, Remark 4.2's 'relatively smaller')",
        measure=FinalCombination(f"id_{weights}_off_relevant", other=f"id_{weights}_on_pattern", combine="ratio"),
        x=None,
        predict=projection_prediction,
        kind=Bound(aggregate="mean", statistic_text="seed-mean of off-target / on-pattern projection"),
        rule=ONE_ROW,
    )


_CONSTANT_ONE = VersusPrinted(
    STRONGER,
    "Prop. 4.1 bounds the ratio by O(1/M1 + 1/M2) with no constant; the primary takes the constant as 1 (Remark 4.2's "
    "'relatively smaller', judged beside it, is the printed words)",
)
QUERY_PROJECTION = replace(_projection_law("q", "Q"), versus_printed=_CONSTANT_ONE)
KEY_PROJECTION = replace(_projection_law("k", "K"), versus_printed=_CONSTANT_ONE)


# Proposition 4.5: the large neurons align with μ̄ and ±q ---------------------------------------------------
def alignment_prediction(params: Mapping[str, Any]) -> Prediction | None:
    # [L24] Prop. 4.5 Eq. (21)–(22): cos(r_i, target) ≥ 1 − Θ(1)/M1 for i ∈ L (the denominator garbled, M1 most
    # likely: our reading); Θ(1) = 1 is not from the paper
    M1 = params.get("M1")
    if M1 is None:
        return None
    return Prediction(Hypothesis(f"1 − cos ≤ 1/M1 = {1 / M1:.3g}", Band(0.0, 1 / M1), "[L24] Prop. 4.5", INSIDE))


def _alignment_law(part: str, target: str, equation: str) -> Law:
    return Law(
        name=f"{STUDY}.large_neuron_{part}_alignment",
        regime=MECHANISM_REGIME,
        study=STUDY,
        claim=f"the {part} part of every large neuron's row of W_O W_V points along {target}",
        citation=f"{L24} Proposition 4.5, Eq. ({equation}); Figure 2{'C' if part == 'feature' else 'D'}",
        conditions="trained one-layer model; L = the upper group of a 2-means split of log ‖r_i‖ (not from "
        "the paper); the probe averages the angle over L (1 − cos of the mean angle); Θ(1) taken as 1 (not from the "
        "paper)",
        prediction_text="1 − cos(mean angle over L) ≤ 1/M1 (the whole interval)",
        measure=FinalCombination(f"large_{part}_angle", combine="one_minus_cos_degrees"),
        x=None,
        predict=alignment_prediction,
        kind=Bound(aggregate="mean", statistic_text=f"seed-mean of 1 − cos(angle of r_{{i,{part}}} to {target})"),
        rule=ONE_ROW,
    )


FEATURE_ALIGNMENT = _alignment_law("feature", "μ̄ = Σ_j μ_j/M1", "21")
LABEL_ALIGNMENT = _alignment_law("label", "sign(a_i)·q", "22")


# Lemma B.9 / Eq. (233): lucky neurons grow linearly in t ------------------------------------------------------
def growth_prediction(params: Mapping[str, Any]) -> Prediction:
    # [L24] App. B, Eq. (233): ‖W_O(i)^{(t)}‖ ≳ δ(β² + 1)·α/(2a)·η·t for the lucky neurons: linear growth in t
    return Prediction(Hypothesis("slope > 0, linear in t", Band(0.0, math.inf), "[L24] App. B, Eq. (233)", INSIDE))


LARGE_NEURONS_GROW_LINEARLY = Law(
    name=f"{STUDY}.large_neurons_grow_linearly",
    regime=MECHANISM_REGIME,
    study=STUDY,
    claim="the norms of the neurons that end up large grow linearly in the iteration t",
    citation=f"{L24} Appendix B, Lemma B.9 and Eq. (233); Eq. (82)",
    conditions="a proxy, not the paper's quantity: the mean ‖r_{i,d_Y}‖ (label part of row i of W_O W_V) over the "
    "large neurons L at every record, not ‖W_O(i)‖ of the lucky set W_n ∪ U_n (Def. B.8), which the study does "
    "not record; linearity is tested against the record means (lack of fit)",
    prediction_text="slope of the large neurons' mean label norm vs t > 0, and a line (no lack of fit)",
    measure=CurveValues("large_label_norm"),
    x="step",
    predict=growth_prediction,
    kind=Linear(),
    rule=inside_rule(min_levels=5),
)

LAWS = (
    ATTENTION_CONCENTRATES_ID,
    ATTENTION_CONCENTRATES_OOD,
    ATTENTION_COMPLEMENT_VS_M1,
    QUERY_PROJECTION,
    KEY_PROJECTION,
    FEATURE_ALIGNMENT,
    LABEL_ALIGNMENT,
    LARGE_NEURONS_GROW_LINEARLY,
)

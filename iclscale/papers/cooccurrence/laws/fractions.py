"""[Y24]'s sign and inequality claims said to hold throughout Phase 2 (C11, C14, C15, C16, C17, C18; Lemma 4.5),
each as the fraction of Phase-2 records where it holds: consistent when it holds on ≥ 95% of them for every
seed. Rates are the exact gradient-flow derivatives the study records (`rate_*`)."""

from __future__ import annotations

import math

from iclscale.analysis.kinds import Bound
from iclscale.analysis.law import WEAKER, Law, VersusPrinted
from iclscale.analysis.verdict import Band
from iclscale.papers.cooccurrence.laws.common import (
    FRACTION_RULE,
    LATE_PHASE2,
    PHASE2,
    STUDY,
    THEORY_SETTING_PHASE_2,
    THROUGHOUT,
    Y24,
    constant,
)
from iclscale.papers.cooccurrence.laws.flow_measures import FractionAfter

SETTING = ("init", "readout", "m", "m1", "c0", "c1", "lr")  # one verdict per trained setting
INF = math.inf


# Phase 2 from T1 = the first record with every sample correct (our reading), or from 2·T1: [Y24]'s own T1 is
# C_T1/(σ1² m m1) "for some sufficiently large constant C_T1" (Def. E.2), a time by which Phase 1 is over, not
# the first time it could be (the κ of claim C8 is fitted from 2·T1 for the same reason)
WINDOWS = {
    "": (PHASE2, "t ≥ T1, the first record with every training sample correct"),
    "_from_2T1": (
        LATE_PHASE2,
        "t ≥ 2·T1 ([Y24] Def. E.2's T1 = C_T1/(σ1² m m1) with a sufficiently large C_T1 comes after the first "
        "all-correct record T1; the factor 2 is not from the paper)",
    ),
}


THROUGHOUT_READ = VersusPrinted(
    WEAKER,
    f"'throughout (T1, T2)' read as on ≥ {THROUGHOUT:.0%} of the Phase-2 records (an allowance for the records right "
    "after T1, before Def. F.1 holds), not on every one",
)


def _throughout(claim_id: str, metric: str, low: float, high: float, claim: str, source: str, window: str = "") -> Law:
    """'metric ∈ [low, high] throughout Phase 2' as the fraction of Phase-2 records where it holds."""
    bounds = f"{'' if low == -INF else f'{low:g} ≤ '}{metric}{'' if high == INF else f' ≤ {high:g}'}"
    start, phase = WINDOWS[window]
    return Law(
        name=f"{STUDY}.{claim_id}_{metric}{window}",
        study=STUDY,
        claim=f"{claim} ({bounds} throughout Phase 2)",
        citation=f"{Y24} {source}",
        conditions=f"any init (the theory's is theory init); Phase 2 = {phase}; holds = on ≥ {THROUGHOUT:.0%} of "
        "the Phase-2 records (not from the paper)",
        prediction_text=f"fraction of Phase-2 records with {bounds}: ≥ {THROUGHOUT:g} on every seed",
        measure=FractionAfter(metric, window=start, low=low, high=high),
        x=None,
        predict=constant(f"≥ {THROUGHOUT:g} of the records", Band(THROUGHOUT, 1.0), f"{Y24} {source}"),
        kind=Bound(aggregate="min", statistic_text="seed-mean of the fraction of Phase-2 records where it holds"),
        group_by=SETTING,
        rule=FRACTION_RULE,
        regime=THEORY_SETTING_PHASE_2,
        versus_printed=THROUGHOUT_READ,
    )


FRACTION_LAWS = (
    # C11, [Y24] Thm 3.2(i), Lemma 4.7: target-pair scores rise, common-token scores fall
    _throughout("C11", "rate_A12", 0.0, INF, "μ2ᵀW_KᵀW_Qμ1 rises", "Thm 3.2(i), Lemma 4.7"),
    _throughout("C11", "rate_A21", 0.0, INF, "μ1ᵀW_KᵀW_Qμ2 rises", "Thm 3.2(i), Lemma 4.7"),
    _throughout("C11", "rate_A31", -INF, 0.0, "μ3ᵀW_KᵀW_Qμ1 falls", "Thm 3.2(i), Lemma 4.7"),
    _throughout("C11", "rate_A32", -INF, 0.0, "μ3ᵀW_KᵀW_Qμ2 falls", "Thm 3.2(i), Lemma 4.7"),
    # C14, [Y24] Thm 3.2(ii), Cor. F.13: value correlations
    _throughout("C14", "rate_v12", 0.0, INF, "⟨v1, v2⟩ rises", "Thm 3.2(ii), Cor. F.13"),
    _throughout("C14", "rate_v13", -INF, 0.0, "⟨v1, v3⟩ falls", "Thm 3.2(ii), Cor. F.13"),
    _throughout("C14", "rate_v23", -INF, 0.0, "⟨v2, v3⟩ falls", "Thm 3.2(ii), Cor. F.13"),
    _throughout("C14", "rate_v11", 0.0, INF, "‖v1‖² rises", "Cor. F.13"),
    # C15, [Y24] Cor. F.17: the softmax weight of the target pair rises, of the common token falls (in type-1
    # sequences, mean over them; dp/dt exact)
    _throughout("C15", "rate_p12", 0.0, INF, "p_{q←μ1,k←μ2} rises", "Cor. F.17"),
    _throughout("C15", "rate_p21", 0.0, INF, "p_{q←μ2,k←μ1} rises", "Cor. F.17"),
    _throughout("C15", "rate_p13", -INF, 0.0, "p_{q←μ1,k←μ3} falls", "Cor. F.17"),
    _throughout("C15", "rate_p23", -INF, 0.0, "p_{q←μ2,k←μ3} falls", "Cor. F.17"),
    # C16, [Y24] Lemma 4.4 (C ≪ 1 read as 0.1, not from the paper), Def. F.1, §4.2
    _throughout("C16", "balance_23", -INF, 0.1, "|S2 − S3|/min(S2, S3) ≤ C ≪ 1", "Lemma 4.4 / F.5"),
    _throughout("C16", "S2_over_S3", 0.5, 2.0, "S2/S3 ∈ [1/2, 2]", "Def. F.1"),
    _throughout("C16", "S_ordering", 1.0, INF, "S4 ≤ min(S2,S3) ≤ max(S2,S3) ≤ S1 ≤ S2+S3+S4", "Def. F.1"),
    _throughout("C16", "R", 1.0, 2.0, "R(t) = (S2+S3+S4−S1)/(S1−S2) contracts into (1, 2)", "§4.2, App. F.1"),
    # R′ swaps μ1 for μ2 (ours): the same contraction by symmetry of [Y24] §4.2's argument
    _throughout("C16", "R_prime", 1.0, 2.0, "R′(t) = (S2+S3+S4−S1)/(S1−S3) contracts into (1, 2)",
                "§4.2, App. F.1 (with μ2 for μ1)"),
    # Lemma 4.5: (1+C) max(Ġ1, Ġ2) ≤ −Ġ3 ≤ (1−C)(Ġ1 + Ġ2)
    _throughout("L45", "rate_G3_lower", 1.0, INF, "−Ġ3 ≥ max(Ġ1, Ġ2)", "Lemma 4.5 / F.6"),
    _throughout("L45", "rate_G3_upper", -INF, 1.0, "−Ġ3 ≤ Ġ1 + Ġ2", "Lemma 4.5 / F.6"),
    # C17, [Y24] Thm F.8: d(y_iF_i)/dt = ‖Wᵀa‖² Θ(L̂) > 0 for every i: every margin grows
    _throughout("C17", "rate_margin_min", 0.0, INF, "every sample's margin y_iF_i grows", "Thm F.8"),
    # C18, [Y24] Thm 3.2(iv): the margins of the linear sub-network
    _throughout("C18", "G_margin_type1", 0.0, INF, "G1 + G2 + G3 > 0", "Thm 3.2(iv)"),
    _throughout("C18", "G_margin_type2", -INF, 0.0, "G1 + G3 < 0", "Thm 3.2(iv)"),
    _throughout("C18", "G_margin_type3", -INF, 0.0, "G2 + G3 < 0", "Thm 3.2(iv)"),
    # the same from 2·T1 (WINDOWS): G1 + G3 turns negative only some time after the first all-correct record
    _throughout("C18", "G_margin_type2", -INF, 0.0, "G1 + G3 < 0", "Thm 3.2(iv), Def. E.2", "_from_2T1"),
    _throughout("C18", "G_margin_type3", -INF, 0.0, "G2 + G3 < 0", "Thm 3.2(iv), Def. E.2", "_from_2T1"),
)  # fmt: skip

LAWS = FRACTION_LAWS

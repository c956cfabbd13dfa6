"""[Y24] Phase 2: the loss falls as 1/(κ t) with κ = Θ(σ1² m m1) (Thm F.8; C8), the score changes of Thm 3.3
(C12), and the sign and inequality claims said to hold throughout Phase 2 (C11, C14, C16, C18; Lemma 4.5),
as the fraction of Phase-2 records where each holds."""

from __future__ import annotations

import math

from analysis.catalogue.cooccurrence.common import (
    CONDITION_1,
    EXPONENT_RULE,
    FRACTION_RULE,
    LATE_PHASE2,
    PHASE2,
    STUDY,
    THROUGHOUT,
    Y24,
    exponent_band,
    theory_init,
)
from analysis.flow_measures import ChangeFromStart, FractionAfter, PhaseValue, SlopeAfter
from analysis.kinds import Bound, PowerLaw
from analysis.law import Hypothesis, Law, Prediction
from analysis.measures import FinalValue
from analysis.verdict import INSIDE, Band, VerdictRule

SETTING = ("init", "readout", "m", "m1", "c0", "c1", "lr")  # one verdict per trained setting


def _predict(name: str, band: Band, source: str):
    def predict(params) -> Prediction:
        return Prediction(Hypothesis(name, band, source))

    return predict


KAPPA_VS_M = Law(
    name=f"{STUDY}.kappa_vs_m",
    study=STUDY,
    claim="in Phase 2, 1/L̂ grows linearly in t with slope κ = Θ(σ1² m m1): κ ∝ m at fixed c1",
    citation=f"{Y24} Thm F.8 (L̂(t) = 1/(Θ(σ1² m m1)(t − T1) + 1/L̂(T1)))",
    conditions="theory init (a = ±1 fixed); κ = least-squares slope of 1/L̂ against t over t ≥ 2·T1 (spec C8)",
    prediction_text="exponent +1 (±0.1) of κ vs m",
    measure=SlopeAfter("loss", window=LATE_PHASE2, transform="reciprocal"),
    x="m",
    # [Y24] Thm F.8: dL̂/dt = −‖Wᵀa‖² Θ(L̂²) with ‖Wᵀa‖² = Θ(σ1² m m1) = Θ(c1² m)
    predict=_predict("exponent 1 (±0.1)", exponent_band(1.0), f"{Y24} Thm F.8"),
    kind=PowerLaw(),
    group_by=("c1", "m1", "lr"),
    row_filter=theory_init,
    regime=CONDITION_1,
    rule=EXPONENT_RULE,
)

LOCAL_LOSS_EXPONENT = Law(
    name=f"{STUDY}.local_loss_exponent",
    study=STUDY,
    claim="in Phase 2 the loss falls as 1/(t − T1): the slope of log L̂ against log(t − T1) is −1",
    citation=f"{Y24} Thm F.8",
    conditions="any init; slope over t ≥ 2·T1 to the end of the run; the band ±0.25 around −1 is this tool's "
    "tolerance (not from the paper; spec §9.13 expects a drift below −1 toward 1/(t log t) at small m)",
    prediction_text="slope in [−1.25, −0.75] for every seed",
    measure=SlopeAfter("loss", window=LATE_PHASE2, transform="loglog"),
    x=None,
    # [Y24] Thm F.8: L̂ = 1/(κ(t − T1) + 1/L̂(T1)) → (κ(t − T1))^(−1)
    predict=_predict("slope −1 (±0.25)", Band(-1.25, -0.75), f"{Y24} Thm F.8"),
    kind=Bound(aggregate="mean", statistic_text="mean over seeds of the log–log slope"),
    group_by=SETTING,
    rule=VerdictRule(mode=INSIDE, min_levels=1, min_points=3),
)


def _c12_law(axis: str, exponent: float, group_by: tuple[str, ...], why: str) -> Law:
    """C12 = ΔA12 at the end of training against one init axis ([Y24] Thm 3.3, Eq. 3)."""
    return Law(
        name=f"{STUDY}.C12_vs_{axis}",
        study=STUDY,
        claim=f"the target-pair score change C12 = ΔA12 at the end scales as {axis}^({exponent:g})",
        citation=f"{Y24} Thm 3.3, Eq. 3 (C_12 = Θ(σ0²√m/(L σ1² m m1) + σ0²/(σ1² m m1)), up to log factors)",
        conditions=f"theory init; {why}; the log factor log(t_end/T1) is not divided out (spec §9.12)",
        prediction_text=f"exponent {exponent:g} (±0.1) of ΔA12(end) vs {axis}",
        measure=ChangeFromStart("A12"),
        x=axis,
        predict=_predict(f"exponent {exponent:g} (±0.1)", exponent_band(exponent), f"{Y24} Thm 3.3, Eq. 3"),
        kind=PowerLaw(),
        group_by=group_by,
        row_filter=theory_init,
        regime=CONDITION_1,
        rule=EXPONENT_RULE,
    )


# [Y24] Thm 3.3 Eq. 3 in the c-parametrisation (spec §5.4): C12 ≈ (c0²/c1²)(1/(L² m^{3/2}) + 1/(L m²))
C12_VS_M = _c12_law("m", -1.5, ("c0", "c1", "m1", "lr"), "s0 = c0/√(Lm), s1 = c1/√m1: the first term, "
                    "(c0²/c1²) m^(−3/2)/L², dominates for m ≥ L² (spec §5.4)")  # fmt: skip
C12_VS_C1 = _c12_law("c1", -2.0, ("c0", "m", "m1", "lr"), "σ1² = c1²/m1 in the denominator of both terms")
C12_VS_C0 = _c12_law("c0", 2.0, ("c1", "m", "m1", "lr"), "σ0² = c0²/(Lm) in the numerator of both terms")


READOUT_GROWTH_VS_M = Law(
    name=f"{STUDY}.readout_growth_vs_m",
    study=STUDY,
    claim="‖Wᵀa‖² barely grows in Phase 2: its growth relative to T1 is Õ(m1/(σ1² m m1)) ∝ 1/m at fixed c1",
    citation=f"{Y24} Lemma F.10, Cor. F.9 (‖Wᵀa‖² − ‖Wᵀa‖²(T1) = O(m1 log m log t/(σ1² m m1)))",
    conditions="theory init, a = ±1 fixed (Eq. 5); growth = ‖Wᵀa‖²(end)/‖Wᵀa‖²(T1) − 1 (spec C10); the log "
    "factors are not divided out",
    prediction_text="exponent −1 (±0.1) of the relative growth vs m",
    measure=PhaseValue("u_norm2", window=PHASE2, growth=True),
    x="m",
    # [Y24] Lemma F.10 over ‖Wᵀa‖²(T1) = Θ(σ1² m m1): relative growth Õ(1/(σ1² m)) = Õ(m1/(c1² m)), exponent −1
    predict=_predict("exponent −1 (±0.1)", exponent_band(-1.0), f"{Y24} Lemma F.10"),
    kind=PowerLaw(),
    group_by=("c1", "m1", "lr"),
    row_filter=theory_init,
    regime=CONDITION_1,
    rule=EXPONENT_RULE,
)

TEST_LOSS_VS_M = Law(
    name=f"{STUDY}.test_loss_vs_m",
    study=STUDY,
    claim="the model generalises: at the end of training the test loss is ≤ 1/poly(m), falling with m",
    citation=f"{Y24} Thm 3.3, App. F.10 (random tokens shift F by O(1), so test and training losses agree)",
    conditions="theory init; fresh test sequences from D (random tokens uniform over R: in distinct mode most "
    "are unseen in training); the run's end stands in for T* (the paper's poly(m) time is not reached at a "
    "fixed flow time)",
    prediction_text="exponent of the final test loss vs m below 0",
    measure=FinalValue("test_loss"),
    x="m",
    # [Y24] Thm 3.3: L(θ(T*)) ≤ 1/poly(m) for the test distribution D: a negative exponent in m
    predict=_predict("exponent < 0", Band(-math.inf, 0.0), f"{Y24} Thm 3.3"),
    kind=PowerLaw(),
    group_by=("c0", "c1", "m1", "lr"),
    row_filter=theory_init,
    regime=CONDITION_1,
    one_row_per_run=False,
    rule=VerdictRule(mode=INSIDE),
)


def _throughout(claim_id: str, metric: str, low: float, high: float, claim: str, source: str) -> Law:
    """'metric ∈ [low, high] throughout Phase 2' as the fraction of Phase-2 records where it holds."""
    bounds = f"{'' if low == -math.inf else f'{low:g} ≤ '}{metric}{'' if high == math.inf else f' ≤ {high:g}'}"
    return Law(
        name=f"{STUDY}.{claim_id}_{metric}",
        study=STUDY,
        claim=f"{claim} ({bounds} throughout Phase 2)",
        citation=f"{Y24} {source}",
        conditions="any init (the theory's is theory init); Phase 2 = t ≥ T1, the first record with every "
        f"training sample correct; holds = on ≥ {THROUGHOUT:.0%} of the Phase-2 records (not from the paper)",
        prediction_text=f"fraction of Phase-2 records with {bounds}: ≥ {THROUGHOUT:g} on every seed",
        measure=FractionAfter(metric, window=PHASE2, low=low, high=high),
        x=None,
        predict=_predict(f"≥ {THROUGHOUT:g} of the records", Band(THROUGHOUT, 1.0), f"{Y24} {source}"),
        kind=Bound(aggregate="min", statistic_text="seed-mean of the fraction of Phase-2 records where it holds"),
        group_by=SETTING,
        rule=FRACTION_RULE,
    )


INF = math.inf
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
    # C16, [Y24] Lemma 4.4 (C ≪ 1 read as 0.1, not from the paper), Def. F.1, §4.2
    _throughout("C16", "balance_23", -INF, 0.1, "|S2 − S3|/min(S2, S3) ≤ C ≪ 1", "Lemma 4.4 / F.5"),
    _throughout("C16", "S2_over_S3", 0.5, 2.0, "S2/S3 ∈ [1/2, 2]", "Def. F.1"),
    _throughout("C16", "S_ordering", 1.0, INF, "S4 ≤ min(S2,S3) ≤ max(S2,S3) ≤ S1 ≤ S2+S3+S4", "Def. F.1"),
    _throughout("C16", "R", 1.0, 2.0, "R(t) = (S2+S3+S4−S1)/(S1−S2) contracts into (1, 2)", "§4.2, App. F.1"),
    # Lemma 4.5: (1+C) max(Ġ1, Ġ2) ≤ −Ġ3 ≤ (1−C)(Ġ1 + Ġ2)
    _throughout("L45", "rate_G3_lower", 1.0, INF, "−Ġ3 ≥ max(Ġ1, Ġ2)", "Lemma 4.5 / F.6"),
    _throughout("L45", "rate_G3_upper", -INF, 1.0, "−Ġ3 ≤ Ġ1 + Ġ2", "Lemma 4.5 / F.6"),
    # C18, [Y24] Thm 3.2(iv): the margins of the linear sub-network
    _throughout("C18", "G_margin_type1", 0.0, INF, "G1 + G2 + G3 > 0", "Thm 3.2(iv)"),
    _throughout("C18", "G_margin_type2", -INF, 0.0, "G1 + G3 < 0", "Thm 3.2(iv)"),
    _throughout("C18", "G_margin_type3", -INF, 0.0, "G2 + G3 < 0", "Thm 3.2(iv)"),
)

LAWS = (
    KAPPA_VS_M,
    LOCAL_LOSS_EXPONENT,
    C12_VS_M,
    C12_VS_C1,
    C12_VS_C0,
    READOUT_GROWTH_VS_M,
    TEST_LOSS_VS_M,
    *FRACTION_LAWS,
)

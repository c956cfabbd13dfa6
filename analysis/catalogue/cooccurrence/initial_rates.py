"""[Y24] the rates at initialisation (Lemmas 4.1, 4.2, E.6; C2–C4), from the exact gradient-flow derivatives
dX/dt = −⟨∇X, ∇L̂⟩ the study records at step 0 (`rate_G1`, `rate_G3`, `rate_G_random_median`)."""

from __future__ import annotations

from analysis.catalogue.cooccurrence.common import (
    CONDITION_1,
    EXPONENT_RULE,
    FRACTION_RULE,
    STUDY,
    Y24,
    exponent_band,
    theory_init,
)
from analysis.flow_measures import InitialValue
from analysis.kinds import Bound, PowerLaw
from analysis.law import Hypothesis, Law, Prediction
from analysis.verdict import Band

G1_RATE_VS_M = Law(
    name=f"{STUDY}.initial_G1_rate_vs_m",
    study=STUDY,
    claim="the signal's initial rate dG(μ1)/dt = Θ((σ0² + σ1²) m m1) grows as m at fixed c0, c1",
    citation=f"{Y24} Lemma 4.1, Lemma E.4",
    conditions="theory init; with s1 = c1/√m1, (σ0² + σ1²) m m1 = c0² m1/L + c1² m ≈ c1² m once m ≫ c0² m1/(c1² L)",
    prediction_text="exponent +1 (±0.1) of dG1/dt at t = 0 vs m",
    measure=InitialValue("rate_G1"),
    x="m",
    # [Y24] Lemma E.4: dG1/dt(0) = Θ((σ0² + σ1²) m m1) (spec §9.7: constant ≈ 1/6 with g(0) = 1/2)
    predict=lambda params: Prediction(Hypothesis("exponent 1 (±0.1)", exponent_band(1.0), f"{Y24} Lemma E.4")),
    kind=PowerLaw(),
    group_by=("c0", "c1", "m1", "L"),
    row_filter=theory_init,
    regime=CONDITION_1,
    rule=EXPONENT_RULE,
)

G3_RATE_RATIO_VS_M = Law(
    name=f"{STUDY}.initial_G3_rate_ratio_vs_m",
    study=STUDY,
    claim="the common token's initial rate is small: |dG3/dt| / dG1/dt = O(1/√m + F(0)) at t = 0",
    citation=f"{Y24} Lemma 4.2",
    conditions="theory init, balanced labels; the −1/2 slope in m is seen only while F(0) ≈ c0·c1 is below 1/√m "
    "(spec C3)",
    prediction_text="exponent −1/2 (±0.1) of |Ġ3/Ġ1| at t = 0 vs m",
    measure=InitialValue("rate_G3", absolute=True, over="rate_G1"),
    x="m",
    # [Y24] Lemma 4.2: |dG3/dt|/(dG1/dt) at t = 0 is Õ(√(m1/m) + σ0²√(L/m)/σ1² + F): slope −1/2 in m
    predict=lambda params: Prediction(Hypothesis("exponent −1/2 (±0.1)", exponent_band(-0.5), f"{Y24} Lemma 4.2")),
    kind=PowerLaw(),
    group_by=("c0", "c1", "m1", "L"),
    row_filter=theory_init,
    regime=CONDITION_1,
    rule=EXPONENT_RULE,
)


def random_rate_prediction(params) -> Prediction | None:
    # [Y24] Lemma E.6 (spec C4, derived): a random token occurs in one sample, a target in n/2 + n/6 of them,
    # so |dG(μ_r)/dt| / dG1/dt ≈ 3/n at t = 0; the factor-2 band around it is this tool's (not from the paper)
    n = params.get("n")
    if n is None:
        return None
    return Prediction(Hypothesis("≈ 3/n (within a factor 2)", Band(1.5 / n, 6.0 / n), f"{Y24} Lemma E.6 (derived)"))


RANDOM_RATE_RATIO = Law(
    name=f"{STUDY}.initial_random_token_rate_ratio",
    study=STUDY,
    claim="a random token's sub-network moves ≈ 3/n as fast as a target's at t = 0",
    citation=f"{Y24} Lemma E.6 (the ratio 3/n is spec C4's derivation)",
    conditions="distinct random tokens (each in one training sample; Assumption 2.3(ii)); the median over the "
    "random tokens of the training set",
    prediction_text="median |dG(μ_r)/dt| / dG1/dt at t = 0 within a factor 2 of 3/n",
    measure=InitialValue("rate_G_random_median", over="rate_G1"),
    x=None,
    predict=random_rate_prediction,
    kind=Bound(aggregate="mean", statistic_text="seed-mean of the ratio at t = 0"),
    group_by=("n", "m", "m1", "c0", "c1", "init", "readout"),
    where={"tokens": ("distinct",)},
    rule=FRACTION_RULE,
)

LAWS = (G1_RATE_VS_M, G3_RATE_RATIO_VS_M, RANDOM_RATE_RATIO)

"""[Y24] the rates at initialisation (Lemmas 4.1, 4.2, E.6; C2–C4), from the exact gradient-flow derivatives
dX/dt = −⟨∇X, ∇L̂⟩ the study records at step 0 (`rate_G1`, `rate_G3`, `rate_G_random_median`)."""

from __future__ import annotations

from dataclasses import replace

from iclscale.analysis.kinds import Bound
from iclscale.analysis.law import Hypothesis, Law, Prediction
from iclscale.analysis.verdict import Band
from iclscale.papers.cooccurrence.laws.common import (
    FLOW_HORIZON,
    FRACTION_RULE,
    STUDY,
    THEORY_SETTING,
    Y24,
    exponent_band,
    theory_exponent_law,
    with_alternative,
)
from iclscale.papers.cooccurrence.laws.flow_measures import InitialValue

G1_RATE_VS_M = theory_exponent_law(
    "initial_G1_rate_vs_m",
    "the signal's initial rate dG(μ1)/dt = Θ((σ0² + σ1²) m m1) grows as m at fixed c0, c1",
    "Lemma 4.1, Lemma E.4",
    "with s1 = c1/√m1, (σ0² + σ1²) m m1 = c0² m1/L + c1² m ≈ c1² m once m ≫ c0² m1/(c1² L)",
    InitialValue("rate_G1"),
    "m",
    1.0,
    ("c0", "c1", "m1", "L"),
)

# [Y24] Lemma E.4: dG1/dt(0) = Θ((σ0² + σ1²) m m1) (constant ≈ 1/6 derived here with g(0) = 1/2), in all its params
G1_RATE_VS_RATE = theory_exponent_law(
    "initial_G1_rate_vs_phase1_rate",
    "the signal's initial rate dG(μ1)/dt is proportional to (σ0² + σ1²)·m·m1 = c0²m1/L + c1²m",
    "Lemma 4.1, Lemma E.4",
    "x = (σ0² + σ1²)·m·m1, varied through m or c1 at fixed c0, L, m1 (these move only the σ0 term, too little "
    "to fix an exponent)",
    InitialValue("rate_G1"),
    "phase1_rate",
    1.0,
    ("c0", "L", "m1"),
    pool=("d", *FLOW_HORIZON),  # in distinct mode d follows n and L by design; the c1 sweep's η and steps
)

# [Y24] Lemma 4.2 bounds the common token's rate per neuron by Õ(σ1²√(m m1) + σ0²√(mL) + σ1² m F); summed over
# the m1 neurons (random signs) against Lemma 4.1's Θ((σ0² + σ1²) m m1) that is O(1/√m + F): an upper bound, so
# an exponent of at most −1/2 while F(0) is negligible. Our tight reading (exponent −1/2) is shown
# beside it as an alternative.
G3_RATE_RATIO_VS_M = theory_exponent_law(
    "initial_G3_rate_ratio_vs_m",
    "the common token's initial rate is small: |dG3/dt| / dG1/dt = O(1/√m + F(0)) at t = 0",
    "Lemma 4.2 (per neuron Õ(σ1²√(m m1) + σ0²√(mL) + σ1² m F) against Lemma 4.1's Θ((σ0² + σ1²) m))",
    "balanced labels; the 1/√m term shows only while F(0) ≈ c0·c1 is below 1/√m; an Õ bound read as an exponent "
    "at most −1/2 (+0.1); the tight reading (exponent −1/2 ± 0.1, ours) is judged beside it",
    InitialValue("rate_G3", absolute=True, over="rate_G1"),
    "m",
    -0.5,
    ("c0", "c1", "m1", "L"),
    upper=True,
)
G3_RATE_RATIO_VS_M = replace(
    G3_RATE_RATIO_VS_M,
    predict=with_alternative(G3_RATE_RATIO_VS_M.predict, "tight reading: exponent −1/2 (±0.1)", exponent_band(-0.5)),
)


def random_rate_prediction(params) -> Prediction | None:
    # derived here from [Y24] Lemma E.6: a random token occurs in one sample, a target in n/2 + n/6 of them,
    # so |dG(μ_r)/dt| / dG1/dt ≈ 3/n at t = 0; the factor-2 band around it is this tool's (not from the paper)
    n = params.get("n")
    if n is None:
        return None
    return Prediction(Hypothesis("≈ 3/n (within a factor 2)", Band(1.5 / n, 6.0 / n), f"{Y24} Lemma E.6 (derived)"))


RANDOM_RATE_CONDITIONS = (
    "distinct random tokens (each in one training sample; Assumption 2.3(ii)); the median over the random "
    "tokens of the training set"
)

RANDOM_RATE_RATIO = Law(
    name=f"{STUDY}.initial_random_token_rate_ratio",
    regime=THEORY_SETTING,
    study=STUDY,
    claim="a random token's sub-network moves ≈ 3/n as fast as a target's at t = 0",
    citation=f"{Y24} Lemma E.6 (the ratio 3/n is derived here from it)",
    conditions=RANDOM_RATE_CONDITIONS,
    prediction_text="median |dG(μ_r)/dt| / dG1/dt at t = 0 within a factor 2 of 3/n",
    measure=InitialValue("rate_G_random_median", over="rate_G1"),
    x=None,
    predict=random_rate_prediction,
    kind=Bound(aggregate="mean", statistic_text="seed-mean of the ratio at t = 0"),
    group_by=("n", "m", "m1", "c0", "c1", "init", "readout"),
    where={"tokens": ("distinct",)},
    rule=FRACTION_RULE,
)

# [Y24] Lemma E.6: the random-token rate is O((1/n)(σ0² + σ1²) m + σ0²√(mL)) per neuron, 1/n of the signal's
RANDOM_RATE_RATIO_VS_N = theory_exponent_law(
    "initial_random_token_rate_ratio_vs_n",
    "a random token's initial rate relative to a target's falls as 1/n (≈ 3/n: it occurs in one sample)",
    "Lemma E.6 (O((1/n)(σ0² + σ1²) m) per neuron against Lemma 4.1's Θ((σ0² + σ1²) m))",
    RANDOM_RATE_CONDITIONS,
    InitialValue("rate_G_random_median", over="rate_G1"),
    "n",
    -1.0,
    ("c0", "c1", "m", "m1", "L"),
    where={"tokens": ("distinct",)},
    pool=("d",),  # d = the distinct tokens n sequences need: it grows with n by design
)

LAWS = (G1_RATE_VS_M, G1_RATE_VS_RATE, G3_RATE_RATIO_VS_M, RANDOM_RATE_RATIO, RANDOM_RATE_RATIO_VS_N)

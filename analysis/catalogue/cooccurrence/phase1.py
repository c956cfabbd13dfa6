"""[Y24] Phase 1: its length T1 ∝ 1/(σ1² m m1) (Def. E.2, Thm E.26; C1) against m, c1 and — for the
gradient-flow reading of gradient descent — the step size η."""

from __future__ import annotations

from analysis.catalogue.cooccurrence.common import CONDITION_1, EXPONENT_RULE, STUDY, Y24, exponent_band, theory_init
from analysis.flow_measures import FirstTimeReaching
from analysis.kinds import PowerLaw
from analysis.law import Hypothesis, Law, Prediction

T1 = FirstTimeReaching("min_margin", threshold=0.0, below=False)  # spec §7.4: the first t with min y_iF_i ≥ 0


def _exponent(value: float, source: str):
    def predict(params) -> Prediction:
        return Prediction(Hypothesis(f"exponent {value:g} (±0.1)", exponent_band(value), source))

    return predict


T1_VS_M = Law(
    name=f"{STUDY}.T1_vs_m",
    study=STUDY,
    claim="Phase 1 ends at T1 ∝ 1/(σ1² m m1): with σ1 = c1/√m1 fixed in c1, T1 ∝ m^(−1)",
    citation=f"{Y24} Def. E.2, Thm E.26 (T1 = C_T1/(σ1² m m1)); Thm 3.1 (T1 = Õ(1/m))",
    conditions="theory init (a = ±1 fixed, s0 = c0/√(Lm), s1 = c1/√m1), gradient flow read as GD at small η; "
    "T1 = the first record with every training sample correct (spec §7.4)",
    prediction_text="exponent −1 (±0.1) of T1 vs m",
    measure=T1,
    x="m",
    # [Y24] Def. E.2 / Thm E.26: T1 = C_T1/(σ1² m m1); σ1² m1 = c1² fixed, so T1 ∝ m^(−1)
    predict=_exponent(-1.0, f"{Y24} Def. E.2, Thm E.26"),
    kind=PowerLaw(),
    group_by=("c1", "m1", "lr"),
    row_filter=theory_init,
    regime=CONDITION_1,
    rule=EXPONENT_RULE,
)

T1_VS_C1 = Law(
    name=f"{STUDY}.T1_vs_c1",
    study=STUDY,
    claim="Phase 1 ends at T1 ∝ 1/(σ1² m m1): with σ1 = c1/√m1, T1 ∝ c1^(−2)",
    citation=f"{Y24} Def. E.2, Thm E.26",
    conditions="theory init (a = ±1 fixed); T1 = the first record with every training sample correct",
    prediction_text="exponent −2 (±0.1) of T1 vs c1",
    measure=T1,
    x="c1",
    # [Y24] Def. E.2 / Thm E.26: T1 = C_T1/(σ1² m m1) with σ1² = c1²/m1: T1 ∝ c1^(−2)
    predict=_exponent(-2.0, f"{Y24} Def. E.2, Thm E.26"),
    kind=PowerLaw(),
    group_by=("m", "m1", "lr"),
    row_filter=theory_init,
    regime=CONDITION_1,
    rule=EXPONENT_RULE,
)

T1_VS_C0 = Law(
    name=f"{STUDY}.T1_vs_c0",
    study=STUDY,
    claim="T1 hardly depends on the attention init scale c0 (σ0 ≪ σ1 in Phase 1's rate)",
    citation=f"{Y24} Def. E.2, Thm E.26 (T1 = C_T1/(σ1² m m1): no σ0); Sec. 4.1's (σ0² + σ1²) m m1",
    conditions="theory init (a = ±1 fixed); T1 = the first record with every training sample correct; the "
    "exponent 0 holds while σ0² = c0²/(Lm) ≪ σ1² = c1²/m1 (spec §8)",
    prediction_text="exponent 0 (±0.1) of T1 vs c0",
    measure=T1,
    x="c0",
    # [Y24] Def. E.2 / Thm E.26: T1 = C_T1/(σ1² m m1) does not contain σ0
    predict=_exponent(0.0, f"{Y24} Def. E.2, Thm E.26"),
    kind=PowerLaw(),
    group_by=("c1", "m", "m1", "lr"),
    row_filter=theory_init,
    regime=CONDITION_1,
    rule=EXPONENT_RULE,
)

TYPE4_CORRECT_VS_M = Law(
    name=f"{STUDY}.type4_correct_vs_m",
    study=STUDY,
    claim="the type-4 samples (neither target) are all correct early, once t ≥ Θ(F(0)/m)",
    citation=f"{Y24} Lemma E.19",
    conditions="theory init (a = ±1 fixed, F(0) ≈ c0·c1 fixed across m); the time = the first record with "
    "min over type-4 samples of y_iF_i ≥ 0",
    prediction_text="exponent −1 (±0.1) of that time vs m",
    measure=FirstTimeReaching("min_margin_type4", threshold=0.0, below=False),
    x="m",
    # [Y24] Lemma E.19: y_iF_i > 0 for i ∈ I4 once t ≥ Θ(F(0)/m); F(0) ≈ c0·c1 does not depend on m
    predict=_exponent(-1.0, f"{Y24} Lemma E.19"),
    kind=PowerLaw(),
    group_by=("c0", "c1", "m1", "lr"),
    row_filter=theory_init,
    regime=CONDITION_1,
    rule=EXPONENT_RULE,
)

T1_VS_LR = Law(
    name=f"{STUDY}.T1_vs_lr",
    study=STUDY,
    claim="gradient descent follows the gradient flow the theory analyses: T1 in flow time t = η·step does not "
    "depend on the step size η",
    citation=f"{Y24} §2.2 (gradient flow), App. A (GD at η = 0.01); spec §4's collapse check",
    conditions="any init; the check of the gradient-flow reading, not a theorem (exponent 0 is what a flow "
    "time that does not depend on η means)",
    prediction_text="exponent 0 (±0.1) of T1 (in flow time) vs η",
    measure=T1,
    x="lr",
    # [Y24] §2.2 analyses dθ/dt = −∇L̂; GD with step η is its Euler scheme, so T1 (in t) is η-free as η → 0
    predict=_exponent(0.0, f"{Y24} §2.2 (gradient flow); spec §4"),
    kind=PowerLaw(),
    group_by=("init", "readout", "m", "m1", "c1"),
    pool=("steps",),  # steps = t_end/η varies with η by design (one flow time for every η)
    rule=EXPONENT_RULE,
)

LAWS = (T1_VS_M, T1_VS_C1, T1_VS_C0, TYPE4_CORRECT_VS_M, T1_VS_LR)

"""[Y24] Phase 2: the loss falls as 1/(κ t) with κ = Θ(σ1² m m1) (Thm F.8; C8), the mechanism behind it
(dL̂/dt = −‖Wᵀa‖² Θ(L̂²) with ‖Wᵀa‖² barely growing; C10), the time to reach a loss ε (C9), every sample
at one rate (C17), the random tokens' sub-network staying small (C19) and generalisation (C20)."""

from __future__ import annotations

import math
from dataclasses import replace

from iclscale.analysis.kinds import Bound, PowerLaw
from iclscale.analysis.law import OTHER_READING, Law, VersusPrinted
from iclscale.analysis.measures import FinalValue, FinalValueScaled
from iclscale.analysis.verdict import INSIDE, Band, VerdictRule
from iclscale.papers.cooccurrence.laws.common import (
    LATE_PHASE2,
    PHASE2,
    PHASE_2_CONDITIONS,
    STUDY,
    T_STAR_LOSS,
    THEORY_SETTING_PHASE_2,
    Y24,
    constant,
    exponent_band,
    theory_exponent_law,
    theory_init,
    with_alternative,
)
from iclscale.papers.cooccurrence.laws.flow_measures import AtLevel, LevelTimeSlope, PhaseValue, SlopeAfter

SETTING = ("init", "readout", "m", "m1", "c0", "c1", "lr")  # one verdict per trained setting
KAPPA = SlopeAfter("loss", window=LATE_PHASE2, transform="reciprocal")
KAPPA_CONDITIONS = "κ = least-squares slope of 1/L̂ against t over t ≥ 2·T1 (2·T1 not from the paper)"

# [Y24] Thm F.8: dL̂/dt = −‖Wᵀa‖² Θ(L̂²) with ‖Wᵀa‖² = Θ(σ1² m m1) = Θ(c1² m)
KAPPA_VS_M = theory_exponent_law(
    "kappa_vs_m",
    "in Phase 2, 1/L̂ grows linearly in t with slope κ = Θ(σ1² m m1): κ ∝ m at fixed c1",
    "Thm F.8 (L̂(t) = 1/(Θ(σ1² m m1)(t − T1) + 1/L̂(T1)))",
    KAPPA_CONDITIONS,
    KAPPA,
    "m",
    1.0,
    ("c1", "m1", "lr"),
    regime=PHASE_2_CONDITIONS,
)
KAPPA_VS_M1 = theory_exponent_law(
    "kappa_vs_m1",
    "κ = Θ(σ1² m m1) = Θ(c1² m) does not depend on m1 at fixed c1",
    "Thm F.8",
    KAPPA_CONDITIONS,
    KAPPA,
    "m1",
    0.0,
    ("c0", "c1", "m", "lr"),
    regime=PHASE_2_CONDITIONS,
)

# Thm F.8's step: dL̂/dt = −‖Wᵀa‖² Θ(L̂²), with the exact rate dL̂/dt = −‖∇L̂‖² (the study's `loss_rate_ratio`)
LOSS_RATE_RATIO_VS_M = theory_exponent_law(
    "loss_rate_ratio_vs_m",
    "in Phase 2 the loss falls at dL̂/dt = −‖Wᵀa‖² Θ(L̂²): −(dL̂/dt)/(‖Wᵀa‖² L̂²) is Θ(1), the same at every m",
    "Thm F.8 (proof: dL̂/dt = −‖Wᵀa‖² Θ(L̂²))",
    "the median over the Phase-2 records of −(dL̂/dt)/(‖Wᵀa‖² L̂²), dL̂/dt = −‖∇L̂‖² exact; Θ(1) read as exponent 0 in m",
    PhaseValue("loss_rate_ratio", window=PHASE2, statistic="median"),
    "m",
    0.0,
    ("c0", "c1", "m1", "lr"),
    regime=PHASE_2_CONDITIONS,
)

LOCAL_LOSS_EXPONENT = Law(
    name=f"{STUDY}.local_loss_exponent",
    regime=THEORY_SETTING_PHASE_2,
    study=STUDY,
    claim="in Phase 2 the loss falls as 1/(t − T1): the slope of log L̂ against log(t − T1) is −1",
    citation=f"{Y24} Thm F.8",
    conditions="any init; slope over t ≥ 2·T1 to the end of the run; the band ±0.25 around −1 is this tool's "
    "tolerance (not from the paper; we expect a drift below −1 toward 1/(t log t) at small m)",
    prediction_text="slope in [−1.25, −0.75] for every seed",
    measure=SlopeAfter("loss", window=LATE_PHASE2, transform="loglog"),
    x=None,
    # [Y24] Thm F.8: L̂ = 1/(κ(t − T1) + 1/L̂(T1)) → (κ(t − T1))^(−1)
    predict=constant("slope −1 (±0.25)", Band(-1.25, -0.75), f"{Y24} Thm F.8"),
    kind=Bound(aggregate="mean", statistic_text="mean over seeds of the log–log slope"),
    group_by=SETTING,
    rule=VerdictRule(mode=INSIDE, min_levels=1, min_points=3),
)

LOSS_LEVELS = (0.1, 0.05, 0.03, 0.02, 0.01, 0.005, 0.003, 0.002, 0.001)  # ε: 1e-1…1e-3, not from the paper
# [Y24] Thm 3.3 / F.8: L̂(t) = 1/(κ(t − T1) + 1/L̂(T1)) reaches ε at t_ε = T1 + (1/ε − 1/L̂(T1))/κ
TIME_TO_LOSS = Law(
    name=f"{STUDY}.time_to_loss",
    regime=THEORY_SETTING_PHASE_2,
    study=STUDY,
    claim="the time to reach a training loss ε is t_ε ≈ T1 + (1/ε − 1/L̂(T1))/κ: t_ε − T1 grows linearly in "
    "1/ε − 1/L̂(T1)",
    citation=f"{Y24} Thm 3.3, Thm F.8 (T* = min{{t: L̂ = Θ(1/poly(m))}} = Θ(poly(m)))",
    conditions="any init; slope of log(t_ε − T1) against log(1/ε − 1/L̂(T1)) over the levels ε ∈ "
    f"{{{', '.join(f'{e:g}' for e in LOSS_LEVELS)}}} the run reaches (at least 3; ours); ±0.1 is this "
    "tool's tolerance (not from the paper)",
    prediction_text="slope 1 (±0.1), seed-mean",
    measure=LevelTimeSlope("loss", window=PHASE2, levels=LOSS_LEVELS),
    x=None,
    predict=constant("slope 1 (±0.1)", exponent_band(1.0), f"{Y24} Thm F.8"),
    kind=Bound(aggregate="mean", statistic_text="mean over seeds of the slope"),
    group_by=SETTING,
    rule=VerdictRule(mode=INSIDE, min_levels=1, min_points=3),
)

# [Y24] Lemma F.10 over ‖Wᵀa‖²(T1) = Θ(σ1² m m1): relative growth Õ(1/(σ1² m)) = Õ(m1/(c1² m)): an O bound, so an
# exponent of at most −1; our tight reading (exponent −1) is judged beside it. Its regime is Condition 1
# and Lemma D.8 without Def. F.1's size of ‖Wᵀa‖²: that size is what it measures (selecting on it would bias it)
READOUT_GROWTH_VS_M = theory_exponent_law(
    "readout_growth_vs_m",
    "‖Wᵀa‖² barely grows in Phase 2: its growth relative to T1 is Õ(m1/(σ1² m m1)) ∝ 1/m at fixed c1",
    "Lemma F.10, Cor. F.9 (‖Wᵀa‖² − ‖Wᵀa‖²(T1) = O(m1 log m log t/(σ1² m m1)))",
    "growth = ‖Wᵀa‖²(end)/‖Wᵀa‖²(T1) − 1 (claim C10); the log factors are not divided out; an O bound read as an "
    "exponent at most −1 (+0.1); the tight reading (−1 ± 0.1, ours) is judged beside it",
    PhaseValue("u_norm2", window=PHASE2, statistic="growth"),
    "m",
    -1.0,
    ("c1", "m1", "lr"),
    upper=True,
)
READOUT_GROWTH_VS_M = replace(
    READOUT_GROWTH_VS_M,
    predict=with_alternative(READOUT_GROWTH_VS_M.predict, "tight reading: exponent −1 (±0.1)", exponent_band(-1.0)),
)

# C17, [Y24] Cor. F.2: within a type, max_{i,j} g_i/g_j = O(1) throughout Phase 2
G_SPREAD_VS_M = theory_exponent_law(
    "C17_g_spread_vs_m",
    "every sample's loss falls at one rate: within each type the gradient weights g_i stay within a constant "
    "factor of each other (O(1), not growing with m)",
    "Cor. F.2, Thm F.8",
    "the largest over the Phase-2 records of max_k max_{i,j∈I_k} g_i/g_j; O(1) read as an exponent ≤ 0 in m",
    PhaseValue("g_spread", window=PHASE2, statistic="max"),
    "m",
    0.0,
    ("c0", "c1", "m1", "lr"),
    upper=True,
    regime=PHASE_2_CONDITIONS,
)

# C19, [Y24] Thm E.27 and Lemma F.14: |G(μ_r)| = Õ(σ0σ1√(m m1)) + Õ((1/n + …)/(σ1² m m1)): with s0 = c0/√(Lm),
# s1 = c1/√m1 the first term is c0c1/√L (m-free), the drift falls with m
G_RANDOM_VS_M = theory_exponent_law(
    "C19_random_G_vs_m",
    "the random tokens' sub-network stays small: max |G(μ_r)| over the training set's random tokens does not "
    "grow with m",
    "Thm E.27, Lemma F.14",
    "max |G(μ_r)| at the end; the bound's terms are m-free (c0c1/√L) or fall with m: exponent ≤ 0",
    FinalValue("G_random_max"),
    "m",
    0.0,
    ("c0", "c1", "m1", "lr"),
    upper=True,
    regime=PHASE_2_CONDITIONS,
)

FIXED_TIME_C20 = VersusPrinted(
    OTHER_READING,
    "Thm 3.3 states the test loss at T* (the training loss at Θ(1/poly(m))); this law reads it at the run's end, a "
    "fixed flow time (`test_to_train_loss_at_T_star_vs_m` reads it at T*)",
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
    predict=constant("exponent < 0", Band(-math.inf, 0.0), f"{Y24} Thm 3.3"),
    kind=PowerLaw(),
    group_by=("c0", "c1", "m1", "lr"),
    row_filter=theory_init,
    regime=PHASE_2_CONDITIONS,
    one_row_per_run=False,
    rule=VerdictRule(mode=INSIDE),
    versus_printed=FIXED_TIME_C20,
)

# [Y24] App. F.10: a random token shifts F by O(1), so a test sequence's loss is within e^{O(1)} of a training
# sequence's (claim C20: the test/train ratio stays bounded)
TEST_TRAIN_RATIO_VS_M = theory_exponent_law(
    "test_to_train_loss_vs_m",
    "test and training losses stay within a constant factor: the final test/train loss ratio does not grow with m",
    "Thm 3.3, App. F.10 (random tokens shift F by O(1))",
    "final test loss (fresh sequences of D) over the final training loss; bounded read as exponent ≤ 0 in m",
    FinalValueScaled("test_loss", by="loss"),
    "m",
    0.0,
    ("c0", "c1", "m1", "lr"),
    upper=True,
    one_row_per_run=False,
    regime=PHASE_2_CONDITIONS,
    versus_printed=FIXED_TIME_C20,
)

# [Y24] Thm 3.3 at T*: L̂(T*) ≤ 1/poly(m) and L(T*) ≤ 1/poly(m), the second from the first by App. F.10's O(1) shift
TEST_TRAIN_RATIO_AT_T_STAR = theory_exponent_law(
    "test_to_train_loss_at_T_star_vs_m",
    "at T* the test loss is at the training loss's level: their ratio at T* does not grow with m",
    "Thm 3.3, App. F.10 (random tokens shift F by O(1))",
    f"test loss (fresh sequences of D) over the training loss at T*, the first record with L̂ ≤ {T_STAR_LOSS:g} (one "
    "level for every m, ours); bounded read as exponent ≤ 0 in m; censored where the run never gets there",
    AtLevel("test_loss", level_metric="loss", level=T_STAR_LOSS, over="loss"),
    "m",
    0.0,
    ("c0", "c1", "m1", "lr"),
    upper=True,
    one_row_per_run=False,
    regime=PHASE_2_CONDITIONS,
)

LAWS = (
    KAPPA_VS_M,
    KAPPA_VS_M1,
    LOSS_RATE_RATIO_VS_M,
    LOCAL_LOSS_EXPONENT,
    TIME_TO_LOSS,
    READOUT_GROWTH_VS_M,
    G_SPREAD_VS_M,
    G_RANDOM_VS_M,
    TEST_LOSS_VS_M,
    TEST_TRAIN_RATIO_VS_M,
    TEST_TRAIN_RATIO_AT_T_STAR,
)

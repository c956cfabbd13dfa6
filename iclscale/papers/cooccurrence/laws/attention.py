"""[Y24] what attention learns in Phase 2: the final key–query score changes of Thm 3.3, Eq. 3 (C12) against
each init axis, the rate behind them (Lemma 4.7), the random-token coefficients (C13) and how far the
softmax moves from uniform (Def. F.1, C15)."""

from __future__ import annotations

from dataclasses import replace

from iclscale.analysis.law import OTHER_READING, Law, VersusPrinted
from iclscale.analysis.measures import FinalValue
from iclscale.papers.cooccurrence.laws.common import (
    FLOW_HORIZON,
    PHASE2,
    PHASE_2_CONDITIONS,
    T_STAR_LOSS,
    theory_exponent_law,
)
from iclscale.papers.cooccurrence.laws.flow_measures import AtLevel, ChangeFromStart, PhaseValue

C12_SOURCE = "Thm 3.3, Eq. 3 (C_12 = Θ(σ0²√m/(L σ1² m m1) + σ0²/(σ1² m m1)), up to log factors)"
LOG_NOTE = (
    "the log factor log(t_end/T1) is not divided out (Thm 3.3's Θ hides it; derived here from Thm F.8: "
    "∫L̂ dt ≈ log(t)/κ)"
)
T_STAR_NOTE = (
    f"read at T*, the first record with L̂ ≤ {T_STAR_LOSS:g} (Thm 3.3's T* = min{{t : L̂(t) = Θ(1/poly(m))}} at one "
    "level for every config, ours: a level falling with m would add a log m to ∫L̂ dt = log(L̂(T1)/L̂(T*))/κ, which "
    "Θ̃ hides; censored where the run never gets there)"
)
FIXED_TIME = VersusPrinted(
    OTHER_READING,
    "Thm 3.3 states C12 at T* (the loss at Θ(1/poly(m))); this law reads it at the run's end, a fixed flow time, "
    "where ∫L̂ dt carries log(κ t_end), which grows with κ (the law without the suffix reads it at T*)",
)


def _c12_law(axis: str, exponent: float, group_by: tuple[str, ...], why: str, **extra) -> tuple[Law, Law]:
    """C12 = ΔA12 against one axis ([Y24] Thm 3.3, Eq. 3): at T* as printed, and at the run's end (labelled)."""
    claim = f"the target-pair score change C12 = ΔA12 at T* scales as {axis}^({exponent:g})"
    at_t_star = theory_exponent_law(
        f"C12_vs_{axis}",
        claim,
        C12_SOURCE,
        f"{why}; {T_STAR_NOTE}",
        AtLevel("A12", level_metric="loss", level=T_STAR_LOSS, change=True),
        axis,
        exponent,
        group_by,
        **extra,
        regime=PHASE_2_CONDITIONS,
    )
    at_end = theory_exponent_law(
        f"C12_vs_{axis}_fixed_time",
        claim.replace("at T*", "at the end of training"),
        C12_SOURCE,
        f"{why}; {LOG_NOTE}",
        ChangeFromStart("A12"),
        axis,
        exponent,
        group_by,
        **extra,
        regime=PHASE_2_CONDITIONS,
    )
    return at_t_star, replace(at_end, versus_printed=FIXED_TIME)


# [Y24] Thm 3.3 Eq. 3 in the c-parametrisation (derived here): C12 ≈ (c0²/c1²)(1/(L² m^{3/2}) + 1/(L m²))
C12_PAIRS = (
    _c12_law("m", -1.5, ("c0", "c1", "m1", "lr"), "s0 = c0/√(Lm), s1 = c1/√m1: the first term, "
             "(c0²/c1²) m^(−3/2)/L², dominates for m ≥ L² (derived here)"),
    _c12_law("c1", -2.0, ("c0", "m", "m1"), "σ1² = c1²/m1 in the denominator of both terms", pool=FLOW_HORIZON),
    _c12_law("c0", 2.0, ("c1", "m", "m1", "lr"), "σ0² = c0²/(Lm) in the numerator of both terms"),
    _c12_law("m1", 0.0, ("c0", "c1", "m", "lr"), "σ1² m1 = c1²: no m1 at fixed c1"),
    _c12_law("L", -2.0, ("c0", "c1", "m", "m1", "lr"), "σ0² = c0²/(Lm) and the 1/L of the first term",
             pool=("d",)),
    _c12_law("n", 0.0, ("c0", "c1", "m", "m1", "lr"), "no n in Eq. 3", pool=("d",)),
)  # fmt: skip
C12_LAWS = tuple(law for pair in C12_PAIRS for law in pair)


def _rate_law(axis: str, exponent: float, why: str, **extra) -> Law:
    """Lemma 4.7: the score's exact rate per unit loss in Phase 2 (median over the Phase-2 records)."""
    return theory_exponent_law(
        f"A12_rate_per_loss_vs_{axis}",
        "in Phase 2 the target-pair score rises at dA12/dt = (1/√m) Θ̃(L̂ σ0² m)(1/L): per unit loss "
        f"Θ̃(σ0²√m/L) = c0²/(L²√m), i.e. ∝ {axis}^({exponent:g})",
        "Lemma 4.7 / F.16",
        f"{why}; the median over the Phase-2 records of the exact dA12/dt divided by L̂",
        PhaseValue("rate_A12_over_loss", window=PHASE2, statistic="median"),
        axis,
        exponent,
        extra.pop("group_by", ("c0", "c1", "m1", "lr")),
        **extra,
        regime=PHASE_2_CONDITIONS,
    )


RATE_LAWS = (
    _rate_law("m", -0.5, "s0² = c0²/(Lm)"),
    _rate_law("c0", 2.0, "s0² = c0²/(Lm)", group_by=("c1", "m", "m1", "lr")),
    _rate_law("L", -2.0, "s0² = c0²/(Lm) and the 1/L", group_by=("c0", "c1", "m", "m1", "lr"), pool=("d",)),
)

# [Y24] Thm 3.3: |C_{i,γ}| ≤ Õ(σ0² m/(n√m L σ1² m m1) + σ0²√m/(√m σ1² m m1)) for a random γ, while C12 has both
# terms without the 1/n: the ratio falls as 1/n while the first term dominates, and levels off after
C13_VS_N = theory_exponent_law(
    "C13_random_score_ratio_vs_n",
    "a score with a random token changes by ≈ 1/n of C12 (first term of Eq. 3), and no more than C12's second "
    "term: max|C_{i,γ}|/|C12| falls with n at most as 1/n",
    "Thm 3.3, Eq. 3 (random-index coefficients)",
    "distinct random tokens (each in one sample); the largest |ΔA| over pairs of μ1, μ2, μ3 and 61 sampled "
    "random tokens with at least one random token, over |ΔA12|, at the end; exponent between −1 (first term) "
    "and 0 (second term; the first is √m/(L n) of the second, derived here from Eq. 3)",
    FinalValue("random_score_change_ratio"),
    "n",
    (-1.0, 0.0),
    ("c0", "c1", "m", "m1", "lr"),
    where={"tokens": ("distinct",)},
    pool=("d",),
    regime=PHASE_2_CONDITIONS,
)

# [Y24] Def. F.1 (held throughout Phase 2, Lemma F.18): max_{i,l,h} |p(t) − p(0)| < O(1/L²)
SOFTMAX_VS_L = theory_exponent_law(
    "C15_softmax_change_vs_L",
    "the softmax stays within O(1/L²) of its initial value throughout Phase 2",
    "Def. F.1, Cor. F.17",
    "the largest |p(t) − p(0)| over samples, queries and keys, largest over the Phase-2 records; an O bound "
    "read as an exponent at most −2 (+0.1)",
    PhaseValue("attention_max_change", window=PHASE2, statistic="max"),
    "L",
    -2.0,
    ("c0", "c1", "m", "m1", "lr"),
    upper=True,
    pool=("d",),
    regime=PHASE_2_CONDITIONS,
)

LAWS = (*C12_LAWS, *RATE_LAWS, C13_VS_N, SOFTMAX_VS_L)

"""[Y24] Phase 1: its length T1 ∝ 1/(σ1² m m1) (Def. E.2, Thm E.26; C1) against m, c1, c0, m1, n, L, the general
rate scale (σ0² + σ1²)·m·m1 of §4.1 and — for the gradient-flow reading of gradient descent — the step size η;
its sub-events (each type correct: Thm E.14, Cor. E.20, Lemma E.19; the robustness reading T1_G(c), ours);
the state at T1 (Thm 3.1, E.27; C6); how little attention and the Gram matrices move by T1 (Thm E.28; C7)."""

from __future__ import annotations

from iclscale.analysis.kinds import PowerLaw
from iclscale.analysis.law import Law
from iclscale.papers.cooccurrence.laws.common import (
    EXPONENT_RULE,
    FLOW_HORIZON,
    PHASE2,
    STUDY,
    Y24,
    constant,
    exponent_band,
    theory_exponent_law,
)
from iclscale.papers.cooccurrence.laws.flow_measures import FirstTimeReaching, PhaseValue

# our reading of Thm 3.1's T1: the first t with min y_iF_i ≥ 0
T1 = FirstTimeReaching("min_margin", threshold=0.0, below=False)
T1_CONDITION = (
    "T1 = the first record with every training sample correct (our reading of Thm 3.1); gradient flow read as GD"
)
# T1_G(c), ours: the MLP has aligned, min(G1, G2, −G3) ≥ c; c = 0.5 (refitted at 0.25 and 1) not from the paper
T1_G = FirstTimeReaching("G_signal_min", threshold=0.5, below=False)
T1_G_CONDITION = (
    "T1_G(c) = the first record with min(G1, G2, −G3) ≥ c (ours; Thm E.27: G(μ1), G(μ2), −G(μ3) = Θ(1) at "
    "T1), c = 0.5 (refitted at 0.25 and 1; not from the paper); gradient flow read as GD"
)
# [Y24] Def. E.2 / Thm E.26: T1 = C_T1/(σ1² m m1); with σ1² = c1²/m1 that is C_T1/(c1² m)
T1_SOURCE = "Def. E.2, Thm E.26 (T1 = C_T1/(σ1² m m1)); Thm 3.1 (T1 = Õ(1/m))"
# §4.1: G(μ1) reaches a constant after O(1/((σ0² + σ1²) m m1)): the general form whose σ0 term Def. E.2 drops
RATE_SOURCE = "§4.1 after Lemma 4.1 (G(μ1) reaches a constant after O(1/((σ0² + σ1²) m m1))); Lemma 4.1, E.4"
RATE_NOTE = (
    "x = (σ0² + σ1²)·m·m1 = c0²m1/L + c1²m, varied through m or c1 at fixed c0, L, m1 (these move only the σ0 "
    "term, too little to fix an exponent)"
)


def _T1_laws(
    axis: str, exponent: float, why: str, group_by: tuple[str, ...], pool: tuple[str, ...] = (), **extra
) -> tuple[Law, Law]:
    """T1 (every sample correct) and T1_G (the MLP aligned) ∝ axis^exponent."""
    source, note = (RATE_SOURCE, f"; {RATE_NOTE}") if axis == "phase1_rate" else (T1_SOURCE, "")
    return tuple(
        theory_exponent_law(
            f"{name}_vs_{axis}",
            f"Phase 1 ends at {name} ∝ 1/(σ1² m m1): {name} ∝ {axis}^({exponent:g}) ({why})",
            source,
            condition + note,
            measure,
            axis,
            exponent,
            group_by,
            pool=("d", *pool),  # in distinct mode d follows n and L by design (the n and L sweeps)
            **extra,
        )
        for name, measure, condition in (("T1", T1, T1_CONDITION), ("T1_G", T1_G, T1_G_CONDITION))
    )


T1_LAWS = (
    *_T1_laws("m", -1.0, "σ1 = c1/√m1 fixed in c1", ("c1", "m1", "lr")),
    # the c1 sweep scales η ∝ c1⁻² and the steps ∝ c1² by design (one flow horizon η·steps): T1 is a flow time
    *_T1_laws("c1", -2.0, "σ1² = c1²/m1", ("m", "m1"), pool=FLOW_HORIZON),
    *_T1_laws("c0", 0.0, "no σ0 in C_T1/(σ1² m m1); σ0 ≪ σ1 in Sec. 4.1's rate", ("c1", "m", "m1", "lr")),
    *_T1_laws("m1", 0.0, "σ1² m m1 = c1² m has no m1 at fixed c1", ("c0", "c1", "m", "lr")),
    *_T1_laws("n", 0.0, "no n in C_T1/(σ1² m m1)", ("c0", "c1", "m", "m1", "lr")),
    *_T1_laws("L", 0.0, "no L in C_T1/(σ1² m m1)", ("c0", "c1", "m", "m1", "lr")),
    # fitted where m or c1 move the rate (the σ1² m m1 term); c0, L and m1 move only its σ0 term, < 35% here
    *_T1_laws("phase1_rate", -1.0, "§4.1's general form (σ0² + σ1²) m m1", ("c0", "L", "m1"), pool=FLOW_HORIZON),
)


def _correct_law(k: int, claim: str, source: str, note: str = "") -> Law:
    """When every type-k sample is correct: the first record with min over I_k of y_iF_i ≥ 0, ∝ 1/m."""
    return theory_exponent_law(
        f"type{k}_correct_vs_m",
        claim,
        source,
        f"the time = the first record with min over type-{k} samples of y_iF_i ≥ 0{note}",
        FirstTimeReaching(f"min_margin_type{k}", threshold=0.0, below=False),
        "m",
        -1.0,
        ("c0", "c1", "m1", "lr"),
    )


TYPE1_CORRECT_VS_M = _correct_law(
    1,
    "the type-1 samples (both targets) are all correct after O(1/m): G1 + G2 grows at Θ((σ0² + σ1²) m m1)",
    "Thm E.14, Lemma 4.1",
)
TYPE2_CORRECT_VS_M = _correct_law(
    2,
    "the type-2 samples (μ1 only) are all correct after T′ ≤ O(1/m), once −G3 outgrows G1",
    "Cor. E.20 (T′ = min{t: min_{i∈I2∪I3} y_iF_i ≥ C} ≤ O(1/m)), Lemma 4.3",
    " (type 3 is its mirror image)",
)
TYPE4_CORRECT_VS_M = _correct_law(
    4,
    "the type-4 samples (neither target) are all correct early, once t ≥ Θ(F(0)/m)",
    "Lemma E.19",
    "; F(0) ≈ c0·c1 fixed across m",
)

# C6, [Y24] Thm 3.1 / E.27: at T1 the loss is still Θ(1) and G1, G2, −G3 are Θ(1): neither scales with m
LOSS_AT_T1_VS_M = theory_exponent_law(
    "loss_at_T1_vs_m",
    "at T1 the training loss is still Θ(1): it does not scale with m",
    "Thm 3.1, Thm E.28 (L̂(T1) = Θ(1))",
    "L̂ at the first record of Phase 2 (every sample correct); Θ(1) read as exponent 0 in m",
    PhaseValue("loss", window=PHASE2),
    "m",
    0.0,
    ("c0", "c1", "m1", "lr"),
)
G_AT_T1_VS_M = theory_exponent_law(
    "G_signal_at_T1_vs_m",
    "at T1 the linear MLP has aligned by Θ(1): min(G1, G2, −G3) does not scale with m",
    "Thm 3.1, Thm E.27 (G(μ1), G(μ2), −G(μ3) = Θ(1) at T1)",
    "min(G1, G2, −G3) at the first record of Phase 2; Θ(1) read as exponent 0 in m",
    PhaseValue("G_signal_min", window=PHASE2),
    "m",
    0.0,
    ("c0", "c1", "m1", "lr"),
)

# [Y24] Thm E.27: Σ_{j1,j2} ⟨a_j1 w_j1, a_j2 w_j2⟩ = ‖Wᵀa‖² = Θ(σ1² m m1) = Θ(c1² m) at T1: Phase 1 leaves it at its
# initial size, the premise of Phase 2's κ = Θ(σ1² m m1) (Thm F.8)
READOUT_AT_T1_VS_M = theory_exponent_law(
    "readout_at_T1_vs_m",
    "Phase 1 leaves ‖Wᵀa‖² at its initial size: at T1 it is Θ(σ1² m m1) = Θ(c1² m), ∝ m",
    "Thm E.27 (Σ_{j1,j2}⟨a_j1 w_j1, a_j2 w_j2⟩ = Θ(σ1² m m1) at T1)",
    "‖Wᵀa‖² at the first record of Phase 2",
    PhaseValue("u_norm2", window=PHASE2),
    "m",
    1.0,
    ("c0", "c1", "m1", "lr"),
)


def _still_law(metric: str, what: str, exponent: float, bound: str) -> Law:
    """C7: a change since t = 0, at T1, bounded by Õ(m^exponent) (Thm E.28)."""
    return theory_exponent_law(
        f"{metric}_at_T1_vs_m",
        f"attention and the Gram matrices hardly move in Phase 1: the largest change of {what} by T1 is {bound}",
        f"Thm E.28 ({bound} for t ∈ [0, T1])",
        "the change at the first record of Phase 2, over μ1, μ2, μ3 and 61 sampled random tokens of the "
        "training set; an Õ bound read as an exponent at most the bound's (+0.1)",
        PhaseValue(metric, window=PHASE2),
        "m",
        exponent,
        ("c0", "c1", "m1", "lr"),
        upper=True,
    )


STILL_LAWS = (
    _still_law("score_change_special", "the key–query scores μ_iᵀW_KᵀW_Qμ_j (i, j ≤ 3)", -1.5,
               "Õ(m^(−3/2)(1/L + 1/√m))"),
    _still_law("key_gram_drift", "the key Gram μᵀW_KᵀW_Kν", -2.0, "Õ(1/m²)"),
    _still_law("query_gram_drift", "the query Gram μᵀW_QᵀW_Qν", -2.0, "Õ(1/m²)"),
    _still_law("value_gram_drift", "the value correlations ⟨v(μ), v(ν)⟩", -1.0, "Õ(1/m)"),
    _still_law("neuron_gram_drift", "the neuron correlations ⟨w_j1, w_j2⟩", -1.0, "Õ(1/m)"),
)  # fmt: skip

T1_VS_LR = Law(
    name=f"{STUDY}.T1_vs_lr",
    study=STUDY,
    claim="gradient descent follows the gradient flow the theory analyses: T1 in flow time t = η·step does not "
    "depend on the step size η",
    citation=f"{Y24} §2.2 (gradient flow), App. A (GD at η = 0.01); the collapse check is ours",
    conditions="any init; the check of the gradient-flow reading, not a theorem (exponent 0 is what a flow "
    "time that does not depend on η means)",
    prediction_text="exponent 0 (±0.1) of T1 (in flow time) vs η",
    measure=T1,
    x="lr",
    # [Y24] §2.2 analyses dθ/dt = −∇L̂; GD with step η is its Euler scheme, so T1 (in t) is η-free as η → 0
    predict=constant("exponent 0 (±0.1)", exponent_band(0.0), f"{Y24} §2.2 (gradient flow)"),
    kind=PowerLaw(),
    group_by=("init", "readout", "m", "m1", "c1"),
    pool=("steps",),  # steps = t_end/η varies with η by design (one flow time for every η)
    rule=EXPONENT_RULE,
)

LAWS = (
    *T1_LAWS,
    TYPE1_CORRECT_VS_M,
    TYPE2_CORRECT_VS_M,
    TYPE4_CORRECT_VS_M,
    LOSS_AT_T1_VS_M,
    G_AT_T1_VS_M,
    READOUT_AT_T1_VS_M,
    *STILL_LAWS,
    T1_VS_LR,
)

"""What the laws of seed 003 share: the citation, the phase windows, the verdict rules. Yang, Kailkhura, Wang,
Liang, "Training Dynamics of Transformers to Recognize Word Co-occurrence via Gradient Flow Analysis",
NeurIPS 2024 (arXiv 2410.09605), cited as [Y24]."""

from __future__ import annotations

import math

from iclscale.analysis.kinds import PowerLaw
from iclscale.analysis.law import (
    CONSTANTS,
    EXPLICIT,
    HIDDEN_CONSTANT,
    MEASURED,
    Condition,
    Hypothesis,
    Law,
    Prediction,
    Regime,
)
from iclscale.analysis.measures import Measure
from iclscale.analysis.verdict import INSIDE, Band, VerdictRule
from iclscale.papers.cooccurrence.laws.flow_measures import Window

Y24 = "Yang et al. 2024 [Y24] (NeurIPS 2024, arXiv 2410.09605)"
STUDY = "cooccurrence"

# Phase 2 starts at T1, the first record with every training sample correct (our reading of [Y24] Thm 3.1's T1)
PHASE2 = Window("min_margin", 0.0, below=False, factor=1.0)
# the 1/t law is fitted from 2·T1 on (not from the paper: Def. E.2's T1 comes after the first all-correct record)
LATE_PHASE2 = Window("min_margin", 0.0, below=False, factor=2.0)

# T* of Thm 3.3 (min{t : L̂(t) = Θ(1/poly(m))}) read as the first record with L̂ ≤ 0.01 at every config (not from
# the paper: one level, so that the log factor log(L̂(T1)/L̂(T*)) of ∫L̂ dt is the same at every m)
T_STAR_LOSS = 0.01

# [Y24]'s rates are Θ̃/Õ (log factors hidden) and T1 is read on a grid of records: an exponent p is judged
# against [p − 0.1, p + 0.1] (the 0.1 is this tool's tolerance, not from the paper). The bands below carry it, so
# the rule widens them no further (tolerance 0, not the exponent default 0.1); 0.3 wide at most
EXPONENT_TOLERANCE = 0.1
EXPONENT_RULE = VerdictRule(max_interval_width=0.3, tolerance=0.0)


def exponent_band(p: float) -> Band:
    return Band(p - EXPONENT_TOLERANCE, p + EXPONENT_TOLERANCE)


def upper_band(p: float) -> Band:
    """An Õ(x^p) bound read as an exponent of at most p (+ the tolerance)."""
    return Band(-math.inf, p + EXPONENT_TOLERANCE)


def constant(name: str, band: Band, source: str):
    """A prediction that is the same for every group."""

    def predict(params) -> Prediction:
        return Prediction(Hypothesis(name, band, source))

    return predict


# a claim said to hold throughout Phase 2, read as "on at least 95% of its records for every seed"; 95% is
# this tool's allowance (not from the paper) for the records right after T1, before Def. F.1 is reached
THROUGHOUT = 0.95
FRACTION_RULE = VerdictRule(mode=INSIDE, min_levels=1, min_points=3)


# [Y24] Condition 1, each part labelled: m ≥ Ω̃(max{m1, L²}) and n ≥ Ω̃(L²) carry hidden constants (and log factors,
# not checked here); σ0 = 1/Θ̃(√(Lm)), σ1 = 1/Θ̃(√m1) are the theory init's c0/√(Lm), c1/√m1 (c0, c1 are those Θ̃
# constants: any value is inside); m1, L ≥ Ω̃(1) and 1/δ ≤ poly(m) are not checked
CONDITION_1_PARTS = (
    Condition("m ≥ Ω̃(m1)", HIDDEN_CONSTANT, lambda rows: rows["m"].astype(float) / rows["m1"].astype(float)),
    Condition("m ≥ Ω̃(L²)", HIDDEN_CONSTANT, lambda rows: rows["m"].astype(float) / rows["L"].astype(float) ** 2),
    Condition("n ≥ Ω̃(L²)", HIDDEN_CONSTANT, lambda rows: rows["n"].astype(float) / rows["L"].astype(float) ** 2),
)


def condition_1(rows, constants: float = CONSTANTS):
    """Condition 1 on the params (log factors not checked): m ≥ m1, m ≥ L², n ≥ L² with the hidden constants at
    `constants`."""
    return Regime.of("[Y24] Condition 1", CONDITION_1_PARTS).on_params(rows, constants)


THEORY_INIT = Condition(
    "the theory's init: W_Q, W_K, W_V ~ N(0, σ0²), W ~ N(0, σ1²) with σ0 = c0/√(Lm), σ1 = c1/√m1, a = ±1 fixed (§2.2)",
    EXPLICIT,
    lambda rows: (rows["init"] == "theory") & (rows["readout"] == "pm1_fixed"),
)

INITIAL_OUTPUT_BOUND = 0.01  # [Y24] Lemma D.8: |F(0)(X_i)| ≤ 0.01 for every i
# [Y24] Thm E.27 (‖Wᵀa‖² = Θ(σ1² m m1) at T1) and Def. F.1 (≤ O(σ1² m m1) throughout Phase 2), read with the
# constant 2, not 1: ‖Wᵀa‖² is σ1² m m1 in expectation at t = 0 (a = ±1, W ~ N(0, σ1²)), so a constant of 1 would
# exclude about half the initialisations before any training (this tool's choice)
READOUT_SIZE_CONSTANT = 2.0


def _per_row(measure, results, rows):
    """A measure's value for each of `rows`, aligned with their index (NaN where a run has none, e.g. a store
    recorded before the study had the probe)."""
    import pandas as pd

    if not len(rows):
        return pd.Series(dtype=float, index=rows.index)
    found = measure.per_run(results, rows.reset_index(names="_row"))
    return found.set_index("_row")["value"].reindex(rows.index)


def initial_output_small(results, rows):
    """[Y24] Lemma D.8: max_i |F(0)(X_i)| ≤ 0.01, from the probe `max_abs_output` at step 0 (NaN, a run recorded
    without it: fails)."""
    from iclscale.papers.cooccurrence.laws.flow_measures import InitialValue

    return _per_row(InitialValue("max_abs_output"), results, rows) <= INITIAL_OUTPUT_BOUND


def readout_size_in_phase_2(results, rows):
    """[Y24] Def. F.1 / Thm E.27: the largest ‖Wᵀa‖² (probe `u_norm2`) over Phase 2 ≤ 2·σ1² m m1 = 2·c1²·m (theory
    init; a run that never reaches Phase 2 fails)."""
    from iclscale.papers.cooccurrence.laws.flow_measures import PhaseValue

    largest = _per_row(PhaseValue("u_norm2", window=PHASE2, statistic="max"), results, rows)
    scale = rows["c1"].astype(float) ** 2 * rows["m"].astype(float)
    return largest <= READOUT_SIZE_CONSTANT * scale


INITIAL_OUTPUT = Condition(
    "Lemma D.8: max_i |F(0)(X_i)| ≤ 0.01 (probe max_abs_output at t = 0; a run recorded without it fails)",
    MEASURED,
    initial_output_small,
)
READOUT_SIZE = Condition(
    "Def. F.1, Thm E.27: ‖Wᵀa‖² ≤ 2σ1² m m1 = 2c1²m at every Phase-2 record (constant 2: see common.py)",
    MEASURED,
    readout_size_in_phase_2,
)
# the proofs' conditions: Condition 1 on the params, Lemma D.8 (and, for Phase 2, Def. F.1) measured on every run, so
# that no run outside them can count for or against a claim
CONDITION_1 = Regime.of("[Y24] Condition 1, Lemma D.8", (*CONDITION_1_PARTS, INITIAL_OUTPUT))
PHASE_2_CONDITIONS = Regime.of(
    "[Y24] Condition 1, Lemma D.8, Def. F.1", (*CONDITION_1_PARTS, INITIAL_OUTPUT, READOUT_SIZE)
)
# for laws judged on every init: the theory's init is one of the conditions, the others are left out and counted
THEORY_SETTING = Regime.of("[Y24] §2.2, Condition 1, Lemma D.8", (THEORY_INIT, *CONDITION_1_PARTS, INITIAL_OUTPUT))
THEORY_SETTING_PHASE_2 = Regime.of(
    "[Y24] §2.2, Condition 1, Lemma D.8, Def. F.1", (THEORY_INIT, *CONDITION_1_PARTS, INITIAL_OUTPUT, READOUT_SIZE)
)


def theory_init(runs):
    """Runs with the theory's initialisation (N(0, s0²), N(0, s1²), a = ±1 fixed): the paper's analysis."""
    return runs[(runs["init"] == "theory") & (runs["readout"] == "pm1_fixed")]


def with_alternative(predict, name: str, band: Band):
    """`predict` with another reading (not the paper's own statement: ours) judged beside its primary."""

    def both(params) -> Prediction:
        primary = predict(params).primary
        return Prediction(primary, (Hypothesis(name, band, "our reading, not from the paper"),))

    return both


def theory_exponent_law(
    name: str,
    claim: str,
    citation: str,
    conditions: str,
    measure: Measure,
    x: str,
    exponent: float | tuple[float, float],
    group_by: tuple[str, ...],
    upper: bool = False,
    **extra,
) -> Law:
    """measure ∝ x^exponent on theory-init runs (a = ±1 fixed) inside Condition 1, judged against exponent ± 0.1;
    a pair (low, high) is a range of exponents, [low − 0.1, high + 0.1]; with `upper`, an Õ bound: exponent ≤
    exponent + 0.1. `citation` is the paper's theorem/equation. The regime is CONDITION_1 unless `regime` is given
    (PHASE_2_CONDITIONS for a Phase-2 claim)."""
    if isinstance(exponent, tuple):
        wording = f"exponent in [{exponent[0]:g}, {exponent[1]:g}] (±0.1)"
        band = Band(exponent[0] - EXPONENT_TOLERANCE, exponent[1] + EXPONENT_TOLERANCE)
    elif upper:
        wording, band = f"exponent ≤ {exponent:g}", upper_band(exponent)
    else:
        wording, band = f"exponent {exponent:g} (±0.1)", exponent_band(exponent)
    return Law(
        name=f"{STUDY}.{name}",
        study=STUDY,
        claim=claim,
        citation=f"{Y24} {citation}",
        conditions=f"theory init (a = ±1 fixed, s0 = c0/√(Lm), s1 = c1/√m1); {conditions}",
        prediction_text=f"{wording} of {measure.metric} vs {x}",
        measure=measure,
        x=x,
        predict=constant(wording, band, f"{Y24} {citation}"),
        kind=extra.pop("kind", PowerLaw()),
        group_by=group_by,
        row_filter=theory_init,
        regime=extra.pop("regime", CONDITION_1),
        rule=EXPONENT_RULE,
        **extra,
    )


# Pooled where a sweep varies η with its steps at one flow horizon η·steps (the c1 sweep): the laws read flow times
FLOW_HORIZON = ("lr", "steps")

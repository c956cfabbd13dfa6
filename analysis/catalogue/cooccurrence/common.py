"""What the laws of seed 003 share: the citation, the phase windows, the verdict rules. Yang, Kailkhura, Wang,
Liang, "Training Dynamics of Transformers to Recognize Word Co-occurrence via Gradient Flow Analysis",
NeurIPS 2024 (arXiv 2410.09605), cited as [Y24]. Spec: shared/specs/seed-003.md §5.5, §6, §8."""

from __future__ import annotations

from analysis.flow_measures import Window
from analysis.law import Regime
from analysis.verdict import INSIDE, Band, VerdictRule

Y24 = "Yang et al. 2024 [Y24] (NeurIPS 2024, arXiv 2410.09605)"
STUDY = "cooccurrence"

# Phase 2 starts at T1, the first record with every training sample correct (spec §7.4; [Y24] Thm 3.1)
PHASE2 = Window("min_margin", 0.0, below=False, factor=1.0)
# the 1/t law is fitted from 2·T1 on (spec §5.5 C8: "t ∈ [2 T1, t_end]")
LATE_PHASE2 = Window("min_margin", 0.0, below=False, factor=2.0)

EXPONENT_RULE = VerdictRule(max_interval_width=0.3)  # 0.3 wide at most: not from the paper
# [Y24]'s rates are Θ̃/Õ (log factors hidden) and T1 is read on a grid of records: an exponent p is judged
# against [p − 0.1, p + 0.1] (the 0.1 is this tool's tolerance, not from the paper)
EXPONENT_TOLERANCE = 0.1


def exponent_band(p: float) -> Band:
    return Band(p - EXPONENT_TOLERANCE, p + EXPONENT_TOLERANCE)


# a claim said to hold throughout Phase 2, read as "on at least 95% of its records for every seed"; 95% is
# this tool's allowance (not from the paper) for the records right after T1, before Def. F.1 is reached
THROUGHOUT = 0.95
FRACTION_RULE = VerdictRule(mode=INSIDE, min_levels=1, min_points=3)

CONDITION_1 = Regime(
    "Condition 1: m ≥ m1 and m ≥ L² (the theory's width regime; the log factors are not checked)",
    inside=lambda rows: (
        (rows["m"].astype(float) >= rows["m1"].astype(float))
        & (rows["m"].astype(float) >= rows["L"].astype(float) ** 2)
    ),
)


def theory_init(runs):
    """Runs with the theory's initialisation (N(0, s0²), N(0, s1²), a = ±1 fixed): the paper's analysis."""
    return runs[(runs["init"] == "theory") & (runs["readout"] == "pm1_fixed")]

"""[Y24] Figure 1's Phase-1 claims as laws, per setting: attention is still in Phase 1 (C7; Thm 3.1, E.28) and
starts moving only after T1 (our T_attn), and the one-target-token losses rise and then fall before T1
(C5; Lemmas 4.2–4.3), at a time T_0.5 ≤ O(1/m). Each run's number is computed from its curves by
iclscale.papers.cooccurrence.laws.phases (criteria (1) and (2)). The laws judge the theory's init inside the
proofs' conditions (Condition 1, Lemma D.8's |F(0)| ≤ 0.01, for Phase 2 Def. F.1's readout bound), measured per run;
Figure 1's own runs (every init preset at App. A's settings, m < m1, |F(0)| ≈ 2) are the claims' `Experiment`."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from iclscale.analysis.kinds import Bound
from iclscale.analysis.law import STRONGER, Law, VersusPrinted
from iclscale.analysis.measures import Measure
from iclscale.analysis.verdict import Band
from iclscale.papers.cooccurrence.laws.common import (
    FRACTION_RULE,
    STUDY,
    THEORY_SETTING,
    THEORY_SETTING_PHASE_2,
    Y24,
    constant,
    theory_exponent_law,
)
from iclscale.papers.cooccurrence.laws.phases import ATTENTION_ONSET, STILLNESS, figure1_criteria, wide

SETTING = ("init", "readout", "m", "m1", "c0", "c1", "lr")
# [Y24] Thm E.28 bounds attention's change on [0, T1] by Õ(m^(−3/2)(1/L + 1/√m)): small as m grows, with no constant
FIXED_SHARE = VersusPrinted(
    STRONGER,
    "Thm E.28 bounds attention's Phase-1 change by Õ(m^(−3/2)(1/L + 1/√m)), small as m grows (its constant and log "
    f"factors unstated); these laws ask, at the sweep's own m, a fixed share of the run's change: < {STILLNESS:.0%} by "
    f"T1, or none reaching {ATTENTION_ONSET:.0%} before T1",
)


@dataclass(frozen=True)
class Figure1Criterion(Measure):
    """One number of `phases.figure1_criteria` per run (metric names it); censored where T1 is never reached."""

    text: str = ""

    def describe(self) -> str:
        return self.text

    def per_run(self, results, rows):
        values = []
        for run_id in rows["run_id"].unique():
            found = figure1_criteria(wide(results.curves, run_id))
            values.append({"run_id": run_id, "eval_key": "", "value": found.get(self.metric, float("nan"))})
        out = pd.DataFrame(values, columns=["run_id", "eval_key", "value"])
        out["censored"] = out["value"].isna()
        return self._join(rows, out.assign(left_censored=False))


PHASE1_STILLNESS = Law(
    name=f"{STUDY}.phase1_attention_still",
    study=STUDY,
    claim="attention hardly moves in Phase 1: max|ΔA_ij| (μ1, μ2, μ3) by T1 is a small share of its final size",
    citation=f"{Y24} Thm 3.1, Thm E.28; Figure 1a",
    conditions=f"the theory's init inside Condition 1 with |F(0)| ≤ 0.01 (Lemma D.8: Thm E.28 is proved there; other "
    f"inits are Figure 1's experiment); share = max over [0, T1] of max_ij |ΔA_ij| / its maximum over the run; "
    f"'small' is {STILLNESS:.0%} (not from the paper)",
    prediction_text=f"share < {STILLNESS:g} on every seed",
    measure=Figure1Criterion("phase1_score_share", text="max|ΔA| on [0, T1] / max|ΔA| over the run"),
    x=None,
    # [Y24] Thm E.28: |Δ νᵀW_KᵀW_Qμ| ≤ Õ(m^(−3/2)(1/L + 1/√m)) on [0, T1], while Phase 2 moves it by Θ(C12)
    predict=constant(f"< {STILLNESS:g}", Band(0.0, STILLNESS), f"{Y24} Thm E.28"),
    kind=Bound(aggregate="max", statistic_text="seed-mean share of the score change done by T1"),
    group_by=SETTING,
    regime=THEORY_SETTING,
    rule=FRACTION_RULE,
    versus_printed=FIXED_SHARE,
)

LOSS_PEAKS_IN_PHASE1 = Law(
    name=f"{STUDY}.one_target_losses_peak_before_T1",
    study=STUDY,
    claim="the type-2 and type-3 losses (one target token) rise first and peak before T1",
    citation=f"{Y24} Lemmas 4.2–4.3; Figure 1b",
    conditions="the theory's init inside Condition 1 with |F(0)| ≤ 0.01 (Lemmas 4.2–4.3 need a small F(0): Lemma "
    "D.8); holds = both losses have their maximum strictly inside (0, T1)",
    prediction_text="on every seed",
    measure=Figure1Criterion("peaks_inside_phase1", text="1 if both type-2/3 losses peak inside (0, T1), else 0"),
    x=None,
    # [Y24] Lemma 4.2: Ġ3 ≈ 0 early, so the type-2/3 margins G1 + G3, G2 + G3 first fall; Lemma 4.3: then rise
    predict=constant("1 (both peak inside Phase 1)", Band(1.0, 1.0), f"{Y24} Lemmas 4.2–4.3"),
    kind=Bound(aggregate="min", statistic_text="share of seeds whose type-2/3 losses peak inside (0, T1)"),
    group_by=SETTING,
    regime=THEORY_SETTING,
    rule=FRACTION_RULE,
)

ATTENTION_AFTER_T1 = Law(
    name=f"{STUDY}.attention_moves_after_T1",
    study=STUDY,
    claim="the phases are separate: attention starts moving only after Phase 1 ends (T_attn > T1)",
    citation=f"{Y24} Thm 3.1 / E.28 (attention still on [0, T1]), Thm 3.2 (it moves in Phase 2)",
    conditions="the theory's init inside Condition 1, Lemma D.8 and Def. F.1 (Thm 3.2's Phase 2); T_attn = the first "
    f"t with max_ij |ΔA_ij| (μ1, μ2, μ3) ≥ {ATTENTION_ONSET:g} × its run "
    f"maximum (ε = {ATTENTION_ONSET:g}, not from the paper)",
    prediction_text="T_attn / T1 > 1 on every seed",
    measure=Figure1Criterion("attention_separation", text="T_attn / T1"),
    x=None,
    predict=constant("> 1", Band(1.0, float("inf")), f"{Y24} Thm E.28"),
    kind=Bound(aggregate="min", statistic_text="seed-mean of T_attn / T1"),
    group_by=SETTING,
    regime=THEORY_SETTING_PHASE_2,
    rule=FRACTION_RULE,
    versus_printed=FIXED_SHARE,
)

# [Y24] Lemma 4.3 / Thm E.19: the type-2/3 losses turn at T_0.5 ≤ O(1/m) (claim C5: T_0.5 vs m, exponent ≈ −1)
PEAK_TIME_VS_M = theory_exponent_law(
    "one_target_loss_peak_vs_m",
    "the type-2 loss (μ1 only) peaks at T_0.5 ≤ O(1/m), when −Ġ3 overtakes Ġ1",
    "Lemma 4.3, Thm E.19 (T_0.5 ≤ T1 = C_T1/(σ1² m m1))",
    "T_0.5 = the t of the largest type-2 loss (type 3 is its mirror image); exponent −1 as T1's (ours: T_0.5 ≤ T1)",
    Figure1Criterion("T_peak_type2", text="t at which the type-2 loss is largest"),
    "m",
    -1.0,
    ("c0", "c1", "m1", "lr"),
)

LAWS = (PHASE1_STILLNESS, LOSS_PEAKS_IN_PHASE1, ATTENTION_AFTER_T1, PEAK_TIME_VS_M)

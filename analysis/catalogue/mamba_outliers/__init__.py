"""The laws of seed 002, [LM25]: Li, Lu, Cui, Chen, Wang, "Can Mamba Learn In Context with Outliers? A Theoretical
Generalization Analysis" (arXiv 2510.00399, 2025). Spec: shared/specs/seed-002.md §6.7 (L1–L15) and §9. Every
claim of the paper, the laws that test it (empty where no law is written yet), and the report's sections (Table 1,
Figures 3–6)."""

from analysis.catalogue.mamba_outliers import (
    batch,
    dynamics,
    fig2,
    iterations,
    magnitude,
    mechanism,
    table1,
    thresholds,
    windows,
)
from analysis.catalogue.mamba_outliers.common import STUDY
from analysis.catalogue.mamba_outliers.figures3_6_section import figures3_6_section
from analysis.catalogue.mamba_outliers.table1_section import table1_section
from analysis.law import Claim

S = f"{STUDY}."
BOTH = ("", "_trained_tasks")
LAYERS3 = ("_3layer_l1", "_3layer_l2", "_3layer_l3")


def _named(*names: str) -> tuple[str, ...]:
    return tuple(S + name for name in names)


CLAIMS = (
    Claim("L1", "Thm 1, Eq. 9", "Mamba: T_M ∝ η^(−1) β^(−2) M1 (1 − p_a)^(−1), independent of l_tr",
          _named("mamba_T_vs_lr", "mamba_T_vs_beta", "mamba_T_vs_M1", "mamba_T_vs_p_a", "mamba_T_vs_l_tr")),
    Claim("L2", "Thm 3, Eq. 14", "LT: T_T ∝ η^(−1) β^(−2) M1 (1 − p_a)^(−1) l_tr^(−1)",
          _named("lt_T_vs_lr", "lt_T_vs_beta", "lt_T_vs_M1", "lt_T_vs_p_a", "lt_T_vs_l_tr")),
    Claim("L3", "Thm 1 vs Thm 3, Remark 4", "T_M / T_T ∝ l_tr", _named("T_ratio_vs_l_tr")),
    Claim("L4", "Thm 2, Eq. 10", "Mamba's error ≤ ε for α < min(1, p_a·l_tr/l_ts): a threshold at "
          "r = α·l_ts/(p_a·l_tr) = 1",
          _named(*(f"mamba_threshold_theorem2{s}" for s in BOTH), *(f"mamba_threshold_r{s}" for s in BOTH))),
    Claim("L5", "Thm 4", "the LT's error ≤ ε iff α < 1/2 (with l_ts ≳ (1/2 − α)^(−2) α log M1)",
          _named(*(f"lt_threshold_half{s}" for s in BOTH))),
    Claim("L6", "Thm 4, Eq. 79", "the LT's error ≤ exp(−l_ts(1/2 − α)²α)",
          _named(*(f"lt_error_tail_bound{s}" for s in BOTH))),
    Claim("L7", "Thm 2 (d), Eq. 12; Thm 4 (d), Eq. 15", "test prompts long enough: l_ts ≳ (1 − α)^(−1) log M1 (Mamba), "
          "≳ (1/2 − α)^(−2) α log M1 (LT)", _named(*(f"{m}_l_ts_threshold{s}" for m in ("mamba", "lt") for s in BOTH))),
    Claim("L8", "Cor. 2 (i), Eq. 17; Figs. 4, 6", "outlier gates ≤ poly(M1)^(−1)",
          _named(*(f"outlier_gate_small{s}" for s in ("", *LAYERS3)),
                 *(f"outlier_gate_small_chmean{s}" for s in LAYERS3))),
    Claim("L9", "Cor. 2 (ii), Eq. 18; Figs. 4, 6", "clean gates decay by at most 1/2 per position: G_{h(j)} ≥ "
          "Θ(2^(−(j−1)))", _named(*(f"clean_gate_decay_at_most_half{s}" for s in ("", *LAYERS3)))),
    Claim("L10", "Cor. 1, Eq. 16; Figs. 3, 5", "attention concentrates on same-pattern demonstrations, the gap "
          "grows in training", _named(*(f"attention_{p}_pattern{s}" for s in ("", *LAYERS3) for p in ("same", "other")),
                             *(f"attention_gap_{k}{s}" for s in LAYERS3 for k in ("grows", "trend")))),
    Claim("L11", "Thm 2 (b)", "Mamba: test outliers κ_a ≤ κ_a' ≲ Θ(Vβ p_a^(−1) κ_a^(−1) L^(−1) (1 − p_a) ε^(−1))",
          _named(*(f"mamba_kappa_test_window{s}" for s in BOTH))),
    Claim("L12", "Thm 1 (i); spec L4",
          "Mamba's batch size B_M = max{B_T, β^(−4)V²κ_a^(−2)(1 − p_a)^(−2) log ε^(−1)} suffices",
          _named("mamba_batch_vs_kappa_a", "mamba_batch_vs_p_a")),
    Claim("L13", "Thm 3 (i), §3.3; spec L5",
          "the LT's batch size B_T = max{ε^(−2), M1(1 − p_a)^(−1)} log ε^(−1) suffices",
          _named("lt_batch_vs_M1", "lt_batch_vs_p_a")),
    Claim("L14", "Thm 1 (ii), Remark 1; spec L12, L13",
          "Mamba needs Vβ^(−4) ≲ κ_a ≲ Vβ(1 − p_a)p_a^(−1)ε^(−1): outliers neither too small to be gated nor so large "
          "they drown the patterns", _named("mamba_kappa_a_lower_bound", "mamba_kappa_a_upper_bound")),
    Claim("F2", "§4.1, Fig. 2", "one-layer Mamba < 1 % error up to α ≈ 0.8; the LT fails for α > 1/2; Mamba below "
          "the LT", _named(*(f"fig2_mamba_below_1pct{s}" for s in BOTH), "fig2_mamba_beats_lt")),
    Claim("T1", "§4.2, Table 1", "3-layer Mamba 99.84 / 99.04 / 73.28 % (FQ / R / CQ), LT ≈ 78.5 % everywhere",
          _named("table1_mamba_fq_above_r", "table1_mamba_r_above_cq", "table1_lt_flat_across_placements",
                 "table1_mamba_levels", "table1_lt_levels")),
    Claim("L15", "Thm 4 (b)", "the LT: test outliers κ_a' ≲ Θ(Vβ p_a^(−1) (1 − p_a) κ_a^(−1) L^(−1) l_tr ε^(−1)), no "
          "lower end", _named(*(f"lt_kappa_test_window{s}" for s in BOTH))),
    Claim("L16", "Thm 2 (a), Eq. 11", "Mamba generalises to any outlier v = Σλ_s v*_s, ‖v‖ = 1, Σλ ≥ L > 0",
          _named(*(f"mamba_arbitrary_outliers_sum_L{s}" for s in BOTH))),
    Claim("L17", "Thm 2 (d), Eq. 12; Remark 3", "Mamba: l_ts ≲ α^(−1) poly(M1^κ_a), at most poly(M1^κ_a) outliers "
          "per prompt", _named(*(f"mamba_l_ts_window{s}" for s in BOTH))),
    Claim("L18", "Thm 1 (iii), Eq. 8; Thm 3 (iii)", "training prompts: (1 − p_a)^(−1) log M1 ≲ l_tr ≲ p_a^(−1) "
          "poly(M1^κ_a) (Mamba), no upper end (LT)", _named("mamba_l_tr_window", "lt_l_tr_window")),
    Claim("L19", "Lemma 3, Eq. 25", "W_B, W_C do not move on pairs that form no training task (the gap-2 pairs)",
          _named("lemma3_gap2_W_B_does_not_move", "lemma3_gap2_W_C_does_not_move")),
    Claim("L20", "Lemmas 3–5, Eqs. 23, 26, 33, 34, 37, 38", "W_B, W_C grow on μ_j and shrink on training pairs; "
          "the gate weight falls on v*_s and μ_j; outliers end at wᵀp ≲ −log M1, clean demonstrations ≳ −Θ(1)",
          _named(*(f"lemma3_{m}_{k}" for m in ("W_B", "W_C") for k in ("diagonal_grows", "training_pairs_fall")),
                 "lemma4_gate_weight_on_outliers_falls", "lemma4_gate_weight_on_patterns_falls",
                 "lemma5_gate_outlier", "lemma5_gate_clean")),
    Claim("L21", "Remark 4; Thm 1 (i) vs Thm 3 (i)", "the LT needs a smaller batch than Mamba (B_T ≤ B_M)",
          _named("lt_batch_not_above_mamba")),
)  # fmt: skip

LAWS = (
    *fig2.LAWS,
    *iterations.LAWS,
    *batch.LAWS,
    *thresholds.LAWS,
    *magnitude.LAWS,
    *mechanism.LAWS,
    *table1.LAWS,
    *dynamics.LAWS,
    *windows.LAWS,
)
SECTIONS = (table1_section, figures3_6_section)

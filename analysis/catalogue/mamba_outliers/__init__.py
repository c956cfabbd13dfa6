"""The laws of seed 002, [LM25]: Li, Lu, Cui, Chen, Wang, "Can Mamba Learn In Context with Outliers? A Theoretical
Generalization Analysis" (arXiv 2510.00399, 2025). Spec: shared/specs/seed-002.md §6.7 (L1–L15) and §9. Every
claim of the paper, the laws that test it (empty where no law is written yet), and Table 1's report section."""

from analysis.catalogue.mamba_outliers import fig2, iterations
from analysis.catalogue.mamba_outliers.common import STUDY
from analysis.catalogue.mamba_outliers.table1_section import table1_section
from analysis.law import Claim

S = f"{STUDY}."
CLAIMS = (
    Claim("L1", "Thm 1, Eq. 8", "Mamba: T_M ∝ η^(−1) β^(−2) M1 (1 − p_a)^(−1), independent of l_tr",
          (S + "mamba_T_vs_l_tr",)),
    Claim("L2", "Thm 3, Eq. 14", "LT: T_T ∝ l_tr^(−1) (and η^(−1) β^(−2) M1 (1 − p_a)^(−1))", (S + "lt_T_vs_l_tr",)),
    Claim("L3", "Thm 1 vs Thm 3, Remark 3", "T_M / T_T ∝ l_tr", ()),
    Claim("L4", "Thm 2, Eq. 10", "Mamba's error ≤ ε for α < min(1, p_a·l_tr/l_ts)",
          (S + "mamba_threshold_theorem2", S + "mamba_threshold_theorem2_trained_tasks")),
    Claim("L5", "Thm 4", "the LT's error ≤ ε iff α < 1/2 (with l_ts ≳ (1/2 − α)^(−2) α log M1)",
          (S + "lt_threshold_half", S + "lt_threshold_half_trained_tasks")),
    Claim("L6", "Thm 4, Eq. 15", "the LT's error ≤ exp(−l_ts(1/2 − α)²α)", ()),
    Claim("L7", "Cor. 2 (i), Eq. 17", "outlier gates ≤ poly(M1)^(−1)", ()),
    Claim("L8", "Cor. 2 (ii), Eq. 18", "clean gates decay by at least 1/2 per position: G_{h(j)} ≥ Θ(2^(−(j−1)))", ()),
    Claim("L9", "Cor. 1; Figs. 3, 5", "attention concentrates on same-pattern demonstrations", ()),
    Claim("L10", "Thm 2 (b)", "test outliers up to κ_a' ≲ Θ(Vβ p_a^(−1) κ_a^(−1) L^(−1) (1 − p_a) ε^(−1))", ()),
    Claim("F2", "§4.1, Fig. 2", "one-layer Mamba < 1 % error up to α ≈ 0.8; the LT fails for α > 1/2; Mamba below "
          "the LT", (S + "fig2_mamba_below_1pct", S + "fig2_mamba_below_1pct_trained_tasks",
                     S + "fig2_mamba_beats_lt")),
    Claim("T1", "§4.2, Table 1", "3-layer Mamba 99.84 / 99.04 / 73.28 % (FQ / R / CQ), LT ≈ 78.5 % everywhere",
          ()),
)  # fmt: skip

LAWS = (*fig2.LAWS, *iterations.LAWS)
SECTIONS = (table1_section,)

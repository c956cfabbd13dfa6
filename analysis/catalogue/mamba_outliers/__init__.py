"""The laws of seed 002, [LM25]: Li, Lu, Cui, Chen, Wang, "Can Mamba Learn In Context with Outliers? A Theoretical
Generalization Analysis" (arXiv 2510.00399, 2025). Spec: shared/specs/seed-002.md §6.7 (L1–L15) and §9. Every
claim of the paper, the laws that test it (empty where no law is written yet), and the report's sections (Table 1,
Figures 3–6)."""

from analysis.catalogue.mamba_outliers import batch, fig2, iterations, magnitude, mechanism, thresholds
from analysis.catalogue.mamba_outliers.common import STUDY
from analysis.catalogue.mamba_outliers.figures3_6_section import figures3_6_section
from analysis.catalogue.mamba_outliers.table1_section import table1_section
from analysis.catalogue.mamba_outliers.versus_printed import labelled
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
    Claim("L11", "Thm 2 (b)", "test outliers up to κ_a' ≲ Θ(Vβ p_a^(−1) κ_a^(−1) L^(−1) (1 − p_a) ε^(−1))", ()),
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
          ()),
)  # fmt: skip

LAWS = labelled((*fig2.LAWS, *iterations.LAWS, *batch.LAWS, *thresholds.LAWS, *magnitude.LAWS, *mechanism.LAWS))
SECTIONS = (table1_section, figures3_6_section)

# The negative controls' config (analysis.controls): trained inside Thms 1/3 (B ≥ B_M ≈ 1.3·10⁵ at the smallest κ_a,
# Vβ⁻⁴ ≤ κ_a ≤ Vβ(1 − p_a)/(p_a ε), l_tr ≥ ln M1/(1 − p_a) up to p_a = 0.97) and tested inside Thm 2 (b), (d)
# (κ_a′ ≥ κ_a, l_ts ≥ (1 − α)^(−1) ln M1 up to α = 0.9), constants 1; a tuple is a param's levels, its first the
# value where the param is not swept
CONTROL_CONFIG = {
    STUDY: {
        "M1": (6, 3, 4, 8, 12, 16, 32, 64),
        "M2": 10,
        "V": 3,
        "d": 30,
        "l_tr": (80, 5, 10, 20, 40, 160),
        "batch_size": 200000,
        "steps": 1000,
        "lr": (0.1, 0.01, 0.02, 0.05, 0.2, 0.5),
        "p_a": (0.6, 0.0, 0.3, 0.5, 0.8, 0.9, 0.95, 0.97),
        "beta": (3.0, 1.0, 1.5, 2.0, 4.0, 6.0, 10.0),
        "kappa_a": (4.0, 0.5, 1.0, 2.0, 8.0, 16.0),
        "kappa_a_test": 5000.0,
        "alpha": (0.1, 0.2, 0.25, 0.35, 0.4, 0.45, 0.55, 0.7, 0.9),
        "l_ts": 40,
        "label_mode": "flip",
        "placement": "bernoulli",
        "step": (0, 100, 200, 300, 400, 500, 600),
    }
}

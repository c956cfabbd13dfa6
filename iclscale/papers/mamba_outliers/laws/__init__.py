"""The laws of seed 002, [LM25]: Li, Lu, Cui, Chen, Wang, "Can Mamba Learn In Context with Outliers? A Theoretical
Generalization Analysis" (arXiv 2510.00399, 2025). Every claim of the paper, the laws that test it (empty where no
law is written yet), and the report's sections (Table 1, Figures 3–6)."""

from iclscale.analysis.derived import DerivedVariable
from iclscale.analysis.law import Claim, Experiment, with_diagnoses
from iclscale.paper_laws import PaperLaws, Smoke
from iclscale.papers.mamba_outliers.laws import (
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
from iclscale.papers.mamba_outliers.laws.common import STUDY, named
from iclscale.papers.mamba_outliers.laws.diagnoses import DIAGNOSES
from iclscale.papers.mamba_outliers.laws.figures3_6_section import figures3_6_section
from iclscale.papers.mamba_outliers.laws.table1_section import table1_section
from iclscale.papers.mamba_outliers.laws.versus_printed import labelled

BOTH = ("", "_trained_tasks")
LAYERS3 = ("_3layer_l1", "_3layer_l2", "_3layer_l3")


# The paper's figures and table as the paper ran them (sweeps at its stated settings; each file's header lists what it
# does not state), judged on every point whatever the theorems' conditions, beside the claims' laws; the paper's words
MECHANISM = "mamba_outliers_fig3_6_mechanism"
FIG2 = Experiment(
    "Fig. 2",
    "mamba_outliers_fig2_alpha",
    named("fig2_mamba_below_1pct", "fig2_mamba_below_1pct_trained_tasks", "fig2_mamba_beats_lt"),
    "Figure 2 shows that under three different forms of outliers, the classification error of Mamba is smaller than "
    "0.01 … even when α … is close to 0.8. In contrast, the classification error of linear Transformers is large as "
    "long as",
)
TABLE1 = Experiment(
    "Table 1",
    "mamba_outliers_table1_placement",
    named(
        "table1_mamba_fq_above_r",
        "table1_mamba_r_above_cq",
        "table1_lt_flat_across_placements",
        "table1_mamba_levels",
        "table1_lt_levels",
    ),
    "We find that Mamba is highly sensitive to the position of outliers, whereas the linear Transformer (LT) is much "
    "less affected.",
)
FIG4_OUTLIERS = Experiment(
    "Figs. 4, 6",
    MECHANISM,
    named(*(f"outlier_gate_small{s}" for s in LAYERS3)),
    "Figure 4 shows that the first-layer gating values with … of outlier-containing examples are very small (red bars)",
)
FIG4_CLEAN = Experiment(
    "Figs. 4, 6",
    MECHANISM,
    named(*(f"clean_gate_decay_at_most_half{s}" for s in LAYERS3)),
    "while those of clean examples are relatively large and exhibit an approximately exponential decay with "
    "increasing distance from the query (green bars)",
)
FIG3_ATTENTION = Experiment(
    "Figs. 3, 5",
    MECHANISM,
    named(*(f"attention_{k}{s}" for s in LAYERS3 for k in ("same_pattern", "other_pattern", "gap_grows"))),
    "The sum of attention scores on the examples that share the same pattern as the query is significantly larger "
    "than that on examples with other patterns, and this gap increases during training.",
)

_CLAIMS = (
    Claim("L1", "Thm 1, Eq. 9", "Mamba: T_M ∝ η^(−1) β^(−2) M1 (1 − p_a)^(−1), independent of l_tr",
          named("mamba_T_vs_lr", "mamba_T_vs_beta", "mamba_T_vs_M1", "mamba_T_vs_p_a", "mamba_T_vs_l_tr")),
    Claim("L2", "Thm 3, Eq. 14", "LT: T_T ∝ η^(−1) β^(−2) M1 (1 − p_a)^(−1) l_tr^(−1)",
          named("lt_T_vs_lr", "lt_T_vs_beta", "lt_T_vs_M1", "lt_T_vs_p_a", "lt_T_vs_l_tr")),
    Claim("L3", "Thm 1 vs Thm 3, Remark 4", "T_M / T_T ∝ l_tr", named("T_ratio_vs_l_tr")),
    Claim("L4", "Thm 2, Eq. 10", "Mamba's error ≤ ε for α < min(1, p_a·l_tr/l_ts): a threshold at "
          "r = α·l_ts/(p_a·l_tr) = 1",
          named(*(f"mamba_threshold_theorem2{s}" for s in BOTH), *(f"mamba_threshold_r{s}" for s in BOTH))),
    Claim("L5", "Thm 4", "the LT's error ≤ ε iff α < 1/2 (with l_ts ≳ (1/2 − α)^(−2) α log M1)",
          named(*(f"lt_threshold_half{s}" for s in BOTH))),
    Claim("L6", "Thm 4, Eq. 79", "the LT's error ≤ exp(−l_ts(1/2 − α)²α)",
          named(*(f"lt_error_tail_bound{s}" for s in BOTH))),
    Claim("L7", "Thm 2 (d), Eq. 12; Thm 4 (d), Eq. 15", "test prompts long enough: l_ts ≳ (1 − α)^(−1) log M1 (Mamba), "
          "≳ (1/2 − α)^(−2) α log M1 (LT)", named(*(f"{m}_l_ts_threshold{s}" for m in ("mamba", "lt") for s in BOTH))),
    Claim("L8", "Cor. 2 (i), Eq. 17; Figs. 4, 6", "outlier gates ≤ poly(M1)^(−1)",
          named(*(f"outlier_gate_small{s}" for s in ("", *LAYERS3)),
                 *(f"outlier_gate_small_chmean{s}" for s in LAYERS3)), experiment=FIG4_OUTLIERS),
    Claim("L9", "Cor. 2 (ii), Eq. 18; Figs. 4, 6", "clean gates decay by at most 1/2 per position: G_{h(j)} ≥ "
          "Θ(2^(−(j−1)))", named(*(f"clean_gate_decay_at_most_half{s}" for s in ("", *LAYERS3))),
          experiment=FIG4_CLEAN),
    Claim("L10", "Cor. 1, Eq. 16; Figs. 3, 5", "attention concentrates on same-pattern demonstrations, the gap "
          "grows in training", named(*(f"attention_{p}_pattern{s}" for s in ("", *LAYERS3) for p in ("same", "other")),
                             *(f"attention_gap_{k}{s}" for s in LAYERS3 for k in ("grows", "trend"))),
          experiment=FIG3_ATTENTION),
    Claim("L11", "Thm 2 (b)", "Mamba: test outliers κ_a ≤ κ_a' ≲ Θ(Vβ p_a^(−1) κ_a^(−1) L^(−1) (1 − p_a) ε^(−1))",
          named(*(f"mamba_kappa_test_window{s}" for s in BOTH))),
    Claim("L12", "Thm 1 (i)",
          "Mamba's batch size B_M = max{B_T, β^(−4)V²κ_a^(−2)(1 − p_a)^(−2) log ε^(−1)} suffices",
          named("mamba_batch_vs_kappa_a", "mamba_batch_vs_p_a")),
    Claim("L13", "Thm 3 (i), §3.3",
          "the LT's batch size B_T = max{ε^(−2), M1(1 − p_a)^(−1)} log ε^(−1) suffices",
          named("lt_batch_vs_M1", "lt_batch_vs_p_a")),
    Claim("L14", "Thm 1 (ii), Remark 1",
          "Mamba needs Vβ^(−4) ≲ κ_a ≲ Vβ(1 − p_a)p_a^(−1)ε^(−1): outliers neither too small to be gated nor so large "
          "they drown the patterns", named("mamba_kappa_a_lower_bound", "mamba_kappa_a_upper_bound")),
    Claim("F2", "§4.1, Fig. 2", "one-layer Mamba < 1 % error up to α ≈ 0.8; the LT fails for α > 1/2; Mamba below "
          "the LT", named(*(f"fig2_mamba_below_1pct{s}" for s in BOTH), "fig2_mamba_beats_lt"), experiment=FIG2),
    Claim("T1", "§4.2, Table 1", "3-layer Mamba 99.84 / 99.04 / 73.28 % (FQ / R / CQ), LT ≈ 78.5 % everywhere",
          named("table1_mamba_fq_above_r", "table1_mamba_r_above_cq", "table1_lt_flat_across_placements",
                 "table1_mamba_levels", "table1_lt_levels"), experiment=TABLE1),
    Claim("L15", "Thm 4 (b)", "the LT: test outliers κ_a' ≲ Θ(Vβ p_a^(−1) (1 − p_a) κ_a^(−1) L^(−1) l_tr ε^(−1)), no "
          "lower end", named(*(f"lt_kappa_test_window{s}" for s in BOTH))),
    Claim("L16", "Thm 2 (a), Eq. 11", "Mamba generalises to any outlier v = Σλ_s v*_s, ‖v‖ = 1, Σλ ≥ L > 0",
          named(*(f"mamba_arbitrary_outliers_sum_L{s}" for s in BOTH))),
    Claim("L17", "Thm 2 (d), Eq. 12; Remark 3", "Mamba: l_ts ≲ α^(−1) poly(M1^κ_a), at most poly(M1^κ_a) outliers "
          "per prompt", named(*(f"mamba_l_ts_window{s}" for s in BOTH))),
    Claim("L18", "Thm 1 (iii), Eq. 8; Thm 3 (iii)", "training prompts: (1 − p_a)^(−1) log M1 ≲ l_tr ≲ p_a^(−1) "
          "poly(M1^κ_a) (Mamba), no upper end (LT)", named("mamba_l_tr_window", "lt_l_tr_window")),
    Claim("L19", "Lemma 3, Eq. 25", "W_B, W_C do not move on pairs that form no training task (the gap-2 pairs)",
          named("lemma3_gap2_W_B_does_not_move", "lemma3_gap2_W_C_does_not_move")),
    Claim("L20", "Lemmas 3–5, Eqs. 23, 26, 33, 34, 37, 38", "W_B, W_C grow on μ_j and shrink on training pairs; "
          "the gate weight falls on v*_s and μ_j; outliers end at wᵀp ≲ −log M1, clean demonstrations ≳ −Θ(1)",
          named(*(f"lemma3_{m}_{k}" for m in ("W_B", "W_C") for k in ("diagonal_grows", "training_pairs_fall")),
                 "lemma4_gate_weight_on_outliers_falls", "lemma4_gate_weight_on_patterns_falls",
                 "lemma5_gate_outlier", "lemma5_gate_clean")),
    Claim("L21", "Remark 4; Thm 1 (i) vs Thm 3 (i)", "the LT needs a smaller batch than Mamba (B_T ≤ B_M)",
          named("lt_batch_not_above_mamba")),
)  # fmt: skip


PAPER_LAWS = PaperLaws(
    claims=with_diagnoses(_CLAIMS, DIAGNOSES),
    laws=labelled(
        (
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
    ),
    sections=(table1_section, figures3_6_section),
    derived={
        # r := α·l_ts/(p_a·l_tr): [LM25] Thm 2 (c)'s α < min(1, p_a·l_tr/l_ts) is r < 1 (α < 1 throughout)
        "outlier_ratio": DerivedVariable(
            "outlier_ratio", "r", {"alpha": 1, "l_ts": 1, "p_a": -1, "l_tr": -1}, "r = α·l_ts/(p_a·l_tr) ([LM25] Thm 2)"
        ),
    },
    # The negative controls' config (iclscale.analysis.controls): trained inside Thms 1/3 (B ≥ B_M ≈ 1.3·10⁵ at the
    # smallest κ_a, Vβ⁻⁴ ≤ κ_a ≤ Vβ(1 − p_a)/(p_a ε), l_tr ≥ ln M1/(1 − p_a) up to p_a = 0.97) and tested inside
    # Thm 2 (b), (d) (κ_a′ ≥ κ_a, l_ts ≥ (1 − α)^(−1) ln M1 up to α = 0.9), constants 1; a tuple is a param's levels,
    # its first the value where the param is not swept
    control_config={
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
            "outlier_set": "unseen",
            "outlier_sum": 0.3,
            "placement": "bernoulli",
            "step": (0, 100, 200, 300, 400, 500, 600),
        }
    },
    smoke={  # a pack of three configs that trains in seconds; they differ in train-role params, as in a sweep
        STUDY: Smoke(
            {"steps": 8, "eval_prompts": 32, "batch_size": 8, "l_tr": 8, "l_ts": 8, "alpha": 0.3},
            ({"p_a": 0.4}, {"lr": 0.05, "beta": 2.0}, {"delta": 0.1}),
        ),
    },
)

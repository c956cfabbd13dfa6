"""The laws of seed 001, [LW23]: Li, Wang et al., "Transformers as Multi-Task Feature Selectors: Generalization
Analysis of In-Context Learning", M3L workshop at NeurIPS 2023. Spec: shared/specs/seed-001.md §5 (S1–S17).
Every claim of the paper and the laws that test it; claims with no law say why in their text."""

from analysis.catalogue.feature_selector import iterations, mechanism, ood
from analysis.catalogue.feature_selector.common import STUDY
from analysis.catalogue.feature_selector.figure1_section import figure1_section
from analysis.law import Claim

S = f"{STUDY}."
CLAIMS = (
    Claim(
        "S1",
        "Thm 1, Eq. 6",
        "T ∝ √M · λ_*⁻¹ · η⁻¹ (each factor at the others fixed)",
        (S + "T_vs_M", S + "T_vs_lambda_star", S + "T_vs_eta"),
    ),
    Claim("S1'", "App. A.1 (ω = 1/2, ηT = Θ(√M))", "η·T ∝ √M: at fixed η the same fit as T vs M", (S + "T_vs_M",)),
    Claim(
        "S2", "App. A.1, after Eq. 47", "attention-concentration time ≳ η⁻¹((1 − α)/α·M·M1)^(1/3)", (S + "T_att_vs_M",)
    ),
    Claim("S3", "Thm 1; §3.1", "samples N = B·T ∝ λ_*⁻¹", (S + "samples_vs_lambda_star",)),
    Claim(
        "S4",
        "Thm 1, Eq. 6",
        "T ∝ (1 − ε_m − τM1)^(−1/2); breakdown τ_crit ∝ 1/M1",
        (S + "T_vs_tau_curve", S + "tau_crit_vs_M1"),
    ),
    Claim(
        "S5",
        "Thm 1, Eq. 6 / 53",
        "T ∝ (1 − 1/(Cα))⁻¹: decreasing in α, blowing up as α → 1/C",
        (S + "T_vs_alpha", S + "T_vs_alpha_curve"),
    ),
    Claim("S6", "Thm 1, Eq. 5", "training prompt length l_tr ∝ 1/α", (S + "l_tr_vs_alpha",)),
    Claim(
        "S7",
        "Thm 2, Eq. 64",
        "test prompt length l_ts ≥ 2/α′ out of domain; the error against l_ts beside ½(1 − α′/2)^l_ts (spec §5)",
        (S + "l_ts_vs_alpha_test", S + "ood_error_vs_l_ts_rate", S + "ood_error_vs_l_ts_level"),
    ),
    Claim(
        "S8",
        "Prop. 1, Eq. 9",
        "1 − A_* = Θ(M^(−C)), C > 1, in domain",
        (S + "attention_concentrates", S + "attention_complement_vs_M"),
    ),
    Claim("S9", "Cor. 1, Eq. 12", "1 − A_* ≤ Θ(1/M) out of domain", (S + "ood_attention_concentrates",)),
    Claim(
        "S10",
        "Prop. 1, Eq. 7–8; Fig. 1a",
        "‖W_Q μ‖, ‖W_K μ‖ ≥ Θ(√log M) while ‖W_Q ν‖, ‖W_K ν‖ ≤ Θ(1)",
        (S + "wq_relevant_over_irrelevant", S + "wk_relevant_over_irrelevant"),
    ),
    Claim(
        "S11",
        "Prop. 2, Eq. 10; Fig. 1b",
        "the MLP decodes mainly from the label part (both splits)",
        (S + "mlp_label_over_feature_input_split", S + "mlp_label_over_feature_output_split"),
    ),
    Claim(
        "S12",
        "Lemma 3, Eq. 15–16",
        "lucky neurons' W_O change: feature/label ≈ λ_*",
        (S + "wo_feature_over_label_vs_lambda_star",),
    ),
    Claim(
        "S13",
        "Thm 1; Lemma 7",
        "width m ≥ ε_m⁻² M1² log N (the lucky-neuron count at init is recorded, not judged)",
        (S + "width_vs_M1",),
    ),
    Claim("S14", "Thm 1; Eq. 39", "batch B > Ω(M1 log M1)", (S + "batch_vs_M1",)),
    Claim("S15", "Lemma 1", "the training tasks must cover every μ_i as +1 and as −1", (S + "task_coverage",)),
    Claim(
        "S16",
        "Thm 2; Eq. 69–71",
        "zero OOD error, OOD hinge ≤ 1/M1 under Theorem 2's conditions",
        (S + "ood_zero_error", S + "ood_hinge_below_inverse_M1", S + "ood_hinge_vs_M1"),
    ),
    Claim(
        "S17",
        "Remark 1",
        "violating the conditions loses the guarantee (not proved to fail)",
        (S + "ood_conditions_violated",),
    ),
)

LAWS = (*iterations.LAWS, *mechanism.LAWS, *ood.LAWS)
SECTIONS = (figure1_section,)

# The negative controls' config (analysis.controls): inside Thm 1's conditions with constants 1 at every level
# (M1 ≤ 64: m ≥ 4·M1²·ln(B·steps) ≈ 2.2·10⁵, B ≥ M1 ln M1 ≈ 266, τ ≤ 1/M1, l_tr ≥ 2 ln M/α) and in the selection
# regime (the probe's in_regime = 1, a training hinge below the plateau's 0.8); a tuple is a param's levels, its
# first the value where not swept
CONTROL_CONFIG = {
    STUDY: {
        "d_x": 20,
        "M1": (4, 2, 3, 6, 8, 16, 32, 64),
        "M2": (16, 2, 4, 8, 32, 64, 128),
        "l_tr": 120,
        "batch_size": 300,
        "steps": 2000,
        "m": 250000,
        "lr": (2.5, 0.1, 0.25, 0.5, 1.0, 5.0),
        "alpha": (0.6, 0.1, 0.2, 0.3, 0.4, 0.8, 1.0),
        "beta": 2.0,
        "lambda_star": (0.5, 0.05, 0.1, 0.2, 0.3, 0.7, 1.0),
        "lambda_mode": "fixed",
        "tau": (0.01, 0.02, 0.05, 0.075, 0.1, 0.15),
        "n_train_tasks": 0,
        "domain": "id",
        "alpha_test": (0.6, 0.1, 0.2, 0.3, 0.4, 0.8, 1.0),
        "l_ts": (20, 2, 5, 10, 40, 80),
        "ood_relevant": "cone",
        "ood_label": "same",
        "in_regime": 1,
        "train_loss": 0.1,
    }
}

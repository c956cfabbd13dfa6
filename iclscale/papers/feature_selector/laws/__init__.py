"""The laws of seed 001, [LW23]: Li, Wang et al., "Transformers as Multi-Task Feature Selectors: Generalization
Analysis of In-Context Learning", M3L workshop at NeurIPS 2023. Claim ids S1–S17 are the catalogue's.
Every claim of the paper and the laws that test it; claims with no law say why in their text."""

from iclscale.analysis.derived import DerivedVariable
from iclscale.analysis.law import Claim, Diagnosis, Experiment
from iclscale.paper_laws import PaperLaws, Smoke
from iclscale.papers.feature_selector.laws import conditions, iterations, mechanism, ood
from iclscale.papers.feature_selector.laws.common import STUDY
from iclscale.papers.feature_selector.laws.figure1_section import figure1_section

S = f"{STUDY}."
# Diagnoses of what does not reproduce: numbers from the catalogue's sweeps at the study's defaults (its README.md)
T_SUFFICIENT = (
    "Thm 1's T is a number of iterations after which the error is zero, so the printed claim is the bound reading "
    "(the required T grows no faster than Eq. (6))"
)
NO_MATCH = (
    "in the paper's own model a demonstration shares the query's test-relevant pattern with probability α′/2, so a "
    "share (1 − α′/2)^l_ts of prompts has none ((3/4)⁴ ≈ 0.32 at α′ = 0.5, l_ts = 4 = 2/α′; a test computes it): no "
    "model "
    "can reach zero error on them"
)
# what the paper says of its only figure ([LW23] §3.4, after Prop. 2; its "Figure 3.4" is Figure 1); the paper
# states no setting for it: the sweep's header lists the values chosen (inside Thm 1's conditions)
FIGURE_1 = "Figure 3.4 verifies these two propositions with a one-layer Transformer defined in (2)"
_CLAIMS = (
    Claim(
        "S1",
        "Thm 1, Eq. 6",
        "T ∝ √M · λ_*⁻¹ · η⁻¹ (each factor at the others fixed)",
        (S + "T_vs_M", S + "T_vs_lambda_star", S + "T_vs_eta"),
        (
            Diagnosis(
                "reading",
                f"T falls with M ({{estimate:T_vs_M}}) instead of growing as √M; {T_SUFFICIENT}, which holds "
                "(exponent ≤ ½), while the tight reading fails.",
                (S + "T_vs_M",),
            ),
            Diagnosis(
                "paper",
                "T ∝ λ_*^({estimate:T_vs_lambda_star}), faster than the bound λ_*⁻¹: the proof of Lemma 4 (App. B.2, "
                "at "
                "Eq. (88)) uses log M1 ≤ δ²β², which Theorem 1 does not state (and App. B.4 uses log M1 ≥ δ²β²); "
                "here δ²β² = 0.04 < ln M1, and the plateau escape, set by the score margin δ²β²λ_*² at t = 0, gives "
                "−2.",
                (S + "T_vs_lambda_star",),
            ),
        ),
    ),
    Claim(
        "S1'",
        "App. A.1 (ω = 1/2, ηT = Θ(√M))",
        "η·T ∝ √M: at fixed η the same fit as T vs M",
        (S + "T_vs_M",),
        (Diagnosis("reading", f"the T vs M fit of S1 ({{estimate:T_vs_M}}): T falls with M; {T_SUFFICIENT}."),),
    ),
    Claim(
        "S2",
        "App. A.1, after Eq. 47",
        "attention-concentration time ≳ η⁻¹((1 − α)/α·M·M1)^(1/3)",
        (S + "T_att_vs_M",),
        (
            Diagnosis(
                "open",
                "the time to A_* ≥ 0.9 falls with M ({estimate:T_att_vs_M}) where the proof's lower bound grows as "
                "M^(1/3), as T itself falls (claim S1), inside Thm 1's conditions; not explained.",
            ),
        ),
    ),
    Claim(
        "S3",
        "Thm 1; §3.1",
        "samples N = B·T ∝ λ_*⁻¹",
        (S + "samples_vs_lambda_star",),
        (
            Diagnosis(
                "paper",
                "at a fixed B the exponent is T's ({estimate:samples_vs_lambda_star}): the proof's unstated "
                "log M1 ≤ δ²β² of S1.",
            ),
        ),
    ),
    Claim(
        "S4",
        "Thm 1, Eq. 6",
        "T ∝ (1 − ε_m − τM1)^(−1/2); breakdown τ_crit ∝ 1/M1",
        (S + "T_vs_tau_curve", S + "tau_crit_vs_M1"),
        (
            Diagnosis(
                "reading",
                "over four M1 (3 … 6, each at the width Thm 1 asks, which grows as M1²) τ_crit falls as M1^"
                "{estimate:tau_crit_vs_M1}, shallower than 1/M1 and not as a power law: training breaks down later "
                "than τ ≤ O(1/M1) promises, which Thm 1's sufficient condition allows; reading it as where training "
                "breaks down is ours (labelled stronger than printed).",
                (S + "tau_crit_vs_M1",),
            ),
            Diagnosis(
                "open",
                "the fitted (1 − e − τM1)^(−1/2) needs e = {estimate:T_vs_tau_curve} at M1 = 3 … 6, far outside "
                "ε_m ∈ [0, 1/2), inside the conditions: T does not rise as τM1 → 1 − ε_m; not explained.",
                (S + "T_vs_tau_curve",),
            ),
        ),
    ),
    Claim(
        "S5",
        "Thm 1, Eq. 6 / 53",
        "T ∝ (1 − 1/(Cα))⁻¹: decreasing in α, blowing up as α → 1/C",
        (S + "T_vs_alpha", S + "T_vs_alpha_curve"),
    ),
    Claim(
        "S6",
        "Thm 1, Eq. 5",
        "training prompt length l_tr ∝ 1/α",
        (S + "l_tr_vs_alpha",),
        (
            Diagnosis(
                "budget",
                "the required l_tr falls as α^({estimate:l_tr_vs_alpha}), near −1, but it is read on the l_tr grid, "
                "which rounds each seed's threshold up to the next grid value (at α = 0.3 most seeds sit at the "
                "grid's top, 32, the threshold lying in (24, 32]); the interval takes the grid values as exact, so "
                "it is too narrow and leans steep: a finer grid or a threshold search would decide.",
            ),
        ),
    ),
    Claim(
        "S7",
        "Thm 2, Eq. 64",
        "test prompt length l_ts ≥ 2/α′ out of domain; the error against l_ts beside ½(1 − α′/2)^l_ts (ours, Eq. 64)",
        (S + "l_ts_vs_alpha_test", S + "ood_error_vs_l_ts_rate", S + "ood_error_vs_l_ts_level"),
        (
            Diagnosis(
                "paper",
                f"the required l_ts for error ≤ 0.05 grows as α′^({{estimate:l_ts_vs_alpha_test}}), not −1: "
                f"{NO_MATCH}, so the "
                "l_ts needed for error ≤ ε is set by (1 − α′/2)^l_ts, not by 2/α′ (with coin flips on those prompts "
                "its exponent over α′ = 0.3–0.9 is −1.19).",
                (S + "l_ts_vs_alpha_test",),
            ),
            Diagnosis(
                "reading",
                "½(1 − α′/2)^l_ts is our curve from Eq. 64, not printed: the fitted decay rate matches α′/2 at every "
                "α′ (consistent), but the level lies above ½ and rises with α′ (at α′ = 0.9: "
                "{estimate:ood_error_vs_l_ts_level|alpha_test=0.9}): a prompt with no same-pattern demonstration is "
                "not a coin flip when it holds demonstrations of the partner pattern.",
                (S + "ood_error_vs_l_ts_level",),
            ),
        ),
    ),
    Claim(
        "S8",
        "Prop. 1, Eq. 9",
        "1 − A_* = Θ(M^(−C)), C > 1, in domain",
        (S + "attention_concentrates", S + "attention_complement_vs_M"),
        (
            Diagnosis(
                "regime",
                "Eq. (9) is a limit reached at rate O(1/T); at the sweep's fixed 2000 steps 1 − A_* is flat in M "
                "(exponent {estimate:attention_complement_vs_M}) at a level far below 1/M at every M (consistent).",
                (S + "attention_complement_vs_M",),
            ),
        ),
    ),
    Claim(
        "S9",
        "Cor. 1, Eq. 12",
        "1 − A_* ≤ Θ(1/M) out of domain",
        (S + "ood_attention_concentrates",),
        (
            Diagnosis(
                "open",
                "with Θ(1) = 1, 1 − A_* on OOD prompts meets 1/M at M1 = 3, 4 but grows with M1, where Cor. 1 has it "
                "fall, and exceeds 1/M at M1 = 6 with overlapping μ′ and at M1 = 8 with both "
                "({estimate:ood_attention_concentrates|M1=8}), inside the conditions; not explained.",
            ),
        ),
    ),
    Claim(
        "S10",
        "Prop. 1, Eq. 7–8; Fig. 1a",
        "‖W_Q μ‖, ‖W_K μ‖ ≥ Θ(√log M) while ‖W_Q ν‖, ‖W_K ν‖ ≤ Θ(1)",
        (S + "wq_relevant_over_irrelevant", S + "wk_relevant_over_irrelevant"),
        experiment=Experiment(
            "Fig. 1a",
            "feature_selector_fig1_mechanism",
            (S + "wq_relevant_over_irrelevant", S + "wk_relevant_over_irrelevant"),
            FIGURE_1,
        ),
    ),
    Claim(
        "S11",
        "Prop. 2, Eq. 10; Fig. 1b",
        "the MLP decodes mainly from the label part (both splits)",
        (
            S + "mlp_label_over_feature_input_split",
            S + "mlp_label_over_feature_output_split",
            S + "mlp_label_over_feature_neuron_fraction",
        ),
        (
            Diagnosis(
                "reading",
                "summed over the active neurons the output-coordinate split favours the features (ratio "
                "{estimate:mlp_label_over_feature_output_split}), "
                "a stronger reading than Eq. (10)'s 'for a constant fraction of i ∈ [m]'; the per-neuron fraction, "
                "the printed claim, is {estimate:mlp_label_over_feature_neuron_fraction} ≥ 1/16 (consistent) but is "
                "≈ 1/2 at initialisation too.",
                (S + "mlp_label_over_feature_output_split",),
            ),
        ),
        experiment=Experiment(
            "Fig. 1b",
            "feature_selector_fig1_mechanism",
            (S + "mlp_label_over_feature_input_split",),  # the figure plots the pre-ReLU split (the sweep's header)
            FIGURE_1,
        ),
    ),
    Claim(
        "S12",
        "Lemma 3, Eq. 15–16",
        "lucky neurons' W_O change: feature/label ≈ λ_*",
        (S + "wo_feature_over_label_vs_lambda_star",),
        (
            Diagnosis(
                "open",
                "inside the conditions only three λ_* levels remain (the verdict rule needs four), where the lucky "
                "neurons' W_O change ratio shows no trend ({estimate:wo_feature_over_label_vs_lambda_star} against "
                "+1); over all λ_*, those outside included, it grows far slower than λ_* (a description); the lucky "
                "sets are our reading of Lemma 7; not explained.",
            ),
        ),
    ),
    Claim(
        "S13",
        "Thm 1; Lemma 7",
        "width m ≥ ε_m⁻² M1² log N (the lucky-neuron count at init is recorded, not judged)",
        (S + "width_vs_M1",),
        (
            Diagnosis(
                "reading",
                "a sufficient width: m = 2–8 reaches ε after 1000 steps at every M1 (exponent {estimate:width_vs_M1}, "
                "over M1 = 3 … 6); the bound reading (≤ 2, the printed claim) holds, the tight M1² reading (ours, "
                "labelled stronger than printed) is not borne out.",
            ),
        ),
    ),
    Claim(
        "S14",
        "Thm 1; Eq. 39",
        "batch B > Ω(M1 log M1)",
        (S + "batch_vs_M1",),
        (
            Diagnosis(
                "budget",
                "the smallest batch reaching the error grows only a little from M1 = 3 to 6 (four M1, each at the "
                "width Thm 1 asks), staying on the grid's small values, so its exponent ({estimate:batch_vs_M1}) is "
                "too loose to decide; the printed sufficient batch is not contradicted.",
            ),
        ),
    ),
    Claim(
        "S15",
        "§3.3, Lemma 1",
        "Thm 1 assumes ('for simplicity') training tasks that cover every μ_i as +1 and as −1, |T| ≥ M1; our "
        "ablation: breaking the coverage leaves the model failing on the tasks left out (stronger than printed)",
        (S + "task_coverage",),
    ),
    Claim(
        "S16",
        "Thm 2; Eq. 69–71",
        "zero OOD error, OOD hinge ≤ 1/M1 under Theorem 2's conditions",
        (S + "ood_zero_error", S + "ood_hinge_below_inverse_M1", S + "ood_hinge_vs_M1"),
        (
            Diagnosis(
                "paper",
                f"zero error at l_ts ≥ 2/α′ cannot hold: {NO_MATCH}; on feature_selector_ood, whose test prompts run "
                "down to 2/α′, the error stays far above zero with overlapping and with orthonormal μ′ alike, while at "
                "l_ts = 20 (feature_selector_ood_vs_M1), where (1 − α′/2)^l_ts is negligible, it is ≤ 0.01 at every "
                "M1 (consistent, one straddle).",
                (S + "ood_zero_error",),
            ),
            Diagnosis(
                "reading",
                "the hinge stays ≤ 1/M1 at every M1 (the printed bound: consistent) but rises with M1 (at M1 = 3: "
                "{estimate:ood_hinge_below_inverse_M1|M1=3}; at M1 = 8: {estimate:ood_hinge_below_inverse_M1|M1=8}): "
                "read as a slope ≤ −1 ({estimate:ood_hinge_vs_M1}), which asks more than printed, it fails.",
                (S + "ood_hinge_vs_M1",),
            ),
        ),
    ),
    Claim(
        "S17",
        "Remark 1",
        "violating the conditions loses the guarantee (not proved to fail)",
        (S + "ood_conditions_violated",),
        (
            Diagnosis(
                "reading",
                "μ′ with a negative coefficient and the same label keeps the error near zero "
                "({estimate:ood_conditions_violated|negative ood_label=same}; every other violation errs on about half "
                "the prompts or more): the expected degradation is our reading; Remark 1 only withdraws the guarantee.",
            ),
        ),
    ),
)

PAPER_LAWS = PaperLaws(
    claims=_CLAIMS,
    laws=(*iterations.LAWS, *conditions.LAWS, *mechanism.LAWS, *ood.LAWS),
    sections=(figure1_section,),
    derived={
        # M := M1 + M2, the number of patterns of [LW23] Thm 1 (relevant plus irrelevant)
        "M": DerivedVariable("M", "M", {"M1": 1, "M2": 1}, "M = M1 + M2 ([LW23] §3.2)", sum=True),
    },
    # The negative controls' config (iclscale.analysis.controls): inside Thm 1's conditions with constants 1 at every
    # level (M1 ≤ 64: m ≥ 4·M1²·ln(B·steps) ≈ 2.2·10⁵, B ≥ M1 ln M1 ≈ 266, τ ≤ 1/M1, l_tr ≥ 2 ln M/α) and in the
    # selection regime (the probe's in_regime = 1, a training hinge below the plateau's 0.8); a tuple is a param's
    # levels, its first the value where not swept
    control_config={
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
    },
    smoke={  # a pack of three configs that trains in seconds; they differ in train-role params, as in a sweep
        STUDY: Smoke(
            {"steps": 12, "eval_prompts": 64, "probe_prompts": 16, "batch_size": 16, "m": 20},
            ({"alpha": 0.8, "tau": 0.2}, {"lambda_star": 0.3, "xi": 0.3}, {"lr": 3.0, "n_train_tasks": 2}),
        ),
    },
)

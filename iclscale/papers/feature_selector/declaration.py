"""Params of `feature_selector` (torch-free). Paper: Li, Wang et al. 2023, "Transformers as Multi-Task Feature
Selectors: Generalization Analysis of In-Context Learning" (M3L workshop, NeurIPS 2023), cited as [LW23].

The paper gives no numeric setting at all (its only experiment, Fig. 1, states none): every default below is
ours, from a numpy pilot of ours, and says "not from the paper".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iclscale.papers.common import EVAL_CHUNK_PROMPTS
from iclscale.trainer.params import Param, recipe_params
from iclscale.trainer.registry import Metric, StudyInfo

PAPER = (
    "Li, Wang, et al. Transformers as Multi-Task Feature Selectors: Generalization Analysis of In-Context "
    "Learning. M3L Workshop at NeurIPS 2023"
)
OURS = "not from the paper; a numpy pilot's setting"
# β = 2 and η = 2.5 instead of the pilot's β = 1 and η = 10: at t = 0 the attention score is δ²x_sᵀx_q ([LW23] Eq. 83),
# so a same-pattern demonstration outweighs another only by e^{δ²β²λλ′} (the proof's Eq. 88 step assumes
# log M1 ≤ δ²β²); at δ = 0.1, the paper's upper end, β = 1 leaves that 1.006 and the seed-dependent plateau it
# causes ends, in 5 of 60 seeds, outside the selection regime (seed 0: attention on the partner pattern, error
# 0.12). β = 2 (δ²β² four times larger), with η = 10/β² keeping ηβ² at the pilot's stable value, selected in 60 of
# 60 seeds with T ≤ 500 (README, seed 001)
CHOSEN = "not from the paper: chosen so that the default run selects (see the comment on OURS)"

DOMAINS = ("id", "id_left_out", "ood")
OOD_RELEVANT = ("cone", "negative", "irrelevant", "fresh", "cone_orthonormal")
OOD_IRRELEVANT = ("spare", "train")
OOD_LABELS = ("same", "orthogonal", "swapped")

MEANING = {
    "M1": f"training-relevant patterns μ_j, M1 ([LW23] §3.2: 2 ≤ M1; 3 here so that α < 1 has other patterns; {OURS})",
    "M2": f"training-irrelevant patterns ν_k, M2 ([LW23] §3.2: 2 ≤ M2, M = M1 + M2 ≥ M1²; {OURS})",
    "batch_size": f"SGD batch B, fresh prompts every iteration, N = BT ([LW23] Thm 1: B ≳ M1 log M1; {OURS})",
    "task_set": "training tasks T: cyclic = {(i, i+1 mod M1)}, each μ_i +1 once and −1 once (the M1 tasks of [LW23] "
    "Lemma 1); all = every ordered pair (not from the paper: the paper needs only Lemma 1's coverage)",
    "lambda_mode": "relevant coefficient λ of Eq. 3: uniform = U[λ_*, 1], fixed = λ_* in every token (not from the "
    "paper: it gives only λ ≥ λ_* > 0, Eq. 4)",
    "kappa_mode": "irrelevant coefficient κ of Eq. 3: uniform = U(−1, 1) (Eq. 3's |κ| ≤ 1), one_minus_lambda = 1 − λ "
    "(the proofs' x = λμ + (1 − λ)ν); the distribution is not from the paper",
    "noise_mode": "noise n of Eq. 3, ‖n‖ ≤ τ: ball = uniform in the τ-ball, sphere = ‖n‖ = τ in a uniform direction "
    "(not from the paper)",
    "m": "MLP width m, rows of W_O ([LW23] Thm 1: m ≥ ε_m⁻² M1² log N, an explicit number; 753 = ⌈4·M1²·ln(B·steps)⌉ "
    "meets it at the defaults with ε_m → 1/2, and the law sweeps set it per config; the pilot's 256 was below it, "
    "1024 selected no more often in 20 seeds; not from the paper)",
    "m_a": f"query/key rows m_a ([LW23] §2: m_a > d_X + d_Y); null = d_X + d_Y + 4 ({OURS})",
    "m_b": f"value rows m_b ([LW23] §2: m_b > d_X + d_Y); null = d_X + d_Y + 4 ({OURS})",
    "attend_to_query": "softmax also over the query column (the appendix sums s = 1..l+1); false is Eq. 2 as printed",
    "probe_prompts": "in-domain prompts (training α, l_tr) for the mechanism probes (Prop. 1–2, Lemmas "
    "3, 5, 7), the same at every record (not from the paper)",
    "alpha": "fraction α of demonstrations on the task's two patterns, α/2 each ([LW23] §3.2: α = Θ(1) ∈ (0, 1); "
    f"{OURS})",
    "beta": "norm β of every μ_j, ν_k and of q ([LW23] §3.2: ‖μ‖ = ‖ν‖ = ‖q‖ = β = Θ(log log M1)); 2, not the pilot's "
    f"1, is {CHOSEN}",
    "lambda_star": f"λ_*, the smallest relevant coefficient λ ([LW23] Eq. 4: λ_* > 0; λ ≤ 1 as in the proofs; {OURS})",
    "delta": "init δ on the first d_X diagonal entries of W_Q, W_K and on all of W_V's ([LW23] §2: δ ∈ (0, 0.1); "
    f"{OURS})",
    "xi": f"W_O init scale ξ, W_O ~ N(0, ξ²) entrywise ([LW23] §2; the paper never gives ξ; {OURS}: 0.01 barely "
    "trains)",
    "n_train_tasks": "task-coverage ablation (Lemma 1; ours): 0 trains on all of T; 1 … M1 − 1 trains on that many "
    "random tasks of the cyclic T, so Lemma 1's coverage fails (not from the paper)",
    "domain": "test data: id = the training tasks T ([LW23] Thm 1: 'zero generalization error on all training tasks'); "
    "id_left_out = tasks of T left out by n_train_tasks (NaN when none is); ood = tasks on test-relevant patterns μ′ "
    "([LW23] §3.5, Eq. 11)",
    "alpha_test": "α′ of test prompts ([LW23] §3.5); null = the training α",
    "l_ts": "test prompt length l_ts ([LW23] Thm 2: l_ts ≥ 2/α′); null = l_tr",
    "ood_M1": "test-relevant patterns M1′ ([LW23] Thm 2: M1′ ≤ M1; ≥ 3 so that α′ < 1 has other patterns; not from the "
    "paper)",
    "ood_relevant": "μ′_j: cone = (μ_j + wμ_{j+1})/√(1+w²), in the non-negative cone (Thm 2); negative = (μ_j − "
    "wμ_{j+1})/√(1+w²) (Remark 1 violated); irrelevant = ν_j (in span{ν}); fresh = new axes ⟂ span{μ, ν} "
    "(combinations not from the paper). cone overlaps (μ′_1·μ′_2 = β²w/(1+w²)); cone_orthonormal is a reading: the "
    "paper says (§3.5) the μ′, ν′ 'form another orthonormal basis', so μ′_j = normalised sums of disjoint blocks of "
    "the μ (in the cone and orthonormal; the blocks are not from the paper)",
    "ood_irrelevant": "test-irrelevant ν′: spare = new axes past M1 + M2 (Thm 2: ν′ ∉ span{μ}; needs spare d_X); train "
    "= the ν",
    "ood_M2": "number of spare-axis ν′ (§3.5 writes M2, as in training; not from the paper)",
    "ood_label": "test label embedding: same = ±q (Thm 2's condition); orthogonal = ±q′ with q′ ⟂ q, ‖q′‖ = β; swapped "
    "= ∓q (Remark 1 violated)",
    "eval_prompts": "test prompts per evaluation, one fixed set per config (not from the paper; ≥ 2000 is our target)",
}
"""The meanings of the params whose meaning does not fit on their declaration's line."""

DATA_SHAPE = (
    Param.shape("d_x", 20, f"feature-embedding dimension d_X ≥ M ({OURS})", low=1, high=4096, symbol="d_X"),
    Param.shape("d_y", 4, f"label-embedding dimension d_Y ({OURS})", low=1, high=4096, symbol="d_Y"),
    Param.shape("M1", 4, MEANING["M1"], low=3, high=64, symbol="M₁"),
    Param.shape("M2", 16, MEANING["M2"], low=2, high=4096, symbol="M₂"),
    Param.shape("l_tr", 20, f"training prompt length l_tr ([LW23] Eq. 5; {OURS})", low=1, high=10**4),
    Param.shape("batch_size", 64, MEANING["batch_size"], low=1, high=10**6, symbol="B"),
    Param.shape("task_set", "cyclic", MEANING["task_set"], choices=("cyclic", "all")),
    Param.shape("lambda_mode", "uniform", MEANING["lambda_mode"], choices=("uniform", "fixed")),
    Param.shape("kappa_mode", "uniform", MEANING["kappa_mode"], choices=("uniform", "one_minus_lambda")),
    Param.shape("noise_mode", "ball", MEANING["noise_mode"], choices=("ball", "sphere")),
)

MODEL_SHAPE = (
    Param.shape("m", 753, MEANING["m"], low=1, high=10**5, symbol="m"),
    Param.shape("m_a", None, MEANING["m_a"], type=int, low=1, high=10**5),
    Param.shape("m_b", None, MEANING["m_b"], type=int, low=1, high=10**5),
    Param.shape("attend_to_query", False, MEANING["attend_to_query"]),
    Param.shape("probe_prompts", 512, MEANING["probe_prompts"], low=1, high=10**6),
)

TRAIN = (
    Param.train("alpha", 0.6, MEANING["alpha"], low=0, high=1, low_open=True, symbol="α"),
    Param.train("beta", 2.0, MEANING["beta"], low=0, low_open=True, symbol="β"),
    Param.train("lambda_star", 0.5, MEANING["lambda_star"], low=0, high=1, low_open=True, symbol="λ_*"),
    Param.train("tau", 0.1, f"noise bound τ, ‖n‖ ≤ τ ([LW23] Eq. 3; Thm 1: τ ≤ O(1/M1); {OURS})", low=0, symbol="τ"),
    Param.train("delta", 0.1, MEANING["delta"], low=0, high=1, low_open=True, symbol="δ"),
    Param.train("xi", 0.1, MEANING["xi"], low=0, low_open=True, symbol="ξ"),
    Param.train("n_train_tasks", 0, MEANING["n_train_tasks"], low=0, high=63, symbol="|T′|"),
)

EVAL = (
    Param.eval("domain", "id", MEANING["domain"], choices=DOMAINS),
    Param.eval("alpha_test", None, MEANING["alpha_test"], type=float, low=0, high=1, low_open=True, symbol="α′"),
    Param.eval("l_ts", None, MEANING["l_ts"], type=int, low=1, high=10**4, symbol="l_ts"),
    Param.eval("ood_M1", 3, MEANING["ood_M1"], low=3, high=64, symbol="M₁′"),
    Param.eval("ood_relevant", "cone", MEANING["ood_relevant"], choices=OOD_RELEVANT),
    Param.eval("ood_mix", 1.0, "w in the cone/negative μ′_j above (not from the paper)", low=0, high=100, symbol="w"),
    Param.eval("ood_irrelevant", "spare", MEANING["ood_irrelevant"], choices=OOD_IRRELEVANT),
    Param.eval("ood_M2", 8, MEANING["ood_M2"], low=1, high=4096, symbol="M₂′"),
    Param.eval("ood_label", "same", MEANING["ood_label"], choices=OOD_LABELS),
    Param.eval("eval_prompts", 2048, MEANING["eval_prompts"], low=1, high=10**7),
)


def attention_widths(values: Mapping[str, Any]) -> tuple[int, int]:
    """(m_a, m_b), a null one being d_X + d_Y + 4 (not from the paper: §2 asks m_a, m_b > d_X + d_Y)."""
    default = values["d_x"] + values["d_y"] + 4
    return tuple(default if values[name] is None else values[name] for name in ("m_a", "m_b"))


def _check_shapes(values: Mapping[str, Any]) -> str | None:
    M1, M2, d_x, d_y = values["M1"], values["M2"], values["d_x"], values["d_y"]
    if M1 + M2 > d_x:
        return f"M1 + M2 orthogonal patterns must fit in d_X: M1 = {M1}, M2 = {M2}, d_x = {d_x}"
    m_a, m_b = attention_widths(values)
    if m_a < d_x:
        return f"W_Q, W_K start as δ on their first d_X diagonal entries: need m_a ≥ d_x, got m_a = {m_a}"
    if m_b < d_x + d_y:
        return f"W_V = δ·I must pass every feature and label coordinate: need m_b ≥ d_x + d_y, got m_b = {m_b}"
    tasks = values["n_train_tasks"]
    if tasks and (values["task_set"] != "cyclic" or tasks >= M1):
        return f"n_train_tasks drops tasks of the cyclic T: need task_set cyclic and n_train_tasks < M1 = {M1}"
    return None


def ood_spare_axes(values: Mapping[str, Any]) -> tuple[int, int]:
    """(axes the out-of-domain construction needs past M1 + M2, axes there are)."""
    needed = values["ood_M1"] if values["ood_relevant"] == "fresh" else 0
    needed += values["ood_M2"] if values["ood_irrelevant"] == "spare" else 0
    return needed, values["d_x"] - values["M1"] - values["M2"]


def _check_ood(values: Mapping[str, Any]) -> str | None:
    """An out-of-domain construction that cannot be built ([LW23] §3.5) is refused before training."""
    if values["domain"] != "ood":
        return None
    relevant, count = values["ood_relevant"], values["ood_M1"]
    source = {"cone": "M1", "negative": "M1", "cone_orthonormal": "M1", "irrelevant": "M2"}.get(relevant)
    if source and count > values[source]:
        return f"ood_relevant {relevant} builds M1′ = ood_M1 = {count} patterns from the {values[source]} of {source}"
    if relevant == "irrelevant" and values["ood_irrelevant"] == "train":
        return "ood_relevant irrelevant puts μ′ on the ν, so the test-irrelevant ν′ must be new: ood_irrelevant spare"
    needed, spare = ood_spare_axes(values)
    if needed > spare:
        return (
            f"the out-of-domain patterns need {needed} spare axes past M1 + M2 = {values['M1'] + values['M2']}, "
            f"d_x = {values['d_x']} has {spare}: raise d_x or lower ood_M2"
        )
    if values["ood_label"] == "orthogonal" and values["d_y"] < 2:
        return "ood_label orthogonal needs a second label axis: d_y ≥ 2"
    return None


METRICS = (
    Metric(
        "test_error",
        "fraction of test prompts classified wrongly at the eval point ([LW23] Thm 1: ≤ ε after T "
        "iterations; NaN when the domain has no task)",
        headline=True,
    ),
    Metric("test_hinge", "mean hinge loss over the test prompts (NaN when the domain has no task)", headline=True),
    Metric(
        "attn_same",
        "A_*, attention mass on demonstrations sharing the query's relevant pattern μ ([LW23] Prop. 1 "
        "Eq. 9: → 1; prompts without one left out)",
        headline=True,
    ),
    Metric(
        "in_regime",
        "1 when A_* ≥ 0.9, the selection regime (not from the paper), else 0",
        regime="the feature-selection regime A_* ≥ 0.9 that Prop. 1–2 describe (a threshold of this tool)",
    ),
    Metric("test_attn_same", "A_* on the test prompts of the eval point (NaN when none shares the query's μ)"),
    Metric("test_no_match", "fraction of test prompts with no demonstration sharing the query's μ"),
    Metric(
        "ood_conditions",
        "1 when the eval point meets the out-of-domain conditions of [LW23] Thm 2, else 0 (ood eval only)",
        regime="[LW23] Thm 2's out-of-domain conditions",
    ),
    Metric("wq_mu_norm", "mean_j ‖W_Q^x μ_j‖ on the relevant patterns ([LW23] Prop. 1 Eq. 7: grows ≥ Θ(√log M))"),
    Metric("wk_mu_norm", "mean_j ‖W_K^x μ_j‖ on the relevant patterns (Eq. 7)"),
    Metric("wq_nu_norm", "mean_k ‖W_Q^x ν_k‖ on the irrelevant patterns (Eq. 8: stays ≤ Θ(1))"),
    Metric("wk_nu_norm", "mean_k ‖W_K^x ν_k‖ on the irrelevant patterns (Eq. 8)"),
    Metric("qk_mu_diagonal", "mean μ_jᵀW_K^xᵀW_Q^x μ_j (Lemma 4: ≫ the off-diagonal)"),
    Metric("qk_mu_offdiagonal", "mean |μ_jᵀW_K^xᵀW_Q^x μ_j′| over j ≠ j′"),
    Metric("qk_nu_diagonal", "mean ν_kᵀW_K^xᵀW_Q^x ν_k"),
    Metric("wq_label_columns_norm", "‖W_Q's label columns‖ (stays exactly 0: its gradient vanishes, [LW23] Eq. 108)"),
    Metric("wk_label_columns_norm", "‖W_K's label columns‖ (moves a little: [LW23] Eq. 109, ≤ ε_y)"),
    Metric("wk_feature_columns_norm", "‖W_K's feature columns‖"),
    Metric("qk_rows_past_dx_norm", "‖rows past d_X of W_Q and W_K‖ (stay exactly 0)"),
    Metric("attn_same_p#", "the #-th percentile over prompts of A_* (NaN when no prompt has a match)"),
    Metric("attn_partner", "attention mass on demonstrations of the task's other pattern"),
    Metric("attn_other", "attention mass on non-task patterns (random labels)"),
    Metric("attn_same_irrelevant", "attention mass on demonstrations sharing only the query's irrelevant ν"),
    Metric("attn_same_uniform", "|𝒩_*|/l, A_* under uniform attention (≈ α/2)"),
    Metric("attn_no_match", "fraction of probe prompts with no demonstration sharing the query's μ (left out of A_*)"),
    Metric(
        "mlp_in_feature",
        "feature part z^x of the pre-ReLU z, signed toward the correct label (Fig. 1b, input side; Prop. 2 Eq. 10)",
    ),
    Metric("mlp_in_label", "label part z^y of the pre-ReLU z, signed toward the correct label (Fig. 1b, input side)"),
    Metric("mlp_out_feature", "W_O[:, feat]·sa[feat], signed toward the correct label (Eq. 10 as printed)"),
    Metric("mlp_out_label", "W_O[:, lab]·sa[lab], signed toward the correct label (Eq. 10 as printed)"),
    Metric("mlp_out_rest", "the rest of z beyond the feature and label parts, output side"),
    Metric("preact_feature_abs", "mean |z^x| over prompts and neurons"),
    Metric("preact_label_abs", "mean |z^y| over prompts and neurons"),
    Metric("readout_label_accuracy", "accuracy of the label part of the output alone (ties count ½)"),
    Metric("readout_feature_accuracy", "accuracy of the feature part of the output alone (ties count ½)"),
    Metric(
        "prop2_out_fraction",
        "fraction of (prompt, neuron) pairs with the label part above the feature part, output side (Prop. 2 Eq. 10)",
    ),
    Metric("prop2_out_active_fraction", "the same over active neurons of correctly classified prompts"),
    Metric("prop2_in_active_fraction", "z^y > z^x over active neurons of correctly classified prompts (input side)"),
    Metric("lucky_W_fraction", "|𝒲|/m, lucky neurons with a_i > 0 ([LW23] Lemma 7: ≥ (1 − ε_m − τM1)/16)"),
    Metric("lucky_U_fraction", "|𝒰|/m, lucky neurons with a_i < 0 (Lemma 7)"),
    Metric("lucky_dWO_label", "accumulated W_O change of lucky neurons on the label block (Lemma 3 Eq. 15: Θ(δβ²/a))"),
    Metric("lucky_dWO_feature", "the same on the feature block (Eq. 16: Θ(δβ²λ_*/a))"),
    Metric("lucky_dWO_ratio", "lucky_dWO_feature / lucky_dWO_label (≈ λ_* by Lemma 3)"),
    Metric("wv_update_cosine", "cosine between the W_V update and the lucky W_O rows (Lemma 5)"),
)


def _test_set_values(values: Mapping[str, Any]) -> int:
    """Floats of one config's test set held at once: a chunk of at most EVAL_CHUNK_PROMPTS prompts of l_ts + 1
    tokens (l_tr + 1 where l_ts is null) of d_X + d_Y, and a label each (`StudyInfo.eval_values`)."""
    length = values["l_tr"] if values["l_ts"] is None else values["l_ts"]
    prompts = min(values["eval_prompts"], EVAL_CHUNK_PROMPTS)
    return prompts * ((length + 1) * (values["d_x"] + values["d_y"]) + 1)


FEATURE_SELECTOR = StudyInfo(
    name="feature_selector",
    title="A one-layer Transformer selects features of noisy patterns: T ∝ √M/(λ_* η), OOD on the cone of μ",
    paper=PAPER,
    implementation="iclscale.papers.feature_selector.study:FeatureSelector",
    eval_values=_test_set_values,
    checks=(_check_shapes, _check_ood),
    metrics=METRICS,
    params=(
        *DATA_SHAPE,
        *MODEL_SHAPE,
        *recipe_params(
            steps=2000, lr=2.5, optimizer="sgd", source=f"[LW23] §2: mini-batch SGD; η = 2.5 = 10/β² {CHOSEN}, T {OURS}"
        ),
        *TRAIN,
        *EVAL,
    ),
)

DECLARATIONS = (FEATURE_SELECTOR,)

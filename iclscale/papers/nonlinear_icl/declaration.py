"""Params of the seed-000 studies (torch-free). Paper: Li, Wang, Lu, Cui, Chen 2024, cited below as [L24].

`nonlinear_icl` trains the one-layer Transformer of [L24] Eq. 2; `nonlinear_icl_gpt2` trains the 3-layer,
2-head GPT-2 of [L24] Fig. 3 from random initialisation on the same prompts. Both measure in-domain error
on unseen tasks and out-of-domain error (eval params α', l_ts, K', S1) at every record; the one-layer study
adds pruning (Thm 3.7, Fig. 5), classical learners (Fig. 4) and mechanism probes (Fig. 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iclscale.trainer import configclass
from iclscale.trainer.params import Param, recipe_params
from iclscale.trainer.registry import Metric, StudyInfo

PAPER = (
    "Li, Wang, Lu, Cui, Chen. How Do Nonlinear Transformers Learn and Generalize in In-Context Learning? "
    "ICML 2024, PMLR 235 (arXiv 2402.15607)"
)

DOMAINS = ("id", "id_train", "ood")
CLASSICAL_LEARNERS = ("logistic", "svm_rbf", "svm_linear", "knn1", "knn3")
LEARNERS = ("transformer", *CLASSICAL_LEARNERS)
PRUNE_METHODS = ("none", "random", "magnitude", "largest", "small")
PRUNE_SCORES = ("wowv", "wo")

MEANING = {
    "d_x": "feature-embedding dimension d_X ([L24] §5: 30; the paper has d_X = M1 + M2, a larger d_X leaves spare axes)"
    "",
    "M2": "number of in-domain-irrelevant (IDI) patterns M2 ([L24] §5: 24)",
    "l_tr": "training prompt length l_tr, demonstrations ([L24] §5: 20)",
    "batch_size": "SGD batch size B, fresh prompts every iteration (not from the paper: 180 meets Thm 3.3 (ii), "
    "B ≥ Ω(max{ε⁻², M1} log M1), with constant 1 at ε = 0.1 and M1 ≤ 10; 64 worked in a pilot of ours)",
    "domain": "test data: id = in-domain tasks unseen in training, T \\ T_tr ([L24] §5; NaN when T_tr = T); ood = the "
    "M1'(M1'−1) tasks T' on the ODR patterns μ'_j with ODI = IDI ([L24] Eq. 8, §5); id_train = the training tasks "
    "(not from the paper)",
    "alpha_test": "fraction α' of test demonstrations on the decisive patterns, α'/2 each, (1 − α')/(M − 2) on each "
    "other ([L24] §5; Figs 3–5 use 0.6–1.0)",
    "l_ts": "test prompt length l_ts ([L24] Fig. 3: 0–20); F = 0 (as at l_ts = 0) is a tie counted as half an error "
    "(not from the paper)",
    "K_ood": "ODI coefficient range K', κ' ~ U(−K', K') ([L24] §5 prints 5; possibly a garbled 0.5: our reading)",
    "S1": "coefficient sum S1 = a + b of μ'_1 = 0.3(μ_1 − μ_2) + aμ_5 + bμ_6 ([L24] §5, Eq. 12; Fig. 3A: 1.3 … 0.5; "
    "1.28 is Fig. 2's a = b = 0.64)",
    "odr_split": "a, b from S1: solve keeps ‖μ'_1‖ = β (a² + b² = 0.82, a the larger root; past S1 = 1.2806 it falls "
    "back to a = b = S1/2 unnormalised, our reading of Fig. 3A's 1.3); equal takes a = b = S1/2 (Fig. 2)",
    "eval_prompts": "test prompts per evaluation, one fixed set per config across records (not from the paper; "
    "≥ 2000 is our target)",
    "m": "MLP width m, the rows of W_O (not from the paper: never given; 65 meets Thm 3.3 (i), m ≥ Ω(M1² log M1), "
    "with constant 1 at M1 = 6)",
    "attend_to_query": "softmax also over the query column (the appendix proofs sum s = 1..l+1); false is Eq. 2 as "
    "printed",
    "a_scale": "|a_i| of the fixed output layer a ~ U{±|a_i|} ([L24] §2.3, Table 2: 1/m; Alg. 1 prints a garbled 1/√m: "
    "two sources to one)",
    "probe_prompts": "prompts per mechanism probe (Fig. 2; the measures are ours): unseen-task ID and Fig. 2's OOD "
    "data (a = b = 0.64, K' = 5), at the training α and l_tr (not from the paper)",
    "delta": "init δ on the first d_X diagonal entries of W_Q, W_K and all of W_V ([L24] §2.3: δ ∈ (0, 0.2]; 0.1 not "
    "from the paper)",
    "learner": "who predicts the query: the trained transformer, or a classical learner fit on the prompt's "
    "demonstrations (x_i, ±1), scikit-learn defaults ([L24] Fig. 4; settings not from the paper; final record only)",
    "baseline_prompts": "test prompts for a classical learner, one fit each (not from the paper; kept modest)",
    "prune_method": "MLP neurons (rows of W_O, [L24] §2.4) removed: random; magnitude = smallest score first (Fig. "
    "5A); largest = largest first (Thm 3.7 Eq. 16, not in a figure); small = exactly the small neurons L^c, "
    "prune_ratio ignored (Thm 3.7 Eq. 15; L^c read as the lower 2-means group of log magnitudes, not from the paper); "
    "final record only",
    "prune_score": "neuron magnitude: wowv = ‖row i of W_O W_V‖ (Thm 3.7's r_i), wo = ‖row i of W_O‖ (Fig. 5's wording)"
    "",
    "prune_ratio": "pruning rate R: round(R·m) neurons removed ([L24] Thm 3.7, Fig. 5's x-axis)",
    "n_embd": "GPT-2 width (not from the paper, which gives none; the default 128 keeps CPU sweeps affordable)",
    "n_positions": "learned positional embeddings; must exceed the longest prompt (not from the paper)",
    "positions": "token positions: from_query counts back from the query (query 0, last demonstration 1, …) so prompts "
    "of another length reuse trained positions; from_start is GPT-2's 0, 1, … (both not from the paper)",
    "alpha": "fraction α of training demonstrations on the task's decisive patterns, α/2 each ([L24] §3.2; §5: 0.8)",
    "beta": "norm β of every pattern ([L24] §5: 3; theory β ≥ 1)",
    "K": "IDI coefficient range K, κ ~ U(−K, K) in x = μ_j + κν_k ([L24] Eq. 6; §5: 0.5; theory K < 1/2)",
    "q_norm": "norm of the label embedding q = ‖q‖·e_1, Embd(±1) = ±q (not from the paper: q is never given; the "
    "proofs' β² + 1 terms imply ‖q‖ = 1)",
    "n_train_tasks": "|T_tr| by [L24] App. A.2 (Fig. 7): below M1 a random subset of the U = 1 cyclic set T_tr0, from "
    "M1 on T_tr0 plus random other tasks; 0 means the cyclic set with U offsets",
}
"""The meanings of the params whose meaning does not fit on their declaration's line."""

# Data model ([L24] §3.2, §5), shared by both studies ---------------------------------------
DATA_SHAPE = (
    Param.shape("d_x", 30, MEANING["d_x"], low=1, high=4096, symbol="d_X"),
    Param.shape("d_y", 30, "label-embedding dimension d_Y ([L24] §5: 30)", low=1, high=4096, symbol="d_Y"),
    Param.shape("M1", 6, "number of in-domain-relevant (IDR) patterns M1 ([L24] §5: 6)", low=3, high=64, symbol="M₁"),
    Param.shape("M2", 24, MEANING["M2"], low=1, high=4096, symbol="M₂"),
    Param.shape("l_tr", 20, MEANING["l_tr"], low=1, high=10**4, symbol="l_tr"),
    Param.shape("batch_size", 180, MEANING["batch_size"], low=1, high=10**6, symbol="B"),
)


def data_train_params(U: int, U_source: str) -> tuple[Param, ...]:
    offsets = f"offsets of the cyclic training tasks (a_j → +1, a_{{j+k}} → −1, k ≤ U), |T_tr| = U·M1 ({U_source})"
    return (
        Param.train("alpha", 0.8, MEANING["alpha"], low=0, high=1, low_open=True, symbol="α"),
        Param.train("beta", 3.0, MEANING["beta"], low=0, low_open=True, symbol="β"),
        Param.train("K", 0.5, MEANING["K"], low=0, symbol="K"),
        Param.train("q_norm", 1.0, MEANING["q_norm"], low=0, low_open=True, symbol="‖q‖"),
        Param.train("U", U, offsets, low=1, high=63, symbol="U"),
        Param.train("n_train_tasks", 0, MEANING["n_train_tasks"], low=0, high=64 * 63, symbol="|T_tr|"),
    )


DATA_EVAL = (
    Param.eval("domain", "id", MEANING["domain"], choices=DOMAINS),
    Param.eval("alpha_test", 0.8, MEANING["alpha_test"], low=0, high=1, symbol="α′"),
    Param.eval("l_ts", 20, MEANING["l_ts"], low=0, high=10**4, symbol="l_ts"),
    Param.eval("K_ood", 5.0, MEANING["K_ood"], low=0, symbol="K′"),
    Param.eval("S1", 1.28, MEANING["S1"], low=-3, high=3, symbol="S₁"),
    Param.eval("odr_split", "solve", MEANING["odr_split"], choices=("solve", "equal")),
    Param.eval("eval_prompts", 2048, MEANING["eval_prompts"], low=1, high=10**7),
)

# One-layer model ([L24] Eq. 2, §2.3) ----------------------------------------------------------
ONE_LAYER_SHAPE = (
    Param.shape("m", 65, MEANING["m"], low=1, high=10**5, symbol="m"),
    Param.shape("m_a", 60, "query/key dimension m_a ([L24] §5: 60)", low=1, high=10**5, symbol="m_a"),
    Param.shape("m_b", 60, "value dimension m_b ([L24] §5: 60)", low=1, high=10**5, symbol="m_b"),
    Param.shape("attend_to_query", False, MEANING["attend_to_query"]),
    Param.shape("a_scale", "1/m", MEANING["a_scale"], choices=("1/m", "1/sqrt(m)")),
    Param.shape("probe_prompts", 256, MEANING["probe_prompts"], low=1, high=10**6),
)

ONE_LAYER_TRAIN = (Param.train("delta", 0.1, MEANING["delta"], low=0, low_open=True, symbol="δ"),)

ONE_LAYER_EVAL = (
    Param.eval("learner", "transformer", MEANING["learner"], choices=LEARNERS),
    Param.eval("baseline_prompts", 200, MEANING["baseline_prompts"], low=1, high=10**6),
    Param.eval("prune_method", "none", MEANING["prune_method"], choices=PRUNE_METHODS),
    Param.eval("prune_score", "wowv", MEANING["prune_score"], choices=PRUNE_SCORES),
    Param.eval("prune_ratio", 0.0, MEANING["prune_ratio"], low=0, high=1, symbol="R"),
)

# GPT-2 ([L24] §5, Fig. 3) -----------------------------------------------------------------------
GPT2_SHAPE = (
    Param.shape("n_layer", 3, "GPT-2 blocks ([L24] §5: 3)", low=1, high=96),
    Param.shape("n_head", 2, "attention heads per block ([L24] §5: 2)", low=1, high=128),
    Param.shape("n_embd", 128, MEANING["n_embd"], low=1, high=8192),
    Param.shape("n_positions", 64, MEANING["n_positions"], low=2, high=10**5),
    Param.shape("positions", "from_query", MEANING["positions"], choices=("from_query", "from_start")),
)


# Cross-param checks -----------------------------------------------------------------------------
def _check_data(values: Mapping[str, Any]) -> str | None:
    M1, M2, d_x = values["M1"], values["M2"], values["d_x"]
    if M1 + M2 > d_x:
        return f"M1 + M2 orthogonal patterns must fit in d_X: M1 = {M1}, M2 = {M2}, d_x = {d_x}"
    if values["U"] > M1 - 1:
        return f"the cyclic training tasks need U ≤ M1 − 1, got U = {values['U']}, M1 = {M1}"
    if values["n_train_tasks"] > M1 * (M1 - 1):
        return f"n_train_tasks must be at most M1(M1 − 1) = {M1 * (M1 - 1)}, got {values['n_train_tasks']}"
    if values["domain"] == "ood" and M1 < 6:
        return f"the out-of-domain patterns of [L24] §5 combine μ_1..μ_6 and need M1 ≥ 6, got M1 = {M1}"
    return None


def _check_one_layer(values: Mapping[str, Any]) -> str | None:
    if values["m_a"] < values["d_x"]:
        return f"W_Q, W_K start as δ on their first d_X diagonal entries: need m_a ≥ d_x, got {values['m_a']}"
    return None


def _check_gpt2(values: Mapping[str, Any]) -> str | None:
    if values["n_embd"] % values["n_head"]:
        return f"n_embd must be a multiple of n_head, got n_embd = {values['n_embd']}, n_head = {values['n_head']}"
    longest = max(values["l_tr"], values["l_ts"]) + 1
    if longest > values["n_positions"]:
        return f"prompts of {longest} tokens need n_positions ≥ {longest}, got {values['n_positions']}"
    return None


TASK_METRICS = (
    Metric(
        "test_error",
        "fraction of test prompts classified wrongly, sign(F(Ψ; P)) ≠ z, at the eval point's "
        "domain, α′ and l_ts ([L24] Thm 3.3: ≤ ε after T iterations; NaN when the domain has no task)",
        headline=True,
    ),
    Metric(
        "test_hinge",
        "mean hinge loss max{0, 1 − z·F(Ψ; P)} over the test prompts ([L24] Eq. 3; NaN when the domain has no task)",
        headline=True,
    ),
    Metric(
        "condition_3_2",
        "1 when the training tasks satisfy [L24] Condition 3.2 (each μ_j maps to +1 and to −1 "
        "in |T_tr|/M1 ≥ 1 tasks each), else 0",
        regime="[L24] Condition 3.2 on the training tasks, assumed by Thm 3.3 and 3.6",
    ),
    Metric("train_task_count", "|T_tr|, the number of training tasks"),
    Metric("unseen_task_count", "the number of unseen (test) tasks"),
    Metric("odr_norm_ratio", "‖μ′_1‖/β of the out-of-domain patterns: 1 unless S1 was infeasible (ood eval only)"),
    Metric("pruned_fraction", "fraction of neurons pruned at the eval point (Fig. 5; prune_method ≠ none)"),
)

_PROBE_SIDE = "(A: [L24] Prop. 4.1; id_ on training-domain prompts, ood_ on out-of-domain ones)"
ONE_LAYER_METRICS = (
    *TASK_METRICS,
    Metric("id_q_norm", f"mean ‖W_Q p_query‖ {_PROBE_SIDE}"),
    Metric("id_k_norm", f"mean ‖W_K p_i‖ {_PROBE_SIDE}"),
    Metric("id_q_on_pattern", "mean |e(μ)ᵀW_Q p| on the prompt's own relevant pattern ([L24] Eq. 17; grows)"),
    Metric("id_k_on_pattern", "mean |e(μ)ᵀW_K p| on the prompt's own relevant pattern ([L24] Eq. 17; grows)"),
    Metric("id_q_off_relevant", "largest |projection| of W_Q p on other relevant patterns ([L24] Eq. 18; stays small)"),
    Metric("id_k_off_relevant", "largest |projection| of W_K p on other relevant patterns ([L24] Eq. 18; stays small)"),
    Metric("id_q_off_irrelevant", "largest |projection| of W_Q p on irrelevant patterns ([L24] Eq. 19; stays small)"),
    Metric("id_k_off_irrelevant", "largest |projection| of W_K p on irrelevant patterns ([L24] Eq. 19; stays small)"),
    Metric(
        "id_attn_same", "attention mass on demonstrations sharing the query's relevant pattern ([L24] Cor. 4.3: → 1)"
    ),
    Metric("id_attn_other", "attention mass on the other demonstrations (→ 0)"),
    Metric("id_attn_same_uniform", "|N|/l, the share id_attn_same would have under uniform attention"),
    Metric("id_attn_query", "attention mass on the query itself (attend_to_query only)"),
    *(
        Metric("ood_" + name, f"as id_{name}, on out-of-domain prompts")
        for name in (
            "q_norm",
            "k_norm",
            "q_on_pattern",
            "k_on_pattern",
            "q_off_relevant",
            "k_off_relevant",
            "q_off_irrelevant",
            "k_off_irrelevant",
            "attn_same",
            "attn_other",
            "attn_same_uniform",
            "attn_query",
        )
    ),
    Metric(
        "small_neuron_fraction",
        "|L^c|/m, the fraction of small neurons by 2-means on log ‖r_i‖ ([L24] Thm 3.7; Fig. 5: ≈ 15%)",
        headline=True,
    ),
    Metric("neuron_magnitude_median", "median ‖r_i‖ over the m neurons (r_i: row i of W_O W_V)"),
    Metric("small_neuron_magnitude_max", "largest ‖r_i‖ among the small neurons"),
    Metric("large_neuron_magnitude_min", "smallest ‖r_i‖ among the large neurons"),
    Metric("large_feature_norm", "mean ‖r_{i,d_X}‖ (feature part) over the large neurons ([L24] Prop. 4.5)"),
    Metric("large_feature_angle", "mean angle (degrees) between r_{i,d_X} and μ̄ over the large neurons (→ 0)"),
    Metric("large_label_norm", "mean ‖r_{i,d_Y}‖ (label part) over the large neurons ([L24] Prop. 4.5)"),
    Metric("large_label_angle", "mean angle (degrees) between r_{i,d_Y} and sign(a_i)·q over the large neurons (→ 0)"),
    *(
        Metric(
            f"neuron_{sign}#_{part}_{what}",
            f"{what} of r_{{i,{label}}} of the #-th tracked neuron with a_i "
            f"{'>' if sign == 'pos' else '<'} 0 (Fig. 2 C–D; NaN when fewer neurons have that sign)",
        )
        for sign in ("pos", "neg")
        for part, label in (("feature", "d_X"), ("label", "d_Y"))
        for what in ("norm", "angle")
    ),
    Metric("neuron_magnitude_#", "‖r_i‖ of neuron i, the row of W_O W_V (Fig. 5's magnitudes)"),
    Metric("neuron_wo_magnitude_#", "‖W_O[i]‖ of neuron i (the pruning variant by W_O alone)"),
)


def _test_set_values(values: Mapping[str, Any]) -> int:
    """Floats of one config's test set at an eval point: eval_prompts prompts of l_ts + 1 tokens of d_x + d_y
    (`embed`), and a label each (`StudyInfo.eval_values`)."""
    return values["eval_prompts"] * ((values["l_ts"] + 1) * (values["d_x"] + values["d_y"]) + 1)


ONE_LAYER_PARAMS = (
    *DATA_SHAPE,
    *ONE_LAYER_SHAPE,
    *recipe_params(
        steps=400,
        lr=1.0,
        optimizer="sgd",
        source="[L24] Alg. 1: plain SGD; T = 400 reads Fig. 2's '400 epochs' as iterations; η = 1 not from "
        "the paper (a pilot of ours; Thm 3.3 asks η ≤ 1)",
    ),
    *data_train_params(1, "[L24] §5: 1 for the one-layer model"),
    *ONE_LAYER_TRAIN,
    *DATA_EVAL,
    *ONE_LAYER_EVAL,
)

GPT2_PARAMS = (
    *DATA_SHAPE,
    *GPT2_SHAPE,
    *recipe_params(
        steps=2000,
        lr=1e-4,
        optimizer="adam",
        source="not from the paper; Adam at 1e-4 is ours, after the Bai et al. and Wu et al. that [L24] §5 follows",
    ),
    *data_train_params(4, "[L24] §5: 4 for GPT-2"),
    *DATA_EVAL,
)

PatternConfig = configclass.shared_base("PatternConfig", __name__, ONE_LAYER_PARAMS, GPT2_PARAMS)
"""What both studies' configs hold, the data model and the recipe: the shared study functions take it."""

NONLINEAR_ICL = StudyInfo(
    name="nonlinear_icl",
    title="A one-layer nonlinear Transformer learns binary ICL tasks in T ∝ α^(-2/3) and generalizes out of domain",
    paper=PAPER,
    implementation="iclscale.papers.nonlinear_icl.study:NonlinearICL",
    config_base=PatternConfig,
    checks=(_check_data, _check_one_layer),
    metrics=ONE_LAYER_METRICS,
    eval_values=_test_set_values,
    params=ONE_LAYER_PARAMS,
)

NONLINEAR_ICL_GPT2 = StudyInfo(
    name="nonlinear_icl_gpt2",
    title="A 3-layer, 2-head GPT-2 trained from scratch on the binary ICL prompts of Li et al. 2024 (Fig. 3)",
    paper=PAPER,
    implementation="iclscale.papers.nonlinear_icl.study:NonlinearICLGPT2",
    config_base=PatternConfig,
    checks=(_check_data, _check_gpt2),
    metrics=TASK_METRICS,
    eval_values=_test_set_values,
    params=GPT2_PARAMS,
)

DECLARATIONS = (
    NONLINEAR_ICL,
    NONLINEAR_ICL_GPT2,
)

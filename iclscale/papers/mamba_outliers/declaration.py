"""Params of the seed-002 study (torch-free). Paper: Li, Lu, Cui, Chen, Wang, cited below as [LM25].

`mamba_outliers` trains the one-layer Mamba of [LM25] Eq. 3 or the linear Transformer (gates fixed to 1), or the
3-layer versions of §4.2, by SGD on the hinge loss over prompts whose demonstrations carry additive outliers
with probability p_a (Eq. 6), and measures the test error over all tasks with unseen outliers (Eq. 7): per task
group, per test outlier direction, per placement (Table 1), with the attention and gate probes of §4.2.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iclscale.papers.common import EVAL_CHUNK_PROMPTS
from iclscale.trainer.params import Param, recipe_params
from iclscale.trainer.registry import Metric, StudyInfo

PAPER = (
    "Li, Lu, Cui, Chen, Wang. Can Mamba Learn In Context with Outliers? A Theoretical Generalization Analysis "
    "(arXiv 2510.00399, 2025)"
)

MODELS = ("mamba", "lt")
PLACEMENTS = ("bernoulli", "farthest", "random", "closest")  # as iclscale.papers.common.outliers (torch-free here)
LABEL_MODES = ("flip", "targeted", "random")
OUTLIER_SETS = ("unseen", "v1", "v2", "v3", "train", "sum_L")
LT_ATTENTIONS = ("causal_mean", "full_mean")
TRAIN_TASK_SETS = ("cyclic", "all")

MEANING = {
    "batch_size": "SGD batch size B, fresh prompts every iteration (not from the paper: never given; 64 ours; "
    "tuned by sweeps/mamba_outliers_tune.yaml: best 256 for both models, Mamba's objective flat over B)",
    "model": "mamba = [LM25] Eq. 3 (Ψ = {W_B, W_C, w}); lt = the linear Transformer, the same with G ≡ 1 (§2, §3.4)",
    "hidden": "rows h of W_B, W_C; null means d + 1 (not from the paper: its m = l + 1 = 21 rows (§2, App. E.1) cannot "
    "hold the first d = 30 diagonal entries of §2's initialisation)",
    "residual": "residual p ← p + o between layers (not from the paper: §4.2 gives no architecture; our reading); no "
    "effect on one layer",
    "lt_attention": "reading; the paper says only 'a three-layer single-head linear Transformer' ([LM25] §4.2, Table "
    "1): causal_mean = position i averages p_jᵀW_BᵀW_C p_i over j ≤ i (order-dependent); full_mean = every position "
    "averages over all l + 1 (order-invariant, so placement cannot matter at a fixed outlier count); no effect on "
    "Mamba or on one layer",
    "p_a": "fraction p_a of training demonstrations with an outlier κ_a·v*_s and a random label ([LM25] Eq. 6; §4.1: "
    "0.6, §4.2: 0.4)",
    "train_tasks": "reading; the paper says training tasks must satisfy Condition 1 and builds the M1 cyclic ones (μ_j "
    "→ +1, μ_{j+1} → −1; [LM25] App. C), §4 does not say which it trains on: cyclic = App. C's, all = all M1(M1 − 1) "
    "ordered pairs (the test tasks, Eq. 5)",
    "K": "κ ~ U(−K, K) of the irrelevant pattern in training ([LM25] Eq. 6: K ≤ 1/2; 0.5 not from the paper)",
    "delta": "initial value δ of the first d diagonal entries of W_B, W_C ([LM25] §2: δ ∈ (0, 0.2]; §4: 0.2)",
    "alpha": "fraction α of test demonstrations with an outlier κ_a'·v'_s ([LM25] Eq. 7; Fig. 2 sweeps it, Fig. 4: "
    "0.3, Table 1: 0.5)",
    "kappa_a_test": "test outlier magnitude κ_a'; reading: the paper says only κ_a' ∈ [κ_a, "
    "Θ(Vβp_a^(−1)κ_a^(−1)L^(−1)(1 − p_a)ε^(−1))] ([LM25] Thm 2 (b)), no value for Fig. 2 or Table 1; 2 = κ_a (our "
    "reading), the window's lower end",
    "K_test": "κ' ~ U(−K', K') of the irrelevant pattern at test ([LM25] Eq. 7: K' > 1; 1.5 not from the paper)",
    "label_mode": "labels of test outliers ([LM25] §4.1, Fig. 2): flip (A), targeted (B, target_label), random (C); "
    "for Table 1 a reading: the paper says none (§4.2), all three are run",
    "target_label": "the label of targeted outliers, +1 or −1 (not from the paper: +1 after Fig. 1's 'James Bond' "
    "example)",
    "placement": "bernoulli: each demonstration an outlier with probability α (Eq. 7); farthest (FQ), random (R), "
    "closest (CQ): exactly outlier_count outliers at those positions ([LM25] Table 1)",
    "outlier_count": "outliers per prompt for the placements farthest/random/closest; null means round(α·l_ts) (our "
    "reading of Table 1's α = 0.5: 10 at l_ts = 20; not from the paper)",
    "outlier_set": "test outlier directions: unseen = the three v'_s of [LM25] §4 (L = 0.3), v1/v2/v3 = one of them "
    "only, train = the training v*_s, sum_L = random unit λ with Σλ = outlier_sum (not from the paper)",
    "outlier_sum": "Σλ = L of the sum_L outliers, the threshold of 𝒱' ([LM25] Eq. 11; needs L² ≤ V)",
    "renormalise": "scale the three v'_s to norm 1 as Eq. 11 asks (the λ of [LM25] §4 give norms 1.005, 1.005, 0.995)",
    "eval_prompts": "test prompts per evaluation, the same set at every record (not from the paper, which gives no "
    "count)",
}
"""The meanings of the params whose meaning does not fit on their declaration's line."""

DATA = (
    Param.shape("d", 30, "input dimension d; tokens have d + 1 entries ([LM25] §4: 30)", low=2, high=4096),
    Param.shape("M1", 6, "number of relevant patterns μ_j ([LM25] §4: 6)", low=3, high=64, symbol="M₁"),
    Param.shape("M2", 10, "number of irrelevant patterns ν_k ([LM25] §4: 10)", low=1, high=4096, symbol="M₂"),
    Param.shape("V", 3, "number of training outlier directions v*_s ([LM25] §4: 3)", low=1, high=64),
    Param.shape("l_tr", 20, "training prompt length l_tr ([LM25] §4: 20)", low=1, high=10**4, symbol="l_tr"),
    Param.shape("batch_size", 64, MEANING["batch_size"], low=1, high=10**6, symbol="B"),
)

MODEL = (
    Param.shape("model", "mamba", MEANING["model"], choices=MODELS),
    Param.shape("layers", 1, "layers ([LM25] §4.1: 1; §4.2: 3)", low=1, high=16),
    Param.shape("hidden", None, MEANING["hidden"], type=int, low=1, high=10**5, symbol="h"),
    Param.shape("residual", True, MEANING["residual"]),
    Param.shape("lt_attention", "causal_mean", MEANING["lt_attention"], choices=LT_ATTENTIONS, added_later=True),
)

TRAIN = (
    Param.train("p_a", 0.6, MEANING["p_a"], low=0, high=1, symbol="p_a"),
    Param.train("beta", 3.0, "norm β of every μ_j, ν_k ([LM25] §4: 3)", low=0, low_open=True, symbol="β"),
    Param.train("kappa_a", 2.0, "training outlier magnitude κ_a ([LM25] §4: 2)", low=0, symbol="κ_a"),
    Param.shape("train_tasks", "cyclic", MEANING["train_tasks"], choices=TRAIN_TASK_SETS, added_later=True),
    Param.train("K", 0.5, MEANING["K"], low=0, symbol="K"),
    Param.train("delta", 0.2, MEANING["delta"], low=0, low_open=True, symbol="δ"),
)

EVAL = (
    Param.eval("alpha", 0.0, MEANING["alpha"], low=0, high=1, symbol="α"),
    Param.eval("kappa_a_test", 2.0, MEANING["kappa_a_test"], low=0, symbol="κ_a′"),
    Param.eval("K_test", 1.5, MEANING["K_test"], low=0, symbol="K′"),
    Param.eval("l_ts", 20, "test prompt length l_ts ([LM25] §4: 20)", low=1, high=10**4, symbol="l_ts"),
    Param.eval("label_mode", "flip", MEANING["label_mode"], choices=LABEL_MODES),
    Param.eval("target_label", 1, MEANING["target_label"], low=-1, high=1),
    Param.eval("placement", "bernoulli", MEANING["placement"], choices=PLACEMENTS),
    Param.eval("outlier_count", None, MEANING["outlier_count"], type=int, low=0, high=10**4),
    Param.eval("outlier_set", "unseen", MEANING["outlier_set"], choices=OUTLIER_SETS),
    Param.eval("outlier_sum", 0.3, MEANING["outlier_sum"], low=-8, high=8, symbol="L"),
    Param.eval("renormalise", True, MEANING["renormalise"]),
    Param.eval("eval_prompts", 4096, MEANING["eval_prompts"], low=1, high=10**7),
)


def _check(values: Mapping[str, Any]) -> str | None:
    d, M1, M2, V = values["d"], values["M1"], values["M2"], values["V"]
    if M1 + M2 + V > d:
        return f"M1 + M2 + V orthogonal directions must fit in d: M1 = {M1}, M2 = {M2}, V = {V}, d = {d}"
    if values["hidden"] is not None and values["hidden"] < d:
        return f"W_B, W_C start as δ on their first d diagonal entries: need hidden ≥ d = {d}, got {values['hidden']}"
    count, placement = values["outlier_count"], values["placement"]
    if count is not None and placement == "bernoulli":
        return "outlier_count places an exact number of outliers: set placement to farthest, random or closest"
    if count is not None and count > values["l_ts"]:
        return f"more outliers than demonstrations: outlier_count = {count} > l_ts = {values['l_ts']}"
    if values["outlier_set"] in ("unseen", "v1", "v2", "v3") and V < 3:
        return f"the unseen outliers of [LM25] §4 combine v*_1..v*_3 and need V ≥ 3, got V = {V}"
    if values["outlier_set"] == "sum_L" and values["outlier_sum"] ** 2 > V:
        return (
            f"a unit λ ∈ R^V has Σλ ≤ √V: outlier_sum = {values['outlier_sum']} needs V ≥ {values['outlier_sum'] ** 2}"
        )
    if values["target_label"] == 0:
        return "target_label must be +1 or −1, got 0"
    return None


_MEAN = "mean over test prompts"
METRICS = (
    Metric(
        "test_error",
        "fraction of test prompts classified wrongly, over all tasks ([LM25] Eq. 5; Thm 1–2: ≤ ε after T iterations)",
        headline=True,
    ),
    Metric("test_hinge", "mean hinge loss over the test prompts", headline=True),
    Metric(
        "error_trained",
        "test error on the M1 training tasks (cyclic offset 1; NaN when no prompt drew one)",
        headline=True,
    ),
    Metric(
        "hinge_trained",
        "hinge loss on the training tasks alone (the batch-size laws' criterion, no gap-2 floor; "
        "NaN when no prompt drew one)",
    ),
    Metric("error_reversed", "test error on reversed tasks (offset M1 − 1; NaN when no prompt drew one)"),
    Metric("error_gap#", "test error on gap-2 tasks (offset 2 or M1 − 2; NaN when no prompt drew one)"),
    Metric("error_other", "test error on the other tasks (NaN when no prompt drew one)"),
    Metric("error_v#", "test error with every outlier on unseen direction v′_# (outlier_set unseen only)"),
    Metric("outlier_fraction", "fraction of test demonstrations that are outliers (≈ p_a′ of the eval point)"),
    Metric(
        "M_offset#",
        "mean_j μ_jᵀ(W_BᵀW_C)μ_{j+#} over β²: a_i's matrix on the relevant directions at cyclic offset "
        "# (0 the diagonal, 1 the training pairs; [LM25] Lemma 3)",
    ),
    Metric("W_B_offset#", "the same reading of W_B alone"),
    Metric("W_C_offset#", "the same reading of W_C alone"),
    Metric(
        "w_outlier",
        "v*ᵀw, the gate weight on the training outlier directions ([LM25] Lemmas 4–5: grows "
        "negative, closing the gate on outliers; Mamba only)",
    ),
    Metric("w_relevant", "μᵀw/β, the gate weight on the relevant patterns (Mamba only)"),
    Metric("w_irrelevant", "νᵀw/β, the gate weight on the irrelevant patterns (Mamba only)"),
    Metric("w_label", "w_{d+1}, the gate weight on the label entry (Mamba only)"),
    Metric("w_unseen_v#", "v′_#ᵀw on unseen outlier direction # (Mamba only)"),
    Metric("attn_same", f"S_same = Σ_{{i∈N1}} a_i, {_MEAN} ([LM25] Cor. 1, Figs. 3, 5)"),
    Metric("attn_other", f"S_other = Σ_{{i∉N1}} a_i, {_MEAN}"),
    Metric("attn_gap", "S_same − S_other (Fig. 3: it grows)", headline=True),
    Metric("attn_same_each", "S_same/|N1|, per demonstration sharing the query's pattern (NaN when none does)"),
    Metric("attn_other_each", "S_other per other demonstration (NaN when there is none)"),
    Metric(
        "gate_outlier",
        "mean gate G_{i,l+1} of outlier demonstrations ([LM25] Cor. 2 (i), Fig. 4: → 0; NaN when "
        "the prompts hold no outlier, e.g. p_a′ = 0)",
        headline=True,
    ),
    Metric("gate_clean", "mean gate of clean demonstrations (NaN when there is none)"),
    Metric("sigma_outlier", "mean σ(wᵀp) of outlier demonstrations (NaN when there is none)"),
    Metric("sigma_clean", "mean σ(wᵀp) of clean demonstrations (NaN when there is none)"),
    Metric("gate_mass", "Σ_i G_i, the gates' total mass (< 1 by [LM25] Lemma 6)"),
    Metric("gate_outlier_mass", "Σ of the outliers' gates"),
    Metric("gate_chmean_outlier", "gate of outliers averaged over all d + 1 channels (a stack's layer; a check)"),
    Metric("gate_chmean_clean", "gate of clean demonstrations averaged over all channels (a stack's layer)"),
    Metric("gate_chmean_outlier_at#", "channel-mean gate of an outlier right before the query (final record)"),
    Metric("gate_chmean_clean_at#", "channel-mean gate of a clean demonstration right before the query"),
    Metric("gate_v#", "mean gate of outliers on unseen direction v′_# (outlier_set unseen only)"),
    Metric(
        "gate_outlier_at#",
        "mean gate of an outlier at distance # before the query (Fig. 4's bars; final record "
        "only; NaN when no prompt has an outlier there)",
    ),
    Metric(
        "gate_clean_at#",
        "mean gate of a clean demonstration at distance # before the query (final record; NaN when none is there)",
    ),
    Metric(
        "gate_clean_rank#",
        "mean gate of the #-th closest clean demonstration, G_h(#) ≥ Θ(2^−(#−1)) ([LM25] "
        "Eq. 18; final record; NaN when no prompt has that many)",
    ),
)


def _test_set_values(values: Mapping[str, Any]) -> int:
    """Floats of one config's test set held at once: a chunk of at most EVAL_CHUNK_PROMPTS prompts of l_ts + 1
    tokens of d + 1, and a label each (`StudyInfo.eval_values`)."""
    prompts = min(values["eval_prompts"], EVAL_CHUNK_PROMPTS)
    return prompts * ((values["l_ts"] + 1) * (values["d"] + 1) + 1)


MAMBA_OUTLIERS = StudyInfo(
    name="mamba_outliers",
    title="Mamba vs a linear Transformer in context with outliers: gates, thresholds in α, iterations vs l_tr",
    paper=PAPER,
    implementation="iclscale.papers.mamba_outliers.study:MambaOutliers",
    eval_values=_test_set_values,
    checks=(_check,),
    metrics=METRICS,
    params=(
        *DATA,
        *MODEL,
        *recipe_params(
            steps=1000,
            lr=0.1,
            optimizer="sgd",
            source="[LM25] Alg. 1: plain SGD; η = 0.1 and T = 1000 not from the paper (T where Mamba's "
            "training hinge has flattened); tuned by sweeps/mamba_outliers_tune.yaml (test error at "
            "α = 0.3): Mamba η = 0.10, T = 1000 (flat over η ∈ [0.05, 0.85]), the LT η = 0.011, T = 500",
        ),
        *TRAIN,
        *EVAL,
    ),
)

DECLARATIONS = (MAMBA_OUTLIERS,)

"""Params of the seed-003 study (torch-free). Paper: Yang, Kailkhura, Wang, Liang 2024, cited below as [Y24].

`cooccurrence` trains the one-layer transformer of [Y24] Eq. 1 (softmax attention W_K, W_Q, W_V and a
linear MLP aᵀW) by full-batch gradient descent on a fixed set of n sequences (Definition 2.1, App. A) to
tell whether the two target tokens μ1 and μ2 both occur, and records the quantities of the two-phase
analysis (§3–4, App. E–F) at log-spaced steps: attention scores, the MLP values G(μ), the per-type losses,
the gradient sums S_k and the gradient-flow time derivatives of the claims about rates.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from iclscale.trainer.params import Param, recipe_params
from iclscale.trainer.registry import Metric, StudyInfo

PAPER = (
    "Yang, Kailkhura, Wang, Liang. Training Dynamics of Transformers to Recognize Word Co-occurrence via "
    "Gradient Flow Analysis. NeurIPS 2024 (arXiv 2410.09605)"
)

SPECIAL_TOKENS = 3  # μ1, μ2 (the targets) and μ3 (the common token); μ4..μd are the random tokens R
INIT_PRESETS = ("theory", "kaiming_normal", "torch_default")
READOUTS = ("pm1_fixed", "init_fixed", "trainable")
TOKEN_MODES = ("iid", "distinct")


def type_counts(n: int) -> tuple[int, int, int, int]:
    """|I1|, |I2|, |I3|, |I4| = n/2, n/6, n/6, n/6 ([Y24] Assumption 2.3(i))."""
    return n // 2, n // 6, n // 6, n // 6


def random_slots(n: int, L: int) -> int:
    """Random-token occurrences in a training set: L−3 per type-1 sequence, L−2 for types 2 and 3, L−1 for
    type 4 ([Y24] Def. 2.1)."""
    n1, n2, n3, n4 = type_counts(n)
    return n1 * (L - 3) + (n2 + n3) * (L - 2) + n4 * (L - 1)


def _check_type_counts(values: Mapping[str, Any]) -> str | None:
    n = values["n"]
    if n % 6:
        return (
            f"n = {n} cannot hold the exact type counts n/2, n/6, n/6, n/6 of Assumption 2.3(i); "
            f"n must be a multiple of 6 (the paper: 60 = 30 + 10 + 10 + 10)"
        )
    if values["n_test"] % 6:
        return f"n_test = {values['n_test']} must be a multiple of 6 (exact type proportions 1/2, 1/6, 1/6, 1/6)"
    return None


def _check_vocabulary(values: Mapping[str, Any]) -> str | None:
    if values["tokens"] != "distinct":
        return None
    needed = SPECIAL_TOKENS + random_slots(values["n"], values["L"])
    if values["d"] < needed:
        return (
            f"tokens: distinct needs d ≥ 3 + n1(L−3) + (n2+n3)(L−2) + n4(L−1) = {needed} for n = {values['n']}, "
            f"L = {values['L']} (Assumption 2.3(ii): every random token once), got d = {values['d']}"
        )
    return None


def _dtype_param(recipe: tuple[Param, ...]) -> tuple[Param, ...]:
    """The recipe of App. A, whose float type the paper does not give."""
    meaning = (
        "float type end to end; float64 not from the paper (attention-score changes of 1e-5–1e-6 "
        "in the theory regime are below float32's resolution of the scores)"
    )
    return tuple(dataclasses.replace(p, meaning=meaning) if p.name == "dtype" else p for p in recipe)


METRICS = (
    Metric("test_loss", "logistic loss ℓ(yF) = log(1 + e^{−yF}) on fresh test sequences ([Y24] Eq. 2)", headline=True),
    Metric("test_error", "fraction of test sequences classified wrongly", headline=True),
    Metric("loss", "training loss L̂, the mean logistic loss over the training set ([Y24] Eq. 2)", headline=True),
    Metric("loss_type#", "mean training loss over the sequences of type # (I_#; Fig. 1b)"),
    Metric(
        "min_margin",
        "min_i y_iF_i over the training set (> 0: every sample correct; T1 is the first time, our reading of Thm 3.1)",
        headline=True,
    ),
    Metric("min_margin_type#", "min_i y_iF_i over the sequences of type #"),
    Metric("max_abs_output", "max_i |F(X_i)| over the training set; Lemma D.8 asks ≤ 0.01 at t = 0 ([Y24] App. D)"),
    Metric(
        "conserved_value_drift",
        "‖(WᵀW − W_V W_Vᵀ)(t) − (WᵀW − W_V W_Vᵀ)(0)‖_F: conserved by gradient flow, so its drift measures how far "
        "GD departs from the flow (O(η))",
    ),
    Metric(
        "conserved_key_query_drift",
        "‖(W_K W_Kᵀ − W_Q W_Qᵀ)(t) − (W_K W_Kᵀ − W_Q W_Qᵀ)(0)‖_F: conserved by gradient flow (drift O(η) under GD)",
    ),
    Metric("G#", "G(μ_#) = uᵀW_Vμ_#, the linear sub-network on special token # ([Y24] Eq. 4)"),
    Metric("G_margin_type#", "the sub-network's margin on a type-# sequence (Thm 3.2 (iv))"),
    Metric("G_signal_min", "min(G1, G2, −G3) (≥ c: the time T1_G(c), ours)"),
    Metric("G_random_max", "max |G(μ_r)| over the training set's random tokens (Lemma F.14)"),
    Metric("G_random_mean", "mean |G(μ_r)| over the training set's random tokens"),
    Metric("u_norm2", "‖Wᵀa‖², the readout's squared norm ([Y24] Eq. 5)"),
    Metric(
        "A##",
        "key–query score A_ij = μ_iᵀW_KᵀW_Qμ_j between special tokens i (key) and j (query) (Fig. 1a, Thm 3.2 (i))",
    ),
    Metric("v##", "value Gram ⟨W_Vμ_i, W_Vμ_j⟩ (Thm 3.2 (ii))"),
    Metric("p##", "mean softmax weight query μ_i puts on key μ_j over type-1 sequences (Cor. F.17)"),
    Metric("attention_max_change", "max |p(t) − p(0)| of any softmax weight since initialisation (Def. F.1: O(1/L²))"),
    Metric("key_gram_drift", "max change of the key Gram matrix since initialisation (Thm E.28, Lemma F.19)"),
    Metric("query_gram_drift", "max change of the query Gram matrix since initialisation"),
    Metric("value_gram_drift", "max change of the value Gram matrix since initialisation"),
    Metric("neuron_gram_drift", "max change of ⟨w_j1, w_j2⟩ over all neuron pairs since initialisation"),
    Metric("score_change_special", "max change of the key–query scores among special tokens (Thm 3.3)"),
    Metric("score_change_random_key", "max change of scores with a random token as key, μ1–μ3 as query"),
    Metric("score_change_random_query", "max change of scores with a random token as query"),
    Metric("score_change_random_pair", "max change of scores between random tokens"),
    Metric("random_score_change_ratio", "max |C_{i,γ}| / |C12|, random tokens' score change against A12 (Thm 3.3)"),
    Metric("S#", "S_# = Σ_{i∈I_#} g_i with g_i = 1/(1 + e^{y_iF_i}), the gradient mass of type # (§4.2)"),
    Metric("R", "R(t) = (S2 + S3 + S4 − S1)/(S1 − S2) ≈ −Ġ3/Ġ1 (§4.2)"),
    Metric("R_prime", "R′(t) = (S2 + S3 + S4 − S1)/(S1 − S3) ≈ −Ġ3/Ġ2"),
    Metric(
        "R_star",
        "R*, the root with c/a ≈ −2 that R(t) settles at (App. F.1 prints c/a = (1 ± …)·2; the root is real for "
        "c/a < 0: our reading)",
    ),
    Metric("balance_23", "|S2 − S3| / min(S2, S3) (Lemma 4.4: ≤ C ≪ 1)"),
    Metric("S2_over_S3", "S2/S3 (Def. F.1: in [1/2, 2])"),
    Metric("S_ordering", "1 when S4 ≤ min(S2, S3) ≤ max(S2, S3) ≤ S1 ≤ S2 + S3 + S4 (Def. F.1's ordering), else 0"),
    Metric("S_over_S234_minus_S1", "S/(S2 + S3 + S4 − S1) (Lemma 4.5: O(1), positive)"),
    Metric("S_over_S1_minus_S2", "S/(S1 − S2)"),
    Metric("S_over_S1_minus_S3", "S/(S1 − S3)"),
    Metric("g_spread", "max over types of max g_i / min g_i within the type (Cor. F.2: O(1))"),
    Metric("rate_G_random_median", "median |Ġ(μ_r)| over seen random tokens (≈ (3/n)·Ġ1 at t = 0, Lemma E.6)"),
    Metric("rate_G3_over_G1", "Ġ3/Ġ1 (Lemma 4.2: small at t = 0)"),
    Metric("rate_G3_lower", "−Ġ3 / max(Ġ1, Ġ2) (Lemmas 4.3, 4.5: ≥ 1 + C)"),
    Metric("rate_G3_upper", "−Ġ3 / (Ġ1 + Ġ2) (Lemmas 4.3, 4.5: ≤ 1 − C)"),
    Metric("rate_margin_spread", "max/min of the margins' rates (Thm F.8: every margin grows at one rate)"),
    Metric("rate_margin_min", "the smallest margin rate (> 0: every sample's margin grows; Thm F.8)"),
    Metric("rate_A12_over_loss", "Ȧ12 / L̂ (Lemma 4.7: Θ̃(σ0²√m/L))"),
    Metric("loss_rate_ratio", "−(dL̂/dt) / (‖Wᵀa‖² L̂²) (Thm F.8: Θ(1))"),
    Metric("u_norm2_rate_identity", "(2‖a‖²/n) Σ_i g_i y_iF_i, Eq. 5's right-hand side (equals d‖Wᵀa‖²/dt)"),
    Metric(
        "rate_*",
        "rate_X: X's exact gradient-flow rate dX/dt along −∇L̂ (forward-mode autograd; Lemmas 4.1–4.3, 4.7, "
        "F.4, F.11; the chain rule under §2.2's flow)",
    ),
)


MEANING = {
    "d": "vocabulary size = token dimension d; tokens are the one-hot μ_i = e_i (App. A: 64)",
    "L": "tokens per sequence L (App. A: 5); L ≥ 3, since a type-1 sequence holds μ1, μ2 and μ3 (Def. 2.1)",
    "n": "training sequences n, a multiple of 6 for the exact type counts n/2, n/6, n/6, n/6 (App. A: 60 = 30 + 10 + "
    "10 + 10)",
    "tokens": "random tokens: iid = uniform over R with repeats (Def. 2.1; App. A's d = 64 < nL forces it), distinct = "
    "every random token of the training set a different word (Assumption 2.3(ii))",
    "init": "initialisation preset: theory = N(0, s0²) for W_Q, W_K, W_V and N(0, s1²) for W with s0 = c0/√(Lm), s1 = "
    "c1/√m1 (§2.2, Condition 1); kaiming_normal = N(0, 2/fan_in); torch_default = nn.Linear's U(±1/√fan_in). App. A "
    "says only 'Kaiming'. The default torch_default is a 'Kaiming' reading whose runs show Fig. 1's phases on its "
    "epoch axis (T1 ≈ 1400–2000 of 30000 epochs, the type-2/3 losses peaking at ≈ 550 epochs); theory "
    "meets all four of our Figure 1 criteria but ends Phase 1 after ≈ 80 epochs; kaiming_normal with a = ±1 after ≈ 15 "
    "(README). Not from the paper",
    "readout": "MLP output weights a: pm1_fixed = a_j ~ U{±1}, fixed (the theory, §2.2); init_fixed = drawn by the "
    "init preset (±1 for theory), fixed; trainable = that draw, trained. The default init_fixed is not from the paper "
    "(App. A does not say)",
    "c0": "init theory: s0 = c0/√(Lm) (Condition 1 has s0 = 1/Θ̃(√(Lm)); c0 = 0.1, keeping |F(0)| ≈ c0·c1 ≤ 0.01 as "
    "Lemma D.8 needs, is not from the paper)",
    "c1": "init theory: s1 = c1/√m1 (Condition 1 has s1 = 1/Θ̃(√m1); c1 = 0.1 not from the paper)",
    "n_test": "fresh test sequences from D (Def. 2.1, random tokens iid), exact type proportions; the paper reports no "
    "test set (3000 not from the paper)",
}
"""The meanings of the params whose meaning does not fit on their declaration's line."""


def _test_set_values(values: Mapping[str, Any]) -> int:
    """Values of one config's test set: n_test sequences of L tokens and a label each (`StudyInfo.eval_values`)."""
    return values["n_test"] * (values["L"] + 1)


COOCCURRENCE = StudyInfo(
    name="cooccurrence",
    title="A one-layer transformer learns word co-occurrence by gradient flow in two phases",
    paper=PAPER,
    implementation="iclscale.papers.cooccurrence.study:Cooccurrence",
    eval_values=_test_set_values,
    checks=(_check_type_counts, _check_vocabulary),
    metrics=METRICS,
    params=(
        Param.shape("d", 64, MEANING["d"], low=4, high=65536, symbol="d"),
        Param.shape("L", 5, MEANING["L"], low=3, high=1024, symbol="L"),
        Param.shape("n", 60, MEANING["n"], low=6, high=10**6, symbol="n"),
        Param.shape("m", 128, "width m of W_Q, W_K, W_V; scores scale 1/√m (App. A: 128)", low=1, high=65536),
        Param.shape("m1", 256, "MLP neurons m1 (App. A: 256)", low=1, high=65536, symbol="m₁"),
        Param.shape("tokens", "iid", MEANING["tokens"], choices=TOKEN_MODES),
        Param.shape("init", "torch_default", MEANING["init"], choices=INIT_PRESETS),
        Param.shape("readout", "init_fixed", MEANING["readout"], choices=READOUTS),
        *_dtype_param(
            recipe_params(
                steps=30_000,
                lr=0.01,
                optimizer="gd",
                optimizers=("gd",),
                dtype="float64",
                source="App. A: full-batch gradient descent, learning rate 0.01, 30000 epochs",
            )
        ),
        Param.train("c0", 0.1, MEANING["c0"], low=0, low_open=True, symbol="c₀"),
        Param.train("c1", 0.1, MEANING["c1"], low=0, low_open=True, symbol="c₁"),
        Param.eval("n_test", 3000, MEANING["n_test"], low=6, high=10**6),
    ),
)

DECLARATIONS = (COOCCURRENCE,)

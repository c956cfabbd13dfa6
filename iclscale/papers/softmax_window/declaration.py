"""Params of the seed-004 studies (torch-free). Paper: Collins et al. 2024, cited below as [C24].

`softmax_window` trains the attention unit; `softmax_window_oracle` measures the loss ℒ(w) of
M = w·I by Monte Carlo and its minimiser w*, which by [C24] Lemma B.5 is the form of every
minimiser for isotropic data — exponent fits without training noise (our method, not the paper's).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from iclscale.trainer.params import Param, recipe_params
from iclscale.trainer.registry import Metric, StudyInfo

PAPER = (
    "Collins, Parulekar, Mokhtari, Sanghavi, Shakkottai. In-Context Learning with Transformers: "
    "Softmax Attention Adapts to Function Lipschitzness. NeurIPS 2024 (arXiv 2402.11639)"
)

FULL_RANK_CLASSES = ("affine", "relu", "cos", "linear")
LOW_RANK_CLASSES = ("lowrank_linear", "lowrank_affine", "lowrank_quadratic", "lowrank_cos")
TASK_CLASSES = (*FULL_RANK_CLASSES, "hills", *LOW_RANK_CLASSES)
TASK_CLASS_MEANING = (
    "task class: affine F_L^aff and relu F_L^+ (Def 3.2), cos F_L^cos and linear F_L^lin (§3), "
    "hills F_ν,hills (Fig 1, d = 2), lowrank_linear F_B^lin (Def 4.2), lowrank_affine aᵀBᵀx + 2, "
    "lowrank_quadratic (aᵀBᵀx)², lowrank_cos cos(4aᵀBᵀx) (App J.1)"
)

MEANING = {
    "covariates": "covariates: isotropic U^d, nonisotropic U^d_S with S_d = diag(1..d) (§3.2), lowrank_gaussian "
    "J̃x̃/‖J̃x̃‖ with J̃ = (JᵀJ)^{1/2}, J drawn once per trial (App J.1, our reading), lowrank_gaussian_task the "
    "same with J drawn anew for every task (App J.1: 'for each task')",
    "attention": "attention activation: softmax (eq. ICL) or linear (Remark 2.2, Thm 3.6)",
    "hills_mode": "reading of F_ν,hills (Fig 1; the OCR is garbled): frequency cos(ν(θ−b)) (default, not from the "
    "paper) or amplitude ν·cos(θ−b) (the OCR's literal text)",
    "L": "Lipschitz constant L of the task class (Def 3.2; the frequency for cos); low-rank classes use a ~ L·U^k, "
    "which is the paper's a ~ U^k at L = 1 (L ≠ 1 not from the paper)",
    "queries": "N query points per context in the loss; 0 means N = ⌊√n⌋ ([C24] App J; the OCR's '|/n]' read as "
    "floor); Fig 4's n-sweep uses N = 1",
    "tasks_per_iter": "tasks per iteration; the paper samples one task per iteration (§3.2, App J)",
    "linear_norm": "linear attention scale: none (the paper) or n, dividing by n (not from the paper)",
    "train_set_tasks": "tasks in the fixed training set of optimizer gd (full-batch gradient descent); not from the "
    "paper, which draws fresh tasks every iteration",
    "init_scale": "initialisation M_K = M_Q = c·I ([C24] App J: c = 0.001, OCR '0.0011')",
    "L_test": "Lipschitz constant L' of the test tasks (Thm 3.5 transfer); null means the training L",
    "test_class": "task class of the test tasks (Fig 5); null means the training class",
    "test_tasks": "test tasks per evaluation, one fixed set per config across records (not from the paper: Fig 5 used "
    "5 fresh tasks per iteration with EMA smoothing, Fig 9 used 500)",
    "oracle task_class": "task class (see softmax_window); the oracle covers the full-rank ones",
    "oracle covariates": "covariates: isotropic U^d (the theorem's setting) or nonisotropic U^d_S (§3.2)",
    "mc_tasks": "Monte-Carlo tasks for ℒ(w), shared by every w (common random numbers; 10^4–10^6 is our suggested "
    "range; the default is not from the paper)",
}
"""The meanings of the params whose meaning does not fit on their declaration's line."""

D = Param.shape("d", 5, "input dimension d; x ∈ S^{d−1} ([C24] §2; Figs 3–5 use 5)", low=1, high=4096, symbol="d")
N_CONTEXT = Param.shape("n", 20, "context length n, labelled examples ([C24] §3.2: 20)", low=1, high=10**6, symbol="n")

COVARIATES = Param.shape(
    "covariates",
    "isotropic",
    MEANING["covariates"],
    choices=("isotropic", "nonisotropic", "lowrank_gaussian", "lowrank_gaussian_task"),
)
ATTENTION = Param.shape("attention", "softmax", MEANING["attention"], choices=("softmax", "linear"))
HILLS_MODE = Param.shape("hills_mode", "frequency", MEANING["hills_mode"], choices=("frequency", "amplitude"))
RANK = Param.shape("k", 2, "rank k of the low-rank tasks' subspace B ([C24] App J.1: 2)", low=1, high=4096, symbol="k")
LIPSCHITZ = Param.train("L", 1.0, MEANING["L"], low=0, low_open=True, symbol="L")
SIGMA = Param.train("sigma", 0.01, "label-noise std σ, ε ~ N(0, σ²) ([C24] §3.2: 0.01)", low=0, symbol="σ")
NU = Param.train("nu", 1.5, "ν of the hills tasks (Fig 1: 0, 1.5, 6); unused by other classes", low=0, symbol="ν")

WINDOW_METRICS = (
    Metric(
        "M_spectral_norm",
        "‖M‖₂ of the learned M = M_KᵀM_Q, the inverse window scale the attention adapts ([C24] Thm 3.4, Figs 3–4)",
        headline=True,
    ),
    Metric(
        "test_mse",
        "mean squared ICL error on fresh test tasks of the eval point's class and L ([C24] eq. ICL)",
        headline=True,
    ),
    Metric(
        "M_isotropy_ratio",
        "σ_max(M)/σ_min(M), the condition number of M: 1 when M ∝ I, the form of every minimiser on isotropic "
        "data ([C24] Lemma B.5); large when M has picked out directions",
    ),
    Metric("M_anisotropy", "‖M − mean(diag M)·I‖_F / ‖M‖_F: the part of M that is not a multiple of I (0 for M ∝ I)"),
    Metric(
        "rho_MB",
        "ρ(M, B) = ‖B_⊥ᵀMB_⊥‖₂ / σ_min(BᵀMB), spurious weight off the task subspace B ([C24] App J.1, "
        "Fig 9; low-rank classes only)",
        headline=True,
    ),
    Metric("rho_MB_rows", "ρ(M, B) read as ‖B_⊥ᵀM‖₂ / σ_min(BᵀMB) (the garbled App J.1 formula's second reading)"),
    Metric("rho_MB_fro", "ρ(M, B) with the Frobenius norm: ‖B_⊥ᵀMB_⊥‖_F / σ_min(BᵀMB) (third reading)"),
)

ORACLE_METRICS = (
    Metric(
        "w_star",
        "w*, the minimiser of the ICL loss ℒ(w) of M = w·I by Monte Carlo (the optimal inverse "
        "window scale; [C24] Thm 3.4: w* ≍ Λ^{2/(d+2)} with Λ = nL²/σ²)",
        headline=True,
    ),
    Metric("oracle_loss", "ℒ(w*), the ICL loss at the minimiser", headline=True),
    Metric(
        "w_star_at_grid_edge",
        "1 when w* is at an end of the w grid [w_min, w_max] (then w* is a bound, not a "
        "minimum: widen the grid), else 0",
    ),
    Metric(
        "regime_window",
        "1 when w_KQ = w*/2 ≥ d + √d, the window condition of [C24] Lemma C.5 used by Thm 3.4's proof, else 0",
        regime="[C24] Thm 3.4's proof, Lemma C.5: w_KQ ≥ d + √d (small Λ = nL²/σ² gives a wide window outside it)",
    ),
    Metric(
        "regime_noise_lemma",
        "1 when w_KQ ≤ (n / log n)^{2/d}, the condition of [C24] Lemma D.1, else 0",
        regime="[C24] Lemma D.1: w_KQ ≤ (n / log n)^{2/d}",
    ),
    Metric(
        "regime_context",
        "1 when n ≥ (L²/σ²)^{d/2} (relu; (d+2)/2 for affine), enough context for Thm 3.4's bound ([C24] App E), else 0",
        regime="[C24] App E: n ≳ (L²/σ²)^{d/2} for relu, ^{(d+2)/2} for affine",
    ),
)


def _check_classes(values: Mapping[str, Any]) -> str | None:
    classes = {values["task_class"], values.get("test_class") or values["task_class"]}
    if "hills" in classes and values["d"] != 2:
        return f"the hills task class lives on the circle and needs d = 2, got d = {values['d']}"
    if classes & set(LOW_RANK_CLASSES) and not values["k"] < values["d"]:
        return f"low-rank task classes need k < d, got k = {values['k']}, d = {values['d']}"
    return None


def _check_w_grid(values: Mapping[str, Any]) -> str | None:
    if not values["w_min"] < values["w_max"]:
        return f"w_min must be below w_max, got w_min = {values['w_min']}, w_max = {values['w_max']}"
    return None


def _test_set_values(values: Mapping[str, Any]) -> int:
    """Floats of one config's test set at an eval point: test_tasks contexts of n labelled points and N queries
    (N = ⌊√n⌋ where `queries` is 0), each x in R^d with its label (`StudyInfo.eval_values`)."""
    queries = values["queries"] or math.isqrt(values["n"])
    return values["test_tasks"] * (values["n"] + queries) * (values["d"] + 1)


SOFTMAX_WINDOW = StudyInfo(
    name="softmax_window",
    title="A softmax attention unit learns its window scale from Lipschitzness and noise",
    paper=PAPER,
    implementation="iclscale.papers.softmax_window.study:SoftmaxWindow",
    eval_values=_test_set_values,
    checks=(_check_classes,),
    metrics=WINDOW_METRICS,
    params=(
        D,
        N_CONTEXT,
        Param.shape("queries", 0, MEANING["queries"], low=0, high=10**6, symbol="N"),
        Param.shape("tasks_per_iter", 1, MEANING["tasks_per_iter"], low=1, high=10**6),
        Param.shape("task_class", "relu", TASK_CLASS_MEANING, choices=TASK_CLASSES),
        COVARIATES,
        ATTENTION,
        Param.shape("linear_norm", "none", MEANING["linear_norm"], choices=("none", "n")),
        Param.shape("tied", True, "tie M_K = M_Q, so M = M_Kᵀ M_K ([C24] App J)"),
        RANK,
        HILLS_MODE,
        Param.shape("train_set_tasks", 256, MEANING["train_set_tasks"], low=1, high=10**6),
        *recipe_params(
            steps=1500,
            lr=0.1,
            schedule="exponential",
            lr_decay=0.999,
            optimizer="adam",
            optimizers=("adam", "sgd", "gd"),
            source="[C24] App J, Figs 3 and 5",
        ),
        LIPSCHITZ,
        SIGMA,
        NU,
        Param.train("init_scale", 0.001, MEANING["init_scale"], low=0, symbol="c"),
        Param.eval("L_test", None, MEANING["L_test"], type=float, low=0, low_open=True, symbol="L′"),
        Param.eval("test_class", None, MEANING["test_class"], type=str, choices=TASK_CLASSES),
        Param.eval("test_tasks", 256, MEANING["test_tasks"], low=1, high=10**6),
    ),
)

MC_CHUNK_VALUES = 2**20
"""Monte Carlo tasks are drawn in chunks of about this many floats per config (the oracle's `loss_sums`)."""


def mc_chunk_tasks(values: Mapping[str, Any]) -> int:
    """Monte Carlo tasks of one chunk: about MC_CHUNK_VALUES floats of x, whatever the pack (so that a config's
    sample is the same in any pack), at least one task."""
    return min(values["mc_tasks"], max(1, MC_CHUNK_VALUES // ((values["n"] + 1) * values["d"])))


def _monte_carlo_values(values: Mapping[str, Any]) -> int:
    """Floats of one config's Monte Carlo sample held at once: a chunk of tasks of n context points and a query,
    each x in R^d with its label (`StudyInfo.eval_values`; the oracle measures in its probes, at every point)."""
    return mc_chunk_tasks(values) * (values["n"] + 1) * (values["d"] + 1)


SOFTMAX_WINDOW_ORACLE = StudyInfo(
    name="softmax_window_oracle",
    title="The optimal window scale w* of M = w·I, by Monte Carlo with common random numbers",
    paper=PAPER,
    implementation="iclscale.papers.softmax_window.oracle:SoftmaxWindowOracle",
    eval_values=_monte_carlo_values,
    checks=(_check_classes, _check_w_grid),
    metrics=ORACLE_METRICS,
    params=(
        D,
        N_CONTEXT,
        Param.shape("task_class", "relu", MEANING["oracle task_class"], choices=(*FULL_RANK_CLASSES, "hills")),
        Param.shape("covariates", "isotropic", MEANING["oracle covariates"], choices=("isotropic", "nonisotropic")),
        ATTENTION,
        HILLS_MODE,
        Param.shape("mc_tasks", 4096, MEANING["mc_tasks"], low=16, high=10**8),
        Param.shape("w_min", 0.1, "smallest w of the log-grid (not from the paper)", low=0, low_open=True),
        Param.shape("w_max", 1e4, "largest w of the log-grid (not from the paper)", low=0, low_open=True),
        Param.shape("w_points", 81, "points of the log-grid of w (not from the paper)", low=3, high=10**5),
        LIPSCHITZ,
        SIGMA,
        NU,
    ),
)

DECLARATIONS = (
    SOFTMAX_WINDOW,
    SOFTMAX_WINDOW_ORACLE,
)

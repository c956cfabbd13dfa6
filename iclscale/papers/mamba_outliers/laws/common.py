"""What the laws of seed 002 share. Li, Lu, Cui, Chen, Wang, "Can Mamba Learn In Context with Outliers? A
Theoretical Generalization Analysis" (arXiv 2510.00399, 2025), cited as [LM25].

Theorems 1–4 are sufficient conditions with O(ε) and unnamed constants; the figures' statements give numbers
(Fig. 2: "< 0.01"). The ε of each law is the ε it measures at, and its regime checks the training theorems'
conditions (Thm 1/3 (i), (ii), which depend on ε) at that same ε (not from the paper): the iteration laws read T
where the training hinge reaches 0.5 (`iterations.HINGE_EPSILON`), the batch laws B* where the clean-prompt hinge
reaches 0.01 (the sweeps' threshold level), the generalisation laws of Thms 2, 4, Cors. 1, 2 and the κ_a window the
error or hinge at THEOREM_EPSILON = 0.1 (B_T = 231 with constants 1; at the figure's 0.01 B_T ≈ 4.6·10⁴); Fig. 2's
own statement is judged at its "< 0.01" (EPSILON).
"""

from __future__ import annotations

import numpy as np

LM25 = "Li, Lu, Cui, Chen, Wang 2025 [LM25] (arXiv 2510.00399)"
STUDY = "mamba_outliers"
S = f"{STUDY}."
EPSILON = 0.01  # [LM25] §4.1, Fig. 2: "smaller than 0.01"; the paper's experiments are judged at it
# ε of the Thms 2, 4 / Cors. 1, 2 / κ_a window laws: not from the paper (B_T = 231 at constants 1)
THEOREM_EPSILON = 0.1
ONE_LAYER = {"layers": (1,)}  # §4.1's one-layer models (Theorems 1–4)


# The training theorems' hypotheses on the params, each labelled (the paper's ≳ hides the constants) -------------
TRAINING_PARTS = ("batch", "kappa_low", "kappa_high", "l_tr", "step", "layers")
KAPPA = ("kappa_low", "kappa_high")


def named(*names: str) -> tuple[str, ...]:
    """The laws' full names, `mamba_outliers.<name>`."""
    return tuple(S + name for name in names)


def _number(rows, name):
    return rows[name].astype(float).to_numpy()


def _mamba(rows):
    return (rows["model"] == "mamba").to_numpy() if "model" in rows else np.ones(len(rows), bool)


def _clean(rows):
    return np.clip(1 - _number(rows, "p_a"), 1e-12, None)


def batch_floor(rows, epsilon: float):
    """[LM25] Thm 1 (i)'s B_M for Mamba rows, Thm 3 (i)'s B_T for the LT's, at ε (constants 1):
    B_T = max{ε⁻², M1(1 − p_a)⁻¹}·ln ε⁻¹, B_M = max{B_T, β⁻⁴V²κ_a⁻²(1 − p_a)⁻²·ln ε⁻¹}."""
    log_eps = np.log(1 / epsilon)
    clean = _clean(rows)
    b_t = np.maximum(epsilon**-2, _number(rows, "M1") / clean) * log_eps
    with np.errstate(divide="ignore"):
        term = _number(rows, "beta") ** -4 * _number(rows, "V") ** 2 * _number(rows, "kappa_a") ** -2 * clean**-2
    return np.where(_mamba(rows), np.maximum(b_t, term * log_eps), b_t)


def kappa_upper(rows, epsilon: float):
    """[LM25] Thm 1 (ii), Thm 3 (ii): κ_a ≲ Vβ(1 − p_a)p_a⁻¹ε⁻¹ (no bound at p_a = 0)."""
    p_a = _number(rows, "p_a")
    with np.errstate(divide="ignore"):
        return np.where(p_a > 0, _number(rows, "V") * _number(rows, "beta") * (1 - p_a) / (p_a * epsilon), np.inf)


def training_conditions(epsilon: float, without: tuple[str, ...] = ()):
    """[LM25] Thm 1's conditions (i)–(iii) for Mamba rows, Thm 3's for the LT's, η ≤ 1 and one layer (both theorems'
    model), as labelled conditions at ε: (i) the batch, (ii) κ_a's window and (iii) l_tr ≳ (1 − p_a)⁻¹ ln M1 carry
    the hidden constants of the paper's ≳; η ≤ 1 and the one layer are explicit. `without`: the parts a law
    measures (TRAINING_PARTS; "kappa" for both ends of (ii))."""
    from iclscale.analysis.law import EXPLICIT, HIDDEN_CONSTANT, Condition

    def kappa_low(rows):  # Mamba only: the LT's Thm 3 (ii) has no lower end
        ratio = _number(rows, "kappa_a") / (_number(rows, "V") * _number(rows, "beta") ** -4)
        return np.where(_mamba(rows), ratio, np.inf)

    def layers(rows):
        return _number(rows, "layers") == 1 if "layers" in rows else np.ones(len(rows), bool)

    conditions = {
        "batch": Condition(
            f"B ≥ B_M (Mamba, Thm 1 (i)) or B_T (LT, Thm 3 (i)) at ε = {epsilon:g}: B_T = max{{ε⁻², M1(1 − p_a)⁻¹}}·"
            "ln ε⁻¹, B_M = max{B_T, β⁻⁴V²κ_a⁻²(1 − p_a)⁻²·ln ε⁻¹}",
            HIDDEN_CONSTANT,
            lambda rows: _number(rows, "batch_size") / batch_floor(rows, epsilon),
        ),
        "kappa_low": Condition("κ_a ≳ Vβ⁻⁴ (Mamba, Thm 1 (ii))", HIDDEN_CONSTANT, kappa_low),
        "kappa_high": Condition(
            f"κ_a ≲ Vβ(1 − p_a)p_a⁻¹ε⁻¹ at ε = {epsilon:g} (Thms 1 (ii), 3 (ii))",
            HIDDEN_CONSTANT,
            lambda rows: kappa_upper(rows, epsilon) / _number(rows, "kappa_a"),
        ),
        "l_tr": Condition(
            "l_tr ≳ (1 − p_a)⁻¹ ln M1 (Thms 1 (iii), 3 (iii))",
            HIDDEN_CONSTANT,
            lambda rows: _number(rows, "l_tr") * _clean(rows) / np.log(_number(rows, "M1")),
        ),
        "step": Condition("η ≤ 1", EXPLICIT, lambda rows: _number(rows, "lr") <= 1),
        "layers": Condition("one layer (the theorems' model)", EXPLICIT, layers),
    }
    left_out = set(without) | (set(KAPPA) if "kappa" in without else set())
    return tuple(conditions[p] for p in TRAINING_PARTS if p not in left_out)


def trained_regime(epsilon: float, without: tuple[str, ...] = (), also=(), source: str = "trained inside Thms 1/3"):
    """A Regime: the training theorems' conditions at ε (but `without`) after a law's own (`also`: Conditions)."""
    from iclscale.analysis.law import Regime

    return Regime.of(f"[LM25] {source}", (*also, *training_conditions(epsilon, without)), epsilon=epsilon)


def trained_as_the_theorems_say(rows, epsilon: float, without: tuple[str, ...] = ()):
    """Whether each row meets the training theorems' conditions at ε with constants 1 (`training_conditions`)."""
    return trained_regime(epsilon, without).on_params(rows)


READING_DEFAULTS = {"train_tasks": "cyclic", "lt_attention": "causal_mean"}
"""The readings added as params after results were stored (iclscale/papers/mamba_outliers/declaration.py): a
results table from before them has no column, and ran at these values."""


def reading(runs, name: str, allowed: tuple[str, ...]):
    """The rows whose reading `name` is one of `allowed`; rows stored before the param existed count as its
    default."""
    values = runs[name].fillna(READING_DEFAULTS[name]) if name in runs else READING_DEFAULTS[name]
    keep = values.isin(allowed) if name in runs else values in allowed
    return runs[keep] if name in runs else (runs if keep else runs.iloc[0:0])

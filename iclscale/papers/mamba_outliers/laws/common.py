"""What the laws of seed 002 share. Li, Lu, Cui, Chen, Wang, "Can Mamba Learn In Context with Outliers? A
Theoretical Generalization Analysis" (arXiv 2510.00399, 2025), cited as [LM25].

Theorems 1–4 are sufficient conditions with O(ε) and unnamed constants; the figures' statements give numbers
(Fig. 2: "< 0.01"). ε = 0.01 throughout is the figure's number, used for the theorems too (not from the paper).
"""

from __future__ import annotations

LM25 = "Li, Lu, Cui, Chen, Wang 2025 [LM25] (arXiv 2510.00399)"
STUDY = "mamba_outliers"
EPSILON = 0.01  # [LM25] §4.1, Fig. 2: "smaller than 0.01"; the theorems' ε has no number
ONE_LAYER = {"layers": (1,)}  # §4.1's one-layer models (Theorems 1–4)


# The training theorems' hypotheses on the params, constants 1 (the paper's ≳ hides them; not from the paper) ----
TRAINING_PARTS = ("batch", "kappa", "l_tr", "step")
TRAINING_WORDS = {
    "batch": "B ≥ B_M = max{B_T, β⁻⁴V²κ_a⁻²(1 − p_a)⁻² ln ε⁻¹} (Mamba, Thm 1 (i)) or B_T = max{ε⁻², M1(1 − p_a)⁻¹} "
    "ln ε⁻¹ (LT, Thm 3 (i))",
    "kappa": "Vβ⁻⁴ ≤ κ_a (Mamba only) and κ_a ≤ Vβ(1 − p_a)p_a⁻¹ε⁻¹ (Thms 1 (ii), 3 (ii))",
    "l_tr": "l_tr ≥ (1 − p_a)⁻¹ ln M1 (Thms 1 (iii), 3 (iii))",
    "step": "η ≤ 1, one layer",
}


def trained_as_the_theorems_say(rows, without: tuple[str, ...] = ()):
    """[LM25] Thm 1's conditions (i)–(iii) for Mamba, Thm 3's for the LT, η ≤ 1 and one layer (both theorems'
    model), at ε = EPSILON with constants 1; `without`: the parts a law measures (TRAINING_PARTS)."""
    import numpy as np

    def number(name):
        return rows[name].astype(float).to_numpy()

    mamba = (rows["model"] == "mamba").to_numpy() if "model" in rows else np.ones(len(rows), bool)
    m1, p_a, beta, V, kappa = number("M1"), number("p_a"), number("beta"), number("V"), number("kappa_a")
    log_eps = np.log(1 / EPSILON)
    clean = np.clip(1 - p_a, 1e-12, None)
    ok = np.ones(len(rows), dtype=bool)
    with np.errstate(divide="ignore"):
        b_t = np.maximum(EPSILON**-2, m1 / clean) * log_eps
        b_m = np.maximum(b_t, beta**-4 * V**2 * kappa**-2 * clean**-2 * log_eps)
        upper = np.where(p_a > 0, V * beta * clean / (p_a * EPSILON), np.inf)
    if "batch" not in without:
        ok &= number("batch_size") >= np.where(mamba, b_m, b_t)
    if "kappa" not in without:
        ok &= (kappa <= upper) & (~mamba | (kappa >= V * beta**-4))
    if "l_tr" not in without:
        ok &= number("l_tr") >= np.log(m1) / clean
    if "step" not in without:
        ok &= number("lr") <= 1
        if "layers" in rows:
            ok &= number("layers") == 1
    return ok


def trained_regime(without: tuple[str, ...] = (), also=None, also_text: str = ""):
    """A Regime: the training theorems' conditions (but `without`) and, where given, a law's own (`also`)."""
    from iclscale.analysis.law import Regime

    words = "; ".join(TRAINING_WORDS[p] for p in TRAINING_PARTS if p not in without)
    text = f"trained inside [LM25] Thms 1/3: {words}; ε = {EPSILON:g} (constants 1, not from the paper)"

    def inside(rows):
        import numpy as np

        ok = trained_as_the_theorems_say(rows, without)
        return ok & np.asarray(also(rows), dtype=bool) if also is not None else ok

    return Regime(f"{also_text}; {text}" if also_text else text, inside=inside)


READING_DEFAULTS = {"train_tasks": "cyclic", "lt_attention": "causal_mean"}
"""The readings added as params after results were stored (iclscale/studies/mamba_outliers/declaration.py): a
results table from before them has no column, and ran at these values."""


def reading(runs, name: str, allowed: tuple[str, ...]):
    """The rows whose reading `name` is one of `allowed`; rows stored before the param existed count as its
    default."""
    values = runs[name].fillna(READING_DEFAULTS[name]) if name in runs else READING_DEFAULTS[name]
    keep = values.isin(allowed) if name in runs else values in allowed
    return runs[keep] if name in runs else (runs if keep else runs.iloc[0:0])

"""[LM25] Theorem 1 (ii): the training outlier magnitude must lie in a window,
Vβ^(−4) ≲ κ_a ≲ Vβ(1 − p_a)p_a^(−1)ε^(−1). Remark 1: "outliers are neither too small to be easily detectable by the
model nor excessively large (i.e., less than Θ(ε^(−1))), which would diminish the influence of relevant patterns".
Our reading of Remark 1: Mamba fails for κ_a ≪ Vβ^(−4) (the outliers are not gated), and very large κ_a degrades
the attention.

Measured: the final training hinge (the mean over the last record interval, prompts of 𝒟: Thm 1's own quantity on
the training tasks) against κ_a, per β (sweep `mamba_outliers_law_kappa_a_window.yaml`). Each edge is a `Threshold`
at the bound with constant 1 (not from the paper) and ε = THEOREM_EPSILON = 0.1 (the level read and the ε of
the training regime: B ≥ B_M at it), read both ways (`necessary`): inside the window the
hinge is ≤ ε (the theorem), beyond the edge it is not (Remark 1). Each law judges its own edge on its half of the
window (log scale), the other half set aside (the regime)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iclscale.analysis.kinds import Threshold
from iclscale.analysis.law import EXPLICIT, STRONGER, Condition, Hypothesis, Law, Prediction, VersusPrinted
from iclscale.analysis.measures import FinalValue
from iclscale.analysis.verdict import Band
from iclscale.papers.mamba_outliers.laws.common import LM25, ONE_LAYER, STUDY, THEOREM_EPSILON, trained_regime

EPSILON = THEOREM_EPSILON

MEASURE = FinalValue("train_loss")
CITATION = f"{LM25} Theorem 1 (ii); Remark 1"
CONDITIONS = (
    f"final training hinge (mean over the last record interval) ≤ ε = {EPSILON:g}; the bounds with constant 1 (not "
    "from the paper); per β, with η·β² held fixed so that Eq. 9's T_M is the same at every β (not from the "
    "paper); diverged runs are counted and left out"
)


def lower_bound(params) -> Any:
    """[LM25] Thm 1 (ii): κ_a ≳ V·β^(−4) (constant 1; a mapping of params or a table of rows)."""
    return params["V"] * params["beta"] ** -4.0


def upper_bound(params) -> Any:
    """[LM25] Thm 1 (ii): κ_a ≲ V·β·(1 − p_a)·p_a^(−1)·ε^(−1) (constant 1)."""
    return params["V"] * params["beta"] * (1.0 - params["p_a"]) / (params["p_a"] * EPSILON)


def _numbers(rows):
    return {name: rows[name].astype(float) for name in ("V", "beta", "p_a")}


def middle(rows):
    """The window's geometric middle √(lower · upper): each law judges its own edge's half of the window (a failure
    near one edge must not count against the other's placement; not from the paper)."""
    numbers = _numbers(rows)
    return (lower_bound(numbers) * upper_bound(numbers)) ** 0.5


def lower_half(rows):
    return rows["kappa_a"].astype(float) <= middle(rows)


def upper_half(rows):
    return rows["kappa_a"].astype(float) >= middle(rows)


def _edge(name: str, bound):
    def predict(params: Mapping[str, Any]) -> Prediction:
        x0 = float(bound({k: float(params[k]) for k in ("V", "beta", "p_a")}))
        return Prediction(Hypothesis(f"{name} = {x0:.3g}", Band.point(x0), "[LM25] Theorem 1 (ii); Remark 1"))

    return predict


def _at_positive_p_a(runs):
    """The upper bound needs p_a > 0 (at p_a = 0 there are no outliers and no bound)."""
    return runs[runs["p_a"].astype(float) > 0]


COMMON = dict(
    study=STUDY,
    citation=CITATION,
    conditions=CONDITIONS,
    measure=MEASURE,
    x="kappa_a",
    group_by=("beta",),  # the bounds move with β: each β is judged at its own edges
    where={**ONE_LAYER, "model": ("mamba",)},
    row_filter=_at_positive_p_a,
    versus_printed=VersusPrinted(
        STRONGER,
        "Thm 1 (ii) is a sufficient window with Θ-constants; the law reads Remark 1's words as 'iff' at constant 1",
    ),
)

KAPPA_A_LOWER = Law(
    name=f"{STUDY}.mamba_kappa_a_lower_bound",
    claim="Mamba's training hinge is ≤ ε for κ_a ≥ Vβ^(−4) and not below it (outliers too small to be gated)",
    prediction_text=f"hinge ≤ {EPSILON:g} iff κ_a ≥ Vβ^(−4) (on the window's lower half)",
    predict=_edge("Vβ^(−4)", lower_bound),
    kind=Threshold(threshold=EPSILON, good_side="above", necessary=True),
    regime=trained_regime(  # κ_a is what it measures
        EPSILON,
        without=("kappa",),
        also=(
            Condition(
                "κ_a ≤ √(Vβ⁻⁴·Vβ(1 − p_a)/(p_a ε)), the window's lower half (log scale; the law's scope)",
                EXPLICIT,
                lower_half,
            ),
        ),
        source="Thm 1 (ii), trained inside Thm 1",
    ),
    control_params={"kappa_a": (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)},  # around Vβ^(−4) = 0.037 at β = 3
    **COMMON,
)

KAPPA_A_UPPER = Law(
    name=f"{STUDY}.mamba_kappa_a_upper_bound",
    claim="Mamba's training hinge is ≤ ε for κ_a ≤ Vβ(1 − p_a)p_a^(−1)ε^(−1) and not above it (outliers so large "
    "they diminish the relevant patterns)",
    prediction_text=f"hinge ≤ {EPSILON:g} iff κ_a ≤ Vβ(1 − p_a)/(p_a ε) (on the window's upper half)",
    predict=_edge("Vβ(1 − p_a)/(p_a ε)", upper_bound),
    kind=Threshold(threshold=EPSILON, good_side="below", necessary=True),
    regime=trained_regime(
        EPSILON,
        without=("kappa",),
        also=(
            Condition(
                "κ_a ≥ √(Vβ⁻⁴·Vβ(1 − p_a)/(p_a ε)), the window's upper half (log scale; the law's scope)",
                EXPLICIT,
                upper_half,
            ),
        ),
        source="Thm 1 (ii), trained inside Thm 1",
    ),
    control_params={"kappa_a": (10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0)},  # around the upper edge 600 at β = 3
    **COMMON,
)

LAWS = (KAPPA_A_LOWER, KAPPA_A_UPPER)

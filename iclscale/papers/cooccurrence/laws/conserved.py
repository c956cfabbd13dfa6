"""Gradient descent against the gradient flow [Y24] analyses (§2.2): the two quantities the flow conserves,
WᵀW − W_V W_Vᵀ and W_K W_Kᵀ − W_Q W_Qᵀ (F depends on W, W_V only through W W_V and on W_K, W_Q only through
W_Kᵀ W_Q; probe `conserved_drift`), drift under gradient descent by O(η) over a fixed flow time t = η·step. Not a
claim of the paper: a direct check that its analysis applies to the trained runs (the issue measured 2.00 ± 0.03
for the halving ratio)."""

from __future__ import annotations

from iclscale.analysis.kinds import PowerLaw
from iclscale.analysis.law import Law
from iclscale.analysis.measures import FinalValue
from iclscale.papers.cooccurrence.laws.common import EXPONENT_RULE, STUDY, Y24, constant, exponent_band

WHICH = {
    "value": ("conserved_value_drift", "WᵀW − W_V W_Vᵀ"),
    "key_query": ("conserved_key_query_drift", "W_K W_Kᵀ − W_Q W_Qᵀ"),
}


def _drift_law(which: str) -> Law:
    metric, quantity = WHICH[which]
    return Law(
        name=f"{STUDY}.conserved_{which}_drift_vs_lr",
        study=STUDY,
        claim=f"gradient descent follows the gradient flow: ‖Δ({quantity})‖, conserved by the flow, drifts by O(η) "
        "over a fixed flow time (it halves when η halves)",
        citation=f"{Y24} §2.2 (gradient flow), App. A (GD at η = 0.01); the conservation law is not the paper's "
        "(balancedness of factored products: Du, Hu, Lee, NeurIPS 2018)",
        conditions="every run of a group trained to the same flow time t = η·steps (steps vary with η by design); "
        "each step moves the quantity by η²·(a difference of squared gradients), so t/η steps move it by O(η t)",
        prediction_text=f"exponent 1 (±0.1) of the final ‖Δ({quantity})‖_F vs η",
        measure=FinalValue(metric),
        x="lr",
        # GD's Euler step leaves the flow's invariant with an O(η²) error per step: O(η) over t/η steps
        predict=constant("exponent 1 (±0.1)", exponent_band(1.0), "the Euler scheme's local error O(η²)"),
        kind=PowerLaw(),
        group_by=("init", "readout", "m", "m1", "c0", "c1", "L", "n"),
        pool=("steps",),
        rule=EXPONENT_RULE,
    )


LAWS = (_drift_law("value"), _drift_law("key_query"))

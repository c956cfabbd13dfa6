"""[LM25] Theorems 1 and 3: iterations to converge against the training prompt length l_tr. Mamba's
T_M = Θ(η^(−1)(1 − p_a)^(−1)β^(−2)M1) has no l_tr (Eq. 8), the LT's T_T = Θ(η^(−1)(1 − p_a)^(−1)β^(−2)M1/l_tr)
falls as l_tr^(−1) (Eq. 14). Measured T: the first recorded step whose training hinge loss (mean since the
previous record) is ≤ 0.5 (spec §13.6's ε*; not from the paper: the theorems' T reaches hinge O(ε))."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.catalogue.mamba_outliers.common import LM25, ONE_LAYER, STUDY
from analysis.kinds import PowerLaw
from analysis.law import Hypothesis, Law, Prediction
from analysis.measures import FirstStepReaching
from analysis.verdict import Band, VerdictRule

HINGE_EPSILON = 0.5  # spec §13.6's ε* for T; not from the paper
EXPONENT_RULE = VerdictRule(max_interval_width=0.3)  # not from the paper: as seed 000's exponent laws


def mamba_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] Thm 1, Eq. (8): T_M = Θ(η^(−1)(1 − p_a)^(−1)β^(−2)M1), no l_tr
    return Prediction(Hypothesis("exponent 0", Band.point(0.0), "[LM25] Theorem 1, Eq. (8)"))


def lt_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] Thm 3, Eq. (14): T_T = Θ(η^(−1)(1 − p_a)^(−1)β^(−2)M1 / l_tr)
    return Prediction(Hypothesis("exponent −1", Band.point(-1.0), "[LM25] Theorem 3, Eq. (14)"))


def _law(name: str, model: str, predict, claim: str, text: str) -> Law:
    return Law(
        name=f"{STUDY}.{name}",
        study=STUDY,
        claim=claim,
        citation=f"{LM25} Theorem {'1, Eq. (8)' if model == 'mamba' else '3, Eq. (14)'}",
        conditions="one-layer model, η, β, M1, p_a, B held fixed (the theorems also need B and l_tr large "
        "enough: not checked); T = first step with the training hinge ≤ 0.5 (not from the paper)",
        prediction_text=text,
        measure=FirstStepReaching("train_loss", threshold=HINGE_EPSILON),
        x="l_tr",
        predict=predict,
        kind=PowerLaw(),
        group_by=("lr",),
        where={**ONE_LAYER, "model": (model,)},
        rule=EXPONENT_RULE,
    )


MAMBA_T_VS_L_TR = _law(
    "mamba_T_vs_l_tr",
    "mamba",
    mamba_prediction,
    "Mamba's iterations to converge do not depend on the training prompt length l_tr",
    "exponent 0 of T vs l_tr",
)
LT_T_VS_L_TR = _law(
    "lt_T_vs_l_tr",
    "lt",
    lt_prediction,
    "the LT's iterations to converge fall as l_tr^(−1)",
    "exponent −1 of T vs l_tr",
)

LAWS = (MAMBA_T_VS_L_TR, LT_T_VS_L_TR)

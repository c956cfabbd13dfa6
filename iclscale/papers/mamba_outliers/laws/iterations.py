"""[LM25] Theorems 1 and 3: iterations to converge. Mamba's T_M = Θ(η^(−1)(1 − p_a)^(−1)β^(−2)M1) has no l_tr
(Eq. 9), the LT's T_T = Θ(η^(−1)(1 − p_a)^(−1)β^(−2)l_tr^(−1)M1) (Eq. 14), so T_M / T_T = Θ(l_tr) (Remark 4).
Measured T: the first recorded step whose training hinge loss (mean since the previous record) is ≤ 0.5 (not
from the paper: a level above the LT's hinge floor at p_a > 0; the theorems' T reaches hinge O(ε)). One law per
model and variable, each on the sweep that varies that variable alone (`sweeps/mamba_outliers_law_T_vs_*.yaml`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from iclscale.analysis.kinds import PowerLaw
from iclscale.analysis.law import STRONGER, Hypothesis, Law, Prediction, VersusPrinted
from iclscale.analysis.measures import FirstStepReaching, first_step_reaching
from iclscale.analysis.verdict import Band, VerdictRule
from iclscale.papers.mamba_outliers.laws.common import LM25, ONE_LAYER, STUDY, trained_regime

HINGE_EPSILON = 0.5  # ε* for T; not from the paper (above the LT's hinge floor at p_a > 0)
EXPONENT_RULE = VerdictRule(max_interval_width=0.3)  # not from the paper: as seed 000's exponent laws
MEASURE = FirstStepReaching("train_loss", threshold=HINGE_EPSILON)
CONDITIONS = (
    "one-layer model, every other variable held fixed; T = first step with the training hinge ≤ 0.5 (not from the "
    "paper); trained inside Thms 1/3 at the ε T is read at (B ≥ B_M or B_T, κ_a's window, l_tr, at ε = 0.5)"
)
# the theorems' T reaches hinge ε once B ≥ B_M (B_T) at that ε: the regime checks them at the ε T is read at
REGIME = trained_regime(HINGE_EPSILON)

# [LM25] Thm 1, Eq. (9): T_M = Θ(η^(−1)(1 − p_a)^(−1)β^(−2)M1); Thm 3, Eq. (14): T_T = T_M / l_tr
EXPONENTS = {
    # variable: (Mamba's exponent, the LT's exponent)
    "lr": (-1.0, -1.0),
    "beta": (-2.0, -2.0),
    "M1": (1.0, 1.0),
    "one_minus_p_a": (-1.0, -1.0),
    "l_tr": (0.0, -1.0),
}
SYMBOLS = {"lr": "η", "beta": "β", "M1": "M1", "one_minus_p_a": "1 − p_a", "l_tr": "l_tr"}
CITATION = {"mamba": "Theorem 1, Eq. (9)", "lt": "Theorem 3, Eq. (14)"}

SUFFICIENT_T = VersusPrinted(
    STRONGER,
    "Eqs. (9), (14) give iterations that suffice (T ≥ Θ(·)); the law asks the measured T (hinge ≤ 0.5) to scale with "
    "exactly the bound's exponent",
)


def _prediction(model: str, variable: str):
    exponent = EXPONENTS[variable][0 if model == "mamba" else 1]
    source = f"[LM25] {CITATION[model]}"

    def predict(params: Mapping[str, Any]) -> Prediction:
        primary = Hypothesis(f"exponent {exponent:g}", Band.point(exponent), source)
        if model == "lt" and variable == "beta":  # Eq. (14) writes β^(−2), the proof's Eq. (68) β^(−1)
            proof = Hypothesis("exponent −1", Band.point(-1.0), "[LM25] proof of Thm 3, Eq. (68)")
            return Prediction(primary, (proof,))
        return Prediction(primary)

    return predict


def one_minus(p: np.ndarray) -> np.ndarray:
    return 1.0 - p


def iteration_law(model: str, variable: str) -> Law:
    exponent = EXPONENTS[variable][0 if model == "mamba" else 1]
    x_sym = SYMBOLS[variable]
    who = "Mamba" if model == "mamba" else "the LT"
    if variable == "one_minus_p_a":  # T ∝ (1 − p_a)^(−1): x = 1 − p_a, swept as p_a
        kind = PowerLaw(transform=one_minus, param="p_a", x_text="1 − p_a")
    else:
        kind = PowerLaw()
    claim = (
        f"{who}'s iterations to converge do not depend on {x_sym}"
        if exponent == 0
        else f"{who}'s iterations to converge scale as {x_sym}^({exponent:g})"
    )
    return Law(
        name=f"{STUDY}.{model}_T_vs_{'p_a' if variable == 'one_minus_p_a' else variable}",
        study=STUDY,
        claim=claim,
        citation=f"{LM25} {CITATION[model]}",
        conditions=CONDITIONS,
        prediction_text=f"exponent {exponent:g} of T vs {x_sym}",
        measure=MEASURE,
        x=variable,
        predict=_prediction(model, variable),
        kind=kind,
        where={**ONE_LAYER, "model": (model,)},
        regime=REGIME,
        rule=EXPONENT_RULE,
        versus_printed=SUFFICIENT_T,
    )


# T_M / T_T ∝ l_tr ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScaledIterationRatio(FirstStepReaching):
    """η_M·T_M / (η_T·T_T): Mamba's iterations over the LT's for the same seed and params but the model and η.

    The two models converge on time scales far apart (a pilot, not from the paper: at one η either the LT is done in ≤ 1
    step or Mamba needs > 4000), so each runs at its own η and T is compared in units of 1/η. That rests on T ∝ η^(−1)
    for both (Eqs. 9, 14), which the η laws test. Censoring: a ratio whose Mamba T is right-censored or whose LT
    T is left-censored is a lower bound (right-censored); the reverse an upper bound; mixed bounds are dropped."""

    def describe(self) -> str:
        return f"η·T of Mamba / η·T of the LT (T: {super().describe()}), same seed and params"

    @property
    def label(self) -> str:
        return f"eta*T_M / eta*T_T (T: first step with {self.metric} <= {self.threshold:g})"

    def per_run(self, results, rows):
        T = first_step_reaching(results.curves, self.metric, self.threshold, self.below)
        T = T[T["eval_key"] == ""].drop(columns="eval_key")
        runs = results.runs.drop_duplicates("run_id")
        keys = [p for p in results.params("shape", "train") if p in runs and p not in ("model", "lr")] + ["seed"]
        scaled = runs[["run_id", "model", "lr", *keys]].merge(T, on="run_id")
        scaled["scaled"] = scaled["lr"].astype(float) * scaled["value"]
        lt = scaled[scaled["model"] == "lt"][[*keys, "scaled", "censored", "left_censored"]]
        out = rows.drop(columns=["value", "censored", "left_censored"], errors="ignore")
        out = out.merge(scaled[["run_id", "scaled", "censored", "left_censored"]], on="run_id")
        out = out.merge(lt, on=keys, suffixes=("", "_lt")).copy()  # one block: the assignments below stay cheap
        right_m = out["censored"] & ~out["left_censored"]
        left_m = out["left_censored"]
        right_lt = out["censored_lt"] & ~out["left_censored_lt"]
        left_lt = out["left_censored_lt"]
        lower = right_m | left_lt  # the ratio is at least its value
        upper = left_m | right_lt  # at most
        value = out["scaled"] / out["scaled_lt"]
        out["value"] = np.where(lower & upper, math.nan, value)
        out["censored"] = lower ^ upper
        out["left_censored"] = upper & ~lower
        return out.drop(columns=["scaled", "scaled_lt", "censored_lt", "left_censored_lt"])


def ratio_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] Remark 4: "T_M, which equals Θ(l_tr)·T_T" (Eq. 9 over Eq. 14)
    return Prediction(Hypothesis("exponent 1", Band.point(1.0), "[LM25] Remark 4 (Eq. 9 / Eq. 14)"))


T_RATIO_VS_L_TR = Law(
    name=f"{STUDY}.T_ratio_vs_l_tr",
    regime=REGIME,
    study=STUDY,
    claim="Mamba needs Θ(l_tr) times the LT's iterations: T_M / T_T ∝ l_tr",
    citation=f"{LM25} Remark 4; Theorem 1, Eq. (9) over Theorem 3, Eq. (14)",
    conditions=CONDITIONS + "; each model at its own η, T compared as η·T (both T ∝ η^(−1), Eqs. 9, 14; the η "
    "laws test it); pairs by seed",
    prediction_text="exponent 1 of η·T_M / η·T_T vs l_tr",
    measure=ScaledIterationRatio("train_loss", threshold=HINGE_EPSILON),
    x="l_tr",
    predict=ratio_prediction,
    kind=PowerLaw(),
    where={**ONE_LAYER, "model": ("mamba",)},
    rule=EXPONENT_RULE,
    versus_printed=SUFFICIENT_T,
)

LAWS = (
    *(iteration_law(model, variable) for variable in EXPONENTS for model in ("mamba", "lt")),
    T_RATIO_VS_L_TR,
)

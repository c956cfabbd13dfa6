"""[LM25] Lemmas 3–5 (App. E): how SGD moves the one-layer Mamba's weights, read from the study's weight and gate
probes (iclscale/papers/mamba_outliers/probes.py) along training and at its end.

- Lemma 3, Eq. (23): W ∈ {W_B, W_C} grows on every relevant pattern's own direction, μ_jᵀΔWμ_j ≳ ηt(1 − p_a)β/M1;
- Eq. (26): it shrinks on the training pairs (μ_j, μ_j″ a training task), ≤ −ηt(1 − p_a)β/M1;
- Eq. (25): it does not move at all on the pairs that form no training task (the gap-2 pairs of App. C's cyclic
  tasks): μ_j′ᵀΔWμ_j = 0. The proof of Thm 2 (Eq. 44) rests on it. Judged at the end of training: |gap-2 entry| /
  diagonal entry ≤ GAP2_TOLERANCE. Where the gap-2 pairs are training tasks (train_tasks = all) Eq. (25) says
  nothing: those runs are left out;
- Lemma 4, Eqs. (33), (34): the gate weight falls along the training outliers v*_s and along the relevant μ_j;
- Lemma 5, Eqs. (37), (38): after T_M, wᵀp ≲ −log M1 for a demonstration with an outlier v*_s, wᵀp ≳ −Θ(1) for a
  clean one, read as σ(wᵀp) ≤ 1/(1 + M1) and ≥ σ(−1) (constant 1, not from the paper) on test prompts with the
  training outliers (outlier_set = train).

Directions are read as Spearman ρ between the training step and the seed-mean (`Trend`, ≥ 0.5 for "grows", ≤ −0.5
for "falls"), as the Figs. 3, 5 laws do; the lemmas' rates (∝ t) are not judged: their constants and the i² terms
are not given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from iclscale.analysis.kinds import Bound, Trend
from iclscale.analysis.law import (
    HIDDEN_CONSTANT,
    STRONGER,
    WEAKER,
    Condition,
    Hypothesis,
    Law,
    Prediction,
    VersusPrinted,
    inside_rule,
)
from iclscale.analysis.measures import CurveValues, FinalValue, final_value
from iclscale.analysis.verdict import Band
from iclscale.papers.mamba_outliers.laws.common import LM25, ONE_LAYER, STUDY, THEOREM_EPSILON, reading, trained_regime

GAP2_TOLERANCE = 0.01
"""|gap-2 entry| / diagonal entry at which Eq. (25)'s "does not move" still counts as held (not from the paper:
the entries start at exactly 0, the diagonal at δ)."""
WHERE = {**ONE_LAYER, "model": ("mamba",)}


def _f(rows, name):
    return rows[name].astype(float).to_numpy()


def lemma3_batch(rows):
    """[LM25] Lemma 3: B ≳ max{(1 − p_a)^(−1)·M1, (1 − p_a)^(−2)}·log ε^(−1), as B over its floor."""
    clean = np.clip(1 - _f(rows, "p_a"), 1e-12, None)
    return _f(rows, "batch_size") / (np.maximum(_f(rows, "M1") / clean, clean**-2.0) * math.log(1 / EPSILON))


def lemma4_l_tr(rows):
    """[LM25] Lemma 4, Eq. (31): l_tr ≳ (1 − p_a)^(−1)·log ε^(−1), as l_tr over its floor."""
    clean = np.clip(1 - _f(rows, "p_a"), 1e-12, None)
    return _f(rows, "l_tr") * clean / math.log(1 / EPSILON)


def lemma4_batch(rows):
    """[LM25] Lemma 4, Eq. (32): B ≳ β^(−4)κ_a^(−2)(1 − p_a)^(−2)V²·log ε^(−1), as B over its floor."""
    clean = np.clip(1 - _f(rows, "p_a"), 1e-12, None)
    floor = _f(rows, "beta") ** -4.0 * _f(rows, "kappa_a") ** -2.0 * clean**-2.0 * _f(rows, "V") ** 2
    return _f(rows, "batch_size") / (floor * math.log(1 / EPSILON))


def lemma5_kappa(rows):
    """[LM25] Lemma 5: κ_a ≳ Vβ^(−4), as κ_a over its floor."""
    return _f(rows, "kappa_a") / (_f(rows, "V") * _f(rows, "beta") ** -4.0)


def lemma5_after(rows):
    """[LM25] Lemma 5: t ≳ η^(−1)(1 − p_a)^(−1)β^(−2)M1, t the run's last step, as t over T_M."""
    clean = np.clip(1 - _f(rows, "p_a"), 1e-12, None)
    return _f(rows, "steps") / (_f(rows, "M1") / (_f(rows, "lr") * clean * _f(rows, "beta") ** 2))


# Each lemma under its own printed conditions and the setting of the training theorems (η ≤ 1, one layer): the
# lemmas are steps of Thm 1's proof (App. E) but state their own, weaker batch conditions, not Thm 1's B ≥ B_M;
# their ε (the log ε⁻¹ of Lemmas 3, 4) is Thm 1's, taken at THEOREM_EPSILON as the theorem's laws do; Lemma 4's
# early phase t ≲ min{…} is not applied (its laws read the direction over the whole run)
EPSILON = THEOREM_EPSILON
SETTING = ("batch", "kappa", "l_tr")  # the parts of trained_regime the lemmas replace with their own
LEMMA3 = trained_regime(
    EPSILON,
    without=SETTING,
    also=(Condition("B ≳ max{(1 − p_a)⁻¹M1, (1 − p_a)⁻²}·ln ε⁻¹ (Lemma 3)", HIDDEN_CONSTANT, lemma3_batch),),
    source="Lemma 3",
)
LEMMA4 = trained_regime(
    EPSILON,
    without=SETTING,
    also=(
        Condition("l_tr ≳ (1 − p_a)⁻¹·ln ε⁻¹ (Lemma 4, Eq. 31)", HIDDEN_CONSTANT, lemma4_l_tr),
        Condition("B ≳ β⁻⁴κ_a⁻²(1 − p_a)⁻²V²·ln ε⁻¹ (Lemma 4, Eq. 32)", HIDDEN_CONSTANT, lemma4_batch),
    ),
    source="Lemma 4",
)
LEMMA5 = trained_regime(
    EPSILON,
    without=SETTING,
    also=(
        Condition("κ_a ≳ Vβ⁻⁴ (Lemma 5)", HIDDEN_CONSTANT, lemma5_kappa),
        Condition("T ≳ η⁻¹(1 − p_a)⁻¹β⁻²M1 (Lemma 5)", HIDDEN_CONSTANT, lemma5_after),
    ),
    source="Lemma 5",
)
REGIMES = {"Lemma 3": LEMMA3, "Lemma 4": LEMMA4}


@dataclass(frozen=True)
class GapTwoShare(FinalValue):
    """|X_offset2| / X_offset0 at the end of training for X = W_B or W_C: the gap-2 entries μ_jᵀXμ_{j±2} over the
    diagonal μ_jᵀXμ_j, both means over j (probes `X_offset2`, `X_offset0`)."""

    def describe(self) -> str:
        return f"final |{self.metric}_offset2| / {self.metric}_offset0"

    @property
    def label(self) -> str:
        return f"|{self.metric}_offset2| / {self.metric}_offset0"

    def per_run(self, results, rows):
        out = final_value(rows, f"{self.metric}_offset2")
        diagonal = final_value(rows, f"{self.metric}_offset0")["value"]
        out["value"] = out["value"].abs() / diagonal
        return out


def gap2_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] Lemma 3, Eq. (25): the update of W_B, W_C on a pair that forms no training task is 0
    hypothesis = Hypothesis(f"≤ {GAP2_TOLERANCE:g} (no move)", Band(0.0, GAP2_TOLERANCE), "[LM25] Lemma 3, Eq. (25)")
    return Prediction(hypothesis)


def _cyclic_only(runs):
    """Eq. (25) is about pairs that form no training task: App. C's cyclic tasks (gap-2 pairs are not trained)."""
    return reading(runs, "train_tasks", ("cyclic",))


def gap2_law(matrix: str) -> Law:
    return Law(
        name=f"{STUDY}.lemma3_gap2_{matrix}_does_not_move",
        study=STUDY,
        claim=f"SGD leaves {matrix}'s entries on non-task pairs (μ_j, μ_j±2 under App. C's cyclic tasks) at their "
        "initial 0",
        citation=f"{LM25} Lemma 3, Eq. (25) (used in the proof of Theorem 2, Eq. (44))",
        conditions=f"one-layer Mamba trained on App. C's cyclic tasks (train_tasks = cyclic); the end of training; "
        f"'does not move' = |gap-2 entry| ≤ {GAP2_TOLERANCE:g} × the diagonal entry (not from the paper)",
        prediction_text=f"|μ_jᵀ{matrix}μ_j±2| / μ_jᵀ{matrix}μ_j ≤ {GAP2_TOLERANCE:g}",
        measure=GapTwoShare(matrix),
        x=None,
        predict=gap2_prediction,
        kind=Bound(aggregate="max", statistic_text=f"seed-mean |{matrix} gap-2| / {matrix} diagonal"),
        where=WHERE,
        row_filter=_cyclic_only,
        regime=LEMMA3,
        rule=inside_rule(min_levels=1, min_points=2),
    )


def _direction(sign: int, source: str):
    def predict(params: Mapping[str, Any]) -> Prediction:
        band = Band(0.5, 1.0) if sign > 0 else Band(-1.0, -0.5)
        return Prediction(Hypothesis("ρ ≥ 0.5 (grows)" if sign > 0 else "ρ ≤ −0.5 (falls)", band, source))

    return predict


def trend_law(name: str, metric: str, sign: int, claim: str, source: str, cyclic: bool = False) -> Law:
    lemma = source.removeprefix("[LM25] ")  # e.g. "Lemma 3, Eq. (23)"
    return Law(
        name=f"{STUDY}.{name}",
        study=STUDY,
        claim=claim,
        citation=f"{LM25} {lemma}",
        conditions="one-layer Mamba; the probe at every record from step 0 (log-spaced records); the direction only "
        "(Spearman ρ of step vs seed-mean), not the lemma's rate (its constants are not given)"
        + ("; App. C's cyclic training tasks (the pairs the lemma names)" if cyclic else "")
        + (
            "; Lemma 4's early phase t ≲ min{η⁻¹β⁻²κ_a⁻¹(1 − p_a)⁻¹V, …} is not applied: ρ is read over the whole run"
            if "Lemma 4" in source
            else ""
        ),
        prediction_text=f"Spearman ρ(step, {metric}) {'≥ 0.5' if sign > 0 else '≤ −0.5'}",
        measure=CurveValues(metric, from_step=0),
        x="step",
        predict=_direction(sign, source),
        kind=Trend(),
        where=WHERE,
        row_filter=_cyclic_only if cyclic else None,
        regime=REGIMES[lemma.split(",")[0]],
        rule=inside_rule(min_levels=5),
        versus_printed=VersusPrinted(WEAKER, f"{lemma} gives a rate ∝ t; the law judges its direction only"),
    )


def sigma_prediction(outlier: bool):
    def predict(params: Mapping[str, Any]) -> Prediction | None:
        M1 = params.get("M1")
        if outlier:
            # [LM25] Lemma 5, Eq. (37): wᵀp ≲ −log M1 for p with an outlier: σ(wᵀp) ≤ 1/(1 + M1)
            if M1 is None:
                return None
            return Prediction(Hypothesis("σ ≤ 1/(1 + M1)", Band(0.0, 1.0 / (1.0 + M1)), "[LM25] Lemma 5, Eq. (37)"))
        # Eq. (38): wᵀp ≳ −Θ(1) for a clean p: σ(wᵀp) ≥ σ(−1) (constant 1)
        return Prediction(Hypothesis("σ ≥ σ(−1)", Band(1.0 / (1.0 + math.e), 1.0), "[LM25] Lemma 5, Eq. (38)"))

    return predict


def _training_outliers(runs):
    """Lemma 5 speaks of demonstrations with a training outlier v*_s; at α > 0 the test prompts carry some."""
    runs = runs[runs["alpha"].astype(float) > 0] if "alpha" in runs else runs
    return runs[runs["outlier_set"] == "train"] if "outlier_set" in runs else runs.iloc[0:0]


def sigma_law(outlier: bool) -> Law:
    kind = "outlier" if outlier else "clean"
    return Law(
        name=f"{STUDY}.lemma5_gate_{kind}",
        study=STUDY,
        claim="after training, the gate weight puts demonstrations with a training outlier v*_s at wᵀp ≲ −log M1"
        if outlier
        else "after training, the gate weight keeps clean demonstrations at wᵀp ≳ −Θ(1)",
        citation=f"{LM25} Lemma 5, Eq. ({37 if outlier else 38})",
        conditions="one-layer Mamba after training (Lemma 5's T ≥ η⁻¹(1 − p_a)⁻¹β⁻²M1, constant 1, in the regime); "
        "σ(wᵀp) averaged over the "
        f"{kind} demonstrations of test prompts with the training outliers (outlier_set = train, α > 0); "
        "constant 1 in Θ (not from the paper)",
        prediction_text="mean σ(wᵀp) ≤ 1/(1 + M1)" if outlier else "mean σ(wᵀp) ≥ σ(−1) = 0.269",
        measure=FinalValue(f"sigma_{kind}"),
        x=None,
        predict=sigma_prediction(outlier),
        kind=Bound(aggregate="max" if outlier else "min", statistic_text=f"seed-mean σ(wᵀp) of {kind} demonstrations"),
        where=WHERE,
        row_filter=_training_outliers,
        one_row_per_run=False,
        regime=LEMMA5,
        rule=inside_rule(min_levels=1, min_points=2),
        versus_printed=VersusPrinted(STRONGER, "Lemma 5's −log M1 and −Θ(1) are judged at constant 1"),
    )


LAWS = (
    gap2_law("W_B"),
    gap2_law("W_C"),
    *(
        trend_law(
            f"lemma3_{matrix}_diagonal_grows",
            f"{matrix}_offset0",
            +1,
            f"SGD grows {matrix} on each relevant pattern's own direction μ_j",
            "[LM25] Lemma 3, Eq. (23)",
        )
        for matrix in ("W_B", "W_C")
    ),
    *(
        trend_law(
            f"lemma3_{matrix}_training_pairs_fall",
            f"{matrix}_offset1",
            -1,
            f"SGD shrinks {matrix} on the training pairs (μ_j, μ_j+1)",
            "[LM25] Lemma 3, Eq. (26)",
            cyclic=True,
        )
        for matrix in ("W_B", "W_C")
    ),
    trend_law(
        "lemma4_gate_weight_on_outliers_falls",
        "w_outlier",
        -1,
        "SGD drives the gate weight down along the training outliers: v*_sᵀw falls",
        "[LM25] Lemma 4, Eq. (33)",
    ),
    trend_law(
        "lemma4_gate_weight_on_patterns_falls",
        "w_relevant",
        -1,
        "SGD drives the gate weight down along the relevant patterns: μ_jᵀw falls",
        "[LM25] Lemma 4, Eq. (34)",
    ),
    sigma_law(outlier=True),
    sigma_law(outlier=False),
)

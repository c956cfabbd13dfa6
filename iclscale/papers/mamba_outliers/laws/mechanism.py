"""[LM25] §3.5 and §4.2: how Mamba does it, read from the study's probes on test prompts after training.

- Cor. 1 (Eq. 16; Figs. 3, 5): the attention sums S_same = Σ_{i∈N1} a_i ≥ Θ(1) and S_other = Σ_{i∉N1} a_i
  ≤ Θ((1 − p_a)^(−1)ε), and the gap S_same − S_other grows during training (Fig. 3);
- Cor. 2 (i) (Eq. 17; Figs. 4, 6): an outlier's gate G_{i,l+1} ≤ O(poly(M1)^(−1));
- Cor. 2 (ii) (Eq. 18, with (82)): the j-th closest clean demonstration's gate G_{h(j)} ≥ Θ(2^(−(j−1))): the
  gates of clean demonstrations fall by at most a factor 1/2 per clean demonstration further from the query.

The Θ/O constants and the degree of poly(M1) are not given: constant 1 and degree 1 are this tool's reading (not
from the paper). One set of laws for the one-layer Mamba (Fig. 2's and the threshold sweeps) and one per layer of
the 3-layer Mamba (`mamba_outliers_fig3_6_mechanism.yaml`, Figs. 3–6)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from iclscale.analysis.kinds import Bound, Trend
from iclscale.analysis.law import STRONGER, Hypothesis, Law, Prediction, VersusPrinted, inside_rule
from iclscale.analysis.measures import CurveValues, FinalValue, RelativeToStart, final_value
from iclscale.analysis.verdict import Band
from iclscale.papers.mamba_outliers.laws.common import LM25, STUDY, THEOREM_EPSILON, trained_regime

EPSILON = THEOREM_EPSILON  # Cor. 1's ε (its bound ε/(1 − p_a)) and the ε of the one-layer laws' training regime

CLEAN_RANKS = 10  # the probes' G_{h(1)} … G_{h(10)} (iclscale.papers.mamba_outliers.probes.CLEAN_RANKS)
RULE = inside_rule(min_levels=1, min_points=3)  # a min/max over α: one α (Figs. 3–6 use 0.3) is enough


def prefix(layer: int) -> str:
    """The probes' metric prefix of a layer (1-based): none for layer 1 (iclscale...probes.layer_prefix)."""
    return "" if layer == 1 else f"layer{layer}_"


@dataclass(frozen=True)
class CleanGateDecay(FinalValue):
    """The per-step factor of the clean gates: exp(b) of the least-squares line ln G_{h(j)} = a + b·j over the ranks
    j = 1..10 that were measured (a rank no test prompt reached is NaN and left out). Eq. (18) bounds it below by
    1/2 (the line and the ranks are ours, not from the paper)."""

    def describe(self) -> str:
        return f"per-step factor exp(b) of ln {self.metric}NN = a + b·j, j = 1..{CLEAN_RANKS}"

    @property
    def label(self) -> str:
        return f"per-step factor of {self.metric}NN over j"

    def per_run(self, results, rows):
        columns = [f"{self.metric}{j:02d}" for j in range(1, CLEAN_RANKS + 1)]
        out = final_value(rows, columns[0])
        if not all(c in rows for c in columns):
            return out.assign(value=math.nan)
        gates = rows[columns].astype(float).to_numpy()
        out["value"] = [_factor(g) for g in gates]
        return out


def _factor(gates: np.ndarray) -> float:
    j = np.arange(1, len(gates) + 1)
    keep = np.isfinite(gates) & (gates > 0)
    if keep.sum() < 3:
        return math.nan
    slope = np.polyfit(j[keep], np.log(gates[keep]), 1)[0]
    return float(math.exp(slope))


def _law(name: str, layers: int, **particular) -> Law:
    """A mechanism law of the Mamba with `layers` layers on Bernoulli test outliers, one group per label mode and
    κ_a′ (what every law here shares), measured against α unless `particular` says otherwise."""
    shared = {
        "study": STUDY,
        "x": "alpha",
        "group_by": ("label_mode", "kappa_a_test"),
        "where": {"layers": (layers,), "model": ("mamba",), "placement": ("bernoulli",)},
        "one_row_per_run": False,
        "rule": RULE,
    }
    # Corollaries 1–2 describe the one-layer Mamba that Thm 1 trains: its conditions are theirs; the 3-layer laws
    # extend them as Figs. 5–6 do (no theorem covers them)
    if layers == 1 and "Corollary" in particular.get("citation", ""):
        shared["regime"] = trained_regime(EPSILON, source="Cors. 1–2, trained inside Thm 1")
    return Law(name=f"{STUDY}.{name}", **{**shared, **particular})


def _positive_alpha(runs):
    return runs[runs["alpha"].astype(float) > 0]


def _scope(layer: int, layers: int) -> tuple[str, str]:
    """(name suffix, words) of a layer of a model."""
    if layers == 1:
        return "", "the one-layer Mamba"
    return f"_{layers}layer_l{layer}", f"layer {layer} of the {layers}-layer Mamba"


def outlier_gate_law(layer: int, layers: int, channel_mean: bool = False) -> Law:
    suffix, who = _scope(layer, layers)
    metric = "gate_chmean_outlier_at01" if channel_mean else "gate_outlier_at01"
    which = "averaged over the d + 1 channels (Figs. 4, 6 name no channel)" if channel_mean else "of the label channel"

    def predict(params: Mapping[str, Any]) -> Prediction | None:
        # [LM25] Cor. 2 (i), Eq. (17): G_{i,l_ts+1} ≤ O(poly(M1)^(−1)) for an outlier demonstration
        M1 = params.get("M1")
        if M1 is None:
            return None
        return Prediction(Hypothesis("≤ 1/M1", Band(0.0, 1.0 / M1), "[LM25] Corollary 2 (i), Eq. (17)"))

    return _law(
        f"outlier_gate_small{'_chmean' if channel_mean else ''}{suffix}",
        layers,
        versus_printed=VersusPrinted(STRONGER, "Eq. (17)'s O(poly(M1)^(−1)) is judged at degree 1, constant 1: ≤ 1/M1"),
        claim=f"{who} gates outlier demonstrations to ≤ poly(M1)^(−1), even the one next to the query",
        citation=f"{LM25} Corollary 2 (i), Eq. (17); Figs. 4, 6",
        conditions="degree 1 and constant 1 of poly(M1) (not from the paper); the gate of the demonstration right "
        "before the query when it is an outlier (the largest outlier gate: every other one carries more (1 − σ) "
        f"factors); test outliers κ_a′·v′ (v′ ∈ 𝒱′); the gate {which}",
        prediction_text="max over α > 0 of the mean gate of an outlier at distance 1 ≤ 1/M1",
        measure=FinalValue(prefix(layer) + metric),
        predict=predict,
        kind=Bound(aggregate="max", statistic_text="largest seed-mean over α of G of an outlier at distance 1"),
        row_filter=_positive_alpha,
    )


def half_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] Cor. 2 (ii), Eq. (18) and (82): 1 − σ(wᵀp_clean) ≥ 1/2, so G_{h(j)} ≥ Θ(2^(−(j−1)))
    return Prediction(Hypothesis("factor ≥ 1/2", Band(0.5, math.inf), "[LM25] Corollary 2 (ii), Eqs. (18), (82)"))


def clean_gate_decay_law(layer: int, layers: int) -> Law:
    suffix, who = _scope(layer, layers)
    return _law(
        f"clean_gate_decay_at_most_half{suffix}",
        layers,
        claim=f"{who}'s gates of clean demonstrations fall by at most 1/2 per clean demonstration further from "
        "the query: G_{h(j)} ≥ Θ(2^(−(j−1)))",
        citation=f"{LM25} Corollary 2 (ii), Eq. (18); proof Eq. (82); Fig. 4",
        conditions="the per-step factor exp(b) of a line through ln G_{h(j)}, j = 1..10 (not from the paper; the Θ "
        "constant is free, the rate is what Eq. 18 fixes); test prompts of every α measured",
        prediction_text="min over α of the per-step factor ≥ 1/2",
        measure=CleanGateDecay(prefix(layer) + "gate_clean_rank"),
        predict=half_prediction,
        kind=Bound(aggregate="min", statistic_text="smallest seed-mean over α of the clean gates' per-step factor"),
    )


def same_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] Cor. 1, Eq. (16): Σ_{i∈N1} p̃_iᵀ W_Bᵀ W_C p̃_query ≥ Θ(1)
    return Prediction(Hypothesis("≥ 1", Band(1.0, math.inf), "[LM25] Corollary 1, Eq. (16)"))


def other_prediction(params: Mapping[str, Any]) -> Prediction | None:
    # [LM25] Cor. 1, Eq. (16): Σ_{i∉N1} p̃_iᵀ W_Bᵀ W_C p̃_query ≤ Θ((1 − p_a)^(−1)ε)
    p_a = params.get("p_a")
    if p_a is None or p_a >= 1:
        return None
    bound = EPSILON / (1.0 - p_a)
    return Prediction(Hypothesis("≤ ε/(1 − p_a)", Band(-math.inf, bound), "[LM25] Corollary 1, Eq. (16)"))


def attention_law(layer: int, layers: int, same: bool) -> Law:
    suffix, who = _scope(layer, layers)
    part = "same" if same else "other"
    return _law(
        f"attention_{part}_pattern{suffix}",
        layers,
        versus_printed=VersusPrinted(
            STRONGER, f"Eq. (16)'s Θ(1), Θ((1 − p_a)^(−1)ε) judged at constant 1, ε = {EPSILON:g}"
        ),
        claim=f"{who}'s attention sum on demonstrations "
        + ("sharing the query's relevant pattern is ≥ Θ(1)" if same else "of other patterns is ≤ Θ((1 − p_a)^(−1)ε)"),
        citation=f"{LM25} Corollary 1, Eq. (16); Figs. 3, 5",
        conditions=f"constant 1 in Θ (not from the paper), ε = {EPSILON:g}; a_i = p_iᵀW_BᵀW_C p_query on the layer's "
        "input tokens, outliers included, mean over test prompts of every α measured",
        prediction_text="min over α of S_same ≥ 1" if same else f"max over α of S_other ≤ {EPSILON:g}/(1 − p_a)",
        measure=FinalValue(prefix(layer) + f"attn_{part}"),
        predict=same_prediction if same else other_prediction,
        kind=Bound(aggregate="min" if same else "max", statistic_text=f"{'smallest' if same else 'largest'} "
                   f"seed-mean over α of S_{part}"),
    )  # fmt: skip


def growth_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] §4.2, Fig. 3: "this gap increases during training"
    return Prediction(Hypothesis("ρ ≥ 0.5 (increasing)", Band(0.5, 1.0), "[LM25] §4.2, Figure 3"))


def net_growth_prediction(params: Mapping[str, Any]) -> Prediction:
    # [LM25] §4.2, Fig. 3: "this gap increases during training": larger at the end than at initialisation
    return Prediction(Hypothesis("end / start > 1", Band(1.0, math.inf), "[LM25] §4.2, Figure 3"))


def attention_gap_law(layer: int, layers: int) -> Law:
    suffix, who = _scope(layer, layers)
    return _law(
        f"attention_gap_grows{suffix}",
        layers,
        claim=f"{who}'s gap S_same − S_other is larger after training than at initialisation",
        citation=f"{LM25} §4.2, Figure 3 (layer 1), Figure 5 (layers 2, 3)",
        conditions="S_same − S_other on the test prompts (α of the sweep) at the last record over the first (step 0)",
        prediction_text="gap at the end / gap at step 0 > 1",
        measure=RelativeToStart(prefix(layer) + "attn_gap"),
        predict=net_growth_prediction,
        kind=Bound(aggregate="min", statistic_text="smallest seed-mean over α of the gap's end / start"),
    )


def attention_gap_trend_law(layer: int, layers: int) -> Law:
    suffix, who = _scope(layer, layers)
    return _law(
        f"attention_gap_trend{suffix}",
        layers,
        claim=f"{who}'s gap S_same − S_other rises along training",
        citation=f"{LM25} §4.2, Figure 3 (layer 1), Figure 5 (layers 2, 3)",
        conditions="S_same − S_other on the test prompts at every record from step 0 on (α of the sweep); a claim "
        "about the direction (Spearman ρ between the step and the seed-mean), not the shape; a rise that stops early "
        "(the hinge loss reaching 0 ends learning) gives a small ρ",
        prediction_text="Spearman ρ(step, S_same − S_other) ≥ 0.5",
        measure=CurveValues(prefix(layer) + "attn_gap", from_step=0),
        x="step",
        predict=growth_prediction,
        kind=Trend(),
        rule=inside_rule(min_levels=5),
    )


def _laws_for(layers: int) -> tuple[Law, ...]:
    out = []
    for layer in range(1, layers + 1):
        out += [
            outlier_gate_law(layer, layers),
            clean_gate_decay_law(layer, layers),
            attention_law(layer, layers, same=True),
            attention_law(layer, layers, same=False),
        ]
        if layers > 1:  # Figs. 3, 5 draw the 3-layer model's sums over training; the stack's gates of all channels
            out += [
                attention_gap_law(layer, layers),
                attention_gap_trend_law(layer, layers),
                outlier_gate_law(layer, layers, channel_mean=True),
            ]
    return tuple(out)


LAWS = (*_laws_for(1), *_laws_for(3))

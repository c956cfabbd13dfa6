"""[L24] Theorem 3.7 and Figure 5: magnitude-based pruning is free while it removes the small neurons L^c,
pruning them all costs O(ε + M1^{-1/2}), pruning large ones costs linearly in R and less at larger α', most
neurons are large, and random pruning hurts earlier than magnitude pruning."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from iclscale.analysis.kinds import Bound, EarlierOnset, FlatRegion, Linear, PowerLaw
from iclscale.analysis.law import STRONGER, Hypothesis, Law, Prediction, VersusPrinted, inside_rule
from iclscale.analysis.measures import FinalValue, IncreaseOver
from iclscale.analysis.verdict import INSIDE, Band, VerdictRule
from iclscale.papers.nonlinear_icl.laws.common import (
    EXPONENT_RULE,
    L24,
    STUDY,
    WIDTH_FOLLOWS_M1,
    theorem_3_3_regime,
    transformer_rows,
)

# Thm 3.7: "Suppose Condition 3.2 and conditions (i)–(iv) in Theorem 3.3 hold"; its ε is free ("for any ε > 0")
THEOREM_3_7_REGIME = theorem_3_3_regime(None, source="Thm 3.7 (Condition 3.2 and Thm 3.3 (i)–(iv))")


def magnitude_pruning_prediction(params: Mapping[str, Any]) -> Prediction | None:
    # [L24] Thm 3.7 Eq. (14)–(15): pruning the small neurons L^c (‖r_i‖ ≤ O(1/√M)) costs only O(ε + M1^{-1/2});
    # Fig. 5A: magnitude pruning does not hurt up to ≈ 15%, the share of small neurons
    share = params.get("small_neuron_fraction")
    if share is None or not math.isfinite(share):
        return None
    return Prediction(
        Hypothesis(
            f"free up to the small-neuron share |L^c|/m = {share:.3g}",
            Band(share, math.inf),
            "[L24] Thm 3.7 Eq. (14)–(15); Fig. 5A",
        )
    )


MAGNITUDE_PRUNING_FREE = Law(
    name=f"{STUDY}.magnitude_pruning_free",
    regime=THEOREM_3_7_REGIME,
    study=STUDY,
    claim="magnitude-based pruning (smallest neurons first) does not raise the error while it removes only "
    "the small neurons L^c",
    citation=f"{L24} Theorem 3.7, Eq. (14)–(15); Section 5.1, Figure 5A",
    conditions="trained one-layer model, neurons scored by ‖r_i‖ = ‖row i of W_O W_V‖ (Thm 3.7's score; the "
    "report also draws Fig. 5's ‖row i of W_O‖); the small set L^c is the lower group of a 2-means split of "
    "log ‖r_i‖ (not from the paper); 'costs' = the paired increase over R = 0 has a 95% bootstrap "
    "interval above 0 and "
    "exceeds the unpruned error's seed-to-seed s.d. (not from the paper). The theorem allows an O(ε + M1^{-1/2}) "
    "rise of the hinge loss; the claim tested is Fig. 5A's: no visible rise of the classification error",
    prediction_text="the first pruning ratio R that costs error lies above |L^c|/m",
    measure=FinalValue("test_error"),
    x="prune_ratio",
    predict=magnitude_pruning_prediction,
    where={"prune_method": ("magnitude",), "prune_score": ("wowv",)},
    row_filter=transformer_rows,
    one_row_per_run=False,
    kind=FlatRegion(baseline=0.0, edge_metric="small_neuron_fraction"),
    rule=VerdictRule(min_levels=3, min_points=4),
)


def small_pruning_cost_prediction(params: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.7 Eq. (15): pruning all of L^c leaves E[ℓ] ≤ O(ε + M1^{-1/2}): the M1^{-1/2} term
    return Prediction(
        Hypothesis("exponent -0.5", Band.point(-0.5), "[L24] Thm 3.7, Eq. (15)"),
        # bounded as M1 grows (the ε term stays): the increase does not grow with M1
        (Hypothesis("bound reading: not growing", Band(-math.inf, 0.0), "[L24] Eq. (15) as a bound (our reading)"),),
    )


SMALL_PRUNING_COST_VS_M1 = Law(
    name=f"{STUDY}.small_pruning_cost_vs_M1",
    pool=WIDTH_FOLLOWS_M1,
    regime=THEOREM_3_7_REGIME,
    study=STUDY,
    claim="pruning all the small neurons L^c raises the hinge loss by at most O(M1^{-1/2}) (plus ε)",
    citation=f"{L24} Theorem 3.7, Eq. (15)",
    conditions="trained one-layer model; prune_method 'small' removes exactly L^c (the lower 2-means group of "
    "log ‖r_i‖, not from the paper); measured: final unseen-task hinge loss after pruning minus the "
    "same model's unpruned hinge loss on the same prompts (our measure of Eq. (15)'s loss); α' ≥ M1^{-1/2}; "
    "Eq. (15) bounds the loss by O(ε + M1^{-1/2}), so the exponent −1/2 holds only where the M1 term dominates; "
    "an increase ≤ 0 cannot enter the log–log fit (counted as left out)",
    prediction_text="exponent of the hinge-loss increase vs M1: -0.5 (bound reading ≤ 0: not growing with M1)",
    measure=IncreaseOver("test_hinge", param="prune_method", baseline="none", ignore=("prune_ratio", "prune_score")),
    x="M1",
    predict=small_pruning_cost_prediction,
    kind=PowerLaw(),
    where={"prune_method": ("small",), "prune_score": ("wowv",), "domain": ("id",)},
    row_filter=transformer_rows,
    one_row_per_run=False,
    rule=EXPONENT_RULE,
    versus_printed=VersusPrinted(
        STRONGER,
        "Eq. (15) bounds the increase by O(ε + M1^(−1/2)); over the sweep's M1 an increase under the bound meets it "
        "whatever its slope there, so the exponent −1/2 asks more than printed (the bound reading 'not growing' is "
        "beside it)",
    ),
)


def largest_pruning_prediction(params: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.7 Eq. (16): pruning S ⊂ L, |S| = Rm, gives E[ℓ] ≥ Ω(R + (α'M1)⁻¹): a loss growing linearly in R
    return Prediction(Hypothesis("slope > 0", Band(0.0, math.inf), "[L24] Thm 3.7, Eq. (16)", INSIDE))


LARGEST_PRUNING_LINEAR = Law(
    name=f"{STUDY}.largest_pruning_linear",
    regime=THEOREM_3_7_REGIME,
    study=STUDY,
    claim="pruning a share R of the large neurons raises the hinge loss linearly in R",
    citation=f"{L24} Theorem 3.7, Eq. (16); Remark 3.8",
    conditions="largest-first pruning by ‖r_i‖ (Thm 3.7's S ⊂ L while R ≤ |L|/m; not a figure of the paper); "
    "expected hinge loss, the theorem's quantity (in a pilot of ours it moved more than the error); "
    "α' ≥ Ω(M1^{-1/2}); Eq. (16) is a lower bound Ω(R + 1/(α'M1)): the slope's sign is predicted, linearity is "
    "shown by R² and the slopes on the two halves of the R grid",
    prediction_text="slope of the hinge loss vs R > 0 (the whole interval)",
    measure=FinalValue("test_hinge"),
    x="prune_ratio",
    predict=largest_pruning_prediction,
    kind=Linear(),
    where={"prune_method": ("largest",), "prune_score": ("wowv",)},
    row_filter=transformer_rows,
    one_row_per_run=False,
    rule=inside_rule(min_levels=3),
)


def pruned_alpha_test_prediction(params: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.7 Eq. (16): the Ω(1/(α'M1)) term; Fig. 5B: a larger α' improves the pruned model
    return Prediction(Hypothesis("decreasing in α'", Band(-math.inf, 0.0), "[L24] Thm 3.7 Eq. (16); Fig. 5B", INSIDE))


PRUNED_LOSS_VS_ALPHA_TEST = Law(
    name=f"{STUDY}.pruned_loss_vs_alpha_test",
    regime=THEOREM_3_7_REGIME,
    study=STUDY,
    claim="the pruned model's hinge loss falls as the test fraction α' grows",
    citation=f"{L24} Theorem 3.7, Eq. (16); Section 5.1, Figure 5B",
    conditions="largest-first pruning at R ∈ {0.1, 0.2, 0.3, 0.4} (the rates are this tool's choice), per R; "
    "Eq. (16)'s 1/(α'M1) is a lower-bound term: the sign of the trend is predicted, not its exponent",
    prediction_text="exponent of the hinge loss vs α' < 0 (the whole interval)",
    measure=FinalValue("test_hinge"),
    x="alpha_test",
    predict=pruned_alpha_test_prediction,
    kind=PowerLaw(form_decides=False),  # a sign claim: the form is shown, not judged
    where={"prune_method": ("largest",), "prune_score": ("wowv",), "prune_ratio": (0.1, 0.2, 0.3, 0.4)},
    row_filter=transformer_rows,
    one_row_per_run=False,
    rule=inside_rule(min_levels=3),
)


def large_share_prediction(params: Mapping[str, Any]) -> Prediction:
    # [L24] Thm 3.7 Eq. (14): |L| = Ω(m); the constant is not given: |L| ≥ m/2 (small share ≤ 1/2) is this
    # tool's reading; Fig. 5A's bars show ≈ 15% small neurons
    return Prediction(
        Hypothesis("|L^c|/m ≤ 1/2", Band(0.0, 0.5), "[L24] Thm 3.7 Eq. (14) (constant 1/2 not from the paper)"),
        (Hypothesis("≈ 15% (Fig. 5A)", Band(0.1, 0.2), "[L24] §5.1 'around 15%' (±5% not from the paper)"),),
    )


SMALL_NEURON_SHARE = Law(
    name=f"{STUDY}.small_neuron_share",
    regime=THEOREM_3_7_REGIME,
    study=STUDY,
    claim="after training, most MLP neurons are large: |L| = Ω(m), the small ones a minority (≈ 15% in Fig. 5A)",
    citation=f"{L24} Theorem 3.7, Eq. (14); Section 5.1, Figure 5A",
    conditions="trained one-layer model; L^c = the lower group of a 2-means split of log ‖r_i‖ (not "
    "from the paper); the Ω(m) constant is not given",
    prediction_text="seed-mean of |L^c|/m ≤ 1/2 (beside it: 0.1–0.2, the paper's ≈ 15%)",
    measure=FinalValue("small_neuron_fraction"),
    x=None,
    predict=large_share_prediction,
    row_filter=transformer_rows,
    one_row_per_run=True,
    kind=Bound(aggregate="mean", statistic_text="seed-mean of the small-neuron share |L^c|/m"),
    rule=VerdictRule(mode=INSIDE, min_levels=1, min_points=2, max_interval_width=0.5),
)


def random_earlier_prediction(params: Mapping[str, Any]) -> Prediction:
    # [L24] §5.1, Fig. 5A: magnitude pruning is free up to ≈ 15% (Thm 3.7 Eq. 15), "random pruning hurts
    # earlier": random pruning removes large neurons from the start (Eq. 16)
    return Prediction(Hypothesis("random costs first", Band(0.0, math.inf), "[L24] Fig. 5A; Thm 3.7", INSIDE))


RANDOM_PRUNING_HURTS_EARLIER = Law(
    name=f"{STUDY}.random_pruning_hurts_earlier",
    regime=THEOREM_3_7_REGIME,
    study=STUDY,
    claim="random pruning starts to raise the error at a smaller pruning rate than magnitude-based pruning",
    citation=f"{L24} Section 5.1, Figure 5A; Theorem 3.7, Eq. (15)–(16)",
    conditions="one trained model per seed pruned at every rate R by both methods (a paired comparison); "
    "'starts to cost' as iclscale.analysis.levels.cost_onset defines it (not from the paper); per neuron score",
    prediction_text="onset of the error increase: random < magnitude (magnitude's may lie beyond the grid)",
    measure=FinalValue("test_error"),
    x="prune_ratio",
    predict=random_earlier_prediction,
    kind=EarlierOnset(param="prune_method", first="random", second="magnitude"),
    where={"prune_method": ("random", "magnitude")},
    row_filter=transformer_rows,
    one_row_per_run=False,
    pool=("prune_method",),
    rule=VerdictRule(min_levels=3, min_points=4),
)

LAWS = (
    MAGNITUDE_PRUNING_FREE,
    SMALL_PRUNING_COST_VS_M1,
    LARGEST_PRUNING_LINEAR,
    PRUNED_LOSS_VS_ALPHA_TEST,
    SMALL_NEURON_SHARE,
    RANDOM_PRUNING_HURTS_EARLIER,
)

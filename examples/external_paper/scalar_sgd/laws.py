"""The claim of the example paper and the law that tests it, in the one record iclscale reads (`PAPER_LAWS`).

Why σ²: with e = w − a, one SGD step on a batch is e ← (1 − η·m₂)·e + η·σ·m₁, where m₂ = mean(x²) and
m₁ = mean(x·ε) over the batch (E m₂ = 1, E m₂² = 1 + 2/B, E m₁ = 0, E m₁² = 1/B, m₁ uncorrelated with e and
m₂). Squaring and taking the fixed point: E e² = ησ² / (B(2 − η(1 + 2/B))), reached once (1 − η)^{2T} ≪ 1.
Every term but σ² is fixed within a group, so the final (w − a)² grows as σ², exponent 2.
"""

from iclscale.analysis.kinds import PowerLaw
from iclscale.analysis.law import Claim, Hypothesis, Law, Prediction
from iclscale.analysis.measures import FinalValue
from iclscale.analysis.verdict import Band
from iclscale.paper_laws import PaperLaws, Smoke

STUDY = "scalar_sgd"
SOURCE = "stationary variance of constant-step SGD: E(w − a)² = ησ² / (B(2 − η(1 + 2/B))) (this module)"


def excess_risk_prediction(params) -> Prediction:
    return Prediction(Hypothesis("excess risk ∝ σ²", Band.point(2.0), SOURCE))


EXCESS_RISK_VS_SIGMA = Law(
    name=f"{STUDY}.excess_risk_vs_sigma",
    study=STUDY,
    claim="the excess risk (w − a)² that constant-step SGD settles at grows as σ²",
    citation=SOURCE,
    conditions="constant step η < 2/(1 + 2/B) and T ≫ 1/η (the initial error a² forgotten)",
    prediction_text="exponent 2 of the final (w − a)² in σ, per batch size and step",
    measure=FinalValue("excess_risk"),
    x="sigma",
    predict=excess_risk_prediction,
    kind=PowerLaw(),
    group_by=("batch", "lr"),
)

PAPER_LAWS = PaperLaws(
    claims=(
        Claim("S1", "stationary variance", "SGD's excess risk is proportional to σ²", (EXCESS_RISK_VS_SIGMA.name,)),
    ),
    laws=(EXCESS_RISK_VS_SIGMA,),
    # one config inside the law's conditions, for the negative controls (a tuple: σ's levels)
    control_config={STUDY: {"batch": 16, "lr": 0.1, "sigma": (0.1, 0.05, 0.2, 0.4, 0.8)}},
    # a pack of three small configs, differing in σ, that the trainer's contract tests train (compiled = eager)
    smoke={STUDY: Smoke({"steps": 20, "chains": 4}, ({"sigma": 0.1}, {"sigma": 0.4}, {"lr": 0.05}))},
)

"""Li, Wang, et al. (M3L workshop at NeurIPS 2023): "Transformers as Multi-Task Feature Selectors: Generalization
Analysis of In-Context Learning" (seed 001).

The one-layer Transformer of Eq. 2 (the same as [L24]'s: iclscale.papers.common.one_layer_transformer), trained
by SGD on a hinge loss over binary ICL tasks whose inputs are noisy patterns x = λμ + κν + n, reaches zero
in-domain error in T = Θ(√M λ_*⁻¹ η⁻¹ (1 − ε_m − τM1)^(−1/2) (1 − 1/(Cα))⁻¹) iterations (Thm 1); its attention
promotes the relevant features μ and selects same-pattern demonstrations (Prop. 1), its MLP decodes mainly the
label embedding (Prop. 2), and it generalizes out of domain to patterns in the non-negative cone of the μ (Thm 2).
Study: `feature_selector`; the data model extends `iclscale.papers.common.patterns` in
`iclscale.papers.common.noisy_patterns`.
"""

from pathlib import Path

from iclscale.paper import Paper

PAPER = Paper(
    name="feature_selector",
    citation="Li, Wang et al. 2023 [LW23], seed 001",
    tag="LW23",
    seed="001",
    studies=("feature_selector",),
    declarations="iclscale.papers.feature_selector.declaration",
    laws="iclscale.papers.feature_selector.laws",
    sweeps=Path(__file__).parent / "sweeps",
)

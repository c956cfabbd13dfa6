"""Li, Lu, Cui, Chen, Wang (2025): "Can Mamba Learn In Context with Outliers? A Theoretical Generalization
Analysis" (arXiv 2510.00399; seed 002), cited as [LM25].

A one-layer Mamba (A = −I) is a linear attention (key W_B, query W_C) weighted by input-dependent sigmoid gates
(Eq. 3). Trained by SGD on a hinge loss over binary ICL prompts whose demonstrations carry additive outliers with
random labels at a fraction p_a, it learns to gate the outliers out (Cor. 2) and stays accurate at test for
outlier fractions α < min(1, p_a·l_tr/l_ts) (Thm 2), in T_M ∝ η^(−1) β^(−2) M1 (1 − p_a)^(−1) iterations (Thm 1);
the linear Transformer (gates ≡ 1) trains in T_T = T_M/l_tr (Thm 3) but only tolerates α < 1/2 (Thm 4).
Study: `mamba_outliers` (one or three layers, Mamba or LT). The outliers extend the pattern data model of
`iclscale.papers.common.patterns` in `iclscale.papers.common.outliers`.
"""

from pathlib import Path

from iclscale.paper import Paper

PAPER = Paper(
    name="mamba_outliers",
    citation="Li, Lu et al. 2025 [LM25], seed 002",
    tag="LM25",
    seed="002",
    studies=("mamba_outliers",),
    declarations="iclscale.papers.mamba_outliers.declaration",
    laws="iclscale.papers.mamba_outliers.laws",
    sweeps=Path(__file__).parent / "sweeps",
)

"""Li, Wang, Lu, Cui, Chen (ICML 2024): "How Do Nonlinear Transformers Learn and Generalize in In-Context
Learning?" (arXiv 2402.15607; seed 000).

A one-layer Transformer (softmax attention, then a ReLU MLP with a fixed output layer a), trained by SGD
on a hinge loss over ICL prompts of binary tasks defined by pairs of orthogonal patterns, generalizes to
unseen tasks (Thm 3.3) and to tasks on linear combinations of the training patterns whose coefficients
sum to ≥ 1 (Thm 3.4), in T ∝ α^{-2/3} iterations; its attention concentrates on demonstrations sharing
the query's pattern (Cor. 4.3), and pruning its small MLP neurons is almost free (Thm 3.7). Studies:
`nonlinear_icl` (the one-layer model of Eq. 2) and `nonlinear_icl_gpt2` (the 3-layer, 2-head GPT-2 of Fig. 3).
The data model lives in `iclscale.papers.common.patterns`.
"""

from pathlib import Path

from iclscale.paper import Paper

PAPER = Paper(
    name="nonlinear_icl",
    citation="Li et al. 2024 [L24], seed 000",
    tag="L24",
    seed="000",
    studies=("nonlinear_icl", "nonlinear_icl_gpt2"),
    declarations="iclscale.papers.nonlinear_icl.declaration",
    laws="iclscale.papers.nonlinear_icl.laws",
    sweeps=Path(__file__).parent / "sweeps",
)

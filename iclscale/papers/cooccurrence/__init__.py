"""Yang, Kailkhura, Wang, Liang (NeurIPS 2024): "Training Dynamics of Transformers to Recognize Word
Co-occurrence via Gradient Flow Analysis" (arXiv 2410.09605; seed 003).

A one-layer transformer (softmax attention W_K, W_Q, W_V and a linear MLP aᵀW) trained by gradient flow on
whether two target words co-occur goes through Phase 1 (the MLP aligns with the targets, attention still,
ending at T1 ∝ 1/(σ1² m m1)) and Phase 2 (attention separates the target pair from the common token, loss
∝ 1/t), with the per-type gradient sums balancing each other ("automatic balancing of gradients").
"""

from pathlib import Path

from iclscale.paper import Paper

PAPER = Paper(
    name="cooccurrence",
    citation="Yang et al. 2024 [Y24], seed 003",
    tag="Y24",
    seed="003",
    studies=("cooccurrence",),
    declarations="iclscale.papers.cooccurrence.declaration",
    laws="iclscale.papers.cooccurrence.laws",
    sweeps=Path(__file__).parent / "sweeps",
)

"""Collins, Parulekar, Mokhtari, Sanghavi, Shakkottai (NeurIPS 2024): "In-Context Learning with
Transformers: Softmax Attention Adapts to Function Lipschitzness" (arXiv 2402.11639; seed 004).

A single softmax attention unit pretrained on ICL regression learns an attention window whose
scale ‖M‖ grows with Λ = nL²/σ² (Thm 3.4); linear attention cannot adapt (Thm 3.6); on low-rank
tasks softmax learns the projection onto the relevant subspace (Thm 4.4).
"""

from pathlib import Path

from iclscale.paper import Paper

PAPER = Paper(
    name="softmax_window",
    citation="Collins et al. 2024 [C24], seed 004",
    tag="C24",
    seed="004",
    studies=("softmax_window", "softmax_window_oracle"),
    declarations="iclscale.papers.softmax_window.declaration",
    laws="iclscale.papers.softmax_window.laws",
    sweeps=Path(__file__).parent / "sweeps",
)

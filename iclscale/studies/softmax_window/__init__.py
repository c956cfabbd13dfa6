"""Collins, Parulekar, Mokhtari, Sanghavi, Shakkottai (NeurIPS 2024): "In-Context Learning with
Transformers: Softmax Attention Adapts to Function Lipschitzness" (arXiv 2402.11639; seed 004).

A single softmax attention unit pretrained on ICL regression learns an attention window whose
scale ‖M‖ grows with Λ = nL²/σ² (Thm 3.4); linear attention cannot adapt (Thm 3.6); on low-rank
tasks softmax learns the projection onto the relevant subspace (Thm 4.4).
"""

"""The hinge loss and the classification error of the binary ICL papers ([L24] §2.1 and §5, [LW23] §2,
[LM25] Eq. 4), from the margin z·F(Ψ; P) of a prompt with label z = ±1."""

from __future__ import annotations

import torch


def hinge(margin: torch.Tensor) -> torch.Tensor:
    """ℓ = max{0, 1 − z·F} ([L24] §2.1), from the margin z·F."""
    return torch.clamp(1.0 - margin, min=0.0)


def misclassified(margin: torch.Tensor) -> torch.Tensor:
    """1{z·F < 0}, and ½ for a tie z·F = 0 (not from the papers: the expected error of a coin-flip tie-break)."""
    return (margin < 0).double() + 0.5 * (margin == 0).double()

"""The attention units of Collins et al. 2024 [C24], for a single config.

With the reparameterisation of [C24] eq. 4 (W_V reads the label, W_K and W_Q act on x only), the
prediction for a query x is a weighted average of the context labels:

    softmax:  h_SA(x) = Σ_i y_i · exp(x_iᵀ M x) / Σ_j exp(x_jᵀ M x)     ([C24] eq. ICL)
    linear:   h_LA(x) = Σ_i y_i · x_iᵀ M x                              ([C24] Remark 2.2, §3.2)

with M = M_Kᵀ M_Q. Keys are the n labelled tokens only; queries do not attend to each other.
"""

from __future__ import annotations

import torch
from torch import nn


def attention_matrix(M_K: torch.Tensor, M_Q: torch.Tensor) -> torch.Tensor:
    """M = M_Kᵀ M_Q ([C24] eq. 4); works on stacked (pack_size, d, d) parameters too."""
    return M_K.transpose(-1, -2) @ M_Q


class AttentionUnit(nn.Module):
    def __init__(self, d: int, tied: bool = True):
        super().__init__()
        self.tied = tied
        self.M_K = nn.Parameter(torch.zeros(d, d))
        if not tied:
            self.M_Q = nn.Parameter(torch.zeros(d, d))

    def M(self) -> torch.Tensor:
        """M = M_Kᵀ M_Q; tied weights M_Q = M_K as in [C24] App J."""
        return attention_matrix(self.M_K, self.M_K if self.tied else self.M_Q)

    def forward(self, x_context: torch.Tensor, y_context: torch.Tensor, x_query: torch.Tensor) -> torch.Tensor:
        """x_context (..., n, d), y_context (..., n), x_query (..., N, d) -> predictions (..., N)."""
        scores = x_query @ self.M().T @ x_context.transpose(-1, -2)  # scores[q, i] = x_iᵀ M x_q
        weights = self.attention(scores)
        return (weights @ y_context.unsqueeze(-1)).squeeze(-1)

    def attention(self, scores: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class SoftmaxAttention(AttentionUnit):
    def attention(self, scores: torch.Tensor) -> torch.Tensor:
        return torch.softmax(scores, dim=-1)  # exp(x_iᵀMx) / Σ_j exp(x_jᵀMx), by log-sum-exp


class LinearAttention(AttentionUnit):
    def __init__(self, d: int, tied: bool = True, divide_by_n: bool = False):
        super().__init__(d, tied)
        self.divide_by_n = divide_by_n  # the paper has no 1/n; Adam makes it a learning-rate matter

    def attention(self, scores: torch.Tensor) -> torch.Tensor:
        return scores / scores.shape[-1] if self.divide_by_n else scores

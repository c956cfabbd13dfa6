"""The one-layer Transformer of Li et al. 2024 [L24] Eq. 2, which Li, Wang et al. 2023 [LW23] Eq. 2 also train,
for a single config:

    F(Ψ; P) = aᵀ ReLU( W_O Σ_{i=1}^{l} W_V p_i · attn(Ψ; P, i) ),
    attn(Ψ; P, i) = softmax_i( (W_K p_i)ᵀ W_Q p_query ).

Single head, no residual, no LayerNorm, no biases, no positional encoding, no 1/√d temperature. The
prompt is given with tokens as rows (the paper's Pᵀ): P (..., l + 1, d_X + d_Y), query last.

`a` is fixed ([L24] §2.3: "a does not update during training"; [LW23] §2 likewise): a buffer, so every config
carries its own draw and no optimizer sees it.
"""

from __future__ import annotations

import torch
from torch import nn


def attention_weights(W_Q: torch.Tensor, W_K: torch.Tensor, P: torch.Tensor, attend_to_query: bool) -> torch.Tensor:
    """attn(Ψ; P, i) = softmax_i((W_K p_i)ᵀ W_Q p_query) ([L24] Eq. 2) over the l demonstrations, or over all
    l + 1 columns when `attend_to_query` (the appendix proofs' sum s = 1..l+1).

    P (..., l + 1, D) → (..., l), or (..., l + 1) with the query's own weight last."""
    columns = P if attend_to_query else P[..., :-1, :]
    query = P[..., -1, :] @ W_Q.T  # W_Q p_query
    # (W_K p_i)ᵀ W_Q p_query = p_iᵀ (W_Kᵀ W_Q p_query): one m_a×D product per prompt instead of one per column
    scores = columns @ (query @ W_K).unsqueeze(-1)
    return torch.softmax(scores.squeeze(-1), dim=-1)


class OneLayerTransformer(nn.Module):
    def __init__(self, D: int, m_a: int, m_b: int, m: int, attend_to_query: bool = False):
        super().__init__()
        self.attend_to_query = attend_to_query
        self.W_Q = nn.Parameter(torch.zeros(m_a, D))
        self.W_K = nn.Parameter(torch.zeros(m_a, D))
        self.W_V = nn.Parameter(torch.zeros(m_b, D))
        self.W_O = nn.Parameter(torch.zeros(m, m_b))
        self.register_buffer("a", torch.zeros(m))  # fixed ([L24] §2.3)

    def forward(self, P: torch.Tensor) -> torch.Tensor:
        """P (..., l + 1, D) → F(Ψ; P) (...)."""
        attn = attention_weights(self.W_Q, self.W_K, P, self.attend_to_query)
        columns = P if self.attend_to_query else P[..., :-1, :]
        # Σ_i W_V p_i · attn_i = W_V (Σ_i p_i · attn_i): mix the columns first, then one W_V product
        mixed = (attn.unsqueeze(-2) @ columns).squeeze(-2)
        attended = mixed @ self.W_V.T
        hidden = torch.relu(attended @ self.W_O.T)  # ReLU(W_O Σ_i W_V p_i · attn(Ψ; P, i))
        return hidden @ self.a  # aᵀ ReLU(·)

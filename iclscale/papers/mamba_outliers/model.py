"""Mamba and the linear Transformer (LT) of Li, Lu, Cui, Chen, Wang [LM25], for a single config.

One-layer Mamba (Eq. 1 with A = −I, h_0 = 0) on the prompt P = (p_1 … p_l, p_query) (Eq. 2) is a linear
attention with key W_B and query W_C, weighted by stick-breaking sigmoid gates ([LM25] Eq. 3):

    F(Ψ; P) = e_{d+1}ᵀ o_{l+1} = Σ_{i=1}^{l+1} G_{i,l+1}(w) · y_i · p_iᵀ W_Bᵀ W_C p_query
    G_{i,l+1}(w) = σ(wᵀp_i) · Π_{j=i+1}^{l+1} (1 − σ(wᵀp_j)),    G_{l+1,l+1}(w) = σ(wᵀp_query)

with w = w_{d0}, the last column of the Δ-projection W. The LT is the same with every G ≡ 1 ([LM25] §2, §3.4).
Products of (1 − σ) are exponentials of cumulative sums of log(1 − σ(s)) = −softplus(s): no loop over positions.

A layer of a deeper stack keeps every channel c and position i ([LM25] App. E.1, Eqs. 89–90):

    o_i = Σ_{j ≤ i} (G_{j,i}(W) ⊙ p_j) · p_jᵀ W_Bᵀ W_C p_i,   G_{j,i}(W) = σ(Wᵀp_j) ⊙ Π_{k=j+1}^{i} (1 − σ(Wᵀp_k))

The 3-layer models of [LM25] §4.2 have no equations; our reading is used (not from the paper): each layer
has its own W_B, W_C ∈ R^{h×(d+1)} and W ∈ R^{(d+1)×(d+1)}, a residual p ← p + o, and the read-out is the label
channel of the last layer at the query. Tokens are rows here (the paper's Pᵀ): P (..., l + 1, d + 1).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.functional import softplus


def log_keep(s: torch.Tensor) -> torch.Tensor:
    """log(1 − σ(s)) = −softplus(s) ([LM25] Eq. 1: exp(Δ·A) with A = −1 and Δ = softplus(s))."""
    return -softplus(s)


def query_gates(s: torch.Tensor) -> torch.Tensor:
    """G_{i,l+1} = σ(s_i) Π_{j>i} (1 − σ(s_j)) for s_i = wᵀp_i ([LM25] Eq. 3): (..., l + 1) → (..., l + 1).

    Σ_{j>i} log(1 − σ(s_j)) is the inclusive suffix sum shifted by one position, so no term is subtracted."""
    suffix = log_keep(s).flip(-1).cumsum(-1).flip(-1)  # Σ_{j ≥ i}
    after = torch.cat([suffix[..., 1:], torch.zeros_like(suffix[..., :1])], dim=-1)  # Σ_{j > i}
    return torch.sigmoid(s) * torch.exp(after)


def gate_matrix(s: torch.Tensor) -> torch.Tensor:
    """G_{j,i,c} = σ(s_{j,c}) Π_{k=j+1}^{i} (1 − σ(s_{k,c})) for j ≤ i, else 0 ([LM25] Eq. 90), from
    s_{k,c} = w_cᵀp_k: (..., l + 1, C) → (..., j, i, C). Π = exp(S_i − S_j) with S the cumulative sum of
    log(1 − σ); clamped at 0 above the diagonal (j > i), where the mask zeroes it, so exp never overflows."""
    S = log_keep(s).cumsum(-2)
    between = (S.unsqueeze(-3) - S.unsqueeze(-2)).clamp(max=0.0)  # [j, i] = S_i − S_j
    n = s.shape[-2]
    causal = torch.ones(n, n, dtype=torch.bool).triu()  # [j, i]: j ≤ i
    return torch.where(causal[..., None], torch.sigmoid(s).unsqueeze(-2) * torch.exp(between), 0.0)


def query_scores(W_B: torch.Tensor, W_C: torch.Tensor, P: torch.Tensor) -> torch.Tensor:
    """a_i = p_iᵀ W_Bᵀ W_C p_query ([LM25] Eq. 3, Cor. 1): (..., l + 1) including the query's own score."""
    key = (P[..., -1, :] @ W_C.T) @ W_B  # W_Bᵀ W_C p_query, (d + 1,)
    return (P @ key.unsqueeze(-1)).squeeze(-1)


def score_matrix(W_B: torch.Tensor, W_C: torch.Tensor, P: torch.Tensor) -> torch.Tensor:
    """A_{j,i} = p_jᵀ W_Bᵀ W_C p_i for every pair of positions: (..., j, i)."""
    return (P @ W_B.T) @ (P @ W_C.T).transpose(-1, -2)


def label_output(P: torch.Tensor, W_B: torch.Tensor, W_C: torch.Tensor, w: torch.Tensor | None) -> torch.Tensor:
    """F = Σ_i G_{i,l+1}(w) y_i a_i ([LM25] Eq. 3), or Σ_i y_i a_i for the LT (w None, G ≡ 1). y_i is the label
    channel (the last) of p_i; the query's is 0 before the first layer."""
    weighted = P[..., -1] * query_scores(W_B, W_C, P)  # y_i a_i
    if w is not None:
        weighted = weighted * query_gates(P @ w)
    return weighted.sum(-1)


def layer_output(
    P: torch.Tensor,
    W_B: torch.Tensor,
    W_C: torch.Tensor,
    W: torch.Tensor | None,
    mean: bool = False,
    full: bool = False,
) -> torch.Tensor:
    """o_i of one layer at every position and channel ([LM25] Eqs. 89–90), or the causal linear attention
    o_i = Σ_{j ≤ i} p_j A_{j,i} for the LT (W None), divided by i with `mean`; with `full` (the LT only) every
    position reads all l + 1, o_i = (1/(l + 1)) Σ_j p_j A_{j,i}: (..., l + 1, d + 1)."""
    A = score_matrix(W_B, W_C, P)
    n = P.shape[-2]
    if W is None and full:
        return (A / n).transpose(-1, -2) @ P  # order-invariant: a permutation of the demonstrations permutes o
    A = A * torch.ones(n, n).triu()  # j ≤ i: position i reads its past
    if W is None:
        if mean:
            A = A / torch.arange(1, n + 1)  # column i reads i positions
        return A.transpose(-1, -2) @ P
    G = gate_matrix(P @ W)  # (..., j, i, c)
    return torch.einsum("...jic,...jc,...ji->...ic", G, P, A)


class OneLayer(nn.Module):
    """[LM25] Eq. 3: Ψ = {W_B, W_C, w} for Mamba, {W_B, W_C} for the LT (`gated` False)."""

    def __init__(self, d0: int, hidden: int, gated: bool):
        super().__init__()
        self.gated = gated
        self.W_B = nn.Parameter(torch.zeros(hidden, d0))
        self.W_C = nn.Parameter(torch.zeros(hidden, d0))
        if gated:
            self.w = nn.Parameter(torch.zeros(d0))

    def forward(self, P: torch.Tensor) -> torch.Tensor:
        """P (..., l + 1, d + 1) → F(Ψ; P) (...)."""
        return label_output(P, self.W_B, self.W_C, self.w if self.gated else None)


def layer_inputs(
    P: torch.Tensor,
    W_B: torch.Tensor,
    W_C: torch.Tensor,
    W: torch.Tensor | None,
    residual: bool,
    full: bool = False,
) -> list[torch.Tensor]:
    """The input tokens of each layer of a stack (W_B, W_C: (layers, h, d + 1); W: (layers, d + 1, d + 1) or
    None for the LT): P, then p + o (or o without the residual) after each layer but the last. The LT's layers
    average over the positions they read, causally or (`full`) over all (see `Stack`)."""
    inputs = [P]
    for layer in range(W_B.shape[0] - 1):
        W_layer = None if W is None else W[layer]
        o = layer_output(inputs[-1], W_B[layer], W_C[layer], W_layer, mean=W is None, full=full)
        inputs.append(inputs[-1] + o if residual else o)
    return inputs


class Stack(nn.Module):
    """Several layers (our reading of [LM25] §4.2, which gives no equations; not from the paper): the read-out is the
    label channel of the last layer's output at the query, computed by Eq. 3 with w = the last column of its W.

    The LT's layers divide position i's sum by i (a causal mean; not from the paper): Mamba's gates sum to < 1,
    the LT's weights G ≡ 1 sum to i, and unnormalised the stack is cubic per layer in the token scale: at the
    paper's δ = 0.2, β = 3, l = 20 its output is ~10⁸ at initialisation and SGD diverges at every η tried
    (0.1 down to 10⁻³). The one-layer LT stays unnormalised ([LM25] Eq. 3 with G ≡ 1; T_T ∝ 1/l_tr rests on it).

    `full` (the LT only; lt_attention = full_mean) is the other reading of §4.2's unspecified LT: every position
    averages over all l + 1 positions, so the stack is invariant to the order of the demonstrations (Table 1's
    flat LT column); the causal mean is not (a permutation changes ~15% of its output signs)."""

    def __init__(self, layers: int, d0: int, hidden: int, gated: bool, residual: bool, full: bool = False):
        super().__init__()
        self.gated, self.residual, self.full = gated, residual, full
        self.W_B = nn.Parameter(torch.zeros(layers, hidden, d0))
        self.W_C = nn.Parameter(torch.zeros(layers, hidden, d0))
        if gated:
            self.W = nn.Parameter(torch.zeros(layers, d0, d0))

    def forward(self, P: torch.Tensor) -> torch.Tensor:
        W = self.W if self.gated else None
        last = layer_inputs(P, self.W_B, self.W_C, W, self.residual, self.full and W is None)[-1]
        out = label_output(last, self.W_B[-1], self.W_C[-1], None if W is None else W[-1][:, -1])
        if W is None:
            out = out / P.shape[-2]  # the mean at the query (l + 1 positions, causal or full alike)
        return last[..., -1, -1] + out if self.residual else out


def recurrence(U: torch.Tensor, W_B: torch.Tensor, W_C: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """[LM25] Eq. 1 step by step, the reference the closed forms are tested against: U (m, d0) tokens as rows,
    W_B, W_C (h, d0), W (d0, d0); A = −I, h_0 = 0 (our reading: §2 starts from h_0 = U, but App. E.1's derivation (88)
    drops that term). Returns o_i (m, d0). A Python loop over positions: for tests, never for training."""
    d0, h = U.shape[-1], W_B.shape[0]
    state = torch.zeros(d0, h)
    outputs = []
    for u in U:
        delta = softplus(W.T @ u)  # Δ_{j,i} = softplus(w_jᵀ u_i)
        A_bar = torch.exp(-delta)[:, None] * torch.ones(h)  # Ã_{j,i} = diag(exp(Δ_{j,i} A))ᵀ, A = −I
        B_i = W_B @ u  # B_i = u_iᵀ W_Bᵀ
        B_bar = (delta[:, None] * B_i) * ((torch.exp(-delta) - 1) / -delta)[:, None]  # (Δ B_i)(exp(ΔA) − I)(ΔA)^{-1}
        state = state * A_bar + u[:, None] * B_bar  # h_i = h_{i−1} ⊙ Ã_i + (u_i 1ᵀ) ⊙ B̃_i
        outputs.append(state @ (W_C @ u))  # o_i = h_i C_i, C_i = W_C u_i
    return torch.stack(outputs)

"""The transformer of [Y24] Eq. 1, for a single config, and its initialisation presets.

    F(X) = Σ_{l=1}^{L} Σ_{j=1}^{m1} a_j w_jᵀ W_V X · Softmax(Xᵀ W_Kᵀ W_Q x_l / √m)          ([Y24] Eq. 1)

with W_Q, W_K, W_V ∈ R^{m×d}, W ∈ R^{m1×m} (rows w_jᵀ), a ∈ R^{m1}; no biases, no positional encoding,
one head, a linear MLP. Because the MLP is linear, Σ_j a_j w_jᵀ = (Wᵀa)ᵀ = uᵀ and

    F(X) = Σ_l Σ_h p_{l,h} G(x_h),   G(μ) = uᵀ W_V μ,   p_l = Softmax(s_l),   s_{l,h} = ⟨W_K x_h, W_Q x_l⟩/√m

([Y24] §3 "General idea", Eq. 4's G). Tokens are one-hot (x = μ_i = e_i), so W x is column i of W: the
forward gathers columns instead of multiplying by one-hot matrices (the same numbers, d times fewer flops).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from iclscale.trainer.rng import Stream


def columns(W: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """W x for one-hot x = e_token: (m, d) weights, (..., L) tokens -> (..., L, m)."""
    return W.T[tokens]


def attention(W_Q: torch.Tensor, W_K: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """p[..., l, h]: the weight query l puts on key h, Softmax(Xᵀ W_Kᵀ W_Q x_l / √m) ([Y24] Eq. 1)."""
    q = columns(W_Q, tokens)  # q_l = W_Q x_l
    k = columns(W_K, tokens)  # k_h = W_K x_h
    scores = q @ k.transpose(-1, -2) / math.sqrt(W_Q.shape[0])  # s_{l,h} = ⟨k_h, q_l⟩/√m
    return torch.softmax(scores, dim=-1)  # over keys h


def readout(W: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """u = Wᵀa = Σ_j a_j w_j, the linear MLP read as one vector ([Y24] §3)."""
    return W.T @ a


def sub_network(W_V: torch.Tensor, W: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """G(μ_i) = uᵀ W_V μ_i for every token i: the d-vector of the linear sub-network ([Y24] Eq. 4)."""
    return W_V.T @ readout(W, a)


def key_query(W_K: torch.Tensor, W_Q: torch.Tensor, tokens: list[int]) -> torch.Tensor:
    """A[i, j] = μ_iᵀ W_Kᵀ W_Q μ_j for the given tokens: key i, query j ([Y24] Eq. 7, Thm 3.2(i))."""
    return W_K[:, tokens].T @ W_Q[:, tokens]


class CooccurrenceTransformer(nn.Module):
    def __init__(self, d: int, m: int, m1: int, trainable_readout: bool):
        super().__init__()
        self.W_Q = nn.Parameter(torch.zeros(m, d))
        self.W_K = nn.Parameter(torch.zeros(m, d))
        self.W_V = nn.Parameter(torch.zeros(m, d))
        self.W = nn.Parameter(torch.zeros(m1, m))
        if trainable_readout:
            self.a = nn.Parameter(torch.zeros(m1))
        else:  # the theory's a is fixed ([Y24] §2.2)
            self.register_buffer("a", torch.zeros(m1))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """(..., L) tokens -> F (...): Σ_l Σ_h p_{l,h} G(x_h) ([Y24] Eq. 1 with the linear MLP summed first)."""
        p = attention(self.W_Q, self.W_K, tokens)
        G_of_tokens = sub_network(self.W_V, self.W, self.a)[tokens]  # G(x_h)
        return torch.einsum("...lh,...h->...", p, G_of_tokens)


def initial_weights(rng: Stream, preset: str, d: int, L: int, m: int, m1: int, c0, c1) -> dict[str, torch.Tensor]:
    """W_Q, W_K, W_V (m×d), W (m1×m) and a (m1) drawn by an init preset (App. A says only
    'Kaiming'; the presets are our readings):

    theory:          W_Q, W_K, W_V ~ N(0, s0²), W ~ N(0, s1²), a ~ U{±1};  s0 = c0/√(Lm), s1 = c1/√m1
                     ([Y24] §2.2 and Condition 1)
    kaiming_normal:  N(0, 2/fan_in): fan_in d for W_Q, W_K, W_V, m for W, m1 for a (torch's kaiming_normal_)
    torch_default:   U(±1/√fan_in), the same fan_ins (nn.Linear's kaiming_uniform_(a=√5), no bias)
    """

    def gaussian(name: str, shape: tuple[int, ...], std) -> torch.Tensor:
        return std * rng.normal(f"init/{name}", 0, shape)

    def uniform(name: str, shape: tuple[int, ...], bound: float) -> torch.Tensor:
        return bound * (2 * rng.uniform(f"init/{name}", 0, shape) - 1)

    if preset == "theory":
        s0, s1 = c0 / math.sqrt(L * m), c1 / math.sqrt(m1)
        weights = {name: gaussian(name, (m, d), s0) for name in ("W_Q", "W_K", "W_V")}
        return {**weights, "W": gaussian("W", (m1, m), s1), "a": signs(rng, m1)}
    if preset == "kaiming_normal":
        weights = {name: gaussian(name, (m, d), math.sqrt(2 / d)) for name in ("W_Q", "W_K", "W_V")}
        return {**weights, "W": gaussian("W", (m1, m), math.sqrt(2 / m)), "a": gaussian("a", (m1,), math.sqrt(2 / m1))}
    if preset == "torch_default":
        weights = {name: uniform(name, (m, d), 1 / math.sqrt(d)) for name in ("W_Q", "W_K", "W_V")}
        return {**weights, "W": uniform("W", (m1, m), 1 / math.sqrt(m)), "a": uniform("a", (m1,), 1 / math.sqrt(m1))}
    raise ValueError(f"unknown init preset {preset!r}")


def signs(rng: Stream, m1: int) -> torch.Tensor:
    """a_j ~ Unif{±1}, i.i.d. ([Y24] §2.2)."""
    return torch.where(rng.uniform("init/a_signs", 0, (m1,)) < 0.5, -1.0, 1.0)

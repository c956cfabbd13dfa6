"""A small GPT-2 (Radford et al. 2019) for the ICL prompts of [L24] Fig. 3, for a single config.

[L24] §5 trains "the 3-layer 2-head real-world model GPT-2 following (Bai et al., 2023; Wu et al., 2023a)"
and gives nothing else; everything below except the layer and head counts is our choice, after Garg et
al. / Bai et al.: the l + 1 prompt columns p_1 … p_l, p_query are the tokens; a linear read-in maps them
to the model width; learned positional embeddings; pre-LN blocks (causal self-attention, then a GELU
MLP, each in a residual branch); a final LayerNorm; a linear read-out at the query (the last token, which
sees every demonstration through the causal mask) gives the scalar F. No dropout, no pretrained weights.

Attention is written with einsum and a constant causal mask, so the module runs under `torch.func.vmap`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int, n_head: int):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)  # queries, keys and values of every head
        self.c_proj = nn.Linear(n_embd, n_embd)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """h (..., T, C) → (..., T, C)."""
        T, C = h.shape[-2:]
        q, k, v = (t.unflatten(-1, (self.n_head, C // self.n_head)) for t in self.c_attn(h).split(C, dim=-1))
        scores = torch.einsum("...thd,...shd->...hts", q, k) / math.sqrt(C // self.n_head)
        causal = torch.ones(T, T, dtype=torch.bool, device=h.device).tril()  # token t sees tokens s ≤ t
        weights = torch.softmax(scores.masked_fill(~causal, -math.inf), dim=-1)
        return self.c_proj(torch.einsum("...hts,...shd->...thd", weights, v).flatten(-2))


class MLP(nn.Module):
    def __init__(self, n_embd: int):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.c_proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.c_proj(nn.functional.gelu(self.c_fc(h), approximate="tanh"))  # GPT-2's tanh GELU


class Block(nn.Module):
    """Pre-LN GPT-2 block: h + attn(LN(h)), then + mlp(LN(·))."""

    def __init__(self, n_embd: int, n_head: int):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        h = h + self.attn(self.ln_1(h))
        return h + self.mlp(self.ln_2(h))


class GPT2Classifier(nn.Module):
    def __init__(self, d_in: int, n_layer: int, n_head: int, n_embd: int, n_positions: int, from_query: bool = True):
        super().__init__()
        self.from_query = from_query
        self.read_in = nn.Linear(d_in, n_embd)
        self.wpe = nn.Parameter(torch.zeros(n_positions, n_embd))  # learned positional embeddings
        self.blocks = nn.ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        self.read_out = nn.Linear(n_embd, 1)

    def positions(self, T: int, device: torch.device) -> torch.Tensor:
        """Position index of each of T tokens: T − 1, …, 1, 0 (query at 0) or GPT-2's 0, 1, …, T − 1."""
        index = torch.arange(T, device=device)
        return T - 1 - index if self.from_query else index

    def forward(self, P: torch.Tensor) -> torch.Tensor:
        """P (..., l + 1, D), tokens p_1 … p_l, p_query → F (...), the read-out at the query token."""
        h = self.read_in(P) + self.wpe[self.positions(P.shape[-2], P.device)]
        for block in self.blocks:
            h = block(h)
        return self.read_out(self.ln_f(h[..., -1, :])).squeeze(-1)


def initial_params(
    module: GPT2Classifier, n_layer: int, normal: Callable[[str, tuple[int, ...]], torch.Tensor]
) -> dict[str, torch.Tensor]:
    """GPT-2's initialisation (Radford et al. 2019, as in nanoGPT), not from [L24]: weights and positional
    embeddings N(0, 0.02²), residual projections (c_proj) N(0, (0.02/√(2·n_layer))²), biases 0, LayerNorm
    gains 1. `normal(purpose, shape)` draws (pack_size, *shape) standard normals, one stream per parameter."""
    params = {}
    for name, p in module.named_parameters():
        draw = normal("init/" + name, tuple(p.shape))
        if name.endswith("bias"):
            params[name] = torch.zeros_like(draw)
        elif "ln_" in name:
            params[name] = torch.ones_like(draw)
        elif name.endswith("c_proj.weight"):
            params[name] = 0.02 / math.sqrt(2 * n_layer) * draw
        else:
            params[name] = 0.02 * draw
    return params

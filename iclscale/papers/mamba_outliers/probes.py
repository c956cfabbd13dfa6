"""Mechanism measurements of [LM25] §3.5 and §4.2, per layer, for one config.

On test prompts (`prompt_sums`, summed over chunks, then `prompt_metrics`):
- attention sums S_same = Σ_{i∈N1} a_i and S_other = Σ_{i∉N1} a_i of a_i = p_iᵀ W_Bᵀ W_C p_query on the layer's
  input tokens, N1 the demonstrations sharing the query's relevant pattern ([LM25] Cor. 1, Figs. 3, 5);
- the gates G_{i,l+1} of the label channel for outlier and clean demonstrations, σ(wᵀp) of each, the gate mass
  Σ_i G_i and the gates per test outlier direction ([LM25] Cor. 2, Figs. 4, 6; Lemma 6 for the mass);
- at the final record, the gate profile by distance to the query (Fig. 4's bars) and the mean gate of the j-th
  closest clean demonstration h(j) ([LM25] Eq. 18), up to `PROFILE_DISTANCE` positions;
- for a layer of a stack, the outlier and clean gates averaged over all d + 1 channels as well (`gate_chmean_*`:
  a check, since Figs. 4 and 6 do not say which channel's gate they draw).

Of the parameters alone (`weight_probes`, Lemmas 3–5): M = W_Bᵀ W_C on the relevant directions by cyclic
offset (offset 0 the diagonal, 1 the training pairs (j, j+1), 2 the gap-2 pairs), the same for W_B and W_C
(their hidden axes start as the feature axes, δ·[I_d 0]), and the gate weight w on v*_s, v'_s, μ_j/β, ν_k/β and
the label entry. Layer 1's metrics have no prefix; layer ℓ ≥ 2's start with "layer{ℓ}_".
"""

from __future__ import annotations

import math

import torch

from iclscale.papers.mamba_outliers.model import query_gates, query_scores

PROFILE_DISTANCE = 20
"""Positions of the final gate profiles (Fig. 4 has l = 20); longer prompts are profiled up to here."""
CLEAN_RANKS = 10
"""The j-th closest clean demonstrations profiled for Eq. 18 (j = 1..10; not from the paper)."""


def layer_prefix(layer: int) -> str:
    return "" if layer == 0 else f"layer{layer + 1}_"


def _by_offset(matrix: torch.Tensor, units: torch.Tensor, name: str) -> dict[str, torch.Tensor]:
    """mean_j u_jᵀ X u_{j+k mod M1} for k = 0..M1−1: matrix (h or d0, d0) read on the unit directions (M1, d)."""
    d, M1 = units.shape[-1], units.shape[0]
    R = units @ matrix[:d, :d] @ units.T  # R[j, k] = u_jᵀ X u_k
    j = torch.arange(M1)
    return {f"{name}_offset{k}": R[j, (j + k) % M1].mean() for k in range(M1)}


def weight_probes(
    W_B: torch.Tensor, W_C: torch.Tensor, w: torch.Tensor | None, units: dict[str, torch.Tensor], prefix: str
) -> dict[str, torch.Tensor]:
    """M6 for one layer. units: "relevant" (M1, d), "irrelevant" (M2, d), "train" v*_s (V, d), "unseen" v'_s."""
    relevant = units["relevant"]
    metrics = {
        **_by_offset(W_B.T @ W_C, relevant, "M"),  # a_i's matrix on span{μ} over β² ([LM25] Lemma 3, §13.3)
        **_by_offset(W_B, relevant, "W_B"),
        **_by_offset(W_C, relevant, "W_C"),
    }
    if w is not None:
        d = relevant.shape[-1]
        metrics["w_outlier"] = (units["train"] @ w[:d]).mean()  # v*ᵀw ([LM25] Lemmas 4, 5)
        metrics["w_relevant"] = (relevant @ w[:d]).mean()  # μᵀw/β
        metrics["w_irrelevant"] = (units["irrelevant"] @ w[:d]).mean()  # νᵀw/β
        metrics["w_label"] = w[d]  # the label entry w_{d+1}
        for s, v in enumerate(units.get("unseen", ())):
            metrics[f"w_unseen_v{s + 1}"] = v @ w[:d]
    return {prefix + name: value for name, value in metrics.items()}


def prompt_sums(
    tokens: torch.Tensor,
    W_B: torch.Tensor,
    W_C: torch.Tensor,
    w: torch.Tensor | None,
    same: torch.Tensor,
    is_outlier: torch.Tensor,
    direction: torch.Tensor | None,
    final: bool,
    W: torch.Tensor | None = None,
) -> dict[str, torch.Tensor]:
    """Sums over one chunk of prompts for one layer. tokens: the layer's input (n, l + 1, d + 1); same, is_outlier:
    (n, l) bool; direction: (n, l) index of each outlier's v'_s, or None when not the three unseen ones; W: a stack
    layer's whole gate matrix (d + 1, d + 1), for the channel-averaged gates (a check: Figs. 4, 6 name no channel)."""
    a = query_scores(W_B, W_C, tokens)[..., :-1]  # a_i, demonstrations only
    same_f, out_f = same.to(a.dtype), is_outlier.to(a.dtype)
    sums = {
        "attn_same": (a * same_f).sum(),
        "attn_other": (a * (1 - same_f)).sum(),
        "n_same": same_f.sum(),
        "n_other": (1 - same_f).sum(),
    }
    if w is None:
        return sums
    sigma = torch.sigmoid(tokens[..., :-1, :] @ w)
    G = query_gates(tokens @ w)[..., :-1]
    clean_f = 1 - out_f
    sums.update(
        gate_outlier=(G * out_f).sum(),
        gate_clean=(G * clean_f).sum(),
        sigma_outlier=(sigma * out_f).sum(),
        sigma_clean=(sigma * clean_f).sum(),
        n_outlier=out_f.sum(),
        n_clean=clean_f.sum(),
        gate_mass=G.sum(),
        gate_outlier_mass=(G * out_f).sum(),
    )
    if direction is not None:
        for s in range(3):
            on_s = out_f * (direction == s).to(a.dtype)
            sums[f"gate_v{s + 1}"], sums[f"n_v{s + 1}"] = (G * on_s).sum(), on_s.sum()
    if final:
        sums.update(_profile_sums(G, out_f))
    if W is not None:  # G_{i,l+1,c} of every channel c, averaged over c (the paper's Fig. 4 names no channel)
        G_mean = query_gates((tokens @ W).transpose(-1, -2)).mean(-2)[..., :-1]
        sums.update(chmean_outlier=(G_mean * out_f).sum(), chmean_clean=(G_mean * clean_f).sum())
        if final:
            sums.update(chmean_at01_outlier=(G_mean[..., -1] * out_f[..., -1]).sum(), at01_n=out_f[..., -1].sum())
            sums["chmean_at01_clean"] = (G_mean[..., -1] * clean_f[..., -1]).sum()
    return sums


def _profile_sums(G: torch.Tensor, out_f: torch.Tensor) -> dict[str, torch.Tensor]:
    """Gate sums by distance k to the query (position l + 1 − k) and by clean rank j (h(j), Eq. 18)."""
    l = G.shape[-1]
    sums = {}
    reach = min(l, PROFILE_DISTANCE)
    G_back, out_back = G.flip(-1)[..., :reach], out_f.flip(-1)[..., :reach]  # [k − 1] = distance k
    for k in range(reach):
        sums[f"at{k + 1:02d}_gate_outlier"] = (G_back[..., k] * out_back[..., k]).sum()
        sums[f"at{k + 1:02d}_gate_clean"] = (G_back[..., k] * (1 - out_back[..., k])).sum()
        sums[f"at{k + 1:02d}_count_outlier"] = out_back[..., k].sum()
    clean_back = 1 - out_f.flip(-1)
    rank = clean_back.cumsum(-1) * clean_back  # 1 for the closest clean demonstration, 0 on outliers
    for j in range(min(l, CLEAN_RANKS)):
        hit = (rank == j + 1).to(G.dtype)
        sums[f"rank{j + 1:02d}"], sums[f"rank{j + 1:02d}_n"] = (G.flip(-1) * hit).sum(), hit.sum()
    return sums


def _ratio(num: torch.Tensor, den: torch.Tensor) -> torch.Tensor:
    return torch.where(den > 0, num / den.clamp(min=1), math.nan)


def prompt_metrics(sums: dict[str, torch.Tensor], prefix: str, n_prompts: int) -> dict[str, torch.Tensor]:
    """The chunk sums of `prompt_sums` as means: per prompt for sums over a prompt, per demonstration otherwise."""
    m = {
        "attn_same": sums["attn_same"] / n_prompts,  # S_same, mean over prompts (Cor. 1)
        "attn_other": sums["attn_other"] / n_prompts,  # S_other
        "attn_gap": (sums["attn_same"] - sums["attn_other"]) / n_prompts,  # S_same − S_other (Fig. 3: it grows)
        "attn_same_each": _ratio(sums["attn_same"], sums["n_same"]),  # S_same/|N1|
        "attn_other_each": _ratio(sums["attn_other"], sums["n_other"]),
    }
    if "gate_clean" in sums:
        for kind in ("outlier", "clean"):
            m[f"gate_{kind}"] = _ratio(sums[f"gate_{kind}"], sums[f"n_{kind}"])  # Cor. 2 (i), Fig. 4
            m[f"sigma_{kind}"] = _ratio(sums[f"sigma_{kind}"], sums[f"n_{kind}"])
        m["gate_mass"] = sums["gate_mass"] / n_prompts  # Σ_i G_i < 1 (Lemma 6)
        m["gate_outlier_mass"] = sums["gate_outlier_mass"] / n_prompts
        if "chmean_outlier" in sums:  # a stack layer: the gates averaged over channels too
            for kind in ("outlier", "clean"):
                m[f"gate_chmean_{kind}"] = _ratio(sums[f"chmean_{kind}"], sums[f"n_{kind}"])
        if "chmean_at01_outlier" in sums:
            n_at01 = sums["at01_n"]
            m["gate_chmean_outlier_at01"] = _ratio(sums["chmean_at01_outlier"], n_at01)
            m["gate_chmean_clean_at01"] = _ratio(sums["chmean_at01_clean"], n_prompts - n_at01)
        for s in range(1, 4):
            if f"gate_v{s}" in sums:
                m[f"gate_v{s}"] = _ratio(sums[f"gate_v{s}"], sums[f"n_v{s}"])
        for key in [k for k in sums if k.endswith("_gate_outlier")]:
            at = key[: -len("_gate_outlier")]
            n_out = sums[f"{at}_count_outlier"]
            m[f"gate_outlier_{at}"] = _ratio(sums[key], n_out)
            m[f"gate_clean_{at}"] = _ratio(sums[f"{at}_gate_clean"], n_prompts - n_out)
        for key in [k for k in sums if k.startswith("rank") and not k.endswith("_n")]:
            m[f"gate_clean_{key}"] = _ratio(sums[key], sums[f"{key}_n"])  # G_{h(j)} ≥ Θ(2^−(j−1)) (Eq. 18)
    return {prefix + name: value for name, value in m.items()}

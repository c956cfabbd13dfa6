"""Mechanism measurements (ours) of [LW23] Prop. 1–2 and Lemmas 3, 5, 7, for one config's parameters and prompts.

Blocks: W^x = W[:, :d_X] reads features, W^y = W[:, d_X:d_X+d_Y] reads labels (input side); W_O[:, :d_X] and
W_O[:, d_X:d_X+d_Y] read the value's feature and label *coordinates* (output side).

- Fig. 1a (Prop. 1, Eq. 7–8): mean_j ‖W_Q^x μ_j‖, ‖W_K^x μ_j‖ and mean_k ‖W_Q^x ν_k‖, ‖W_K^x ν_k‖ (all δβ at init),
  the bilinear form μ_jᵀ W_K^xᵀ W_Q^x μ_j' (Lemma 4: diagonal ≫ off-diagonal) and the label-block invariants.
- Attention (Prop. 1 Eq. 9): A_* (mass on demonstrations sharing the query's μ; prompts without one
  are left out and counted), A_partner (the task's other pattern), A_other (non-task patterns, random labels),
  the mass on demonstrations sharing only the query's ν; `in_regime` is A_* ≥ 0.9
  (ours: a pilot saw non-selection solutions).
- Fig. 1b (Prop. 2, Eq. 10), two splits of z = W_O sa, pre-ReLU, that disagree after training (both ours):
  input side, sa = W_V^x Σ A_s x_s + W_V^y Σ A_s y_s, so z = z^x + z^y exactly (the plotted one); output side,
  z = W_O[:, feat]·sa[feat] + W_O[:, lab]·sa[lab] + rest (Eq. 10 as printed). Each is reported as the signed
  contribution to the correct side, y·Σ_i a_i 1[z_i > 0] z_i^part (the parts add up to y·F).
- Lucky neurons (our reading of Lemma 7): 𝒲 = {a_i > 0, W_O[i, lab]·q > 0}, 𝒰 = {a_i < 0, W_O[i, lab]·q < 0}, their
  accumulated W_O change on each block (Lemma 3 Eq. 15–16) and the W_V update's alignment (Lemma 5).
"""

from __future__ import annotations

import torch

from iclscale.papers.common.one_layer_transformer import attention_weights
from iclscale.papers.common.patterns import Prompts

IN_REGIME = 0.9
"""A_* at or above this is the selection regime (our protocol; not from the paper)."""


def _mean_norm(W: torch.Tensor, directions: torch.Tensor) -> torch.Tensor:
    """mean over patterns v of ‖W v‖: W (m_a, d_X), directions (M, d_X) → 0-d."""
    return (directions @ W.T).norm(dim=-1).mean()


def feature_norms(
    params: dict[str, torch.Tensor], relevant: torch.Tensor, irrelevant: torch.Tensor, d_x: int
) -> dict[str, torch.Tensor]:
    """Fig. 1a's four curves and Lemma 4's bilinear form. relevant μ_j (M1, d_X), irrelevant ν_k (M2, d_X)."""
    W_Q, W_K = params["W_Q"][:, :d_x], params["W_K"][:, :d_x]
    form_mu = (relevant @ W_K.T) @ (relevant @ W_Q.T).T  # μ_jᵀ W_K^xᵀ W_Q^x μ_j'
    form_nu = ((irrelevant @ W_K.T) * (irrelevant @ W_Q.T)).sum(-1)  # ν_kᵀ W_K^xᵀ W_Q^x ν_k
    diagonal = torch.eye(len(relevant), dtype=torch.bool)
    return {
        "wq_mu_norm": _mean_norm(W_Q, relevant),  # [LW23] Eq. 7: ≥ Θ(√log M)
        "wk_mu_norm": _mean_norm(W_K, relevant),
        "wq_nu_norm": _mean_norm(W_Q, irrelevant),  # [LW23] Eq. 8: ≤ Θ(1)
        "wk_nu_norm": _mean_norm(W_K, irrelevant),
        "qk_mu_diagonal": form_mu.diagonal().mean(),
        "qk_mu_offdiagonal": torch.where(diagonal, 0.0, form_mu.abs()).sum() / (diagonal.numel() - len(relevant)),
        "qk_nu_diagonal": form_nu.mean(),
    }


def label_block_invariants(params: dict[str, torch.Tensor], d_x: int, d_y: int) -> dict[str, torch.Tensor]:
    """W_Q's label columns and the rows past d_X of W_Q, W_K stay exactly 0: their gradients vanish (derived here;
    [LW23] Eq. 108, 113, 123 state it for the label block); W_K's label columns move, by a little
    ([LW23] Eq. 109: ≤ ε_y)."""
    W_Q, W_K = params["W_Q"], params["W_K"]
    return {
        "wq_label_columns_norm": W_Q[:, d_x : d_x + d_y].norm(),
        "wk_label_columns_norm": W_K[:, d_x : d_x + d_y].norm(),
        "wk_feature_columns_norm": W_K[:, :d_x].norm(),
        "qk_rows_past_dx_norm": torch.cat([W_Q[d_x:], W_K[d_x:]]).norm(),
    }


def attention_mass(params: dict[str, torch.Tensor], prompts: Prompts, attend_to_query: bool) -> dict[str, torch.Tensor]:
    """Where the query's attention goes (Prop. 1 Eq. 9), on one probe set."""
    draw, l = prompts.draw, prompts.tokens.shape[-2] - 1
    attn = attention_weights(params["W_Q"], params["W_K"], prompts.tokens, attend_to_query)[..., :l]
    contexts, query = draw.relevant[..., :-1], draw.relevant[..., -1:]
    partner = draw.task.sum(-1, keepdim=True) - query  # the task's other decisive pattern
    same = contexts == query
    on_task = same | (contexts == partner)
    only_irrelevant = (draw.irrelevant[..., :-1] == draw.irrelevant[..., -1:]) & ~same
    has_match = same.any(-1)
    a_star = (attn * same).sum(-1)  # Σ_{s ∈ 𝒩_*} softmax_s ([LW23] Eq. 9)
    kept = has_match.to(attn.dtype)
    mean_star = (a_star * kept).sum() / kept.sum().clamp(min=1)
    ranked = torch.sort(torch.where(has_match, a_star, torch.inf)).values  # prompts with a match first
    rank = (0.05 * (kept.sum() - 1).clamp(min=0)).long()
    low = ranked.gather(0, rank[None])[0]  # the 5th percentile (lower nearest rank) of A_* over those prompts
    return {
        "attn_same": mean_star,
        "attn_same_p05": torch.where(kept.sum() > 0, low, torch.nan),
        "attn_partner": (attn * (contexts == partner)).sum(-1).mean(),
        "attn_other": (attn * ~on_task).sum(-1).mean(),
        "attn_same_irrelevant": (attn * only_irrelevant).sum(-1).mean(),
        "attn_same_uniform": same.to(attn.dtype).mean(),  # |𝒩_*|/l: A_* of uniform attention (≈ α/2)
        "attn_no_match": 1.0 - kept.mean(),  # prompts with 𝒩_* = ∅, left out of A_*
        "in_regime": (mean_star >= IN_REGIME).to(attn.dtype),
    }


def _correct_side(a: torch.Tensor, active: torch.Tensor, z_part: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """mean over prompts of y·Σ_i a_i 1[z_i > 0] z_i^part: this part's share of the margin y·F."""
    return (y * ((active * z_part) @ a)).mean()


def mlp_splits(
    params: dict[str, torch.Tensor], prompts: Prompts, d_x: int, attend_to_query: bool
) -> dict[str, torch.Tensor]:
    """Fig. 1b: what the MLP reads from features and from labels, both splits (module docstring)."""
    W_V, W_O, a = params["W_V"], params["W_O"], params["a"]
    P, y = prompts.tokens, prompts.z
    attn = attention_weights(params["W_Q"], params["W_K"], P, attend_to_query)
    columns = P if attend_to_query else P[..., :-1, :]
    mixed = (attn.unsqueeze(-2) @ columns).squeeze(-2)  # Σ_s A_s p_s, (n, D)
    h_x, h_y = mixed[..., :d_x] @ W_V[:, :d_x].T, mixed[..., d_x:] @ W_V[:, d_x:].T  # sa = h_x + h_y
    z_x, z_y = h_x @ W_O.T, h_y @ W_O.T  # input side: z = W_O sa = z^x + z^y
    z = z_x + z_y
    active = (z > 0).to(z.dtype)
    sa = h_x + h_y
    D = P.shape[-1]
    z_feat = sa[..., :d_x] @ W_O[:, :d_x].T  # output side: W_O[i, 1:d_X]·sa[1:d_X] ([LW23] Eq. 10, right)
    z_lab = sa[..., d_x:D] @ W_O[:, d_x:D].T  # W_O[i, d_X+1:d_X+d_Y]·sa[d_X+1:d_X+d_Y] (Eq. 10, left)
    F_x, F_y = (active * z_x) @ a, (active * z_y) @ a
    correct = active * (torch.sign(a) == y[..., None]).to(z.dtype)  # active neurons on the side of the label
    n_correct = correct.sum().clamp(min=1)
    return {
        "mlp_in_feature": _correct_side(a, active, z_x, y),  # plotted in Fig. 1b (input side)
        "mlp_in_label": _correct_side(a, active, z_y, y),
        "mlp_out_feature": _correct_side(a, active, z_feat, y),
        "mlp_out_label": _correct_side(a, active, z_lab, y),
        "mlp_out_rest": _correct_side(a, active, z - z_feat - z_lab, y),
        "preact_feature_abs": z_x.abs().mean(),
        "preact_label_abs": z_y.abs().mean(),
        "readout_label_accuracy": ((y * F_y > 0).to(z.dtype) + 0.5 * (F_y == 0).to(z.dtype)).mean(),
        "readout_feature_accuracy": ((y * F_x > 0).to(z.dtype) + 0.5 * (F_x == 0).to(z.dtype)).mean(),
        "prop2_out_fraction": (z_lab > z_feat).to(z.dtype).mean(),  # Eq. 10 over every (prompt, neuron)
        "prop2_out_active_fraction": (correct * (z_lab > z_feat)).sum() / n_correct,
        "prop2_in_active_fraction": (correct * (z_y > z_x)).sum() / n_correct,
    }


def lucky_neurons(
    params: dict[str, torch.Tensor], initial: dict[str, torch.Tensor], q: torch.Tensor, d_x: int
) -> dict[str, torch.Tensor]:
    """Lemma 7's lucky sets (our reading), Lemma 3's accumulated W_O change on them and Lemma 5's W_V update.
    `initial`: the config's W_O and W_V at step 0."""
    W_O, a = params["W_O"], params["a"]
    d_y, m = q.shape[-1], W_O.shape[0]
    reads_q = W_O[:, d_x : d_x + d_y] @ q  # W_O[i, label block]·q
    lucky_w, lucky_u = (a > 0) & (reads_q > 0), (a < 0) & (reads_q < 0)
    lucky = (lucky_w | lucky_u).to(W_O.dtype)
    change = W_O - initial["W_O"]  # the accumulated η Σ_b ∂ℓ/∂W_O[i] of Lemma 3, by block
    label_change = change[:, d_x : d_x + d_y].norm(dim=-1)
    feature_change = change[:, :d_x].norm(dim=-1)
    label_change = (label_change * lucky).sum() / lucky.sum().clamp(min=1)
    feature_change = (feature_change * lucky).sum() / lucky.sum().clamp(min=1)
    direction = (lucky_w.to(W_O.dtype) - lucky_u.to(W_O.dtype)) @ W_O  # Σ_𝒲 W_O[i] − Σ_𝒰 W_O[i]
    update = (params["W_V"] - initial["W_V"]) @ torch.cat([torch.zeros(d_x), q])  # (W_V^(t) − W_V^(0))(0; q)
    cosine = (update @ direction) / (update.norm() * direction.norm()).clamp(min=1e-30)
    return {
        "lucky_W_fraction": lucky_w.to(W_O.dtype).sum() / m,  # [LW23] Lemma 7: ≥ (1 − ε_m − τM1)/16
        "lucky_U_fraction": lucky_u.to(W_O.dtype).sum() / m,
        "lucky_dWO_label": label_change,  # [LW23] Lemma 3 Eq. 15: Θ(δβ²/a)
        "lucky_dWO_feature": feature_change,  # Eq. 16: Θ(δβ²λ_*/a), so the ratio ≈ λ_*
        "lucky_dWO_ratio": feature_change / label_change.clamp(min=1e-30),
        "wv_update_cosine": cosine,  # [LW23] Lemma 5: the W_V update lies along the lucky W_O rows
    }

"""The mechanism measurements of [Y24] (spec §7), for one config at one record.

- margins and losses: ℓ_i = ℓ(y_i F_i) with ℓ(x) = log(1 + e^{−x}) (Eq. 2), per type k the mean over I_k
  (Fig. 1b), min_i y_i F_i (T1 is the first time it is positive, spec §7.4);
- the linear sub-network G(μ) = uᵀW_V μ (Eq. 4) on μ1, μ2, μ3, its margins (Thm 3.2(iv)) and its size on the
  random tokens of the training set (Lemma F.14); ‖Wᵀa‖² (Eq. 5);
- attention: the key–query scores A_ij = μ_iᵀ W_Kᵀ W_Q μ_j (key i, query j; Fig. 1a, Thm 3.2(i)), the value
  Gram ⟨W_V μ_i, W_V μ_j⟩ (Thm 3.2(ii)), the softmax weights between the special tokens (Cor. F.17) and the
  largest change of any softmax weight since initialisation (Def. F.1);
- gradient balancing (§4.2, App. F.1): S_k = Σ_{i∈I_k} g_i with g_i = 1/(1 + e^{y_i F_i}), R(t), R*, the
  ordering of Def. F.1, the ratios of Lemmas 4.4–4.5, the spread of g within a type (Cor. F.2);
- exact gradient-flow rates dX/dt = −⟨∇_θX, ∇_θL̂⟩ (forward-mode autograd along −∇L̂) of the quantities the
  claims about rates name (Lemmas 4.1–4.3, 4.7, F.4, F.11; spec §7.1), and Eq. 5's right-hand side.

The types come in order (data.sample_types), so I_k is a slice: no masks whose shape depends on data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch
import torch.nn.functional as F
from torch.func import grad, jvp

from iclscale.studies.cooccurrence.data import MU1, MU2, MU3, type_slices
from iclscale.studies.cooccurrence.model import attention, key_query, readout, sub_network
from iclscale.study import Net

SPECIAL = [MU1, MU2, MU3]
Metrics = dict[str, torch.Tensor]


def logistic_loss(margin: torch.Tensor) -> torch.Tensor:
    """ℓ(x) = log(1 + exp(−x)) ([Y24] Eq. 2), as softplus(−x) for large margins."""
    return F.softplus(-margin)


def margins(net: Net, tokens: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """y_i F(X_i)."""
    return y * net(tokens)


def losses(margin: torch.Tensor) -> Metrics:
    """L̂ = (1/n) Σ_i ℓ(y_iF_i) ([Y24] Eq. 2), the mean within each type (Fig. 1b; spec §9.17), the margins."""
    loss = logistic_loss(margin)
    I1, I2, I3, I4 = type_slices(margin.shape[-1])
    return {
        "loss": loss.mean(),
        **{f"loss_type{k}": loss[I].mean() for k, I in enumerate((I1, I2, I3, I4), start=1)},
        "min_margin": margin.min(),  # > 0: every sample correct (T1, spec §7.4)
        "min_margin_type4": margin[I4].min(),  # Lemma E.19 / C21: type 4 correct early
    }


def mlp_values(params: Mapping[str, torch.Tensor], random_seen: torch.Tensor) -> Metrics:
    """G on the special tokens, its uniform-attention margins ([Y24] Thm 3.2(iv)), its size on the random tokens
    seen in training (Lemma F.14), ‖Wᵀa‖² (Eq. 5)."""
    G = sub_network(params["W_V"], params["W"], params["a"])
    u = readout(params["W"], params["a"])
    magnitude = torch.where(random_seen, G.abs(), 0.0)
    return {
        "G1": G[MU1],
        "G2": G[MU2],
        "G3": G[MU3],
        "G_margin_type1": G[MU1] + G[MU2] + G[MU3],
        "G_margin_type2": G[MU1] + G[MU3],
        "G_margin_type3": G[MU2] + G[MU3],
        "G_random_max": magnitude.max(),
        "G_random_mean": magnitude.sum() / random_seen.sum(),
        "u_norm2": u @ u,
    }


def special_pairs(matrix: torch.Tensor, prefix: str, symmetric: bool = False) -> Metrics:
    """Entries (i, j) of a 3×3 matrix on μ1, μ2, μ3, named prefix + "ij" (1-based)."""
    return {f"{prefix}{i + 1}{j + 1}": matrix[i, j] for i in range(3) for j in range(3) if not symmetric or i <= j}


def scores_and_values(params: Mapping[str, torch.Tensor]) -> Metrics:
    """A_ij = μ_iᵀ W_Kᵀ W_Q μ_j (key i, query j; [Y24] Thm 3.2(i)) and ⟨v_i, v_j⟩ = μ_iᵀ W_Vᵀ W_V μ_j (ii)."""
    A = key_query(params["W_K"], params["W_Q"], SPECIAL)
    V = key_query(params["W_V"], params["W_V"], SPECIAL)
    return {**special_pairs(A, "A"), **special_pairs(V, "v", symmetric=True)}


def softmax_weights(params: Mapping[str, torch.Tensor], initial: Mapping[str, torch.Tensor], tokens) -> Metrics:
    """Mean over type-1 sequences of p_{q←μ_i, k←μ_j} ([Y24] Cor. F.17), and max_{i,l,h} |p(t) − p(0)|
    (Def. F.1: O(1/L²) throughout Phase 2)."""
    P = attention(params["W_Q"], params["W_K"], tokens)
    P0 = attention(initial["W_Q"], initial["W_K"], tokens)
    I1 = type_slices(tokens.shape[0])[0]
    out = {}
    for name, query, key in (("p12", MU1, MU2), ("p21", MU2, MU1), ("p13", MU1, MU3), ("p23", MU2, MU3)):
        is_query = (tokens[I1] == query).to(P.dtype)
        is_key = (tokens[I1] == key).to(P.dtype)
        out[name] = torch.einsum("il,ilh,ih->i", is_query, P[I1], is_key).mean()
    out["attention_max_change"] = (P - P0).abs().max()
    return out


def balancing(margin: torch.Tensor) -> Metrics:
    """Gradient sums S_k and the balancing statistics of [Y24] Lemmas 4.4–4.5, App. F.1 (spec §7.3)."""
    g = torch.sigmoid(-margin)  # g_i = −ℓ'(y_iF_i) = 1/(1 + e^{y_iF_i})
    g_prime = -g * (1 - g)  # g'(x) = −g(x)(1 − g(x))
    slices = type_slices(margin.shape[-1])
    S1, S2, S3, S4 = (g[I].sum() for I in slices)
    D1, D2, D3, D4 = (g_prime[I].sum() for I in slices)  # S'_k
    S = S1 + S2 + S3 + S4
    beta = (D3 + D4 - D1) / (D1 + D2)  # β = b/a, a = S'1 + S'2, b = S'3 + S'4 − S'1 (App. F.1)
    ordered = (S4 <= torch.minimum(S2, S3)) & (torch.maximum(S2, S3) <= S1) & (S1 <= S2 + S3 + S4)
    return {
        "S1": S1,
        "S2": S2,
        "S3": S3,
        "S4": S4,
        "R": (S2 + S3 + S4 - S1) / (S1 - S2),  # R(t) ≈ −Ġ3/Ġ1 (§4.2)
        "R_star": -beta / 2 + torch.sqrt(beta**2 / 4 + 2),  # the root R* with c/a ≈ −2 (spec §9.9)
        "balance_23": (S2 - S3).abs() / torch.minimum(S2, S3),  # Lemma 4.4: ≤ C ≪ 1
        "S2_over_S3": S2 / S3,  # Def. F.1: in [1/2, 2]
        "S_ordering": ordered.to(S.dtype),  # Def. F.1: S4 ≤ min(S2,S3) ≤ max(S2,S3) ≤ S1 ≤ S2+S3+S4
        "S_over_S234_minus_S1": S / (S2 + S3 + S4 - S1),  # Lemma 4.5: O(1), positive
        "S_over_S1_minus_S2": S / (S1 - S2),
        "S_over_S1_minus_S3": S / (S1 - S3),
        "g_spread": torch.stack([g[I].max() / g[I].min() for I in slices]).max(),  # Cor. F.2: O(1)
    }


def flow_rates(net: Net, trainable: tuple[str, ...], loss: Callable[[Net], torch.Tensor], quantities) -> Metrics:
    """dX/dt = −⟨∇_θX, ∇_θL̂⟩ under gradient flow dθ/dt = −∇_θL̂ ([Y24] §2.2), for every X of `quantities(net)`:
    one gradient of L̂ and one forward-mode derivative of all X along −∇L̂ (two autograd calls, spec §7.1)."""
    fixed = {n: v for n, v in net.params.items() if n not in trainable}
    theta = {n: net.params[n] for n in trainable}

    def bound(params):
        return Net(net.module, {**fixed, **params})

    direction = {n: -g for n, g in grad(lambda p: loss(bound(p)))(theta).items()}
    _, rates = jvp(lambda p: quantities(bound(p)), (theta,), (direction,))
    return rates


def rate_quantities(net: Net, tokens: torch.Tensor, y: torch.Tensor, random_seen: torch.Tensor) -> Metrics:
    """The X whose gradient-flow rates the claims name: G on μ1..μ3 (Lemmas 4.1–4.3) and on the random tokens
    (Lemma E.6), the scores of Thm 3.2(i) (Lemma 4.7), the value Gram of Thm 3.2(ii) (Lemma F.11), ‖Wᵀa‖²
    (Eq. 5) and every margin y_iF_i (Thm F.8's equal rates)."""
    G = sub_network(net.params["W_V"], net.params["W"], net.params["a"])
    u = readout(net.params["W"], net.params["a"])
    picked = scores_and_values(net.params)
    return {
        "G1": G[MU1],
        "G2": G[MU2],
        "G3": G[MU3],
        "G_random": torch.where(random_seen, G, 0.0),
        **{name: picked[name] for name in ("A12", "A21", "A31", "A32", "v11", "v22", "v12", "v13", "v23")},
        "u_norm2": u @ u,
        "margins": margins(net, tokens, y),
    }


def rates(
    net: Net, trainable: tuple[str, ...], tokens: torch.Tensor, y: torch.Tensor, random_seen: torch.Tensor
) -> Metrics:
    """The gradient-flow rates, named rate_<X>, with the derived ratios of Lemmas 4.2–4.5 and E.6."""
    mean_loss = lambda n: logistic_loss(margins(n, tokens, y)).mean()  # noqa: E731
    dot = flow_rates(net, trainable, mean_loss, lambda n: rate_quantities(n, tokens, y, random_seen))
    random_rates = torch.where(random_seen, dot.pop("G_random").abs(), torch.nan)
    margin_rates = dot.pop("margins")
    G1, G2, G3 = dot["G1"], dot["G2"], dot["G3"]
    out = {f"rate_{name}": value for name, value in dot.items()}
    out["rate_G_random_median"] = torch.nanmedian(random_rates)  # |Ġ(μ_r)|, ≈ (3/n)·Ġ1 at t = 0 (Lemma E.6)
    out["rate_G3_over_G1"] = G3 / G1  # Lemma 4.2: |Ġ3|/Ġ1 small at t = 0
    out["rate_G3_lower"] = -G3 / torch.maximum(G1, G2)  # Lemma 4.3/4.5: ≥ 1 + C
    out["rate_G3_upper"] = -G3 / (G1 + G2)  # Lemma 4.3/4.5: ≤ 1 − C
    out["rate_margin_spread"] = margin_rates.max() / margin_rates.min()  # Thm F.8: every margin at one rate
    return out


def norm_identity(params: Mapping[str, torch.Tensor], margin: torch.Tensor) -> torch.Tensor:
    """(2‖a‖²/n) Σ_i g_i y_iF_i, which equals d‖Wᵀa‖²/dt under gradient flow for a fixed a ([Y24] Eq. 5,
    Lemma F.4 with m1 = ‖a‖² for a ∈ {±1}^{m1})."""
    a = params["a"]
    return 2 * (a @ a) * (torch.sigmoid(-margin) * margin).mean()

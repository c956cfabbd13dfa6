"""The mechanism measurements of [Y24] (§§3–4, Apps. E–F), for one config at one record.

- margins and losses: ℓ_i = ℓ(y_i F_i) with ℓ(x) = log(1 + e^{−x}) (Eq. 2), per type k the mean over I_k
  (Fig. 1b), min_i y_i F_i (T1 is the first time it is positive, our reading), max_i |F_i| (Lemma D.8 at t = 0);
- the linear sub-network G(μ) = uᵀW_V μ (Eq. 4) on μ1, μ2, μ3, its margins (Thm 3.2(iv)) and its size on the
  random tokens of the training set (Lemma F.14); ‖Wᵀa‖² (Eq. 5);
- attention: the key–query scores A_ij = μ_iᵀ W_Kᵀ W_Q μ_j (key i, query j; Fig. 1a, Thm 3.2(i)), the value
  Gram ⟨W_V μ_i, W_V μ_j⟩ (Thm 3.2(ii)), the softmax weights between the special tokens (Cor. F.17) and the
  largest change of any softmax weight since initialisation (Def. F.1);
- drift since initialisation (Thm E.28, Lemma F.19, Thm 3.3): the key, query, value and neuron Gram matrices and
  the key–query scores on the special tokens and a fixed sample of the training set's random tokens;
- gradient balancing (§4.2, App. F.1): S_k = Σ_{i∈I_k} g_i with g_i = 1/(1 + e^{y_i F_i}), R(t), R′(t), R*,
  the ordering of Def. F.1, the ratios of Lemmas 4.4–4.5, the spread of g within a type (Cor. F.2);
- exact gradient-flow rates dX/dt = −⟨∇_θX, ∇_θL̂⟩ (forward-mode autograd along −∇L̂) of the quantities the
  claims about rates name (Lemmas 4.1–4.3, 4.7, F.4, F.11, Cor. F.17, Thm F.8; the chain rule under §2.2's
  flow), and Eq. 5's right-hand side.

The types come in order (data.sample_types), so I_k is a slice: no masks whose shape depends on data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch
import torch.nn.functional as F
from torch.func import grad, jvp

from iclscale.papers.cooccurrence.data import MU1, MU2, MU3, type_slices
from iclscale.papers.cooccurrence.model import attention, key_query, readout, sub_network
from iclscale.trainer.study import Net

SPECIAL = [MU1, MU2, MU3]
Metrics = dict[str, torch.Tensor]


def logistic_loss(margin: torch.Tensor) -> torch.Tensor:
    """ℓ(x) = log(1 + exp(−x)) ([Y24] Eq. 2), as softplus(−x) for large margins."""
    return F.softplus(-margin)


def margins(net: Net, tokens: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """y_i F(X_i)."""
    return y * net(tokens)


def losses(margin: torch.Tensor) -> Metrics:
    """L̂ = (1/n) Σ_i ℓ(y_iF_i) ([Y24] Eq. 2), the mean within each type (Fig. 1b; our reading), the margins."""
    loss = logistic_loss(margin)
    I1, I2, I3, I4 = type_slices(margin.shape[-1])
    return {
        "loss": loss.mean(),
        **{f"loss_type{k}": loss[I].mean() for k, I in enumerate((I1, I2, I3, I4), start=1)},
        "min_margin": margin.min(),  # > 0: every sample correct (T1, our reading)
        "max_abs_output": margin.abs().max(),  # max_i |F(X_i)| (|y_i| = 1); at t = 0 Lemma D.8 needs ≤ 0.01
        # per type: which samples become correct last (Thm E.14 for type 1, Cor. E.20 for types 2 and 3,
        # Lemma E.19 / C21 for type 4)
        **{f"min_margin_type{k}": margin[I].min() for k, I in enumerate((I1, I2, I3, I4), start=1)},
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
        "G_signal_min": torch.minimum(torch.minimum(G[MU1], G[MU2]), -G[MU3]),  # ≥ c: T1_G(c) (ours)
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


def drifts(params: Mapping[str, torch.Tensor], initial: Mapping[str, torch.Tensor], sample: torch.Tensor) -> Metrics:
    """Changes since t = 0 of the Gram matrices and scores that [Y24] bounds: key and query Grams (Thm E.28:
    Õ(1/m²) on [0, T1]; Lemma F.19), value and neuron Grams (Thm E.28: Õ(1/m)), the key–query scores on the
    special tokens (Thm E.28: Õ(m^(−3/2)(1/L + 1/√m))) and with a random token (Thm 3.3: ≈ 1/n of C12's first
    term), over μ1, μ2, μ3 and the sampled random tokens."""
    tokens = torch.cat([torch.tensor(SPECIAL, device=sample.device), sample])
    S, R = slice(0, len(SPECIAL)), slice(len(SPECIAL), None)

    def change(first: str, second: str) -> torch.Tensor:
        return key_query(params[first], params[second], tokens) - key_query(initial[first], initial[second], tokens)

    A = change("W_K", "W_Q")  # key i, query j
    W, W0 = params["W"], initial["W"]
    random_max = torch.stack([A[R, S].abs().max(), A[S, R].abs().max(), A[R, R].abs().max()])
    return {
        "key_gram_drift": change("W_K", "W_K").abs().max(),
        "query_gram_drift": change("W_Q", "W_Q").abs().max(),
        "value_gram_drift": change("W_V", "W_V").abs().max(),
        "neuron_gram_drift": (W @ W.T - W0 @ W0.T).abs().max(),  # ⟨w_j1, w_j2⟩, all pairs
        "score_change_special": A[S, S].abs().max(),
        "score_change_random_key": random_max[0],  # key a random token, query μ1, μ2 or μ3
        "score_change_random_query": random_max[1],
        "score_change_random_pair": random_max[2],
        "random_score_change_ratio": random_max.max() / A[MU1, MU2].abs(),  # max |C_{i,γ}| / |C12| (Thm 3.3)
    }


def conserved_drift(params: Mapping[str, torch.Tensor], initial: Mapping[str, torch.Tensor]) -> Metrics:
    """How far gradient descent has moved the two quantities gradient flow conserves (not from [Y24]: the balancedness
    of factored products: Du, Hu, Lee, NeurIPS 2018, "layers are automatically balanced"). F depends on W and W_V only
    through W W_V, and on W_K, W_Q only through W_Kᵀ W_Q (Eq. 1), so under dθ/dt = −∇L̂

        d/dt (WᵀW) = d/dt (W_V W_Vᵀ),   d/dt (W_K W_Kᵀ) = d/dt (W_Q W_Qᵀ):

    WᵀW − W_V W_Vᵀ and W_K W_Kᵀ − W_Q W_Qᵀ (m × m) keep their initial values. A step of size η moves each by
    η²·(a difference of squared gradients), so over a fixed flow time t = η·step the drift is O(η t): it halves when
    η halves if gradient descent follows the flow. Frobenius norms of the change since t = 0."""

    def balance(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
        return first @ first.T - second @ second.T

    value = balance(params["W"].T, params["W_V"]) - balance(initial["W"].T, initial["W_V"])  # WᵀW − W_V W_Vᵀ
    keys_queries = balance(params["W_K"], params["W_Q"]) - balance(initial["W_K"], initial["W_Q"])
    return {"conserved_value_drift": value.norm(), "conserved_key_query_drift": keys_queries.norm()}


def special_softmax(params: Mapping[str, torch.Tensor], tokens: torch.Tensor) -> Metrics:
    """Mean over type-1 sequences of p_{q←μ_i, k←μ_j}, the weight query μ_i puts on key μ_j ([Y24] Cor. F.17)."""
    P = attention(params["W_Q"], params["W_K"], tokens)
    I1 = type_slices(tokens.shape[0])[0]
    out = {}
    for name, query, key in (("p12", MU1, MU2), ("p21", MU2, MU1), ("p13", MU1, MU3), ("p23", MU2, MU3)):
        is_query = (tokens[I1] == query).to(P.dtype)
        is_key = (tokens[I1] == key).to(P.dtype)
        out[name] = torch.einsum("il,ilh,ih->i", is_query, P[I1], is_key).mean()
    return out


def softmax_weights(params: Mapping[str, torch.Tensor], initial: Mapping[str, torch.Tensor], tokens) -> Metrics:
    """`special_softmax`, and max_{i,l,h} |p(t) − p(0)| (Def. F.1: O(1/L²) throughout Phase 2)."""
    P = attention(params["W_Q"], params["W_K"], tokens)
    P0 = attention(initial["W_Q"], initial["W_K"], tokens)
    return {**special_softmax(params, tokens), "attention_max_change": (P - P0).abs().max()}


def balancing(margin: torch.Tensor) -> Metrics:
    """Gradient sums S_k and the balancing statistics of [Y24] Lemmas 4.4–4.5, App. F.1."""
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
        "R_prime": (S2 + S3 + S4 - S1) / (S1 - S3),  # R′(t) ≈ −Ġ3/Ġ2, the same with μ2 (ours)
        "R_star": -beta / 2 + torch.sqrt(beta**2 / 4 + 2),  # the root R* with c/a ≈ −2 (App. F.1: +2; our reading)
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
    one gradient of L̂ and one forward-mode derivative of all X along −∇L̂ (two autograd calls)."""
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
    (Eq. 5), the softmax weights of Cor. F.17, every margin y_iF_i (Thm F.8's equal rates) and L̂ itself
    (Thm F.8: dL̂/dt = −‖Wᵀa‖²Θ(L̂²))."""
    G = sub_network(net.params["W_V"], net.params["W"], net.params["a"])
    u = readout(net.params["W"], net.params["a"])
    picked = scores_and_values(net.params)
    margin = margins(net, tokens, y)
    return {
        "G1": G[MU1],
        "G2": G[MU2],
        "G3": G[MU3],
        "G_random": torch.where(random_seen, G, 0.0),
        **{name: picked[name] for name in ("A12", "A21", "A31", "A32", "v11", "v22", "v12", "v13", "v23")},
        "u_norm2": u @ u,
        **special_softmax(net.params, tokens),
        "margins": margin,
        "loss": logistic_loss(margin).mean(),
    }


def rates(
    net: Net, trainable: tuple[str, ...], tokens: torch.Tensor, y: torch.Tensor, random_seen: torch.Tensor
) -> Metrics:
    """The gradient-flow rates, named rate_<X>, with the derived ratios of Lemmas 4.2–4.5, 4.7, E.6 and Thm F.8."""
    mean_loss = lambda n: logistic_loss(margins(n, tokens, y)).mean()  # noqa: E731
    dot = flow_rates(net, trainable, mean_loss, lambda n: rate_quantities(n, tokens, y, random_seen))
    loss, u = mean_loss(net), readout(net.params["W"], net.params["a"])
    random_rates = torch.where(random_seen, dot.pop("G_random").abs(), torch.nan)
    margin_rates = dot.pop("margins")
    G1, G2, G3 = dot["G1"], dot["G2"], dot["G3"]
    out = {f"rate_{name}": value for name, value in dot.items()}
    out["rate_G_random_median"] = torch.nanmedian(random_rates)  # |Ġ(μ_r)|, ≈ (3/n)·Ġ1 at t = 0 (Lemma E.6)
    out["rate_G3_over_G1"] = G3 / G1  # Lemma 4.2: |Ġ3|/Ġ1 small at t = 0
    out["rate_G3_lower"] = -G3 / torch.maximum(G1, G2)  # Lemma 4.3/4.5: ≥ 1 + C
    out["rate_G3_upper"] = -G3 / (G1 + G2)  # Lemma 4.3/4.5: ≤ 1 − C
    out["rate_margin_spread"] = margin_rates.max() / margin_rates.min()  # Thm F.8: every margin at one rate
    out["rate_margin_min"] = margin_rates.min()  # > 0: every sample's margin grows (Thm F.8)
    # Lemma 4.7: dA12/dt = (1/√m) Θ̃(L̂ σ0² m)(1/L), so the rate per unit loss is Θ̃(σ0²√m/L)
    out["rate_A12_over_loss"] = dot["A12"] / loss
    # Thm F.8: dL̂/dt = −‖Wᵀa‖² Θ(L̂²), so −(dL̂/dt)/(‖Wᵀa‖² L̂²) = Θ(1)
    out["loss_rate_ratio"] = -dot["loss"] / ((u @ u) * loss**2)
    return out


def norm_identity(params: Mapping[str, torch.Tensor], margin: torch.Tensor) -> torch.Tensor:
    """(2‖a‖²/n) Σ_i g_i y_iF_i, which equals d‖Wᵀa‖²/dt under gradient flow for a fixed a ([Y24] Eq. 5,
    Lemma F.4 with m1 = ‖a‖² for a ∈ {±1}^{m1})."""
    a = params["a"]
    return 2 * (a @ a) * (torch.sigmoid(-margin) * margin).mean()

"""The transformer of Yang et al. 2024 (seed 003), Eq. 1, its initialisation presets and App. B's gradients."""

import math

import pytest
import torch

from iclscale.papers.cooccurrence.model import CooccurrenceTransformer, initial_weights
from iclscale.trainer.rng import Stream
from iclscale.trainer.study import Net

d, L, m, m1 = 7, 4, 5, 6


def _weights(seed=0, preset="kaiming_normal", c0=1.0, c1=1.0, dims=(d, L, m, m1)):
    torch.set_default_dtype(torch.float64)
    try:
        return initial_weights(Stream.from_seeds([seed])[0], preset, *dims, torch.tensor(c0), torch.tensor(c1))
    finally:
        torch.set_default_dtype(torch.float32)


def _net(weights, trainable=False):
    return Net(CooccurrenceTransformer(d, m, m1, trainable).double(), weights)


def eq1_by_hand(w, tokens):
    """F(X) = Σ_l Σ_j a_j w_jᵀ W_V X Softmax(Xᵀ W_Kᵀ W_Q x_l / √m) with X the d×L matrix of one-hot columns."""
    X = torch.eye(d, dtype=torch.float64)[:, tokens]
    total = 0.0
    for l in range(L):
        p = torch.softmax(X.T @ w["W_K"].T @ w["W_Q"] @ X[:, l] / math.sqrt(m), dim=0)
        for j in range(m1):
            total += w["a"][j] * w["W"][j] @ w["W_V"] @ X @ p
    return total


def test_forward_is_eq1():
    w = _weights()
    tokens = torch.tensor([[2, 0, 5, 1], [3, 3, 2, 6]])
    F = _net(w)(tokens)
    assert F.shape == (2,)
    for i in range(2):
        assert F[i].item() == pytest.approx(eq1_by_hand(w, tokens[i]).item(), rel=1e-10)


def test_F_does_not_depend_on_token_order():
    w = _weights(1)
    tokens = torch.tensor([[2, 0, 5, 1]])
    assert _net(w)(tokens).item() == pytest.approx(_net(w)(tokens[:, [3, 1, 0, 2]]).item(), rel=1e-12)


def test_readout_is_a_buffer_unless_trained():
    assert "a" not in dict(CooccurrenceTransformer(d, m, m1, False).named_parameters())
    assert "a" in dict(CooccurrenceTransformer(d, m, m1, True).named_parameters())


def _stats(preset, c0=1.0, c1=1.0):
    return _weights(7, preset, c0, c1, dims=(64, 5, 128, 256))


def test_theory_preset_scales():
    w = _stats("theory", c0=0.3, c1=0.5)
    assert w["W_Q"].std().item() == pytest.approx(0.3 / math.sqrt(5 * 128), rel=0.05)  # s0 = c0/√(Lm)
    assert w["W"].std().item() == pytest.approx(0.5 / math.sqrt(256), rel=0.05)  # s1 = c1/√m1
    assert set(w["a"].unique().tolist()) == {-1.0, 1.0}


def test_kaiming_and_torch_default_presets():
    kaiming, default = _stats("kaiming_normal"), _stats("torch_default")
    assert kaiming["W_K"].std().item() == pytest.approx(math.sqrt(2 / 64), rel=0.05)
    assert kaiming["W"].std().item() == pytest.approx(math.sqrt(2 / 128), rel=0.05)
    assert default["W_V"].abs().max().item() <= 1 / math.sqrt(64)
    assert default["W_V"].var().item() == pytest.approx(1 / (3 * 64), rel=0.05)  # U(±1/√fan_in)
    assert default["a"].var().item() == pytest.approx(1 / (3 * 256), rel=0.2)
    assert not torch.equal(default["W_Q"], default["W_K"])  # independent draws


def test_unknown_preset_is_refused():
    with pytest.raises(ValueError, match="unknown init preset"):
        _weights(preset="xavier")


def test_appendix_B_gradients_match_autograd():
    """dw_j/dt = (1/n) Σ_i g_i y_i Σ_l a_j V^(i) p_l^(i) and
    dW_V/dt = (1/n) Σ_i g_i y_i Σ_l Σ_j a_j w_j (X^(i) p_l^(i))ᵀ ([Y24] App. B) are −∇L̂."""
    w = {k: v.clone().requires_grad_(k != "a") for k, v in _weights(2).items()}
    tokens = torch.tensor([[2, 0, 1, 5], [2, 4, 0, 3], [6, 2, 3, 1]])
    y = torch.tensor([1.0, -1.0, -1.0], dtype=torch.float64)
    net = _net(w)
    loss = torch.nn.functional.softplus(-y * net(tokens)).mean()
    loss.backward()
    g = torch.sigmoid(-y * net(tokens)).detach()
    dW, dW_V = torch.zeros(m1, m, dtype=torch.float64), torch.zeros(m, d, dtype=torch.float64)
    with torch.no_grad():
        for i in range(3):
            X = torch.eye(d, dtype=torch.float64)[:, tokens[i]]
            V = w["W_V"] @ X
            for l in range(L):
                p = torch.softmax(X.T @ w["W_K"].T @ w["W_Q"] @ X[:, l] / math.sqrt(m), dim=0)
                dW += g[i] * y[i] * torch.outer(w["a"], V @ p) / 3
                dW_V += g[i] * y[i] * torch.outer(w["W"].T @ w["a"], X @ p) / 3
    assert torch.allclose(-w["W"].grad, dW, rtol=1e-10, atol=1e-14)
    assert torch.allclose(-w["W_V"].grad, dW_V, rtol=1e-10, atol=1e-14)


def test_gradient_descent_moves_the_flows_conserved_quantities_by_order_eta():
    """WᵀW − W_V W_Vᵀ and W_K W_Kᵀ − W_Q W_Qᵀ are constant under gradient flow (F depends on W, W_V through W W_V and
    on W_K, W_Q through W_Kᵀ W_Q); gradient descent to one flow time t = η·steps moves them by O(η): halving η
    (twice the steps) halves the drift. The probe `conserved_drift` measures it; 0 at t = 0."""
    from iclscale.papers.cooccurrence.probes import conserved_drift

    start = _weights(3)
    tokens = torch.tensor([[2, 0, 1, 5], [2, 4, 0, 3], [6, 2, 3, 1], [1, 2, 3, 4]])
    y = torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=torch.float64)
    assert all(v.item() == 0 for v in conserved_drift(start, start).values())

    def drift_after(eta: float, flow_time: float = 0.4) -> dict[str, float]:
        w = {k: v.clone() for k, v in start.items()}
        for _ in range(round(flow_time / eta)):
            trainable = {k: v.requires_grad_(True) for k, v in w.items() if k != "a"}
            loss = torch.nn.functional.softplus(-y * _net({**w, **trainable})(tokens)).mean()
            grads = torch.autograd.grad(loss, list(trainable.values()))
            w = {**w, **{k: (v - eta * g).detach() for (k, v), g in zip(trainable.items(), grads, strict=True)}}
        return {k: v.item() for k, v in conserved_drift(w, start).items()}

    coarse, fine = drift_after(0.02), drift_after(0.01)
    for name in ("conserved_value_drift", "conserved_key_query_drift"):
        assert coarse[name] > 0
        assert coarse[name] / fine[name] == pytest.approx(2.0, rel=0.1), name

"""The attention units of Collins et al. 2024 against hand computations."""

import math

import pytest
import torch

from iclscale.papers.softmax_window.model import LinearAttention, SoftmaxAttention


def _set(unit, M_K, M_Q=None):
    with torch.no_grad():
        unit.M_K.copy_(torch.tensor(M_K))
        if M_Q is not None:
            unit.M_Q.copy_(torch.tensor(M_Q))


x_context = [[1.0, 0.0], [0.0, 1.0], [-0.6, 0.8]]
y_context = [2.0, -1.0, 0.5]
x_query = [0.8, 0.6]


def test_softmax_unit_matches_a_hand_computation():
    unit = SoftmaxAttention(2, tied=False)
    M_K, M_Q = [[1.0, 0.5], [0.0, 2.0]], [[1.0, 0.0], [1.0, 1.0]]
    _set(unit, M_K, M_Q)
    # M = M_Kᵀ M_Q = [[1, 0], [2.5, 2]]
    M = [[1.0, 0.0], [2.5, 2.0]]
    scores = [sum(xi[a] * M[a][b] * x_query[b] for a in range(2) for b in range(2)) for xi in x_context]
    weights = [math.exp(s) / sum(math.exp(t) for t in scores) for s in scores]
    expected = sum(w * y for w, y in zip(weights, y_context, strict=True))
    out = unit(torch.tensor(x_context), torch.tensor(y_context), torch.tensor([x_query]))
    assert out.shape == (1,)
    assert out.item() == pytest.approx(expected, rel=1e-6)


def test_tied_unit_uses_M_K_transpose_M_K():
    unit = SoftmaxAttention(2, tied=True)
    _set(unit, [[1.0, 2.0], [0.0, 1.0]])
    assert torch.allclose(unit.M(), torch.tensor([[1.0, 2.0], [2.0, 5.0]]))
    assert len(list(unit.parameters())) == 1


def test_linear_unit_matches_a_hand_computation():
    unit = LinearAttention(2, tied=True, divide_by_n=True)
    _set(unit, [[2.0, 0.0], [0.0, 1.0]])  # M = diag(4, 1)
    scores = [4 * xi[0] * x_query[0] + xi[1] * x_query[1] for xi in x_context]
    expected = sum(s * y for s, y in zip(scores, y_context, strict=True)) / 3
    out = unit(torch.tensor(x_context), torch.tensor(y_context), torch.tensor([x_query]))
    assert out.item() == pytest.approx(expected, rel=1e-6)


def test_large_isotropic_M_approaches_nearest_neighbour():
    unit = SoftmaxAttention(2)
    _set(unit, [[30.0, 0.0], [0.0, 30.0]])
    out = unit(torch.tensor(x_context), torch.tensor(y_context), torch.tensor([[0.99, 0.141]]))
    assert out.item() == pytest.approx(2.0, abs=1e-3)  # x_1 = (1, 0) is the nearest context point


def test_batched_tasks_and_queries():
    unit = SoftmaxAttention(3)
    out = unit(torch.randn(4, 10, 3), torch.randn(4, 10), torch.randn(4, 2, 3))
    assert out.shape == (4, 2)

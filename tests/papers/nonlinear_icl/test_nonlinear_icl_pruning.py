"""Pruning MLP neurons (Li et al. 2024 §2.4, Thm 3.7): each method removes exactly the intended rows of W_O."""

import pytest
import torch

from iclscale.papers.nonlinear_icl.model import OneLayerTransformer
from iclscale.papers.nonlinear_icl.pruning import neuron_magnitudes, prune, pruned_count, removed_neurons

# two configs, m = 5 neurons, m_b = D = 2; row norms of W_O: config 0 → 3, 1, 4, 0.5, 2; config 1 reversed
ROW_NORMS = torch.tensor([[3.0, 1.0, 4.0, 0.5, 2.0], [2.0, 0.5, 4.0, 1.0, 3.0]])
W_O = torch.stack([ROW_NORMS, torch.zeros_like(ROW_NORMS)], dim=-1)  # row i = (norm_i, 0)


def _removed(method, ratio, keys=None, magnitudes=ROW_NORMS):
    """The removed neurons of each config (the functions are written for one config)."""
    keys = [None] * len(magnitudes) if keys is None else keys
    removed = [removed_neurons(m, method, ratio, k) for m, k in zip(magnitudes, keys, strict=True)]
    return [torch.nonzero(row).flatten().tolist() for row in removed]


def test_magnitude_pruning_removes_the_smallest_rows():
    assert _removed("magnitude", 0.4) == [[1, 3], [1, 3]]
    assert _removed("magnitude", 0.6) == [[1, 3, 4], [0, 1, 3]]


def test_largest_first_pruning_removes_the_largest_rows():
    assert _removed("largest", 0.4) == [[0, 2], [2, 4]]
    assert _removed("largest", 0.2) == [[2], [2]]


def test_random_pruning_follows_each_configs_random_order():
    keys = torch.tensor([[0.9, 0.1, 0.5, 0.3, 0.7], [0.2, 0.8, 0.6, 0.4, 0.0]])
    assert _removed("random", 0.6, keys) == [[1, 2, 3], [0, 3, 4]]


def test_small_set_pruning_removes_exactly_each_configs_small_group_whatever_the_ratio():
    # two clear groups per config: magnitudes ~0.01 (L^c) and ~1 (L), in different places and sizes
    magnitudes = torch.tensor([[1.0, 0.01, 1.2, 0.02, 0.9], [0.011, 1.1, 0.009, 0.012, 1.0]])
    assert _removed("small", 0.0, magnitudes=magnitudes) == [[1, 3], [0, 2, 3]]
    assert _removed("small", 0.8, magnitudes=magnitudes) == [[1, 3], [0, 2, 3]]


def test_no_pruning_and_rounding():
    assert _removed("none", 0.8) == [[], []]
    assert _removed("magnitude", 0.0) == [[], []]
    assert pruned_count(60, 0.15) == 9 and pruned_count(60, 0.125) == 8 and pruned_count(5, 1.0) == 5
    with pytest.raises(ValueError, match="unknown pruning method"):
        removed_neurons(ROW_NORMS[0], "smallest", 0.5)


def test_scores_use_W_O_W_V_or_W_O():
    W_V = torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 1.0]]])  # config 1 drops W_O's first column
    params = {"W_O": W_O + torch.tensor([0.0, 1.0]), "W_V": W_V}
    wo = torch.func.vmap(neuron_magnitudes, in_dims=(0, None))(params, "wo")
    wowv = torch.func.vmap(neuron_magnitudes, in_dims=(0, None))(params, "wowv")
    assert torch.allclose(wo, (ROW_NORMS**2 + 1).sqrt())
    assert torch.allclose(wowv[0], wo[0]) and torch.allclose(wowv[1], torch.ones(5))  # ‖(W_O W_V)_i‖


def test_pruned_model_equals_the_model_with_those_rows_removed():
    torch.manual_seed(0)
    full = OneLayerTransformer(D=4, m_a=4, m_b=4, m=6)
    for p in full.parameters():
        torch.nn.init.normal_(p)
    full.a.normal_()
    params = {name: p.detach() for name, p in [*full.named_parameters(), *full.named_buffers()]}
    removed = removed_neurons(neuron_magnitudes(params, "wowv"), "magnitude", 0.5)
    kept = ~removed
    smaller = OneLayerTransformer(D=4, m_a=4, m_b=4, m=int(kept.sum()))
    with torch.no_grad():
        for name, value in params.items():
            if name in ("W_O", "a"):
                value = value[kept]  # the reduced (m − |S|) × m_b matrix of [L24] §2.4, and its a
            getattr(smaller, name).copy_(value)
    pruned = prune(params, removed)
    assert torch.all(pruned["W_O"][removed] == 0) and torch.equal(pruned["W_O"][kept], params["W_O"][kept])
    P = torch.randn(10, 6, 4)
    via_zero_rows = torch.func.functional_call(full, pruned, (P,))
    assert torch.allclose(via_zero_rows, smaller(P), atol=1e-6)
    assert not torch.allclose(via_zero_rows, full(P), atol=1e-3)

"""The one-layer Transformer of Li et al. 2024 (Eq. 2) against hand computations; its init; the GPT-2 blocks."""

import math

import pytest
import torch
from torch.func import functional_call, grad, vmap

from iclscale.papers.nonlinear_icl.gpt2 import CausalSelfAttention, GPT2Classifier
from iclscale.papers.nonlinear_icl.model import OneLayerTransformer
from iclscale.trainer.registry import study_info
from iclscale.trainer.study import Pack

# D = 3, l = 2 demonstrations and a query; m_a = m_b = 2, m = 3
P = [[1.0, 0.0, 1.0], [0.0, 2.0, -1.0], [1.0, 1.0, 0.0]]
W_Q = [[1.0, 0.0, 0.5], [0.0, 1.0, 0.0]]
W_K = [[0.5, 0.0, 0.0], [1.0, 1.0, 0.0]]
W_V = [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
W_O = [[1.0, -1.0], [0.5, 0.5], [-2.0, 1.0]]
a = [1.0, -0.5, 2.0]


def _unit(attend_to_query=False):
    unit = OneLayerTransformer(3, 2, 2, 3, attend_to_query)
    with torch.no_grad():
        for name, value in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O), ("a", a)):
            getattr(unit, name).copy_(torch.tensor(value))
    return unit


def _matvec(W, v):
    return [sum(w * x for w, x in zip(row, v, strict=True)) for row in W]


def _hand(columns):
    query = _matvec(W_Q, P[-1])  # W_Q p_query
    scores = [sum(k * q for k, q in zip(_matvec(W_K, p), query, strict=True)) for p in columns]
    weights = [math.exp(s) / sum(math.exp(t) for t in scores) for s in scores]
    values = [_matvec(W_V, p) for p in columns]
    attended = [sum(w * v[c] for w, v in zip(weights, values, strict=True)) for c in range(2)]
    hidden = [max(0.0, h) for h in _matvec(W_O, attended)]
    return sum(ai * h for ai, h in zip(a, hidden, strict=True))


def test_forward_matches_a_hand_computation_of_eq_2():
    out = _unit()(torch.tensor(P))
    assert out.shape == ()
    assert out.item() == pytest.approx(_hand(P[:-1]), rel=1e-6)


def test_attend_to_query_also_weighs_the_query_column():
    expected = _hand(P)
    assert _unit(attend_to_query=True)(torch.tensor(P)).item() == pytest.approx(expected, rel=1e-6)
    assert expected != pytest.approx(_hand(P[:-1]), rel=1e-3)


def test_batched_prompts_and_the_fixed_output_layer():
    unit = _unit()
    batch = torch.randn(5, 4, 3)
    assert unit(batch).shape == (5,)
    params = dict(unit.named_parameters())
    assert "a" not in params and "a" in dict(unit.named_buffers())  # a is not trained ([L24] §2.3)
    grads = grad(lambda p: functional_call(unit, p, (batch,)).sum())(params)
    assert grads["W_O"].abs().sum() > 0


def test_initialisation_follows_section_2_3():
    info = study_info("nonlinear_icl")
    configs = [info.resolve({"delta": d, "m": 40}, s, "t")[0] for s, d in ((0, 0.1), (1, 0.2))]
    params = Pack.build(info, configs).map(info.load().init, randomness="same")
    W_Q = params["W_Q"]
    assert W_Q.shape == (2, 60, 60)
    assert torch.equal(W_Q[1], 0.2 * torch.diag((torch.arange(60) < 30).float()))  # δ on the first d_X
    assert torch.equal(params["W_K"], W_Q)
    assert torch.equal(params["W_V"][0], 0.1 * torch.eye(60))  # δ on every diagonal entry
    assert torch.allclose(params["a"].abs(), torch.full((2, 40), 1 / 40))  # a ~ U{±1/m}
    assert 0 < (params["a"] > 0).float().mean() < 1
    assert params["W_O"].shape == (2, 40, 60)
    assert params["W_O"].std().item() == pytest.approx(1 / math.sqrt(40), rel=0.05)  # ξ = 1/√m
    assert not torch.equal(params["W_O"][0], params["W_O"][1])


def test_gpt2_attention_is_causal():
    torch.manual_seed(0)
    attention = CausalSelfAttention(8, 2)
    h = torch.randn(5, 8)
    changed = h.clone()
    changed[3] += 1.0
    before, after = attention(h), attention(changed)
    assert torch.allclose(before[:3], after[:3])  # tokens before position 3 cannot see it
    assert not torch.allclose(before[3:], after[3:])


def test_gpt2_runs_under_vmap_and_reads_out_at_the_query():
    info = study_info("nonlinear_icl_gpt2")
    configs = [info.resolve({"n_embd": 16, "l_tr": 4}, s, "t")[0] for s in range(3)]
    pack = Pack.build(info, configs)
    study = info.load()
    module = study.module(pack.view())
    params = pack.map(study.init, randomness="same")
    assert torch.all(params["blocks.0.ln_1.weight"] == 1) and torch.all(params["read_in.bias"] == 0)
    P = torch.randn(3, 7, 5, 60)
    out = vmap(lambda p, x: functional_call(module, p, (x,)))(params, P)
    assert out.shape == (3, 7)
    alone = functional_call(module, {name: value[1] for name, value in params.items()}, (P[1],))
    assert torch.allclose(out[1], alone, atol=1e-6)
    model = GPT2Classifier(60, 1, 2, 16, 8)
    assert model.positions(4, torch.device("cpu")).tolist() == [3, 2, 1, 0]  # the query sits at position 0

"""Seed 002 (`mamba_outliers`): Eq. 3's closed form against Eq. 1's recurrence, the LT as gates ≡ 1, the outliers
of the data model (Eqs. 6, 7, Table 1's placements), the checks, and a short training of both models."""

import pytest
import torch

from iclscale.errors import UserError
from iclscale.papers.common.outliers import outlier_mask
from iclscale.papers.common.patterns import TaskSet, all_tasks
from iclscale.papers.mamba_outliers.model import gate_matrix, label_output, layer_output, query_gates, recurrence
from iclscale.papers.mamba_outliers.study import task_group
from iclscale.trainer.registry import study_info
from iclscale.trainer.study import Pack
from iclscale.trainer.training import train_pack


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny models: one intra-op thread is faster, and on a busy machine two threads spin-wait on each other."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def info():
    return study_info("mamba_outliers")


def _random_layer(l=7, d0=6, h=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    P = torch.randn(l + 1, d0, generator=g, dtype=torch.float64)
    P[-1, -1] = 0.0  # the query's label slot
    W_B, W_C = (torch.randn(h, d0, generator=g, dtype=torch.float64) for _ in range(2))
    W = torch.randn(d0, d0, generator=g, dtype=torch.float64)
    return P, W_B, W_C, W


def test_the_closed_form_equals_the_recurrence_at_every_position_and_channel():
    P, W_B, W_C, W = _random_layer()
    reference = recurrence(P, W_B, W_C, W)  # [LM25] Eq. 1, A = −I, h_0 = 0
    assert torch.allclose(layer_output(P, W_B, W_C, W), reference, rtol=1e-10, atol=1e-10)
    # Eq. 3: the label channel at the query is F, with w the last column of W
    assert torch.allclose(label_output(P, W_B, W_C, W[:, -1]), reference[-1, -1], rtol=1e-10, atol=1e-10)


def test_the_query_gates_are_stick_breaking_and_match_the_gate_matrix():
    s = torch.randn(3, 11, dtype=torch.float64)
    G = query_gates(s)
    sig = torch.sigmoid(s)
    # Σ_{i ≤ l} G_i = 1 − σ(s_q) − Π_{i ≤ l+1} (1 − σ(s_i))  ([LM25] (153))
    expected = 1 - sig[:, -1] - (1 - sig).prod(-1)
    assert torch.allclose(G[:, :-1].sum(-1), expected, atol=1e-12)
    assert torch.allclose(gate_matrix(s[0, :, None])[:, -1, 0], G[0], atol=1e-12)
    # σ ≡ 1/2 gives G_i = 2^−(l+2−i) ([LM25] Eq. 96)
    half = query_gates(torch.zeros(5, dtype=torch.float64))
    assert torch.allclose(half, torch.tensor([2.0**-5, 2.0**-4, 2.0**-3, 2.0**-2, 2.0**-1], dtype=torch.float64))


def test_the_lt_is_mamba_with_gates_fixed_to_one():
    P, W_B, W_C, W = _random_layer(seed=1)
    a = P @ W_B.T @ W_C @ P[-1]  # a_i = p_iᵀ W_Bᵀ W_C p_query
    assert torch.allclose(label_output(P, W_B, W_C, None), (P[:, -1] * a).sum(), atol=1e-10)
    causal = torch.stack([sum(P[j] * (P[j] @ W_B.T @ W_C @ P[i]) for j in range(i + 1)) for i in range(len(P))])
    assert torch.allclose(layer_output(P, W_B, W_C, None), causal, atol=1e-10)
    mean = causal / torch.arange(1, len(P) + 1, dtype=torch.float64)[:, None]  # the stack's LT (a reading)
    assert torch.allclose(layer_output(P, W_B, W_C, None, mean=True), mean, atol=1e-10)
    gated = label_output(P, W_B, W_C, W[:, -1])
    assert not torch.allclose(gated, label_output(P, W_B, W_C, None))


def test_the_three_layer_stacks_start_at_a_trainable_scale(info):
    study = info.load()

    def output(c):
        P, _ = study.batch(c, 0)
        return torch.func.functional_call(study.module(c), study.init(c), (P,))

    for model in ("mamba", "lt"):
        config, _ = info.resolve({"layers": 3, "model": model, "batch_size": 8}, 0, "t")
        assert Pack.build(info, [config]).map(output, randomness="same").abs().mean() < 10, model


def test_placements_put_exactly_count_outliers_where_table_1_says():
    u = torch.rand(50, 20)
    far, near, rand = (outlier_mask(u, 0.5, p, 6) for p in ("farthest", "closest", "random"))
    for mask in (far, near, rand):
        assert (mask.sum(-1) == 6).all()
    assert far[:, :6].all() and not far[:, 6:].any()
    assert near[:, -6:].all() and not near[:, :-6].any()
    assert len({tuple(row.tolist()) for row in rand}) > 1
    assert (outlier_mask(u, 0.3, "bernoulli", None) <= outlier_mask(u, 0.6, "bernoulli", None)).all()
    with pytest.raises(ValueError, match="unknown placement"):
        outlier_mask(u, 0.5, "middle", 3)


def _test_prompts(info, label_mode, alpha, placement="bernoulli", outlier_set="unseen"):
    values = {"alpha": alpha, "label_mode": label_mode, "placement": placement, "outlier_set": outlier_set}
    config, point = info.resolve(values, 0, "t")
    study, point = info.load(), dict(point)

    def draw(c):
        p = study.test_chunk(c, point, 2000, 0)
        return p.tokens, p.draw.context_label, p.outliers.is_outlier, p.draw.task

    return [t[0] for t in Pack.build(info, [config]).map(draw)]


def test_test_outliers_sit_on_the_unseen_directions_with_their_labels(info):
    tokens, task_label, is_outlier, _ = _test_prompts(info, "flip", 0.4)
    assert abs(is_outlier.double().mean().item() - 0.4) < 0.02  # Bernoulli(α) ([LM25] Eq. 7)
    spare = tokens[:, :-1, 16:19]  # v*_1..v*_3 live on the axes after M1 + M2 = 16
    # κ_a'·v' with ‖v'‖ = 1 on outliers, nothing on clean demonstrations or the query
    assert torch.allclose(spare[is_outlier].norm(dim=-1), torch.tensor(2.0), atol=1e-5)
    assert spare[~is_outlier].abs().max() == 0 and tokens[:, -1, 16:19].abs().max() == 0
    # each outlier is one of the paper's three v' (λ renormalised)
    lam = torch.tensor([[0.7, 0.6, -0.4], [0.4, 0.7, -0.6], [-0.7, 0.5, 0.5]])
    cosine = (spare[is_outlier] / 2) @ (lam / lam.norm(dim=-1, keepdim=True)).T
    assert torch.allclose(cosine.max(-1).values, torch.tensor(1.0), atol=1e-5)
    label = tokens[:, :-1, -1]
    assert (label[is_outlier] == -task_label[is_outlier]).all() and (
        label[~is_outlier] == task_label[~is_outlier]
    ).all()
    targeted = _test_prompts(info, "targeted", 0.4)
    assert (targeted[0][:, :-1, -1][targeted[2]] == 1).all()
    coin = _test_prompts(info, "random", 0.4)
    assert abs(coin[0][:, :-1, -1][coin[2]].mean().item()) < 0.05
    assert (coin[2] == is_outlier).all()  # common random numbers across label modes


def test_the_test_tasks_cover_all_ordered_pairs_in_four_groups(info):
    *_, task = _test_prompts(info, "flip", 0.0)
    assert len({tuple(t) for t in task.tolist()}) == 30
    groups = task_group(all_tasks(6), 6)
    assert torch.bincount(groups).tolist() == [6, 6, 12, 6]  # trained, reversed, gap 2, gap 3
    assert TaskSet.of(all_tasks(6)).count == 30


@pytest.mark.parametrize(
    "values, message",
    [
        ({"outlier_count": 21, "placement": "closest"}, "more outliers than demonstrations"),
        ({"outlier_count": 5}, "placement"),
        ({"M2": 25}, "must fit in d"),
        ({"V": 2}, "V ≥ 3"),
        ({"target_label": 0}, "target_label"),
    ],
)
def test_bad_values_are_refused_before_training(info, values, message):
    with pytest.raises(UserError, match=message):
        info.resolve(values, 0, "t")


def test_mamba_learns_and_the_lt_plateaus_on_outliers(info):
    settings = {"steps": 120, "eval_prompts": 256, "batch_size": 32, "alpha": 0.3}
    mamba, point = info.resolve(settings, 0, "t")
    lt, _ = info.resolve({**settings, "model": "lt"}, 0, "t")
    # train_loss is the mean over the record interval: the last 40 steps
    m = train_pack(info, [mamba], [point], 40, compile="off").final_metrics(0, point)
    t = train_pack(info, [lt], [point], 40, compile="off").final_metrics(0, point)
    assert m["train_loss"] < 0.05 and m["error_trained"] < 0.02
    for metrics in (m, t):  # the training tasks' hinge: ≥ their 0-1 error (a wrong sign costs ≥ 1), and a part of
        # the hinge summed over all tasks, of which they are 1/(M1 − 1) (≈ 51 of 256 prompts)
        assert metrics["error_trained"] <= metrics["hinge_trained"] <= metrics["test_hinge"] * 256 / 40
    assert t["hinge_trained"] > m["hinge_trained"]
    assert t["train_loss"] > 0.03  # random-label outliers at p_a = 0.6 leave the LT a hinge floor (G ≡ 1)
    assert m["gate_outlier"] < m["gate_clean"]  # outliers gated out ([LM25] Cor. 2)
    assert m["attn_same_each"] > m["attn_other_each"]  # ([LM25] Cor. 1)
    assert m["attn_gap"] == pytest.approx(m["attn_same"] - m["attn_other"], rel=1e-5)  # Fig. 3's gap


def test_channel_mean_gates_equal_the_label_gates_when_every_channel_has_its_weights():
    from iclscale.papers.mamba_outliers.probes import prompt_sums

    P, W_B, W_C, W = _random_layer(l=9)
    P = P.unsqueeze(0)
    same = torch.tensor([[True, False] * 4 + [True]])
    outlier = torch.tensor([[False, True, True] * 3])
    w = W[:, -1]
    copies = w[:, None].expand(-1, W.shape[1])  # every channel gated by the label channel's column
    sums = prompt_sums(P, W_B, W_C, w, same, outlier, None, True, copies)
    assert torch.allclose(sums["chmean_outlier"], sums["gate_outlier"])
    assert torch.allclose(sums["chmean_at01_outlier"], sums["at01_gate_outlier"])
    other = prompt_sums(P, W_B, W_C, w, same, outlier, None, True, W)  # distinct columns: a different mean
    assert not torch.allclose(other["chmean_clean"], other["gate_clean"])

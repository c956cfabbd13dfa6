"""The pattern data model of Li et al. 2024 (iclscale.papers.common.patterns): fractions, labels, task sets, OOD
patterns."""

import math

import pytest
import torch
from torch.func import vmap

from iclscale.papers.common.patterns import (
    S1_MAX,
    TaskSet,
    all_tasks,
    condition_3_2,
    cyclic_tasks,
    label_embedding,
    ood_coefficients,
    ood_relevant_units,
    ood_split,
    sample_prompt_draw,
    sample_prompts,
    training_tasks,
    unit_patterns,
    unseen_tasks,
)
from iclscale.trainer.rng import Stream

M1, M2 = 6, 24


def _draw(fractions, prompts=2000, length=20, M=M1, tasks=None, seeds=None):
    """Draws of one config per fraction (written for one config, vmapped as the trainer does)."""
    keys = Stream.from_seeds(seeds or list(range(len(fractions)))).base
    tasks = tasks or TaskSet.of(cyclic_tasks(M, 1))

    def one(key, fraction):
        return sample_prompt_draw(
            Stream(key),
            "t",
            0,
            tasks=tasks,
            prompts=prompts,
            length=length,
            fraction=fraction,
            relevant_count=M,
            irrelevant_count=M2,
            kappa_range=torch.tensor(0.5),
        )

    return vmap(one)(keys, torch.tensor(fractions))


def _tolerance(p, n):
    """Five binomial standard deviations of a frequency estimated from n independent draws."""
    return 5 * math.sqrt(p * (1 - p) / n) + 1e-9


@pytest.mark.parametrize("M", [6, 3])  # M1 = 6 in-domain; M1' = 3 out of domain (one non-decisive pattern)
def test_demonstrations_follow_the_alpha_fractions(M):
    fractions = [0.4, 0.6, 0.8, 1.0]
    draw = _draw(fractions, M=M, tasks=TaskSet.of(all_tasks(M)))
    a, b = draw.task[..., 0:1], draw.task[..., 1:2]
    contexts = draw.relevant[..., :-1]
    n = contexts[0].numel()  # demonstrations are i.i.d. given their prompt's task
    for k, alpha in enumerate(fractions):
        on_a = (contexts[k] == a[k]).float().mean().item()
        on_b = (contexts[k] == b[k]).float().mean().item()
        assert on_a == pytest.approx(alpha / 2, abs=_tolerance(alpha / 2, n))
        assert on_b == pytest.approx(alpha / 2, abs=_tolerance(alpha / 2, n))
        other = (1 - alpha) / (M - 2)
        for j in range(M):  # each pattern, over the prompts where it is not decisive
            not_decisive = ((a[k] != j) & (b[k] != j)).expand_as(contexts[k])
            share = (contexts[k][not_decisive] == j).float().mean().item()
            assert share == pytest.approx(other, abs=_tolerance(other, int(not_decisive.sum())))


def test_labels_follow_the_task():
    draw = _draw([0.6, 0.6], prompts=3000)
    a, b = draw.task[..., 0:1], draw.task[..., 1:2]
    contexts, labels = draw.relevant[..., :-1], draw.context_label
    assert torch.all(labels[contexts == a] == 1) and torch.all(labels[contexts == b] == -1)  # Def. 3.1
    noisy = labels[(contexts != a) & (contexts != b)]
    assert (noisy == 1).float().mean().item() == pytest.approx(0.5, abs=_tolerance(0.5, noisy.numel()))
    # the query carries the decisive pattern of its label, and labels are balanced
    query, z = draw.relevant[..., -1], draw.z
    assert torch.all(torch.where(z > 0, query == a[..., 0], query == b[..., 0]))
    assert (z == 1).float().mean().item() == pytest.approx(0.5, abs=_tolerance(0.5, z.numel()))


def test_features_and_embedding_follow_eq_1_and_6():
    mu, nu = unit_patterns(30, M1, M2)
    beta = torch.tensor([3.0, 1.5])

    def one(key, beta, kappa_range):
        return sample_prompts(
            Stream(key),
            "t",
            0,
            tasks=TaskSet.of(cyclic_tasks(M1, 1)),
            prompts=50,
            length=7,
            fraction=torch.tensor(0.8),
            relevant_units=mu,
            irrelevant_units=nu,
            beta=beta,
            kappa_range=kappa_range,
            q=label_embedding(30),
        )

    prompts = vmap(one)(Stream.from_seeds([4, 5]).base, beta, torch.tensor([0.5, 0.2]))
    draw, P = prompts.draw, prompts.tokens
    assert P.shape == (2, 50, 8, 60)
    assert torch.all(draw.kappa[0].abs() < 0.5) and torch.all(draw.kappa[1].abs() < 0.2)
    k, i, col = 1, 13, 4
    x = beta[k] * (mu[draw.relevant[k, i, col]] + draw.kappa[k, i, col] * nu[draw.irrelevant[k, i, col]])
    assert torch.allclose(P[k, i, col, :30], x)  # x = μ_j + κν_k (Eq. 6)
    assert torch.equal(P[k, i, col, 30:], draw.label[k, i, col] * label_embedding(30))  # y = ±q (Eq. 1)
    assert torch.all(P[:, :, -1, 30:] == 0)  # the query's label slot is empty


def test_draws_are_pure_functions_of_seed_purpose_and_step():
    alone = _draw([0.8], seeds=[7])
    packed = _draw([0.3, 0.8], seeds=[2, 7])
    assert torch.equal(alone.relevant[0], packed.relevant[1])
    again = _draw([0.8], seeds=[7])
    assert torch.equal(alone.kappa, again.kappa)
    assert not torch.equal(alone.relevant[0], packed.relevant[0])


def test_cyclic_task_sets_meet_condition_3_2():
    for U in (1, 4, 5):
        coverage = condition_3_2(TaskSet.of(cyclic_tasks(M1, U)), M1)
        assert bool(coverage.holds), coverage.report()
        assert torch.all(coverage.positive == U) and torch.all(coverage.negative == U)
    assert cyclic_tasks(M1, 1).tolist() == [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0]]  # [L24] §5


def test_condition_3_2_fails_for_a_smaller_or_uneven_set():
    coverage = condition_3_2(TaskSet.of(cyclic_tasks(M1, 1)[:5]), M1)
    assert not bool(coverage.holds) and "fails" in coverage.report()
    uneven = TaskSet.of(torch.tensor([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0], [0, 2]]))
    assert not bool(condition_3_2(uneven, M1).holds)  # (0, 2) maps μ_1 to +1 a second time


def test_appendix_a2_task_sets():
    def one(key, U, n_tasks):
        sets = training_tasks(Stream(key), "tasks", M1, U, n_tasks)
        return sets.count, sets.membership(M1), condition_3_2(sets, M1).holds

    keys = Stream.from_seeds([0, 1, 2, 3]).base
    count, member, holds = vmap(one)(keys, torch.tensor([1, 4, 1, 1]), torch.tensor([0, 0, 3, 11]))
    assert count.tolist() == [6, 24, 3, 11]
    base = TaskSet.of(cyclic_tasks(M1, 1)).membership(M1)
    assert torch.all(member[2] <= base)  # fewer than M1: a subset of T_tr0
    assert torch.all(member[3] >= base)  # more: T_tr0 plus others
    assert holds.tolist()[:3] == [True, True, False]


def test_unseen_tasks_are_the_complement_of_the_training_tasks():
    def one(key, n_tasks):
        rng = Stream(key)
        train = training_tasks(rng, "tasks", M1, torch.tensor(1), n_tasks)
        unseen = unseen_tasks(train, M1)
        return unseen.count, train.membership(M1), unseen.membership(M1), unseen.sample(rng.uniform("u", 0, (4000,)))

    count, seen, new, sampled = vmap(one)(Stream.from_seeds([0, 1]).base, torch.tensor([0, 9]))
    assert count.tolist() == [24, 21]
    assert not torch.any(seen & new)
    assert torch.equal(seen | new, ~torch.eye(M1, dtype=torch.bool).expand(2, M1, M1))
    index = sampled[..., 0] * M1 + sampled[..., 1]
    assert not torch.any(seen.reshape(2, -1).gather(1, index))  # unseen tasks only
    assert len(torch.unique(index[0])) == 24  # and every one of them


@pytest.mark.parametrize("S1", [1.28, 1.1, 0.9, 0.7, 0.5, 0.0])
def test_ood_patterns_are_orthogonal_with_norm_beta_and_the_right_sums(S1):
    mu, _ = unit_patterns(30, M1, M2)
    split = ood_split(S1)
    units = ood_relevant_units(split, mu)
    assert split.feasible
    assert torch.allclose(units @ units.T, torch.eye(3), atol=1e-6)  # pairwise orthogonal, ‖μ'_j‖ = β
    sums = ood_coefficients(split, M1).sum(dim=1)
    assert sums.tolist() == pytest.approx([S1, math.sqrt(2), math.sqrt(2)])  # S_j of [L24] Eq. 12
    assert torch.all(units[:, M1:] == 0)  # μ'_j ∈ span{μ_i}: orthogonal to every ν (ν' = ν)


def test_infeasible_S1_falls_back_to_an_equal_split():
    assert S1_MAX == pytest.approx(1.2806, abs=1e-4)
    split = ood_split(1.3)  # Fig. 3A's largest S1 is beyond √1.64
    assert not split.feasible and split.a == split.b == pytest.approx(0.65)
    assert split.relative_norm == pytest.approx(math.sqrt(0.18 + 2 * 0.65**2))
    mu, _ = unit_patterns(30, M1, M2)
    units = ood_relevant_units(split, mu)
    assert units[0].norm().item() == pytest.approx(split.relative_norm, rel=1e-6)  # not renormalised
    assert torch.allclose(units[0] @ units[1:].T, torch.zeros(2), atol=1e-7)  # still orthogonal
    equal = ood_split(1.28, "equal")
    assert (equal.a, equal.b) == pytest.approx((0.64, 0.64))  # Fig. 2
    assert ood_split(0.9).a == pytest.approx(0.9055, abs=1e-4)  # a = (S1 + √(1.64 − S1²))/2


def test_ood_patterns_need_six_relevant_patterns():
    with pytest.raises(ValueError, match="M1 ≥ 6"):
        ood_coefficients(ood_split(1.0), 5)

"""The co-occurrence data of Yang et al. 2024 (seed 003), Definition 2.1 and Assumption 2.3."""

import itertools

import pytest
import torch

from iclscale.papers.cooccurrence.data import (
    FIRST_RANDOM,
    MU1,
    MU2,
    MU3,
    random_sample,
    sample_sequences,
    type_slices,
)
from iclscale.papers.cooccurrence.declaration import random_slots
from iclscale.trainer.rng import Stream


def _draw(seed=0, n=60, L=5, d=64, distinct=False, purpose="train"):
    return sample_sequences(Stream.from_seeds([seed])[0], purpose, n, L, d, distinct)


def _count(tokens, token):
    return (tokens == token).sum(-1)


def test_exact_type_counts_and_labels():
    data = _draw()
    assert data.tokens.shape == (60, 5)
    assert [int((data.kind == k).sum()) for k in range(1, 5)] == [30, 10, 10, 10]  # App. A
    assert torch.equal(data.y, torch.where(data.kind == 1, 1.0, -1.0))
    assert [s.stop - s.start for s in type_slices(60)] == [30, 10, 10, 10]
    assert all(bool((data.kind[s] == k).all()) for k, s in enumerate(type_slices(60), start=1))


def test_each_type_holds_its_special_tokens_once():
    data = _draw(n=600, L=6)
    mu1, mu2, mu3 = (_count(data.tokens, t) for t in (MU1, MU2, MU3))
    assert bool((mu3 == 1).all())  # the common token in every sequence (Def. 2.1 step 1)
    expected = {1: (1, 1), 2: (1, 0), 3: (0, 1), 4: (0, 0)}
    for k, (has1, has2) in expected.items():
        assert bool((mu1[data.kind == k] == has1).all()) and bool((mu2[data.kind == k] == has2).all()), k
    random = data.tokens >= FIRST_RANDOM
    assert bool((random.sum(-1) == 6 - 1 - mu1 - mu2).all())  # L−3, L−2, L−2, L−1 random tokens


def test_positions_are_random():
    data = _draw(n=600)
    where_mu3 = (data.tokens == MU3).float().argmax(-1)
    counts = torch.bincount(where_mu3, minlength=5)
    assert bool((counts > 80).all())  # i3 ~ Unif[L]: 120 expected at each of 5 positions


def test_iid_random_tokens_repeat_and_cover_R():
    data = _draw(d=64)
    random = data.tokens[data.tokens >= FIRST_RANDOM]
    assert len(random) == random_slots(60, 5) == 160  # more than |R| = 61: App. A's data must repeat tokens
    assert int(random.max()) <= 63 and len(torch.unique(random)) > 40


def test_distinct_random_tokens_are_all_different():
    d = 3 + random_slots(60, 5)  # 163, Assumption 2.3(ii)'s smallest vocabulary
    data = _draw(d=d, distinct=True)
    random = data.tokens[data.tokens >= FIRST_RANDOM]
    assert len(torch.unique(random)) == len(random) == 160
    assert int(random.max()) < d


def test_a_pure_function_of_seed_and_purpose():
    assert torch.equal(_draw(seed=3).tokens, _draw(seed=3).tokens)
    assert not torch.equal(_draw(seed=3).tokens, _draw(seed=4).tokens)
    assert not torch.equal(_draw(seed=3).tokens, _draw(seed=3, purpose="test").tokens)


@pytest.mark.parametrize("n", [6, 12, 66])
def test_type_slices_partition_the_set(n):
    slices = type_slices(n)
    assert slices[0].start == 0 and slices[-1].stop == n
    assert all(a.stop == b.start for a, b in itertools.pairwise(slices))
    assert slices[0].stop == n // 2


def test_the_random_sample_holds_only_seen_random_tokens_and_has_a_fixed_size():
    seen = torch.zeros(20, dtype=torch.bool)
    seen[[4, 9, 17]] = True
    assert random_sample(seen, 5).tolist() == [4, 9, 17, 4, 4]  # fewer than asked: the first repeated
    seen[3:] = True
    assert random_sample(seen, 5).tolist() == [3, 4, 5, 6, 7]
    assert random_sample(seen, 100).shape == (17,)  # at most the d − 3 random words

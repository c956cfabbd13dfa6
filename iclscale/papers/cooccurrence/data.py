"""The co-occurrence data of [Y24] Definition 2.1, for one config.

Tokens are vocabulary indices: token i stands for μ_{i+1} = e_{i+1}, the one-hot embedding (our reading of
Def. 2.1's orthonormal μ_i: the standard basis; with Gaussian weights a random rotation of it is the same in
distribution). Index 0 is the target μ1, 1 the target μ2, 2 the common token μ3, and 3..d−1 the random tokens
R = {μ4, …, μd}.

A sequence of type k (k = 1..4) is built in slot order, then its slots are put at random positions:

    slot 0:   μ3                                              (every sequence: step 1 of Def. 2.1)
    slot 1:   μ1 (types 1, 2), μ2 (type 3), random (type 4)
    slot 2:   μ2 (type 1), random (types 2, 3, 4)
    slots 3+: random

A uniformly random permutation of the L positions is exactly Def. 2.1's "i3 ~ Unif[L], then i1 ≠ i2
uniform in [L] \\ {i3}". The labels are y = +1 for type 1 and −1 otherwise; the types come in the exact
counts n/2, n/6, n/6, n/6 (Assumption 2.3(i)), in type order (full-batch GD does not see the order).
Random tokens are uniform over R with repeats ("iid", Def. 2.1) or all different ("distinct", Assumption
2.3(ii)). F of [Y24] Eq. 1 does not depend on token order (no positional encoding, sum over queries), so the
positions only make the data look like the paper's.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from iclscale.trainer.rng import Stream

MU1, MU2, MU3 = 0, 1, 2
FIRST_RANDOM = 3


@dataclass
class Sequences:
    tokens: torch.Tensor  # (n, L) int64 vocabulary indices
    y: torch.Tensor  # (n,) labels ±1
    kind: torch.Tensor  # (n,) the type k ∈ {1, 2, 3, 4}: I_k of [Y24] §2.1


def type_slices(n: int) -> tuple[slice, slice, slice, slice]:
    """I_1..I_4: n/2 sequences of type 1, then n/6 each of types 2, 3, 4 ([Y24] Assumption 2.3(i))."""
    sixth = n // 6
    ends = (n - 3 * sixth, n - 2 * sixth, n - sixth, n)
    return tuple(slice(start, end) for start, end in zip((0, *ends[:3]), ends, strict=True))


def sample_types(n: int) -> torch.Tensor:
    """The type k ∈ {1, 2, 3, 4} of each of n sequences, in the order of `type_slices`."""
    kind = torch.zeros(n, dtype=torch.int64)
    for k, I in enumerate(type_slices(n), start=1):
        kind[I] = k
    return kind


def slot_contents(kind: torch.Tensor, L: int) -> torch.Tensor:
    """(n, L) special token of each slot, −1 where a random token goes (see the module docstring)."""
    n = kind.shape[0]
    slots = torch.full((n, L), -1, dtype=torch.int64)
    slots[:, 0] = MU3
    slots[:, 1] = torch.where(kind <= 2, MU1, torch.where(kind == 3, MU2, -1))
    slots[:, 2] = torch.where(kind == 1, MU2, -1)
    return slots


def random_tokens(rng: Stream, purpose: str, slots: torch.Tensor, d: int, distinct: bool) -> torch.Tensor:
    """(n, L) random tokens for the slots: uniform over R (iid), or the first slots' share of a random
    permutation of R, one word per slot (distinct; the declaration checks d is large enough)."""
    n, L = slots.shape
    vocabulary = d - FIRST_RANDOM
    if not distinct:
        u = rng.uniform(f"{purpose}/random_tokens", 0, (n, L), torch.float64)
        return FIRST_RANDOM + (u * vocabulary).long().clamp(max=vocabulary - 1)
    words = FIRST_RANDOM + torch.argsort(rng.uniform(f"{purpose}/random_words", 0, (vocabulary,), torch.float64))
    rank = torch.cumsum((slots < 0).reshape(-1).long(), 0).reshape(n, L) - 1  # the k-th random slot gets word k
    return words[rank.clamp(min=0, max=vocabulary - 1)]


def random_sample(random_seen: torch.Tensor, size: int) -> torch.Tensor:
    """The `size` lowest-index random tokens that occur in the training set, the first of them repeated where
    fewer occur: a random sample of them (the words are drawn at random) of a fixed size, so that configs of
    one pack share its shape (not from the paper)."""
    d = random_seen.shape[0]
    order = torch.where(random_seen, d - torch.arange(d), 0)  # larger for smaller indices, 0 if unseen
    rank, index = torch.topk(order, min(size, d - FIRST_RANDOM))
    return torch.where(rank > 0, index, index[0])


def sample_sequences(rng: Stream, purpose: str, n: int, L: int, d: int, distinct: bool) -> Sequences:
    """n sequences of [Y24] Def. 2.1 with exact type counts: a pure function of (config seed, purpose)."""
    kind = sample_types(n)
    slots = slot_contents(kind, L)
    content = torch.where(slots < 0, random_tokens(rng, purpose, slots, d, distinct), slots)
    position_of_slot = torch.argsort(rng.uniform(f"{purpose}/positions", 0, (n, L), torch.float64), dim=-1)
    slot_at_position = torch.argsort(position_of_slot, dim=-1)  # the inverse permutation
    tokens = torch.gather(content, 1, slot_at_position)
    y = torch.where(kind == 1, 1.0, -1.0)  # y = +1 iff μ1 and μ2 co-occur (Def. 2.1)
    return Sequences(tokens, y, kind)

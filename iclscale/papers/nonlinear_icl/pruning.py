"""Pruning MLP neurons of the trained one-layer model ([L24] §2.4, Thm 3.7, Fig. 5).

Pruning a set S ⊂ [m] removes rows S of W_O ([L24] §2.4). Setting those rows to zero is the same thing:
a removed neuron then contributes a_i·ReLU(0) = 0 to F, and the remaining ones are untouched. Written for
one config's parameters.
"""

from __future__ import annotations

import math

import torch


def neuron_magnitudes(params: dict[str, torch.Tensor], score: str) -> torch.Tensor:
    """(m,) magnitude of every MLP neuron.

    wowv: ‖r_i‖ with r_i the i-th row of W_O W_V ([L24] Thm 3.7, Eq. 14);
    wo: ‖i-th row of W_O‖ ([L24] Fig. 5: "the magnitude of each neuron of W_O")."""
    if score == "wowv":
        return (params["W_O"] @ params["W_V"]).norm(dim=-1)
    if score == "wo":
        return params["W_O"].norm(dim=-1)
    raise ValueError(f"unknown pruning score {score!r}; expected wowv or wo")


def small_neurons(magnitudes: torch.Tensor) -> torch.Tensor:
    """(m,) bool: the small neurons L^c of [L24] Thm 3.7 (‖r_i‖ ≤ O(1/√M) against Ω(1) on L), read as the
    lower group of a 2-means split of log magnitudes (exact in 1-D: the best cut of the sorted values; the
    split is not from the paper)."""
    m = magnitudes.shape[-1]
    if m < 2:
        return torch.zeros_like(magnitudes, dtype=torch.bool)
    values, order = torch.sort(magnitudes.double().clamp(min=1e-30).log())
    sums, squares = values.cumsum(-1), (values**2).cumsum(-1)
    left = torch.arange(1, m, dtype=values.dtype)  # cut after `left` values
    total, total_sq = sums[-1], squares[-1]
    sse = (squares[:-1] - sums[:-1] ** 2 / left) + ((total_sq - squares[:-1]) - (total - sums[:-1]) ** 2 / (m - left))
    cut = sse.argmin() + 1
    rank = torch.argsort(order)
    return rank < cut


def pruned_count(m: int, ratio: float) -> int:
    """|S| = R·m rounded half up ([L24] Thm 3.7: |S| = Rm)."""
    return min(m, math.floor(ratio * m + 0.5))


def removed_neurons(
    magnitudes: torch.Tensor, method: str, ratio: float, random_keys: torch.Tensor | None = None
) -> torch.Tensor:
    """(m,) bool, True for the round(R·m) neurons that `method` removes.

    magnitude: the smallest magnitudes first (magnitude-based pruning, Fig. 5A); largest: the largest
    first (pruning S ⊂ L, Thm 3.7 Eq. 16); random: the first of a random order given by `random_keys`
    (m,), uniform draws fixed per config (Fig. 5A's random pruning); small: exactly the small set L^c
    of each config (`small_neurons`; Thm 3.7 Eq. 15, S = L^c), whatever the ratio; none: nothing."""
    m = magnitudes.shape[-1]
    removed = torch.zeros(m, dtype=torch.bool)
    if method == "small":
        return small_neurons(magnitudes)
    count = pruned_count(m, ratio)
    if method == "none" or count == 0:
        return removed
    if method == "magnitude":
        order = torch.argsort(magnitudes, stable=True)
    elif method == "largest":
        order = torch.argsort(magnitudes, descending=True, stable=True)
    elif method == "random":
        order = torch.argsort(random_keys)
    else:
        raise ValueError(f"unknown pruning method {method!r}; expected none, random, magnitude, largest or small")
    return removed.scatter(0, order[:count], True)


def prune(params: dict[str, torch.Tensor], removed: torch.Tensor) -> dict[str, torch.Tensor]:
    """A copy of the parameters with the removed rows of W_O set to zero ([L24] §2.4)."""
    pruned = dict(params)
    pruned["W_O"] = torch.where(removed.unsqueeze(-1), 0.0, params["W_O"])
    return pruned

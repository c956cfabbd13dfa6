"""Small helpers for tensors with a leading pack dimension K."""

from __future__ import annotations

import torch


def per_config(value: torch.Tensor | float, like: torch.Tensor) -> torch.Tensor | float:
    """Reshape a per-config (K,) tensor so that it broadcasts against a (K, ...) tensor."""
    if isinstance(value, torch.Tensor):
        return value.reshape(-1, *([1] * (like.ndim - 1)))
    return value

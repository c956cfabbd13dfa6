"""Per-config random streams: every draw is a pure function of (config seed, purpose, step, index).

Why not one `torch.Generator` per config: a pack of K configs would need K generator calls per
step, which costs more than the training step itself at K = 1024. Instead each number is a
counter-based hash (Wellons' "lowbias32" integer hash) of a per-config key, evaluated for the
whole pack in one tensor op. A config therefore sees the same numbers whatever pack it runs in,
whatever K, and on CPU or CUDA alike — the property that makes packed results equal to
one-at-a-time results.

All integer work is int32 with wrap-around multiplication; right shifts are made logical by
masking. A stream holds at most 2**32 numbers per (purpose, step); draw in chunks (another `step`)
beyond that.
"""

from __future__ import annotations

import math
import zlib

import torch

from iclscale.tensors import per_config


def _int32(c: int) -> int:
    c &= 0xFFFFFFFF
    return c - (1 << 32) if c >= (1 << 31) else c


_M1, _M2, _GOLDEN = _int32(0x7FEB352D), _int32(0x846CA68B), _int32(0x9E3779B9)


def _shr(x: torch.Tensor, k: int) -> torch.Tensor:
    """Logical right shift of int32 values."""
    return (x >> k) & ((1 << (32 - k)) - 1)


def mix32(x: torch.Tensor) -> torch.Tensor:
    """lowbias32 (C. Wellons, "Hash function prospector"): a bijective, well-avalanched int32 hash."""
    x = x ^ _shr(x, 16)
    x = x * _M1
    x = x ^ _shr(x, 15)
    x = x * _M2
    return x ^ _shr(x, 16)


def _purpose_code(purpose: str) -> int:
    return _int32(zlib.crc32(purpose.encode()))


class Streams:
    """Random numbers for a pack of K configs, one independent stream per config seed.

    Each (purpose, step) names one draw: ask for all the numbers of that draw at once, and use
    another purpose (or step) for the next draw. Output shapes are (K, *shape).
    """

    def __init__(self, seeds: torch.Tensor | list[int], device: torch.device | str = "cpu"):
        seeds = torch.as_tensor(seeds, dtype=torch.int64, device=device)
        if seeds.ndim != 1 or bool(((seeds < 0) | (seeds > 2**31 - 1)).any()):
            raise ValueError("seeds must be a 1-D tensor of integers in [0, 2**31 - 1]")
        self.device = torch.device(device)
        self._base = mix32(mix32(seeds.to(torch.int32)) + _GOLDEN)

    def subset(self, index: torch.Tensor | slice) -> Streams:
        """The streams of some of the configs (the same numbers they see in the full pack)."""
        part = Streams.__new__(Streams)
        part.device, part._base = self.device, self._base[index]
        return part

    @property
    def K(self) -> int:
        return self._base.numel()

    def key(self, purpose: str, step: int = 0) -> torch.Tensor:
        """The (K,) int32 key of one draw."""
        return mix32(mix32(self._base ^ _purpose_code(purpose)) + _int32(step))

    def bits(self, purpose: str, step: int, count: int) -> torch.Tensor:
        """(K, count) int32 hash values: element i of config k is mix32(key_k + i * golden)."""
        counter = torch.arange(count, dtype=torch.int32, device=self.device) * _GOLDEN
        return mix32(self.key(purpose, step)[:, None] + counter[None, :])

    def uniform(
        self, purpose: str, step: int, shape: tuple[int, ...], dtype: torch.dtype = torch.float32
    ) -> torch.Tensor:
        """Uniform on the open interval (0, 1)."""
        bits = self.bits(purpose, step, math.prod(shape))
        if dtype == torch.float64:  # all 32 bits; exact in float64
            u = ((bits.to(torch.int64) & 0xFFFFFFFF).to(dtype) + 0.5) * 2.0**-32
        else:  # 23 bits, so that the largest value stays below 1 in float32
            u = (_shr(bits, 9).to(dtype) + 0.5) * 2.0**-23
        return u.reshape(self.K, *shape)

    def normal(
        self, purpose: str, step: int, shape: tuple[int, ...], dtype: torch.dtype = torch.float32
    ) -> torch.Tensor:
        """Standard normal, by the Box-Muller transform (both outputs of each pair used)."""
        count = math.prod(shape)
        pairs = (count + 1) // 2
        u = self.uniform(purpose, step, (2, pairs), dtype)
        radius = torch.sqrt(-2.0 * torch.log(u[:, 0]))
        angle = (2.0 * math.pi) * u[:, 1]
        z = torch.cat([radius * torch.cos(angle), radius * torch.sin(angle)], dim=1)
        return z[:, :count].reshape(self.K, *shape)

    def sphere(
        self, purpose: str, step: int, shape: tuple[int, ...], d: int, dtype: torch.dtype = torch.float32
    ) -> torch.Tensor:
        """Uniform on the unit sphere S^{d-1}: normalised standard normals, shape (K, *shape, d)."""
        g = self.normal(purpose, step, (*shape, d), dtype)
        return g / g.norm(dim=-1, keepdim=True)

    def uniform_range(
        self, purpose: str, step: int, shape: tuple[int, ...], low: torch.Tensor | float, high: torch.Tensor | float
    ) -> torch.Tensor:
        """Uniform on (low, high), where low and high may be per-config (K,) tensors."""
        u = self.uniform(purpose, step, shape)
        low, high = per_config(low, u), per_config(high, u)
        return low + (high - low) * u

"""Per-config random streams: every draw is a pure function of (config seed, purpose, step, index).

Why not one `torch.Generator` per config: a pack of configs would need one generator call per
config and step, which costs more than the training step itself, and generators do not run under `vmap` or
`torch.compile`. Instead each number is a counter-based hash (Wellons' "lowbias32" integer hash)
of a per-config key. A study draws for its one config (`c.rng`, whose key is a 0-d tensor); the
trainer vmaps that over the pack, where the key is each config's own. A config therefore sees the
same numbers whatever pack it runs in, whatever its size, compiled or eager, on CPU or CUDA.

The 32-bit hash is computed in int64 arithmetic with every intermediate masked to [0, 2^32): int32
wrap-around multiplication is signed overflow, undefined behaviour in the C++ and Triton code that
`torch.compile` generates (a compiled int32 hash gave other numbers than eager for some lengths).
Multipliers above 2^31 are used as their negative int32 twins, so no int64 product overflows either.
Eager draws on the CPU take a second route to the same bits: int32 tensors, whose multiplication wraps
modulo 2^32 in ATen's vectorised kernels, with logical shifts written as an arithmetic shift and a mask.
Half the bytes of int64 and native 32-bit lanes make eager draws (a pack's test set, set-up) about 2.5×
faster; tests hold both routes equal bit for bit. Compiled code always takes the int64 route.
A stream holds at most 2^32 numbers per (purpose, step); draw in chunks (another `step`) beyond that.
"""

from __future__ import annotations

import math

import torch

_MASK = 0xFFFFFFFF


def _signed32(c: int) -> int:
    c &= _MASK
    return c - (1 << 32) if c >= (1 << 31) else c


_M1, _M2 = _signed32(0x7FEB352D), _signed32(0x846CA68B)  # lowbias32's multipliers, as int32
_GOLDEN = 0x9E3779B9  # 2^32 / golden ratio: the counter step


def mix32(x: torch.Tensor) -> torch.Tensor:
    """lowbias32 (C. Wellons, "Hash function prospector"): a bijective, well-avalanched 32-bit hash.
    x: int64 values in [0, 2^32); returns the same. In place after the first op: eager draws of
    millions of numbers spent half their time allocating intermediates (2.5× faster in place)."""
    x = x ^ (x >> 16)
    x.mul_(_M1).bitwise_and_(_MASK)
    x.bitwise_xor_(x >> 15)
    x.mul_(_M2).bitwise_and_(_MASK)
    return x.bitwise_xor_(x >> 16)


def _mix32_int32(x: torch.Tensor) -> torch.Tensor:
    """lowbias32 on int32 tensors holding the 32 bits (two's complement); in place after the first op.
    `x >> k & (2^(32-k) - 1)` is the logical shift of the unsigned value."""
    x = x ^ (x >> 16).bitwise_and_(0xFFFF)
    x.mul_(_M1)
    x.bitwise_xor_((x >> 15).bitwise_and_(0x1FFFF))
    x.mul_(_M2)
    return x.bitwise_xor_((x >> 16).bitwise_and_(0xFFFF))


def _eager_cpu(device: torch.device) -> bool:
    """Whether the int32 route applies: eager code on the CPU (see the module docstring)."""
    return device.type == "cpu" and not torch.compiler.is_compiling()


def _unsigned(bits: torch.Tensor) -> torch.Tensor:
    """`Stream._bits`' values as int64 in [0, 2^32), whichever route drew them."""
    return bits.to(torch.int64) & _MASK if bits.dtype == torch.int32 else bits


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        c = byte
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_CRC_TABLE = _crc_table()


_PURPOSE_CODES: dict[str, int] = {}


def purpose_code(purpose: str) -> int:
    """A purpose string as 32 bits: its CRC-32 (zlib.crc32's value), in plain Python so that `torch.compile`
    can trace it (zlib cannot be traced) and fold it into a constant. Remembered for eager steps, which ask
    often; not while compiling, where filling the memo would invalidate the compiled code's guards."""
    if torch.compiler.is_compiling():
        return _crc32(purpose)
    code = _PURPOSE_CODES.get(purpose)
    if code is None:
        code = _PURPOSE_CODES[purpose] = _crc32(purpose)
    return code


def _crc32(text: str) -> int:
    """CRC-32 of the text's UTF-8 bytes. The bytes are computed from `ord` of each character: dynamo (torch
    2.11) cannot iterate a `bytes` object, and that graph break fell inside the vmapped step, which then ran
    eagerly (one graph of 6 ops instead of 228)."""
    crc = 0xFFFFFFFF
    for char in text:
        for byte in _utf8(ord(char)):
            crc = _CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _utf8(code: int) -> tuple[int, ...]:
    """The UTF-8 bytes of one code point (what `str.encode` gives), in integer arithmetic."""
    if code < 0x80:
        return (code,)
    if 0xD800 <= code <= 0xDFFF:
        raise ValueError(f"a purpose may not hold a lone surrogate (U+{code:04X}): it has no UTF-8 encoding")
    if code < 0x800:
        return 0xC0 | code >> 6, 0x80 | code & 0x3F
    if code < 0x10000:
        return 0xE0 | code >> 12, 0x80 | code >> 6 & 0x3F, 0x80 | code & 0x3F
    return 0xF0 | code >> 18, 0x80 | code >> 12 & 0x3F, 0x80 | code >> 6 & 0x3F, 0x80 | code & 0x3F


def _counters(count: int, device: torch.device) -> torch.Tensor:
    return (torch.arange(count, dtype=torch.int64, device=device) * _GOLDEN) & _MASK


class Stream:
    """The random numbers of one config, or of a stack of configs: `key` is a 0-d int64 tensor (one
    config, as a study sees it under vmap) or (pack_size,) (a pack, for pack-level code). Draws have shape
    (*key.shape, *shape).

    Each (purpose, step) names one draw: ask for all the numbers of that draw at once, and use
    another purpose (or step) for the next one. `step` may be an int or a 0-d integer tensor."""

    def __init__(self, key: torch.Tensor):
        self.base = key

    @classmethod
    def from_seeds(cls, seeds: torch.Tensor | list[int], device: torch.device | str = "cpu") -> Stream:
        seeds = torch.as_tensor(seeds, dtype=torch.int64, device=device)
        if seeds.ndim > 1 or bool(((seeds < 0) | (seeds > 2**31 - 1)).any()):
            raise ValueError("seeds must be integers in [0, 2**31 - 1], one per config")
        return cls(mix32((mix32(seeds) + _GOLDEN) & _MASK))

    def __getitem__(self, index) -> Stream:
        """The streams of some configs of a stack (the same numbers they see in the full pack)."""
        return Stream(self.base[index])

    @property
    def device(self) -> torch.device:
        return self.base.device

    def key(self, purpose: str, step: int | torch.Tensor = 0) -> torch.Tensor:
        """The key of one draw: shape of `base`."""
        return mix32((mix32(self.base ^ purpose_code(purpose)) + step) & _MASK)

    def bits(self, purpose: str, step: int | torch.Tensor, count: int) -> torch.Tensor:
        """(*key, count) hash values in [0, 2^32) as int64: element i is mix32(key + i·golden)."""
        return _unsigned(self._bits(purpose, step, count))

    def _bits(self, purpose: str, step: int | torch.Tensor, count: int) -> torch.Tensor:
        """`bits`, as int64 in [0, 2^32) or, eagerly on the CPU, as int32 holding the same 32 bits."""
        key = self.key(purpose, step)
        if _eager_cpu(self.device):
            counters = _counters(count, self.device).to(torch.int32)
            return _mix32_int32(key.to(torch.int32)[..., None] + counters)
        return mix32((key[..., None] + _counters(count, self.device)).bitwise_and_(_MASK))

    def uniform(
        self, purpose: str, step: int | torch.Tensor, shape: tuple[int, ...], dtype: torch.dtype | None = None
    ) -> torch.Tensor:
        """Uniform on the open interval (0, 1), in `dtype` (default: torch's default dtype)."""
        dtype = dtype or torch.get_default_dtype()
        bits = self._bits(purpose, step, math.prod(shape))
        if dtype == torch.float64:  # all 32 bits; exact in float64
            u = (_unsigned(bits).to(dtype) + 0.5) * 2.0**-32
        else:  # the top 23 bits, so that the largest value stays below 1 in float32
            u = (((bits >> 9) & 0x7FFFFF).to(dtype) + 0.5) * 2.0**-23
        return u.reshape(*self.base.shape, *shape)

    def normal(
        self, purpose: str, step: int | torch.Tensor, shape: tuple[int, ...], dtype: torch.dtype | None = None
    ) -> torch.Tensor:
        """Standard normal, by the Box-Muller transform (both outputs of each pair used)."""
        count = math.prod(shape)
        pairs = (count + 1) // 2
        u = self.uniform(purpose, step, (2, pairs), dtype)
        radius = torch.sqrt(-2.0 * torch.log(u[..., 0, :]))
        angle = (2.0 * math.pi) * u[..., 1, :]
        z = torch.cat([radius * torch.cos(angle), radius * torch.sin(angle)], dim=-1)
        return z[..., :count].reshape(*self.base.shape, *shape)

    def sphere(
        self, purpose: str, step: int | torch.Tensor, shape: tuple[int, ...], d: int, dtype: torch.dtype | None = None
    ) -> torch.Tensor:
        """Uniform on the unit sphere S^{d-1}: normalised standard normals, shape (*key, *shape, d)."""
        g = self.normal(purpose, step, (*shape, d), dtype)
        return g / g.norm(dim=-1, keepdim=True)

    def uniform_range(
        self,
        purpose: str,
        step: int | torch.Tensor,
        shape: tuple[int, ...],
        low: torch.Tensor | float,
        high: torch.Tensor | float,
    ) -> torch.Tensor:
        """Uniform on (low, high); low and high are scalars (0-d tensors for a per-config param)."""
        return low + (high - low) * self.uniform(purpose, step, shape)

"""Memory-sized packs: how many configs of a study fit on a device at once, and the parts a pack is cut in.

A pack's memory is a fixed part plus a per-config part (every tensor of a step has the pack dimension). Both
are measured, not guessed: a short run — constants, initialisation, two training steps and a record — at pack
sizes 8 and 16 (on CUDA 1024 and 2048: `CUDA_PROBE_SIZES`) on the device itself, and the difference of the two
peaks gives the per-config bytes. Packs larger than the free memory allows are trained in equal parts (the
last one padded with copies whose results are dropped, so that a compiled step serves every part), never out
of memory. Small packs (pack size ≤ `MEASURE_ABOVE`) are trained whole without measuring. A measurement depends on the
study's shape params, the eval points, the device and the code only: it is kept for the rest of the process
and in ~/.cache/iclscale/footprints.json under a digest of iclscale's sources and torch's version (a new
process would otherwise spend about a second measuring again; changed code measures afresh).

Evaluation sizes a short run cannot be trusted to draw (a test set of terabytes) are estimated from the params
where a study declares how (`StudyInfo.eval_values`) and refused before anything runs (`check_evaluation`).

On CUDA the peak comes from the caching allocator's statistics. On CPU PyTorch keeps no statistics,
so `LiveBytes` counts them: a dispatch mode that adds every new storage an op creates and subtracts it
when the storage is freed (hand-written because neither torch nor the standard library offers a peak
of live tensor memory on CPU).
"""

from __future__ import annotations

import json
import math
import os
import weakref
from collections.abc import Callable, Sequence

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from iclscale.trainer.cachedir import ROOT as CACHE_ROOT
from iclscale.trainer.cachedir import code_digest
from iclscale.trainer.params import Config, EvalPoint
from iclscale.trainer.registry import StudyInfo

MEASURE_ABOVE = 16
PROBE_SIZES = (8, 16)
CUDA_PROBE_SIZES = (1024, 2048)
"""On CUDA the caching allocator rounds every block up to 512 bytes, so in packs of 8 and 16 most per-config
tensors of a tiny model take one block each and their difference hides the per-config bytes (seed 004's
unit on an H100: 640 B measured that way, 4.3 kB in a pack of 8192). At these sizes the rounding is noise."""


def probe_sizes(device: torch.device) -> tuple[int, int]:
    return CUDA_PROBE_SIZES if torch.device(device).type == "cuda" else PROBE_SIZES


MEMORY_FRACTION = 0.5
"""The share of the free memory a pack may use: eager peaks vary with the allocator, and others run too."""


class LiveBytes(TorchDispatchMode):
    """Peak bytes of live tensor storage created while the mode is active (CPU)."""

    def __init__(self) -> None:
        super().__init__()
        self.live = self.peak = 0
        self._tracked: set[int] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in tree_leaves(out):
            # a zero tensor (autograd's zero gradients of some ops) has no storage at all
            if isinstance(tensor, torch.Tensor) and not tensor._is_view() and not tensor._is_zerotensor():
                self._track(tensor)
        return out

    def _track(self, tensor: torch.Tensor) -> None:
        storage = tensor.untyped_storage()
        key, size = storage.data_ptr(), storage.nbytes()
        if key in self._tracked or size == 0:
            return
        self._tracked.add(key)
        self.live += size
        self.peak = max(self.peak, self.live)
        weakref.finalize(tensor, self._free, key, size)

    def _free(self, key: int, size: int) -> None:
        self._tracked.discard(key)
        self.live -= size


def free_memory(device: torch.device) -> int:
    """Bytes that a pack may allocate on the device now."""
    if device.type == "cuda":
        return torch.cuda.mem_get_info(device)[0]
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


ShortRun = Callable[[StudyInfo, list[Config], list[EvalPoint], torch.device], None]
"""What a pack is measured on: set-up, two training steps and a record of these configs
(iclscale.trainer.training.short_run; passed in, so that the sizer imports no trainer module it sizes)."""


def peak_bytes(
    info: StudyInfo, configs: list[Config], eval_points: list[EvalPoint], device: torch.device, short_run: ShortRun
) -> int:
    """Peak memory of a short run of these configs: set-up, two steps and a record."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        short_run(info, configs, eval_points, device)
        return torch.cuda.max_memory_allocated(device) - base
    with LiveBytes() as meter:
        short_run(info, configs, eval_points, device)
    return meter.peak


_MEASURED: dict[tuple, tuple[int, int]] = {}


CACHE_FILE = CACHE_ROOT / "footprints.json"


def per_config_bytes(
    info: StudyInfo, configs: list[Config], eval_points: list[EvalPoint], device, short_run: ShortRun
) -> tuple[int, int]:
    """(fixed bytes, bytes per config), from peaks at the two probe sizes."""
    key = repr((info.name, configs[0].shape_key(info.names("shape")), tuple(eval_points), str(device)))
    if key not in _MEASURED:
        stored = _read_cache().get(code_digest(), {})
        entry = stored.get(key) if isinstance(stored, dict) else None
        if _is_measurement(entry):
            _MEASURED[key] = tuple(entry)
        else:
            _MEASURED[key] = _measure(info, configs, eval_points, device, short_run)
            _write_cache(key, _MEASURED[key])
    return _MEASURED[key]


def _is_measurement(entry) -> bool:
    """A cache entry as `_write_cache` writes it: [fixed bytes, bytes per config], non-negative integers
    (anything else, a hand-edited or foreign file, is measured afresh)."""
    return (
        isinstance(entry, list)
        and len(entry) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**62 for v in entry)
        and entry[1] > 0
    )


def _read_cache() -> dict:
    try:
        found = json.loads(CACHE_FILE.read_text())
        return found if isinstance(found, dict) else {}
    except (OSError, ValueError):  # none yet, unreadable or half-written: measure
        return {}


def _write_cache(key: str, measured: tuple[int, int]) -> None:
    """Add one measurement under the current code's digest (older digests are dropped); best effort."""
    digest = code_digest()
    entries = _read_cache().get(digest, {})
    entries = entries if isinstance(entries, dict) else {}
    entries[key] = list(measured)
    try:
        CACHE_FILE.parent.mkdir(parents=True, exist_ok=True)
        partial = CACHE_FILE.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps({digest: entries}))
        partial.replace(CACHE_FILE)  # atomic: a concurrent reader sees the old file or the new one
    except OSError:
        pass


def _measure(
    info: StudyInfo, configs: list[Config], eval_points: list[EvalPoint], device, short_run: ShortRun
) -> tuple[int, int]:
    sizes = probe_sizes(device)
    small, large = (
        peak_bytes(info, [configs[i % len(configs)] for i in range(k)], eval_points, device, short_run) for k in sizes
    )
    per_config = max(1, math.ceil((large - small) / (sizes[1] - sizes[0])))
    return max(0, small - sizes[0] * per_config), per_config


def pack_parts(
    info: StudyInfo,
    configs: list[Config],
    eval_points: list[EvalPoint],
    device: torch.device,
    short_run: ShortRun,
    memory_limit: int | None = None,
) -> list[tuple[list[Config], int]]:
    """The parts to train a pack in, each with its number of padding copies at the end."""
    if len(configs) <= MEASURE_ABOVE and memory_limit is None:
        return [(configs, 0)]
    return split(configs, auto_pack_size(info, configs, eval_points, device, short_run, memory_limit))


def auto_pack_size(
    info: StudyInfo,
    configs: list[Config],
    eval_points: list[EvalPoint],
    device: torch.device,
    short_run: ShortRun,
    memory_limit: int | None = None,
) -> int:
    """The most configs of this shape one part may hold (what `pack_size: auto` trains at once): the memory
    budget (`memory_limit`, else `MEMORY_FRACTION` of the device's free memory) less the fixed bytes, over
    the bytes per config; at least 1."""
    fixed, per_config = per_config_bytes(info, configs, eval_points, device, short_run)
    budget = memory_limit if memory_limit is not None else int(free_memory(device) * MEMORY_FRACTION)
    return fits(budget, fixed, per_config)


def fits(budget: int, fixed: int, per_config: int) -> int:
    """Configs whose estimated memory (`estimated_bytes`) stays within `budget`; at least 1."""
    return max(1, (budget - fixed) // max(1, per_config))


def estimated_bytes(fixed: int, per_config: int, pack_size: int) -> int:
    """The memory model: the peak bytes of a pack of `pack_size` configs."""
    return fixed + per_config * pack_size


def split(configs: Sequence[Config], fits: int) -> list[tuple[list[Config], int]]:
    """Equal parts of at most `fits` configs; the last one padded with copies of its first config."""
    count = math.ceil(len(configs) / fits)
    size = math.ceil(len(configs) / count)
    parts = []
    for start in range(0, len(configs), size):
        part = list(configs[start : start + size])
        padding = size - len(part)
        parts.append((part + [part[0]] * padding, padding))
    return parts


def check_evaluation(
    info: StudyInfo, configs: Sequence[Config], eval_points: Sequence[EvalPoint], device: torch.device
) -> None:
    """Refuse, before anything is drawn or trained, a pack whose evaluation cannot fit: the largest test set a
    study's declaration estimates (`StudyInfo.eval_values`) for the whole pack, against the device's free
    memory (the short run that sizes packs would itself draw it: 10^7 test prompts of 10^4 tokens held 4.2 GB
    after a minute and grew, issue 38). Said in one line with both numbers."""
    if info.eval_values is None or not configs:
        return
    values = dict(configs[0].values)
    itemsize = 8 if values.get("dtype") == "float64" else 4
    sizes = ((info.eval_values({**values, **dict(p)}) * itemsize, p) for p in eval_points)
    needed, worst = max(sizes, key=lambda pair: pair[0], default=(0, ()))  # points themselves do not order
    needed *= len(configs)
    free = free_memory(torch.device(device))
    if needed > free:
        from iclscale.errors import UserError

        defaults = info.defaults("eval")  # the point by what it sets apart from the declared defaults
        at = ", ".join(f"{name}={value}" for name, value in dict(worst).items() if value != defaults.get(name))
        at = at or "the default eval point"
        raise UserError(
            f"study {info.name}: evaluating {len(configs)} config(s) at {at} needs at least {_size(needed)} for its "
            f"test set, more than the {_size(free)} free on this {torch.device(device).type}; lower the eval sizes"
        )


def _size(count: int) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if count >= scale:
            return f"{count / scale:.3g} {unit}"
    return f"{count} B"

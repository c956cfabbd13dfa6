"""Whether and how the training step is compiled.

`torch.compile` fuses the step (random numbers, forward, backward, optimizer, divergence mask) into a
few loops: on one CPU thread in a pack of 4096 it ran the seed-004 unit about 4× faster than eager. But a
first compilation takes 10–60 s, so "auto" times a few eager steps and compiles only when the remaining
eager time would exceed `COMPILE_PAYS_AFTER_S` — or at once when this step, for these input shapes, was
compiled before and saved (`iclscale.trainer.precompiled`: loading takes a fraction of a second in a new
process, where tracing again took seconds). Compiled and eager steps agree within float tolerance
(tests hold this); a compilation that fails falls back to eager, once, with a warning. Inductor's cache
lives in ~/.cache/iclscale/inductor (not /tmp) so that it survives.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch.utils._pytree import tree_leaves

from iclscale.trainer import precompiled
from iclscale.trainer.cachedir import use_persistent_inductor_cache

use_persistent_inductor_cache()  # before anything asks inductor for its cache directory

COMPILE_PAYS_AFTER_S = 10.0
ENVIRONMENT = "ICLSCALE_COMPILE"
"""auto, on or off: what "auto" means in this process (the test suite sets off, so that how busy the
machine is cannot change which path a test takes; tests of the compiled step ask for it explicitly)."""
TIMED_EAGER_STEPS = 3
MODES = ("auto", "on", "off")
INDUCTOR_OPTIONS = {"realize_cpu_opcount_threshold": 8}
"""Inductor inlines pointwise chains into one expression unless they exceed this many ops (50 on CPU by
default). The counter hash reuses each intermediate two or three times, so inlined chains grow
exponentially and code generation took minutes (the training step of a one-layer Transformer on pattern
prompts: 77 s at the default, 20 s at 8)."""
CPU_OPTIONS = {"post_grad_fusion_options": {"decompose_mm_pass": {}}}
"""On the CPU only (GPU steps keep inductor's defaults: never measured here): small matrix products become
fused multiply-adds (`SMALL_MATMUL`)."""
SMALL_MATMUL = 32
"""On the CPU, batched matrix products whose matrices have no side longer than this are compiled as fused
multiply-adds instead of calls to a batched-matmul routine. A pack's per-config matrices are tiny (seed
004's unit: 4×5 by 5×20, one per config), where the routine pays per matrix; fused into the step's loops,
seed 004's step took 22% less CPU time (one thread, a pack of 4096). Inductor has this decomposition
(`fx_passes.decompose_mem_bound_mm`) but on the CPU applies it only to a batch of one; its rule is replaced
for the CPU (the pass itself is enabled for CPU steps only, `CPU_OPTIONS`)."""


_COMPILED: dict[tuple, Callable] = {}
"""Compiled functions by (key or id of the function, input signature): one per process, reused by every pack
and part with the same shapes."""
_FAILED: set[int] = set()


def resolve_mode(mode: str) -> str:
    """ "auto" as this process means it (`ENVIRONMENT`), "on" or "off"."""
    if mode == "auto":
        mode = os.environ.get(ENVIRONMENT, "auto")
    if mode not in MODES:
        raise ValueError(f"compile must be one of {MODES}, got {mode!r}")
    return mode


class StepRunner:
    """Calls a step function `steps` times, eagerly or compiled (see the module docstring). `key` names the
    step among processes (study, shape params, device): with it, compiled steps are saved and loaded;
    `external` holds the objects the step closes over that cannot be saved (its nn.Module), by name."""

    def __init__(
        self,
        step: Callable,
        steps: int,
        mode: str = "auto",
        key: tuple | None = None,
        external: Mapping[str, Any] | None = None,
    ):
        self.step, self.steps, self.mode = step, steps, resolve_mode(mode)
        self.key, self.external = key, dict(external or {})
        self.calls = 0
        self._timing: tuple | float | None = None
        self._compiled_fn: Callable | None = None

    def __call__(self, *args):
        self.calls += 1
        if self._compiled_fn is not None:
            return self._compiled_fn(*args)
        if self._should_compile(args):
            try:
                compiled = compile_function(self.step, args, self.key, self.external)
                out = compiled(*args)
                self._compiled_fn = compiled
                return out
            except Exception as error:  # no compiler, an unsupported op: eager still works
                self._failed(error)
        return self._timed_eager(*args)

    def settled(self, args: tuple) -> Callable:
        """The function to call from now on, decided now rather than after timed eager steps (for a caller
        that records its calls, `iclscale.trainer.replay`): compiled for inputs like `args` unless the mode is "off"
        or compiling fails (then eager, with the usual warning)."""
        if self.mode != "off" and id(self.step) not in _FAILED:
            try:
                self._compiled_fn = compile_function(self.step, args, self.key, self.external)
            except Exception as error:
                self._failed(error)
        return self._compiled_fn or self.step

    def _failed(self, error: Exception) -> None:
        _FAILED.add(id(self.step))
        print(f"iclscale: compiling the training step failed, training eagerly ({error!r:.300})", file=sys.stderr)

    @property
    def compiled(self) -> bool:
        return self._compiled_fn is not None

    def _should_compile(self, args: tuple) -> bool:
        if self.mode == "off" or id(self.step) in _FAILED:
            return False
        if self.mode == "on" or _signature(self.step, args, self.key) in _COMPILED:
            return True
        if self.calls == 1 and self.key is not None and precompiled.exists(self.key, args):
            return True  # saved by an earlier process: loading costs less than the eager steps it saves
        if self._timing is None or not isinstance(self._timing, float):
            return False  # still timing eager steps
        return self._timing * (self.steps - self.calls + 1) > COMPILE_PAYS_AFTER_S

    def _timed_eager(self, *args):
        """Eager step; after the first (which pays for allocations), time the next few: `_timing` becomes
        the start time, then the measured seconds per step."""
        out = self.step(*args)
        if self.calls == 1:
            self._timing = ("started", time.perf_counter())
        elif self.calls == 1 + TIMED_EAGER_STEPS and isinstance(self._timing, tuple):
            _sync(out)
            self._timing = (time.perf_counter() - self._timing[1]) / TIMED_EAGER_STEPS
        return out


def compile_function(fn: Callable, args: tuple, key: tuple | None = None, external: Mapping[str, Any] | None = None):
    """`fn` compiled for inputs like `args`, once per process: loaded from disk when saved under `key` by an
    earlier process, else compiled and saved, else (a function with graph breaks) plain `torch.compile`.
    `external`: what `fn` closes over that cannot be saved (nn.Modules), by name. Raises what compiling raises."""
    signature = _signature(fn, args, key)
    if signature in _COMPILED:
        return _COMPILED[signature]
    external = dict(external or {})
    compiled = precompiled.load(key, args, external) if key is not None else None
    if compiled is None:
        options = dict(INDUCTOR_OPTIONS)
        if all(t.device.type == "cpu" for t in _tensors(args)):
            _fuse_small_matmuls()  # only when compiling: its import (inductor's pattern matcher) takes a second
            options.update(CPU_OPTIONS)
        options = known_inductor_options(options)
        if key is not None:
            try:
                compiled = precompiled.compile_and_save(fn, key, args, external, options)
            except Exception:  # not one graph, say: torch.compile handles it, guards and all
                pass
        if compiled is None:
            compiled = torch.compile(fn, dynamic=False, options=options)
    _COMPILED[signature] = compiled
    return compiled


def known_inductor_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options this torch's inductor knows. An unknown option makes `torch.compile` raise, and our
    options are tuning, not meaning: torch 2.11 (the GPU image's) has no `realize_cpu_opcount_threshold`,
    and refusing it made every step there run eagerly."""
    import torch._inductor.config as inductor_config

    return {name: value for name, value in options.items() if hasattr(inductor_config, name)}


@functools.cache
def _fuse_small_matmuls() -> None:
    """Install the CPU rule of `SMALL_MATMUL` (once per process; a torch without the pass keeps its own)."""
    try:
        from torch._inductor.fx_passes import decompose_mem_bound_mm as decompose
    except ImportError:
        return
    torch_rule = decompose.should_decompose_bmm

    def should_decompose_bmm(mat1, mat2) -> bool:
        a, b = mat1.meta.get("val"), mat2.meta.get("val")
        if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor) or a.device.type != "cpu":
            return torch_rule(mat1, mat2)
        if a.dim() != 3 or b.dim() != 3:
            return False
        try:
            return max(int(a.shape[1]), int(a.shape[2]), int(b.shape[2])) <= SMALL_MATMUL
        except TypeError:  # a symbolic size: leave it to the routine
            return False

    decompose.should_decompose_bmm = should_decompose_bmm


def _signature(fn: Callable, args: tuple, key: tuple | None) -> tuple:
    """What a compiled function is specialised to: the function (its key, else itself) and its inputs' shapes,
    strides and dtypes."""
    return (key if key is not None else id(fn), tuple((tuple(a.shape), a.stride(), a.dtype) for a in _tensors(args)))


def _tensors(tree) -> list:
    return [leaf for leaf in tree_leaves(tree) if isinstance(leaf, torch.Tensor)]


def _sync(out) -> None:
    """Wait for queued CUDA work, so that eager timings are real."""
    for leaf in _tensors(out):
        if leaf.is_cuda:
            torch.cuda.synchronize(leaf.device)
            return

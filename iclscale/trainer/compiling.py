"""Whether and how the training step is compiled.

`torch.compile` fuses the step (random numbers, forward, backward, optimizer, divergence mask) into a
few loops: on one CPU thread in a pack of 4096 it ran the seed-004 unit about 4× faster than eager. But a
first compilation takes 10–60 s, so "auto" times a few eager steps and compiles only when the remaining
eager time would exceed `COMPILE_PAYS_AFTER_S` — or at once when this step, for these input shapes, was
compiled before and saved (`iclscale.trainer.precompiled`: loading takes a fraction of a second in a new
process, where tracing again took seconds). Compiled and eager steps agree within float tolerance
(tests hold this). Inductor's cache lives in ~/.cache/iclscale/inductor (not /tmp) so that it survives.

A step is compiled whole or not at all (`fullgraph=True`): a step cut by a graph break runs its pieces
eagerly between the graphs, so on torch 2.11 one unsupported line in the random-number code left the
whole vmapped step eager while it was reported compiled. A graph break, like any failed compilation,
trains eagerly with one warning naming it (`GRAPH_BREAKS`: an error instead, as in the test suite), and
the runner says which path it took (`StepRunner.path`, `graphs`, `breaks`; `PackResult` carries them).
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
GRAPH_BREAKS = "ICLSCALE_GRAPH_BREAKS"
"""warn (the default) or error: what a step that is not one graph does (the test suite sets error)."""
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
_LOADED: set[tuple] = set()
"""Signatures of `_COMPILED` whose function was loaded from disk rather than traced in this process."""
_FAILED: dict[int, str | None] = {}
"""Functions whose compilation failed in this process, with the graph break that stopped it (None: another
error): they run eagerly from then on."""


class GraphBreak(RuntimeError):
    """A function that does not trace as one graph (`fullgraph=True` refused it): `reason` names the break."""

    def __init__(self, reason: str):
        super().__init__(f"not one graph under torch {torch.__version__}: {reason}")
        self.reason = reason


def break_reason(error: BaseException) -> str | None:
    """One line naming the graph break that `error` reports (what dynamo could not trace, and the user line
    where), or None when `error` is no graph break."""
    if isinstance(error, GraphBreak):
        return error.reason
    from torch._dynamo.exc import Unsupported

    if not isinstance(error, Unsupported):
        return None
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    what = lines[0] if lines else type(error).__name__
    explained = [line.removeprefix("Explanation:").strip() for line in lines if line.startswith("Explanation:")]
    explanation = explained[0] if explained else ""
    where = [line for line in lines if line.startswith('File "') and "/torch/" not in line]
    reason = f"{what}: {explanation}" if explanation else what
    if where:  # the last frame of the user's code: 'File ".../rng.py", line 97, in _crc32'
        path, _, rest = where[-1].removeprefix('File "').partition('", line ')
        reason += f" ({os.path.basename(path)}:{rest.split(',')[0]})"
    return reason[:300]


def breaks_are_errors() -> bool:
    value = os.environ.get(GRAPH_BREAKS, "warn")
    if value not in ("warn", "error"):
        raise ValueError(f"{GRAPH_BREAKS} must be warn or error, got {value!r}")
    return value == "error"


def failed(what: str, instead: str, error: Exception) -> str | None:
    """Say, in one line, that compiling `what` failed and that it runs `instead`; returns the graph break that
    stopped it (None: another error). A graph break raises instead where `GRAPH_BREAKS` says error."""
    reason = break_reason(error)
    if reason is not None and breaks_are_errors():
        raise error if isinstance(error, GraphBreak) else GraphBreak(reason) from error
    if reason is not None:
        version = torch.__version__
        print(f"iclscale: {what} is not one graph under torch {version} ({reason}); {instead}", file=sys.stderr)
    else:
        print(f"iclscale: compiling {what} failed, {instead} ({error!r:.300})", file=sys.stderr)
    return reason


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
        self._loaded = False

    def __call__(self, *args):
        self.calls += 1
        if self._compiled_fn is not None:
            return self._compiled_fn(*args)
        if self._should_compile(args):
            try:
                compiled = compile_function(self.step, args, self.key, self.external)
                out = compiled(*args)
                self._compiled_fn, self._loaded = compiled, _signature(self.step, args, self.key) in _LOADED
                return out
            except Exception as error:  # no compiler, an unsupported op, a graph break: eager still works
                self._failed(error)
        return self._timed_eager(*args)

    def settled(self, args: tuple) -> Callable:
        """The function to call from now on, decided now rather than after timed eager steps (for a caller
        that records its calls, `iclscale.trainer.replay`): compiled for inputs like `args` unless the mode is "off"
        or compiling fails (then eager, with the usual warning)."""
        if self.mode != "off" and id(self.step) not in _FAILED:
            try:
                self._compiled_fn = compile_function(self.step, args, self.key, self.external)
                self._loaded = _signature(self.step, args, self.key) in _LOADED
            except Exception as error:
                self._failed(error)
        return self._compiled_fn or self.step

    def _failed(self, error: Exception) -> None:
        _FAILED[id(self.step)] = failed("the training step", "training eagerly", error)

    @property
    def compiled(self) -> bool:
        return self._compiled_fn is not None

    @property
    def path(self) -> str:
        """How the steps ran (the last of them, for "auto", which times eager steps first): "compiled" (traced
        in this process), "loaded" (saved by an earlier one), "eager", or "eager: graph break" / "eager:
        compile failed" when compiling was tried and refused."""
        if self._compiled_fn is not None:
            return "loaded" if self._loaded else "compiled"
        if id(self.step) in _FAILED and self.mode != "off":
            return "eager: compile failed" if _FAILED[id(self.step)] is None else "eager: graph break"
        return "eager"

    @property
    def graphs(self) -> int:
        """Compiled graphs per step: 1 when compiled (whole, `fullgraph=True`), else 0."""
        return 1 if self._compiled_fn is not None else 0

    @property
    def breaks(self) -> list[str]:
        reason = _FAILED.get(id(self.step)) if self._compiled_fn is None and self.mode != "off" else None
        return [reason] if reason else []

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
    """`fn` compiled whole for inputs like `args`, once per process: loaded from disk when saved under `key` by
    an earlier process, else compiled and saved, else (a torch without the precompile API, a function that
    cannot be saved) `torch.compile(fullgraph=True)`, which compiles at its first call. Never a function cut
    by graph breaks: those raise (`GraphBreak` here, dynamo's `Unsupported` from the first call).
    `external`: what `fn` closes over that cannot be saved (nn.Modules), by name. Raises what compiling raises."""
    signature = _signature(fn, args, key)
    if signature in _COMPILED:
        return _COMPILED[signature]
    external = dict(external or {})
    compiled = precompiled.load(key, args, external) if key is not None else None
    if compiled is not None:
        _LOADED.add(signature)
    else:
        _LOADED.discard(signature)
        options = dict(INDUCTOR_OPTIONS)
        if all(t.device.type == "cpu" for t in _tensors(args)):
            _fuse_small_matmuls()  # only when compiling: its import (inductor's pattern matcher) takes a second
            options.update(CPU_OPTIONS)
        options = known_inductor_options(options)
        if key is not None:
            try:
                compiled = precompiled.compile_and_save(fn, key, args, external, options)
            except Exception as error:  # not saveable: torch.compile handles it, guards and all; a break is final
                reason = break_reason(error)
                if reason is not None:
                    raise GraphBreak(reason) from error
        if compiled is None:
            compiled = torch.compile(fn, fullgraph=True, dynamic=False, options=options)
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

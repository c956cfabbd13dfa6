"""Whether and how the training step is compiled.

`torch.compile` fuses the step (random numbers, forward, backward, optimizer, divergence mask) into a
few loops: on one CPU thread in a pack of 4096 it ran the seed-004 unit about 4× faster than eager. But a
first compilation takes 10–60 s, so "auto" compiles only when the pack's estimated eager time
(`eager_estimate_s`: steps × (a fixed cost per step + a cost per config and step, which grows with the
config's trained values)) exceeds `COMPILE_PAYS_AFTER_S`. The decision (`decide`) is a pure function of the
mode, the steps, the planned pack size and the trained values per config: compiled and eager steps agree
only within float tolerance (tests hold this), so a decision that read a clock or a warm cache made a
config's stored bits depend on how busy the machine once was (issue 38). A compiled step saved by an earlier
process (`iclscale.trainer.precompiled`) is loaded instead of traced again, which changes the time taken,
never the path. Inductor's cache lives in ~/.cache/iclscale/inductor (not /tmp) so that it survives.

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
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch.utils._pytree import tree_leaves

from iclscale.trainer import precompiled
from iclscale.trainer.cachedir import use_persistent_inductor_cache

use_persistent_inductor_cache()  # before anything asks inductor for its cache directory

COMPILE_PAYS_AFTER_S = 10.0
"""Estimated eager seconds (`eager_estimate_s`) above which "auto" compiles a pack's training step."""
EAGER_STEP_S = 5e-3
"""The estimate's fixed cost of one eager step of a pack: a vmapped step is 300–900 ATen ops (docs/speed.md),
each paying dispatch overhead whatever the pack size."""
EAGER_CONFIG_STEP_S = 5e-6
"""The estimate's least cost of one config in one eager step (seed 004's unit, 25 trained values: about 25 ms
per eager step at a pack of 4096 on one CPU thread). A proxy, not a measurement: what matters is that it is
fixed."""
EAGER_VALUE_STEP_S = 4e-8
"""The estimate's cost of one trained value (a parameter's element) of one config in one eager step, where it
exceeds `EAGER_CONFIG_STEP_S`: the one-layer Transformer of docs/speed.md's table (14,700 values) took about
0.6 ms per config and eager step at a pack of 256 (1,649 model-steps/s)."""
ENVIRONMENT = "ICLSCALE_COMPILE"
"""auto, on or off: what "auto" means in this process (the test suite sets off, so that how busy the
machine is cannot change which path a test takes; tests of the compiled step ask for it explicitly)."""
GRAPH_BREAKS = "ICLSCALE_GRAPH_BREAKS"
"""warn (the default) or error: what a step that is not one graph does (the test suite sets error)."""
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


def eager_estimate_s(steps: int, pack_size: int, values: int = 0) -> float:
    """The eager time "auto" ascribes to `steps` steps of a pack of `pack_size` configs of `values` trained values
    each (no clock is read)."""
    per_config = max(EAGER_CONFIG_STEP_S, values * EAGER_VALUE_STEP_S)
    return steps * (EAGER_STEP_S + pack_size * per_config)


def decide(mode: str, steps: int, pack_size: int, values: int = 0) -> bool:
    """Whether the training step of a pack is compiled: "on", "off", or for "auto" whether its estimated eager
    time exceeds `COMPILE_PAYS_AFTER_S`. A pure function of its arguments — never of load, timings or what is
    cached — so that the same config takes the same numeric path on every run. `pack_size`: the pack as
    planned, not a part of it (parts depend on the free memory); `values`: trained values per config."""
    mode = resolve_mode(mode)
    return mode == "on" or (mode == "auto" and eager_estimate_s(steps, pack_size, values) > COMPILE_PAYS_AFTER_S)


class StepRunner:
    """Calls a step function `steps` times, eagerly or compiled (see the module docstring). `key` names the
    step among processes (study, shape params, device): with it, compiled steps are saved and loaded;
    `external` holds the objects the step closes over that cannot be saved (its nn.Module), by name;
    `pack_size` (the planned pack's) and `values` (trained values per config) are what "auto" decides on
    (`decide`)."""

    def __init__(
        self,
        step: Callable,
        steps: int,
        mode: str = "auto",
        key: tuple | None = None,
        external: Mapping[str, Any] | None = None,
        pack_size: int = 1,
        values: int = 0,
    ):
        self.step, self.steps, self.mode = step, steps, resolve_mode(mode)
        self.decided = decide(self.mode, steps, pack_size, values)
        self.key, self.external = key, dict(external or {})
        self.calls = 0
        self._compiled_fn: Callable | None = None
        self._loaded = False
        self._tried = False  # compiling was tried (`settled` tries whatever "auto" decided)

    def __call__(self, *args):
        self.calls += 1
        if self._compiled_fn is not None:
            return self._compiled_fn(*args)
        if self.decided and id(self.step) not in _FAILED:
            try:
                compiled = compile_function(self.step, args, self.key, self.external)
                out = compiled(*args)
                self._compiled_fn, self._loaded = compiled, _signature(self.step, args, self.key) in _LOADED
                return out
            except Exception as error:  # no compiler, an unsupported op, a graph break: eager still works
                self._failed(error)
        return self.step(*args)

    def settled(self, args: tuple) -> Callable:
        """The function to call from now on, for a caller that records its calls (`iclscale.trainer.replay`):
        compiled for inputs like `args` unless the mode is "off" or compiling fails (then eager, with the usual
        warning)."""
        if self.mode != "off" and id(self.step) not in _FAILED:
            self._tried = True
            try:
                self._compiled_fn = compile_function(self.step, args, self.key, self.external)
                self._loaded = _signature(self.step, args, self.key) in _LOADED
            except Exception as error:
                self._failed(error)
        return self._compiled_fn or self.step

    def compiles(self, args: tuple, settling: bool = False) -> bool:
        """Whether the next call (`settled`, for `settling`) compiles the step for inputs like `args`, or loads it
        from disk: it is to be compiled and this process has not yet done so (a progress line says "compiling")."""
        wanted = self.mode != "off" if settling else self.decided
        fresh = self._compiled_fn is None and id(self.step) not in _FAILED
        return wanted and fresh and _signature(self.step, args, self.key) not in _COMPILED

    def _failed(self, error: Exception) -> None:
        _FAILED[id(self.step)] = failed("the training step", "training eagerly", error)

    @property
    def compiled(self) -> bool:
        return self._compiled_fn is not None

    @property
    def path(self) -> str:
        """How the steps ran: "compiled" (traced in this process), "loaded" (saved by an earlier one: the same
        compiled code), "eager", or "eager: graph break" / "eager: compile failed" when compiling was tried and
        refused."""
        if self._compiled_fn is not None:
            return "loaded" if self._loaded else "compiled"
        if id(self.step) in _FAILED and (self.decided or self._tried):
            return "eager: compile failed" if _FAILED[id(self.step)] is None else "eager: graph break"
        return "eager"

    @property
    def graphs(self) -> int:
        """Compiled graphs per step: 1 when compiled (whole, `fullgraph=True`), else 0."""
        return 1 if self._compiled_fn is not None else 0

    @property
    def breaks(self) -> list[str]:
        reason = _FAILED.get(id(self.step)) if self._compiled_fn is None and (self.decided or self._tried) else None
        return [reason] if reason else []


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

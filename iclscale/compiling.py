"""Whether and how the training step is compiled.

`torch.compile` fuses the step (random numbers, forward, backward, optimizer, divergence mask) into a
few loops: on one CPU thread at K = 4096 it ran the seed-004 unit about 4× faster than eager. But a
first compilation takes 10–60 s (a cached one, 1–3 s), so "auto" times a few eager steps and compiles
only when the remaining eager time would exceed `COMPILE_PAYS_AFTER_S`. Compiled and eager steps
agree within float tolerance (tests hold this); a compilation that fails falls back to eager, once,
with a warning. Inductor's cache lives in ~/.cache/iclscale/inductor (not /tmp) so that it survives.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

COMPILE_PAYS_AFTER_S = 10.0
ENVIRONMENT = "ICLSCALE_COMPILE"
"""auto, on or off: what "auto" means in this process (the test suite sets off, so that how busy the
machine is cannot change which path a test takes; tests of the compiled step ask for it explicitly)."""
TIMED_EAGER_STEPS = 3
MODES = ("auto", "on", "off")
INDUCTOR_OPTIONS = {"realize_cpu_opcount_threshold": 8}
"""Inductor inlines pointwise chains into one expression unless they exceed this many ops (50 on CPU by
default). The counter hash reuses each intermediate two or three times, so inlined chains grow
exponentially and code generation took minutes (nonlinear_icl's step: 77 s at the default, 20 s at 8)."""


def use_persistent_cache() -> None:
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(Path.home() / ".cache" / "iclscale" / "inductor"))


_COMPILED: dict[int, Callable] = {}
"""torch.compile'd versions of step functions, by id: one per process, reused by every pack."""
_FAILED: set[int] = set()


class StepRunner:
    """Calls a step function `steps` times, eagerly or compiled (see the module docstring)."""

    def __init__(self, step: Callable, steps: int, mode: str = "auto"):
        if mode == "auto":
            mode = os.environ.get(ENVIRONMENT, "auto")
        if mode not in MODES:
            raise ValueError(f"compile must be one of {MODES}, got {mode!r}")
        self.step, self.steps, self.mode = step, steps, mode
        self.calls, self.compiled = 0, False
        self._timing: tuple | float | None = None

    def __call__(self, *args):
        self.calls += 1
        if self.compiled:
            return self._compiled_step(*args)
        if self._should_compile():
            try:
                out = self._compiled_step(*args)
                self.compiled = True
                return out
            except Exception as error:  # no compiler, an unsupported op: eager still works
                _FAILED.add(id(self.step))
                print(
                    f"iclscale: compiling the training step failed, training eagerly ({error!r:.300})", file=sys.stderr
                )
        return self._timed_eager(*args)

    def _should_compile(self) -> bool:
        if self.mode == "off" or id(self.step) in _FAILED:
            return False
        if self.mode == "on" or id(self.step) in _COMPILED:
            return True
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

    def _compiled_step(self, *args):
        key = id(self.step)
        if key not in _COMPILED:
            use_persistent_cache()
            _COMPILED[key] = torch.compile(self.step, dynamic=False, options=INDUCTOR_OPTIONS)
        return _COMPILED[key](*args)


def _sync(out) -> None:
    """Wait for queued CUDA work, so that eager timings are real."""
    for leaf in torch.utils._pytree.tree_leaves(out):
        if isinstance(leaf, torch.Tensor) and leaf.is_cuda:
            torch.cuda.synchronize(leaf.device)
            return

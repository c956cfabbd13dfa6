"""Several training steps per launch on CUDA: k steps captured once into a CUDA graph and replayed.

A packed step of a tiny model is launch-bound on a GPU: its kernels take microseconds, and the host
spends as long issuing them. A CUDA graph (`torch.cuda.CUDAGraph`, NVIDIA's CUDA Programming Guide
§"CUDA Graphs") records the kernels of k consecutive steps once; a replay issues all of them with one
call. Graphs replay fixed addresses, so the state lives in static buffers: the captured body runs k
steps from the buffers and copies the new state back into them, and the step count t is a static
0-d tensor set before each replay. The step must be a pure function of its inputs with no host
synchronisation (iclscale's counter-based random numbers need no generator state, so one is).

Off by default (`ENVIRONMENT`; `train_pack(graph_steps=...)`): on an H100 (docs/speed.md) eager steps replayed
from graphs ran 2–7× faster than launched one by one, but the compiled step does not yet run on CUDA.
A capture that fails (an op that synchronises, an allocation the capture refuses) leaves the step as
it was, with one warning. On the CPU there are no graphs: `GraphedSteps(..., capture=False)` runs the
same body on the same static buffers directly, which is how the buffer handling is tested here.
torch.compile's `mode="reduce-overhead"` captures graphs too, but one per compiled call and with
copies of every input each call; capturing k calls of the already compiled step needs neither a
retrace of k unrolled steps nor those copies.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

import torch
from torch.utils._pytree import tree_flatten, tree_map

ENVIRONMENT = "ICLSCALE_GRAPH_STEPS"
"""Training steps per replayed CUDA graph; 0 or 1 (the default): no graphs."""
WARMUP_CALLS = 2
"""Calls before capture, on a side stream (as torch's docs require): lazy initialisation (cuBLAS
handles, a compiled step's first call) must not happen while capturing."""


def graph_steps(value: int | None = None) -> int:
    """Steps per graph from the argument, else the environment (0: none)."""
    if value is None:
        text = os.environ.get(ENVIRONMENT, "0").strip() or "0"
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{ENVIRONMENT} must be a whole number of steps, got {text!r}") from None
    if value < 0:
        raise ValueError(f"steps per CUDA graph must be 0 or more, got {value}")
    return value if value > 1 else 0


class GraphedSteps:
    """`steps` calls of `step(*state, *fixed, t + i)` per call, from static buffers.

    `step` maps (state..., fixed..., t) to a new state of the same structure; `state_size` says how many
    leading arguments are state. Each call takes the same arguments as `step` and returns the new state;
    the tensors returned are the static buffers, overwritten by the next call (pass them back, or copy
    what must be kept). The fixed inputs are those of the first call (the graph reads their addresses).
    `capture`: record a CUDA graph (CUDA only), else run the body directly.
    """

    def __init__(self, step: Callable, steps: int, state_size: int, capture: bool = True):
        self.step, self.steps, self.state_size, self.capture = step, steps, state_size, capture
        self.replay: Callable[[], None] | None = None
        self.state: tuple = ()
        self.t: torch.Tensor | None = None
        self.failed = False

    def __call__(self, *args):
        state, fixed, t = args[: self.state_size], args[self.state_size : -1], args[-1]
        if self.replay is None:
            self._prepare(state, fixed, t)
        else:
            self._load(state)
        self.t.copy_(t)  # device to device (or host scalar to host): no synchronisation
        self.replay()
        return self.state

    def _prepare(self, state: tuple, fixed: tuple, t: torch.Tensor) -> None:
        self.state = tree_map(lambda x: x.clone() if isinstance(x, torch.Tensor) else x, state)
        self.t = t.clone()

        def body() -> None:
            current = self.state
            for i in range(self.steps):
                current = self.step(*current, *fixed, self.t + i)
            _copy_into(self.state, current)

        if not self.capture:
            self.replay = body
            return
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(WARMUP_CALLS):
                self.step(*self.state, *fixed, self.t)  # pure: the buffers are not changed
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            body()
        self.replay = graph.replay

    def _load(self, state: tuple) -> None:
        """Copy a state the caller changed (a reset loss sum, say) into the buffers; the buffers themselves,
        passed back as they should be, are left alone."""
        for static, given in zip(_leaves(self.state), _leaves(state), strict=True):
            if given is not static:
                static.copy_(given)


def graphed(step: Callable, steps: int, state_size: int, device: torch.device) -> GraphedSteps | None:
    """A `GraphedSteps` for a step on `device` (captured at its first call), or None off CUDA."""
    if device.type != "cuda" or steps < 2:
        return None
    return GraphedSteps(step, steps, state_size, capture=True)


def call_or_fall_back(graph: GraphedSteps, step: Callable, args: Sequence) -> tuple[tuple, bool]:
    """`graph(*args)`, or on a failed capture `graph.steps` plain calls of `step` and a warning once.
    Returns the new state and whether the graph ran."""
    if not graph.failed:
        try:
            return graph(*args), True
        except Exception as error:  # an op that cannot be captured: plain launches still work
            graph.failed = True
            print(f"iclscale: capturing training steps in a CUDA graph failed, launching them one by one "
                  f"({error!r:.300})", file=sys.stderr)  # fmt: skip
    n = graph.state_size
    state, fixed, t = tuple(args[:n]), tuple(args[n:-1]), args[-1]
    for i in range(graph.steps):
        state = step(*state, *fixed, t + i)
    return state, False


def _leaves(tree) -> list[torch.Tensor]:
    return [leaf for leaf in tree_flatten(tree)[0] if isinstance(leaf, torch.Tensor)]


def _copy_into(static, new) -> None:
    for target, value in zip(_leaves(static), _leaves(new), strict=True):
        target.copy_(value)

"""Timing the peers and printing what they did, in one process and one run.

A peer is a name and a `prepare(model, pack_size, steps, record_every, device)` that returns a `Run`: a call
that trains `pack_size` fresh configs for `steps` steps and returns the mean training loss over configs in
every window of `record_every` steps (host values, so a call ends only when its device work has finished).

Timing: `prepare` (setup: JAX compiles there, iclscale resolves its configs) and the first call
(torch.compile compiles there) are printed apart; the rate is model-steps (steps of one config) per
second of the best of the next `repeats` calls, the peers taking turns so that a change in the machine's
load hits all of them. The process's CPU time over wall time of that call is printed too: about 1 means
one core was busy (more: several threads worked; less: the process waited for a core). On a shared
machine, model-steps per CPU-second of the least CPU-hungry call is the steadier measure of one thread.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Run = Callable[[], list[float]]
Prepare = Callable[[str, int, int, int, str], Run]


class Unavailable(Exception):
    """A peer that cannot run here (JAX not installed, no GPU backend); the message says why."""


@dataclass(frozen=True)
class Peer:
    name: str
    prepare: Prepare


@dataclass
class Timing:
    setup: float  # prepare(), seconds
    first: float  # the first call, compilation included
    best: float = math.inf  # the fastest of the timed calls
    cpu_per_wall: float = math.nan  # process CPU time / wall time of that call
    least_cpu: float = math.inf  # the least process CPU time of a timed call (all threads)

    def rate(self, model_steps: int) -> float:
        return model_steps / self.best


def window_means(per_step: np.ndarray, record_every: int) -> list[float]:
    """Mean of each window of `record_every` steps (the last may be shorter), as iclscale's train_loss."""
    return [float(np.mean(per_step[i : i + record_every])) for i in range(0, len(per_step), record_every)]


def _prepared(peers: Sequence[Peer], args: tuple) -> tuple[dict[str, Run], dict[str, str]]:
    runs, skipped = {}, {}
    for peer in peers:
        try:
            runs[peer.name] = peer.prepare(*args)
        except Unavailable as why:
            skipped[peer.name] = str(why)
    return runs, skipped


def time_peers(
    peers: Sequence[Peer], model: str, pack_size: int, steps: int, device: str, repeats: int
) -> tuple[dict[str, Timing], dict[str, str]]:
    """Setup, first call and best-of-`repeats` wall time of each peer; peers that cannot run, with the reason."""
    timings, skipped = {}, {}
    runs = {}
    for peer in peers:
        start = time.perf_counter()
        try:
            run = peer.prepare(model, pack_size, steps, steps, device)  # one record window: no recording costs
        except Unavailable as why:
            skipped[peer.name] = str(why)
            continue
        prepared = time.perf_counter()
        run()
        timings[peer.name] = Timing(prepared - start, time.perf_counter() - prepared)
        runs[peer.name] = run
    for _ in range(repeats):
        for name, run in runs.items():
            start, cpu_start = time.perf_counter(), time.process_time()
            run()
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            timing = timings[name]
            timing.least_cpu = min(timing.least_cpu, cpu)
            if wall < timing.best:
                timing.best, timing.cpu_per_wall = wall, cpu / wall
    return timings, skipped


def check_losses(
    peers: Sequence[Peer], model: str, pack_size: int, steps: int, window: int, device: str
) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Every peer's mean training loss per window of `window` steps, for a short training."""
    runs, skipped = _prepared(peers, (model, pack_size, steps, window, device))
    return {name: run() for name, run in runs.items()}, skipped


def speed_table(title: str, pack_size: int, steps: int, timings: dict[str, Timing], skipped: dict[str, str]) -> str:
    """One row per peer: setup, first call, best call, model-steps/s and the ratio to the first peer;
    then each iclscale row's ratio to every peer that is not iclscale."""
    model_steps = pack_size * steps
    first_name = next(iter(timings), "-")
    header = f"{'peer':<18} {'setup s':>8} {'first s':>8} {'best s':>8} {'CPU/wall':>8} {'model-steps/s':>14}"
    lines = [title, f"{header} {'vs ' + first_name:>16} {'per CPU-s':>12}"]
    for name, t in timings.items():
        lines.append(
            f"{name:<18} {t.setup:>8.2f} {t.first:>8.2f} {t.best:>8.2f} {t.cpu_per_wall:>8.2f} "
            f"{t.rate(model_steps):>14,.0f} {timings[first_name].best / t.best:>15.2f}× "
            f"{model_steps / t.least_cpu:>12,.0f}"
        )
    lines += [f"{name:<18} skipped: {why}" for name, why in skipped.items()]
    peers = {name: t for name, t in timings.items() if not name.startswith("iclscale")}
    for ours, mine in timings.items():
        if ours.startswith("iclscale") and peers:
            lines.append(f"{ours}: " + ", ".join(f"{t.best / mine.best:.2f}× {name}" for name, t in peers.items()))
    return "\n".join(lines)


def check_table(title: str, losses: dict[str, list[float]], skipped: dict[str, str]) -> str:
    """Mean training loss in the first and the last window of a short training, per peer."""
    lines = [title, f"{'peer':<18} {'loss start':>12} {'loss end':>12} {'end/start':>10}"]
    for name, values in losses.items():
        lines.append(f"{name:<18} {values[0]:>12.4g} {values[-1]:>12.4g} {values[-1] / values[0]:>10.3g}")
    lines += [f"{name:<18} skipped: {why}" for name, why in skipped.items()]
    return "\n".join(lines)

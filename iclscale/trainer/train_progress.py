"""`iclscale train`'s sign of life: the step, training loss, rate and ETA on one status line
(iclscale.trainer.statusline: redrawn on a terminal, a heartbeat at least every 30 s in a log), and an estimate
of the wall time before a long training starts.

The estimate comes from the rate the same study and shape params trained at on this machine before
(memoised in ~/.cache/iclscale/train_rates.json after every `iclscale train`); without one, from the rate
of the first steps, said as soon as it is known. Rates count steps after the step compiled, over the time
since (compiling happens once per shape and is cached, so it says nothing about the steps to come); while
it compiles the line says so.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

from iclscale.trainer.cachedir import ROOT as CACHE_ROOT
from iclscale.trainer.statusline import StatusLine, duration

COMPILING = "compiling (once per shape; cached)"

RATES_FILE = CACHE_ROOT / "train_rates.json"
LONG_S = 60.0  # trainings expected to take longer are announced
MEASURE_S = 5.0  # the first records' rate is trusted after this long


def rate_key(study: str, shape: dict, device: str) -> str:
    return json.dumps([study, sorted(shape.items()), device], default=str)


def memoised_rate(key: str, path: Path = RATES_FILE) -> float | None:
    """Steps per second measured for this key on this machine, or None."""
    try:
        rate = json.loads(path.read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return float(rate) if isinstance(rate, int | float) and rate > 0 else None


def memoise_rate(key: str, rate: float, path: Path = RATES_FILE) -> None:
    """Remember a measured rate (best effort: a read-only home only loses the estimate)."""
    if not (rate > 0 and math.isfinite(rate)):
        return
    try:
        rates = json.loads(path.read_text()) if path.exists() else {}
        rates = rates if isinstance(rates, dict) else {}
        rates[key] = rate
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(rates))
        temporary.replace(path)
    except (OSError, ValueError):
        pass


class TrainProgress:
    """Feeds one training's records to a status line; says early when the training will be long."""

    def __init__(
        self, label: str, steps: int, stream=None, enabled: bool = True, rate: float | None = None, clock=time.monotonic
    ):
        self.label = label
        self.steps = steps
        self.stream = stream or sys.stderr
        self.clock = clock
        self.start = clock()
        self.step = 0
        self.loss = math.nan
        self.announced = False
        self.compiling = self.compiled = False
        self.since: tuple[float, int] | None = None  # (time, step) where the measured stretch began: after compiling
        self.at = self.start  # the time of the last report (what `step` was counted at)
        # a short training in a log prints no status line: its result (or its one-line error) is the output
        self.status = StatusLine(self.line, self.stream, enabled=enabled, short_run_silent=True)
        if enabled and rate and steps / rate > LONG_S:
            self._announce(steps / rate, "from the rate this study and shape trained at here before")

    def __call__(self, step: int, steps: int, result, compiling: bool = False) -> None:
        now = self.at = self.clock()
        self.step, self.steps = step, steps
        losses = result.probes.get("train_loss") if result is not None else None
        if losses:
            self.loss = float(losses[-1][0])
        if compiling or self.since is None or self.compiling:  # the first report, or the step has just compiled
            self.since = (now, step)
        self.compiling, self.compiled = compiling, self.compiled or compiling
        rate, measured_s = self.rate(), now - self.since[0]
        if not self.announced and rate and measured_s >= MEASURE_S:
            total = now - self.start + (steps - step) / rate
            if total > LONG_S:
                counted = step - self.since[1]
                basis = f"from {counted} steps after compiling" if self.compiled else f"from its first {counted} steps"
                self._announce(total, basis)
        self.status.update(milestone=step == steps)

    def rate(self) -> float | None:
        """Steps per second from the step's compilation (the first report where it did not compile) to the last
        report, or None before two such reports."""
        if self.since is None or self.compiling:
            return None
        seconds, steps = self.at - self.since[0], self.step - self.since[1]
        return steps / seconds if seconds > 0 and steps > 0 else None

    def line(self) -> str:
        elapsed = self.clock() - self.start
        rate = self.rate()
        left = self.steps - self.step
        eta = duration(left / rate) if rate and left > 0 else ("0:00" if left <= 0 else "?")
        loss = f"loss {self.loss:.4g}" if math.isfinite(self.loss) else "loss —"
        speed = COMPILING if self.compiling else f"{rate or 0:.3g} steps/s"
        return (
            f"{self.label}: step {self.step}/{self.steps} · {loss} · {speed} · elapsed {duration(elapsed)} · ETA {eta}"
        )

    def close(self) -> None:
        self.status.close()

    def _announce(self, seconds: float, basis: str) -> None:
        self.announced = True
        text = (
            f"{self.label}: {self.steps} steps will take about {duration(seconds)} ({basis}); "
            "fewer steps=N trains a quicker look"
        )
        with self.status.lock:
            self.stream.write(("\r\033[K" if self.status.tty else "") + text + "\n")
            self.stream.flush()
            self.status.printed += 1

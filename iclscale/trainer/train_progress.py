"""`iclscale train`'s sign of life: the step, training loss, rate and ETA on one status line
(iclscale.trainer.statusline: redrawn on a terminal, a heartbeat at least every 30 s in a log), and an estimate
of the wall time before a long training starts.

The estimate comes from the rate the same study and shape params trained at on this machine before
(memoised in ~/.cache/iclscale/train_rates.json after every `iclscale train`); without one, from the rate
of the first records, said as soon as it is known.
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

    def __init__(self, label: str, steps: int, stream=None, enabled: bool = True, rate: float | None = None):
        self.label = label
        self.steps = steps
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.step = 0
        self.loss = math.nan
        self.announced = False
        # a short training in a log prints no status line: its result (or its one-line error) is the output
        self.status = StatusLine(self.line, self.stream, enabled=enabled, short_run_silent=True)
        if enabled and rate and steps / rate > LONG_S:
            self._announce(steps / rate, "from the rate this study and shape trained at here before")

    def __call__(self, step: int, steps: int, result) -> None:
        self.step, self.steps = step, steps
        losses = result.probes.get("train_loss") if result is not None else None
        if losses:
            self.loss = float(losses[-1][0])
        elapsed = time.monotonic() - self.start
        if not self.announced and step and elapsed >= MEASURE_S and elapsed * steps / step > LONG_S:
            self._announce(elapsed * steps / step, f"from its first {step} steps")
        self.status.update(milestone=step == steps)

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        rate = self.step / elapsed if elapsed > 0 else 0.0
        left = self.steps - self.step
        eta = duration(left / rate) if rate > 0 and left > 0 else ("0:00" if left <= 0 else "?")
        loss = f"loss {self.loss:.4g}" if math.isfinite(self.loss) else "loss —"
        return (
            f"{self.label}: step {self.step}/{self.steps} · {loss} · {rate:.3g} steps/s · "
            f"elapsed {duration(elapsed)} · ETA {eta}"
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

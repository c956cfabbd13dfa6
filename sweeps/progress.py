"""One overall progress line for a sweep, on every executor:

    progress: 12/36 configs · 2 packs running · 45.3k model-steps/s · ETA 0:32

On a terminal the line is redrawn in place (on stderr, like a progress bar); otherwise (a log
file, a pipe, a CI job) a new line is printed when a pack finishes, at most every INTERVAL_S
seconds, and once at the end, so a long sweep's log stays short.
"""

from __future__ import annotations

import sys
import time

INTERVAL_S = 15.0


class Progress:
    def __init__(self, plan, enabled: bool = True, stream=None):
        self.sizes = [len(p.configs) for p in plan.packs]
        self.steps = [p.steps for p in plan.packs]
        self.total = sum(self.sizes)
        self.work = sum(k * t for k, t in zip(self.sizes, self.steps, strict=True))
        self.step_of = [0] * len(plan.packs)
        self.running: set[int] = set()
        self.done = 0
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.tty = self.enabled and self.stream.isatty()
        self.start = time.monotonic()
        self.last_print = 0.0

    def started(self, pack: int) -> None:
        self.running.add(pack)
        self.show()

    def advanced(self, pack: int, step: int) -> None:
        self.running.add(pack)
        self.step_of[pack] = max(self.step_of[pack], step)
        self.show()

    def finished(self, pack: int, failed: bool = False) -> None:
        self.running.discard(pack)
        self.step_of[pack] = self.steps[pack]
        self.done += self.sizes[pack]
        self.show(milestone=True)

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        trained = sum(k * s for k, s in zip(self.sizes, self.step_of, strict=True))
        rate = trained / elapsed
        left = self.work - trained
        eta = _duration(left / rate) if rate > 0 and left > 0 else ("0:00" if left <= 0 else "?")
        running = len(self.running)
        return (
            f"progress: {self.done}/{self.total} configs · {running} pack{'s' if running != 1 else ''} running · "
            f"{_si(rate)} model-steps/s · ETA {eta}"
        )

    def show(self, milestone: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if now - self.last_print >= 0.2 or milestone:
                self.stream.write("\r\033[K" + self.line())
                self.stream.flush()
                self.last_print = now
        elif milestone and now - self.last_print >= INTERVAL_S:
            print(self.line(), file=self.stream, flush=True)
            self.last_print = now

    def close(self) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r\033[K" + self.line() + "\n")
        else:
            print(self.line(), file=self.stream)
        self.stream.flush()


def _si(x: float) -> str:
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= limit:
            return f"{x / limit:.1f}{suffix}"
    return f"{x:.0f}"


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"

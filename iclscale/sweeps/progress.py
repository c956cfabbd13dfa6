"""One overall progress line for a sweep, on every executor:

    progress: 12/36 configs · 2 packs running · 45.3k model-steps/s · elapsed 0:41 · ETA 0:32

On a terminal the line is redrawn in place (on stderr, like a progress bar); otherwise (a log file, a
pipe, a CI job) a line ending in the wall-clock time is printed when a pack finishes (at most every
MILESTONE_S seconds), as a heartbeat whenever HEARTBEAT_S seconds passed without one, and once at the
end (iclscale.trainer.statusline), so a long sweep's log shows it is alive and stays short. A threshold search's
rounds add the search's overall totals (`prefix`).
"""

from __future__ import annotations

import sys
import time

from iclscale.trainer.statusline import HEARTBEAT_S, StatusLine, duration, si

MILESTONE_S = 15.0


class Progress:
    def __init__(self, plan, enabled: bool = True, stream=None, prefix: str = "", every: float = HEARTBEAT_S):
        self.sizes = [len(p.configs) for p in plan.packs]
        self.steps = [p.steps for p in plan.packs]
        self.total = sum(self.sizes)
        self.work = sum(k * t for k, t in zip(self.sizes, self.steps, strict=True))
        self.step_of = [0] * len(plan.packs)
        self.running: set[int] = set()
        self.done = 0
        self.prefix = prefix
        self.start = time.monotonic()
        self.enabled = enabled
        self.status = StatusLine(self.line, stream or sys.stderr, every=every, enabled=enabled)
        self.milestone_s = min(MILESTONE_S, every)

    @property
    def tty(self) -> bool:
        return self.status.tty

    def started(self, pack: int) -> None:
        self.running.add(pack)
        self.status.update()

    def advanced(self, pack: int, step: int) -> None:
        self.running.add(pack)
        self.step_of[pack] = max(self.step_of[pack], step)
        self.status.update()

    def finished(self, pack: int, failed: bool = False) -> None:
        self.running.discard(pack)
        self.step_of[pack] = self.steps[pack]
        self.done += self.sizes[pack]
        if self.status.tty or time.monotonic() - self.status.last_print >= self.milestone_s:
            self.status.update(milestone=True)

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        trained = sum(k * s for k, s in zip(self.sizes, self.step_of, strict=True))
        rate = trained / elapsed
        left = self.work - trained
        eta = duration(left / rate) if rate > 0 and left > 0 else ("0:00" if left <= 0 else "?")
        running = len(self.running)
        return (
            f"{self.prefix}progress: {self.done}/{self.total} configs · {running} pack{'s' if running != 1 else ''} "
            f"running · {si(rate)} model-steps/s · elapsed {duration(elapsed)} · ETA {eta}"
        )

    def close(self) -> None:
        self.status.close()

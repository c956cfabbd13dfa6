"""One overall progress line for a sweep, on every executor:

    progress: 12/36 configs · 2 packs running · 45.3k model-steps/s · elapsed 0:41 · ETA 0:32

On a terminal the line is redrawn in place (on stderr, like a progress bar); otherwise (a log file, a
pipe, a CI job) a line ending in the wall-clock time is printed when a pack finishes (at most every
MILESTONE_S seconds), as a heartbeat whenever HEARTBEAT_S seconds passed without one, and once at the
end (iclscale.trainer.statusline), so a long sweep's log shows it is alive and stays short. A threshold search's
rounds add the search's overall totals (`prefix`).

Running packs report their steps as they train (iclscale.trainer.training's progress hook, forwarded by every
executor), so the line moves before any pack finishes. While a pack's step compiles the line says so
(`COMPILING`); the rate and the ETA count only model-steps trained after compiling, over the time some pack
spent training after compiling: compilation happens once per shape and process and is cached, so its time says
nothing about the steps left. A sweep of measurement-only studies (no training steps) has its ETA from the
configs done.
"""

from __future__ import annotations

import sys
import time

from iclscale.trainer.statusline import HEARTBEAT_S, StatusLine, duration, si

MILESTONE_S = 15.0
COMPILING = "compiling (once per shape; cached)"


class Progress:
    def __init__(
        self,
        plan,
        enabled: bool = True,
        stream=None,
        prefix: str = "",
        every: float = HEARTBEAT_S,
        clock=time.monotonic,
    ):
        packs = len(plan.packs)
        self.sizes = [len(p.configs) for p in plan.packs]
        self.steps = [p.steps for p in plan.packs]
        self.total = sum(self.sizes)
        self.work = sum(k * t for k, t in zip(self.sizes, self.steps, strict=True))
        self.step_of = [0] * packs
        self.running: set[int] = set()
        self.done = 0
        self.prefix = prefix
        self.clock = clock
        self.start = clock()
        # One rate for the whole sweep, not one per pack: a sequential run has no running pack between packs and
        # parallel packs add up, so model-steps trained after compiling (by any pack, finished ones too) are
        # counted over the seconds during which at least one pack was training after compiling.
        self.base: list[int | None] = [None] * packs  # the step a pack's training after compiling began at
        self.compiling = [False] * packs
        self.measured = 0  # model-steps after compiling, of the stretches closed so far
        self.trained_s = 0.0  # seconds with a pack training after compiling, up to the last event
        self.event = self.start
        self.enabled = enabled
        self.status = StatusLine(self.line, stream or sys.stderr, every=every, enabled=enabled)
        self.milestone_s = min(MILESTONE_S, every)

    @property
    def tty(self) -> bool:
        return self.status.tty

    def started(self, pack: int) -> None:
        self._count_time()
        self.running.add(pack)
        self.status.update()

    def advanced(self, pack: int, step: int, compiling: bool = False) -> None:
        """A running pack trained `step` of its steps; `compiling`: its step starts compiling (False once a report
        comes after it has)."""
        self._count_time()
        self.running.add(pack)
        self.step_of[pack] = max(self.step_of[pack], step)
        if compiling or step >= self.steps[pack]:  # compiling, or trained (what follows, writing it, is not training)
            self._close(pack)
        elif self.base[pack] is None:  # the pack's first report, or the first after compiling
            self.base[pack] = self.step_of[pack]
        self.compiling[pack] = compiling
        self.status.update()

    def finished(self, pack: int, failed: bool = False) -> None:
        self._count_time()
        self.running.discard(pack)
        if not failed:  # the steps since its last report were trained (a failed pack's were not: not measured)
            self.step_of[pack] = self.steps[pack]
        self._close(pack)
        self.step_of[pack] = self.steps[pack]  # nothing left to do either way
        self.compiling[pack] = False
        self.done += self.sizes[pack]
        if self.status.tty or self.clock() - self.status.last_print >= self.milestone_s:
            self.status.update(milestone=True)

    def _count_time(self) -> None:
        """Add the time since the last event to the training time if a pack was training after compiling then."""
        now = self.clock()
        if any(self.base[p] is not None and not self.compiling[p] for p in self.running):
            self.trained_s += now - self.event
        self.event = now

    def _close(self, pack: int) -> None:
        """End a pack's stretch of training after compiling (it compiles again, or it finished)."""
        if self.base[pack] is not None:
            self.measured += self.sizes[pack] * (self.step_of[pack] - self.base[pack])
            self.base[pack] = None

    def rate(self) -> float:
        """Model-steps per second after compiling (0 before any was measured)."""
        open_ = zip(self.sizes, self.step_of, self.base, strict=True)
        measured = self.measured + sum(k * (s - b) for k, s, b in open_ if b is not None)
        return measured / self.trained_s if self.trained_s > 0 and measured > 0 else 0.0

    def line(self) -> str:
        elapsed = max(self.clock() - self.start, 1e-9)
        running = len(self.running)
        fields = [f"{self.done}/{self.total} configs", f"{running} pack{'s' if running != 1 else ''} running"]
        compiling = any(self.compiling)
        if compiling:
            fields.append(COMPILING)
        if self.work:
            trained = sum(k * s for k, s in zip(self.sizes, self.step_of, strict=True))
            rate, left = self.rate(), self.work - trained
            if rate or not compiling:
                fields.append(f"{si(rate)} model-steps/s")
        else:  # measurement only: configs are the work
            rate, left = self.done / elapsed, self.total - self.done
        eta = duration(left / rate) if rate > 0 and left > 0 else ("0:00" if left <= 0 else "?")
        fields += [f"elapsed {duration(elapsed)}", f"ETA {eta}"]
        return f"{self.prefix}progress: " + " · ".join(fields)

    def close(self) -> None:
        self.status.close()

"""A long run's sign of life: one status line, redrawn in place on a terminal, or a heartbeat otherwise.

On a terminal the line is rewritten on stderr (like a progress bar), at most every REDRAW_S seconds and
once a second from a background thread so that the elapsed time and ETA move between events. Otherwise (a
log file, a pipe, a CI job, a batch scheduler) a line ending in the wall-clock time is printed when the caller marks a
milestone (at most every `every` seconds) and by the background thread whenever `every` seconds have
passed without a line, so a log shows at least one line every `every` seconds while the run is alive,
and stays short.

Hand-written rather than tqdm: the project's output is one line with its own fields, the same under Ray
Tune's callbacks, the inline executor and `iclscale train`, and a log needs wall-clock stamps, not bars.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

HEARTBEAT_S = 30.0  # the longest a log goes without a line while the run is alive
REDRAW_S = 0.2  # the shortest interval between redraws on a terminal


class StatusLine:
    def __init__(
        self,
        text: Callable[[], str],
        stream=None,
        every: float = HEARTBEAT_S,
        enabled: bool = True,
        short_run_silent: bool = False,
    ):
        """`short_run_silent`: in a log, a run that ended before its first heartbeat prints no last line."""
        self.text = text
        self.short_run_silent = short_run_silent
        self.printed = 0
        self.stream = stream or sys.stderr
        self.every = every
        self.enabled = enabled
        self.tty = enabled and _isatty(self.stream)
        self.last_print = time.monotonic()  # the first heartbeat comes `every` seconds after the start
        self.lock = threading.Lock()
        self.closed = threading.Event()
        self.thread = None
        if enabled:
            self.thread = threading.Thread(target=self._beat, name="status-line", daemon=True)
            self.thread.start()

    def __getstate__(self) -> dict:
        """A copy (Ray Tune pickles its callbacks with its experiment state) keeps the text, not the lock, the
        thread or the stream; it is closed, so it never prints."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("lock", "closed", "thread", "stream")}
        return {**state, "enabled": False}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, lock=threading.Lock(), closed=threading.Event(), thread=None, stream=sys.stderr)
        self.closed.set()

    def update(self, milestone: bool = False) -> None:
        """The state changed: redraw on a terminal; in a log, print a milestone at most every `every` s."""
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if milestone or now - self.last_print >= REDRAW_S:
                self._write(now)
        elif milestone and now - self.last_print >= self.every:
            self._write(now)

    def close(self, final: str | None = None) -> None:
        """Stop the heartbeat and print the last line (`final`, or the current text)."""
        if not self.enabled or self.closed.is_set():
            return
        self.closed.set()
        if self.thread is not None:
            self.thread.join(timeout=2)
        with self.lock:
            line = final if final is not None else self.text()
            if self.tty:
                self.stream.write("\r\033[K" + line + "\n")
            elif self.printed or not self.short_run_silent:
                self.stream.write(f"{line} · {stamp()}\n")
            self.stream.flush()

    def _beat(self) -> None:
        interval = 1.0 if self.tty else min(self.every, 5.0)
        while not self.closed.wait(interval):
            if self.tty or time.monotonic() - self.last_print >= self.every:
                self._write(time.monotonic())

    def _write(self, now: float) -> None:
        with self.lock:
            if self.closed.is_set():
                return
            line = self.text()
            if self.tty:
                self.stream.write("\r\033[K" + line)
            else:
                self.stream.write(f"{line} · {stamp()}\n")
            self.stream.flush()
            self.last_print = now
            self.printed += 1


def stamp() -> str:
    """Wall-clock time for a log line (UTC, as servers and schedulers log)."""
    return time.strftime("%H:%M:%SZ", time.gmtime())


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def duration(seconds: float) -> str:
    """H:MM:SS or M:SS."""
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def si(x: float) -> str:
    """A rate with a k/M/G suffix."""
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= limit:
            return f"{x / limit:.1f}{suffix}"
    return f"{x:.0f}"

"""Helpers for tests that start real Ray instances: a private temp dir, and cleanup by it."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path


def private_ray_tmpdir() -> str:
    """A short private RAY_TMPDIR (Ray's socket paths must stay under ~100 characters)."""
    return tempfile.mkdtemp(prefix="icl-ray-", dir="/tmp")


def pids_using(path: str) -> list[int]:
    """Processes whose command line mentions `path` (every Ray process of an instance started
    with RAY_TMPDIR=path names its session directory)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if path in cmdline:
            found.append(int(entry.name))
    return found


def kill_ray_processes(path: str, timeout: float = 10.0) -> None:
    """Stop the Ray processes of the instance that used `path`, by pid, then remove it."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids_using(path):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        while pids_using(path) and time.monotonic() < deadline:
            time.sleep(0.2)
    shutil.rmtree(path, ignore_errors=True)


def ray_env(tmpdir: str) -> dict[str, str]:
    return {**os.environ, "RAY_TMPDIR": tmpdir, "PYTHONUNBUFFERED": "1"}

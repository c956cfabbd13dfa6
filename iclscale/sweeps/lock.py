"""One writer per results directory: `DIR/.writer.lock`, held for the whole of a `sweep run`.

A second run into the same directory refuses at once (exit 2), naming the run that holds it
(pid, host, command, since when), instead of training the same configs again. The lock is an
advisory `fcntl.flock` on the file, written by hand rather than with the `filelock` package
because the refusal must say who holds it: the holder writes that into the locked file itself,
and the kernel drops the lock when the holder's process ends, even by kill -9 (no stale lock).

Object-store locations (s3://…) have no locks; there two concurrent runs may train the same
configs, and the next run's compaction (iclscale.sweeps.compact) removes the duplicates.
"""

from __future__ import annotations

import datetime
import fcntl
import os
import socket
import sys
from contextlib import contextmanager

from iclscale.errors import UserError
from iclscale.sweeps.store import Location

LOCK_FILE = ".writer.lock"


@contextmanager
def writer_lock(location: Location):
    """Hold the directory's writer lock (a no-op on object stores); UserError if another run holds it."""
    if not location.local:
        yield
        return
    path = location.path(LOCK_FILE)
    try:
        os.makedirs(location.root, exist_ok=True)
        handle = open(path, "a+")
    except OSError as error:
        raise UserError(f"cannot write to {location.root}: {error.strerror}") from None
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise UserError(
                f"{location.root} is being written by another sweep run ({holder}); wait for it to finish "
                "or choose another --out"
            ) from None
        handle.seek(0)
        handle.truncate()
        since = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))[:200]
        handle.write(f"pid {os.getpid()} on {socket.gethostname()} since {since}: {command}")
        handle.flush()
        yield
    finally:
        handle.close()  # releases the lock

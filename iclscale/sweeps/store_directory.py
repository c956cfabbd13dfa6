"""A results directory given on the command line (`--out`), checked before anything is written: missing, empty or
this sweep's store, and writable.
"""

from __future__ import annotations

import errno

import pyarrow as pa
import pyarrow.fs as pafs

from iclscale.errors import UserError, shorten
from iclscale.sweeps.store import FROZEN_SWEEP, Location, counted, first_line
from iclscale.sweeps.store_fragments import check_folders
from iclscale.sweeps.store_frozen import read_frozen_sweep


def results_location(out: str, flag: str = "--out") -> Location:
    """The Location of a results directory given on the command line; an empty value is refused (it would
    otherwise mean the current directory, or nothing)."""
    if not str(out).strip():
        raise UserError(f"{flag}: an empty value; give a results directory (a new or empty one, or this sweep's)")
    return Location(out)


LEFTOVERS = (".writer.lock",)  # what a run stopped before it froze its sweep leaves (with temp files)


def check_results_directory(location: Location, name: str, study: str, flag: str = "--out") -> None:
    """A results directory is missing, empty (but for what a run stopped before its first write leaves), or
    holds an iclscale store of the same sweep (its frozen sweep.yaml names this sweep and study); anything
    else (a file, an unrelated folder, another sweep's store) is refused before anything is written, so that
    a mistyped --out never scatters runs/, curves/ and a lock into a folder of other things."""
    check_writable_directory(location, flag)
    if not location.exists():
        return
    check_folders(location)
    frozen = read_frozen_sweep(location)
    if frozen is None:
        others = _entries(location, flag)
        if others:
            raise UserError(
                f"{flag} {location.uri}: not empty ({counted(len(others), 'entry', 'entries')}, e.g. "
                f"{shorten(others[0], 40)}) and not a results directory (no {FROZEN_SWEEP}); give a new or empty "
                "directory, or this sweep's results"
            )
        return
    if (frozen.get("name"), frozen.get("study")) != (name, study):
        raise UserError(
            f"{flag} {location.uri}: holds the results of sweep {shorten(frozen.get('name'), 60)} (study "
            f"{shorten(frozen.get('study'), 40)}), not {name} ({study}); choose another {flag}"
        )


def _entries(location: Location, flag: str) -> list[str]:
    """The names in a directory other than a stopped run's leftovers (the lock, temp files)."""
    try:
        infos = location.fs.get_file_info(pafs.FileSelector(location.path(), allow_not_found=True))
    except (OSError, pa.ArrowException) as error:
        raise UserError(f"{flag} {location.uri}: cannot be listed ({first_line(error)})") from None
    names = sorted(info.base_name for info in infos)
    return [n for n in names if n not in LEFTOVERS and not (n.startswith(".") and n.endswith(".tmp"))]


def check_writable_directory(location, flag: str = "--out") -> None:
    """A local results directory is a directory (or can be made one) that this user can write: a file,
    something below a file, /proc, /dev/null or a read-only mount is refused before anything runs."""
    if not location.local:
        return
    import os

    root = location.root
    if os.path.exists(root) and not os.path.isdir(root):
        raise UserError(f"{flag} {root}: a file, not a directory; choose another {flag}")
    existing = root
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise UserError(f"{flag} {root}: {existing} is a file, not a directory; choose another {flag}")
    reason = _unwritable(existing)
    if reason:
        raise UserError(f"{flag} {root}: {existing} cannot be written ({reason}); choose another {flag}")


def _unwritable(path: str) -> str | None:
    import os

    if os.path.realpath(path).startswith(("/proc", "/sys")):
        return "a kernel filesystem"
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return os.strerror(errno.EROFS)
    except OSError as error:
        return error.strerror or type(error).__name__
    return None if os.access(path, os.W_OK | os.X_OK) else os.strerror(errno.EACCES)

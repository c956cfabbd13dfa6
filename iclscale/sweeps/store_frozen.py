"""A store's frozen sweep (DIR/sweep.yaml), and the mark it carries: whether the store is checksummed.

Checksums cannot be switched off. A store is *checksummed* once iclscale has written it with digests:
its frozen sweep.yaml says `checksums: sha256` (written by every `sweep run` and `train --out`), or
`digests/` holds a digest, or it has runs but no sweep.yaml (every store iclscale wrote has one). In a
checksummed store a fragment without its digest is damaged like one whose digest does not match:
deleting `digests/<fragment>` or `digests/` makes the fragment quarantined and retrained, never
trusted. Each fragment also says so in its own footer (key-value metadata `iclscale.digest`), so one
without its digest is damaged even in a store whose marks were all removed. A digest is only ever
written for bytes the tool has just serialised (`Location.write_table`), never computed afresh for a
file found on disk, with one exception:

A store written before checksums existed is told apart by its sweep.yaml without a `checksums:` line,
no `digests/` folder and fragments without `iclscale.digest` in their footers. It still reads: its
fragments are checked by their footers, and the next `sweep run` recomputes each row's run_id from
its params (a changed bit shows there), gives the matching fragments their digests (moving the others
aside) and writes `checksums: sha256` into sweep.yaml, after which the store is checksummed like any
other. (A changed value in such a fragment cannot be told from the one written: nothing recorded it.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import yaml

from iclscale.errors import UserError
from iclscale.sweeps.store import CHECKSUM_KIND, CHECKSUMS, CURVES, DIGESTS, FROZEN_SWEEP, RUNS, Location, first_line


def write_frozen_sweep(location: Location, resolved: Mapping[str, Any]) -> None:
    """The resolved sweep with the mark of a checksummed store (written after `compact` has given a store from
    before checksums its digests, or by a run's first write into a new store)."""
    frozen = {**resolved, CHECKSUMS: CHECKSUM_KIND}
    location.write_bytes(FROZEN_SWEEP, yaml.safe_dump(frozen, sort_keys=False).encode())
    _checksummed.clear()


def read_frozen_sweep(location: Location) -> dict[str, Any] | None:
    """The frozen sweep.yaml as a mapping, None when there is none; UserError when it is not one."""
    if not location.exists(FROZEN_SWEEP):
        return None
    from iclscale.sweeps.yamlsafe import load_yaml

    where = f"{location.path(FROZEN_SWEEP)} (the frozen sweep of a results directory)"
    try:
        with location.fs.open_input_stream(location.path(FROZEN_SWEEP)) as stream:
            data = stream.read(2_000_001)
    except (OSError, pa.ArrowException) as error:
        raise UserError(f"{where}: cannot be read ({first_line(error)})") from None
    frozen, _ = load_yaml(data, where)
    if not isinstance(frozen, dict) or not isinstance(frozen.get("study"), str):
        raise UserError(f"{where}: not a frozen sweep (no study); move it away or choose another --out")
    return frozen


def is_checksummed(location: Location) -> bool:
    """Whether every fragment of this store must have its digest (see the module docstring): False only
    for a store written before checksums (sweep.yaml without `checksums:`, no digests)."""
    key = (location.uri, *(_path_stamp(location, relative) for relative in (FROZEN_SWEEP, *_DIGEST_FOLDERS)))
    if key not in _checksummed:
        _checksummed[key] = _find_checksummed(location)
    return _checksummed[key]


_DIGEST_FOLDERS = (f"{DIGESTS}/{RUNS}", f"{DIGESTS}/{CURVES}")
_checksummed: dict[tuple, bool] = {}


def _find_checksummed(location: Location) -> bool:
    if any(location.list(folder, ".sha256") for folder in _DIGEST_FOLDERS):
        return True
    try:
        frozen = read_frozen_sweep(location)
    except UserError:  # an unreadable sweep.yaml cannot vouch for a store written before checksums
        return True
    return frozen is None or frozen.get(CHECKSUMS) is not None


def _path_stamp(location: Location, relative: str) -> tuple:
    info = location.fs.get_file_info(location.path(relative))
    return (info.type, info.size, info.mtime_ns)

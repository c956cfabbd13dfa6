"""The result store: a Parquet dataset in a sweep's output directory (a local path or a URI).

Layout:

    DIR/sweep.yaml                 the resolved sweep, frozen (rewritten when the sweep grows)
    DIR/runs/<fragment>.parquet    one row per (config, eval point)
    DIR/curves/<fragment>.parquet  long format: run_id, step, metric, value, eval params

One fragment per finished pack, named after the pack's content (`pack-<id>`, or `failed-<id>`
for a pack whose trial failed after its retries). A fragment is written curves first, runs last,
each atomically (a temp file renamed into place; object stores put whole objects), so the runs
file is the commit mark: a reader takes curves only from fragments whose runs file exists, and
a crash at any moment leaves nothing half-visible. Re-running a pack rewrites the same names,
so a retried trial cannot duplicate rows.

This module is torch-free: the analysis package reads results through `read_store`.
"""

from __future__ import annotations

import datetime
import json
import os
import socket
import subprocess
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import yaml

from usererror import UserError  # not iclscale.errors: analysis reads the store without importing the trainer

OK, DIVERGED, FAILED = "ok", "diverged", "failed"
RUNS, CURVES, FROZEN_SWEEP = "runs", "curves", "sweep.yaml"
PROVENANCE_COLUMNS = (
    "pack_id",
    "pack_size",
    "wall_time_s",
    "device",
    "node",
    "iclscale_version",
    "git_commit",
    "finished_at",
)
KEY_COLUMNS = ("run_id", "sweep", "study", "seed", "eval_key")
STATUS_COLUMNS = ("status", "error", "diverged_step")


def eval_key(point: Iterable[tuple[str, Any]]) -> str:
    """Canonical text of an eval point: the (run_id, eval_key) pair identifies a runs row."""
    return json.dumps(dict(sorted(point)), sort_keys=True, separators=(",", ":"))


# Locations ------------------------------------------------------------------------------------
class Location:
    """A directory on a local disk or an object store, through pyarrow.fs."""

    def __init__(self, uri: str | os.PathLike):
        text = str(uri)
        if "://" in text:
            try:
                self.fs, self.root = pafs.FileSystem.from_uri(text)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as error:
                raise UserError(f"results location {text!r}: {error}") from None
            self.uri = text
        else:  # absolute, so that Ray workers (whose working directory differs) find the same place
            self.fs, self.root = pafs.LocalFileSystem(), str(Path(text).resolve())
            self.uri = self.root

    @property
    def local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def path(self, *parts: str) -> str:
        return "/".join([self.root.rstrip("/"), *parts])

    def exists(self, *parts: str) -> bool:
        return self.fs.get_file_info(self.path(*parts)).type != pafs.FileType.NotFound

    def list(self, folder: str, suffix: str) -> list[str]:
        """Names (not paths) of the committed files in a folder, temp files excluded."""
        if not self.exists(folder):
            return []
        infos = self.fs.get_file_info(pafs.FileSelector(self.path(folder)))
        names = [info.base_name for info in infos if info.type == pafs.FileType.File]
        return sorted(n for n in names if n.endswith(suffix) and not n.startswith("."))

    def write_bytes(self, relative: str, data: bytes) -> None:
        self._atomic(relative, lambda path: self._put(path, data))

    def write_table(self, relative: str, table: pa.Table) -> None:
        self._atomic(relative, lambda path: pq.write_table(table, path, filesystem=self.fs))

    def read_text(self, relative: str) -> str:
        with self.fs.open_input_stream(self.path(relative)) as stream:
            return stream.read().decode()

    def delete(self, relative: str) -> None:
        if self.exists(relative):
            self.fs.delete_file(self.path(relative))

    def _put(self, path: str, data: bytes) -> None:
        with self.fs.open_output_stream(path) as stream:
            stream.write(data)

    def _atomic(self, relative: str, write) -> None:
        final = self.path(relative)
        folder, _, name = final.rpartition("/")
        self.fs.create_dir(folder, recursive=True)
        if not self.local:  # an object store puts whole objects: never half-visible
            write(final)
            return
        temp = f"{folder}/.{name}.{uuid.uuid4().hex}.tmp"
        try:
            write(temp)
            with open(temp, "rb+") as handle:  # on disk before the rename makes it visible
                os.fsync(handle.fileno())
            self.fs.move(temp, final)
        finally:
            if os.path.exists(temp):  # only after a failed write
                os.remove(temp)


# Writing --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Provenance:
    device: str
    node: str
    iclscale_version: str
    git_commit: str

    @classmethod
    def here(cls, device: str, node: str | None = None) -> Provenance:
        from iclscale import __version__

        return cls(device, node or socket.gethostname(), __version__, git_commit())


@cache
def git_commit() -> str:
    """The commit of the iclscale source tree, or "unknown" outside a git checkout."""
    source = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=True
        )
        dirty = subprocess.run(
            ["git", "-C", str(source), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_fragment(location: Location, name: str, runs: list[dict], curves: list[dict]) -> None:
    """Write one pack's rows: curves first, then runs, which commits the fragment."""
    location.write_table(f"{CURVES}/{name}.parquet", _table(curves, CURVE_SCHEMA_HEAD))
    location.write_table(f"{RUNS}/{name}.parquet", _table(runs, ()))


CURVE_SCHEMA_HEAD = (
    ("run_id", pa.string()),
    ("sweep", pa.string()),
    ("step", pa.int64()),
    ("metric", pa.string()),
    ("value", pa.float64()),
    ("eval_key", pa.string()),
)


def _table(rows: list[dict], head: tuple[tuple[str, pa.DataType], ...]) -> pa.Table:
    if not rows:
        return pa.table({name: pa.array([], type=kind) for name, kind in head})
    columns = list(dict.fromkeys(name for row in rows for name in row))
    return pa.table({name: _column([row.get(name) for row in rows]) for name in columns})


def _column(values: list[Any]) -> pa.Array:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.array(values, type=pa.bool_())
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.array(values, type=pa.int64())
    if present and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    if not present:
        return pa.array(values, type=pa.string())
    return pa.array([None if v is None else str(v) for v in values], type=pa.string())


def write_frozen_sweep(location: Location, resolved: Mapping[str, Any]) -> None:
    location.write_bytes(FROZEN_SWEEP, yaml.safe_dump(dict(resolved), sort_keys=False).encode())


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


# Reading --------------------------------------------------------------------------------------
@dataclass
class StoreData:
    """What a results directory holds, as pandas DataFrames."""

    runs: Any  # pandas.DataFrame
    curves: Any  # pandas.DataFrame
    sweep: dict[str, Any]


def committed_fragments(location: Location) -> list[str]:
    return [name.removesuffix(".parquet") for name in location.list(RUNS, ".parquet")]


def stored_keys(location: Location) -> dict[tuple[str, str], str]:
    """(run_id, eval_key) -> status of every committed row (a non-failed row wins over a failed one)."""
    keys: dict[tuple[str, str], str] = {}
    for fragment in committed_fragments(location):
        table = pq.read_table(
            location.path(RUNS, f"{fragment}.parquet"), filesystem=location.fs, columns=["run_id", "eval_key", "status"]
        )
        for run_id, key, status in zip(*(table.column(c).to_pylist() for c in table.column_names), strict=True):
            if keys.get((run_id, key)) in (None, FAILED):
                keys[(run_id, key)] = status
    return keys


def read_frozen_sweep(location: Location) -> dict[str, Any] | None:
    if not location.exists(FROZEN_SWEEP):
        return None
    return yaml.safe_load(location.read_text(FROZEN_SWEEP))


def read_store(uri: str | os.PathLike, curves: bool = True) -> StoreData:
    """Read a results directory. Failed rows superseded by a later success are dropped, so each
    (run_id, eval_key) appears once. A missing directory, or one holding no runs, is a UserError."""
    import pandas as pd

    location = Location(uri)
    if not location.exists():
        raise UserError(f"results directory {location.uri!r} does not exist")
    fragments = committed_fragments(location)
    if not fragments:
        raise UserError(f"results directory {location.uri!r} holds no runs (no {RUNS}/*.parquet)")
    runs = pd.concat([_read(location, RUNS, f) for f in fragments], ignore_index=True)
    runs = _drop_superseded_failures(runs)
    curve_frames = [_read(location, CURVES, f) for f in fragments if curves and location.exists(CURVES, f"{f}.parquet")]
    curve_frames = [frame for frame in curve_frames if len(frame)]
    curves_frame = (
        pd.concat(curve_frames, ignore_index=True)
        if curve_frames
        else pd.DataFrame({name: pd.Series(dtype="object") for name, _ in CURVE_SCHEMA_HEAD})
    )
    return StoreData(runs, curves_frame, read_frozen_sweep(location) or {})


def _read(location: Location, folder: str, fragment: str):
    return pq.read_table(location.path(folder, f"{fragment}.parquet"), filesystem=location.fs).to_pandas()


def _drop_superseded_failures(runs):
    import pandas as pd

    done = runs[runs["status"] != FAILED]
    stored = set(zip(done["run_id"], done["eval_key"], strict=True))
    failed = runs[runs["status"] == FAILED]
    still_failed = [(r, k) not in stored for r, k in zip(failed["run_id"], failed["eval_key"], strict=True)]
    failed = failed[still_failed].drop_duplicates(["run_id", "eval_key"], keep="last")
    return pd.concat([done, failed], ignore_index=True)

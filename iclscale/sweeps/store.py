"""The result store: a Parquet dataset in a sweep's output directory (a local path or a URI).

Layout:

    DIR/sweep.yaml                 the resolved sweep, frozen (rewritten when the sweep grows)
    DIR/runs/<fragment>.parquet    one row per (config, eval point)
    DIR/curves/<fragment>.parquet  long format: run_id, step, metric, value, eval params

    DIR/digests/<folder>/<fragment>.sha256   the SHA-256 of every byte of that fragment file

One fragment per finished pack, named after the pack's content (`pack-<id>`, or `failed-<id>`
for a pack whose trial failed after its retries). A fragment is written curves first, runs last,
each atomically (a temp file renamed into place; object stores put whole objects), so the runs
file is the commit mark: a reader takes curves only from fragments whose runs file exists, and
a crash at any moment leaves nothing half-visible. Re-running a pack rewrites the same names,
so a retried trial cannot duplicate rows.

This module holds the layout's names, the Location every store module writes and reads through, and the
writing of a fragment. The rest of the store, each in its own module: the frozen sweep and whether a store is
checksummed (`store_frozen`), whether a fragment is sound (`store_fragments`), reading a store (`store_read`),
and checking a results directory given on the command line (`store_directory`).

This module is torch-free: the analysis package reads results through `iclscale.sweeps.store_read.read_store`.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import socket
import subprocess
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from iclscale.errors import UserError

OK, DIVERGED, FAILED = "ok", "diverged", "failed"
RUNS, CURVES, FROZEN_SWEEP, DIGESTS = "runs", "curves", "sweep.yaml", "digests"
CHECKSUMS, CHECKSUM_KIND = "checksums", "sha256"  # the frozen sweep's mark of a checksummed store
DIGESTED_KEY = b"iclscale.digest"  # in each fragment's own footer: "this file was written with a digest"
PROVENANCE_COLUMNS = (
    "pack_id",
    "pack_size",
    "wall_time_s",
    "device",
    "compile_path",
    "node",
    "iclscale_version",
    "git_commit",
    "finished_at",
)
KEY_COLUMNS = ("run_id", "sweep", "study", "seed", "eval_key")
CURVE_COLUMNS = ("run_id", "sweep", "step", "metric", "value", "eval_key")
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

    def list(self, folder: str, suffix: str, files_only: bool = True) -> list[str]:
        """Names (not paths) of the committed files in a folder, temp files excluded; with
        files_only=False also entries that are not regular files (a directory named like a fragment)."""
        if self.fs.get_file_info(self.path(folder)).type != pafs.FileType.Directory:
            return []
        infos = self.fs.get_file_info(pafs.FileSelector(self.path(folder)))
        names = [info.base_name for info in infos if info.type == pafs.FileType.File or not files_only]
        return sorted(n for n in names if n.endswith(suffix) and not n.startswith("."))

    def write_bytes(self, relative: str, data: bytes) -> None:
        self._atomic(relative, lambda path: self._put(path, data))

    def write_table(self, relative: str, table: pa.Table) -> None:
        """A Parquet file, with its digest (`digests/<relative>.sha256`) written before the file appears."""
        sink = pa.BufferOutputStream()
        metadata = {**(table.schema.metadata or {}), DIGESTED_KEY: CHECKSUM_KIND.encode()}
        pq.write_table(table.replace_schema_metadata(metadata), sink)
        data = sink.getvalue().to_pybytes()
        self.write_bytes(digest_name(relative), f"{hashlib.sha256(data).hexdigest()} {len(data)}\n".encode())
        self.write_bytes(relative, data)

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


def digest_name(relative: str) -> str:
    return f"{DIGESTS}/{relative.removesuffix('.parquet')}.sha256"


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


def write_fragment(location: Location, name: str, runs: pa.Table | list[dict], curves: pa.Table | list[dict]) -> None:
    """Write one pack's tables (iclscale.sweeps.rows builds them): curves first, then runs, which commits the
    fragment. Lists of row dicts are accepted too (tests, small tools); their types are inferred."""
    if isinstance(runs, list):
        runs = pa.Table.from_pylist(runs)
    if isinstance(curves, list):
        empty = pa.schema([(c, pa.int64() if c == "step" else pa.float64() if c == "value" else pa.string())
                           for c in CURVE_COLUMNS])  # fmt: skip
        curves = pa.Table.from_pylist(curves) if curves else empty.empty_table()
    location.write_table(f"{CURVES}/{name}.parquet", curves)
    location.write_table(f"{RUNS}/{name}.parquet", runs)


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def warn(message: str) -> None:
    """One line on stderr, once per process."""
    import sys

    if message not in _warned:
        _warned.add(message)
        print(f"iclscale: warning: {message}", file=sys.stderr, flush=True)


_warned: set[str] = set()


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else type(error).__name__


def counted(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"

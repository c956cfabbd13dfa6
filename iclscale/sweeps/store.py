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

Every fragment file is verified by a digest of the whole file kept beside it (`digests/`), not by
Parquet's page checksums: those cover only the data pages (not the page headers, the footer with
the schema, row-group offsets and statistics, nor the key-value metadata), pyarrow writes them only
when asked and checks them only when asked; a flipped bit in the footer can change values or
run_ids and still read. A digest is written before its file is renamed into place, so a crash
between the two leaves a mismatch (the fragment is retrained), never a wrong row accepted. The
digests live in their own folder so that plain readers of `runs/` and `curves/` (pandas, duckdb)
see only Parquet. A fragment is damaged when its digest does not match, when it is not a regular
file, when it is empty or holds no rows, when its rows name another pack, or (a runs file) when its
curves file is missing; every command that reads the store checks this (`fragment_problem`), names
a damaged fragment on one line and leaves it out, and `sweep run` moves it to `quarantine/` and
retrains its configs.

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

This module is torch-free: the analysis package reads results through `read_store`.
"""

from __future__ import annotations

import datetime
import errno
import hashlib
import json
import os
import socket
import stat
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

from iclscale.errors import UserError, shorten

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


def write_frozen_sweep(location: Location, resolved: Mapping[str, Any]) -> None:
    """The resolved sweep with the mark of a checksummed store (written after `compact` has given a store from
    before checksums its digests, or by a run's first write into a new store)."""
    frozen = {**resolved, CHECKSUMS: CHECKSUM_KIND}
    location.write_bytes(FROZEN_SWEEP, yaml.safe_dump(frozen, sort_keys=False).encode())
    _checksummed.clear()


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
    """Fragments whose runs file is committed and sound (a damaged one is named on stderr, once,
    and left out: `sweep run` moves it aside and retrains its configs)."""
    return [name for name in fragment_names(location) if fragment_problem(location, name) is None]


def check_folders(location: Location) -> None:
    """runs/, curves/ and digests/ are directories where they exist (a file there is refused in one line)."""
    for folder in (RUNS, CURVES, DIGESTS):
        kind = location.fs.get_file_info(location.path(folder)).type
        if kind not in (pafs.FileType.NotFound, pafs.FileType.Directory):
            raise UserError(
                f"{location.path(folder)} is not a directory, so {location.uri} is not a results directory "
                "as iclscale writes them; move it away or choose another --out"
            )


def fragment_names(location: Location) -> list[str]:
    """Every name in runs/ that looks like a fragment, whatever it is (a directory or a FIFO is damage)."""
    return [name.removesuffix(".parquet") for name in location.list(RUNS, ".parquet", files_only=False)]


def digest_name(relative: str) -> str:
    return f"{DIGESTS}/{relative.removesuffix('.parquet')}.sha256"


def fragment_problem(location: Location, fragment: str, quiet: bool = False) -> str | None:
    """Why a fragment is damaged (see the module docstring), or None. The answer is kept per file
    size and modification time, so a command verifies each fragment once."""
    files = [f"{folder}/{fragment}.parquet" for folder in (RUNS, CURVES)]
    stamps = (*(_stamp(location, f) for f in files), *(_stamp(location, digest_name(f)) for f in files))
    key = (location.uri, fragment, is_checksummed(location), *stamps)
    if key in _checked:
        return _checked[key]
    problem = None
    for folder in (RUNS, CURVES):
        problem = _file_problem(location, folder, fragment)
        if problem:
            problem = f"{folder}/{fragment}.parquet: {problem}"
            break
    _checked[key] = problem
    if problem and not quiet:
        warn_damaged(location, problem)
    return problem


def warn_damaged(location: Location, problem: str) -> None:
    warn(f"damaged fragment {problem} in {location.uri}; `sweep run` moves it aside and retrains its configs")


def unverified_fragments(location: Location) -> list[str]:
    """Sound fragments without digests (written before digests existed): `sweep run` gives them one."""
    names = {name for (uri, name, *_), problem in _checked.items() if uri == location.uri and problem is None}
    if is_checksummed(location):
        return []
    return sorted(name for name in names if (location.uri, name) in _no_digest)


_checked: dict[tuple, str | None] = {}
_no_digest: set[tuple[str, str]] = set()  # (store, fragment) with a file that has no digest
_warned: set[str] = set()
MAX_DIGEST_BYTES = 200


def _file_problem(location: Location, folder: str, fragment: str) -> str | None:
    relative = f"{folder}/{fragment}.parquet"
    path = location.path(relative)
    if location.local:  # never follow a link or open a FIFO or device: reading one hangs or never ends
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return "missing (its runs file exists)" if folder == CURVES else "missing"
        except OSError as error:
            return f"cannot be read ({error.strerror})"
        if not stat.S_ISREG(mode):
            return f"not a regular file ({_kind(mode)})"
    info = location.fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        return "missing (its runs file exists)" if folder == CURVES else "missing"
    if info.type != pafs.FileType.File:
        return "not a regular file"
    if not info.size:
        return "empty (0 bytes)"
    try:
        problem = _digest_problem(location, relative, info.size)
        if problem:
            return problem
        parquet = pq.ParquetFile(location.fs.open_input_file(path))
        if DIGESTED_KEY in (parquet.schema_arrow.metadata or {}) and not location.exists(digest_name(relative)):
            return f"no checksum ({digest_name(relative)} is missing, and the file says it was written with one)"
        names = set(parquet.schema_arrow.names)
        needed = {"run_id", "eval_key", "status"} if folder == RUNS else {"run_id", "step", "metric", "value"}
        if not needed <= names:
            return f"lacks the columns {', '.join(sorted(needed - names))}"
        for name in sorted(needed):  # a column of another type breaks every reader downstream
            kind = parquet.schema_arrow.field(name).type
            wanted = {"step": pa.types.is_integer, "value": pa.types.is_floating}.get(name, _is_text)
            if not wanted(kind):
                return f"column {name} is of type {kind}, not the store's"
        if folder == RUNS:
            if parquet.metadata.num_rows == 0:
                return "holds no rows"
            if "pack_id" in names:
                ids = set(parquet.read(columns=["pack_id"]).column("pack_id").unique().to_pylist())
                own = fragment.split("-", 1)[1] if "-" in fragment else fragment
                if ids - {own}:
                    return f"holds rows of another pack ({_first_value(ids - {own})})"
        elif location.exists(RUNS, f"{fragment}.parquet"):
            runs_ids = _run_ids(location, RUNS, fragment)
            foreign = set(parquet.read(columns=["run_id"]).column("run_id").unique().to_pylist()) - runs_ids
            if foreign:
                return f"holds curves of configs its runs file lacks ({_first_value(foreign)})"
    except (pa.ArrowException, OSError, ValueError) as error:
        return _first_line(error)
    return None


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


def _digest_problem(location: Location, relative: str, size: int) -> str | None:
    """The file's SHA-256 against its digest file. A file without one is damaged in a checksummed store;
    in a store written before checksums it is noted (`unverified_fragments`)."""
    digest_path = location.path(digest_name(relative))
    fragment = relative.split("/", 1)[1].removesuffix(".parquet")
    if location.fs.get_file_info(digest_path).type != pafs.FileType.File:
        if is_checksummed(location):
            return f"no checksum ({digest_name(relative)} is missing in a checksummed store)"
        _no_digest.add((location.uri, fragment))
        return None
    if relative.startswith(RUNS):
        _no_digest.discard((location.uri, fragment))
    with location.fs.open_input_stream(digest_path) as stream:
        expected = stream.read(MAX_DIGEST_BYTES).decode(errors="replace").split()
    actual = sha256_of(location, relative)
    if len(expected) != 2 or expected != [actual, str(size)]:
        return "checksum mismatch (its bytes differ from those written)"
    return None


def sha256_of(location: Location, relative: str) -> str:
    digest = hashlib.sha256()
    with location.fs.open_input_stream(location.path(relative)) as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _run_ids(location: Location, folder: str, fragment: str) -> set[str]:
    table = pq.read_table(location.path(folder, f"{fragment}.parquet"), filesystem=location.fs, columns=["run_id"])
    return set(table.column("run_id").unique().to_pylist())


def _is_text(kind: pa.DataType) -> bool:
    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or (pa.types.is_dictionary(kind) and pa.types.is_string(kind.value_type))
    )


def _first_value(values: set) -> str:
    text = str(sorted(map(str, values))[0])
    return text[:40] + ("…" if len(text) > 40 else "")


def _kind(mode: int) -> str:
    kinds = {stat.S_ISDIR: "a directory", stat.S_ISLNK: "a symbolic link", stat.S_ISFIFO: "a FIFO",
             stat.S_ISCHR: "a device", stat.S_ISBLK: "a device", stat.S_ISSOCK: "a socket"}  # fmt: skip
    return next((name for test, name in kinds.items() if test(mode)), "not a file")


def _stamp(location: Location, relative: str) -> tuple:
    path = location.path(relative)
    if location.local:
        try:
            st = os.lstat(path)
            return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino)
        except OSError:
            return (None,)
    info = location.fs.get_file_info(path)
    return (info.type, info.size, info.mtime_ns)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else type(error).__name__


def warn(message: str) -> None:
    """One line on stderr, once per process."""
    import sys

    if message not in _warned:
        _warned.add(message)
        print(f"iclscale: warning: {message}", file=sys.stderr, flush=True)


def read_runs(location: Location, fragment: str, columns: list[str] | None = None) -> pa.Table | None:
    """A runs fragment's table (only the columns it has, of those asked), or None if it is unreadable."""
    path = location.path(RUNS, f"{fragment}.parquet")
    try:
        if columns is not None:
            present = set(pq.read_schema(path, filesystem=location.fs).names)
            columns = [c for c in columns if c in present]
        return pq.read_table(path, filesystem=location.fs, columns=columns)
    except (pa.ArrowException, OSError) as error:
        where = location.path(RUNS, f"{fragment}.parquet")
        warn(f"unreadable fragment {where}: {_first_line(error)}; `sweep run` moves it aside")
        return None


def stored_keys(location: Location) -> dict[tuple[str, str], str]:
    """(run_id, eval_key) -> status of every committed row (a non-failed row wins over a failed one)."""
    keys: dict[tuple[str, str], str] = {}
    for fragment in committed_fragments(location):
        table = read_runs(location, fragment, ["run_id", "eval_key", "status"])
        if table is None:
            continue
        for run_id, key, status in zip(*(table.column(c).to_pylist() for c in table.column_names), strict=True):
            if keys.get((run_id, key)) in (None, FAILED):
                keys[(run_id, key)] = status
    return keys


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
        raise UserError(f"{where}: cannot be read ({_first_line(error)})") from None
    frozen, _ = load_yaml(data, where)
    if not isinstance(frozen, dict) or not isinstance(frozen.get("study"), str):
        raise UserError(f"{where}: not a frozen sweep (no study); move it away or choose another --out")
    return frozen


def read_store(uri: str | os.PathLike, curves: bool = True) -> StoreData:
    """Read a results directory. Failed rows superseded by a later success are dropped, so each
    (run_id, eval_key) appears once. A missing directory, or one holding no runs, is a UserError."""
    import pandas as pd

    location = Location(uri)
    if not location.exists():
        raise UserError(f"results directory {location.uri!r} does not exist")
    check_folders(location)
    names = fragment_names(location)
    problems = {name: fragment_problem(location, name, quiet=True) for name in names}
    fragments = [name for name in names if problems[name] is None]
    if not fragments:  # one line that says what is there, not a warning per file and then "no runs"
        if not names:
            raise UserError(f"results directory {location.uri!r} holds no runs (no {RUNS}/*.parquet)")
        first = next(problem for problem in problems.values() if problem)
        what = "" if location.exists(FROZEN_SWEEP) else f" and no {FROZEN_SWEEP}: not a store iclscale wrote"
        raise UserError(
            f"results directory {location.uri!r} holds no sound runs: {_count(len(names), 'file', 'files')} in "
            f"{RUNS}/, none sound{what} (first: {first})"
        )
    for problem in filter(None, problems.values()):
        warn_damaged(location, problem)
    frames = [frame for frame in (_read(location, RUNS, f) for f in fragments) if frame is not None]
    if not frames:
        raise UserError(f"results directory {location.uri!r} holds no readable runs")
    runs = pd.concat(frames, ignore_index=True)
    runs = _drop_superseded_failures(runs)
    curve_frames = [_read(location, CURVES, f) for f in fragments if curves and location.exists(CURVES, f"{f}.parquet")]
    curve_frames = [frame for frame in curve_frames if frame is not None and len(frame)]
    curves_frame = (
        pd.concat(curve_frames, ignore_index=True)
        if curve_frames
        else pd.DataFrame({name: pd.Series(dtype="object") for name in CURVE_COLUMNS})
    )
    return StoreData(runs, curves_frame, read_frozen_sweep(location) or {})


def _read(location: Location, folder: str, fragment: str):
    try:
        return pq.read_table(location.path(folder, f"{fragment}.parquet"), filesystem=location.fs).to_pandas()
    except (pa.ArrowException, OSError) as error:
        warn(f"unreadable fragment {location.path(folder, fragment)}.parquet: {_first_line(error)}; left out")
        return None


def _drop_superseded_failures(runs):
    import pandas as pd

    done = runs[runs["status"] != FAILED]
    stored = set(zip(done["run_id"], done["eval_key"], strict=True))
    failed = runs[runs["status"] == FAILED]
    still_failed = [(r, k) not in stored for r, k in zip(failed["run_id"], failed["eval_key"], strict=True)]
    failed = failed[still_failed].drop_duplicates(["run_id", "eval_key"], keep="last")
    return pd.concat([done, failed], ignore_index=True)


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
                f"{flag} {location.uri}: not empty ({_count(len(others), 'entry', 'entries')}, e.g. "
                f"{shorten(others[0], 40)}) and not a results directory (no {FROZEN_SWEEP}); give a new or empty "
                "directory, or this sweep's results"
            )
        return
    if (frozen.get("name"), frozen.get("study")) != (name, study):
        raise UserError(
            f"{flag} {location.uri}: holds the results of sweep {shorten(frozen.get('name'), 60)} (study "
            f"{shorten(frozen.get('study'), 40)}), not {name} ({study}); choose another {flag}"
        )


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _entries(location: Location, flag: str) -> list[str]:
    """The names in a directory other than a stopped run's leftovers (the lock, temp files)."""
    try:
        infos = location.fs.get_file_info(pafs.FileSelector(location.path(), allow_not_found=True))
    except (OSError, pa.ArrowException) as error:
        raise UserError(f"{flag} {location.uri}: cannot be listed ({_first_line(error)})") from None
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

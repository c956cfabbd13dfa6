"""Whether a fragment of the store is sound, and the store's fragments that are.

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
retrains its configs. (Which stores must have a digest for every fragment: `iclscale.sweeps.store_frozen`.)
"""

from __future__ import annotations

import hashlib
import os
import stat

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from iclscale.errors import UserError
from iclscale.sweeps.store import CURVES, DIGESTED_KEY, DIGESTS, RUNS, Location, digest_name, first_line, warn
from iclscale.sweeps.store_frozen import is_checksummed


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
MAX_DIGEST_BYTES = 200


def _file_problem(location: Location, folder: str, fragment: str) -> str | None:
    """Why one file of a fragment (its runs or its curves file) is damaged, or None: what it is on disk, then its
    digest, then its content."""
    relative = f"{folder}/{fragment}.parquet"
    path = location.path(relative)
    problem = _local_entry_problem(path, folder) if location.local else None
    if problem:
        return problem
    info = location.fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        return _missing(folder)
    if info.type != pafs.FileType.File:
        return "not a regular file"
    if not info.size:
        return "empty (0 bytes)"
    try:
        return _digest_problem(location, relative, info.size) or _content_problem(location, folder, fragment)
    except (pa.ArrowException, OSError, ValueError) as error:
        return first_line(error)


def _missing(folder: str) -> str:
    """A missing file (a curves file is looked for only once its runs file was found)."""
    return "missing (its runs file exists)" if folder == CURVES else "missing"


def _local_entry_problem(path: str, folder: str) -> str | None:
    """A local file that is missing, unreadable or not a regular one, found without following a link or opening
    the file: reading a FIFO or a device hangs or never ends."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return _missing(folder)
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    if not stat.S_ISREG(mode):
        return f"not a regular file ({_kind(mode)})"
    return None


def _content_problem(location: Location, folder: str, fragment: str) -> str | None:
    """What the Parquet file says against what it must be: its digest flag, its columns and their types, and its
    rows (a runs file's own pack, a curves file's configs in its runs file)."""
    relative = f"{folder}/{fragment}.parquet"
    parquet = pq.ParquetFile(location.fs.open_input_file(location.path(relative)))
    if DIGESTED_KEY in (parquet.schema_arrow.metadata or {}) and not location.exists(digest_name(relative)):
        return f"no checksum ({digest_name(relative)} is missing, and the file says it was written with one)"
    problem = _schema_problem(parquet.schema_arrow, folder)
    if problem:
        return problem
    if folder == RUNS:
        return _runs_rows_problem(parquet, fragment)
    if location.exists(RUNS, f"{fragment}.parquet"):
        return _curves_rows_problem(location, parquet, fragment)
    return None


def _schema_problem(schema: pa.Schema, folder: str) -> str | None:
    """The columns every reader needs, each of the store's type (another type breaks every reader downstream)."""
    names = set(schema.names)
    needed = {"run_id", "eval_key", "status"} if folder == RUNS else {"run_id", "step", "metric", "value"}
    if not needed <= names:
        return f"lacks the columns {', '.join(sorted(needed - names))}"
    for name in sorted(needed):
        kind = schema.field(name).type
        wanted = {"step": pa.types.is_integer, "value": pa.types.is_floating}.get(name, _is_text)
        if not wanted(kind):
            return f"column {name} is of type {kind}, not the store's"
    return None


def _runs_rows_problem(parquet: pq.ParquetFile, fragment: str) -> str | None:
    """A runs file holds rows, and only rows of its own pack (the fragment's name after its first '-')."""
    if parquet.metadata.num_rows == 0:
        return "holds no rows"
    if "pack_id" in parquet.schema_arrow.names:
        ids = set(parquet.read(columns=["pack_id"]).column("pack_id").unique().to_pylist())
        own = fragment.split("-", 1)[1] if "-" in fragment else fragment
        if ids - {own}:
            return f"holds rows of another pack ({_first_value(ids - {own})})"
    return None


def _curves_rows_problem(location: Location, parquet: pq.ParquetFile, fragment: str) -> str | None:
    """A curves file holds curves only of configs its runs file has."""
    runs_ids = _run_ids(location, RUNS, fragment)
    foreign = set(parquet.read(columns=["run_id"]).column("run_id").unique().to_pylist()) - runs_ids
    if foreign:
        return f"holds curves of configs its runs file lacks ({_first_value(foreign)})"
    return None


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

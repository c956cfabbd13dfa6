"""A results root's stores as one file: `iclscale stores pack ROOT --out FILE` and `iclscale stores unpack FILE
--out ROOT`, so that `iclscale report` and `iclscale ledger` can re-make every page from stores trained elsewhere
(the catalogue's are too big for git).

The archive is a tar compressed with xz (Python 3.11's standard library has no zstd; xz is the best ratio it has).
Its first member is a manifest (MANIFEST: each file's path, size, SHA-256 and mtime in nanoseconds, the iclscale
version and commit that packed it); the files follow in sorted order with fixed owners and modes, so packing the
same stores twice gives the same bytes. What is packed: every results directory of ROOT (ROOT itself when it holds
a sweep.yaml, else each sub-folder that does, as `iclscale reproduce` writes them) and the root's own files (its
reproduce.jsonl, which the ledger reads). What is not: each directory's report/ (charts that `iclscale report` and
the ledger rewrite), a run's leftovers (its .writer.lock, temp files) and folders that are not results directories.

Unpacking checks the whole archive before it writes a byte: a member whose path is absolute or climbs out (`..`),
one that is not a plain file (a link, a device), one missing from the manifest or whose bytes do not match it, and
a different file already at a member's place in ROOT are refused, each on one line naming it. Mtimes are restored
to the nanosecond from the manifest (the ledger's report fingerprint reads them; tar's header keeps whole seconds).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import lzma
import os
import re
import tarfile
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from iclscale.errors import UserError, shorten
from iclscale.sweeps.store import FROZEN_SWEEP, Location, counted, first_line
from iclscale.sweeps.store_frozen import read_frozen_sweep

FORMAT = "iclscale-stores/1"
MANIFEST = ".iclscale-stores-manifest.json"
REGENERATED = "report"  # DIR/report: written by `iclscale report` and the ledger from the store, never packed
LEFTOVER = re.compile(r"^\.writer\.lock$|^\..*\.tmp$")  # what a stopped run leaves: its lock, temp files
MAX_MANIFEST_BYTES = 64 * 2**20
CHUNK = 2**20
XZ_MAGIC = b"\xfd7zXZ\x00"


@dataclass(frozen=True)
class PackedFile:
    path: str  # relative to the root, POSIX separators
    size: int
    sha256: str
    mtime_ns: int


@dataclass(frozen=True)
class Packed:
    directories: int
    files: int
    bytes_in: int
    bytes_out: int


@dataclass(frozen=True)
class Unpacked:
    directories: int
    written: int
    already_there: int
    bytes: int


# Packing --------------------------------------------------------------------------------------
def pack(root: str | os.PathLike, out_file: str | os.PathLike) -> Packed:
    """Write ROOT's stores into OUT_FILE (a new file, outside ROOT), atomically: a failed pack leaves nothing."""
    root, out_file = Path(root), Path(out_file)
    if not root.is_dir():
        raise UserError(f"stores pack: {root} does not exist or is not a directory")
    if out_file.exists() or out_file.is_symlink():
        raise UserError(f"--out {out_file}: already exists; remove it or choose another --out")
    if out_file.resolve().is_relative_to(root.resolve()):
        raise UserError(f"--out {out_file}: inside {root}; write the archive outside the stores it packs")
    try:
        directories = results_directories(root)
        files = [_described(root, relative) for relative in packed_paths(root, directories)]
    except OSError as error:
        raise UserError(f"stores pack: {error.filename or root}: cannot be read ({_reason(error)})") from None
    manifest = manifest_bytes(directories, files)
    try:
        with _replacing(out_file) as temp, tarfile.open(temp, "w:xz", format=tarfile.PAX_FORMAT) as tar:
            tar.addfile(_member(MANIFEST, len(manifest), 0), io.BytesIO(manifest))
            for file in files:
                _add(tar, root, file)
    except OSError as error:
        raise UserError(f"--out {out_file}: cannot be written ({_reason(error)})") from None
    return Packed(len(directories), len(files), sum(f.size for f in files), out_file.stat().st_size)


def results_directories(root: Path) -> list[str]:
    """ROOT's results directories, relative to it: "." when ROOT holds a frozen sweep, else its sub-folders that do
    (a broken sweep.yaml is refused by read_frozen_sweep, naming it)."""
    if read_frozen_sweep(Location(str(root))) is not None:
        return ["."]
    found = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.is_symlink()
                   and read_frozen_sweep(Location(str(p))) is not None)  # fmt: skip
    if not found:
        raise UserError(f"stores pack: {root} holds no results directory (a folder with a {FROZEN_SWEEP})")
    return found


def packed_paths(root: Path, directories: list[str]) -> list[str]:
    """The files to pack, relative to ROOT and sorted: each results directory's but its report/ and leftovers,
    and, for a root of several, the root's own files."""
    paths = []
    if directories != ["."]:  # the root's own files (a folder that is not a results directory is left out)
        for entry in _entries(root):
            if not entry.is_dir(follow_symlinks=False):
                paths.extend(_files_below(root, root / entry.name))
    for directory in directories:
        folder = root / directory
        for entry in _entries(folder):
            if entry.name == REGENERATED and entry.is_dir(follow_symlinks=False):
                continue
            paths.extend(_files_below(root, folder / entry.name))
    for path in paths:
        if path == MANIFEST:
            raise UserError(f"stores pack: {root / path}: has the manifest's name; move it away")
    return sorted(paths)


def _files_below(root: Path, path: Path) -> Iterator[str]:
    if not _kept(path.name):
        return
    if path.is_symlink() or not (path.is_file() or path.is_dir()):
        raise UserError(f"stores pack: {path}: {_kind(path)}, not a plain file; a store holds only plain files")
    if path.is_file():
        yield path.relative_to(root).as_posix()
        return
    for entry in _entries(path):
        yield from _files_below(root, path / entry.name)


def _entries(folder: Path) -> list[os.DirEntry]:
    with os.scandir(folder) as entries:
        return sorted(entries, key=lambda e: e.name)


def _kept(name: str) -> bool:
    return not LEFTOVER.match(name)


def _kind(path: Path) -> str:
    return "a symbolic link" if path.is_symlink() else "a device, socket or pipe"


def _described(root: Path, relative: str) -> PackedFile:
    path = root / relative
    stat = path.stat()
    return PackedFile(relative, stat.st_size, _sha256_of(path), stat.st_mtime_ns)


def manifest_bytes(directories: list[str], files: list[PackedFile]) -> bytes:
    from iclscale import __version__
    from iclscale.sweeps.store import git_commit

    manifest = {
        "format": FORMAT,
        "iclscale_version": __version__,
        "git_commit": git_commit(),
        "directories": directories,
        "files": [vars(f) for f in files],
    }
    return json.dumps(manifest, indent=1).encode()


def _member(name: str, size: int, mtime_ns: int) -> tarfile.TarInfo:
    """A plain file's header with nothing of the packing machine in it (owner, mode), so packing is repeatable."""
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = size, mtime_ns // 10**9, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def _add(tar: tarfile.TarFile, root: Path, file: PackedFile) -> None:
    """One file, its bytes hashed as they go in: a file changed since the manifest was written is refused."""
    digest, source = hashlib.sha256(), root / file.path
    try:
        handle = open(source, "rb")
    except OSError as error:
        raise UserError(f"stores pack: {source}: cannot be read ({_reason(error)})") from None
    with handle:
        try:
            tar.addfile(_member(file.path, file.size, file.mtime_ns), _Hashing(handle, digest, source))
        except OSError as error:
            if "unexpected end of data" not in str(error):
                raise
            digest = None
    if digest is None or digest.hexdigest() != file.sha256 or os.stat(root / file.path).st_size != file.size:
        raise UserError(f"stores pack: {root / file.path}: changed while it was packed; pack again when it is not")


class _Hashing:
    """A file object that hashes what is read from it."""

    def __init__(self, handle, digest, path: Path):
        self.handle, self.digest, self.path = handle, digest, path

    def read(self, size: int = -1) -> bytes:
        try:
            data = self.handle.read(size)
        except OSError as error:
            raise UserError(f"stores pack: {self.path}: cannot be read ({_reason(error)})") from None
        self.digest.update(data)
        return data


def _reason(error: OSError) -> str:
    return error.strerror or first_line(error)


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


# Unpacking ------------------------------------------------------------------------------------
def unpack(archive: str | os.PathLike, out_root: str | os.PathLike) -> Unpacked:
    """Restore an archive's stores into OUT_ROOT: checked whole first (nothing is written from a bad archive), then
    each file written atomically with its mtime; files already there with the same bytes are left as they are."""
    archive, out_root = Path(archive), Path(out_root)
    if not archive.is_file():
        raise UserError(f"stores unpack: {archive} does not exist or is not a file")
    if out_root.exists() and not out_root.is_dir():
        raise UserError(f"--out {out_root}: a file, not a directory; choose another --out")
    manifest = _read_manifest(archive)
    files = _checked_manifest(archive, manifest)
    present = {path for path, file in files.items() if _already_there(out_root, file)}
    seen = set()

    def check(file: PackedFile | None, data) -> None:
        if file is not None:
            _check_bytes(archive, file, data)
            seen.add(file.path)

    _each_member(archive, files, check)
    missing = sorted(set(files) - seen)
    if missing:
        raise UserError(f"{archive}: {_shown(missing[0])}: in the manifest but not in the archive "
                        f"({len(missing)} missing); a truncated or damaged archive")  # fmt: skip
    wanted = set(files) - present

    def write(file: PackedFile | None, data) -> None:
        if file is not None and file.path in wanted:
            _write(out_root, file, data)

    _each_member(archive, files, write)
    directories = json.loads(manifest)["directories"]
    return Unpacked(len(directories), len(wanted), len(present), sum(f.size for f in files.values()))


def _read_manifest(archive: Path) -> bytes:
    """The first member's bytes, which must be the manifest."""
    found = []

    def keep(file: PackedFile | None, data) -> None:
        found.append(data.read())
        raise _Found

    try:
        _each_member(archive, {}, keep)
    except _Found:
        return found[0]
    raise UserError(_not_an_archive(archive, "it holds no member"))  # unreachable: _each_member refuses it


class _Found(Exception):
    """The manifest is read: the rest of the archive need not be."""


def _each_member(archive: Path, files: dict[str, PackedFile], visit: Callable) -> None:
    """visit(file, data) for each member in archive order (the manifest first, as file None), each member's path,
    kind and place in the manifest checked first; the archive's own damage (not a tar, corrupt compression, cut
    short) refused, naming the member being read."""
    current = None
    try:
        with tarfile.open(archive, "r|*") as tar:
            for index, member in enumerate(tar):
                current = member.name
                if index == 0:
                    if member.name != MANIFEST or not member.isreg() or member.size > MAX_MANIFEST_BYTES:
                        raise UserError(_not_an_archive(archive, f"its first member is {_shown(member.name)}"))
                    visit(None, tar.extractfile(member))
                    continue
                visit(_checked_member(archive, member, files), tar.extractfile(member))
    except (tarfile.TarError, lzma.LZMAError, zlib.error, EOFError, OSError) as error:
        if current is None and not _is_xz(archive):
            raise UserError(_not_an_archive(archive, first_line(error))) from None
        if current is None:
            raise UserError(f"{archive}: damaged in its first member, the manifest ({first_line(error)})") from None
        raise UserError(f"{archive}: damaged near {_shown(current)} ({first_line(error)})") from None
    if current is None:
        raise UserError(_not_an_archive(archive, "it holds no member"))


def _is_xz(archive: Path) -> bool:
    with open(archive, "rb") as handle:
        return handle.read(len(XZ_MAGIC)) == XZ_MAGIC


def _check_bytes(archive: Path, file: PackedFile, data) -> None:
    digest = hashlib.sha256()
    while chunk := data.read(CHUNK):
        digest.update(chunk)
    if digest.hexdigest() != file.sha256:
        raise UserError(f"{archive}: {file.path}: its bytes differ from the manifest's SHA-256 (a damaged archive)")


def _shown(name) -> str:
    """A member's name in a message: as it is, or quoted and cut when it is long or holds odd characters."""
    return name if isinstance(name, str) and name.isprintable() and len(name) <= 120 else shorten(name, 120)


def _not_an_archive(archive: Path, why: str) -> str:
    return f"{archive}: not an archive of iclscale stores ({why}); make one with `iclscale stores pack ROOT --out FILE`"


def _checked_member(archive: Path, member: tarfile.TarInfo, files: dict[str, PackedFile]) -> PackedFile:
    where = f"{archive}: member {_shown(member.name)}"
    _check_path(member.name, where)
    if not member.isreg():
        kind = "a symbolic link" if member.issym() else "a hard link" if member.islnk() else "a directory" \
            if member.isdir() else "a device or pipe"  # fmt: skip
        raise UserError(f"{where}: {kind}, not a plain file; refused")
    file = files.get(member.name)
    if file is None:
        raise UserError(f"{where}: not in the archive's manifest; refused")
    if member.size != file.size:
        raise UserError(f"{where}: {member.size} bytes, the manifest says {file.size}; a damaged archive")
    return file


def _check_path(name: str, where: str) -> None:
    """A relative path that stays inside the root it is unpacked into."""
    if name.startswith("/") or "\\" in name or "\0" in name or any(p in ("..", ".", "") for p in name.split("/")):
        raise UserError(f"{where}: an absolute path or one that leaves the directory it is unpacked into; refused")


def _checked_manifest(archive: Path, data: bytes) -> dict[str, PackedFile]:
    """The manifest's files by path; UserError when it is not one this module writes."""
    try:
        manifest = json.loads(data)
        if manifest.get("format") != FORMAT or not isinstance(manifest.get("directories"), list):
            raise ValueError(f"format {shorten(manifest.get('format'), 40)}, not {FORMAT}")
        files = [PackedFile(**item) for item in manifest["files"]]
    except (ValueError, TypeError, AttributeError, KeyError) as error:
        raise UserError(_not_an_archive(archive, f"its manifest is unreadable: {first_line(error)}")) from None
    by_path = {}
    for file in files:
        where = f"{archive}: manifest entry {_shown(file.path)}"
        if not isinstance(file.path, str):
            raise UserError(f"{where}: not a path")
        _check_path(file.path, where)
        if not (isinstance(file.size, int) and isinstance(file.mtime_ns, int) and isinstance(file.sha256, str)):
            raise UserError(f"{where}: size, mtime_ns or sha256 of the wrong type")
        if file.path in by_path:
            raise UserError(f"{where}: listed twice")
        by_path[file.path] = file
    return by_path


def _already_there(out_root: Path, file: PackedFile) -> bool:
    """Whether OUT_ROOT holds this very file already; UserError when it holds something else at its place (a
    different file, a folder, a link), which unpacking never overwrites."""
    parts = PurePosixPath(file.path).parts
    for depth in range(1, len(parts)):
        parent = out_root.joinpath(*parts[:depth])
        if parent.is_symlink() or (parent.exists() and not parent.is_dir()):
            raise UserError(f"--out {out_root}: {parent} is {'a link' if parent.is_symlink() else 'a file'}, where "
                            f"the archive has the folder of {file.path}; unpack into another directory")  # fmt: skip
    target = out_root.joinpath(*parts)
    if not (target.exists() or target.is_symlink()):
        return False
    if target.is_symlink() or not target.is_file():
        raise UserError(f"--out {out_root}: {target} is not a plain file; unpack into another directory")
    if target.stat().st_size != file.size or _sha256_of(target) != file.sha256:
        raise UserError(f"--out {out_root}: {target} already holds a different file; move it away or unpack into "
                        "a new directory")  # fmt: skip
    return True


def _write(out_root: Path, file: PackedFile, data) -> None:
    """One file, atomically (a temp file renamed into place), its bytes checked again as written, its mtime set."""
    target = out_root.joinpath(*PurePosixPath(file.path).parts)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _replacing(target) as temp:
            digest = hashlib.sha256()
            with open(temp, "xb") as handle:
                while chunk := data.read(CHUNK):
                    digest.update(chunk)
                    handle.write(chunk)
            if digest.hexdigest() != file.sha256:
                raise UserError(f"{file.path}: its bytes changed between checking and writing; unpack again")
            os.utime(temp, ns=(file.mtime_ns, file.mtime_ns))
    except OSError as error:
        raise UserError(f"--out {out_root}: {target} cannot be written ({_reason(error)})") from None


@contextlib.contextmanager
def _replacing(target: Path) -> Iterator[Path]:
    """A temp file beside TARGET, named as the store names its own (so a stopped run's leftover is known as one),
    moved onto TARGET when the block ends without an error and removed when it does not."""
    temp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        yield temp
        os.replace(temp, target)
    finally:
        if temp.exists():
            temp.unlink()


def summary(what: Packed | Unpacked, archive: Path, root: Path) -> str:
    """The one line `stores pack` and `stores unpack` print."""
    mb = 1e6
    if isinstance(what, Packed):
        return (f"packed {counted(what.directories, 'results directory', 'results directories')} of {root} "
                f"({counted(what.files, 'file', 'files')}, {what.bytes_in / mb:.1f} MB; report/ folders left out) "
                f"into {archive} ({what.bytes_out / mb:.1f} MB)")  # fmt: skip
    return (f"unpacked {counted(what.directories, 'results directory', 'results directories')} "
            f"({counted(what.written, 'file', 'files')} written, {what.already_there} already there, "
            f"{what.bytes / mb:.1f} MB) from {archive} into {root}")  # fmt: skip

"""What iclscale keeps between processes, under ~/.cache/iclscale: measured footprints (`footprint`), compiled
functions (`precompiled`) and inductor's own cache. Each is valid for one version of the code: `code_digest`."""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import sys
from pathlib import Path

ROOT = Path.home() / ".cache" / "iclscale"


@functools.cache
def code_digest() -> str:
    """The sources a cached result depends on — the whole iclscale package (the trainer and the papers' studies
    in iclscale/papers/) and the folders of installed papers' studies —, torch's and Python's versions. (Until
    2026-11-26 it read iclscale/trainer/ only: after the papers moved out of it, a changed study kept its
    saved compiled step.)"""
    import torch

    digest = hashlib.sha256(f"{torch.__version__} {sys.version}".encode())
    for folder in source_folders():
        for path in sorted(folder.rglob("*.py")):
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def source_folders() -> list[Path]:
    """The iclscale package, then each folder holding an installed study's implementation outside it."""
    import importlib.util

    from iclscale.trainer.registry import all_studies

    package = Path(__file__).resolve().parents[1]
    folders = [package]
    for info in all_studies():
        spec = importlib.util.find_spec(info.implementation.partition(":")[0])
        origin = Path(spec.origin).resolve().parent if spec is not None and spec.origin else None
        if origin is not None and package not in origin.parents and origin != package and origin not in folders:
            folders.append(origin)
    return folders


def use_persistent_inductor_cache() -> None:
    """Inductor's cache in ~/.cache/iclscale/inductor, not /tmp, so that it survives reboots. Call before
    inductor first asks for its cache directory (it fixes the directory then, in this same variable)."""
    inductor = ROOT / "inductor"
    if inductor.exists() and not trusted(inductor):  # its files are compiled code too: torch's default then
        return
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(inductor))


def trusted(path: Path, root: Path = ROOT) -> bool:
    """Whether code may be loaded from `path`: it and every directory from the cache root down to it
    are owned by this user and writable by no one else (a file others can replace is code they run).
    Said once per process when not (the caller then compiles instead)."""
    path = Path(path)
    chain = [path, *(p for p in path.parents if p == root or root in p.parents)]
    for item in chain:
        try:
            info = os.lstat(item)
        except OSError:
            return False
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            _say_untrusted(item, info)
            return False
    return True


_said: list[bool] = []


def _say_untrusted(item: Path, info: os.stat_result) -> None:
    if _said:
        return
    _said.append(True)
    owner = "owned by another user" if info.st_uid != os.getuid() else "writable by others"
    if stat.S_ISLNK(info.st_mode):
        owner = "a symbolic link"
    print(f"iclscale: note: the compiled-code cache {item} is {owner}; compiling instead of loading it",
          file=sys.stderr, flush=True)  # fmt: skip

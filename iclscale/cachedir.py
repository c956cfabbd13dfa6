"""What iclscale keeps between processes, under ~/.cache/iclscale: measured footprints (`footprint`), compiled
functions (`precompiled`) and inductor's own cache. Each is valid for one version of the code: `code_digest`."""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

ROOT = Path.home() / ".cache" / "iclscale"


@functools.cache
def code_digest() -> str:
    """iclscale's sources (studies included), torch's and Python's versions."""
    import torch

    digest = hashlib.sha256(f"{torch.__version__} {sys.version}".encode())
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def use_persistent_inductor_cache() -> None:
    """Inductor's cache in ~/.cache/iclscale/inductor, not /tmp, so that it survives reboots. Call before
    inductor first asks for its cache directory (it fixes the directory then, in this same variable)."""
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / "inductor"))

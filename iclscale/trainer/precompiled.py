"""Compiled functions kept on disk, so that a new process (a Ray trial, the next sweep) does not trace again.

`torch.compile` traces a function anew in every process: for a vmapped study step, dynamo's trace takes
seconds (3–4 s for seed 004's unit), and torch's own caches (inductor's FX graph cache, AOTAutograd's)
only skip the code generation after it. torch's precompile API (`torch.compile(fullgraph=True)
.aot_compile(...)`, `save_compiled_function`, `torch.compiler.load_compiled_function`; experimental in
torch 2.13) saves the traced and compiled function whole. This module keys those files: a file serves
exactly the function it was made from, so the key holds everything dynamo's guards would check —
iclscale's sources (studies included), torch's and Python's versions, the caller's key (study, shape
params, device) and every input's shape, stride and dtype — and the guards themselves are left out
(`guard_filter_fn`: several kinds cannot be saved, and the key makes them redundant).

Anything that goes wrong (a graph break, a function that cannot be pickled, a damaged or stale file)
falls back to `torch.compile`, which the caller already handles; nothing here is ever an error.

Inductor also checks, in every process, which vector instruction set its C++ compiler can build, by
compiling and loading a probe in subprocesses (about 1.5 s). Once a probe succeeded on this machine, with
this compiler and this torch, the answer is remembered here and inductor is told (`cpp.vec_isa_ok`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import torch
from torch.utils._pytree import tree_flatten

from iclscale.trainer.cachedir import ROOT as CACHE_ROOT
from iclscale.trainer.cachedir import code_digest, trusted

ROOT = CACHE_ROOT / "compiled"


def load(key: tuple, args: tuple, external: Mapping[str, Any]) -> Callable | None:
    """The compiled function saved under `key` for inputs like `args`, or None. `external`: the objects the
    function closes over that cannot be pickled (nn.Modules), by name, as given to `compile_and_save`."""
    path = _path(key, args)
    if not path.is_file() or not trusted(path, ROOT):  # unpickling runs code: only from a directory no one else writes
        return None
    _trust_vector_isa()
    try:
        with path.open("rb") as file:
            compiled = torch.compiler.load_compiled_function(file, external_data=dict(external))
        compiled.disable_guard_check()  # the key stands for the guards
        return compiled
    except Exception:  # stale or damaged: compile again (and overwrite it)
        return None


def exists(key: tuple, args: tuple) -> bool:
    return _path(key, args).is_file()


def compile_and_save(
    fn: Callable, key: tuple, args: tuple, external: Mapping[str, Any], options: Mapping[str, Any]
) -> Callable:
    """`fn` compiled for inputs like `args` and saved under `key` (best effort: a function that cannot be
    saved is still returned compiled). Raises what `torch.compile` raises (a graph break, say)."""
    _trust_vector_isa()
    options = {**options, "guard_filter_fn": lambda entries: [False] * len(entries)}
    compiled = torch.compile(fn, fullgraph=True, dynamic=False, options=options).aot_compile((args, {}))
    compiled.disable_guard_check()
    _remember_vector_isa()
    path = _path(key, args)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        compiled.save_compiled_function(str(partial), external_data=dict(external))
        partial.replace(path)  # atomic: a concurrent reader sees no file or the whole file
        _drop_other_versions(path.parent)
    except Exception:  # an unpicklable closure (a test's ad-hoc study, say): used in this process only
        pass
    return compiled


def _path(key: tuple, args: tuple) -> Path:
    leaves, spec = tree_flatten(args)
    inputs = [
        (tuple(x.shape), x.stride(), str(x.dtype), str(x.device)) if isinstance(x, torch.Tensor) else repr(x)
        for x in leaves
    ]
    payload = repr((key, str(spec), inputs, torch.get_default_dtype()))
    return ROOT / code_digest() / f"{hashlib.sha256(payload.encode()).hexdigest()[:32]}.bin"


def _drop_other_versions(current: Path) -> None:
    """Functions saved for other sources or versions can never be loaded again: remove them."""
    for other in current.parent.iterdir():
        if other != current and other.is_dir():
            shutil.rmtree(other, ignore_errors=True)


# Inductor's vector instruction set probe -----------------------------------------------------------
@functools.cache
def _machine() -> str:
    """What the probe's answer depends on: the CPU's flags, the C++ compiler, torch."""
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        flags = platform.processor()
    compiler = shutil.which(os.environ.get("CXX", "g++")) or ""
    stamp = os.stat(compiler).st_mtime if compiler else 0
    return hashlib.sha256(f"{flags} {compiler} {stamp} {torch.__version__}".encode()).hexdigest()[:16]


def _isa_file() -> Path:
    return ROOT / "vector_isa.json"


def _trust_vector_isa() -> None:
    import torch._inductor.config as inductor_config

    try:
        if json.loads(_isa_file().read_text()).get(_machine()) is True:
            inductor_config.cpp.vec_isa_ok = True
    except (OSError, ValueError, AttributeError):
        pass  # not known yet: inductor probes, as it always does


def _remember_vector_isa() -> None:
    """After a compilation in this process: record the probe's answer if it found a vector instruction set."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return
    try:
        from torch._inductor.cpu_vec_isa import pick_vec_isa

        if not pick_vec_isa():
            return
        path = _isa_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps({_machine(): True}))
        partial.replace(path)
    except Exception:
        pass

"""What a GPU would be asked to launch, counted on the CPU: the proxy for GPU speed when no GPU is lent.

    PYTHONPATH=. python benchmarks/launch_count.py --json                  # every study, packs of 1024 and 8192
    PYTHONPATH=. python benchmarks/launch_count.py --sizes 64 --studies softmax_window

On a GPU a packed step of a tiny model is launch-bound: each ATen op run outside compiled code is a kernel
launch driven from the host, each host read (`item()`, `.cpu()`, `tolist()`) waits for the GPU. For every
study at each pack size (its smoke config, `PaperLaws(smoke=...)` of its paper: tiny configs; the pack size is
what varies), on two code paths:

- `cpu`: the code as it runs on the CPU;
- `cuda`: the code as it runs on CUDA, on the CPU: the test-set draw eager (`Measurer.draw` compiles it on the
  CPU only), the counter hash in int64 (`rng._eager_cpu`) and CUDA's chunks of configs (`study.map_chunk`).
  Not emulated: the `torch.device` context of `Pack.defaults` (where tensors land, not how many).

it counts, with torch's profiler:

- set-up (`PackTrainer(...)`: constants, initial parameters): kernel-like ops and linear-algebra calls;
- one training step as the trainer calls it (compile "on", after two warm-up steps): the compiled graphs it
  runs (`graphs_per_step`), the ATen ops dispatched outside them (`step_ops_outside_graphs`) and host reads;
  the compile path and the graph breaks the trainer reports (`PackResult.compile_path`);
- the first record (which draws the test set) and a later one: kernel-like ops, linear-algebra calls,
  host reads (`item()`-like reads and device-to-host copies) per record.

`--backend count` (the default) compiles with dynamo only, every graph run by a backend that marks it in the
profile: the same graphs inductor would compile, in seconds (inductor took minutes on two shared cores).
`--backend inductor` compiles as the trainer does. Counts are of ops, not time: they do not depend on the
machine's load. With `--json` one object per line.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

NOT_KERNELS = frozenset(
    "aten::" + name
    for name in (
        "empty", "empty_strided", "empty_like", "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided",
        "expand", "expand_as", "t", "transpose", "permute", "select", "slice", "unsqueeze", "squeeze", "detach",
        "alias", "unbind", "split", "split_with_sizes", "chunk", "narrow", "diagonal", "movedim", "unflatten",
        "flatten", "resize_", "lift_fresh", "to", "contiguous", "view_as", "lift", "_to_copy", "set_", "unfold",
        "view_as_real", "view_as_complex", "real", "imag", "conj", "resolve_conj", "resolve_neg", "_conj",
        "result_type", "is_nonzero", "size", "stride", "numel", "dim", "broadcast_tensors",
    )
)  # fmt: skip
"""ATen ops that launch no kernel: views, allocations, metadata (and wrappers whose work is a child op)."""
LINALG = ("aten::linalg_", "aten::_linalg_", "aten::qr", "aten::svd", "aten::eig", "aten::cholesky", "aten::lu",
          "aten::geqrf", "aten::orgqr", "aten::triangular_solve", "aten::inverse")  # fmt: skip
GRAPH_MARKS = ("CompiledFxGraph", "launch_count graph")
"""Profiler events of a compiled graph's call: inductor's, and `count_backend`'s."""
HOST_READS = ("aten::_local_scalar_dense",)
"""What item(), bool(), int() and float() of a tensor dispatch to."""


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 8192], help="pack sizes (default 1024 8192)")
    parser.add_argument("--studies", nargs="+", default=None, help="default: every registered study")
    parser.add_argument("--paths", nargs="+", choices=("cpu", "cuda"), default=["cpu", "cuda"])
    parser.add_argument("--backend", choices=("count", "inductor"), default="count")
    args = parser.parse_args(argv)
    if any(size < 1 for size in args.sizes):
        parser.error("--sizes: pack sizes are whole numbers ≥ 1")
    from iclscale.trainer.registry import study_names

    unknown = sorted(set(args.studies or ()) - set(study_names()))
    if unknown:
        parser.error(f"--studies: unknown {', '.join(unknown)}; known: {', '.join(study_names())}")
    return args


# Profiles -------------------------------------------------------------------------------------------
def _ancestors(event):
    parent = event.cpu_parent
    while parent is not None:
        yield parent
        parent = parent.cpu_parent


def _in_graph(event) -> bool:
    return any(mark in a.name for a in _ancestors(event) for mark in GRAPH_MARKS)


def _aten(event) -> bool:
    return event.name.startswith("aten::")


def tally(events) -> dict:
    """Counts of one profiled region. Ops inside a compiled graph are not counted as ops."""
    events = list(events)
    outside = [e for e in events if _aten(e) and not _in_graph(e)]
    top = [e for e in outside if not any(_aten(a) for a in _ancestors(e))]
    children = Counter(id(a) for e in outside for a in [e.cpu_parent] if a is not None and _aten(a))
    leaves = [e for e in outside if id(e) not in children]
    linalg = [
        e for e in outside if e.name.startswith(LINALG) and not any(a.name.startswith(LINALG) for a in _ancestors(e))
    ]
    return {
        "graphs": sum(1 for e in events if any(mark in e.name for mark in GRAPH_MARKS)),
        "ops_outside_graphs": len(top),
        "kernel_ops": sum(1 for e in leaves if e.name not in NOT_KERNELS),
        "linalg_calls": len(linalg),
        "item_reads": sum(1 for e in events if e.name in HOST_READS),
    }


class HostCopies:
    """Counts device-to-host copies asked for in Python: `.cpu()`, `.tolist()`, `.to("cpu")` (on the CPU path
    they cost nothing, but on CUDA each waits for the device). Not `.numpy()`: it refuses a CUDA tensor, so it
    only follows one of those."""

    def __init__(self):
        self.count = 0

    @contextlib.contextmanager
    def counting(self):
        import torch

        patched = {}
        for name in ("cpu", "tolist", "to"):
            original = getattr(torch.Tensor, name)
            patched[name] = original

            def counted(tensor, *args, _original=original, _name=name, **kwargs):
                if _name != "to" or _to_host(args, kwargs):
                    self.count += 1
                return _original(tensor, *args, **kwargs)

            setattr(torch.Tensor, name, counted)
        try:
            yield self
        finally:
            for name, original in patched.items():
                setattr(torch.Tensor, name, original)


def _to_host(args, kwargs) -> bool:
    import torch

    device = kwargs.get("device")
    for arg in args:
        if isinstance(arg, str | torch.device):
            device = arg
    return device is not None and torch.device(device).type == "cpu"


def profiled(fn):
    """(fn's value, tally of its profile, device-to-host copies)."""
    from torch.profiler import ProfilerActivity, profile

    copies = HostCopies()
    with profile(activities=[ProfilerActivity.CPU]) as prof, copies.counting():
        value = fn()
    return value, tally(prof.events()), copies.count


# Compiling ------------------------------------------------------------------------------------------
def count_backend(graph_module, example_inputs):
    """A dynamo backend that runs the graph as it is, marked in the profile as one compiled graph."""
    import torch

    def run(*args):
        with torch.profiler.record_function("launch_count graph"):
            return graph_module.forward(*args)

    return run


@contextlib.contextmanager
def dynamo_only():
    """torch.compile with `count_backend`: inductor's options dropped, everything else as asked."""
    import torch

    compile = torch.compile

    @functools.wraps(compile)
    def counting(fn=None, *, options=None, mode=None, backend=None, **kwargs):
        return compile(fn, backend=count_backend, **kwargs)

    torch.compile = counting
    try:
        yield
    finally:
        torch.compile = compile


@contextlib.contextmanager
def code_path(path: str):
    """The `cuda` path's branches taken on the CPU (module docstring)."""
    import torch

    if path == "cpu":
        yield
        return
    from iclscale.trainer import measuring, rng, study

    eager_cpu, draw, chunk = rng._eager_cpu, measuring.Measurer.draw, getattr(study, "map_chunk", None)
    rng._eager_cpu = lambda device: False
    measuring.Measurer.draw = lambda self, point: self.pack.map(lambda c: self.study.test_data(c, point))
    if chunk is not None:  # (code before map_chunk chunked by 64 on every device)
        study.map_chunk = lambda device: chunk(torch.device("cuda"))
    try:
        yield
    finally:
        rng._eager_cpu, measuring.Measurer.draw = eager_cpu, draw
        if chunk is not None:
            study.map_chunk = chunk


# One measurement ------------------------------------------------------------------------------------
def pack(name: str, pack_size: int):
    """`pack_size` configs of the study's smoke config (its paper's laws record), its variations in turn, seeds 0, 1,
    …"""
    from iclscale.paper import smoke_configs
    from iclscale.trainer.params import Config
    from iclscale.trainer.registry import study_info

    info = study_info(name)
    templates = [info.resolve(params, 0, "launch count") for params in smoke_configs()[name].configs()]
    configs = [Config(info.name, templates[k % len(templates)][0].values, k) for k in range(pack_size)]
    return info, configs, templates[0][1]


def measure(name: str, pack_size: int, path: str) -> dict:
    import torch

    from iclscale.trainer.training import PackResult, PackTrainer

    info, configs, point = pack(name, pack_size)
    row = {"study": name, "pack_size": pack_size, "path": path, "torch": torch.__version__}
    with code_path(path):
        trainer, setup, setup_copies = profiled(lambda: PackTrainer(info, configs, [point], torch.device("cpu")))
        row.update(
            setup_kernel_ops=setup["kernel_ops"],
            setup_linalg_calls=setup["linalg_calls"],
            setup_host_syncs=setup["item_reads"] + setup_copies,
        )
        result = PackResult(configs, [point])
        result.evals, result.eval_errors = {point: {}}, {point: None}
        trainer.measurer.compile = "on"
        with trainer.defaults():
            state = trainer.start_state()
            runner = trainer.runner("on") if trainer.steps else None
            if runner is not None:
                fixed = trainer.step_inputs()
                for t in range(2):  # the first call compiles
                    state = runner(*state, *fixed, torch.full((), t, dtype=torch.int64))
                count = torch.full((), 2, dtype=torch.int64)
                state, step, step_copies = profiled(lambda: runner(*state, *fixed, count))
                row.update(
                    compile_path=runner.path
                    if hasattr(runner, "path")
                    else ("compiled" if runner.compiled else "eager"),
                    graphs_per_step=step["graphs"],
                    step_ops_outside_graphs=step["ops_outside_graphs"],
                    step_kernel_ops_outside_graphs=step["kernel_ops"],
                    step_host_syncs=step["item_reads"] + step_copies,
                    graph_breaks=list(getattr(runner, "breaks", [])),
                )
            else:
                row.update(compile_path=None, graphs_per_step=None, step_ops_outside_graphs=None,
                           step_kernel_ops_outside_graphs=None, step_host_syncs=None, graph_breaks=[])  # fmt: skip
            active = state[2]
            _, first, first_copies = profiled(lambda: trainer.record(result, 0, active, None))
            _, later, later_copies = profiled(lambda: trainer.record(result, 1, active, torch.zeros(pack_size)))
    row.update(
        first_record_kernel_ops=first["kernel_ops"],
        first_record_host_syncs=first["item_reads"] + first_copies,
        record_kernel_ops=later["kernel_ops"],
        record_linalg_calls=later["linalg_calls"],
        record_item_reads=later["item_reads"],
        record_host_copies=later_copies,
        record_host_syncs=later["item_reads"] + later_copies,
        record_graphs=later["graphs"],
    )
    return row


COLUMNS = (
    ("study", 22), ("path", 5), ("pack_size", 6), ("compile_path", 9), ("graphs_per_step", 7),
    ("step_ops_outside_graphs", 9), ("setup_linalg_calls", 7), ("record_kernel_ops", 9),
    ("first_record_kernel_ops", 9), ("record_host_syncs", 7), ("record_linalg_calls", 7),
)  # fmt: skip


def main(argv=None) -> None:
    args = parse_args(argv)
    import torch

    from iclscale.trainer import precompiled
    from iclscale.trainer.registry import study_names

    torch.set_num_threads(1)
    names = args.studies or study_names()
    with tempfile.TemporaryDirectory() as saved, contextlib.ExitStack() as stack:
        precompiled.ROOT = Path(saved)  # no step saved by an earlier run (or by inductor) stands in
        if args.backend == "count":
            stack.enter_context(dynamo_only())
        if not args.json:
            print("  ".join(f"{name[:width]:>{width}}" for name, width in COLUMNS))
        for name in names:
            for pack_size in args.sizes:
                for path in args.paths:
                    row = {**measure(name, pack_size, path), "backend": args.backend}
                    if args.json:
                        print(json.dumps(row), flush=True)
                    else:
                        print("  ".join(f"{str(row[key])[:width]:>{width}}" for key, width in COLUMNS), flush=True)
                        for reason in row["graph_breaks"]:
                            print(f"    graph break: {reason}")


if __name__ == "__main__":
    main()

"""Where a compiled step's time goes on a device: the step's wall time per pack size, and a profile of a few
steps (kernel launches, host-device copies and synchronisations per step, the top operators by host time).

    PYTHONPATH=. python benchmarks/device_profile.py --model softmax_window --sizes 1024 8192 --out $OUT

Asked by the first GPU runs (benchmarks/measured/device_check_h100_run2.json): the compiled softmax_window step
took ~12 ms whatever the pack size, i.e. something per step other than the arithmetic. A step time that does not
grow with the pack size and many launches or synchronisations per step say which. Writes DIR/profile.json and
prints a short summary; `--device cpu` runs the same code here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from peers import iclscale_run

COUNTED = (
    "cudaLaunchKernel",
    "cuLaunchKernel",
    "cudaMemcpyAsync",
    "cudaStreamSynchronize",
    "cudaDeviceSynchronize",
    "cudaGraphLaunch",
    "aten::item",
    "aten::_local_scalar_dense",
    "aten::copy_",
    "aten::to",
)


def profile(model: str, size: int, steps: int, device: str, compile: str) -> dict:
    info, configs, point = iclscale_run.pack_configs(model, size, steps)
    iclscale_run.train(info, configs, point, steps, device, compile)  # compiles, warms the allocator
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    sync()
    start = time.perf_counter()
    result = iclscale_run.train(info, configs, point, steps, device, compile)
    sync()
    wall = time.perf_counter() - start
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.startswith("cuda"):
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as prof:
        iclscale_run.train(info, configs, point, steps, device, compile)
        sync()
    events = prof.key_averages()
    counts = {e.key: e.count for e in events if e.key in COUNTED}
    top = sorted(events, key=lambda e: e.self_cpu_time_total, reverse=True)[:25]
    return {
        "model": model,
        "pack_size": size,
        "steps": steps,
        "compiled": result.compiled,
        "wall_s": wall,
        "ms_per_step": 1000 * wall / steps,
        "per_step": {k: v / steps for k, v in counts.items()},
        "top_self_cpu_ms": {e.key: round(e.self_cpu_time_total / 1000, 2) for e in top},
        "table": events.table(sort_by="self_cpu_time_total", row_limit=30),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="softmax_window", choices=sorted(iclscale_run.CHEAP_RECORDS))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 8192])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--compile", default="on", choices=("on", "off"))
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (default 1, as device_check)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    found = []
    for size in args.sizes:
        entry = profile(args.model, size, args.steps, args.device, args.compile)
        found.append(entry)
        (args.out / f"profile_{args.model}.json").write_text(json.dumps(found, indent=1))
        print(
            f"{args.model} K={size} compiled={entry['compiled']}: {entry['ms_per_step']:.2f} ms/step; per step:",
            {k: round(v, 1) for k, v in entry["per_step"].items()},
        )
        print("  top host time (ms):", list(entry["top_self_cpu_ms"].items())[:8])
    return 0


if __name__ == "__main__":
    sys.exit(main())

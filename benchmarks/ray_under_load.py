"""One catalogue sweep through local Ray and inline, on an idle machine and beside CPU-bound processes at normal
priority: does Ray keep its speed on a busy machine (its workers start at niceness 15 unless told otherwise,
iclscale.sweeps.ray_executor)?

    python benchmarks/ray_under_load.py [--sweep nonlinear_icl_law_T_vs_alpha] [--load 2] [--out /tmp/ray_load]

Each run trains the sweep from nothing into a fresh results directory (`iclscale sweep run NAME --out DIR
--executor ray|inline`); the load is `--load` Python processes spinning at normal priority, started
before the run and stopped after it. Prints one line per run (wall seconds, the load average) and writes
DIR/ray_under_load.json. On a machine already busy with other work the "idle" rows are not idle: the load
average is printed beside each so that a reader can tell.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

SPIN = "while True: pass"


def run(sweep: str, executor: str, out: Path, load: int) -> dict:
    if out.exists():
        shutil.rmtree(out)
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(load)]
    try:
        start = time.perf_counter()
        command = ["iclscale", "sweep", "run", sweep, "--out", str(out), "--executor", executor]
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        load_average = os.getloadavg()[0]
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return {"executor": executor, "load": load, "wall_s": round(wall, 1), "loadavg_1min": round(load_average, 2)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", default="nonlinear_icl_law_T_vs_alpha")
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes beside the loaded runs")
    parser.add_argument("--out", type=Path, default=Path("/tmp/ray_load"))
    args = parser.parse_args(argv)
    rows = []
    for load in (0, args.load):
        for executor in ("inline", "ray"):
            row = run(args.sweep, executor, args.out / f"{executor}_{load}", load)
            rows.append(row)
            print(
                f"{args.sweep}: {executor:6} beside {load} busy processes: {row['wall_s']:7.1f} s "
                f"(load average {row['loadavg_1min']})",
                flush=True,
            )
    (args.out / "ray_under_load.json").write_text(
        json.dumps({"sweep": args.sweep, "cpus": os.cpu_count(), "rows": rows}, indent=1)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

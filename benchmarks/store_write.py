"""How long committing one pack's fragment takes: 4096 configs × 20 records × 10 metrics.

    python benchmarks/store_write.py [--configs 4096] [--records 20] [--repeats 5]

Builds a trainer result with random values (6 probes, 4 eval metrics at one eval point), then
times `iclscale.sweeps.rows.pack_tables` (the Arrow tables) and `write_fragment` (two atomic Parquet
files) separately and together. Prints the median of the repeats.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from iclscale.sweeps.plan import PackPlan
from iclscale.sweeps.rows import pack_tables
from iclscale.sweeps.spec import parse_sweep
from iclscale.sweeps.store import Location, Provenance, eval_key, write_fragment
from iclscale.trainer.registry import study_info


@dataclass
class FakeResult:
    record_steps: list[int]
    probes: dict
    evals: dict
    status: list[str]
    diverged_step: list[int | None]
    wall_time: float = 1.0
    device: str = "cpu"
    eval_errors: dict = field(default_factory=dict)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=4096)
    parser.add_argument("--records", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    sweep = parse_sweep(
        {"name": "bench", "study": "softmax_window", "grid": {"L": [0.1 + i for i in range(args.configs)]}},
        "bench",
        None,
    )
    configs, points = sweep.configs(), sweep.eval_points()
    key = eval_key(points[0])
    pack = PackPlan("bench", configs, points, {(c.run_id, key) for c in configs}, {c.run_id for c in configs})
    rng = np.random.default_rng(0)
    pack_size, R = len(configs), args.records

    def series() -> list[np.ndarray]:
        return [rng.random(pack_size) for _ in range(R)]

    status = ["ok"] * pack_size
    diverged: list[int | None] = [None] * pack_size
    for k in range(0, pack_size, 97):  # a few diverged configs
        status[k], diverged[k] = "diverged", 500
    result = FakeResult(
        record_steps=[100 * r for r in range(R)],
        probes={f"probe_{i}": series() for i in range(6)},
        evals={points[0]: {f"eval_{i}": series() for i in range(4)}},
        status=status,
        diverged_step=diverged,
    )
    info = study_info("softmax_window")
    provenance = vars(Provenance.here("cpu"))
    build, write = [], []
    with tempfile.TemporaryDirectory() as folder:
        location = Location(folder)
        for i in range(args.repeats):
            start = time.perf_counter()
            runs, curves = pack_tables(info, "bench", pack, result, provenance)
            built = time.perf_counter()
            write_fragment(location, f"pack-{i}", runs, curves)
            build.append(built - start)
            write.append(time.perf_counter() - built)
    print(f"{pack_size} configs × {R} records × 10 metrics: {runs.num_rows} runs rows, {curves.num_rows:,} curve rows")
    total = statistics.median(b + w for b, w in zip(build, write, strict=True))
    print(
        f"build tables {statistics.median(build):.3f} s, write Parquet {statistics.median(write):.3f} s, "
        f"total {total:.3f} s (median of {args.repeats})"
    )


if __name__ == "__main__":
    main()

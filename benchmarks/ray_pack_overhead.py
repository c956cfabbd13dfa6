"""What a trial per pack buys on Ray Tune, measured in one run on this machine.

1. The same sweep of 512 configs × 1500 steps (Fig 3's setting) through Ray Tune twice: one config
   per trial (pack_size 1), and packs (pack_size 256). Prints both wall times (Ray start included)
   and the ratio.
2. A larger sweep run inline (one process, packs one after another) and through Ray Tune as packs:
   the Ray run's wall time as a multiple of the inline one (the price of Ray's scheduling).

    python benchmarks/ray_pack_overhead.py [--configs 512] [--skip-per-config]

Each run writes to a fresh temporary results directory; the local Ray instance listens on loopback.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from iclscale.sweeps.execute import SweepContext, run_inline
from iclscale.sweeps.plan import make_plan
from iclscale.sweeps.spec import parse_sweep
from iclscale.trainer.runtime import single_threaded_by_default


def sweep(name: str, seeds: int, steps: int, pack_size: int, sigmas: list[float]) -> dict:
    """softmax_window at the paper's Fig 3 setting (d = 5, n = 20); 16 L values × σ values × seeds."""
    return {
        "name": name,
        "study": "softmax_window",
        "fixed": {"d": 5, "n": 20, "steps": steps},
        "eval": {"test_tasks": 64},
        "grid": {"L": [0.1 * 1.3**i for i in range(16)], "sigma": sigmas},
        "seeds": seeds,
        "record_every": steps,
        "resources": {"cpu": 1, "gpu": 0, "pack_size": pack_size},
    }


def timed_run(raw: dict, executor: str) -> tuple[float, int]:
    spec = parse_sweep(raw, raw["name"])
    with tempfile.TemporaryDirectory(prefix="iclbench-") as out:
        plan = make_plan(spec, {})
        context = SweepContext(spec.name, spec.study.name, spec.record, out)
        start = time.perf_counter()
        if executor == "inline":
            run_inline(plan, context, "cpu")
        else:
            import ray

            from iclscale.sweeps.ray_executor import run_on_ray, start_ray

            start_ray(None, quiet=True)  # Ray's start is part of the time, as in `iclscale sweep run`
            run_on_ray(plan, context, address=None, device="cpu", retries=0, verbose=0)
            ray.shutdown()
        return time.perf_counter() - start, len(plan.packs)


def main() -> None:
    single_threaded_by_default()  # inline runs as `iclscale sweep run --executor inline` does
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=512, help="configs in part 1 (a multiple of 64)")
    parser.add_argument("--steps", type=int, default=1500, help="steps per config in part 1 (Fig 3 of seed 004: 1500)")
    parser.add_argument("--big-steps", type=int, default=3000, help="steps in part 2 (≥ 2 minutes inline)")
    parser.add_argument("--skip-per-config", action="store_true", help="skip part 1's slow one-config-per-trial run")
    parser.add_argument("--skip-part2", action="store_true", help="skip the inline vs Ray comparison")
    args = parser.parse_args()

    seeds = args.configs // 64
    sigmas = [0.01, 0.03, 0.1, 0.3]
    print(f"part 1: {16 * len(sigmas) * seeds} configs × {args.steps} steps (softmax_window, d = 5, n = 20)")
    packed, packs = timed_run(sweep("bench_packed", seeds, args.steps, 256, sigmas), "ray")
    print(f"  Ray Tune, one pack per trial ({packs} trials):  {packed:8.1f} s")
    if not args.skip_per_config:
        single, trials = timed_run(sweep("bench_single", seeds, args.steps, 1, sigmas), "ray")
        print(f"  Ray Tune, one config per trial ({trials} trials): {single:8.1f} s")
        print(f"  packs / one config per trial: {single / packed:.1f}× the throughput")

    if args.skip_part2:
        return
    big = sweep("bench_big", 64, args.big_steps, 256, sigmas)
    print(f"part 2: {16 * len(sigmas) * 64} configs × {args.big_steps} steps")
    inline, packs = timed_run(big, "inline")
    print(f"  inline, packs one after another ({packs} packs): {inline:8.1f} s")
    ray_time, _ = timed_run(big, "ray")
    print(f"  Ray Tune, one pack per trial:                  {ray_time:8.1f} s  ({ray_time / inline:.2f}× inline)")


if __name__ == "__main__":
    main()

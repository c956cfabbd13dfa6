"""The power of each catalogue design: how often a true power law is called "consistent" on the x levels and seeds
that a catalogue sweep actually has, judged by the law's own kind and verdict rule.

For every catalogue sweep and every power law it lists whose x (or the param x is made from) takes at least
three values in the sweep, the law's prediction is planted (`iclscale.analysis.controls.inside`: the point, the
band's midpoint, or half a unit inside a one-sided band) at the sweep's x levels with its number of seeds, with
log-normal scatter of sd 0.1 and 0.3 (the catalogue's own scatter differs per measure: these two bracket the
sweeps' cell-to-cell scatter of log y seen in the committed reports), one model per seed measured at every x
where x is an eval param (paired), and judged by the calibration's skeleton (`benchmarks/calibration.py`: the
kind's estimate, then `iclscale.analysis.evaluate.decide`). What is not modelled: censoring, the grid's
rounding of a threshold (a staircase), the regime (every planted point is inside).

    python benchmarks/design_power.py               # 200 replicates per design and scatter: a Markdown table
    python benchmarks/design_power.py --quick       # 5 replicates (seconds)
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibration import group_of, judged, law_of, run_all

from iclscale.analysis.controls import inside
from iclscale.analysis.kinds import PowerLaw
from iclscale.analysis.laws import LAWS
from iclscale.paper import papers

SCATTERS = (0.1, 0.3)


@dataclass(frozen=True)
class CatalogueDesign:
    study: str
    sweep: str
    law: str
    x: tuple[float, ...]  # the law's x at each level (transformed where the law transforms a param)
    seeds: int
    paired: bool


def levels_of(sweep, param: str) -> list[float]:
    """The values a param takes in a sweep file: its grid axis, its cases, its eval axis or its fixed value."""
    values = list(sweep.grid.get(param, [])) + [case[param] for case in sweep.cases if param in case]
    values += list(sweep.eval.get(param, []))
    if not values and param in sweep.fixed:
        values = [sweep.fixed[param]]
    try:
        return sorted({float(v) for v in values})
    except (TypeError, ValueError):
        return []


def designs() -> list[CatalogueDesign]:
    from iclscale.sweeps.spec import load_sweep

    found = []
    for paper in papers():
        for path in paper.sweep_files():
            sweep = load_sweep(path)
            for name in sweep.laws:
                law = LAWS.get(name)
                if law is None or not isinstance(law.kind, PowerLaw) or not law.x:
                    continue
                param = law.kind.param if law.kind.transform else law.x
                levels = levels_of(sweep, param)
                if len(levels) < 3:
                    continue
                x = law.kind.transform(np.asarray(levels)) if law.kind.transform else np.asarray(levels)
                x = x[
                    (x > 0) & np.isfinite(x)
                ]  # a log-log fit leaves x ≤ 0 (and an infinite level) out, as the law does
                if len(x) < 3:
                    continue
                paired = param in sweep.eval
                found.append(
                    CatalogueDesign(sweep.study.name, sweep.name, name, tuple(map(float, x)), len(sweep.seeds), paired)
                )
    return found


def power(task) -> tuple[CatalogueDesign, float, dict[str, int]]:
    design, sd, replicates, seed0 = task
    law = LAWS[design.law]
    band = law.predict({}).primary.band
    truth = inside(band)
    planted = law_of("power law", band, design.paired)
    planted = replace(planted, rule=law.rule, kind=replace(law.kind, threshold_factors=(), transform=None, param=""))
    rng = np.random.default_rng(seed0)
    counts = {"consistent": 0, "inconsistent": 0, "inconclusive": 0}
    x_levels = np.asarray(design.x)
    for _ in range(replicates):
        x = np.repeat(x_levels, design.seeds)
        seed = np.tile(np.arange(design.seeds), len(x_levels))
        u = np.log(x) - np.log(x).mean()
        log_y = 2.0 + truth * u + rng.normal(0.0, sd, len(x))
        if design.paired:  # one model per seed: seeds differ in level and a little in slope
            log_y += rng.normal(0.0, sd, design.seeds)[seed] + rng.normal(0.0, 0.05, design.seeds)[seed] * u
        _, verdict = judged(planted, group_of(x, np.exp(log_y), seed, np.zeros(len(x), bool), design.paired))
        counts[verdict.verdict] = counts.get(verdict.verdict, 0) + 1
    return design, sd, counts


def table(results) -> str:
    by: dict[CatalogueDesign, dict[float, dict[str, int]]] = {}
    for design, sd, counts in results:
        by.setdefault(design, {})[sd] = counts
    head = " | ".join(f"consistent at sd {sd:g}" for sd in SCATTERS)
    lines = [f"| study | sweep | law | design | {head} |", "|---|---|---|---|" + "---|" * len(SCATTERS)]
    for design, per_sd in by.items():
        low, high = min(design.x), max(design.x)
        span = math.log10(high / low) if low > 0 else math.inf
        over = f"over {span:.2g} decades" if span <= 10 else f"from {low:g} to {high:g}"  # an x level at (or near) 0
        shape = f"{design.seeds} seeds × {len(design.x)} x {over}" + (", paired" if design.paired else "")
        cells = " | ".join(f"{per_sd[sd]['consistent'] / sum(per_sd[sd].values()):.2f}" for sd in SCATTERS)
        lines.append(f"| {design.study} | {design.sweep} | {design.law.split('.', 1)[1]} | {shape} | {cells} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 replicates per design (a smoke test)")
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2, help="processes (2 at most on a shared machine)")
    args = parser.parse_args(argv)
    replicates = 5 if args.quick else args.replicates
    start = time.perf_counter()
    work = [(d, sd, replicates, i) for i, (d, sd) in enumerate((d, sd) for d in designs() for sd in SCATTERS)]
    results = run_all(power, work, args.workers)
    print(table(results))
    print(f"\n{replicates} replicates per design and scatter; {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

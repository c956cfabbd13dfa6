"""The calibration table of the verdicts: planted data of the catalogue's designs, judged by the project's own
skeleton (the kind's `estimate`, then `iclscale.analysis.evaluate.decide`: evidence, band, form), replicate after
replicate. The rows go straight into a group (iclscale.analysis.select.Group), as `iclscale fit` does: reading a
results directory is not what is calibrated, and skipping it keeps 400 replicates per design to minutes.

Per kind and design:
- coverage: how often the 95% interval holds the planted value (needed: 0.93–0.97);
- consistent at the truth (power): the planted value is the theory's;
- false-inconsistent: "inconsistent" although the planted value is the theory's;
- false-consistent: "consistent" although the truth lies 0.15 outside the ±0.1 band (power laws), or the
  curve bends (local exponents ±0.2 around the theory), or there is no effect (slope 0, flat means).

Designs: 1 to 10 seeds, 4 to 10 x values over one decade unless said (one over 2.5×: narrow; one over two
decades), balanced and unbalanced (3 seeds at one x, 1 at the others), log-normal scatter (sd of log y 0.1 or
0.3) and heavier-tailed (Student t, 4 df, same scale), right-censored points (a cap a fifth of the runs never
reach: the Tobit fit), and a paired design (one model per seed measured at every x, seeds differing in slope).

    python benchmarks/calibration.py            # ≥ 400 replicates per design: the README's table (~10 min, 2 cores)
    python benchmarks/calibration.py --quick    # 5 replicates: checks that the script runs (seconds)

Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool

import numpy as np
import pandas as pd

from iclscale.analysis.evaluate import decide
from iclscale.analysis.kinds import Linear, PowerLaw, Threshold, Trend
from iclscale.analysis.law import Hypothesis, Law, Prediction
from iclscale.analysis.measures import Measure
from iclscale.analysis.select import Group
from iclscale.analysis.verdict import INSIDE, Band, VerdictRule

THEORY = -1.0
WRONG = -1.25  # 0.15 outside the band −1 ± 0.1
BEND = 0.2  # the curve's local exponents run from −1.2 to −0.8 across the range


@dataclass(frozen=True)
class Design:
    name: str
    seeds: int = 3
    levels: int = 6
    decades: float = 1.0
    sd: float = 0.1
    tails: str = "normal"  # or "t4"
    unbalanced: bool = False  # 3 seeds at the first x, 1 at every other
    censor: float = 0.0  # share of the slowest runs right-censored at a cap
    paired: bool = False  # one model per seed measured at every x (an eval-role x), seeds differ in slope


POWER_DESIGNS = (
    Design("3 seeds × 4 x", levels=4),
    Design("3 seeds × 6 x"),
    Design("3 seeds × 10 x", levels=10),
    Design("5 seeds × 6 x", seeds=5),
    Design("10 seeds × 6 x", seeds=10),
    Design("3 seeds × 6 x, sd 0.3", sd=0.3),
    Design("unbalanced: 3 seeds at one x, 1 at 5", unbalanced=True),
    Design("3 seeds × 6 x, t(4) scatter", tails="t4"),
    Design("1 seed × 8 x", seeds=1, levels=8),
    Design("5 seeds × 6 x, 20% censored", seeds=5, censor=0.2),
    Design("paired: 5 seeds × 6 x", seeds=5, paired=True),
    Design("5 seeds × 6 x over 2 decades", seeds=5, decades=2.0),
    Design("5 seeds × 6 x over 2.5× (narrow)", seeds=5, decades=math.log10(2.5)),
)
LINE_DESIGNS = (
    Design("3 seeds × 6 x", sd=0.5),
    Design("10 seeds × 4 x", seeds=10, levels=4, sd=0.5),
    Design("unbalanced: 3 seeds at one x, 1 at 5", unbalanced=True, sd=0.5),
    Design("3 seeds × 6 x, t(4) scatter", tails="t4", sd=0.5),
    Design("paired: 5 seeds × 6 x", seeds=5, paired=True, sd=0.5),
)
TREND_DESIGNS = (
    Design("3 seeds × 5 x", levels=5, sd=0.5),
    Design("5 seeds × 6 x", seeds=5, sd=0.5),
    Design("10 seeds × 4 x", seeds=10, levels=4, sd=0.5),
)
THRESHOLD_DESIGNS = (
    Design("3 seeds × 6 x", sd=0.3),
    Design("5 seeds × 6 x", seeds=5, sd=0.3),
    Design("10 seeds × 4 x", seeds=10, levels=4, sd=0.3),
)


# Planted data ------------------------------------------------------------------------------------------
def layout(design: Design, rng):
    """x, seed per point (x geometric over the design's decades), and the per-seed slope deviation."""
    x_levels = np.geomspace(1.0, 10**design.decades, design.levels)
    if design.unbalanced:
        x = np.concatenate([np.repeat(x_levels[:1], 3), x_levels[1:]])
        seed = np.concatenate([np.arange(3), np.zeros(design.levels - 1, int)])
    else:
        x = np.repeat(x_levels, design.seeds)
        seed = np.tile(np.arange(design.seeds), design.levels)
    return x, seed


def scatter(design: Design, rng, n: int) -> np.ndarray:
    if design.tails == "t4":
        return design.sd * rng.standard_t(4, n) / math.sqrt(2.0)  # t(4) has variance 2: scaled to sd
    return rng.normal(0.0, design.sd, n)


def power_points(design: Design, truth: float, bend: float, rng):
    """log y = truth·u + (bend/R)·u² + noise over u = log x centred: the local exponent runs truth ± bend."""
    x, seed = layout(design, rng)
    u = np.log(x) - np.log(x).mean()
    half_range = (np.log(x).max() - np.log(x).min()) / 2
    log_y = 2.0 + truth * u + (bend / (2 * half_range)) * u**2 + scatter(design, rng, len(x))
    if design.paired:
        seed_slope = rng.normal(0.0, 0.05, seed.max() + 1)
        seed_level = rng.normal(0.0, design.sd, seed.max() + 1)
        log_y = log_y + seed_slope[seed] * u + seed_level[seed]
    y = np.exp(log_y)
    censored = np.zeros(len(y), bool)
    if design.censor:
        cap = np.quantile(y, 1 - design.censor)
        censored = y > cap
        y = np.where(censored, cap, y)
    return x, y, seed, censored


def line_points(design: Design, slope: float, rng):
    x, seed = layout(design, rng)
    x = np.log10(x) * 10  # 0 … 10 on linear axes
    y = 1.0 + slope * x / 10 + scatter(design, rng, len(x))
    if design.paired:
        y = y + rng.normal(0.0, 0.1, seed.max() + 1)[seed] * x / 10 + rng.normal(0.0, design.sd, seed.max() + 1)[seed]
    return x, y, seed, np.zeros(len(x), bool)


def trend_points(design: Design, step: float, rng):
    x, seed = layout(design, rng)
    rank = np.searchsorted(np.unique(x), x)
    return x, 1.0 + step * rank + scatter(design, rng, len(x)), seed, np.zeros(len(x), bool)


def threshold_points(design: Design, shift: float, rng):
    """error = 0.02·exp(−(rank − crossing)) with log-normal scatter: ≤ 0.01 from about the middle x on."""
    x, seed = layout(design, rng)
    rank = np.searchsorted(np.unique(x), x)
    middle = (design.levels - 1) / 2 + shift
    y = 0.01 * np.exp(-1.5 * (rank - middle)) * np.exp(scatter(design, rng, len(x)))
    return x, y, seed, np.zeros(len(x), bool)


# Laws --------------------------------------------------------------------------------------------------
def group_of(x, y, seed, censored, paired: bool) -> Group:
    """The planted points as one group: each x its own stratum (a train-role x), or one stratum (paired)."""
    rows = pd.DataFrame({"x": x, "value": y, "seed": seed, "censored": censored, "left_censored": False}).assign(
        stratum="" if paired else pd.Series(x).map("{:.6g}".format)
    )
    return Group({}, {}, rows, rows.iloc[0:0], 0, paired)


def judged(law: Law, group: Group):
    """(estimate, verdict) of the law on the group, by iclscale.analysis.evaluate's skeleton."""
    prediction = law.kind.predict(law, group)
    estimate = law.kind.estimate(law, group, prediction, None, {})
    return estimate, decide(law, group, prediction, estimate)


def law_of(kind_name: str, band: Band | None, paired: bool) -> Law:
    kind = {"power law": PowerLaw(threshold_factors=()), "line": Linear(), "trend": Trend()}.get(kind_name)
    rule = VerdictRule() if kind_name == "power law" else VerdictRule(mode=INSIDE)
    if kind_name == "threshold":
        kind, rule = Threshold(threshold=0.01, good_side="above"), VerdictRule(min_levels=3)
    hypothesis = Hypothesis("planted", band, "planted (not from a paper)")
    return Law(
        name=f"planted.{kind_name}",
        study="planted",
        claim="planted",
        citation="planted",
        conditions="none",
        prediction_text="planted",
        measure=Planted("value"),
        x="x",
        predict=lambda params: Prediction(hypothesis),
        kind=kind,
        one_row_per_run=not paired,
        rule=rule,
    )


@dataclass(frozen=True)
class Planted(Measure):
    """The planted value and its censoring, as written in the runs table."""

    def describe(self) -> str:
        return "planted y"

    def per_run(self, results, rows):
        return rows.assign(value=rows["value"].astype(float), censored=rows["censored"].astype(bool))


# One task: a design × a truth, many replicates ---------------------------------------------------------
def run_task(task):

    kind, design, case, replicates, seed0 = task
    rng = np.random.default_rng(seed0)
    counts = {"consistent": 0, "inconsistent": 0, "inconclusive": 0, "covered": 0, "intervals": 0}
    for _ in range(replicates):
        if kind == "power law":
            truth, bend = {"at theory": (THEORY, 0.0), "wrong": (WRONG, 0.0), "bent": (THEORY, BEND)}[case]
            points, band, target = power_points(design, truth, bend, rng), Band.point(THEORY), truth
        elif kind == "line":
            slope = {"effect": 1.0, "none": 0.0}[case]
            points, band, target = line_points(design, slope, rng), Band(0.0, math.inf), slope / 10  # x spans 0…10
        elif kind == "trend":
            step = {"effect": 0.6, "none": 0.0}[case]
            points, band, target = trend_points(design, step, rng), Band(0.5, 1.0), 1.0 if step else None
        else:
            shift = {"effect": 0.0, "none": 0.0}[case]
            points, band, target = threshold_points(design, shift, rng), None, None
        x, y, seed, censored = points
        if kind == "threshold":
            levels = np.unique(x)
            middle = (design.levels - 1) / 2
            # the crossing is the first x whose mean error is ≤ 0.01: rank ≥ middle (0.01·e^{−1.5·(rank − middle)})
            crossing = levels[math.ceil(middle)]
            band, target = Band.point(float(crossing)), float(crossing)
        law = law_of(kind, band, design.paired)
        fit, verdict = judged(law, group_of(x, y, seed, censored, design.paired))
        counts[verdict.verdict] = counts.get(verdict.verdict, 0) + 1
        if target is not None and math.isfinite(fit.ci_low) and math.isfinite(fit.ci_high):
            counts["intervals"] += 1
            counts["covered"] += fit.ci_low - 1e-9 <= target <= fit.ci_high + 1e-9
        counts["method"] = fit.interval_method.split(" (")[0]
    return kind, design.name, case, replicates, counts


def tasks(replicates: int):
    out, seed = [], 0
    for design in POWER_DESIGNS:
        for case in ("at theory", "wrong", "bent"):
            out.append(("power law", design, case, replicates, seed := seed + 1))
    for kind, designs in (("line", LINE_DESIGNS), ("trend", TREND_DESIGNS), ("threshold", THRESHOLD_DESIGNS)):
        for design in designs:
            for case in ("effect", "none") if kind != "threshold" else ("effect",):
                out.append((kind, design, case, replicates, seed := seed + 1))
    return out


def table(results) -> str:
    by = {}
    for kind, name, case, replicates, counts in results:
        by.setdefault((kind, name), {})[case] = (replicates, counts)
    lines = [
        "| kind | design | interval | coverage | consistent at the truth | false-inconsistent | "
        "false-consistent: 0.15 outside / no effect | false-consistent: bent (±0.2) |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def share(count, total):
        return f"{count / total:.3f}" if total else "—"

    for (kind, name), cases in by.items():
        good_case = "at theory" if kind == "power law" else "effect"
        replicates, good = cases[good_case]
        coverage = share(good["covered"], good["intervals"])
        bad_case = "wrong" if kind == "power law" else "none"
        false_consistent = share(cases[bad_case][1]["consistent"], cases[bad_case][0]) if bad_case in cases else "—"
        bent = share(cases["bent"][1]["consistent"], cases["bent"][0]) if "bent" in cases else "—"
        lines.append(
            f"| {kind} | {name} | {good['method']} | {coverage} | {share(good['consistent'], replicates)} | "
            f"{share(good['inconsistent'], replicates)} | {false_consistent} | {bent} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 replicates per design (a smoke test)")
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2, help="processes (2 at most on a shared machine)")
    args = parser.parse_args(argv)
    replicates = 5 if args.quick else args.replicates
    start = time.perf_counter()
    work = tasks(replicates)
    workers = max(1, min(args.workers, 2))
    if workers == 1:
        results = [run_task(t) for t in work]
    else:
        with Pool(workers) as pool:
            results = pool.map(run_task, work, chunksize=1)
    print(table(results))
    print(f"\n{replicates} replicates per design and case; {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

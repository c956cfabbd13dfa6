"""The calibration table of the verdicts: planted data of the catalogue's designs, judged by the project's own
skeleton (the kind's `estimate`, then `iclscale.analysis.evaluate.decide`: evidence, band, form), replicate after
replicate. The rows go straight into a group (iclscale.analysis.select.Group), as `iclscale fit` does: reading a
results directory is not what is calibrated, and skipping it keeps 400 replicates per design to minutes.

Per kind and design:
- coverage: how often the 95% interval holds the planted value (needed: 0.93–0.97);
- consistent at the truth (power): the planted value is the theory's;
- false-inconsistent: "inconsistent" although the planted value is the theory's;
- false-consistent: "consistent" although the truth lies 0.15 outside the ±0.1 band (power laws, the curve's
  constant), or the curve bends (local exponents ±0.2 around the theory), or there is no effect (slope 0), or
  the trend's ρ lies just outside its band (or the means are flat), or the threshold is crossed one x earlier
  than the law says.

Designs: 1 to 10 seeds, 4 to 10 x values over one decade unless said (one over 2.5×: narrow; one over two
decades), balanced and unbalanced (3 seeds at one x, 1 at the others), log-normal scatter (sd of log y 0.1 or
0.3) and heavier-tailed (Student t, 4 df, same scale), right-censored points (a cap a fifth of the runs never
reach: the Tobit fit), and a paired design (one model per seed measured at every x, seeds differing in slope).
The curve kind is calibrated on [LW23]'s T = A/(1 − 1/(Cα)) over α = 0.6 … 6 (C = 2 against the band 2 ± 0.1;
wrong: C = 2.25), as feature_selector.T_vs_alpha_curve fits it.

Two statistics are lattice-valued, and their coverage is measured where it means something:
- the trend's Spearman ρ of the seed-means takes one value per ordering of the means, and a monotone truth
  sits at ρ = 1, the top of its range. A consistent estimate equals the true ρ with probability → 1 and the
  interval always holds the estimate, so any such interval covers with probability → 1; no non-randomised
  interval has coverage near 0.95 for a discrete parameter (the Clopper–Pearson interval of a binomial
  proportion is conservative for the same reason). Coverage is measured at an interior truth (the two middle
  means swapped: ρ = 0.8–0.94) and is ≥ 0.95, conservative; the verdict is calibrated as a test: the
  false-consistent rate at the ordering whose ρ is the largest below the band [0.5, 1] (ρ = 0.4–0.49) and at
  flat means;
- the threshold's crossing is a grid value (interval-censored between two x), so its interval covers whenever
  the grid leaves it unambiguous. Its verdict does not use it: each x's seed-mean is placed by its Student
  t-interval, and the coverage column gives those intervals' coverage of the planted mean; the crossing's is
  shown beside it, also on a design with a mean at ε (where the crossing is ambiguous).

    python benchmarks/calibration.py            # ≥ 400 replicates per design: the table in docs/laws-and-verdicts.md
    python benchmarks/calibration.py --quick    # 5 replicates: checks that the script runs (seconds)

Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool

import numpy as np
import pandas as pd

from iclscale.analysis.evaluate import decide
from iclscale.analysis.kinds import Curve, Linear, PowerLaw, Threshold, Trend
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
    shift: float = 0.0  # thresholds: the planted crossing moved by this many x steps
    independent: bool = False  # `iclscale fit --independent`: every row taken as its own model (the OLS interval)


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
    Design("3 seeds × 6 x, a mean at ε", sd=0.3, shift=0.5),
)
CURVE_DESIGNS = (
    Design("3 seeds × 6 x"),
    Design("5 seeds × 6 x", seeds=5),
    Design("10 seeds × 4 x", seeds=10, levels=4),
    Design("unbalanced: 3 seeds at one x, 1 at 5", unbalanced=True),
    Design("3 seeds × 6 x, t(4) scatter", tails="t4"),
    Design("1 seed × 8 x", seeds=1, levels=8),
    Design("paired: 5 seeds × 6 x", seeds=5, paired=True),
)
# `iclscale fit --x x --y y --exponent -1` on the planted power laws, as a table: its own choice of interval
# (iclscale.analysis.userfit: per-seed where every seed is measured at every x, as here) and dropping of rows
FIT_DESIGNS = (
    Design("paired: 3 seeds × 6 x", paired=True),
    Design("paired: 5 seeds × 6 x", seeds=5, paired=True),
    Design("paired: 3 seeds × 6 x, --independent (the pooled interval)", paired=True, independent=True),
    Design("independent points: 3 seeds × 6 x"),
    Design("independent points: 3 seeds × 6 x, --independent", independent=True),
)
CURVE_C, CURVE_WRONG = 2.0, 2.25  # C of T = A/(1 − 1/(Cα)) against the band 2 ± 0.1: 0.15 outside it
CURVE_X = 0.6  # α = 0.6 … 6 over a decade: 1 − 1/(Cα) runs 0.17 … 0.92, T falls about 5-fold


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


def trend_order(levels: int, case: str) -> np.ndarray:
    """The planted means' order over the x values (the means are 0.6 × this): "effect" rising throughout
    (ρ = 1), "interior" with the two middle values swapped (ρ inside (0.5, 1): a truth the interval can miss
    on either side), "wrong" the order whose ρ is the largest below 0.5 (just outside the band [0.5, 1]),
    "none" flat (ρ undefined)."""
    rising = np.arange(levels, dtype=float)
    if case == "effect":
        return rising
    if case == "interior":
        middle = levels // 2
        rising[[middle - 1, middle]] = rising[[middle, middle - 1]]
        return rising
    if case == "wrong":
        below = [(spearman(p), p) for p in itertools.permutations(range(levels)) if spearman(p) < 0.5 - 1e-9]
        return np.array(max(below)[1], dtype=float)
    return np.zeros(levels)


def spearman(order) -> float:
    """Spearman's ρ between x's order and a permutation of it (no ties): 1 − 6Σd²/(k(k² − 1))."""
    k = len(order)
    return 1 - 6 * sum((r - i) ** 2 for i, r in enumerate(order)) / (k * (k * k - 1))


def trend_points(design: Design, case: str, rng):
    x, seed = layout(design, rng)
    rank = np.searchsorted(np.unique(x), x)
    means = 1.0 + 0.6 * trend_order(design.levels, case)
    return x, means[rank] + scatter(design, rng, len(x)), seed, np.zeros(len(x), bool)


def threshold_means(design: Design) -> np.ndarray:
    """The planted mean error per x: 0.01·e^{−1.5·(rank − middle)}·E[e^noise] (log-normal scatter), falling
    through ε = 0.01 between the middle x values (`shift` moves the crossing by that many x steps)."""
    middle = (design.levels - 1) / 2 + design.shift
    return 0.01 * np.exp(-1.5 * (np.arange(design.levels) - middle)) * math.exp(design.sd**2 / 2)


def threshold_points(design: Design, rng):
    x, seed = layout(design, rng)
    rank = np.searchsorted(np.unique(x), x)
    y = threshold_means(design)[rank] * np.exp(scatter(design, rng, len(x)) - design.sd**2 / 2)
    return x, y, seed, np.zeros(len(x), bool)


def curve_points(design: Design, constant: float, rng):
    """log T = log 10 − log(1 − 1/(Cα)) + noise over α = 0.6 … 6 ([LW23] Thm 1's curve, as
    feature_selector.T_vs_alpha_curve fits it); paired: each seed its own level and C (sd 0.03)."""
    x, seed = layout(design, rng)
    alpha = CURVE_X * x
    constants = np.full(len(x), constant)
    log_y = math.log(10.0) + scatter(design, rng, len(x))
    if design.paired:
        constants = constant + rng.normal(0.0, 0.03, seed.max() + 1)[seed]
        log_y = log_y + rng.normal(0.0, design.sd, seed.max() + 1)[seed]
    log_y = log_y - np.log(1 - 1 / (constants * alpha))
    return alpha, np.exp(log_y), seed, np.zeros(len(x), bool)


def curve_kind() -> Curve:
    """The catalogue's own kind: feature_selector.T_vs_alpha_curve (iclscale/papers/feature_selector/laws)."""
    from iclscale.papers.feature_selector.laws.iterations import T_VS_ALPHA_CURVE

    return T_VS_ALPHA_CURVE.kind


# Laws --------------------------------------------------------------------------------------------------
def group_of(x, y, seed, censored, paired: bool) -> Group:
    """The planted points as one group: each x its own stratum (a train-role x), or one stratum (paired)."""
    rows = pd.DataFrame({"x": x, "value": y, "seed": seed, "censored": censored, "left_censored": False}).assign(
        stratum="" if paired else pd.Series(x).map("{:.6g}".format)
    )
    return Group({}, {}, rows, rows.iloc[0:0], 0, paired)


def fit_judged(x, y, seed, design: Design):
    """(estimate, verdict) of `iclscale fit --x x --y y --exponent -1 [--independent]` on the planted table."""
    from iclscale.analysis.userfit import ad_hoc_law, judge_table

    table = pd.DataFrame({"x": x, "y": y, "seed": seed})
    law = ad_hoc_law("x", "y", THEORY, None)
    found = judge_table("planted", table, law, "x", "y", independent=design.independent)
    return found.fit, found.fit.verdict


def judged(law: Law, group: Group):
    """(estimate, verdict) of the law on the group, by iclscale.analysis.evaluate's skeleton."""
    prediction = law.kind.predict(law, group)
    estimate = law.kind.estimate(law, group, prediction, None, {})
    return estimate, decide(law, group, prediction, estimate)


def law_of(kind_name: str, band: Band | None, paired: bool) -> Law:
    kinds = {"power law": PowerLaw(threshold_factors=()), "line": Linear(), "trend": Trend(), "curve": curve_kind()}
    kind = kinds.get(kind_name)
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
def planted(kind: str, design: Design, case: str, rng):
    """(points, band, target): the planted data, the law's band and the value the interval should hold (None:
    no value, e.g. ρ of flat means)."""
    if kind in ("power law", "iclscale fit"):
        truth, bend = {"at theory": (THEORY, 0.0), "wrong": (WRONG, 0.0), "bent": (THEORY, BEND)}[case]
        return power_points(design, truth, bend, rng), Band.point(THEORY), truth
    if kind == "line":
        slope = {"effect": 1.0, "none": 0.0}[case]
        return line_points(design, slope, rng), Band(0.0, math.inf), slope / 10  # x spans 0…10
    if kind == "trend":
        truth = spearman(trend_order(design.levels, case)) if case != "none" else None
        return trend_points(design, case, rng), Band(0.5, 1.0), truth
    if kind == "curve":
        truth = {"at theory": CURVE_C, "wrong": CURVE_WRONG}[case]
        return curve_points(design, truth, rng), Band(CURVE_C - 0.1, CURVE_C + 0.1), truth
    # threshold: the law's x0 is the true crossing (the first x whose mean error is ≤ ε), or one x later
    means = threshold_means(design)
    levels = np.geomspace(1.0, 10**design.decades, design.levels)
    crossing = int(np.argmax(means <= 0.01))
    claimed = levels[crossing + (case == "wrong")]
    return threshold_points(design, rng), Band.point(float(claimed)), float(levels[crossing])


def run_task(task):
    kind, design, case, replicates, seed0 = task
    rng = np.random.default_rng(seed0)
    counts = {"consistent": 0, "inconsistent": 0, "inconclusive": 0, "covered": 0, "intervals": 0}
    counts |= {"means covered": 0, "means": 0}
    for _ in range(replicates):
        points, band, target = planted(kind, design, case, rng)
        x, y, seed, censored = points
        if kind == "iclscale fit":
            fit, verdict = fit_judged(x, y, seed, design)
        else:
            law = law_of(kind, band, design.paired)
            fit, verdict = judged(law, group_of(x, y, seed, censored, design.paired))
        counts[verdict.verdict] = counts.get(verdict.verdict, 0) + 1
        if target is not None and math.isfinite(fit.ci_low) and math.isfinite(fit.ci_high):
            counts["intervals"] += 1
            counts["covered"] += fit.ci_low - 1e-9 <= target <= fit.ci_high + 1e-9
        if kind == "threshold":  # the verdict's own intervals: each x's seed-mean, Student t
            levels = fit.details["levels"]
            truth = threshold_means(design)
            counts["means"] += len(levels)
            counts["means covered"] += int(np.sum((levels["low"] <= truth) & (truth <= levels["high"])))
        counts["method"] = fit.interval_method.split(" (")[0]
    return kind, design.name, case, replicates, counts


CASES = {
    "power law": ("at theory", "wrong", "bent"),
    "line": ("effect", "none"),
    "trend": ("effect", "none", "interior", "wrong"),
    "threshold": ("effect", "wrong"),
    "curve": ("at theory", "wrong"),
    "iclscale fit": ("at theory", "wrong", "bent"),
}
DESIGNS = {
    "power law": POWER_DESIGNS,
    "line": LINE_DESIGNS,
    "trend": TREND_DESIGNS,
    "threshold": THRESHOLD_DESIGNS,
    "curve": CURVE_DESIGNS,
    "iclscale fit": FIT_DESIGNS,
}


def tasks(replicates: int, kinds=tuple(CASES)):
    out, seed = [], 0
    for kind, cases in CASES.items():
        for design in DESIGNS[kind]:
            for case in cases:
                seed += 1
                if kind in kinds:
                    out.append((kind, design, case, replicates, seed))
    return out


COVERAGE_CASE = {"line": "effect", "trend": "interior", "threshold": "effect"}  # else "at theory"
POWER_CASE = {"power law": "at theory", "curve": "at theory", "iclscale fit": "at theory"}  # else "effect"
FALSE_CASES = {"line": ("none",), "trend": ("wrong", "none")}  # else ("wrong",)


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
        replicates, good = cases[POWER_CASE.get(kind, "effect")]
        covering = cases[COVERAGE_CASE.get(kind, "at theory")][1]
        coverage, method = share(covering["covered"], covering["intervals"]), covering["method"]
        if kind == "threshold":  # the verdict rests on each x's t-interval; the crossing's is shown beside it
            coverage, method = share(good["means covered"], good["means"]), f"Student t per x (crossing: {coverage})"
        false_consistent = max(cases[c][1]["consistent"] / cases[c][0] for c in FALSE_CASES.get(kind, ("wrong",)))
        bent = share(cases["bent"][1]["consistent"], cases["bent"][0]) if "bent" in cases else "—"
        lines.append(
            f"| {kind} | {name} | {method} | {coverage} | {share(good['consistent'], replicates)} | "
            f"{share(good['inconsistent'], replicates)} | {false_consistent:.3f} | {bent} |"
        )
    return "\n".join(lines)


def run_all(function, work: list, workers: int) -> list:
    """`function` over the tasks, in up to 2 processes (a shared machine has no more to give)."""
    workers = max(1, min(workers, 2))
    if workers == 1:
        return [function(t) for t in work]
    with Pool(workers) as pool:
        return pool.map(function, work, chunksize=1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 replicates per design (a smoke test)")
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--kinds", nargs="+", choices=tuple(CASES), default=tuple(CASES), help="only these kinds")
    parser.add_argument("--workers", type=int, default=2, help="processes (2 at most on a shared machine)")
    args = parser.parse_args(argv)
    replicates = 5 if args.quick else args.replicates
    start = time.perf_counter()
    results = run_all(run_task, tasks(replicates, args.kinds), args.workers)
    print(table(results))
    print(f"\n{replicates} replicates per design and case; {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

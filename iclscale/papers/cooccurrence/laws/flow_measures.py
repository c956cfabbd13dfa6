"""Measures on a run's curves against a recorded time (gradient-flow time t = η·step, `gf_time`), for laws
about training dynamics ([Y24]'s phases), where the step is the wrong clock: runs at different step sizes
are compared at equal t. Here, in the paper's folder, because only [Y24]'s laws use them (a second paper that
needs them would move them to iclscale/papers/common/).

- `FirstTimeReaching`: the first recorded t at which a metric crosses a threshold (T1: min_i y_iF_i ≥ 0).
  Censored like `first_step_reaching` (never reached: right-censored at the last t; reached at the first
  record after t = 0: left-censored).
- `SlopeAfter`: the least-squares slope of a transformed metric against t over the records from `factor`
  × the time a start metric crosses its threshold to the end: "reciprocal" fits 1/metric = κ·t + b (a loss
  falling as 1/(κt)), "loglog" fits log metric against log(t − t_start) (the local exponent after the start).
  Censored where the start is never reached or fewer than 3 records lie in the window.
- `ChangeFromStart`: the last recorded value minus the first (a score's change over training).
- `PhaseValue`: a statistic of the metric over a phase: its value at the phase's first record, its relative
  growth metric(end)/metric(start) − 1, its largest value or its median; censored where the phase never starts.
- `LevelTimeSlope`: how the time to reach a level ε after the phase's start grows as ε falls: the log–log
  slope of t_ε − t_start against 1/ε − 1/metric(t_start) (1 for a metric falling as 1/(κt)).
- `InitialValue`: the value recorded at step 0 (a rate at initialisation), optionally its absolute value and
  divided by another metric's value at step 0.
- `FractionAfter`: the fraction of records in the same window at which a metric lies in [low, high], for
  sign and inequality claims said to hold throughout a phase.
- `AtLevel`: a metric (or its change since step 0, or its ratio to another metric) at the first record at which
  a level metric has fallen to a level: a claim stated at the time T* the loss reaches a level ([Y24] Thm 3.3),
  not at the end of a run. Censored (NaN) where the run never gets there.

Hand-written on pandas (no library computes windows keyed on another curve's crossing); the slope is
numpy's polyfit, degree 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from iclscale.analysis.measures import Measure, _by_run, first_step_reaching

KEYS = ["run_id", "eval_key"]
TIME = "gf_time"


def time_of_steps(curves: pd.DataFrame, steps: pd.DataFrame, time: str = TIME) -> pd.Series:
    """The recorded time at each (run_id, step) of `steps` (NaN where it was not recorded)."""
    clock = _by_run(curves, time)[["run_id", "step", "value"]].rename(columns={"value": "t"})
    return steps.merge(clock, on=["run_id", "step"], how="left")["t"]


def first_time_reaching(
    curves: pd.DataFrame, metric: str, threshold: float, below: bool = True, time: str = TIME
) -> pd.DataFrame:
    """first_step_reaching in time: value = the time at the first step (at the last one where censored)."""
    found = first_step_reaching(curves, metric, threshold, below)
    found["value"] = time_of_steps(curves, found.assign(step=found["value"]), time).to_numpy()
    last = _by_run(curves, time).groupby("run_id")["value"].max()
    never = found["value"].isna() & found["censored"]  # right-censored at the run's last time
    if never.any():
        found.loc[never, "value"] = found.loc[never, "run_id"].map(last).astype(float)
    return found


def window_after(curves, metric, start, factor, time=TIME) -> pd.DataFrame:
    """The records of `metric` at t ≥ factor · (the start time of its run): run_id, eval_key, t, value."""
    points = _by_run(curves, metric)
    points["t"] = time_of_steps(curves, points[["run_id", "step"]], time).to_numpy()
    begins = start.loc[~start["censored"], ["run_id", "value"]].rename(columns={"value": "begin"})
    points = points.merge(begins, on="run_id", how="inner")
    return points[points["t"] >= factor * points["begin"]]


def _per_run(window: pd.DataFrame, start: pd.DataFrame, reduce, min_records: int) -> pd.DataFrame:
    rows = []
    for (run_id, eval_key), part in window.groupby(KEYS, sort=False):
        value = reduce(part) if len(part) >= min_records else np.nan
        rows.append({"run_id": run_id, "eval_key": eval_key, "value": value})
    values = pd.DataFrame(rows, columns=[*KEYS, "value"])
    everyone = start[["run_id"]].drop_duplicates().merge(values, on="run_id", how="left")
    everyone["eval_key"] = everyone["eval_key"].fillna("")
    everyone["censored"] = ~np.isfinite(everyone["value"].astype(float))
    return everyone.assign(left_censored=False)


def slope(part: pd.DataFrame, transform: str) -> float:
    t, y = part["t"].to_numpy(float), part["value"].to_numpy(float)
    if transform == "reciprocal":  # 1/y = κ t + b
        return float(np.polyfit(t, 1.0 / y, 1)[0])
    t = t - part["begin"].to_numpy(float)  # "loglog": log y = p log(t − t_start) + c
    keep = (t > 0) & (y > 0)
    return float(np.polyfit(np.log(t[keep]), np.log(y[keep]), 1)[0]) if keep.sum() >= 2 else np.nan


@dataclass(frozen=True)
class Window:
    """Where a phase starts: the first time `metric` crosses `threshold`, times `factor`."""

    metric: str
    threshold: float
    below: bool = False
    factor: float = 1.0

    def text(self) -> str:
        crossing = f"{self.metric} {'≤' if self.below else '≥'} {self.threshold:g}"
        return f"t ≥ {self.factor:g}·(first t with {crossing})"

    def start(self, curves) -> pd.DataFrame:
        return first_time_reaching(curves, self.metric, self.threshold, self.below)


@dataclass(frozen=True)
class FirstTimeReaching(Measure):
    """The first recorded gradient-flow time at which the metric is ≤ threshold (≥ with below=False)."""

    threshold: float = 0.0
    below: bool = True

    def describe(self) -> str:
        return f"first {TIME} with {self.metric} {'≤' if self.below else '≥'} {self.threshold:g}"

    @property
    def label(self) -> str:
        return f"first {TIME} with {self.metric} {'<=' if self.below else '>='} {self.threshold:g}"

    def per_run(self, results, rows):
        return self._join(rows, first_time_reaching(results.curves, self.metric, self.threshold, self.below))


@dataclass(frozen=True)
class SlopeAfter(Measure):
    """The slope of 1/metric ("reciprocal") or of log metric vs log t ("loglog") over a phase's records."""

    window: Window | None = None
    transform: str = "reciprocal"

    def describe(self) -> str:
        what = f"1/{self.metric} vs {TIME}" if self.transform == "reciprocal" else f"log {self.metric} vs log(t − t0)"
        return f"least-squares slope of {what} over {self.window.text()}"

    @property
    def label(self) -> str:
        return f"slope of {'1/' if self.transform == 'reciprocal' else 'log '}{self.metric}"

    def per_run(self, results, rows):
        start = self.window.start(results.curves)
        points = window_after(results.curves, self.metric, start, self.window.factor)
        return self._join(rows, _per_run(points, start, lambda p: slope(p, self.transform), 3))


@dataclass(frozen=True)
class FractionAfter(Measure):
    """The fraction of a phase's records at which low ≤ metric ≤ high."""

    window: Window | None = None
    low: float = -np.inf
    high: float = np.inf

    def describe(self) -> str:
        return f"fraction of records over {self.window.text()} with {self.low:g} ≤ {self.metric} ≤ {self.high:g}"

    @property
    def label(self) -> str:
        return f"fraction with {self.low:g} <= {self.metric} <= {self.high:g}"

    def per_run(self, results, rows):
        start = self.window.start(results.curves)
        points = window_after(results.curves, self.metric, start, self.window.factor)

        def share(part):
            return float(((part["value"] >= self.low) & (part["value"] <= self.high)).mean())

        return self._join(rows, _per_run(points, start, share, 1))


@dataclass(frozen=True)
class ChangeFromStart(Measure):
    """The last recorded value of the metric minus its first (at step 0)."""

    def describe(self) -> str:
        return f"{self.metric}(end) − {self.metric}(0)"

    @property
    def label(self) -> str:
        return f"change of {self.metric}"

    def per_run(self, results, rows):
        points = _by_run(results.curves, self.metric).groupby(KEYS, as_index=False)["value"]
        change = points.last().assign(value=lambda d: d["value"] - points.first()["value"].to_numpy())
        return self._join(rows, change.assign(censored=False, left_censored=False))


@dataclass(frozen=True)
class InitialValue(Measure):
    """The metric at step 0, |·| if `absolute`, divided by metric `over` at step 0 if given."""

    absolute: bool = False
    over: str | None = None

    def describe(self) -> str:
        value = f"|{self.metric}|" if self.absolute else self.metric
        return f"{value} / {self.over} at step 0" if self.over else f"{value} at step 0"

    @property
    def label(self) -> str:
        return self.describe().replace(" at step 0", "(0)")

    def per_run(self, results, rows):
        def at_start(metric):
            points = _by_run(results.curves, metric)
            return points[points["step"] == 0].set_index(KEYS)["value"]

        value = at_start(self.metric).abs() if self.absolute else at_start(self.metric)
        if self.over:
            value = value / at_start(self.over).reindex(value.index)
        out = value.rename("value").reset_index()
        return self._join(rows, out.assign(censored=~np.isfinite(out["value"]), left_censored=False))


PHASE_STATISTICS = {
    "start": lambda values: values[0],  # at the phase's first record
    "growth": lambda values: values[-1] / values[0] - 1,  # relative growth over the phase
    "max": np.max,
    "median": np.median,
}


@dataclass(frozen=True)
class PhaseValue(Measure):
    """A statistic of the metric over a phase's records (`PHASE_STATISTICS`): its value at the phase's first
    record ("start"), metric(end)/metric(start) − 1 ("growth"), its largest value ("max") or its median."""

    window: Window | None = None
    statistic: str = "start"

    def __post_init__(self):
        if self.statistic not in PHASE_STATISTICS:
            raise ValueError(f"statistic must be one of {sorted(PHASE_STATISTICS)}, got {self.statistic!r}")

    def describe(self) -> str:
        phase = f"the records with {self.window.text()}"
        return {
            "start": f"{self.metric} at the first of {phase}",
            "growth": f"{self.metric}(end)/{self.metric}(start) − 1 over {phase}",
            "max": f"the largest {self.metric} over {phase}",
            "median": f"the median of {self.metric} over {phase}",
        }[self.statistic]

    @property
    def label(self) -> str:
        return {
            "start": f"{self.metric} at the phase start",
            "growth": f"relative growth of {self.metric} in the phase",
            "max": f"largest {self.metric} in the phase",
            "median": f"median {self.metric} in the phase",
        }[self.statistic]

    def per_run(self, results, rows):
        start = self.window.start(results.curves)
        points = window_after(results.curves, self.metric, start, self.window.factor).sort_values("t")
        reduce = PHASE_STATISTICS[self.statistic]
        return self._join(rows, _per_run(points, start, lambda part: float(reduce(part["value"].to_numpy())), 1))


@dataclass(frozen=True)
class LevelTimeSlope(Measure):
    """The log–log slope of (t_ε − t_start) against (1/ε − 1/metric(t_start)) over the levels ε that the run
    reaches after the window's start, t_ε the first record with metric ≤ ε: 1 when 1/metric grows linearly in
    t from the start (the time to reach loss ε of a loss falling as 1/(κt)). NaN (censored) with fewer than
    3 levels reached."""

    window: Window | None = None
    levels: tuple[float, ...] = ()

    def describe(self) -> str:
        levels = ", ".join(f"{level:g}" for level in self.levels)
        return (
            f"slope of log(t_ε − t0) vs log(1/ε − 1/{self.metric}(t0)), t_ε the first t with {self.metric} ≤ ε "
            f"(ε ∈ {{{levels}}}), t0 = {self.window.text().removeprefix('t ≥ ')}"
        )

    @property
    def label(self) -> str:
        return f"slope of the time to reach {self.metric} ≤ ε"

    def per_run(self, results, rows):
        start = self.window.start(results.curves)
        points = window_after(results.curves, self.metric, start, self.window.factor).sort_values("t")
        return self._join(rows, _per_run(points, start, self._slope, 1))

    def _slope(self, part: pd.DataFrame) -> float:
        t, value = part["t"].to_numpy(float), part["value"].to_numpy(float)
        t0, start = t[0], value[0]
        reached = [
            (level, t[np.argmax(value <= level)]) for level in self.levels if level < start and (value <= level).any()
        ]
        if len(reached) < 3:
            return np.nan
        excess = np.array([1 / level - 1 / start for level, _ in reached])
        elapsed = np.array([when - t0 for _, when in reached])
        return float(np.polyfit(np.log(excess), np.log(elapsed), 1)[0])


@dataclass(frozen=True)
class AtLevel(Measure):
    """The metric at T* = the first record with `level_metric` ≤ `level` ([Y24] Thm 3.3: T* = min{t : L̂(t) =
    Θ(1/poly(m))}, read at one level for every config); with `change`, minus its value at step 0; with `over`,
    divided by that metric at the same record. NaN and censored where the level is never reached."""

    level_metric: str = "loss"
    level: float = 0.01
    change: bool = False
    over: str | None = None

    def describe(self) -> str:
        value = f"{self.metric}(T*) − {self.metric}(0)" if self.change else f"{self.metric}(T*)"
        value += f" / {self.over}(T*)" if self.over else ""
        return f"{value}, T* the first record with {self.level_metric} ≤ {self.level:g}"

    @property
    def label(self) -> str:
        what = f"change of {self.metric}" if self.change else self.metric
        return f"{what}{'/' + self.over if self.over else ''} at {self.level_metric} <= {self.level:g}"

    def per_run(self, results, rows):
        curves = results.curves
        hit = first_step_reaching(curves, self.level_metric, self.level)
        hit = hit.loc[~hit["censored"], ["run_id", "value"]].rename(columns={"value": "step"})
        points = _by_run(curves, self.metric)
        at = points.merge(hit, on=["run_id", "step"], how="inner")[[*KEYS, "value"]]
        if self.change:
            first = points.groupby(KEYS, as_index=False)["value"].first().rename(columns={"value": "first"})
            at = at.merge(first, on=KEYS).assign(value=lambda d: d["value"] - d["first"]).drop(columns="first")
        if self.over:
            other = _by_run(curves, self.over).merge(hit, on=["run_id", "step"], how="inner")
            at = at.merge(other[["run_id", "value"]].rename(columns={"value": "other"}), on="run_id")
            at = at.assign(value=lambda d: d["value"] / d["other"]).drop(columns="other")
        everyone = points[KEYS].drop_duplicates().merge(at, on=KEYS, how="left")
        everyone["censored"] = ~np.isfinite(everyone["value"].astype(float))
        return self._join(rows, everyone.assign(left_censored=False))

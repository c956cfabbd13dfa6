"""Measures: one number per run (or per group and seed) that a law is stated about, with a
censoring flag for the runs where the number does not exist (a threshold never reached).

Functions work on DataFrames; the small `Measure` classes name a measure inside a law and apply
the function to a results directory. Every measure returns a table with the rows' identity
(run_id, eval_key or the group columns, seed), `value` and `censored`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from iclscale.analysis.searched import searched_table, use_searched

if TYPE_CHECKING:
    import pandas as pd

    from iclscale.analysis.reader import Results


# Functions on tables --------------------------------------------------------------------------
def final_value(runs: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The runs table's final metric as `value` (never censored)."""
    out = runs.copy()
    out["value"] = runs[metric].astype(float) if metric in runs else np.nan
    out["censored"] = False
    out["left_censored"] = False
    return out


def _by_run(curves: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One metric's curve points, ordered by step; eval-independent metrics get eval_key ""."""
    points = curves[curves["metric"] == metric][["run_id", "eval_key", "step", "value"]].copy()
    points["eval_key"] = points["eval_key"].fillna("")
    return points.sort_values(["run_id", "eval_key", "step"])


def mean_of_last(curves: pd.DataFrame, metric: str, k: int) -> pd.DataFrame:
    """Mean of the last k recorded values of a metric per (run_id, eval_key)."""
    points = _by_run(curves, metric)
    last = points.groupby(["run_id", "eval_key"], sort=False).tail(k)
    out = last.groupby(["run_id", "eval_key"], as_index=False)["value"].mean()
    return out.assign(censored=False, left_censored=False)


def first_value(curves: pd.DataFrame, metric: str) -> pd.DataFrame:
    points = _by_run(curves, metric)
    out = points.groupby(["run_id", "eval_key"], as_index=False).first()[["run_id", "eval_key", "value"]]
    return out.assign(censored=False, left_censored=False)


def first_step_reaching(curves: pd.DataFrame, metric: str, threshold: float, below: bool = True) -> pd.DataFrame:
    """The first recorded step at which a metric is ≤ threshold (≥ with below=False), per (run_id, eval_key).
    Censored where only a bound is known: a run that never gets there has T > its last record (value = the
    last record, right-censored); one already there at its first record (after step 0), or at the first record
    after a step-0 record that had not got there, has T in (0, that record], only an upper bound (left-censored:
    the records cannot resolve it). A fit that drops them is biased; iclscale.analysis.censored models them."""
    points = _by_run(curves, metric)
    keys = ["run_id", "eval_key"]
    reached = points["value"] <= threshold if below else points["value"] >= threshold
    hits = points[reached].groupby(keys, as_index=False)["step"].min().rename(columns={"step": "hit"})
    span = points.groupby(keys, as_index=False)["step"].agg(first="min", last="max")
    out = span.merge(hits, on=keys, how="left")
    before = points.merge(out[[*keys, "hit"]], on=keys)
    before = before[before["step"] < before["hit"]].groupby(keys, as_index=False)["step"].max()
    out = out.merge(before.rename(columns={"step": "before"}), on=keys, how="left")
    out["value"] = out["hit"].fillna(out["last"]).astype(float)
    out["left_censored"] = ((out["hit"] == out["first"]) & (out["first"] > 0)) | (out["before"] == 0)
    out["censored"] = out["hit"].isna() | out["left_censored"]
    return out[[*keys, "value", "censored", "left_censored"]]


def threshold_along_axis(
    table: pd.DataFrame, axis: str, value: str, threshold: float, group_by: list[str], below: bool = True
) -> pd.DataFrame:
    """The smallest value of a grid axis at which `value` is ≤ threshold (≥ with below=False), per group
    and seed (e.g. the smallest l_tr with test error ≤ ε for each α). Censored at the grid's edges: where no
    axis value gets there the threshold lies beyond the grid (value = the largest, right-censored); where
    the smallest axis value already does, it may lie below it (left-censored)."""
    keys = [*group_by, "seed"]
    reached = table[value] <= threshold if below else table[value] >= threshold
    hits = table[reached].groupby(keys, as_index=False, dropna=False)[axis].min().rename(columns={axis: "hit"})
    span = table.groupby(keys, as_index=False, dropna=False)[axis].agg(first="min", last="max")
    out = span.merge(hits, on=keys, how="left")
    out["value"] = out["hit"].fillna(out["last"]).astype(float)
    out["left_censored"] = out["hit"] == out["first"]
    out["censored"] = out["hit"].isna() | out["left_censored"]
    return out.drop(columns=["hit", "first", "last"])


# Measures named inside laws -------------------------------------------------------------------
@dataclass(frozen=True)
class Measure:
    """What a law measures. `per_run` returns the runs rows given, with `value` and `censored`."""

    metric: str
    # the quantity as the paper writes it (‖M‖₂, T): headlines and chart axes name it; "" gives the label
    symbol: str = field(default="", kw_only=True)

    threshold = None  # measures with a threshold (ε) are refitted at other ε for the sensitivity
    aggregates_runs = False  # one value per group of runs (e.g. along a grid axis), not one per run

    def describe(self) -> str:
        raise NotImplementedError

    @property
    def label(self) -> str:
        """A short name of the measured quantity (the y column of fits.csv)."""
        return self.metric

    def per_run(self, results: Results, rows: pd.DataFrame) -> pd.DataFrame:
        raise NotImplementedError

    def with_threshold(self, threshold: float) -> Measure:
        return replace(self, threshold=threshold)

    def _join(self, rows: pd.DataFrame, values: pd.DataFrame) -> pd.DataFrame:
        """Attach per-(run_id, eval_key) values to the runs rows; eval-independent curves (eval_key
        "") apply to every eval row of their run."""
        rows = rows.drop(columns=["value", "censored"], errors="ignore")
        rows = rows.drop(columns=["left_censored"], errors="ignore")
        if "left_censored" not in values:
            values = values.assign(left_censored=False)
        independent = values[values["eval_key"] == ""].drop(columns="eval_key")
        dependent = values[values["eval_key"] != ""]
        if len(dependent):
            return rows.merge(dependent, on=["run_id", "eval_key"], how="inner")
        return rows.merge(independent, on="run_id", how="inner")


@dataclass(frozen=True)
class FinalValue(Measure):
    """The metric's value at the end of training (the runs table)."""

    def describe(self) -> str:
        return f"final {self.metric}"

    def per_run(self, results, rows):
        return final_value(rows, self.metric)


@dataclass(frozen=True)
class MeanOfLast(Measure):
    """Mean of the last k records of a curve (smooths the end of a noisy curve)."""

    k: int = 5

    def describe(self) -> str:
        return f"mean of the last {self.k} records of {self.metric}"

    def per_run(self, results, rows):
        return self._join(rows, mean_of_last(results.curves, self.metric, self.k))


@dataclass(frozen=True)
class RelativeToStart(Measure):
    """Mean of the last k records divided by the first record (how far a curve fell)."""

    k: int = 1

    def describe(self) -> str:
        return f"{self.metric} at the end (mean of last {self.k}) / at the start"

    @property
    def label(self) -> str:
        return f"{self.metric}_end/{self.metric}_start"

    def per_run(self, results, rows):
        end = mean_of_last(results.curves, self.metric, self.k)
        start = first_value(results.curves, self.metric).rename(columns={"value": "start"})
        ratio = end.merge(start[["run_id", "eval_key", "start"]], on=["run_id", "eval_key"])
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio["value"] = ratio["value"] / ratio["start"]
        return self._join(rows, ratio[["run_id", "eval_key", "value", "censored", "left_censored"]])


@dataclass(frozen=True)
class FirstStepReaching(Measure):
    """The first step at which the metric is ≤ threshold (e.g. iterations T to reach error ≤ ε)."""

    threshold: float = 0.0
    below: bool = True

    def describe(self) -> str:
        return f"first step with {self.metric} {'≤' if self.below else '≥'} {self.threshold:g}"

    @property
    def label(self) -> str:
        return f"first step with {self.metric} {'<=' if self.below else '>='} {self.threshold:g}"

    def per_run(self, results, rows):
        return self._join(rows, first_step_reaching(results.curves, self.metric, self.threshold, self.below))


@dataclass(frozen=True)
class SamplesToReach(FirstStepReaching):
    """The training samples seen before the metric is ≤ threshold: batch size × first step (N = B·T,
    e.g. [L24]'s sample complexity). Censored where the first step is."""

    batch: str = "batch_size"

    def describe(self) -> str:
        return f"{self.batch} × {super().describe()} (samples)"

    @property
    def label(self) -> str:
        return f"samples ({self.batch} x {super().label})"

    def per_run(self, results, rows):
        out = super().per_run(results, rows)
        if self.batch not in out:  # a store without a batch size (another study): nothing to measure
            return out.iloc[0:0]
        out["value"] = out["value"] * out[self.batch].astype(float)
        return out


@dataclass(frozen=True)
class ThresholdAlongAxis(Measure):
    """The smallest value of a grid axis at which the final metric is ≤ threshold, per group and
    seed (e.g. the smallest training prompt length l_tr with test error ≤ ε, for each α); in a threshold
    search's results directory, the thresholds it found (iclscale.analysis.searched)."""

    axis: str = ""
    threshold: float = 0.0
    below: bool = True

    aggregates_runs = True

    def describe(self) -> str:
        return f"smallest {self.axis} with final {self.metric} {'≤' if self.below else '≥'} {self.threshold:g}"

    @property
    def label(self) -> str:
        return f"smallest {self.axis} with {self.metric} {'<=' if self.below else '>='} {self.threshold:g}"

    def per_run(self, results, rows):
        # one row per (group, seed): the other params identify the group
        group_by = [p for p in results.params() if p in rows and p != self.axis]
        if self.axis not in rows or self.metric not in rows:  # e.g. another study's store: nothing to measure
            empty = rows.iloc[0:0][[*group_by, "seed"]]
            return empty.assign(value=[], censored=[], left_censored=[], run_id=None, eval_key=None)
        out = threshold_along_axis(rows, self.axis, self.metric, self.threshold, group_by, self.below)
        searched = searched_table(results, self.axis, self.metric, self.threshold, self.below)
        # a threshold search's answers (iclscale.analysis.searched), not the stored values' minimum
        if searched is not None:
            out = use_searched(out, searched)
        if "in_regime" in rows and len(out):  # a (group, seed) is inside the regime when all its runs are
            keys = [*group_by, "seed"]
            grouped = rows.groupby(keys, as_index=False, dropna=False)
            inside = grouped["in_regime"].agg(lambda v: bool(v.all()))
            if "regime_constant" in rows:  # ... and so at the smallest constant any of its runs allows
                inside = inside.merge(grouped["regime_constant"].min(), on=keys)
            out = out.merge(inside, on=keys, how="left")
        return out.assign(run_id=None, eval_key=None)


@dataclass(frozen=True)
class FinalValueScaled(Measure):
    """The final metric divided by a param to a power, e.g. ℒ / L² (a loss in units of its scale)."""

    by: str = ""
    power: float = 1.0

    def describe(self) -> str:
        return f"final {self.metric} / {self.by}^{self.power:g}"

    @property
    def label(self) -> str:
        return f"{self.metric}/{self.by}^{self.power:g}"

    def per_run(self, results, rows):
        out = final_value(rows, self.metric)
        out["value"] = out["value"] / rows[self.by].astype(float) ** self.power
        return out


@dataclass(frozen=True)
class IncreaseOver(Measure):
    """The final metric minus its value at a baseline eval point of the same run, e.g. the hinge loss after
    pruning minus the unpruned hinge loss (the same trained model, the same test prompts). The baseline row
    shares the run and every eval param but `param` (set to `baseline`) and those in `ignore`; a row with no
    baseline row gets NaN (left out of a fit, counted)."""

    param: str = ""
    baseline: str = ""
    ignore: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"final {self.metric} minus its value at {self.param} = {self.baseline} (same run)"

    @property
    def label(self) -> str:
        return f"{self.metric} increase over {self.param}={self.baseline}"

    def per_run(self, results, rows):
        out = final_value(rows, self.metric)
        runs = results.runs  # the baseline rows: the law's own selection leaves them out
        if self.metric not in runs or self.param not in runs:
            return out.assign(value=np.nan)
        keys = ["run_id", *(p for p in results.params("eval") if p in runs and p not in (self.param, *self.ignore))]
        base = runs[(runs[self.param] == self.baseline) & (runs["status"] == "ok")]
        base = base.groupby(keys, as_index=False, dropna=False)[self.metric].mean()
        joined = out[keys].merge(base.rename(columns={self.metric: "_baseline"}), on=keys, how="left")
        out["value"] = out["value"].to_numpy() - joined["_baseline"].astype(float).to_numpy()
        return out


COMBINATIONS = {
    # name: (value from the metric m and the other metric o, how the label writes it)
    "ratio": (lambda m, o: m / o, "{m}/{o}"),
    "difference": (lambda m, o: m - o, "{m} − {o}"),
    "one_minus": (lambda m, o: 1 - m, "1 − {m}"),
    "one_minus_cos_degrees": (lambda m, o: 1 - np.cos(np.deg2rad(m)), "1 − cos({m})"),
}


@dataclass(frozen=True)
class FinalCombination(Measure):
    """A combination of final metrics: metric/other, metric − other, 1 − metric, or 1 − cos(metric°) (e.g.
    the attention mass outside the query's pattern, 1 − attn_same; a neuron's misalignment 1 − cos θ)."""

    other: str = ""
    combine: str = "ratio"

    def __post_init__(self):
        if self.combine not in COMBINATIONS:
            raise ValueError(f"combine must be one of {sorted(COMBINATIONS)}, got {self.combine!r}")

    @property
    def label(self) -> str:
        return COMBINATIONS[self.combine][1].format(m=self.metric, o=self.other)

    def describe(self) -> str:
        return f"final {self.label}"

    def per_run(self, results, rows):
        out = final_value(rows, self.metric)
        other = rows[self.other].astype(float) if self.other in rows else np.nan
        with np.errstate(divide="ignore", invalid="ignore"):
            out["value"] = COMBINATIONS[self.combine][0](out["value"], other)
        return out


@dataclass(frozen=True)
class CurveValues(Measure):
    """Every recorded value of a curve, one row per (run, step): a law against the training step x = "step"
    (e.g. a neuron norm growing linearly in t). All of a run's points come from one model: they are resampled
    together (iclscale.analysis.select treats "step" as a within-model axis)."""

    from_step: int = 1  # step 0 is the initialisation

    def describe(self) -> str:
        return f"{self.metric} at every recorded step ≥ {self.from_step}"

    def per_run(self, results, rows):
        points = _by_run(results.curves, self.metric)
        points = points[points["step"] >= self.from_step].assign(censored=False, left_censored=False)
        joined = self._join(rows, points)
        return joined.assign(step=joined["step"].astype(float))

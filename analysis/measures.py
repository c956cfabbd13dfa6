"""Measures: one number per run (or per group and seed) that a law is stated about, with a
censoring flag for the runs where the number does not exist (a threshold never reached).

Functions work on DataFrames; the small `Measure` classes name a measure inside a law and apply
the function to a results directory. Every measure returns a table with the rows' identity
(run_id, eval_key or the group columns, seed), `value` and `censored`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from analysis.reader import Results


# Functions on tables --------------------------------------------------------------------------
def final_value(runs: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The runs table's final metric as `value` (never censored)."""
    out = runs.copy()
    out["value"] = runs[metric].astype(float) if metric in runs else np.nan
    out["censored"] = False
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
    out["censored"] = False
    return out


def first_value(curves: pd.DataFrame, metric: str) -> pd.DataFrame:
    points = _by_run(curves, metric)
    out = points.groupby(["run_id", "eval_key"], as_index=False).first()[["run_id", "eval_key", "value"]]
    out["censored"] = False
    return out


def first_step_reaching(curves: pd.DataFrame, metric: str, threshold: float, below: bool = True) -> pd.DataFrame:
    """The first recorded step at which a metric is ≤ threshold (≥ with below=False), per
    (run_id, eval_key). A run that never gets there is censored: value NaN, censored True (its
    true step is beyond the last record, so leaving it out biases a fit; the verdict counts it)."""
    points = _by_run(curves, metric)
    reached = points["value"] <= threshold if below else points["value"] >= threshold
    hits = points[reached].groupby(["run_id", "eval_key"], as_index=False)["step"].min()
    every = points[["run_id", "eval_key"]].drop_duplicates()
    out = every.merge(hits, on=["run_id", "eval_key"], how="left").rename(columns={"step": "value"})
    out["value"] = out["value"].astype(float)
    out["censored"] = out["value"].isna()
    return out


def threshold_along_axis(
    table: pd.DataFrame, axis: str, value: str, threshold: float, group_by: list[str], below: bool = True
) -> pd.DataFrame:
    """The smallest value of a grid axis at which `value` is ≤ threshold (≥ with below=False), per
    group and seed (e.g. the smallest l_tr with test error ≤ ε for each α). Censored when no axis
    value gets there: the threshold lies beyond the grid."""
    keys = [*group_by, "seed"]
    reached = table[value] <= threshold if below else table[value] >= threshold
    hits = table[reached].groupby(keys, as_index=False, dropna=False)[axis].min()
    every = table[keys].drop_duplicates()
    out = every.merge(hits, on=keys, how="left").rename(columns={axis: "value"})
    out["value"] = out["value"].astype(float)
    out["censored"] = out["value"].isna()
    return out


# Measures named inside laws -------------------------------------------------------------------
@dataclass(frozen=True)
class Measure:
    """What a law measures. `per_run` returns the runs rows given, with `value` and `censored`."""

    metric: str

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
class OracleMinimiser(Measure):
    """w*, the minimiser of the Monte-Carlo loss over a log-grid of w (study softmax_window_oracle);
    censored when it sits at an end of the grid (the true minimiser lies beyond it)."""

    metric: str = "w_star"
    edge_flag: str = "w_star_at_grid_edge"

    def describe(self) -> str:
        return f"oracle minimiser {self.metric} (censored at the grid's edge)"

    def per_run(self, results, rows):
        out = final_value(rows, self.metric)
        if self.edge_flag in rows:
            out["censored"] = rows[self.edge_flag].fillna(0).astype(float) > 0
        return out


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
        return self._join(rows, ratio[["run_id", "eval_key", "value", "censored"]])


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
    seed (e.g. the smallest training prompt length l_tr with test error ≤ ε, for each α)."""

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
            return rows.iloc[0:0][[*group_by, "seed"]].assign(value=[], censored=[], run_id=None, eval_key=None)
        out = threshold_along_axis(rows, self.axis, self.metric, self.threshold, group_by, self.below)
        if "in_regime" in rows and len(out):  # a (group, seed) is inside the regime when all its runs are
            keys = [*group_by, "seed"]
            inside = rows.groupby(keys, as_index=False, dropna=False)["in_regime"].agg(lambda v: bool(v.all()))
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


# Where a measure starts to rise above a baseline ----------------------------------------------
ONSET_CONFIDENCE = 0.95
ONSET_RESAMPLES = 2000


def cost_onset(
    table: pd.DataFrame, x: str, value: str, baseline: float = 0.0, random_state: int = 0
) -> tuple[float, pd.DataFrame]:
    """Where a measure starts to cost: e.g. the smallest pruning ratio R whose test error exceeds the
    unpruned error (this tool's definition, not from any paper).

    `table` holds one row per (x, seed). Each seed's value at x is paired with the same seed's value at
    x = `baseline` (the same trained model, the same test prompts): Δ_s(x) = value_s(x) − value_s(baseline).
    x *costs* when both
      - the 95% bootstrap interval (over seeds) of the mean increase mean_s Δ_s(x) lies above 0, and
      - that mean increase exceeds the seed-to-seed standard deviation of the baseline value (the
        increase is larger than the scatter between independently trained models).
    Returns (onset: the smallest x > baseline that costs, NaN if none; per-x table with columns x,
    seeds, mean (of the value), increase, increase_low, increase_high, baseline_sd, costs)."""
    import pandas as pd

    usable = table[np.isfinite(table[value].astype(float))]
    base = usable[np.isclose(usable[x].astype(float), baseline)].groupby("seed")[value].mean()
    baseline_sd = float(base.std(ddof=1)) if len(base) > 1 else 0.0
    rng = np.random.default_rng(random_state)
    alpha = (1 - ONSET_CONFIDENCE) / 2
    rows = []
    for level, part in usable.groupby(x, sort=True):
        per_seed = part.groupby("seed")[value].mean()
        paired = (per_seed - base).dropna().to_numpy(float)
        row = {"x": float(level), "seeds": len(per_seed), "mean": float(per_seed.mean())}
        if np.isclose(float(level), baseline) or not len(paired):
            row.update(increase=0.0 if len(paired) else np.nan, increase_low=np.nan, increase_high=np.nan)
            row.update(baseline_sd=baseline_sd, costs=False)
            rows.append(row)
            continue
        increase = float(paired.mean())
        if len(paired) > 1:
            means = paired[rng.integers(0, len(paired), size=(ONSET_RESAMPLES, len(paired)))].mean(axis=1)
            low, high = (float(q) for q in np.quantile(means, [alpha, 1 - alpha]))
        else:
            low = high = increase
        costs = low > 0 and increase > baseline_sd
        row.update(increase=increase, increase_low=low, increase_high=high, baseline_sd=baseline_sd, costs=costs)
        rows.append(row)
    columns = ["x", "seeds", "mean", "increase", "increase_low", "increase_high", "baseline_sd", "costs"]
    levels = pd.DataFrame(rows, columns=columns)
    costing = levels[levels["costs"] & (levels["x"] > baseline)]
    onset = float(costing["x"].min()) if len(costing) else float("nan")
    return onset, levels


def level_means(
    values, levels, resamples: int = ONSET_RESAMPLES, confidence: float = ONSET_CONFIDENCE, random_state: int = 0
) -> pd.DataFrame:
    """Per level: the mean over its seeds and a bootstrap percentile interval of that mean (seeds
    resampled within the level; one seed: the interval is the value itself). Columns x, seeds, mean,
    low, high, sd."""
    import pandas as pd

    values, levels = np.asarray(values, float), np.asarray(levels, float)
    rng = np.random.default_rng(random_state)
    alpha = (1 - confidence) / 2
    rows = []
    for level in np.unique(levels):
        v = values[(levels == level) & np.isfinite(values)]
        if not len(v):
            continue
        if len(v) > 1:
            boot = v[rng.integers(0, len(v), size=(resamples, len(v)))].mean(axis=1)
            low, high = np.quantile(boot, [alpha, 1 - alpha])
        else:
            low = high = v[0]
        sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
        rows.append({"x": float(level), "seeds": len(v), "mean": float(v.mean())} | {"sd": sd})
        rows[-1].update(low=float(low), high=float(high))
    return pd.DataFrame(rows, columns=["x", "seeds", "mean", "low", "high", "sd"])

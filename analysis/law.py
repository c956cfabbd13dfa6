"""What a law is, and how each kind of law is checked against a results directory.

A law names its study, the measure (one number per run), the swept variable x, the predicted value
of a statistic as a point or a band, the citation and the conditions. The prediction may depend on
the group (e.g. on d and the task class), so it is a function `predict(group) -> Prediction`.

Kinds (a new kind subclasses `Law` and implements `evaluate`):

- `PowerLaw`      measure ∝ x^p: fit p per group; the prediction is a band or point for p.
- `BoundLaw`      a statistic of the measure's seed-means (e.g. the smallest over x of ℒ/L²) must
                  lie in a band (e.g. ≥ 1/3).
- `DiagonalMinimum` on a 2-D grid (pretraining value × test value), for each test value the
                  measure is smallest where the two are equal.
- `TransformedPowerLaw` measure ∝ g(param)^p for a fixed function g of one swept param (e.g.
                  T ∝ M1·√log M1: g(M1) = M1·√ln M1, p = 1).
- `ThresholdLaw`  "measure ≤ ε iff x ≥ x0" (or only "if"): each x value's seed-mean is placed on
                  one side of ε and compared with the side the claim puts it on.
- `LinearLaw`     measure = a + b·x on linear axes: the slope b per group (e.g. a loss linear in a
                  pruning rate R).
- `FlatRegionLaw` the measure does not rise above its value at a baseline x (e.g. no pruning) for
                  every x up to a data-given edge (e.g. the share of small neurons).

Every kind selects its rows the same way (`Law.select`): the law's study, status ok, the `where`
filters, an optional row filter (e.g. test tasks from the training distribution), and the regime
flags (a config outside the theorem's conditions is left out and counted). Groups are the law's
`group_by` params plus every other param that varies in the rows and is not one of the law's axes
(a fit over x must hold everything else fixed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from analysis.measures import Measure
from analysis.reader import DERIVED, ingredients, symbol
from analysis.verdict import INSIDE, Band, Verdict, VerdictRule, judge

if TYPE_CHECKING:
    import pandas as pd

    from analysis.fits import PowerLawFit
    from analysis.reader import Results

THRESHOLD_FACTORS = (0.5, 2.0)  # ε refitted at ε/2 and 2ε for the sensitivity (not from any paper)


@dataclass(frozen=True)
class Hypothesis:
    """A predicted value of a law's statistic, with where it comes from."""

    name: str
    band: Band
    source: str  # the paper's theorem/equation, or "not from the paper: why"
    mode: str | None = None  # verdict mode for this hypothesis; None: the law's rule's mode


@dataclass(frozen=True)
class Prediction:
    """The law's prediction for one group: the primary hypothesis decides the verdict; the
    alternatives (other readings of the paper) are judged the same way and shown beside it."""

    primary: Hypothesis
    alternatives: tuple[Hypothesis, ...] = ()


@dataclass
class LawFit:
    """One law checked on one group: the numbers of a fits.csv row plus what the charts need."""

    law: Law
    group: dict[str, Any]
    statistic: str  # what `estimate` is: "exponent" for power laws
    estimate: float
    ci_low: float
    ci_high: float
    prediction: Prediction | None
    verdict: Verdict
    n_points: int = 0
    n_levels: int = 0
    n_censored: int = 0
    n_excluded: int = 0  # outside the law's conditions (regime flags) or not ok (diverged, failed)
    r2: float = math.nan
    interval_method: str = ""
    ols_low: float = math.nan
    ols_high: float = math.nan
    alternatives: list[tuple[Hypothesis, Verdict]] = field(default_factory=list)
    sensitivity: dict[str, float] = field(default_factory=dict)
    combination: dict[str, dict[str, float]] = field(default_factory=dict)
    points: Any = None  # DataFrame: x, value, seed, censored (+ axes) for the charts
    outside_points: Any = None  # DataFrame like `points`: configs outside the theorem's regime
    fit: PowerLawFit | None = None
    details: dict[str, Any] = field(default_factory=dict)  # what a kind's chart needs beyond the points

    @property
    def group_label(self) -> str:
        return ", ".join(f"{k}={_text(v)}" for k, v in self.group.items()) or "all"

    def row(self) -> dict[str, Any]:
        """The fits.csv row: the required columns first, then details."""
        band = self.prediction.primary.band if self.prediction else None
        theory_low, theory_high = (band.low, band.high) if band else (math.nan, math.nan)
        return {
            "law": self.law.name,
            "x": self.law.x_label,
            "y": self.law.measure.label,
            "exponent": self.estimate,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "theory_low": theory_low,
            "theory_high": theory_high,
            "r2": self.r2,
            "n_points": self.n_points,
            "n_censored": self.n_censored,
            "verdict": self.verdict.verdict,
            "group": self.group_label,
            "statistic": self.statistic,
            "reason": self.verdict.reason,
            "theory": self.prediction.primary.name if self.prediction else "",
            "interval_method": self.interval_method,
            "ols_low": self.ols_low,
            "ols_high": self.ols_high,
            "n_levels": self.n_levels,
            "n_excluded": self.n_excluded,
            "alternatives": "; ".join(f"{h.name} {h.band.describe()}: {v.verdict}" for h, v in self.alternatives),
            "sensitivity": "; ".join(f"{k}: {v:.3g}" for k, v in self.sensitivity.items() if math.isfinite(v)),
            "combination": self.combination_text(),
            "citation": self.law.citation,
        }

    def combination_text(self) -> str:
        """The multi-variable fit, and whether its ingredients imply one common exponent of x (their
        implied intervals share a value): if not, the measure does not depend on x's combination alone."""
        if not self.combination:
            return ""
        parts = [
            f"{name}^{c['exponent']:.3g} [{c['ci_low']:.3g}, {c['ci_high']:.3g}] "
            f"(per {symbol(self.law.x)}: {c['implied']:.3g} [{c['implied_low']:.3g}, {c['implied_high']:.3g}])"
            for name, c in self.combination.items()
        ]
        common = max(c["implied_low"] for c in self.combination.values()) <= min(
            c["implied_high"] for c in self.combination.values()
        )
        verdict = "they agree" if common else "they differ: not a function of the combination alone"
        return "; ".join(parts) + f" — implied exponents per {symbol(self.law.x)}: {verdict}"


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "null"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def measured_points(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows a law can use: not censored, with a finite measured value."""
    import numpy as np

    return rows[~rows["censored"] & np.isfinite(rows["value"].astype(float))]


@dataclass(frozen=True)
class Law:
    name: str  # "<paper study>.<claim>", e.g. softmax_window.w_star_vs_Lambda
    study: str  # the study whose results it reads
    claim: str  # one sentence
    citation: str  # paper, theorem, equation
    conditions: str  # when the theory applies
    prediction_text: str  # the prediction in words, for `iclscale laws`
    measure: Measure
    x: str | None  # a param or a derived variable (analysis.reader.DERIVED); None: no swept variable
    predict: Callable[[Mapping[str, Any]], Prediction | None]
    group_by: tuple[str, ...] = ()
    where: Mapping[str, tuple] = field(default_factory=dict)  # param -> allowed values
    row_filter: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    one_row_per_run: bool = True  # eval-independent measures: one row per config, eval params ignored
    regime_flags: tuple[str, ...] = ()  # 0/1 metrics that must be 1 for every seed of a config
    rule: VerdictRule = field(default_factory=VerdictRule)

    kind = "law"

    @property
    def axes(self) -> tuple[str, ...]:
        """Params the law varies (never grouped): x's ingredients."""
        return tuple(ingredients(self.x)) if self.x else ()

    @property
    def x_label(self) -> str:
        return self.x or ""

    @property
    def x_symbol(self) -> str:
        """x as chart axes name it."""
        return symbol(self.x) if self.x else ""

    def evaluate(self, results: Results) -> list[LawFit]:
        raise NotImplementedError

    def describe(self) -> str:
        where = ", ".join(f"{k} ∈ {{{', '.join(map(str, v))}}}" for k, v in self.where.items())
        lines = [
            f"{self.name}  ({self.kind}, study {self.study})",
            f"  claim:      {self.claim}",
            f"  measure:    {self.measure.describe()}" + (f"  vs  x = {self.x_label}" if self.x else ""),
            f"  prediction: {self.prediction_text}",
            f"  source:     {self.citation}",
            f"  conditions: {self.conditions}",
        ]
        if where or self.group_by:
            lines.append(f"  rows:       {where or 'all'}; fitted per {', '.join(self.group_by) or 'group'}")
        return "\n".join(lines)

    # selection ------------------------------------------------------------------------------
    def select(self, results: Results) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The measured rows with status ok (column `in_regime`: False for a config outside the
        theorem's regime), and the rows left out for their status (diverged, failed)."""
        runs = results.runs
        if results.study != self.study:
            empty = runs.iloc[0:0]
            return empty.assign(value=[], censored=[], in_regime=[]), empty
        for param, allowed in self.where.items():
            runs = runs[runs[param].isin(allowed)] if param in runs else runs.iloc[0:0]
        if self.row_filter is not None:
            runs = self.row_filter(runs)
        if self.one_row_per_run:
            runs = runs.drop_duplicates("run_id")
        ok = runs["status"] == "ok"
        measured = self.measure.per_run(results, runs[ok].assign(in_regime=self._inside_regime(results, runs[ok])))
        return measured, runs[~ok]

    def _inside_regime(self, results: Results, runs: pd.DataFrame) -> pd.Series:
        """A config counts only if every flag is 1 for every one of its seeds: dropping single seeds
        would bias the config's mean (the flags depend on the measured value itself)."""
        flags = [f for f in self.regime_flags if f in runs]
        inside = (runs[flags].fillna(0) >= 1).all(axis=1)
        config = [p for p in results.params() if p in runs]
        if not flags or not len(runs) or not config:
            return inside
        key = runs[config].astype(str).agg("|".join, axis=1)
        return inside.groupby(key).transform("all")

    def group_columns(self, results: Results, rows: pd.DataFrame) -> list[str]:
        ignored = set(self.axes) | {"seed"} | set(DERIVED)
        if self.one_row_per_run:
            ignored |= set(results.params("eval"))
        varying = [
            p
            for p in results.params()
            if p in rows and p not in ignored and p not in self.group_by and rows[p].nunique(dropna=False) > 1
        ]
        return [p for p in self.group_by if p in rows] + varying

    def groups(self, results: Results) -> list[tuple[dict[str, Any], pd.DataFrame, pd.DataFrame, int]]:
        """Per group, sorted: (group, rows used, measured rows outside the regime, count left out:
        outside the regime or not ok)."""
        import pandas as pd

        measured, not_ok = self.select(results)
        if self.x and self.x not in measured and all(p in measured for p in self.axes):
            from analysis.reader import add_derived

            measured = add_derived(measured)
        if self.x and self.x not in measured and len(measured):  # the swept variable is not in these results
            return []
        both = pd.concat([measured, not_ok.assign(in_regime=False, not_ok=True)], ignore_index=True)
        if not len(both):
            return []
        both["not_ok"] = both["not_ok"].fillna(False).astype(bool) if "not_ok" in both else False
        columns = self.group_columns(results, both)
        parts = both.groupby(columns, dropna=False, sort=True) if columns else [((), both)]
        out = []
        for key, part in parts:
            key = key if isinstance(key, tuple) else (key,)
            group = dict(zip(columns, (_plain(k) for k in key), strict=True))
            inside = part["in_regime"].astype(bool)
            rows = part[inside].astype({"censored": bool, "value": float})
            outside = part[~inside & ~part["not_ok"]].astype({"censored": bool, "value": float})
            out.append((group, rows, outside, int((~inside).sum())))
        return out

    def judged_alternatives(self, prediction: Prediction | None, ci_low, ci_high, n_points, n_levels, n_censored):
        if prediction is None:
            return []
        out = []
        for h in prediction.alternatives:
            rule = self.rule if h.mode is None else replace(self.rule, mode=h.mode)
            out.append((h, judge(h.band, ci_low, ci_high, n_points, n_levels, n_censored, rule)))
        return out


def _group_key(group: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, _text(v)) for k, v in group.items()))


def _plain(value: Any) -> Any:
    """numpy scalars → Python values; NaN → None (a null param)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


NO_PREDICTION = Verdict("inconclusive", "the law makes no prediction for this group")


@dataclass(frozen=True)
class PowerLaw(Law):
    """measure ∝ x^p: the exponent p is fitted per group (bootstrap interval over seeds) and set
    beside the predicted band. When x is a combination of params (Λ = nL²/σ²) and more than one
    of them varies, a multi-variable fit shows whether the measure depends on that combination."""

    threshold_factors: tuple[float, ...] = THRESHOLD_FACTORS

    kind = "power law"

    def evaluate(self, results: Results) -> list[LawFit]:
        from analysis.fits import fit_power_law, range_sensitivity

        fits = []
        regrouped: dict[float, dict[tuple, pd.DataFrame]] = {}  # ε -> group -> rows (measures over many runs)
        for group, rows, outside, excluded in self.groups(results):
            fit = fit_power_law(rows[self.x], rows["value"], rows["seed"], rows["censored"])
            prediction = self.predict(group)
            evidence = (fit.ci_low, fit.ci_high, fit.n_points, fit.n_cells, fit.n_censored)
            if prediction is None:
                verdict = NO_PREDICTION
            else:
                verdict = judge(prediction.primary.band, *evidence, self.rule)
            sensitivity = {
                f"exponent on {part}": value
                for part, value in range_sensitivity(rows[self.x], rows["value"], rows["censored"]).items()
                if part != "all x"
            }
            sensitivity.update(self._threshold_sensitivity(results, rows, group, regrouped))
            fits.append(
                LawFit(
                    law=self,
                    group=group,
                    statistic="exponent",
                    estimate=fit.exponent,
                    ci_low=fit.ci_low,
                    ci_high=fit.ci_high,
                    prediction=prediction,
                    verdict=verdict,
                    n_points=fit.n_points,
                    n_levels=fit.n_cells,
                    n_censored=fit.n_censored,
                    n_excluded=excluded,
                    r2=fit.r2,
                    interval_method=fit.interval_method,
                    ols_low=fit.ols_low,
                    ols_high=fit.ols_high,
                    alternatives=self.judged_alternatives(prediction, *evidence),
                    sensitivity=sensitivity,
                    combination=self._combination(rows),
                    points=rows.rename(columns={self.x: "x"})[["x", "value", "seed", "censored"]],
                    outside_points=outside.rename(columns={self.x: "x"})[["x", "value", "seed", "censored"]],
                    fit=fit,
                )
            )
        return fits

    def _threshold_sensitivity(
        self, results: Results, rows: pd.DataFrame, group: dict[str, Any] | None = None, regrouped: dict | None = None
    ) -> dict[str, float]:
        """Refit at other thresholds ε (only for measures that have one). A measure computed over many
        runs (the smallest l_tr reaching ε, say) is recomputed from the selected runs, not from `rows`."""
        from analysis.fits import fit_power_law

        if self.measure.threshold is None:
            return {}
        out = {}
        base = rows.drop(columns=["value", "censored"])
        for factor in self.threshold_factors:
            threshold = self.measure.threshold * factor
            if self.measure.aggregates_runs:
                if regrouped is None:
                    regrouped = {}
                if threshold not in regrouped:
                    law = replace(self, measure=self.measure.with_threshold(threshold))
                    regrouped[threshold] = {_group_key(g): r for g, r, _, _ in law.groups(results)}
                again = regrouped[threshold].get(_group_key(group or {}))
                if again is None:
                    continue
            else:
                again = self.measure.with_threshold(threshold).per_run(results, base)
            fit = fit_power_law(again[self.x], again["value"], again["seed"], again["censored"], resamples=0)
            out[f"exponent at ε = {threshold:g}"] = fit.exponent
            out[f"censored at ε = {threshold:g}"] = float(fit.n_censored)
        return out

    def _combination(self, rows: pd.DataFrame) -> dict[str, dict[str, float]]:
        """Fit measure ∝ Π param^a over x's ingredients that vary here; `implied` = a / power is the
        exponent per unit of x each ingredient implies (equal for all if x is the right combination)."""
        from analysis.fits import fit_power_law_multi

        powers = ingredients(self.x)
        varying = [p for p in powers if p in rows and rows[p].nunique() > 1]
        if len(varying) < 2:
            return {}
        fit = fit_power_law_multi({p: rows[p] for p in varying}, rows["value"], rows["seed"], rows["censored"])
        out = {}
        for p in varying:
            low, high = fit.ci[p]
            a, power = fit.exponents[p], powers[p]
            implied = sorted((low / power, high / power))
            out[p] = {
                "exponent": a,
                "ci_low": low,
                "ci_high": high,
                "implied": a / power,
                "implied_low": implied[0],
                "implied_high": implied[1],
            }
        return out


@dataclass(frozen=True)
class BoundLaw(Law):
    """A statistic of the measure's means over seeds must lie in a band, e.g. "for every n the
    linear-attention loss ℒ/L² is ≥ 1/3": statistic = the smallest (over x) mean of ℒ/L².
    The interval is a bootstrap over seeds within each x value. `aggregate` is min, max or mean
    over the x values (or over the one cell when x is None)."""

    aggregate: str = "min"
    statistic_text: str = ""

    kind = "bound"

    def evaluate(self, results: Results) -> list[LawFit]:
        import numpy as np

        from analysis.fits import bootstrap_cell_statistic

        reduce = {"min": np.min, "max": np.max, "mean": np.mean}[self.aggregate]
        fits = []
        for group, rows, _outside, excluded in self.groups(results):
            usable = measured_points(rows)
            cells = usable[self.x] if self.x else np.zeros(len(usable))
            prediction = self.predict(group)
            if len(usable):
                estimate, low, high, method = bootstrap_cell_statistic(
                    usable["value"], cells, lambda means: reduce(means, axis=1)
                )
            else:
                estimate, low, high, method = math.nan, math.nan, math.nan, "none: no points"
            levels = int(np.unique(cells).size)
            evidence = (low, high, len(usable), levels, int(rows["censored"].sum()))
            verdict = NO_PREDICTION if prediction is None else judge(prediction.primary.band, *evidence, self.rule)
            points = usable[["value", "seed", "censored"]].assign(x=cells)[["x", "value", "seed", "censored"]]
            fits.append(
                LawFit(
                    law=self,
                    group=group,
                    statistic=self.statistic_text or f"{self.aggregate} over x of the seed-mean",
                    estimate=estimate,
                    ci_low=low,
                    ci_high=high,
                    prediction=prediction,
                    verdict=verdict,
                    n_points=len(usable),
                    n_levels=levels,
                    n_censored=int(rows["censored"].sum()),
                    n_excluded=excluded,
                    interval_method=method,
                    alternatives=self.judged_alternatives(prediction, *evidence),
                    points=points,
                )
            )
        return fits


@dataclass(frozen=True)
class DiagonalMinimum(Law):
    """On a grid of a pretraining value (`row_axis`, e.g. L) × a test value (`x`, e.g. L'), for each
    test value that is also a pretraining value, the mean measure over seeds should be smallest on
    the diagonal (pretraining = test). Statistic: the fraction of such test values whose minimum
    is on the diagonal; interval: bootstrap over seeds within each grid cell."""

    row_axis: str = ""

    kind = "diagonal minimum"

    @property
    def axes(self) -> tuple[str, ...]:
        return (self.row_axis, self.x) if self.x else (self.row_axis,)

    @property
    def x_label(self) -> str:
        return f"{self.x} vs {self.row_axis}"

    def evaluate(self, results: Results) -> list[LawFit]:
        import numpy as np

        from analysis.fits import bootstrap_cell_statistic

        fits = []
        for group, rows, _outside, excluded in self.groups(results):
            usable = measured_points(rows)
            trained = np.unique(usable[self.row_axis].astype(float))
            tested = np.unique(usable[self.x].astype(float))
            cells = list(zip(usable[self.row_axis].astype(float), usable[self.x].astype(float), strict=True))
            labels = sorted(set(cells))
            # a test value counts when it was also trained on and was measured after at least two
            # pretraining values (a sweep without a transfer grid has only the diagonal: no comparison)
            rivals = {t: sum(np.isclose(test, t) for _, test in labels) for t in tested}
            matched = [t for t in tested if np.isclose(trained, t).any() and rivals[t] >= 2]
            prediction = self.predict(group)
            if len(trained) >= 2 and matched:
                statistic = _diagonal_fraction(labels, matched)
                estimate, low, high, method = bootstrap_cell_statistic(
                    usable["value"], [labels.index(c) for c in cells], statistic
                )
            else:
                estimate, low, high, method = math.nan, math.nan, math.nan, "none: no test value compared"
            evidence = (low, high, len(usable), len(matched), int(rows["censored"].sum()))
            verdict = NO_PREDICTION if prediction is None else judge(prediction.primary.band, *evidence, self.rule)
            points = usable.rename(columns={self.x: "x", self.row_axis: "row"})[
                ["x", "row", "value", "seed", "censored"]
            ]
            fits.append(
                LawFit(
                    law=self,
                    group=group,
                    statistic=f"fraction of test {self.x} values whose best pretraining {self.row_axis} is equal",
                    estimate=estimate,
                    ci_low=low,
                    ci_high=high,
                    prediction=prediction,
                    verdict=verdict,
                    n_points=len(usable),
                    n_levels=len(matched),
                    n_censored=int(rows["censored"].sum()),
                    n_excluded=excluded,
                    interval_method=method,
                    points=points,
                )
            )
        return fits


def _diagonal_fraction(labels: list[tuple[float, float]], matched: list[float]):
    """statistic(means (rows, cells)) -> fraction of matched test values whose argmin over the
    pretraining value is the diagonal cell."""
    import numpy as np

    columns = []
    for test in matched:
        members = [i for i, (_, t) in enumerate(labels) if np.isclose(t, test)]
        diagonal = next(i for i in members if np.isclose(labels[i][0], test))
        columns.append((np.array(members), members.index(diagonal)))

    def statistic(means):
        hits = [means[:, members].argmin(axis=1) == position for members, position in columns]
        return np.mean(hits, axis=0)

    return statistic


@dataclass(frozen=True)
class TransformedPowerLaw(PowerLaw):
    """measure ∝ g(param)^p with g a fixed function of one swept param, e.g. T ∝ M1·√(log M1):
    x = g(M1) = M1·√(ln M1) and the predicted p = 1. `x` names the column g(param) is written to;
    `param` is the swept param (never grouped); `x_text` is how charts and fits.csv write g."""

    param: str = ""
    transform: Callable[[Any], Any] | None = None
    x_text: str = ""

    @property
    def axes(self) -> tuple[str, ...]:
        return (self.param,)

    @property
    def x_label(self) -> str:
        return self.x_text or str(self.x)

    @property
    def x_symbol(self) -> str:
        return self.x_text or str(self.x)

    def select(self, results: Results) -> tuple[pd.DataFrame, pd.DataFrame]:
        import numpy as np

        measured, not_ok = super().select(results)
        if self.param in measured:
            measured = measured.assign(**{self.x: self.transform(np.asarray(measured[self.param], dtype=float))})
        return measured, not_ok


# Threshold claims ("error ≤ ε iff S1 ≥ 1") ---------------------------------------------------------
REACHES, MISSES, UNCLEAR = "≤ ε", "> ε", "unclear"


@dataclass(frozen=True)
class ThresholdLaw(Law):
    """ "measure ≤ ε if (and, with `necessary`, only if) x is on the good side of x0", e.g. OOD error ≤ 0.01
    iff S1 ≥ 1. `predict(group)` gives x0 as a point band. Each x value's seed-mean of the measure gets a
    95% bootstrap interval over seeds and is placed: ≤ ε (the whole interval at or below ε), > ε (the whole
    interval above) or unclear. The verdict (this tool's rule, not from any paper):

    - inconclusive with fewer x values or points than the rule asks, or no x value on a claimed side;
    - inconsistent when some x value lies clearly on the wrong side (on the good side yet > ε; with
      `necessary`, on the other side yet ≤ ε);
    - consistent when every x value on a claimed side lies clearly on its side; otherwise inconclusive.

    The statistic is the crossing: the smallest x from which every larger x has seed-mean ≤ ε (good
    side "above"; "below": the largest x up to which every x has it), with a bootstrap interval over
    seeds; ±∞ when no x qualifies."""

    threshold: float = 0.01
    good_side: str = "above"  # "above": ≤ ε for x ≥ x0; "below": ≤ ε for x ≤ x0
    necessary: bool = True

    kind = "threshold"

    def __post_init__(self):
        if self.good_side not in ("above", "below"):
            raise ValueError(f"good_side must be 'above' or 'below', got {self.good_side!r}")

    def claim_text(self, x0: float | None = None) -> str:
        side = "≥" if self.good_side == "above" else "≤"
        where = "x0" if x0 is None else f"{x0:g}"
        return f"{self.measure.label} ≤ {self.threshold:g} {'iff' if self.necessary else 'if'} {self.x} {side} {where}"

    def evaluate(self, results: Results) -> list[LawFit]:
        from analysis.measures import level_means

        fits = []
        for group, rows, _outside, excluded in self.groups(results):
            usable = measured_points(rows)
            x = usable[self.x].astype(float).to_numpy()
            values = usable["value"].astype(float).to_numpy()
            levels = level_means(values, x)
            prediction = self.predict(group)
            n_censored = int(rows["censored"].sum())
            estimate, low, high, method = self._crossing(values, x, usable["seed"].to_numpy())
            if prediction is None:
                verdict, sides = NO_PREDICTION, levels.assign(side="", expected="", claimed=False)
            else:
                x0 = prediction.primary.band.low
                sides = self._sides(levels, x0)
                verdict = self._verdict(sides, len(usable), n_censored, x0)
            fits.append(
                LawFit(
                    law=self,
                    group=group,
                    statistic=self._statistic_text(),
                    estimate=estimate,
                    ci_low=low,
                    ci_high=high,
                    prediction=prediction,
                    verdict=verdict,
                    n_points=len(usable),
                    n_levels=len(levels),
                    n_censored=n_censored,
                    n_excluded=excluded,
                    interval_method=method,
                    points=usable[["value", "seed", "censored"]].assign(x=x),
                    details={"threshold": self.threshold, "levels": sides},
                )
            )
        return fits

    def _statistic_text(self) -> str:
        if self.good_side == "above":
            return f"smallest {self.x} from which every larger {self.x} has seed-mean ≤ {self.threshold:g}"
        return f"largest {self.x} up to which every {self.x} has seed-mean ≤ {self.threshold:g}"

    def _sides(self, levels: pd.DataFrame, x0: float) -> pd.DataFrame:
        """Per x value: where its seed-mean lies (side), where the claim puts it (expected; "" where the
        claim says nothing), and whether it counts (claimed)."""
        import numpy as np

        good = levels["x"] >= x0 - 1e-9 if self.good_side == "above" else levels["x"] <= x0 + 1e-9
        side = np.where(
            levels["high"] <= self.threshold, REACHES, np.where(levels["low"] > self.threshold, MISSES, UNCLEAR)
        )
        expected = np.where(good, REACHES, MISSES if self.necessary else "")
        return levels.assign(side=side, expected=expected, claimed=expected != "")

    def _verdict(self, sides: pd.DataFrame, n_points: int, n_censored: int, x0: float) -> Verdict:
        from analysis.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT

        total = n_points + n_censored
        if len(sides) < self.rule.min_levels:
            return Verdict(INCONCLUSIVE, f"only {len(sides)} x value(s) with data (needs {self.rule.min_levels})")
        if n_points < self.rule.min_points:
            return Verdict(INCONCLUSIVE, f"only {n_points} point(s) (needs {self.rule.min_points})")
        if total and n_censored / total > self.rule.max_censored_fraction:
            return Verdict(INCONCLUSIVE, f"{n_censored} of {total} points censored")
        good = sides[sides["expected"] == REACHES]
        bad = sides[sides["expected"] == MISSES]
        where = f"{self.x} {'≥' if self.good_side == 'above' else '≤'} {x0:g}"
        if not len(good):
            return Verdict(INCONCLUSIVE, f"no {self.x} value with {where} in the data")
        if self.necessary and not len(bad):
            return Verdict(INCONCLUSIVE, f"no {self.x} value on the other side of {x0:g} in the data")
        claimed = sides[sides["claimed"]]
        wrong = claimed[(claimed["side"] != claimed["expected"]) & (claimed["side"] != UNCLEAR)]

        def text(part):
            return ", ".join(f"{r.x:g} ({r.mean:.3g} [{r.low:.3g}, {r.high:.3g}])" for r in part.itertuples())

        if len(wrong):
            return Verdict(INCONSISTENT, f"on the wrong side of ε = {self.threshold:g} at {self.x} = {text(wrong)}")
        unclear = claimed[claimed["side"] == UNCLEAR]
        if len(unclear):
            return Verdict(INCONCLUSIVE, f"the interval straddles ε = {self.threshold:g} at {self.x} = {text(unclear)}")
        scope = "on both sides" if self.necessary else f"for every {where}"
        return Verdict(CONSISTENT, f"every {self.x} value lies on its predicted side of ε = {self.threshold:g} {scope}")

    def _crossing(self, values, x, seeds) -> tuple[float, float, float, str]:
        """The crossing estimate and its bootstrap interval (seeds resampled within each x value)."""
        import numpy as np

        from analysis.fits import BOOTSTRAP, BOOTSTRAP_RESAMPLES, CONFIDENCE, _bootstrap_indices

        if not len(values):
            return math.nan, math.nan, math.nan, "none: no points"
        labels, cells = np.unique(x, return_inverse=True)
        cells = cells.ravel()
        weights = np.zeros((len(values), len(labels)))
        weights[np.arange(len(values)), cells] = 1.0
        weights /= weights.sum(axis=0, keepdims=True)

        def crossing(means: np.ndarray) -> np.ndarray:
            ok = means <= self.threshold
            if self.good_side == "above":
                stays = np.flip(np.logical_and.accumulate(np.flip(ok, axis=1), axis=1), axis=1)
                first = np.argmax(stays, axis=1)
                return np.where(stays.any(axis=1), labels[first], math.inf)
            upto = np.logical_and.accumulate(ok, axis=1)
            last = upto.shape[1] - 1 - np.argmax(np.flip(upto, axis=1), axis=1)
            return np.where(upto.any(axis=1), labels[last], -math.inf)

        estimate = float(crossing((values @ weights)[None, :])[0])
        indices = _bootstrap_indices(cells, BOOTSTRAP_RESAMPLES, 0)
        if indices is None:
            return estimate, math.nan, math.nan, "none: one seed per x value, nothing to resample"
        boot = crossing(values[indices] @ weights)
        alpha = (1 - CONFIDENCE) / 2
        low, high = np.quantile(boot, [alpha, 1 - alpha], method="inverted_cdf")
        return estimate, float(low), float(high), BOOTSTRAP


# Linear claims ("the loss grows linearly in R") -----------------------------------------------------
@dataclass(frozen=True)
class LinearLaw(Law):
    """measure = a + b·x on linear axes: the slope b is fitted per group by least squares, with a
    bootstrap interval over seeds (resampled within each x value, as for power laws), and judged
    against the predicted band for b. Linearity is shown beside it: R², the slope on the lower and
    upper half of the x values, and the curvature c of a quadratic fit a + b·x + c·x²."""

    kind = "linear"

    def evaluate(self, results: Results) -> list[LawFit]:
        import numpy as np

        fits = []
        for group, rows, _outside, excluded in self.groups(results):
            usable = measured_points(rows)
            x = usable[self.x].astype(float).to_numpy()
            y = usable["value"].astype(float).to_numpy()
            line = fit_line(x, y)
            prediction = self.predict(group)
            n_censored = int(rows["censored"].sum())
            n_levels = len(np.unique(x))
            evidence = (line["ci_low"], line["ci_high"], len(usable), n_levels, n_censored)
            verdict = NO_PREDICTION if prediction is None else judge(prediction.primary.band, *evidence, self.rule)
            levels = np.unique(x)
            half = (len(levels) + 1) // 2
            sensitivity = {
                "slope on lower half of x": fit_line(x[np.isin(x, levels[:half])], y[np.isin(x, levels[:half])])[
                    "slope"
                ],
                "slope on upper half of x": fit_line(
                    x[np.isin(x, levels[len(levels) - half :])], y[np.isin(x, levels[len(levels) - half :])]
                )["slope"],
                "quadratic coefficient": line["curvature"],
                "intercept": line["intercept"],
            }
            fits.append(
                LawFit(
                    law=self,
                    group=group,
                    statistic=f"slope of {self.measure.label} vs {self.x}",
                    estimate=line["slope"],
                    ci_low=line["ci_low"],
                    ci_high=line["ci_high"],
                    prediction=prediction,
                    verdict=verdict,
                    n_points=len(usable),
                    n_levels=n_levels,
                    n_censored=n_censored,
                    n_excluded=excluded,
                    r2=line["r2"],
                    interval_method=line["method"],
                    ols_low=line["ols_low"],
                    ols_high=line["ols_high"],
                    alternatives=self.judged_alternatives(prediction, *evidence),
                    sensitivity=sensitivity,
                    points=usable[["value", "seed", "censored"]].assign(x=x),
                    details={"intercept": line["intercept"], "slope": line["slope"]},
                )
            )
        return fits


def fit_line(x, y, resamples: int | None = None, random_state: int = 0) -> dict[str, Any]:
    """y = a + b·x by least squares: slope, intercept, R², the OLS t-interval of the slope, a bootstrap
    interval over seeds (resampled within each x value; reported when some x has two points) and the
    quadratic coefficient of y = a + b·x + c·x² (NaN with fewer than 4 distinct x)."""
    import numpy as np

    from analysis.fits import BOOTSTRAP, BOOTSTRAP_RESAMPLES, CONFIDENCE, OLS_ONLY, _bootstrap_indices

    x, y = np.asarray(x, float), np.asarray(y, float)
    nan = math.nan
    out = {"slope": nan, "intercept": nan, "r2": nan, "ci_low": nan, "ci_high": nan, "ols_low": nan}
    out.update(ols_high=nan, curvature=nan, method="none: too few points to fit")
    if len(x) < 3 or len(np.unique(x)) < 2:
        return out
    design = np.column_stack([np.ones(len(x)), x])
    solve = np.linalg.pinv(design)
    intercept, slope = solve @ y
    residuals = y - design @ np.array([intercept, slope])
    total = np.sum((y - y.mean()) ** 2)
    out.update(slope=float(slope), intercept=float(intercept))
    out["r2"] = float(1 - np.sum(residuals**2) / total) if total > 0 else nan
    from scipy.special import stdtrit

    dof = len(x) - 2
    se = math.sqrt(np.sum(residuals**2) / dof / np.sum((x - x.mean()) ** 2)) if dof > 0 else nan
    half = float(stdtrit(dof, 0.5 + CONFIDENCE / 2) * se) if dof > 0 else nan
    out.update(ols_low=float(slope - half), ols_high=float(slope + half))
    if len(np.unique(x)) >= 4:
        out["curvature"] = float(np.polyfit(x, y, 2)[0])
    _, cells = np.unique(x, return_inverse=True)
    indices = _bootstrap_indices(cells.ravel(), resamples or BOOTSTRAP_RESAMPLES, random_state)
    if indices is None:
        out.update(ci_low=out["ols_low"], ci_high=out["ols_high"], method=OLS_ONLY)
        return out
    boot = (y[indices] @ solve.T)[:, 1]
    alpha = (1 - CONFIDENCE) / 2
    low, high = np.quantile(boot, [alpha, 1 - alpha])
    out.update(ci_low=float(low), ci_high=float(high), method=BOOTSTRAP)
    return out


# "Free up to an edge" claims (magnitude pruning costs nothing while it removes small neurons) ---------
@dataclass(frozen=True)
class FlatRegionLaw(Law):
    """The measure does not rise above its value at x = `baseline` for any x up to an edge that the
    data give: `edge_metric` (a per-run metric, e.g. the share of small neurons |L^c|/m), averaged over
    the group's runs, is passed to `predict(group)` under its own name, and the prediction's band is
    [edge, ∞) for the statistic, the onset: the smallest x that costs (`analysis.measures.cost_onset`:
    the paired increase over the baseline has a 95% bootstrap interval above 0 and exceeds the baseline's
    seed-to-seed s.d.; this tool's definition, not from any paper).

    Verdict: inconclusive without an x strictly between the baseline and the edge (or with fewer x
    values than the rule asks); inconsistent when such an x costs; consistent otherwise. The interval
    reported for the onset is the grid step that brackets it [last x below it, onset]."""

    baseline: float = 0.0
    edge_metric: str = ""

    kind = "flat region"

    def evaluate(self, results: Results) -> list[LawFit]:
        import numpy as np

        from analysis.measures import cost_onset
        from analysis.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT

        fits = []
        for group, rows, _outside, excluded in self.groups(results):
            usable = measured_points(rows)
            table = usable[[self.x, "value", "seed"]].rename(columns={self.x: "x"}).astype({"x": float})
            onset, levels = cost_onset(table, "x", "value", self.baseline)
            edge = float(usable[self.edge_metric].astype(float).mean()) if self.edge_metric in usable else math.nan
            prediction = self.predict({**group, self.edge_metric: edge})
            inside = levels[(levels["x"] > self.baseline) & (levels["x"] <= edge + 1e-9)]
            tested = levels["x"].to_numpy()
            if prediction is None:
                verdict = NO_PREDICTION
            elif len(levels) < self.rule.min_levels or len(usable) < self.rule.min_points:
                verdict = Verdict(INCONCLUSIVE, f"only {len(levels)} {self.x} value(s), {len(usable)} point(s)")
            elif not np.isfinite(edge):
                verdict = Verdict(INCONCLUSIVE, f"no {self.edge_metric} in the data")
            elif not len(inside):
                verdict = Verdict(INCONCLUSIVE, f"no {self.x} between {self.baseline:g} and the edge {edge:.3g}")
            elif inside["costs"].any():
                first = inside[inside["costs"]].iloc[0]
                verdict = Verdict(
                    INCONSISTENT,
                    f"{self.x} = {first['x']:g} ≤ edge {edge:.3g} already costs: increase {first['increase']:.3g} "
                    f"[{first['increase_low']:.3g}, {first['increase_high']:.3g}] over {self.baseline:g}",
                )
            else:
                verdict = Verdict(
                    CONSISTENT,
                    f"no {self.x} ≤ edge {edge:.3g} costs (tested up to {inside['x'].max():g}); "
                    + (f"the first that costs is {onset:g}" if np.isfinite(onset) else "none in the grid costs"),
                )
            below = tested[tested < onset] if np.isfinite(onset) else tested
            fits.append(
                LawFit(
                    law=self,
                    group=group,
                    statistic=f"smallest {self.x} whose {self.measure.label} rises above that at {self.baseline:g}",
                    estimate=onset,
                    ci_low=float(below.max()) if len(below) and np.isfinite(onset) else math.nan,
                    ci_high=onset,
                    prediction=prediction,
                    verdict=verdict,
                    n_points=len(usable),
                    n_levels=len(levels),
                    n_censored=int(rows["censored"].sum()),
                    n_excluded=excluded,
                    interval_method="the grid step bracketing the onset",
                    points=table.assign(censored=False),
                    details={"edge": edge, "levels": levels, "onset": onset},
                )
            )
        return fits


def inside_rule(**overrides) -> VerdictRule:
    """The verdict rule for inequality claims (the interval must lie inside the band)."""
    return VerdictRule(mode=INSIDE, **overrides)

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
            sensitivity.update(self._threshold_sensitivity(results, rows))
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

    def _threshold_sensitivity(self, results: Results, rows: pd.DataFrame) -> dict[str, float]:
        """Refit at other thresholds ε (only for measures that have one)."""
        from analysis.fits import fit_power_law

        if self.measure.threshold is None:
            return {}
        out = {}
        base = rows.drop(columns=["value", "censored"])
        for factor in self.threshold_factors:
            threshold = self.measure.threshold * factor
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
            usable = rows[~rows["censored"] & np.isfinite(rows["value"])]
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
            points = usable.assign(x=cells)[["x", "value", "seed", "censored"]]
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
            usable = rows[~rows["censored"] & np.isfinite(rows["value"])]
            trained = np.unique(usable[self.row_axis].astype(float))
            tested = np.unique(usable[self.x].astype(float))
            matched = [t for t in tested if np.isclose(trained, t).any()]
            cells = list(zip(usable[self.row_axis].astype(float), usable[self.x].astype(float), strict=True))
            labels = sorted(set(cells))
            prediction = self.predict(group)
            if len(trained) >= 2 and matched:
                statistic = _diagonal_fraction(labels, matched)
                estimate, low, high, method = bootstrap_cell_statistic(
                    usable["value"], [labels.index(c) for c in cells], statistic
                )
            else:
                estimate, low, high, method = math.nan, math.nan, math.nan, "none: no test value is also trained"
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


def inside_rule(**overrides) -> VerdictRule:
    """The verdict rule for inequality claims (the interval must lie inside the band)."""
    return VerdictRule(mode=INSIDE, **overrides)

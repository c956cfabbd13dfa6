"""What a law is: a paper's claim, stated so that a results directory can be checked against it.

A law names its study, the measure (one number per run, `analysis.measures`), the swept variable x, the
predicted value of a statistic as a point or a band, the citation, the conditions in words and, where the
theorem states them on the params, as a predicate (`Regime`), and its *kind*: how the statistic is computed
from the rows (a strategy from `analysis.kinds`: a power law's exponent, a bound on seed-means, a threshold
crossing, a monotone trend, …). The prediction may depend on the group (on d and the task class, say), so it
is a function `predict(params) -> Prediction` of the params that are constant within the group.

`analysis.evaluate` runs every law through one skeleton: select the rows, split them into groups, set aside
the points outside the regime, let the kind estimate its statistic, judge it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from analysis.measures import Measure
from analysis.reader import ingredients, symbol
from analysis.verdict import INSIDE, Band, VerdictRule

if TYPE_CHECKING:
    import pandas as pd

    from analysis.kinds import Kind
    from analysis.lawfit import LawFit
    from analysis.reader import Results


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


@dataclass(frozen=True)
class Regime:
    """A theorem's conditions as data. `inside(rows)` is a predicate on the params (a boolean per row);
    `flags` are 0/1 metrics that must be 1 for every seed of a config (conditions on the measured value
    itself, e.g. the oracle's w* ≥ d + √d); `measured` a predicate computed from the runs' curves (a metric
    at t = 0, over a phase). Points outside are left out of the verdict, counted and drawn grey; a sweep with
    no point inside gets "outside the theorem's conditions", not a verdict."""

    text: str
    inside: Callable[[pd.DataFrame], Any] | None = None
    flags: tuple[str, ...] = ()
    # conditions on measured quantities the runs table does not hold (a metric at t = 0, its largest value over
    # a phase): measured(results, rows) -> a boolean per row, counted like the flags (every seed of a config)
    measured: Callable[[Results, pd.DataFrame], Any] | None = None


@dataclass(frozen=True)
class Law:
    name: str  # "<study>.<claim>", e.g. softmax_window.w_star_vs_Lambda
    study: str  # the study whose results it reads
    claim: str  # one sentence
    citation: str  # paper, theorem, equation
    conditions: str  # when the theory applies, in words
    prediction_text: str  # the prediction in words, for `iclscale laws`
    measure: Measure
    x: str | None  # a param or a derived variable (analysis.reader.DERIVED); None: no swept variable
    predict: Callable[[Mapping[str, Any]], Prediction | None]
    kind: Kind
    group_by: tuple[str, ...] = ()
    where: Mapping[str, tuple] = field(default_factory=dict)  # param -> allowed values
    row_filter: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    one_row_per_run: bool = True  # eval-independent measures: one row per config, eval params ignored
    regime: Regime | None = None
    pool: tuple[str, ...] = ()  # params that vary by design but are never grouped (e.g. Fig 5's task class)
    rule: VerdictRule = field(default_factory=VerdictRule)
    # the negative control (analysis.controls): params where the study's control config lies outside this
    # law's conditions or lacks what it reads (a tuple: a param's levels), or why the law can have none
    control_params: Mapping[str, Any] = field(default_factory=dict)
    no_control: str = ""

    @property
    def axes(self) -> tuple[str, ...]:
        """Params the law varies (never grouped)."""
        return self.kind.axes(self)

    @property
    def x_label(self) -> str:
        return self.kind.x_label(self)

    @property
    def x_symbol(self) -> str:
        """x as chart axes name it."""
        return self.kind.x_symbol(self)

    def evaluate(self, results: Results) -> list[LawFit]:
        from analysis.evaluate import evaluate

        return evaluate(self, results)

    def describe(self) -> str:
        where = ", ".join(f"{k} ∈ {{{', '.join(map(str, v))}}}" for k, v in self.where.items())
        lines = [
            f"{self.name}  ({self.kind.name}, study {self.study})",
            f"  claim:      {self.claim}",
            f"  measure:    {self.measure.describe()}" + (f"  vs  x = {self.x_label}" if self.x else ""),
            f"  prediction: {self.prediction_text}",
            f"  source:     {self.citation}",
            f"  conditions: {self.conditions}",
        ]
        if self.regime is not None:
            lines.append(f"  regime:     {self.regime.text} (points outside are left out of the verdict)")
        if where or self.group_by:
            lines.append(f"  rows:       {where or 'all'}; fitted per {', '.join(self.group_by) or 'group'}")
        from analysis.controls import plan

        lines.append(f"  control:    {plan(self).describe()}")
        return "\n".join(lines)


def default_axes(law: Law) -> tuple[str, ...]:
    return tuple(ingredients(law.x)) if law.x else ()


def default_symbol(law: Law) -> str:
    return symbol(law.x) if law.x else ""


def inside_rule(**overrides) -> VerdictRule:
    """The verdict rule for inequality claims (the interval must lie inside the band)."""
    return VerdictRule(mode=INSIDE, **overrides)


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, and the laws that test it (a catalogue module lists every claim of its paper,
    so `iclscale laws` shows what is covered)."""

    label: str  # e.g. "C1"
    source: str  # theorem, figure, equation
    text: str
    laws: tuple[str, ...]

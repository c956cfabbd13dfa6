"""Negative controls: every law run through its own pipeline on data planted from its prediction.

A control plants a results table where the law's statistic has a known value and runs it through
`Law.evaluate` (iclscale.analysis.evaluate: selection, regime, groups, the kind's estimate, the verdict rule):

- *right*: the statistic planted inside the law's primary band (the band's midpoint, or 0.5 inside a
  one-sided band): the verdict must be "consistent";
- *wrong*: planted clearly outside it (0.5 beyond the band's edge, in the statistic's units; a reversed
  trend, a threshold crossed on the wrong side, a minimum off the diagonal): the verdict must be "inconsistent".

A control that fails says the law cannot tell its own prediction from a wrong one at a generous design
(8 seeds, every x level of the study's control config, log-normal scatter of 2%), whatever the data.

What is planted, and with which params: `iclscale.analysis.control_rows`.

This module's design (its margin, and the planted rows' seeds and scatter) is this tool's choice, not from any paper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from iclscale.analysis.control_rows import (
    PLANTED,
    PLANTERS,
    control_config,
    curve_bounds,
    fixed,
    levels_of,
    sweep_rows,
    value_of,
    x_values,
)
from iclscale.analysis.derived import add_derived
from iclscale.analysis.measures import FinalValue
from iclscale.analysis.reader import Results
from iclscale.analysis.verdict import CONSISTENT, INCONSISTENT, Band

if TYPE_CHECKING:
    from iclscale.analysis.law import Law

MARGIN = 0.5  # how far outside the band the wrong value lies, in the statistic's units


@dataclass(frozen=True)
class Plan:
    """A law's control: the statistic planted right and wrong, or why the law has none."""

    right: float | None = None
    wrong: float | None = None
    what: str = ""  # what the statistic is, e.g. "exponent"
    reason: str = ""  # why there is no control (or no wrong side)

    def describe(self) -> str:
        if self.right is None:
            return f"no control: {self.reason}"
        right = f"planted at {self.what} {_number(self.right)} → {CONSISTENT}"
        if self.wrong is None:
            return f"{right}; no wrong value: {self.reason}"
        return f"{right}; at {_number(self.wrong)} → {INCONSISTENT}"


@dataclass(frozen=True)
class Outcome:
    """A control's verdicts on the right and the wrong planted table."""

    plan: Plan
    right: str | None = None  # the verdict, or None where not run
    wrong: str | None = None
    right_reason: str = ""
    wrong_reason: str = ""

    @property
    def passed(self) -> bool:
        if self.plan.right is None:
            return False
        wrong_ok = self.plan.wrong is None or self.wrong == INCONSISTENT
        return self.right == CONSISTENT and wrong_ok


def _number(value: float) -> str:
    return f"{value:.3g}"


# The statistic's value inside and outside a band ------------------------------------------------------
def inside(band: Band) -> float:
    if math.isfinite(band.low) and math.isfinite(band.high):
        return (band.low + band.high) / 2
    if math.isfinite(band.high):
        return band.high - MARGIN
    if math.isfinite(band.low):
        return band.low + MARGIN
    return 0.0


def outside(band: Band) -> float:
    return band.low - MARGIN if math.isfinite(band.low) else band.high + MARGIN


# The plan: the right and wrong statistic of a law -----------------------------------------------------
def plan(law: Law) -> Plan:
    """The statistic the control plants right and wrong, from the law's prediction at its control config."""
    if law.no_control:
        return Plan(reason=law.no_control)
    kind = law.kind.name
    if kind not in PLANTERS:
        return Plan(reason=f"no planter for the kind {kind!r}")
    try:
        config = control_config(law)
        params = fixed(config)
        if kind == "flat region":
            params[law.kind.edge_metric] = value_of(config, law.kind.edge_metric)
        prediction = law.predict(params)
    except KeyError as missing:
        return Plan(reason=f"the control config lacks {missing}")
    if prediction is None:
        return Plan(reason="the law makes no prediction at its control config")
    band = prediction.primary.band
    planner = _PLANNERS.get(kind)
    if planner is None:
        return Plan(reason=f"no plan for the kind {kind!r}")
    return planner(law, config, band)


def _exponent_plan(law: Law, config, band: Band) -> Plan:
    """A power law's, a max{} term's or a linear law's statistic, planted inside the band and outside it."""
    kind = law.kind.name
    # a max{} term's wrong exponent must miss the envelope of every term's (iclscale.analysis.kinds.max_term)
    wrong = law.kind.envelope(band.low).low - MARGIN if kind == "max{} term" else outside(band)
    return Plan(inside(band), wrong, law.kind.statistic if kind == "linear" else "exponent")


def _bound_plan(law: Law, config, band: Band) -> Plan:
    """A bound's aggregate inside the band and outside it (a spread 2 past its finite edge)."""
    if law.kind.aggregate == "spread":
        return Plan(inside(band), (band.high if math.isfinite(band.high) else band.low) + 2, "spread")
    return Plan(inside(band), outside(band), law.kind.aggregate)


def _trend_plan(law: Law, config, band: Band) -> Plan:
    """A trend: Spearman ρ = ±1, the sign the band contains planted right, the other wrong."""
    return Plan(1.0 if band.contains(1.0, 1.0) else -1.0, -1.0 if band.contains(1.0, 1.0) else 1.0, "Spearman ρ")


def _threshold_plan(law: Law, config, band: Band) -> Plan:
    """A threshold's crossing at the band's low end; wrong: planted beyond every level, so every level the claim
    puts on the good side misses ε."""
    levels = x_levels(law, config)
    beyond = max(levels) * 2 if law.kind.good_side == "above" else min(levels) / 2
    return Plan(band.low, beyond, "crossing x0")


def _diagonal_plan(law: Law, config, band: Band) -> Plan:
    """A diagonal minimum: the fraction of minima on the diagonal, 1 right and 0 wrong."""
    return Plan(1.0, 0.0, "fraction on the diagonal")


def _comparison_plan(law: Law, config, band: Band) -> Plan:
    """A ratio inside the band and 1 past its finite edge."""
    return Plan(inside(band), band.high + 1 if math.isfinite(band.high) else band.low - 1, "ratio")


def _flat_region_plan(law: Law, config, band: Band) -> Plan:
    """The onset right at the first level past the edge, wrong at the first level past the baseline."""
    edge = value_of(config, law.kind.edge_metric)
    levels = sorted(levels_of(config, law.x))
    after = [level for level in levels if level > edge]
    first = [level for level in levels if level > law.kind.baseline]
    if not after or not first:
        return Plan(reason=f"the control config has no {law.x} level above the edge {edge:g}")
    return Plan(after[0], first[0], f"onset (edge {edge:g})")


def _earlier_onset_plan(law: Law, config, band: Band) -> Plan:
    """An earlier onset: the levels between the two onsets, 2 right and −2 wrong."""
    return Plan(2.0, -2.0, "levels between the onsets")


def _curve_plan(law: Law, config, band: Band) -> Plan:
    """A curve's constants are fitted within bounds that may depend on the data: a wrong value the bounds
    exclude cannot be planted (the fit could never return it)."""
    import pandas as pd

    kind = law.kind
    rows = sweep_rows(law, config)
    x = x_values(law, pd.DataFrame(rows))
    judged = kind.constants.index(kind.judged)
    lows, highs = curve_bounds(kind, x, fixed(config))
    low, high = float(lows[judged]), float(highs[judged])
    right = min(max(inside(band), low + MARGIN / 10), high - MARGIN / 10)
    candidates = [outside(band), band.low - MARGIN / 2, band.high + MARGIN, band.high + MARGIN / 2]
    for wrong in candidates:
        if low < wrong < high:
            return Plan(right, wrong, kind.judged)
    return Plan(right, None, kind.judged, f"the fit keeps {kind.judged} within ({low:.3g}, {high:.3g}), which lies "
                f"inside the band {band.describe()}: no data can give a value outside the band")  # fmt: skip


_PLANNERS = {
    "curve": _curve_plan,
    "power law": _exponent_plan,
    "max{} term": _exponent_plan,
    "linear": _exponent_plan,
    "bound": _bound_plan,
    "trend": _trend_plan,
    "threshold": _threshold_plan,
    "diagonal minimum": _diagonal_plan,
    "comparison": _comparison_plan,
    "flat region": _flat_region_plan,
    "earlier onset": _earlier_onset_plan,
}
"""Each kind's plan from (law, its control config, the prediction's primary band)."""


def x_levels(law: Law, config) -> list[float]:
    import pandas as pd

    return sorted(set(x_values(law, pd.DataFrame(sweep_rows(law, config)))))


# Running a control ------------------------------------------------------------------------------------
def planted_results(law: Law, statistic: float, random_state: int = 0) -> Results:
    """A results table for `law` with its statistic planted at `statistic` (every row a run, status ok,
    every regime flag 1)."""
    import pandas as pd

    config = control_config(law)
    rng = np.random.default_rng(random_state)
    rows = PLANTERS[law.kind.name](law, config, statistic, rng)
    runs = pd.DataFrame(rows)
    flags = law.regime.flags if law.regime is not None else ()
    for flag in flags:
        runs[flag] = 1.0
    if law.kind.name == "flat region":
        runs[law.kind.edge_metric] = float(value_of(config, law.kind.edge_metric))
    runs["run_id"] = [f"planted-{i}" for i in range(len(runs))]
    runs = runs.assign(sweep="control", study=law.study, eval_key="{}", status="ok")
    params = [c for c in runs.columns if c not in {"run_id", "sweep", "study", "seed", "eval_key", "status", PLANTED}]
    params = [p for p in params if p not in flags and p != getattr(law.kind, "edge_metric", None)]
    spec = {"name": "control", "study": law.study, "laws": [law.name], "params": {p: {"role": "train"} for p in params}}
    return Results(
        "control", spec, add_derived(runs, law.study), pd.DataFrame(columns=["run_id", "step", "metric", "value"])
    )


def controlled(law: Law) -> Law:
    """The law as the control runs it: its measure reads the planted column, its row filter is dropped, and its
    regime's conditions on measured curves (`Regime.measured`, conditions measured on the run) are taken as met: a
    planted table has no curves. The regime's conditions on the params and its flags stay."""
    from iclscale.analysis.conditions import MEASURED

    regime = law.regime
    if regime is not None:
        on_params = tuple(c for c in regime.conditions if c.kind != MEASURED)
        regime = replace(regime, measured=None, conditions=on_params)
    return replace(law, measure=FinalValue(PLANTED), row_filter=None, one_row_per_run=True, regime=regime)


def verdict_at(law: Law, statistic: float) -> tuple[str, str]:
    fits = controlled(law).evaluate(planted_results(law, statistic))
    if len(fits) != 1:
        return "no single group", f"{len(fits)} groups"
    return fits[0].verdict.verdict, fits[0].verdict.reason


def run(law: Law) -> Outcome:
    """Plan the law's control and run both planted tables through `Law.evaluate`."""
    p = plan(law)
    if p.right is None:
        return Outcome(p)
    right, right_reason = verdict_at(law, p.right)
    wrong = wrong_reason = None
    if p.wrong is not None:
        wrong, wrong_reason = verdict_at(law, p.wrong)
    return Outcome(p, right, wrong, right_reason, wrong_reason or "")

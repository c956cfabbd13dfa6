"""Where a measure starts to rise above its value at a baseline x (e.g. no pruning), by
`iclscale.analysis.levels.cost_onset` (the paired increase over the baseline has a 95% bootstrap interval above 0
and exceeds the baseline's seed-to-seed s.d.; this tool's definition, not from any paper).

- `FlatRegion`: free up to an edge that the data give: `edge_metric` (a per-run metric, e.g. the share of
  small neurons |L^c|/m), averaged over the group's runs, is passed to `predict` under its own name and the
  prediction's band is [edge, ∞) for the onset. Inconclusive without an x strictly between the baseline and
  the edge (or with fewer x values than the rule asks); inconsistent when such an x costs; consistent
  otherwise.
- `EarlierOnset`: one variant (`param` = `first`, e.g. random pruning) starts to cost at a smaller x than
  another (`second`, magnitude pruning). Statistic: onset(second) − onset(first), an onset beyond the grid
  counted as the grid's end (then the difference is a lower or upper bound, and the reason says so).

The interval reported for an onset is the grid step that brackets it [last x below it, onset].

Generic, though one paper's laws use them today: any "free up to a point" or "costs earlier" claim takes these
forms, and the planted controls and the law charts know them by name."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from iclscale.analysis.kinds.base import Kind
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.levels import cost_onset
from iclscale.analysis.select import measured_points
from iclscale.analysis.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict


def _table(law, rows):
    usable = measured_points(rows)
    return usable[[law.x, "value", "seed"]].rename(columns={law.x: "x"}).astype({"x": float})


def _bracket(levels, onset: float) -> tuple[float, float]:
    """The grid step [last x below the onset, onset] (NaN without an onset)."""
    below = levels["x"].to_numpy()[levels["x"].to_numpy() < onset] if np.isfinite(onset) else []
    return (float(max(below)) if len(below) else math.nan, onset) if np.isfinite(onset) else (math.nan, math.nan)


@dataclass(frozen=True)
class FlatRegion(Kind):
    baseline: float = 0.0
    edge_metric: str = ""

    name: ClassVar[str] = "flat region"

    def _edge(self, rows) -> float:
        usable = measured_points(rows)
        return float(usable[self.edge_metric].astype(float).mean()) if self.edge_metric in usable else math.nan

    def predict(self, law, group):
        return law.predict({**group.params, self.edge_metric: self._edge(group.rows)})

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        table = _table(law, group.rows)
        onset, levels = cost_onset(table, "x", "value", self.baseline)
        low, high = _bracket(levels, onset)
        return Estimate(
            statistic=f"smallest {law.x} whose {law.measure.label} rises above that at {self.baseline:g}",
            estimate=onset,
            ci_low=low,
            ci_high=high,
            interval_method="the grid step bracketing the onset",
            n_points=len(table),
            n_levels=len(levels),
            n_censored=int(group.rows["censored"].sum()),
            points=table.assign(censored=False, left_censored=False),
            details={"edge": self._edge(group.rows), "levels": levels, "onset": onset},
        )

    def judge(self, law, prediction, estimate) -> Verdict:
        levels, edge, onset, x = estimate.details["levels"], estimate.details["edge"], estimate.estimate, law.x
        inside = levels[(levels["x"] > self.baseline) & (levels["x"] <= edge + 1e-9)]
        if len(levels) < law.rule.min_levels or estimate.n_points < law.rule.min_points:
            return Verdict(INCONCLUSIVE, f"only {len(levels)} {x} value(s), {estimate.n_points} point(s)")
        if not np.isfinite(edge):
            return Verdict(INCONCLUSIVE, f"no {self.edge_metric} in the data")
        if not len(inside):
            return Verdict(INCONCLUSIVE, f"no {x} between {self.baseline:g} and the edge {edge:.3g}")
        if inside["costs"].any():
            first = inside[inside["costs"]].iloc[0]
            return Verdict(
                INCONSISTENT,
                f"{x} = {first['x']:g} ≤ edge {edge:.3g} already costs: increase {first['increase']:.3g} "
                f"[{first['increase_low']:.3g}, {first['increase_high']:.3g}] over {self.baseline:g}",
            )
        return Verdict(
            CONSISTENT,
            f"no {x} ≤ edge {edge:.3g} costs (tested up to {inside['x'].max():g}); "
            + (f"the first that costs is {onset:g}" if np.isfinite(onset) else "none in the grid costs"),
        )


@dataclass(frozen=True)
class EarlierOnset(Kind):
    param: str = ""  # what distinguishes the variants, e.g. prune_method
    first: str = ""  # the variant claimed to cost earlier
    second: str = ""
    baseline: float = 0.0

    name: ClassVar[str] = "earlier onset"

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        rows = group.rows
        onsets, levels = {}, {}
        for variant in (self.first, self.second):
            table = _table(law, rows[rows[self.param].astype(str) == variant])
            base = _table(law, rows[rows[law.x].astype(float) == self.baseline])  # shared baseline rows (R = 0)
            if not (table["x"] == self.baseline).any():
                table = pd.concat([table, base.drop_duplicates("seed")], ignore_index=True)
            onsets[variant], levels[variant] = cost_onset(table, "x", "value", self.baseline)
        end = max((float(lv["x"].max()) for lv in levels.values() if len(lv)), default=math.nan)
        first, second = (onsets[v] if np.isfinite(onsets[v]) else end for v in (self.first, self.second))
        tested = [v for v in levels.values() if len(v)]
        return Estimate(
            statistic=f"onset({self.second}) − onset({self.first}) along {law.x}",
            estimate=second - first,
            ci_low=math.nan,
            ci_high=math.nan,
            interval_method="onsets on the grid (iclscale.analysis.levels.cost_onset); no interval",
            n_points=int(np.isfinite(rows["value"].astype(float)).sum()),
            n_levels=min((len(v) for v in tested), default=0),
            points=rows[[law.x, "value", "seed", "censored", "left_censored", self.param]].rename(columns={law.x: "x"}),
            details={"onsets": onsets, "levels": levels, "end": end},
        )

    def judge(self, law, prediction, estimate) -> Verdict:
        onsets, end, x = estimate.details["onsets"], estimate.details["end"], law.x
        if estimate.n_levels < law.rule.min_levels:
            return Verdict(INCONCLUSIVE, f"only {estimate.n_levels} {x} value(s) per {self.param}")
        first, second = onsets[self.first], onsets[self.second]

        def said(value):
            return f"{value:g}" if np.isfinite(value) else f"beyond the grid (> {end:g})"

        text = f"{self.first} costs from {x} = {said(first)}, {self.second} from {said(second)}"
        if not np.isfinite(first) and not np.isfinite(second):
            return Verdict(INCONCLUSIVE, f"neither costs within the grid ({x} ≤ {end:g})")
        if np.isfinite(first) and (not np.isfinite(second) or first < second):
            return Verdict(CONSISTENT, text)
        if first == second:
            return Verdict(INCONCLUSIVE, f"{text}: the same grid step")
        return Verdict(INCONSISTENT, text)

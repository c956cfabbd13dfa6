"""The one evaluation skeleton every law runs through (analysis.verdict states the rule it applies):

groups (analysis.select: rows inside the regime, rows outside, rows not ok)
  → prediction (the kind's, from the group's params)
  → estimate (the kind's statistic, interval, form checks)
  → verdict (outside the conditions / the kind's own rule / evidence → form → band)
  → the other readings of the paper, judged on the same evidence
  → a LawFit (one fits.csv row)
"""

from __future__ import annotations

import math
from dataclasses import fields, replace
from typing import TYPE_CHECKING

from analysis.lawfit import Estimate, LawFit
from analysis.select import Group, groups
from analysis.verdict import INCONCLUSIVE, INCONSISTENT, OUTSIDE, Verdict, against_band, evidence, judge

if TYPE_CHECKING:
    from analysis.law import Law, Prediction
    from analysis.reader import Results

NO_PREDICTION = Verdict(INCONCLUSIVE, "the law makes no prediction for this group")


def evaluate(law: Law, results: Results) -> list[LawFit]:
    context: dict = {}  # shared by the groups of one evaluation (e.g. a kind's regrouping at other ε)
    out = []
    for group in groups(law, results):
        prediction = law.kind.predict(law, group)
        estimate = law.kind.estimate(law, group, prediction, results, context)
        verdict = decide(law, group, prediction, estimate)
        out.append(
            LawFit(
                **{f.name: getattr(estimate, f.name) for f in fields(Estimate)},
                law=law,
                group=group.key,
                prediction=prediction,
                verdict=verdict,
                alternatives=alternatives(law, prediction, estimate),
                n_excluded=group.n_excluded,
                n_outside=len(group.outside),
                n_inside=len(group.rows),
                outside_points=outside_points(law, group),
                x_title=results.title(law.x) if law.x else "",
            )
        )
    return out


def decide(law: Law, group: Group, prediction: Prediction | None, estimate: Estimate) -> Verdict:
    """analysis.verdict's rule, in order; every reason says how many points lay outside the conditions."""
    n_outside = len(group.outside)
    if not len(group.rows) and n_outside:
        return Verdict(OUTSIDE, f"outside the theorem's conditions: all {n_outside} points violate "
                       f"{law.regime.text}{whole_range(estimate)}")  # fmt: skip
    verdict = _decide_inside(law, prediction, estimate)
    if n_outside:
        verdict = replace(verdict, reason=f"{verdict.reason} ({n_outside} points outside the theorem's conditions "
                          f"left out{whole_range(estimate)})")  # fmt: skip
    return verdict


def _decide_inside(law: Law, prediction: Prediction | None, estimate: Estimate) -> Verdict:
    if prediction is None:
        return NO_PREDICTION
    own = law.kind.judge(law, prediction, estimate)
    if own is not None:
        return own
    return shared_verdict(law, prediction, estimate)


def shared_verdict(law: Law, prediction: Prediction, estimate: Estimate) -> Verdict:
    """The rule every kind without its own judge gets: evidence → form → band (a kind's judge may refine it)."""
    thin = evidence(estimate.n_points, estimate.n_levels, estimate.n_censored, law.rule)
    if thin is not None:
        return thin
    form, local = estimate.lack_of_fit, estimate.local
    band = against_band(prediction.primary.band, estimate.ci_low, estimate.ci_high, law.rule)
    if form is None or not form.rejected or not law.kind.form_decides:
        return band
    line = law.kind.name == "linear"
    what = "slopes" if line else "exponents"
    if estimate.form_verdict is not None:  # the paper's own wording of the law fits where the power law does not
        return estimate.form_verdict
    tolerance = estimate.details.get("bend_tolerance", 0.0)
    spread = local.spread if local is not None else math.inf
    if spread <= tolerance:  # statistically detectable, too slight to matter
        note = f"; a slight bend: {form.describe()}, local {what} span {spread:.2g} ≤ {tolerance:.2g}"
        return replace(band, reason=band.reason + note)
    bend = f"; local {what} along x: {local.describe()} (span {spread:.2g} > {tolerance:.2g})" if local else ""
    curve = "a line" if line else "a power law"
    if law.kind.form_required:
        return Verdict(INCONSISTENT, f"not {curve}, which the theory requires here: {form.describe()}{bend}")
    return Verdict(INCONCLUSIVE, f"not {curve} here: {form.describe()}{bend}")


def whole_range(estimate: Estimate) -> str:
    """The form diagnostics over every point, those outside the conditions included (where a kind gave them)."""
    form, local = estimate.details.get("lack_of_fit_all"), estimate.details.get("local_all")
    if form is None and local is None:
        return ""
    parts = [form.describe()] if form is not None else []
    if local is not None and len(local.slope):
        parts.append(f"local exponents {local.describe()}")
    bent = local is not None and local.spread > estimate.details.get("bend_tolerance", 0.0)
    rejected = form is not None and form.rejected
    verdict = "a power law is rejected" if rejected and bent else "a slight bend" if rejected else "no lack of fit"
    return f"; over all points, those outside included, {verdict}: " + ", ".join(parts)


def alternatives(law: Law, prediction: Prediction | None, estimate: Estimate):
    """The other readings of the paper, judged like the primary on the same interval and evidence."""
    if prediction is None:
        return []
    evidence_ = (estimate.ci_low, estimate.ci_high, estimate.n_points, estimate.n_levels, estimate.n_censored)
    out = []
    for h in prediction.alternatives:
        rule = law.rule if h.mode is None else replace(law.rule, mode=h.mode)
        out.append((h, judge(h.band, *evidence_, rule)))
    return out


def outside_points(law: Law, group: Group):
    if not len(group.outside) or not law.x or law.x not in group.outside:
        return None
    return group.outside.rename(columns={law.x: "x"})[["x", "value", "seed", "censored", "left_censored"]]

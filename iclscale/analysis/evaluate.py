"""The one evaluation skeleton every law runs through (iclscale.analysis.verdict states the rule it applies):

groups (iclscale.analysis.select: rows inside the regime, rows outside, rows not ok)
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

from iclscale.analysis.conditions import CONSTANTS
from iclscale.analysis.lawfit import Estimate, LawFit
from iclscale.analysis.select import Group, groups
from iclscale.analysis.verdict import (
    CONSISTENT,
    INCONCLUSIVE,
    INCONSISTENT,
    OUTSIDE,
    Band,
    Verdict,
    against_band,
    evidence,
)

if TYPE_CHECKING:
    from iclscale.analysis.law import Experiment, Hypothesis, Law, Prediction
    from iclscale.analysis.reader import Results

NO_PREDICTION = Verdict(INCONCLUSIVE, "the law makes no prediction for this group")


def evaluate(law: Law, results: Results, experiment: Experiment | None = None) -> list[LawFit]:
    """The law's fits on the results, one per group. With `experiment` (the paper's own figure, iclscale.analysis.law
    .Experiment), every point is judged, inside the theorem's conditions or not, and the reason says how many lie
    inside them (the experiment's regime status)."""
    context: dict = {}  # shared by the groups of one evaluation (e.g. a kind's regrouping at other ε)
    out = []
    for group in groups(law, results):
        c_star, c_all, binding = group.regime_constants
        n_inside, n_outside = len(group.rows), len(group.outside)
        if experiment is not None:
            import pandas as pd

            group = replace(group, rows=pd.concat([group.rows, group.outside]), outside=group.outside.iloc[0:0])
        prediction = law.kind.predict(law, group)
        estimate = law.kind.estimate(law, group, prediction, results, context)
        verdict = decide(law, group, prediction, estimate)
        if experiment is not None:
            verdict = replace(verdict, reason=f"{experiment_status(experiment, n_inside, n_outside, c_star)}: "
                              f"{verdict.reason}")  # fmt: skip
        out.append(
            LawFit(
                **{f.name: getattr(estimate, f.name) for f in fields(Estimate)},
                law=law,
                group=group.key,
                prediction=prediction,
                verdict=verdict,
                alternatives=alternatives(law, group, prediction, estimate),
                n_excluded=group.n_excluded if experiment is None else group.n_not_ok,
                n_outside=n_outside,
                n_inside=n_inside,
                outside_points=outside_points(law, group),
                x_title=results.title(law.x) if law.x else "",
                c_star=c_star,
                c_all=c_all,
                binding=binding,
                experiment=experiment,
            )
        )
    return out


def decide(law: Law, group: Group, prediction: Prediction | None, estimate: Estimate) -> Verdict:
    """iclscale.analysis.verdict's rule, in order; every reason says how many points lay outside the conditions."""
    n_outside = len(group.outside)
    if not len(group.rows) and n_outside:
        return Verdict(OUTSIDE, f"outside the theorem's conditions: each of the {n_outside} points violates at least "
                       f"one of them ({law.regime.text}){constants_needed(group)}{whole_range(estimate)}")  # fmt: skip
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
    """The rule every kind without its own judge gets for the primary hypothesis (a kind's judge may refine it)."""
    return judge_hypothesis(law, prediction.primary, estimate)


def judge_hypothesis(law: Law, hypothesis: Hypothesis, estimate: Estimate) -> Verdict:
    """evidence → band (widened by the law's tolerance) → form, for any hypothesis of the law: the primary and
    the other readings of the paper are judged alike (same interval, evidence, form check and regime)."""
    thin = evidence(estimate.n_points, estimate.n_levels, estimate.n_censored, law.rule)
    if thin is not None:
        return thin
    tolerance = law.rule.band_tolerance(law.kind.tolerance, hypothesis.mode)
    band = against_band(
        hypothesis.band, estimate.ci_low, estimate.ci_high, tolerance, law.rule.width_limit(hypothesis.mode)
    )
    if not law.kind.form_decides:
        return band
    if law.kind.power_form:
        return power_form(law, hypothesis.band.widened(tolerance), estimate, band)
    return line_form(law, estimate, band)


def power_form(law: Law, widened: Band, estimate: Estimate, band: Verdict) -> Verdict:
    """Step 2 of iclscale.analysis.verdict's rule for an exponent: "consistent" only where the data are shown to follow
    a power law over the range (iclscale.analysis.exponent_drift.curvature); the span of x is always stated."""
    found = estimate.curvature
    if found is None:
        if band.verdict == INCONSISTENT:
            return band
        return Verdict(INCONCLUSIVE, f"{band.reason}; the power-law form could not be checked (needs 4 x values "
                       "and, with censored points, 4 observed)")  # fmt: skip
    span = found.span()
    local = found.local
    missed = bool(local) and all(high < widened.low or low > widened.high for _, low, high in local)
    local_text = ", ".join(f"{s:.2g} [{lo:.2g}, {hi:.2g}]" for s, lo, hi in local)
    margin = law.rule.form_drift
    shown = found.shown(margin)
    if estimate.form_verdict is not None:  # a power law is rejected and the paper's own wording of the law fits
        return replace(estimate.form_verdict, reason=f"{estimate.form_verdict.reason}; {span}")
    if band.verdict == INCONSISTENT:  # the average slope over the range misses: the theory's curve has it everywhere
        # where the curve also bends, say where it is steep or flat: a reader learns which end misses
        bend = f"; not a power law either ({found.describe()}), local exponents {local_text}" if found.bent else ""
        return replace(band, reason=f"{band.reason}{bend}; {span}")
    if missed:
        return Verdict(INCONSISTENT, f"every local exponent lies outside {widened.describe()}: {local_text}; {span}")
    lack = estimate.lack_of_fit
    if shown:
        return replace(band, reason=f"{band.reason}; a power law over the range: {found.describe()} within "
                       f"±{margin:g}{tolerated_bend(found, lack, margin)}; {span}")  # fmt: skip
    if found.bent or (lack is not None and lack.rejected):
        what = f"{found.describe()}" + (f"; {lack.describe()}" if lack is not None and lack.rejected else "")
        if law.kind.form_required:
            return Verdict(INCONSISTENT, f"not a power law, which the theory requires here: {what}; local "
                           f"exponents {local_text}; {span}")  # fmt: skip
        return Verdict(INCONCLUSIVE, f"not a power law here: {what}; local exponents {local_text}; {span}")
    if band.verdict == CONSISTENT:
        return Verdict(INCONCLUSIVE, f"{band.reason}, but the power-law form is not shown: {found.describe()} "
                       f"is not within ±{margin:g}; {span}")  # fmt: skip
    return replace(band, reason=f"{band.reason}; the power-law form is not shown ({found.describe()}); {span}")


def tolerated_bend(found, lack, margin: float) -> str:
    """Where the form is shown (the drift within ±margin) although a test finds a bend: one sentence saying why
    the bend does not change the verdict (iclscale.analysis.verdict.rule_lines, step 3 (d)); "" where none does."""
    from iclscale.analysis.exponent_drift import BEND_CONFIDENCE, QUADRATIC_ALPHA

    found_by = []
    if lack is not None and lack.rejected:
        found_by.append(f"the power law's {lack.describe()}")
    if found.bend_low > 0 or found.bend_high < 0:
        found_by.append(f"the drift's {BEND_CONFIDENCE:.0%} interval [{found.bend_low:+.2g}, {found.bend_high:+.2g}] "
                        "excludes 0")  # fmt: skip
    if found.beyond_quadratic:
        found_by.append(f"the means depart from the quadratic, p = {found.lack_of_fit_p:.2g} < {QUADRATIC_ALPHA:g}, "
                        f"with local exponents spanning {found.local_span:.2g} ≤ {margin:g}")  # fmt: skip
    if not found_by:
        return ""
    return (f"; a bend is significant ({'; '.join(found_by)}), but the local exponent drifts by at most "
            f"{found.drift_bound:.2g} across the range, inside the margin ±{margin:g}: the bend is too small to "
            "change the verdict")  # fmt: skip


def line_form(law: Law, estimate: Estimate, band: Verdict) -> Verdict:
    """Step 2 for a line: where the lack-of-fit test rejects it and the local slopes differ by more than the
    kind's tolerance, the slope describes no curve the data follow."""
    form, local = estimate.lack_of_fit, estimate.local
    if form is None or not form.rejected:
        return band
    tolerance = estimate.details.get("bend_tolerance", 0.0)
    spread = local.spread if local is not None else math.inf
    if spread <= tolerance:  # statistically detectable, too slight to matter
        return replace(band, reason=band.reason + f"; a slight bend: {form.describe()}, local slopes span "
                       f"{spread:.2g} ≤ {tolerance:.2g}")  # fmt: skip
    bend = f"; local slopes along x: {local.describe()} (span {spread:.2g} > {tolerance:.2g})" if local else ""
    if law.kind.form_required:
        return Verdict(INCONSISTENT, f"not a line, which the theory requires here: {form.describe()}{bend}")
    return Verdict(INCONCLUSIVE, f"not a line here: {form.describe()}{bend}")


def experiment_status(experiment: Experiment, n_inside: int, n_outside: int, c_star: float) -> str:
    """The paper's experiment's regime status, said before its verdict."""
    where = f"the paper's experiment ({experiment.figure}), judged on all {n_inside + n_outside} points"
    if not n_outside:
        return f"{where}, every one inside the theorem's conditions"
    constants = f"; c* = {c_star:.3g}" if math.isfinite(c_star) else ""
    return f"{where}: {n_inside} inside the theorem's conditions, {n_outside} outside{constants}"


def constants_needed(group: Group) -> str:
    """How far the points are from the conditions: the value the hidden constants would need (c*)."""
    c_star, _, binding = group.regime_constants
    if c_star == 0:
        return "; no value of the hidden constants brings a point inside: an explicit or measured condition fails"
    if not math.isfinite(c_star) or c_star >= CONSTANTS:
        return ""
    return (f"; inside only if the hidden constants were ≤ c* = {c_star:.3g} ({1 / c_star:.3g}× smaller than "
            f"{CONSTANTS:g}; binding: {binding})")  # fmt: skip


def whole_range(estimate: Estimate) -> str:
    """The form diagnostics over every point, those outside the conditions included (where a kind gave them)."""
    form, local = estimate.details.get("lack_of_fit_all"), estimate.details.get("local_all")
    if form is None and local is None:
        return ""
    parts = [form.describe()] if form is not None else []
    whole = estimate.details.get("fit_all")
    if whole is not None and math.isfinite(whole.exponent):  # a number to read, not a verdict: not in the regime
        parts.insert(0, f"exponent {whole.exponent:.3g} [{whole.ci_low:.3g}, {whole.ci_high:.3g}] "
                        f"({whole.interval_method}, censored points dropped)")  # fmt: skip
    if local is not None and len(local.slope):
        parts.append(f"local exponents {local.describe()}")
    bent = local is not None and local.spread > estimate.details.get("bend_tolerance", 0.0)
    rejected = form is not None and form.rejected
    verdict = "a power law is rejected" if rejected and bent else "a slight bend" if rejected else "no lack of fit"
    return f"; over all points, those outside included (a description, not the verdict's evidence), {verdict}: " + (
        ", ".join(parts)
    )


def alternatives(law: Law, group: Group, prediction: Prediction | None, estimate: Estimate):
    """The other readings of the paper, judged like the primary: the same points inside the theorem's
    conditions ("outside" where there are none), interval, evidence and form check (`judge_hypothesis`)."""
    if prediction is None:
        return []
    if not len(group.rows) and len(group.outside):
        return [(h, Verdict(OUTSIDE, "outside the theorem's conditions")) for h in prediction.alternatives]
    return [(h, judge_hypothesis(law, h, estimate)) for h in prediction.alternatives]


def outside_points(law: Law, group: Group):
    if not len(group.outside) or not law.x or law.x not in group.outside:
        return None
    return group.outside.rename(columns={law.x: "x"})[["x", "value", "seed", "censored", "left_censored"]]

"""measure ∝ x^p: the exponent p per group, beside the predicted band.

The exponent is the least-squares slope on log–log axes with a Student t-interval (iclscale.analysis.fits: OLS, or
per-seed fits where one model per seed is measured at every x); where points are censored it is the censored
(Tobit) fit's (iclscale.analysis.censored), and the fit that drops them is shown beside it. The form is checked in every
design by the drift of the local exponent across the range (iclscale.analysis.exponent_drift.curvature), beside the
lack of fit against the cell means and the local exponents; where the paper words the law in another form (T linear
in α^(−2/3)), that form is fitted beside the power law and, where the power law is rejected and the paper's
form fits, judged instead. When x is a combination of params (Λ = nL²/σ²) and more than one of them varies,
a multi-variable fit shows whether the measure depends on that combination. Measures with a threshold ε are
refitted at ε/2 and 2ε.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from iclscale.analysis import censored as tobit
from iclscale.analysis.derived import derived_variables, ingredients
from iclscale.analysis.exponent_drift import curvature, range_sensitivity
from iclscale.analysis.fits import fit_power_law, fit_power_law_multi
from iclscale.analysis.forms import FORM_TOLERANCE, LOF_ALPHA, OffsetForm, compare_forms, lack_of_fit, local_exponents
from iclscale.analysis.kinds.base import TransformedX
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.select import groups, label
from iclscale.analysis.verdict import CONSISTENT, EXPONENT_TOLERANCE, Verdict

THRESHOLD_FACTORS = (0.5, 2.0)  # ε refitted at ε/2 and 2ε for the sensitivity (not from any paper)
POINT_COLUMNS = ["x", "value", "seed", "censored", "left_censored"]


@dataclass(frozen=True)
class PowerLaw(TransformedX):
    threshold_factors: tuple[float, ...] = THRESHOLD_FACTORS
    forms: tuple[OffsetForm, ...] = ()  # the paper's other wordings of the law
    form_required: bool = False
    form_decides: bool = True

    name: ClassVar[str] = "power law"
    tolerance: ClassVar[float] = EXPONENT_TOLERANCE
    power_form: ClassVar[bool] = True

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        rows = group.rows
        x, y = rows[law.x].astype(float).to_numpy(), rows["value"].to_numpy()
        side = tobit.sides(rows["censored"], rows["left_censored"])
        seeds, strata = rows["seed"].to_numpy(), rows["stratum"].to_numpy()
        dropped = fit_power_law(x, y, seeds, rows["censored"], strata)
        reported = dropped
        details: dict[str, Any] = {"drop-censored fit": _summary(dropped, dropped.n_points)}
        if dropped.n_censored:
            reported = tobit.fit_power_law(x, y, side, seeds, strata)
            details["censored fit"] = _summary(reported, reported.n_points)
        found = Estimate(
            statistic="exponent",
            estimate=reported.exponent,
            ci_low=reported.ci_low,
            ci_high=reported.ci_high,
            interval_method=reported.interval_method,
            n_points=dropped.n_points,
            n_levels=len(np.unique(np.round(x[np.isfinite(x)], 12))) if dropped.n_censored else dropped.n_cells,
            n_censored=dropped.n_censored,
            r2=dropped.r2,
            ols_low=dropped.ols_low,
            ols_high=dropped.ols_high,
            points=rows.rename(columns={law.x: "x"})[POINT_COLUMNS],
            fit=dropped,
            details=details,
        )
        self._form(found, x, y, side, seeds if group.paired else None)
        found.details["bend_tolerance"] = FORM_TOLERANCE
        found.sensitivity = {
            f"exponent on {part}": value
            for part, value in range_sensitivity(x, y, rows["censored"]).items()
            if part != "all x"
        }
        found.sensitivity.update(self._threshold_sensitivity(law, group, results, context))
        found.combination = _combination(law, rows)
        if len(group.outside):
            every = pd.concat([rows, group.outside], ignore_index=True)
            all_x, all_y = every[law.x].astype(float).to_numpy(), every["value"].to_numpy()
            all_side = tobit.sides(every["censored"], every["left_censored"])
            keep = np.isfinite(all_x) & np.isfinite(all_y) & (all_x > 0) & (all_y > 0)
            found.details["lack_of_fit_all"] = lack_of_fit(
                np.log(all_x[keep]), np.log(all_y[keep]), all_x[keep], all_side[keep]
            )
            found.details["local_all"] = local_exponents(all_x, all_y, all_side)
            found.details["fit_all"] = fit_power_law(  # describes the models trained, not the theorem
                all_x, all_y, every["seed"].to_numpy(), every["censored"], every["stratum"].to_numpy()
            )
        return found

    def _form(self, found: Estimate, x, y, side, blocks) -> None:
        """Lack of fit, local exponents and the paper's other forms, into `found`."""
        keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
        if not keep.any():
            return
        found.curvature = curvature(x, y, side, blocks)  # every point: it leaves out what it cannot use itself
        blocks = None if blocks is None else blocks[keep]
        found.lack_of_fit = lack_of_fit(np.log(x[keep]), np.log(y[keep]), x[keep], side[keep], blocks)
        found.local = local_exponents(x, y, side)
        if not self.forms:
            return
        found.forms = compare_forms(x, y, side, self.forms)
        if found.forms is None or found.lack_of_fit is None or not found.lack_of_fit.rejected:
            return
        power = found.forms.get("power law")
        for paper_form in self.forms:
            form = found.forms.get(f"offset, x^({paper_form.exponent:.3g})")
            fits = form.lack_of_fit_p >= LOF_ALPHA and form.aic < power.aic and form.parameters["c1"] > 0
            if fits:
                found.form_verdict = Verdict(
                    CONSISTENT,
                    f"a pure power law is rejected ({found.lack_of_fit.describe()}) but the paper's form "
                    f"{paper_form.formula} ({paper_form.text}, {paper_form.source}) fits: lack-of-fit p = "
                    f"{form.lack_of_fit_p:.2g}, AIC {power.aic - form.aic:.1f} below the power law's, "
                    f"c1 = {form.parameters['c1']:.3g} > 0",
                )
                return

    def _threshold_sensitivity(self, law, group, results, context) -> dict[str, float]:
        """Refit at other thresholds ε (only for measures that have one). A measure computed over many
        runs (the smallest l_tr reaching ε, say) is recomputed from the selected runs, not from the rows."""
        if law.measure.threshold is None:
            return {}
        out = {}
        base = group.rows.drop(columns=["value", "censored", "left_censored"])
        for factor in self.threshold_factors:
            threshold = law.measure.threshold * factor
            if law.measure.aggregates_runs:
                if threshold not in context:
                    again_law = replace(law, measure=law.measure.with_threshold(threshold))
                    context[threshold] = {g.label: g.rows for g in groups(again_law, results)}
                again = context[threshold].get(label(group.key))
                if again is None:
                    continue
            else:
                again = law.measure.with_threshold(threshold).per_run(results, base)
            fit = fit_power_law(again[law.x], again["value"], again["seed"], again["censored"])
            out[f"exponent at ε = {threshold:g}"] = fit.exponent
            out[f"censored at ε = {threshold:g}"] = float(fit.n_censored)
        return out


def _summary(fit, points: int) -> dict[str, float]:
    return {
        "exponent": fit.exponent,
        "ci_low": fit.ci_low,
        "ci_high": fit.ci_high,
        "log_prefactor": fit.log_prefactor,
        "points": points,
    }


def _combination(law, rows) -> dict[str, dict[str, float]]:
    """Fit measure ∝ Π param^a over x's ingredients that vary here; `implied` = a / power is the
    exponent per unit of x each ingredient implies (equal for all if x is the right combination)."""
    derived = derived_variables(law.study).get(law.x)
    if derived is not None and not derived.is_product:  # a sum is not a product of powers
        return {}
    powers = ingredients(law.x, law.study)
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

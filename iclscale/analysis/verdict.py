"""The verdict of a fit against a law's prediction: consistent, inconsistent or inconclusive (or, for a
sweep with no point inside the theorem's conditions, "outside": no verdict).

A prediction is a band [low, high] of the law's statistic (an exponent, usually); a point is a band
with low == high, a one-sided claim ("decreasing": exponent < 0) a band with an infinite end. The
evidence is the reported interval [ci_low, ci_high] of the statistic, plus how many points and x
values it rests on and how many were censored.

The rule, in order:

0. outside — every point lies outside the theorem's conditions (the law's regime): the data say
   nothing about the theorem. Points outside are never used; where some are, they are counted.
1. inconclusive — too little evidence: fewer distinct x values than `min_levels` (4: a curve's form
   cannot be checked on fewer), fewer points than `min_points`, more than `max_censored_fraction` of the
   points censored (the censored fit then rests mostly on its normal tails), or no interval at all;
2. the form (iclscale.analysis.evaluate, for power laws): an exponent describes the data only where they follow a
   power law over the range. The local exponent is modelled as linear in log x (a quadratic in log x,
   iclscale.analysis.forms.curvature); the form is *shown* when the 90% interval of its change across the range
   lies within ±`form_drift` (two one-sided tests at 5%), *rejected* when the 95% interval excludes 0 or
   the lack-of-fit test rejects. Not shown → not "consistent" (inconclusive, saying why); rejected with
   every local exponent outside the widened band → inconsistent. The span of x is stated ("narrow":
   under one decade). Where the paper words the law in another form (T linear in α^(−2/3)) and that form
   fits (no lack of fit, a lower AIC than the power law), it is judged instead, and the reason says so;
3. the band, as an equivalence test: the prediction [low, high] is widened by the law's `tolerance`
   (finite ends only: a one-sided claim keeps its infinite end) —
   - consistent   ⇔ the whole 95% interval lies inside the widened band (the data show the value is
                     within the tolerance of the theory's);
   - inconsistent ⇔ the whole interval lies outside the widened band;
   - inconclusive ⇔ the interval straddles an edge of the widened band (neither is shown).
   Two modes say whether the tolerance applies:
   - "overlap" (a value the theory predicts: a point, a bound such as ℒ ≥ L²/3 or an exponent ≤ −1):
     the band is widened by the tolerance, and an interval wider than `max_interval_width` is not called
     consistent (a one-sided band would hold an interval of any width);
   - "inside" (an effect the theory says occurs: "the error decreases in n", "ρ(M, B) → 0", "slope > 0"):
     the band is used as stated — widening "slope > 0" to "slope > −0.1" would accept no effect at all.

The thresholds below are this tool's defaults, not from any paper; a law may set its own. The tolerance
defaults to the kind's: 0.1 for an exponent (iclscale.analysis.kinds.PowerLaw: a measured exponent within 0.1 of the
theory's counts as that exponent), 0 for other statistics (their units differ from law to law: a law with a
point prediction on such a statistic sets its own). With the truth 0.15 outside a ±0.1 band, "consistent"
comes out in at most 5% of replicates at the catalogue's designs (benchmarks/calibration.py measures it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

CONSISTENT, INCONSISTENT, INCONCLUSIVE = "consistent", "inconsistent", "inconclusive"
OUTSIDE = "outside"  # outside the theorem's conditions: no verdict
OVERLAP, INSIDE = "overlap", "inside"  # the band widened by the tolerance / used as stated (module docstring)
TOLERANCE = 1e-9  # float round-off: an exponent of exactly −1 may come out as −1.0000000000000002
EXPONENT_TOLERANCE = 0.1  # exponent units (this tool's choice, not from any paper)
# exponent units: the local exponent may change by less than this across the range (this tool's choice): a
# curve whose local exponents run ±0.2 around the theory's (a drift of 0.4) lies beyond it, so the 5% two
# one-sided tests call it a power law in under 5% of replicates (benchmarks/calibration.py)
FORM_DRIFT = 0.35


@dataclass(frozen=True)
class Band:
    """A predicted value: [low, high]; low == high for a point; ±inf for a one-sided claim."""

    low: float
    high: float

    def __post_init__(self):
        if not self.low <= self.high:
            raise ValueError(f"a band needs low <= high, got [{self.low}, {self.high}]")

    @classmethod
    def point(cls, value: float) -> Band:
        return cls(value, value)

    def widened(self, tolerance: float) -> Band:
        """The band with each finite end moved out by `tolerance` (an infinite end stays)."""
        low = self.low - tolerance if math.isfinite(self.low) else self.low
        high = self.high + tolerance if math.isfinite(self.high) else self.high
        return Band(low, high)

    def meets(self, low: float, high: float) -> bool:
        return low <= self.high + TOLERANCE and high >= self.low - TOLERANCE

    def contains(self, low: float, high: float) -> bool:
        return self.low - TOLERANCE <= low and high <= self.high + TOLERANCE

    def describe(self, digits: int = 3, tolerance: float = 0.0) -> str:
        if tolerance > 0:
            wide = self.widened(tolerance).describe(digits)
            if self.low == self.high:
                return f"{self.low:.{digits}g} ± {tolerance:.{digits}g}"
            return f"{self.describe(digits)} widened by {tolerance:.{digits}g} to {wide}"
        if self.low == self.high:
            return f"{self.low:.{digits}g}"
        if self.low == -math.inf:
            return f"< {self.high:.{digits}g}"
        if self.high == math.inf:
            return f"≥ {self.low:.{digits}g}"
        return f"[{self.low:.{digits}g}, {self.high:.{digits}g}]"


@dataclass(frozen=True)
class VerdictRule:
    """How much evidence a verdict needs (defaults not from any paper: this tool's choice)."""

    mode: str = OVERLAP
    tolerance: float | None = None  # the band's widening, in the statistic's units; None: the kind's default
    min_levels: int = 4  # distinct x values: a power law's form (a quadratic in log x) needs four to be checked
    min_points: int = 4
    max_censored_fraction: float = 0.5
    max_interval_width: float = 0.5  # "overlap" mode: a wider interval is inconclusive even inside a one-sided band
    form_drift: float = FORM_DRIFT  # exponent units: how far the local exponent may change across the range

    def __post_init__(self):
        if self.mode not in (OVERLAP, INSIDE):
            raise ValueError(f"mode must be {OVERLAP!r} or {INSIDE!r}, got {self.mode!r}")
        if self.tolerance is not None and not self.tolerance >= 0:
            raise ValueError(f"tolerance must be >= 0, got {self.tolerance!r}")

    def band_tolerance(self, default: float = 0.0, mode: str | None = None) -> float:
        """The widening applied to a band judged in `mode` (the rule's own when None): none for "inside"."""
        if (mode or self.mode) == INSIDE:
            return 0.0
        return default if self.tolerance is None else self.tolerance

    def width_limit(self, mode: str | None = None) -> float:
        """The widest interval that may be called consistent in `mode` (no limit for "inside")."""
        return math.inf if (mode or self.mode) == INSIDE else self.max_interval_width


@dataclass(frozen=True)
class Verdict:
    verdict: str
    reason: str


def evidence(n_points: int, n_levels: int, n_censored: int = 0, rule: VerdictRule = VerdictRule()) -> Verdict | None:
    """Step 1 of the rule: an inconclusive verdict when the evidence is too thin, else None."""
    total = n_points + n_censored
    if n_levels < rule.min_levels:
        return Verdict(INCONCLUSIVE, f"only {n_levels} x value(s) with data (needs {rule.min_levels})")
    if n_points < rule.min_points:
        return Verdict(INCONCLUSIVE, f"only {n_points} point(s) (needs {rule.min_points})")
    if total and n_censored / total > rule.max_censored_fraction:
        return Verdict(
            INCONCLUSIVE,
            f"{n_censored} of {total} points censored (more than {rule.max_censored_fraction:.0%})",
        )
    return None


def judge(
    band: Band,
    ci_low: float,
    ci_high: float,
    n_points: int,
    n_levels: int,
    n_censored: int = 0,
    rule: VerdictRule = VerdictRule(),
    tolerance: float | None = None,
) -> Verdict:
    """Steps 1 and 3 of the rule of this module's docstring (the form, step 2, is iclscale.analysis.evaluate's).
    `tolerance` None: the rule's (0 where the rule sets none)."""
    thin = evidence(n_points, n_levels, n_censored, rule)
    if thin is not None:
        return thin
    tolerance = rule.band_tolerance() if tolerance is None else tolerance
    return against_band(band, ci_low, ci_high, tolerance, rule.width_limit())


def against_band(
    band: Band, ci_low: float, ci_high: float, tolerance: float = 0.0, max_width: float = math.inf
) -> Verdict:
    """Step 3: the interval against the band widened by `tolerance` (an equivalence test); an interval wider
    than `max_width` is not called consistent (a one-sided band would hold it however wide)."""
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return Verdict(INCONCLUSIVE, "no interval")
    interval = f"interval [{ci_low:.3g}, {ci_high:.3g}]"
    wide = band.widened(tolerance)
    target = band.describe(tolerance=tolerance)
    if wide.contains(ci_low, ci_high):
        width = ci_high - ci_low
        if width > max_width:
            return Verdict(INCONCLUSIVE, f"{interval} lies inside {target} but is too wide to decide (width "
                           f"{width:.3g} > {max_width:.3g})")  # fmt: skip
        return Verdict(CONSISTENT, f"{interval} lies inside {target}")
    if not wide.meets(ci_low, ci_high):
        return Verdict(INCONSISTENT, f"{interval} lies outside {target}")
    return Verdict(INCONCLUSIVE, f"{interval} straddles an edge of {target}: neither inside nor outside")

"""The verdict of a fit against a law's prediction: consistent, inconsistent or inconclusive (or, for a
sweep with no point inside the theorem's conditions, "outside": no verdict).

A prediction is a band [low, high] of the law's statistic (an exponent, usually); a point is a band
with low == high, a one-sided claim ("decreasing": exponent < 0) a band with an infinite end. The
evidence is the reported interval [ci_low, ci_high] of the statistic, plus how many points and x
values it rests on and how many were censored.

The rule, in order:

0. outside — every point lies outside the theorem's conditions (the law's regime): the data say
   nothing about the theorem. Points outside are never used; where some are, they are counted.
1. inconclusive — too little evidence: fewer distinct x values than `min_levels`, fewer points than
   `min_points`, more than `max_censored_fraction` of the points censored (the censored fit then rests
   mostly on its normal tails), or no interval at all;
2. the form: where the law's curve (a power law, a line) is rejected against the cell means by the
   lack-of-fit test (analysis.forms) — and the data bend by more than the kind's tolerance (a bend too
   slight to matter is noted in the reason) — the interval of an exponent describes no curve the data
   follow: inconclusive ("not a power law here"), or inconsistent where the theory says the form must
   hold over the range. Where the paper words the law in another form (T linear in α^(−2/3)) and that
   form fits (no lack of fit, a lower AIC than the power law), it is judged instead, and the reason
   says so;
3. inconsistent — the interval misses the band entirely (no value inside both);
4. the interval meets the band. What that means depends on the kind of claim (`mode`):
   - "overlap", for bounds the true value must satisfy and for point values (the exponent bands
     of Theorem 3.4, the floor ℒ ≥ L²/3): the data agree with the theory when some plausible value
     satisfies it, so consistent, unless the interval is wider than `max_interval_width` (it
     would then meet almost any band): inconclusive;
   - "inside", for an effect the theory says occurs ("the error decreases in n", "ρ(M, B) → 0",
     "the minimum is on the diagonal"): every plausible value must show it, so consistent only
     when the whole interval lies inside the band; an interval straddling the band's edge (e.g.
     a slope whose interval holds 0) is inconclusive.

The thresholds below are this tool's defaults, not from any paper; a law may set its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

CONSISTENT, INCONSISTENT, INCONCLUSIVE = "consistent", "inconsistent", "inconclusive"
OUTSIDE = "outside"  # outside the theorem's conditions: no verdict
OVERLAP, INSIDE = "overlap", "inside"
TOLERANCE = 1e-9  # float round-off: an exponent of exactly −1 may come out as −1.0000000000000002


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

    def meets(self, low: float, high: float) -> bool:
        return low <= self.high + TOLERANCE and high >= self.low - TOLERANCE

    def contains(self, low: float, high: float) -> bool:
        return self.low - TOLERANCE <= low and high <= self.high + TOLERANCE

    def describe(self, digits: int = 3) -> str:
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
    min_levels: int = 3  # distinct x values: two points always lie on a line
    min_points: int = 4
    max_censored_fraction: float = 0.5
    max_interval_width: float = 0.5  # in the statistic's units (exponent units for a power law)

    def __post_init__(self):
        if self.mode not in (OVERLAP, INSIDE):
            raise ValueError(f"mode must be {OVERLAP!r} or {INSIDE!r}, got {self.mode!r}")


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
) -> Verdict:
    """Steps 1, 3 and 4 of the rule of this module's docstring (the form, step 2, is analysis.evaluate's)."""
    thin = evidence(n_points, n_levels, n_censored, rule)
    if thin is not None:
        return thin
    return against_band(band, ci_low, ci_high, rule)


def against_band(band: Band, ci_low: float, ci_high: float, rule: VerdictRule = VerdictRule()) -> Verdict:
    """Steps 3 and 4: the interval against the band."""
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return Verdict(INCONCLUSIVE, "no interval")
    interval = f"interval [{ci_low:.3g}, {ci_high:.3g}]"
    if not band.meets(ci_low, ci_high):
        return Verdict(INCONSISTENT, f"{interval} misses {band.describe()}")
    if rule.mode == INSIDE:
        if band.contains(ci_low, ci_high):
            return Verdict(CONSISTENT, f"{interval} lies inside {band.describe()}")
        return Verdict(INCONCLUSIVE, f"{interval} straddles the edge of {band.describe()}")
    width = ci_high - ci_low
    if width > rule.max_interval_width:
        return Verdict(
            INCONCLUSIVE, f"{interval} is too wide to decide (width {width:.3g} > {rule.max_interval_width:.3g})"
        )
    return Verdict(CONSISTENT, f"{interval} meets {band.describe()}")

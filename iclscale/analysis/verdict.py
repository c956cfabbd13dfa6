"""The verdict of a fit against a law's prediction: consistent, inconsistent or inconclusive (or, for a
sweep with no point inside the theorem's conditions, "outside": no verdict).

A prediction is a band [low, high] of the law's statistic (an exponent, usually); a point is a band
with low == high, a one-sided claim ("decreasing": exponent < 0) a band with an infinite end. The
evidence is the reported interval [ci_low, ci_high] of the statistic, plus how many points and x
values it rests on and how many were censored.

The rule is stated once, by `rule_lines()`, from the constants and the VerdictRule fields the code applies
(the report's "How verdicts are decided", claims.json's `verdict_rule` and docs/laws-and-verdicts.md all
print it; a test holds the docs' copy to it). In short: outside the conditions → `outside`; too little evidence
→ inconclusive; the interval against the band widened by the tolerance, as an equivalence test; for an
exponent, the power-law form checked by an equivalence margin on the drift of the local exponent, which lets a
statistically significant bend count as a power law when the drift is shown to be smaller than the margin
(iclscale.analysis.evaluate.power_form applies it and says so in the reason).

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


def rule_lines(rule: VerdictRule = VerdictRule()) -> list[str]:
    """The rule a fit's verdict follows (iclscale.analysis.evaluate.decide), step by step, in words, from the
    constants the code applies: `rule` (the defaults; a law may set its own), the tests of iclscale.analysis.forms and
    iclscale.analysis.exponent_drift."""
    from iclscale.analysis import exponent_drift, forms

    lof, quad, margin = forms.LOF_ALPHA, exponent_drift.QUADRATIC_ALPHA, rule.form_drift
    equivalence, bend = exponent_drift.FORM_CONFIDENCE, exponent_drift.BEND_CONFIDENCE
    return [
        "0. outside: every point lies outside the theorem's conditions (the law's regime); no verdict. Points "
        "outside are never used; the reason counts them and describes what all points follow (that description is "
        "never the verdict's evidence).",
        f"1. inconclusive when the evidence is too thin: fewer than {rule.min_levels} distinct x values, fewer than "
        f"{rule.min_points} points, more than {rule.max_censored_fraction:.0%} of the points censored, or no "
        "interval.",
        "2. the band, as an equivalence test: the 95% interval against the predicted band widened by the law's "
        f"tolerance ({EXPONENT_TOLERANCE:g} for an exponent, 0 for other statistics unless the law sets one; a "
        'band of an effect such as "slope > 0" is not widened): wholly inside → consistent (inconclusive where '
        f"the interval is wider than {rule.max_interval_width:g}, but for an effect's band), wholly outside → "
        "inconsistent, straddling an edge → inconclusive. A sign read off a fit (a law whose kind sets "
        "form_decides False) stops here.",
        "3. the form, for an exponent, in this order: (a) where the paper words the law in another form "
        f"(y = c0 + c1·x^q) and a pure power law fails its lack-of-fit test (p < {lof:g}) while that form passes "
        "it, has the lower AIC and a positive c1: consistent by that form; (b) an interval wholly outside the band: "
        "inconsistent; (c) every local exponent's 95% interval outside the widened band: inconsistent; (d) the form "
        f"is shown when the {equivalence:.0%} interval of the local exponent's drift across the range (a quadratic "
        f"in log x) lies within ±{margin:g} and the cell means depart from that quadratic by nothing that matters "
        f"(p ≥ {quad:g}, or local exponents spanning at most {margin:g}): the band's verdict stands, even where the "
        f"drift's {bend:.0%} interval excludes 0 or the power law's lack-of-fit test rejects (p < {lof:g}): a bend "
        "smaller than the margin is too small to change the verdict, and the reason says so; (e) otherwise a bend "
        f"(the drift's {bend:.0%} interval excludes 0, or the means depart from the quadratic at p < {lof:g}) or a "
        f'lack of fit of the power law (p < {lof:g}): inconclusive, "not a power law here" (inconsistent where '
        "the law requires the form); (f) otherwise, a form neither shown nor rejected: a consistent band becomes "
        'inconclusive, "the power-law form is not shown". With fewer than 4 x values (4 observed, where points are '
        "censored) the form cannot be checked: only an inconsistent band stands, the rest is inconclusive.",
        f"4. the form, for a slope on linear axes: where its lack-of-fit test rejects (p < {lof:g}) and the local "
        'slopes span more than the fitted slope\'s size, inconclusive ("not a line here"; inconsistent where the '
        "law requires the form); a lack of fit with local slopes within that span is a slight bend, and the band's "
        "verdict stands.",
        "Kinds with a rule of their own (threshold, flat region, earlier onset, max term) state it in their reason.",
    ]


def rule_text(rule: VerdictRule = VerdictRule()) -> str:
    return "\n".join(rule_lines(rule))


RULE_BEGIN, RULE_END = "<!-- verdict rule -->", "<!-- /verdict rule -->"  # around docs/laws-and-verdicts.md's copy


def rule_markdown(rule: VerdictRule = VerdictRule()) -> str:
    """The rule as docs/laws-and-verdicts.md holds it (scripts/docs_verdict_rule.py writes it there)."""
    import textwrap

    *steps, last = rule_lines(rule)
    return "\n".join(textwrap.fill(step, 115, subsequent_indent="   ") for step in steps) + "\n\n" + last

"""The kinds of law: how a law's statistic is computed from a group's rows, as small strategies.

Each kind is a frozen dataclass holding what is particular to it (a transform of x, a threshold ε, the
reduction over x values) and implementing `estimate` (and, where its verdict is not a band around an
interval, `judge`). Everything they share (selection, groups, the regime, the verdict's order, the
alternatives, the LawFit) is `iclscale.analysis.evaluate`'s and `iclscale.analysis.select`'s.

- `PowerLaw`      measure ∝ x^p (x may be a fixed function of one param, e.g. M1·√ln M1): the exponent,
                  censored points in a Tobit fit, lack of fit, local exponents, the paper's other forms.
- `MaxTerm`       measure ∝ max{c1·x^p, c2·x^q, …}: the exponent p of one term, told apart from the others'
                  (a batch size B_M = max{B_T, c·κ_a^(−2)}: is the κ_a^(−2) term seen, or B_T's flat 0?).
- `Linear`        measure = a + b·x on linear axes: the slope (or the intercept), lack of fit.
- `Curve`         measure = f(x; θ) with free constants θ (scipy curve_fit), one constant judged: T ∝ (1 − 1/(Cα))⁻¹.
- `Bound`         a reduction of the seed-means over x (min, max, mean, max/min) must lie in a band.
- `Trend`         the seed-means rise (or fall) with x: Spearman's ρ between x and the means.
- `Threshold`     "measure ≤ ε iff x ≥ x0": each x's seed-mean placed on a side of ε.
- `DiagonalMinimum` on a grid of a pretraining value × a test value, the minimum on the diagonal.
- `Comparison`    one setting against the others (softmax vs linear attention, ICL vs classical learners).
- `FlatRegion`    the measure does not rise above its baseline up to a data-given edge.
- `EarlierOnset`  one variant starts to cost earlier along x than another (random vs magnitude pruning).
"""

from iclscale.analysis.kinds.base import Kind
from iclscale.analysis.kinds.bound import Bound
from iclscale.analysis.kinds.comparison import Comparison
from iclscale.analysis.kinds.curve import Curve
from iclscale.analysis.kinds.diagonal import DiagonalMinimum
from iclscale.analysis.kinds.flat import EarlierOnset, FlatRegion
from iclscale.analysis.kinds.linear import Linear
from iclscale.analysis.kinds.max_term import MaxTerm
from iclscale.analysis.kinds.power import PowerLaw
from iclscale.analysis.kinds.threshold import Threshold
from iclscale.analysis.kinds.trend import Trend

__all__ = [
    "Bound",
    "Comparison",
    "Curve",
    "DiagonalMinimum",
    "EarlierOnset",
    "FlatRegion",
    "Kind",
    "Linear",
    "MaxTerm",
    "PowerLaw",
    "Threshold",
    "Trend",
]

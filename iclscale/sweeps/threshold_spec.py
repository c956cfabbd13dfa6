"""The `threshold:` block of a sweep file: find, per cell and per seed, the smallest (or largest) value of
one axis at which a metric crosses a level, instead of gridding that axis.

    threshold:
      axis: l_tr             # a shape/train param (searched by training) or an eval param (searched on each
                             # trained model without retraining: iclscale.sweeps.eval_refine)
      range: [1, 12]         # the values searched, both ends included
      resolution: 1          # stop when the bracket (lo, hi] is this narrow: hi − lo on a linear scale,
                             # hi / lo − 1 on a log scale (an int axis stops at neighbouring integers anyway)
      scale: log             # linear: bisection; log: bracketing (×2 from the failing end), then geometric bisection
      metric: test_error     # a final metric of the study (for an eval axis, one measured at the eval point)
      level: 0.01
      meets: below           # below: metric ≤ level; above: metric ≥ level
      within: 300            # optional: met by this step (its first record meeting the level), not at the end
      find: smallest         # smallest (the criterion holds from the threshold up) or largest (up to it)
      over: seed             # seed: one search per (cell, seed); median: one per cell, on the median over seeds
      warm_start: alpha      # true: a cell's later seeds start at its first seed's threshold; a grid axis: each
                             # seed's searches run along that axis, each starting at the previous cell's threshold;
                             # false: every search starts cold
      trend: decreasing      # with warm_start: AXIS, the direction the law states for the threshold along it
      check_far_end: false   # also evaluate the far end (catches a window that closes there); true for eval axes

The cells are the case × grid points × the eval points. The axis must not be in fixed, grid, cases or eval.
`trend` orders the chain (it starts at the end of the axis where the threshold is nearest the failing end, the
cheapest search) and is checked on the thresholds found; it never stands in for an outcome (iclscale.sweeps.threshold).
An eval axis is searched inside each trained pack, all its searches at once: `within` (every record of every
value: retraining), `over: median` (every seed's model at once) and warm starts are refused for it, and its
metric must be one measured at eval points (a probe is the same at every value). Every mistake is one line
naming the key, before anything runs.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from iclscale.errors import UserError, shorten, unknown_name
from iclscale.sweeps.bisect import Axis

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep

KEYS = (
    "axis",
    "range",
    "resolution",
    "scale",
    "metric",
    "level",
    "meets",
    "within",
    "find",
    "over",
    "warm_start",
    "trend",
    "check_far_end",
)
REQUIRED = ("axis", "range", "resolution", "metric", "level")
CHOICES = {
    "scale": ("linear", "log"),
    "meets": ("below", "above"),
    "find": ("smallest", "largest"),
    "over": ("seed", "median"),
}
TRENDS = ("increasing", "decreasing")
DEFAULTS = {"scale": "linear", "meets": "below", "find": "smallest", "over": "seed"}


@dataclass(frozen=True)
class ThresholdSpec:
    """A validated `threshold:` block (every key explicit; it parses to itself from the frozen sweep)."""

    axis: str
    role: str
    low: float | int
    high: float | int
    resolution: float
    scale: str
    metric: str
    level: float
    meets: str = "below"
    within: int | None = None
    find: str = "smallest"
    over: str = "seed"
    warm_start: bool | str = True
    """True: a cell's later seeds start at its first seed's threshold; a grid axis: chained along it; False."""
    check_far_end: bool = False
    integer: bool = False
    trend: str | None = None
    """With warm_start along an axis: increasing or decreasing, the threshold's direction along it (the law's)."""

    @property
    def chain(self) -> str | None:
        """The grid axis the searches are chained along (warm_start: AXIS), else None."""
        return self.warm_start if isinstance(self.warm_start, str) else None

    def criterion_text(self) -> str:
        sign = "≤" if self.meets == "below" else "≥"
        when = f"by step {self.within}" if self.within is not None else "at the final record"
        over = "the median over seeds of " if self.over == "median" else ""
        return f"{over}{self.metric} {sign} {self.level:g} {when}"

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k not in ("role", "low", "high", "integer")}
        out = {"axis": self.axis, "range": [self.low, self.high], **{k: v for k, v in out.items() if k != "axis"}}
        return {k: v for k, v in out.items() if v is not None}


def parse_threshold(sweep: Sweep, raw: Any, where: str) -> ThresholdSpec:
    """Validate a `threshold:` block (the module docstring says what each key means); every mistake is one line
    naming the key, checked in the order the keys are listed there."""
    from iclscale.sweeps.yamlsafe import yaml_number

    info = sweep.study
    _check_keys(raw, where)
    axis = raw["axis"]
    p = _axis_param(sweep, axis, f"{where}.axis")
    low, high = _range(p, raw["range"], f"{where}.range", yaml_number)
    options = _options(raw, where)
    if options["scale"] == "log" and low <= 0:
        raise UserError(f"{where}.range: a log scale needs low > 0, got {low}")
    resolution = _number(raw["resolution"], f"{where}.resolution", "a resolution")
    if resolution <= 0:
        raise UserError(f"{where}.resolution: must be > 0 (how narrow the final bracket is), got {resolution:g}")
    level = _number(raw["level"], f"{where}.level", "a level")
    metric = raw["metric"]
    if not isinstance(metric, str) or not metric:
        raise UserError(f"{where}.metric: expected the name of a final metric of {info.name}, got {shorten(metric)}")
    check_far_end = raw.get("check_far_end", p.role == "eval")
    if not isinstance(check_far_end, bool):
        raise UserError(f"{where}.check_far_end: expected true or false, got {shorten(check_far_end)}")
    warm_start, trend = _warm_start(sweep, raw, p.role, f"{where}.warm_start", f"{where}.trend")
    within = _within(raw.get("within"), axis, p.role, f"{where}.within")
    if p.role == "eval" and options["over"] == "median":
        raise UserError(
            f"{where}.over: {axis} is an eval-role param, searched inside each trained model; the median over "
            "seeds needs every seed's model at once: search per seed (over: seed)"
        )
    spec = ThresholdSpec(
        axis, p.role, low, high, resolution, options["scale"], metric, level, options["meets"], within,
        options["find"], options["over"], warm_start, check_far_end, p.type is int, trend,
    )  # fmt: skip
    _check_range_ends(sweep, spec, where)
    return spec


def _check_keys(raw: Any, where: str) -> None:
    """A mapping of the known keys, the required ones present."""
    if not isinstance(raw, dict):
        raise UserError(f"{where}: expected a mapping with keys {', '.join(KEYS)}, got {shorten(raw)}")
    unknown = [k for k in raw if k not in KEYS]
    if unknown:
        raise UserError(f"{where}.{str(unknown[0])[:40]}: {unknown_name('key', unknown[0], KEYS)}")
    for key in REQUIRED:
        if key not in raw:
            raise UserError(f"{where}: missing key {shorten(key)}")


def _axis_param(sweep: Sweep, axis: Any, where: str):
    """The searched axis's param: a number, given nowhere else in the sweep."""
    if not isinstance(axis, str):
        raise UserError(f"{where}: expected the name of a param of {sweep.study.name}, got {shorten(axis)}")
    p = sweep.study.param(axis, where)
    if p.type not in (int, float) or p.choices is not None:
        raise UserError(f"{where}: {axis} is {p.allowed()}; a threshold axis must be a number")
    _not_given_elsewhere(sweep, axis, where)
    return p


def _options(raw: dict, where: str) -> dict[str, str]:
    """scale, meets, find and over: each one of its CHOICES (its DEFAULTS entry when not given)."""
    options = {key: raw.get(key, DEFAULTS[key]) for key in CHOICES}
    for key, value in options.items():
        if value not in CHOICES[key]:
            raise UserError(f"{where}.{key}: expected {' or '.join(CHOICES[key])}, got {shorten(value)}")
    return options


def _within(within: Any, axis: str, role: str, where: str) -> int | None:
    """`within`: None, or a positive step count on a train- or shape-role axis (an eval axis is searched at the
    final step only)."""
    if within is None:
        return None
    if isinstance(within, bool) or not isinstance(within, int) or within < 1:
        raise UserError(f"{where}: expected a positive step count, got {shorten(within)}")
    if role == "eval":
        raise UserError(
            f"{where}: {axis} is an eval-role param, searched on each trained model at its final step; "
            "'first step meeting the level' would need every record of every searched value, i.e. retraining "
            "per value: drop within, or grid the eval axis instead"
        )
    return within


def _check_range_ends(sweep: Sweep, spec: ThresholdSpec, where: str) -> None:
    """Both ends of the range pass the study's checks at every eval point (an eval axis) or grid point, and
    `within` is not past the end of any cell's training."""
    from iclscale.sweeps.grid import check_at_grid_points

    if spec.role == "eval":
        _check_eval_ends(sweep, spec, f"{where}.range")
    else:
        check_at_grid_points(sweep, spec.axis, [spec.low, spec.high], f"{where}.range: {spec.axis}")
        _check_within(sweep, spec, f"{where}.within")


def _warm_start(sweep: Sweep, raw: dict, role: str, where: str, where_trend: str) -> tuple[bool | str, str | None]:
    """warm_start (true, false or a grid axis) and the trend that a chain along an axis needs."""
    value = raw.get("warm_start", role != "eval")
    trend = raw.get("trend")
    if role == "eval" and value is not False:
        raise UserError(
            f"{where}: {raw['axis']} is an eval-role param, searched inside each trained model, every search at "
            "once (a value costs an evaluation, not a training): a warm start does not apply; drop it"
        )
    if isinstance(value, str):
        if value not in sweep.grid:
            axes = ", ".join(sweep.grid) or "none"
            raise UserError(f"{where}: {shorten(value)} is not a grid axis (grid axes: {axes}); or true or false")
        kind = sweep.study.param(value, where)
        if kind.type not in (int, float) or kind.choices is not None:
            raise UserError(f"{where}: {value} is {kind.allowed()}; a chain needs a numeric axis")
        if trend not in TRENDS:
            raise UserError(
                f"{where_trend}: warm_start along {value} needs the threshold's direction along it, as the law "
                f"states it: {' or '.join(TRENDS)}, got {shorten(trend)}"
            )
        return value, trend
    if not isinstance(value, bool):
        raise UserError(f"{where}: expected true, false or a grid axis, got {shorten(value)}")
    if trend is not None:
        raise UserError(f"{where_trend}: a trend orders a chain; give it with warm_start: AXIS (a grid axis)")
    return value, None


def _not_given_elsewhere(sweep: Sweep, axis: str, where: str) -> None:
    places = {
        "fixed": set(sweep.fixed),
        "grid": set(sweep.grid),
        "cases": set().union(*map(set, sweep.cases)),
        "eval": set(sweep.eval),
    }
    for place, names in places.items():
        if axis in names:
            raise UserError(f"{where}: {axis} is also in {place}; the searched axis must not be given elsewhere")


def _range(p, value: Any, where: str, yaml_number) -> tuple[Any, Any]:
    if not isinstance(value, list) or len(value) != 2:
        raise UserError(f"{where}: expected [low, high] ({p.allowed()}), got {shorten(value)}")
    low, high = (p.coerce(yaml_number(p, v), where) for v in value)
    if low is None or high is None or not low < high:
        raise UserError(f"{where}: expected low < high, got {shorten(value)}")
    return low, high


def _number(value: Any, where: str, what: str) -> float:
    if isinstance(value, str):  # YAML 1.1 reads 1e-3 (no dot) as text
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError(f"{where}: {what} must be a number, got {shorten(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise UserError(f"{where}: {what} must be a finite number, got {shorten(value)}")
    return number


def _check_eval_ends(sweep: Sweep, spec: ThresholdSpec, where: str) -> None:
    """Each eval point with each end of the range must pass the study's checks."""
    from iclscale.sweeps.grid import grid_points, label

    for point in grid_points(sweep):
        for evals in sweep.eval_points():
            for value in (spec.low, spec.high):
                values = {**sweep.fixed, **point, **dict(evals), spec.axis: value}
                sweep.study.resolve(values, 0, f"{where}: {spec.axis} = {shorten(value)} at {label(dict(evals))}")


def _check_within(sweep: Sweep, spec: ThresholdSpec, where: str) -> None:
    """`within` must not be past the end of training of any cell."""
    from iclscale.sweeps.grid import grid_points

    if spec.within is None:
        return
    for point in grid_points(sweep):
        config, _ = sweep.study.resolve({**sweep.fixed, **point, spec.axis: spec.low}, 0, where)
        steps = config.as_dict().get("steps")
        if steps is not None and spec.within > steps:
            raise UserError(f"{where}: step {spec.within} is past the end of training ({steps} steps)")


def spec_axis(spec) -> Axis:
    relative = spec.scale == "log"  # a log-scale resolution is a ratio (iclscale.sweeps.threshold_spec)
    return Axis(spec.low, spec.high, spec.resolution, relative, spec.scale, spec.integer, spec.find, spec.check_far_end)


def holds(spec, value: float) -> bool:
    """The criterion on one judged value (a NaN, from a diverged config, fails)."""
    if spec.within is not None:
        return value <= spec.within
    return value <= spec.level if spec.meets == "below" else value >= spec.level

"""One threshold search as a pure function of what has been evaluated: its status, bracket and next value.

A search looks for the value of an axis at which a monotone criterion starts to hold: with `find: smallest`
the criterion fails below the threshold and holds from it up (the smallest l_tr at which the error is
≤ ε); with `find: largest` it holds up to the threshold and fails above (the largest noise that still
trains). Both are one problem in "positions", the axis mapped so that the failing end of the range comes
first: p(v) = ±v on a linear scale, ±log v on a log scale (minus for largest).

The state is computed from every stored outcome, never from a history of proposals, so resuming is reading
the store again, and values stored by another run (a grid) count too:

- `hi` is the evaluated value nearest the failing end at which the criterion holds, `lo` the nearest
  failing value before it; the threshold lies in (lo, hi] and is reported as hi, the smallest value seen to
  hold (what a grid reports as "the smallest grid value meeting the level");
- a failing value beyond hi contradicts monotonicity: the search stops as `non_monotone` with the evidence;
- hi at the failing end itself: censored there (the threshold is at or beyond that end, `censored_low` for
  smallest, `censored_high` for largest); nothing holds and the meeting end fails: censored at the other end;
- found once (lo, hi] is no wider than the resolution (or no integer lies between, on an int axis).

Proposals: with a hint (warm start: the threshold its predecessor found, iclscale.sweeps.threshold) the hint
first, then its neighbour at the resolution on the side the outcome points to; then, on a linear scale,
bisection at arithmetic midpoints (the whole range's middle first); on a log scale, bracketing from the
failing end by factors of 2 until the criterion holds, then bisection at geometric midpoints. An end of the
range is evaluated only when the bracket reaches it. With `check_far_end` the meeting end is evaluated
before a search is called found, so a criterion that fails again (a window) is reported, not bisected through.
Hand-written: no library offers a resumable, stateless bisection over a stored, packed set of trainings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

OPEN, FOUND, NON_MONOTONE = "open", "found", "non_monotone"
CENSORED_LOW, CENSORED_HIGH = "censored_low", "censored_high"  # the threshold is at or beyond that end
DONE = (FOUND, CENSORED_LOW, CENSORED_HIGH, NON_MONOTONE)
GALLOP = math.log(2.0)  # bracketing steps on a log scale: ×2 (÷2 for largest)


@dataclass(frozen=True)
class Axis:
    low: float
    high: float
    resolution: float
    relative: bool = False
    """False: the final bracket's width hi − lo in the axis's units; True: its ratio, hi ≤ lo·(1 + resolution)."""
    scale: str = "linear"  # or "log"
    integer: bool = False
    find: str = "smallest"  # or "largest"
    check_far_end: bool = False

    @property
    def sign(self) -> int:
        return 1 if self.find == "smallest" else -1

    @property
    def start(self) -> float:
        """The end of the range where the criterion is expected to fail."""
        return self.low if self.find == "smallest" else self.high

    @property
    def end(self) -> float:
        return self.high if self.find == "smallest" else self.low

    def pos(self, value: float) -> float:
        return self.sign * (math.log(value) if self.scale == "log" else value)

    def value(self, pos: float) -> float:
        x = pos * self.sign
        return math.exp(x) if self.scale == "log" else x

    def narrow(self, a: float, b: float) -> bool:
        """Whether values a and b are within the resolution of each other (or neighbouring integers)."""
        a, b = sorted((a, b))
        if self.integer and b - a <= 1:
            return True
        return b <= a * (1 + self.resolution) if self.relative else b - a <= self.resolution

    def between(self, pos: float, a: float, b: float) -> float | None:
        """A value near position `pos` strictly between values a and b (integers rounded), or None."""
        a, b = sorted((a, b))
        x = self.value(pos)
        if not self.integer:
            return x if a < x < b else None
        for candidate in sorted({math.floor(x), math.ceil(x)}, key=lambda c: abs(c - x)):
            if a < candidate < b:
                return int(candidate)
        return None

    def neighbour(self, value: float, toward_end: bool) -> float | None:
        """The next value at the resolution from `value`, toward the meeting end (or the failing end)."""
        up = direction = (1 if toward_end else -1) * self.sign
        if self.relative:
            x = value * (1 + self.resolution) ** direction
        else:
            x = value + direction * (max(1, math.floor(self.resolution)) if self.integer else self.resolution)
        if self.integer:
            x = max(round(x), value + 1) if up > 0 else min(round(x), value - 1)
        return min(max(x, self.low), self.high) if x != value else None


@dataclass(frozen=True)
class State:
    status: str
    value: float | None = None
    """The threshold as reported: the evaluated value nearest the failing end at which the criterion holds
    (the end of the range where censored); None while open with nothing holding."""
    lo: float | None = None
    hi: float | None = None
    proposal: float | None = None
    evidence: str = ""
    evaluated: int = 0
    outcomes: tuple[tuple[float, bool], ...] = ()
    """Every (value, criterion holds) the state was computed from, in value order."""


def search_state(axis: Axis, outcomes: Mapping[float, bool], hint: float | None = None) -> State:
    """The state of one search from its outcomes {axis value: criterion holds}."""
    value_at = {axis.pos(v): v for v in outcomes}  # the evaluated values themselves (exp(log 4) is not 4)
    holds = sorted(p for p, v in value_at.items() if outcomes[v])
    fails = sorted(p for p, v in value_at.items() if not outcomes[v])
    n, seen = len(outcomes), tuple(sorted(outcomes.items()))
    hi = holds[0] if holds else None
    if hi is not None and fails and fails[-1] > hi:
        evidence = f"holds at {_fmt(value_at[hi])} but fails at {_fmt(value_at[fails[-1]])}"
        return State(NON_MONOTONE, value_at[hi], None, value_at[hi], evidence=evidence, evaluated=n, outcomes=seen)
    lo = max((f for f in fails if hi is None or f < hi), default=None)
    lo_v = value_at[lo] if lo is not None else None
    hi_v = value_at[hi] if hi is not None else None
    far_end = axis.pos(axis.end)
    far_end_pending = axis.check_far_end and far_end not in holds and far_end not in fails
    if hi is not None and math.isclose(hi, axis.pos(axis.start), rel_tol=0, abs_tol=1e-12) and lo is None:
        if far_end_pending:
            return State(OPEN, hi_v, None, hi_v, proposal=axis.end, evaluated=n, outcomes=seen)
        status = CENSORED_LOW if axis.find == "smallest" else CENSORED_HIGH
        return State(status, axis.start, None, hi_v, evaluated=n, outcomes=seen)
    if hi is None and far_end in fails:
        status = CENSORED_HIGH if axis.find == "smallest" else CENSORED_LOW
        return State(status, axis.end, lo_v, None, evaluated=n, outcomes=seen)
    if hi is not None and lo is not None and axis.narrow(lo_v, hi_v):
        if far_end_pending:
            return State(OPEN, hi_v, lo_v, hi_v, proposal=axis.end, evaluated=n, outcomes=seen)
        return State(FOUND, hi_v, lo_v, hi_v, evaluated=n, outcomes=seen)
    proposal = _propose(axis, outcomes, (lo, lo_v), (hi, hi_v), hint)
    return State(OPEN, hi_v, lo_v, hi_v, proposal=proposal, evaluated=n, outcomes=seen)


def _propose(axis: Axis, outcomes: Mapping[float, bool], low: tuple, high: tuple, hint) -> float:
    """The next value: `low` and `high` are (position, value) of lo and hi, or (None, None)."""
    (lo, lo_v), (hi, hi_v) = low, high
    warm = _warm_proposal(axis, outcomes, lo, hi, hint) if hint is not None else None
    if warm is not None:
        return warm
    if hi is None and lo is None:
        start, end = axis.pos(axis.start), axis.pos(axis.end)
        return axis.start if axis.scale == "log" else _middle(axis, start, end, axis.start, axis.end)
    if lo is None:  # something holds, nothing fails before it: go toward the failing end
        return _toward_failing_end(axis, hi, hi_v)
    if hi is None:  # only failures: go toward the meeting end
        return _toward_meeting_end(axis, lo, lo_v)
    return _middle(axis, lo, hi, lo_v, hi_v)


def _warm_proposal(axis: Axis, outcomes: Mapping[float, bool], lo, hi, hint: float) -> float | None:
    """The hint until it is evaluated, then its neighbour on the side its outcome points to (while that lies
    inside the bracket and is not evaluated yet); None once the warm start has nothing left to propose."""
    hint = _snap(axis, hint)
    if hint not in outcomes:
        return hint
    nearby = axis.neighbour(hint, toward_end=not outcomes[hint])
    if nearby is not None and nearby not in outcomes and _inside(axis, nearby, lo, hi):
        return nearby
    return None


def _toward_failing_end(axis: Axis, hi: float, hi_v: float) -> float:
    """Something holds and nothing fails before it (after a warm start): on a log scale bracket back toward the
    failing end (÷2, ×2 for largest); on a linear one bisect toward it, the failing end itself once within reach."""
    if axis.scale == "log":
        x = axis.between(hi - GALLOP, axis.start, hi_v) if hi - GALLOP > axis.pos(axis.start) else None
        return x if x is not None else axis.start
    if axis.narrow(axis.start, hi_v):
        return axis.start
    return _middle(axis, axis.pos(axis.start), hi, axis.start, hi_v, include_low=True)


def _toward_meeting_end(axis: Axis, lo: float, lo_v: float) -> float:
    """Only failures so far: on a log scale bracket toward the meeting end (×2, ÷2 for largest); on a linear one
    bisect toward it, the meeting end itself once within reach."""
    if axis.scale == "log":
        x = axis.between(lo + GALLOP, lo_v, axis.end) if lo + GALLOP < axis.pos(axis.end) else None
        return x if x is not None else axis.end
    if axis.narrow(lo_v, axis.end):
        return axis.end
    return _middle(axis, lo, axis.pos(axis.end), lo_v, axis.end, include_high=True)


def _middle(axis: Axis, a: float, b: float, va, vb, include_low=False, include_high=False) -> float:
    """The value at the midpoint of positions a < b, strictly inside (or at an unknown end when the
    interval has no inner value left)."""
    x = axis.between((a + b) / 2, va, vb)
    if x is not None:
        return x
    return va if include_low else vb


def _inside(axis: Axis, value: float, lo: float | None, hi: float | None) -> bool:
    p = axis.pos(value)
    return (lo is None or p > lo) and (hi is None or p < hi)


def _snap(axis: Axis, value: float) -> float:
    value = min(max(value, axis.low), axis.high)
    return round(value) if axis.integer else value


def _fmt(value: float) -> str:
    return f"{value:g}"

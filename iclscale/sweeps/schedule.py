"""The work of a reproduction and its schedule: each sweep's estimated model-steps (`estimate`), the order in which
sweeps run (`by_measured_cost`: cheapest first one at a time, longest first several at a time) and the one progress
line with its ETA (`Overall`).

Earlier run times (seconds by sweep name) are an argument, never read here: `iclscale reproduce` (the command line)
reads the committed full run's from docs/results/claims.json and passes them in.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Planned:
    """One sweep of the reproduction: the loaded sweep, where it goes, and its estimated work."""

    path: str
    sweep: object  # iclscale.sweeps.spec.Sweep
    out: Path
    total: int  # estimated model-steps of the whole sweep
    left: int  # estimated model-steps still to train
    overrides: tuple[str, ...] = ()  # the budget's
    configs_left: int | None = None  # configs still to run (None: those of `left`): a Monte Carlo sweep trains none

    @property
    def pending(self) -> bool:
        """Work left: model-steps to train, or configs to run (a Monte Carlo sweep's are evaluation only)."""
        return self.left > 0 or bool(self.configs_left)


def estimate(sweep, out: Path) -> tuple[int, int, int]:
    """(total, left) model-steps and the configs still to run: the grid's plan; a search's plan times its trials
    (left: the trials not stored); a threshold search's cells times the bisection rounds its range and resolution
    need (an estimate: warm starts need fewer), all of it left while any search is open. Used to order the sweeps
    and for the ETA only."""
    from iclscale.sweeps.plan import make_plan
    from iclscale.sweeps.store import Location
    from iclscale.sweeps.store_read import stored_keys

    location = Location(out)
    stored = stored_keys(location) if location.exists() else {}
    plan = make_plan(sweep, stored)
    total, left = plan.total_model_steps, plan.model_steps
    if sweep.search:  # the plan is one trial per grid point; each point runs `trials`
        from iclscale.sweeps.search_trials import load_states

        trials = int(sweep.search.get("trials", 1))
        states = load_states(sweep, location) if stored else []
        done = sum(min(state.stored, trials) for state in states) / (trials * max(len(states), 1))
        total = plan.total_model_steps * trials
        left = round(total * (1 - done))
    if sweep.threshold:
        rounds = bisection_rounds(sweep.threshold)
        total = plan.total_model_steps * rounds
        from iclscale.sweeps.threshold import has_open_search

        left = total if has_open_search(sweep, location) else 0
    # configs to run: the plan's, but a finished search's plan still lists its grid (its trials are not grid keys)
    searched = bool(sweep.search or sweep.threshold)
    configs = 0 if searched and not left else sum(len(pack.configs) for pack in plan.packs)
    return total, left, configs


def bisection_rounds(threshold) -> int:
    """Trainings per search: bisection to the resolution (log scale: bracketing first, then geometric)."""
    low, high = float(threshold.low), float(threshold.high)
    resolution = float(threshold.resolution)
    if threshold.scale == "log" and low > 0:
        return 2 + max(1, math.ceil(math.log2(max(math.log(high / low) / math.log1p(resolution), 2))))
    return 1 + max(1, math.ceil(math.log2(max((high - low) / resolution, 2))))


def measured_seconds(item: Planned, seconds: dict[str, float]) -> float | None:
    """A sweep's time left by an earlier run's (`seconds`, by sweep name): its time scaled by the share of its
    model-steps still to train (a Monte Carlo sweep's whole time, while it has configs left); None where that run
    did not time it."""
    if item.sweep.name not in seconds:
        return None
    if not item.total:  # a Monte Carlo sweep: its whole time while it has configs left
        return seconds[item.sweep.name] if item.pending else 0.0
    return seconds[item.sweep.name] * item.left / item.total


def by_measured_cost(planned: list[Planned], seconds: dict[str, float], longest: bool) -> list[Planned]:
    """The order of a reproduction, by each sweep's time left in an earlier run (`measured_seconds`; `iclscale
    reproduce` passes the committed full run's): model-steps alone misjudge the sweeps whose time is evaluation (C24's
    oracle trains nothing and is its longest). `longest`, for several sweeps at a time: longest first (Graham's LPT
    rule, within 4/3 of the shortest finish; R. L. Graham, SIAM J. Appl. Math. 17 (1969) 416), so that no long sweep
    is left running alone at the end. Otherwise cheapest first, so that results come early. Sweeps the earlier run did
    not time follow, by model-steps the same way; sweeps with nothing left go last."""
    sign = -1 if longest else 1

    def key(item: Planned):
        measured = measured_seconds(item, seconds)
        return (not item.pending, measured is None, sign * (measured or 0), sign * item.left, item.sweep.name)

    return sorted(planned, key=key)


class Overall:
    """The one progress line across sweeps: sweeps done, estimated model-steps done, elapsed, and an ETA.

    The ETA predicts each sweep left from those finished in this session. Where an earlier run timed a sweep
    (`earlier_seconds`, by sweep name: `iclscale reproduce` passes the committed full run's), its prediction is that
    time scaled by the finished sweeps' ratio of this session's time to the earlier run's (a ratio of sums): it sees
    evaluation, which model-steps do not. Otherwise a sweep's time is a fixed cost (planning, compiling, compacting:
    seconds) plus a cost per model-step, both fitted, non-negative least squares (scipy.optimize.nnls), to the
    finished sweeps that trained — one model-step rate would overstate the small sweeps a hundredfold. The sweeps
    left then go, in their order, to the first of `jobs` slots to come free, each running sweep holding its slot for
    its prediction less what it has run (list scheduling); the ETA is when the last ends. "?" until there is enough
    to predict from."""

    def __init__(self, planned: list[Planned], jobs: int = 1, earlier_seconds: dict[str, float] | None = None):
        self.planned = planned
        self.jobs = jobs
        self.earlier_seconds = earlier_seconds or {}
        self.left = sum(p.left for p in planned)
        self.trained = 0
        self.done = 0
        self.start = self.sweep_start = time.monotonic()
        self.timed: list[tuple[int, float]] = []  # (model-steps, seconds) of each finished sweep that trained
        self.against_earlier: list[tuple[float, float]] = []  # (seconds here, in the earlier run) of each finished

    def finished(self, item: Planned, seconds: float) -> None:
        if item.left:
            self.timed.append((item.left, seconds))
        if item.pending and item.sweep.name in self.earlier_seconds:
            self.against_earlier.append((seconds, self.earlier_seconds[item.sweep.name]))
        self.trained += item.left
        self.done += 1

    def predictor(self):
        """A sweep's predicted seconds from what has finished, or None for a sweep it cannot predict yet."""
        ratio = None
        if self.against_earlier:
            here, full = map(sum, zip(*self.against_earlier, strict=True))
            ratio = here / full
        fit = None
        if len({steps for steps, _ in self.timed}) >= 2:  # one size: the fixed and per-step cost are not separable
            import numpy as np
            from scipy.optimize import nnls

            steps, seconds = np.array(self.timed, dtype=float).T
            scale = steps.mean()  # columns of like size, so that nnls is well conditioned
            (fixed, per_step), _ = nnls(np.column_stack([np.ones_like(steps), steps / scale]), seconds)
            fit = (fixed, per_step / scale)

        def predict(item: Planned) -> float | None:
            if not item.pending:
                return 0.0
            if ratio is not None and item.sweep.name in self.earlier_seconds:
                return ratio * self.earlier_seconds[item.sweep.name]
            return None if fit is None else fit[0] + fit[1] * item.left

        return predict

    def eta(self, waiting: list[Planned], running: list[tuple[Planned, float]] = ()) -> str:
        """Time left while the sweeps `running` (each with the seconds it has run) run and `waiting` wait."""
        import heapq

        if not any(p.pending for p in waiting) and not any(p.pending for p, _ in running):
            return "0:00"
        predict = self.predictor()
        held = [predict(item) for item, _ in running]
        queued = [predict(item) for item in waiting]
        if None in held or None in queued:
            return "?"
        slots = [max(cost - ran, 0.0) for cost, (_, ran) in zip(held, running, strict=True)]
        slots += [0.0] * max(self.jobs - len(slots), 0)
        heapq.heapify(slots)
        for cost in queued:
            heapq.heappush(slots, heapq.heappop(slots) + cost)
        return duration(max(slots))

    def show(self, index: int, running: list[tuple[Planned, float]] | None = None) -> None:
        """The line as sweep `index` starts (one at a time), or, several at a time, with the sweeps `running` (and
        the seconds each has run) while those from `index` on wait."""
        self.sweep_start = time.monotonic()
        n = len(self.planned)
        if running is not None:
            head = f"{self.done}/{n} sweeps done"
            if running:
                head += f", running {', '.join(item.sweep.name for item, _ in running)}"
        elif index < n:
            head = f"sweep {index + 1}/{n} {self.planned[index].sweep.name}"
        else:
            head = f"{n}/{n} sweeps done"
        print(
            f"reproduce: {head} · {si(self.trained)}/{si(self.left)} model-steps · "
            f"elapsed {duration(self.sweep_start - self.start)} · ETA {self.eta(self.planned[index:], running or [])}",
            flush=True,
        )


def si(x: float) -> str:
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= limit:
            return f"{x / limit:.1f}{suffix}"
    return f"{x:.0f}"


def duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"

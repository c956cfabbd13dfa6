"""`iclscale sweep run` for a sweep with a `threshold:` block: bisection rounds over the result store.

One search per (cell, seed), or per cell over the median of its seeds; a cell is a case × grid point × eval
point. A round reads the store, computes every search's state (sweeps.bisect: a pure function of what is
stored), collects the open searches' proposals as configs, plans them like any sweep (`plan_configs`: equal
shape params share packs, stored configs are skipped) and runs the plan through the sweep's executor
(inline or Ray Tune). Rounds repeat until no search is open. There is no other state: a search killed at
any moment (kill -9 too) is resumed by running the same command, and nothing stored is trained again.

The outcome at a value: the criterion (`ThresholdSpec.criterion_text`) on the config's row at the cell's
eval point; a diverged config fails it; over the median of seeds, a value counts once every seed is stored
(a diverged seed counts as the worst value). With `within`, the first recorded step meeting the level must
be ≤ within (read from the curves).

Warm start (over: seed): a cell's first seed searches alone; once it is done, the other seeds start at its
threshold (the hint; sweeps.bisect) and usually end after two trainings. The hint is the first seed's value,
never "the seeds done so far", so that a resumed search proposes what the killed one would have.

A training that failed after its retries is not an outcome: the search that proposed it stops as `failed`
(named with the error's config) instead of proposing it forever; the next `sweep run` retries it.

The result, one row per search, is written to DIR/thresholds.csv after every round (sweeps.threshold_table)
and read by the analysis as threshold-law points.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iclscale.errors import UserError
from sweeps.bisect import DONE, OPEN, Axis, State, search_state

if TYPE_CHECKING:
    from iclscale.params import Config, EvalPoint
    from sweeps.spec import Sweep
    from sweeps.store import Location

FAILED_SEARCH = "failed"  # a proposed training failed after its retries (retried by the next run)
MAX_ROUNDS = 1000  # a guard: a bisection on a 64-bit float axis ends in far fewer


@dataclass(frozen=True)
class Search:
    """One search: a cell (case × grid point, plus the eval point it is judged at) and its seeds."""

    point: dict[str, Any]
    eval_point: EvalPoint
    seeds: tuple[int, ...]
    """One seed (over: seed), or every seed of the sweep (over: median)."""

    def config(self, sweep: Sweep, value: Any, seed: int) -> Config:
        spec = sweep.threshold
        assignment = {**sweep.fixed, **self.point, spec.axis: value}
        return sweep.study.resolve(assignment, seed, f"sweep file {sweep.path}: threshold")[0]

    def configs(self, sweep: Sweep, value: Any) -> list[Config]:
        return [self.config(sweep, value, seed) for seed in self.seeds]


def axis_of(sweep: Sweep) -> Axis:
    spec = sweep.threshold
    relative = spec.scale == "log"  # a log-scale resolution is a ratio (sweeps.threshold_spec)
    return Axis(spec.low, spec.high, spec.resolution, relative, spec.scale, spec.integer, spec.find, spec.check_far_end)


def searches(sweep: Sweep) -> list[Search]:
    """Every search, cell by cell in file order, seeds in order within a cell."""
    from sweeps.search import grid_points

    per_seed = sweep.threshold.over == "seed"
    seed_sets = [(s,) for s in sweep.seeds] if per_seed else [tuple(sweep.seeds)]
    return [
        Search(point, evals, seeds)
        for point in grid_points(sweep)
        for evals in sweep.eval_points()
        for seeds in seed_sets
    ]


# Outcomes from the store -----------------------------------------------------------------------
@dataclass
class Stored:
    """What the store holds for a threshold search."""

    judged: dict[tuple[str, str], float]
    """(run_id, eval_key) -> the value the criterion is judged on, for every ok or diverged row: the final
    metric (NaN when diverged), or with `within` the first recorded step meeting the level (inf if none)."""
    axis_values: list[Any]
    """The axis values of the stored configs within the range: the candidates of every search."""
    failed: set[str]
    """run_ids stored only as failed."""


def read_stored(sweep: Sweep, location: Location) -> Stored:
    from sweeps.store import FAILED, read_store

    spec = sweep.threshold
    empty = Stored({}, [], set())
    if not location.exists():
        return empty
    try:
        data = read_store(location.uri, curves=spec.within is not None)
    except UserError:  # no runs stored yet
        return empty
    runs = data.runs
    failed = set(runs.loc[runs["status"] == FAILED, "run_id"])
    runs = runs[runs["status"] != FAILED]
    if spec.metric not in runs.columns:
        return Stored({}, [], failed)
    judged = {
        (r, k): (math.nan if s == "diverged" else float(v))
        for r, k, s, v in zip(runs["run_id"], runs["eval_key"], runs["status"], runs[spec.metric], strict=True)
    }
    if spec.within is not None:
        curves = data.curves[data.curves["metric"] == spec.metric]
        meets = curves["value"] <= spec.level if spec.meets == "below" else curves["value"] >= spec.level
        first = curves[meets].groupby(["run_id", "eval_key"])["step"].min()
        judged = {key: float(first.get(key, math.inf)) for key in judged}
    values = sorted({v.item() if hasattr(v, "item") else v for v in runs[spec.axis].dropna()})
    return Stored(judged, [v for v in values if spec.low <= v <= spec.high], failed - set(runs["run_id"]))


def holds(sweep: Sweep, value: float) -> bool:
    """The criterion on one judged value (a NaN, from a diverged config, fails)."""
    spec = sweep.threshold
    if spec.within is not None:
        return value <= spec.within
    return value <= spec.level if spec.meets == "below" else value >= spec.level


def outcomes(sweep: Sweep, search: Search, stored: Stored) -> dict[Any, bool]:
    """{axis value: criterion holds} over the values stored for this search, whoever stored them (a config
    counts by its run_id, so a grid run into the same directory with the same fixed params counts too)."""
    from sweeps.store import eval_key

    key = eval_key(search.eval_point)
    worst = math.inf if (sweep.threshold.meets == "below" or sweep.threshold.within) else -math.inf
    result = {}
    for value in stored.axis_values:
        judged = [stored.judged.get((c.run_id, key)) for c in search.configs(sweep, value)]
        if any(v is None for v in judged):
            continue  # not every seed stored yet (over: median)
        if len(judged) == 1:
            result[value] = holds(sweep, judged[0])
        else:
            result[value] = holds(sweep, statistics.median(worst if math.isnan(v) else v for v in judged))
    return result


def states(sweep: Sweep, stored: Stored) -> list[tuple[Search, State]]:
    """Every search's state; with warm start, a cell's later seeds wait for its first seed's threshold."""
    spec, axis = sweep.threshold, axis_of(sweep)
    first_of: dict[tuple, State] = {}
    result = []
    for search in searches(sweep):
        cell = (tuple(search.point.items()), search.eval_point)
        first = first_of.get(cell)
        hint = None
        if spec.over == "seed" and spec.warm_start and first is not None:
            if first.status not in DONE:
                result.append((search, State("waiting", evidence=f"for seed {sweep.seeds[0]}'s threshold")))
                continue
            hint = first.value if first.status != "non_monotone" else None
        state = search_state(axis, outcomes(sweep, search, stored), hint)
        first_of.setdefault(cell, state)
        result.append((search, state))
    return result


# Rounds ----------------------------------------------------------------------------------------
def run_threshold(sweep: Sweep, location: Location, run_plan, slots: int = 1, quiet: bool = False) -> list:
    """Rounds until no search is open. `run_plan(plan)` trains a plan through the sweep's executor."""
    from sweeps.plan import plan_configs
    from sweeps.store import stored_keys, write_frozen_sweep

    write_frozen_sweep(location, sweep.resolved())
    attempted: set[str] = set()
    for round_ in range(1, MAX_ROUNDS + 1):
        stored = read_stored(sweep, location)
        current = _fail_repeated(states(sweep, stored), sweep, attempted, stored)
        write_table(sweep, location, current)
        proposals = [c for search, state in current if state.status == OPEN
                     for c in search.configs(sweep, state.proposal)]  # fmt: skip
        if not proposals:
            break
        plan = plan_configs(sweep, proposals, sweep.eval_points(), stored_keys(location), slots)
        attempted |= {c.run_id for c in proposals}
        if not quiet:
            searching = sum(1 for _, state in current if state.status == OPEN)
            to_train = sum(len(p.configs) for p in plan.packs)
            print(f"round {round_}: {searching} searches open, {to_train} configs to train in {len(plan.packs)} packs",
                  flush=True)  # fmt: skip
        if plan.packs:
            run_plan(plan)
    else:
        raise UserError(f"threshold search of {sweep.name}: still open after {MAX_ROUNDS} rounds")
    return current


def _fail_repeated(current, sweep: Sweep, attempted: set[str], stored: Stored) -> list:
    """A search whose proposal was trained this session and is still not stored (it failed) stops as failed."""
    out = []
    for search, state in current:
        if state.status == OPEN:
            lost = [c for c in search.configs(sweep, state.proposal) if c.run_id in attempted]
            if lost:
                reason = "failed after its retries" if lost[0].run_id in stored.failed else "was not stored"
                evidence = f"training at {sweep.threshold.axis} = {state.proposal} {reason} (run {lost[0].run_id})"
                state = State(FAILED_SEARCH, state.value, state.lo, state.hi, evidence=evidence,
                              evaluated=state.evaluated)  # fmt: skip
        out.append((search, state))
    return out


def write_table(sweep: Sweep, location: Location, current) -> None:
    from sweeps.threshold_table import table_bytes

    location.write_bytes(TABLE, table_bytes(sweep, current))


TABLE = "thresholds.csv"


# Plan, status and checks -----------------------------------------------------------------------
def current_states(sweep: Sweep, location: Location) -> list:
    return states(sweep, read_stored(sweep, location))


def has_open_search(sweep: Sweep, location: Location) -> bool:
    return any(state.status not in DONE for _, state in current_states(sweep, location))


def stored_counts(location: Location) -> dict[str, int]:
    """Configs stored in the directory by status (a config counts once, by its best row)."""
    from sweeps.store import stored_keys

    best: dict[str, str] = {}
    rank = {"ok": 0, "diverged": 1, "failed": 2}
    for (run_id, _), status in (stored_keys(location) if location.exists() else {}).items():
        if rank.get(status, 3) < rank.get(best.get(run_id), 3):
            best[run_id] = status
    counts = {status: list(best.values()).count(status) for status in rank}
    return counts


def describe_stored(sweep: Sweep, location: Location) -> str:
    from sweeps.threshold_table import describe

    counts = stored_counts(location)
    return describe(sweep, current_states(sweep, location), counts["ok"] + counts["diverged"]) + (
        f"\noutput: {location.uri}"
    )


def threshold_status(sweep: Sweep, location: Location) -> dict[str, Any]:
    """`sweep status` of a threshold sweep: the configs stored, the searches not ended as `missing`."""
    from sweeps.threshold_table import describe

    counts = stored_counts(location)
    current = current_states(sweep, location)
    missing = sum(1 for _, state in current if state.status not in DONE)
    return {"sweep": sweep.name, "configs": sum(counts.values()), **counts, "missing": missing,
            "search": describe(sweep, current)}  # fmt: skip


def check_threshold_metric(sweep: Sweep) -> None:
    """Refuse an unknown metric before any training (a 0-step pack at the range's low end names them)."""
    from sweeps.search import final_metric_names, grid_points

    spec = sweep.threshold
    search = Search(grid_points(sweep)[0], sweep.eval_points()[0], (sweep.seeds[0],))
    known = final_metric_names(sweep, search.config(sweep, spec.low, sweep.seeds[0]), search.eval_point)
    if known is not None and spec.metric not in known:
        raise UserError(
            f"sweep file {sweep.path}: threshold.metric: study {sweep.study.name} reports no metric "
            f"{spec.metric!r}; its final metrics are: {', '.join(sorted(known))}"
        )

"""`iclscale sweep run` for a sweep with a `threshold:` block: bisection rounds over the result store.

One search per (cell, seed), or per cell over the median of its seeds; a cell is a case × grid point × eval
point. A round reads the store, computes every search's state (iclscale.sweeps.bisect: a pure function of what is
stored), collects the open searches' proposals as configs, plans them like any sweep (`plan_configs`: equal
shape params share packs, so proposals of the same value from several searches train in one pack; stored
configs are skipped) and runs the plan through the sweep's executor (inline or Ray Tune). Rounds repeat until
no search is open. There is no other state: a search killed at any moment (kill -9 too) is resumed by running
the same command, and nothing stored is trained again.

The outcome at a value: the criterion (`ThresholdSpec.criterion_text`) on the config's row at the cell's
eval point; a diverged config fails it; over the median of seeds, a value counts once every seed is stored
(a diverged seed counts as the worst value). With `within`, the first recorded step meeting the level must
be ≤ within (read from the curves).

An eval-role axis (l_ts, α′) is searched without retraining (iclscale.sweeps.eval_refine): one round trains each
(grid point, seed) model once, and inside its trial every search of that model bisects the eval axis on it;
each value measured is an eval point stored like any other, so the state is read from the store as for a
trained axis.

Warm starts: where a search starts decides how many trainings it costs, never its answer's meaning (a hint
is only the first value proposed; every bracket end reported is an outcome trained at that cell and seed,
never one inferred from another cell). Certifying a found threshold takes at least two trainings (a failing
value and a holding one next to it), so the saving is in reaching that bracket at once:
- `warm_start: true`: a cell's first seed searches cold; the others start at its threshold.
- `warm_start: AXIS` with `trend`: each seed's searches along the grid axis AXIS start from each other's
  thresholds (the same seed and the rest of the cell). The chain starts at the end of AXIS where the law
  puts the threshold nearest the failing end of the range (a cold search ends soonest there), and every
  cell's predecessor lies on that side of it (`predecessors`: a binary tree, log2(n) deep, so that rounds do
  not grow with n): a hint h then costs two trainings when the threshold is h or the next value (h fails,
  h+1 holds). Seeds are not chained: their thresholds scatter both ways. The stated trend is checked on the
  thresholds found, cell against neighbouring cell (a step against it is reported in thresholds.csv's
  `trend` column and the summary), and not otherwise used. On a catalogue paper's threshold law l_tr ∝ 1/α
  (the prompt length needed, decreasing in α), replayed on the dense grid's outcomes: seed warm starts train
  86 configs in 8 rounds and 11 packs, a plain chain (each cell after its neighbour) 67 in 18 rounds and 34 packs, the
  tree 66 in 10 rounds and 16 packs; the grid trains 320. Every threshold equal to the grid's in the latter two.
A hint is a predecessor's final threshold, never "the searches done so far", so a resumed search proposes
what the killed one would have; a search whose predecessor has not ended is `waiting`.

A training that failed after its retries is not an outcome: the search that proposed it stops as `failed`
(named with the error's config) instead of proposing it forever; `sweep run --retry-failed` retries it.

The result, one row per search, is written to DIR/thresholds.csv after every round (iclscale.sweeps.threshold_table)
and read by the analysis as threshold-law points. What is and is not checked for monotonicity is said there:
a contradiction among the evaluated values is detected (`non_monotone`); a failure at a value never evaluated
is not, and each row lists the spans of the range left unevaluated (`unchecked`).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from iclscale.errors import UserError
from iclscale.sweeps.bisect import DONE, OPEN, Axis, State, search_state
from iclscale.sweeps.threshold_spec import holds, spec_axis
from iclscale.trainer.params import eval_point

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep
    from iclscale.sweeps.store import Location
    from iclscale.trainer.params import Config, EvalPoint

FAILED_SEARCH = "failed"  # a proposed training failed after its retries (retried by the next run)
WAITING = "waiting"  # for its predecessor's threshold (warm start)
REPORTED = ("found", "censored_low", "censored_high")  # the statuses whose threshold is a law's point
MAX_ROUNDS = 1000  # a guard: a bisection on a 64-bit float axis ends in far fewer


@dataclass(frozen=True)
class Search:
    """One search: a cell (case × grid point, plus the eval point it is judged at) and its seeds."""

    point: dict[str, Any]
    eval_point: EvalPoint
    """The cell's eval point; for an eval axis, the axis's value in it is replaced by each value searched."""
    seeds: tuple[int, ...]
    """One seed (over: seed), or every seed of the sweep (over: median)."""

    @property
    def key(self) -> tuple:
        return tuple(self.point.items()), self.eval_point, self.seeds

    def config(self, sweep: Sweep, value: Any, seed: int) -> Config:
        spec = sweep.threshold
        searched = {} if spec.role == "eval" else {spec.axis: value}  # an eval axis is no part of the config
        assignment = {**sweep.fixed, **self.point, **searched}
        return sweep.study.resolve(assignment, seed, f"sweep file {sweep.path}: threshold")[0]

    def configs(self, sweep: Sweep, value: Any) -> list[Config]:
        return [self.config(sweep, value, seed) for seed in self.seeds]

    def judged_at(self, sweep: Sweep, value: Any) -> EvalPoint:
        """The eval point the criterion is read at for `value`."""
        spec = sweep.threshold
        return eval_point({**dict(self.eval_point), spec.axis: value}) if spec.role == "eval" else self.eval_point

    def where(self, sweep: Sweep) -> str:
        evals = {k: v for k, v in self.eval_point if k in sweep.eval}
        cell = ", ".join(f"{k}={v}" for k, v in {**self.point, **evals}.items())
        return f"{cell} ({f'seed {self.seeds[0]}' if sweep.threshold.over == 'seed' else 'median'})"


def axis_of(sweep: Sweep) -> Axis:
    return spec_axis(sweep.threshold)


def eval_search_of(sweep: Sweep):
    """For an eval axis, what each trial needs to search it on its trained pack (iclscale.sweeps.eval_refine), else
    None."""
    from iclscale.sweeps.eval_refine import EvalSearch

    spec = sweep.threshold
    return EvalSearch(spec, tuple(sweep.eval_points())) if spec is not None and spec.role == "eval" else None


def searches(sweep: Sweep) -> list[Search]:
    """Every search, cell by cell in file order, seeds in order within a cell."""
    from iclscale.sweeps.grid import grid_points

    per_seed = sweep.threshold.over == "seed"
    seed_sets = [(s,) for s in sweep.seeds] if per_seed else [tuple(sweep.seeds)]
    return [
        Search(point, evals, seeds)
        for point in grid_points(sweep)
        for evals in sweep.eval_points()
        for seeds in seed_sets
    ]


def chain_values(sweep: Sweep) -> list[Any]:
    """The chain axis's values in the order its searches run: the threshold is expected to move away from the
    failing end of the range along it (for `smallest`, to grow), so the first cell is the cheapest cold search."""
    spec = sweep.threshold
    ascending = (spec.trend == "increasing") == (spec.find == "smallest")
    return sorted(set(sweep.grid[spec.chain]), reverse=not ascending)


def predecessors(sweep: Sweep, all_searches: list[Search], adjacent: bool = False) -> dict[tuple, Search | None]:
    """Each search's warm-start predecessor (whose threshold is its hint), or None (a cold start). Along a chain,
    the cell at position i (in `chain_values` order) follows the one at i − lowbit(i): 1, 2, 4 follow 0, 3
    follows 2, 5 and 6 follow 4, 7 follows 6, …: always a cell nearer the failing end, and at most log2(n)
    cells deep, so the rounds grow as log n, not n. `adjacent`: the previous cell instead (the trend check)."""
    spec = sweep.threshold
    by_key = {s.key: s for s in all_searches}
    order = chain_values(sweep) if spec.chain else []
    out: dict[tuple, Search | None] = {}
    for search in all_searches:
        before = None
        if spec.chain:
            at = order.index(search.point[spec.chain])
            if at > 0:
                previous = order[at - 1 if adjacent else at - (at & -at)]
                before = replace(search, point={**search.point, spec.chain: previous})
        elif spec.warm_start and spec.over == "seed" and search.seeds[0] != sweep.seeds[0]:
            before = replace(search, seeds=(sweep.seeds[0],))
        out[search.key] = by_key.get(before.key) if before is not None else None
    return out


# Outcomes from the store -----------------------------------------------------------------------
@dataclass
class Stored:
    """What the store holds for a threshold search."""

    judged: dict[tuple[str, str], float]
    """(run_id, eval_key) -> the value the criterion is judged on, for every ok or diverged row: the final
    metric (NaN when diverged), or with `within` the first recorded step meeting the level (inf if none)."""
    axis_values: list[Any]
    """The axis values of the stored configs (rows, for an eval axis) within the range: every search's candidates."""
    failed: set[str]
    """run_ids stored only as failed."""


def read_stored(sweep: Sweep, location: Location) -> Stored:
    from iclscale.sweeps.store import FAILED
    from iclscale.sweeps.store_read import read_store

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


def outcomes(sweep: Sweep, search: Search, stored: Stored) -> dict[Any, bool]:
    """{axis value: criterion holds} over the values stored for this search, whoever stored them (a config
    counts by its run_id, so a grid run into the same directory with the same fixed params counts too)."""
    from iclscale.sweeps.store import eval_key

    spec = sweep.threshold
    worst = math.inf if (spec.meets == "below" or spec.within) else -math.inf
    run_ids = [c.run_id for c in search.configs(sweep, None if spec.role == "eval" else spec.low)]
    result = {}
    for value in stored.axis_values:
        key = eval_key(search.judged_at(sweep, value))
        if spec.role != "eval":
            run_ids = [c.run_id for c in search.configs(sweep, value)]
        judged = [stored.judged.get((run_id, key)) for run_id in run_ids]
        if any(v is None for v in judged):
            continue  # not every seed stored yet (over: median)
        if len(judged) == 1:
            result[value] = holds(spec, judged[0])
        else:
            result[value] = holds(spec, statistics.median(worst if math.isnan(v) else v for v in judged))
    return result


def states(sweep: Sweep, stored: Stored) -> list[tuple[Search, State]]:
    """Every search's state, in file order; a warm-started search waits for its predecessor's threshold."""
    axis = axis_of(sweep)
    all_searches = searches(sweep)
    before = predecessors(sweep, all_searches)
    found: dict[tuple, State] = {}

    def state_of(search: Search) -> State:
        if search.key not in found:
            previous, hint = before[search.key], None
            if previous is not None:
                first = state_of(previous)
                if first.status not in DONE:
                    found[search.key] = State(WAITING, evidence=f"for the threshold at {previous.where(sweep)}")
                    return found[search.key]
                hint = first.value
            found[search.key] = search_state(axis, outcomes(sweep, search, stored), hint)
        return found[search.key]

    return [(search, state_of(search)) for search in all_searches]


def trend_notes(sweep: Sweep, current: list[tuple[Search, State]]) -> dict[tuple, str]:
    """With a chain: per search, whether its threshold sits as the stated trend says against the previous cell's
    along the axis ("as stated", or the step against it); a check of the law's direction, not used by the search."""
    spec = sweep.threshold
    if not spec.chain:
        return {}
    axis = axis_of(sweep)
    state = {search.key: s for search, s in current}
    before = predecessors(sweep, [search for search, _ in current], adjacent=True)
    notes = {}
    for search, now in current:
        previous = before[search.key]
        if previous is None or now.status not in REPORTED or state[previous.key].status not in REPORTED:
            continue
        then = state[previous.key].value
        if axis.pos(now.value) >= axis.pos(then):
            notes[search.key] = "as stated"
        else:
            step = f"{spec.chain}={previous.point[spec.chain]}"
            notes[search.key] = f"against the stated trend ({spec.trend}): {then:g} at {step}, {now.value:g} here"
    return notes


# Rounds ----------------------------------------------------------------------------------------
def run_threshold(
    sweep: Sweep, location: Location, run_plan, slots: int = 1, quiet: bool = False, retry_failed: bool = False
) -> list:
    """Rounds until no search is open. `run_plan(plan)` trains a plan through the sweep's executor; a proposal
    stored as failed is trained again only with `retry_failed` (else its search ends as failed)."""
    from iclscale.sweeps.plan import plan_configs
    from iclscale.sweeps.store_frozen import write_frozen_sweep
    from iclscale.sweeps.store_read import stored_keys

    write_frozen_sweep(location, sweep.resolved())
    attempted: set[str] = set()
    trained = 0  # configs trained by this run, over all rounds (the overall total beside each round's line)
    for round_ in range(1, MAX_ROUNDS + 1):
        stored = read_stored(sweep, location)
        current = _fail_repeated(states(sweep, stored), sweep, attempted, stored)
        write_table(sweep, location, current)
        open_ = [(search, state) for search, state in current if state.status == OPEN]
        proposals = [c for search, state in open_ for c in search.configs(sweep, state.proposal)]
        if not proposals:
            break
        points = sweep.eval_points()
        if sweep.threshold.role == "eval":  # the first values, measured during training; the rest in the trial
            points = list(dict.fromkeys(search.judged_at(sweep, state.proposal) for search, state in open_))
        plan = plan_configs(sweep, proposals, points, stored_keys(location), slots, retry_failed)
        attempted |= {c.run_id for c in proposals}
        if not quiet:
            to_train = sum(len(p.configs) for p in plan.packs)
            ended = sum(state.status not in (OPEN, WAITING) for _, state in current)
            print(f"round {round_}: {len(open_)} searches open, {ended} of {len(current)} ended; "
                  f"{to_train} configs to train in {len(plan.packs)} packs ({trained} trained so far in this run)",
                  flush=True)  # fmt: skip
            trained += to_train
        if plan.packs:
            run_plan(plan)
    else:
        raise UserError(f"threshold search of {sweep.name}: still open after {MAX_ROUNDS} rounds")
    return current


def _fail_repeated(current, sweep: Sweep, attempted: set[str], stored: Stored) -> list:
    """A search whose proposal was trained this session and is still not stored (it failed) stops as failed."""
    spec = sweep.threshold
    out = []
    for search, state in current:
        if state.status == OPEN:
            lost = [c for c in search.configs(sweep, state.proposal) if c.run_id in attempted]
            if lost:
                if spec.role == "eval":  # the model is trained and stored: its evaluation at this value failed
                    reason = f"evaluation at {spec.axis} = {state.proposal} failed (run {lost[0].run_id})"
                else:
                    why = "failed after its retries" if lost[0].run_id in stored.failed else "was not stored"
                    reason = f"training at {spec.axis} = {state.proposal} {why} (run {lost[0].run_id})"
                state = replace(state, status=FAILED_SEARCH, proposal=None, evidence=reason)
        out.append((search, state))
    return out


def write_table(sweep: Sweep, location: Location, current) -> None:
    from iclscale.sweeps.threshold_table import table_bytes

    location.write_bytes(TABLE, table_bytes(sweep, current, trend_notes(sweep, current)))


TABLE = "thresholds.csv"


# Plan, status and checks -----------------------------------------------------------------------
def current_states(sweep: Sweep, location: Location) -> list:
    return states(sweep, read_stored(sweep, location))


def has_open_search(sweep: Sweep, location: Location) -> bool:
    return any(state.status not in DONE for _, state in current_states(sweep, location))


def stored_counts(location: Location) -> dict[str, int]:
    """Configs stored in the directory by status (a config counts once, by its best row)."""
    from iclscale.sweeps.store_read import stored_keys

    best: dict[str, str] = {}
    rank = {"ok": 0, "diverged": 1, "failed": 2}
    for (run_id, _), status in (stored_keys(location) if location.exists() else {}).items():
        if rank.get(status, 3) < rank.get(best.get(run_id), 3):
            best[run_id] = status
    counts = {status: list(best.values()).count(status) for status in rank}
    return counts


def describe_stored(sweep: Sweep, location: Location) -> str:
    from iclscale.sweeps.threshold_table import describe

    counts = stored_counts(location)
    current = current_states(sweep, location)
    return describe(sweep, current, trend_notes(sweep, current), counts["ok"] + counts["diverged"]) + (
        f"\noutput: {location.uri}"
    )


def threshold_status(sweep: Sweep, location: Location) -> dict[str, Any]:
    """`sweep status` of a threshold sweep: the configs stored, and the searches by status (open, waiting, found,
    censored, non_monotone, failed) in place of the grid's `missing` configs."""
    from iclscale.sweeps.threshold_table import describe, progress

    counts = stored_counts(location)
    current = current_states(sweep, location)
    return {"sweep": sweep.name, "configs": sum(counts.values()), **counts, "progress": progress(current),
            "search": describe(sweep, current, trend_notes(sweep, current))}  # fmt: skip


def check_threshold_metric(sweep: Sweep) -> None:
    """Refuse a metric the study does not declare, before any training; for an eval axis, one that is not measured
    at eval points (a probe or the training loss: the same at every value; a 0-step pack at the range's low end
    tells them apart)."""
    from iclscale.sweeps.grid import grid_points
    from iclscale.sweeps.metric_names import declared_metric_names, eval_point_metric_names

    spec = sweep.threshold
    where = f"sweep file {sweep.path}: threshold.metric"
    if sweep.study.metric(spec.metric) is None:
        raise UserError(
            f"{where}: study {sweep.study.name} reports no metric {spec.metric!r}; its final metrics are: "
            f"{', '.join(declared_metric_names(sweep.study))}"
        )
    if spec.role == "eval":
        search = Search(grid_points(sweep)[0], sweep.eval_points()[0], (sweep.seeds[0],))
        config, point = search.config(sweep, spec.low, sweep.seeds[0]), search.judged_at(sweep, spec.low)
        measured = eval_point_metric_names(sweep, config, point)
        if measured is not None and spec.metric not in measured:
            raise UserError(
                f"{where}: {spec.metric} is not measured at eval points (the same for every {spec.axis}); an eval "
                f"axis is searched on one of: {', '.join(sorted(measured))}"
            )

"""A search's trials (iclscale.sweeps.search): a trial's configs, how the store holds the trials of each grid point
(the module docstring of iclscale.sweeps.search: Resume), and training one trial."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iclscale.errors import UserError
from iclscale.sweeps.grid import grid_points
from iclscale.sweeps.metric_names import missing_metric

if TYPE_CHECKING:
    from iclscale.sweeps.execute import SweepContext
    from iclscale.sweeps.spec import Sweep
    from iclscale.sweeps.store import Location


RECORDS = "search"  # folder of trial records in the results directory


def trial_sweep(sweep: Sweep, point: Mapping[str, Any], values: Mapping[str, Any]) -> Sweep:
    """A trial as a one-point sweep: planning, packing and storing work as for any sweep."""
    return dataclasses.replace(sweep, fixed={**sweep.fixed, **point, **values}, cases=[], grid={}, search=None)


def trial_run_ids(sweep: Sweep, point: Mapping[str, Any], values: Mapping[str, Any]) -> list[str]:
    return list(dict.fromkeys(c.run_id for c in trial_sweep(sweep, point, values).configs()))


def group_name(run_ids: list[str]) -> str:
    """The name of a trial's config set (its records are `<group>-<token>.json`)."""
    return hashlib.sha256(json.dumps(sorted(run_ids)).encode()).hexdigest()[:16]


def objective_key(sweep: Sweep) -> str:
    from iclscale.sweeps.store import eval_key

    return eval_key(sweep.eval_points()[0])


def worst(mode: str) -> float:
    return math.inf if mode == "min" else -math.inf


def objective(rows: list[dict[str, Any]], metric: str, mode: str) -> float:
    """Mean of the metric over the trial's seeds that did not diverge; the worst value if none is left."""
    values = [r.get(metric) for r in rows if r["status"] == "ok"]
    values = [float(v) for v in values if v is not None and math.isfinite(v)]
    return sum(values) / len(values) if values else worst(mode)


def in_space(search: dict[str, Any], values: Mapping[str, Any]) -> bool:
    for name, spec in search["params"].items():
        value = values.get(name)
        if "choices" in spec:
            if value not in spec["choices"]:
                return False
        elif value is None or isinstance(value, bool) or not spec["low"] <= value <= spec["high"]:
            return False
    return True


@dataclass
class StoredTrial:
    """One value set whose configs are all stored, counted `count` times (repeated suggestions)."""

    values: dict[str, Any]
    objective: float
    ok: int
    diverged: int
    count: int


@dataclass
class PointState:
    point: dict[str, Any]
    trials: list[StoredTrial]
    failed_configs: int = 0

    @property
    def stored(self) -> int:
        return sum(t.count for t in self.trials)

    def best(self, mode: str) -> StoredTrial | None:
        pick = min if mode == "min" else max
        return pick(self.trials, key=lambda t: t.objective) if self.trials else None

    def history(self) -> list[tuple[dict[str, Any], float]]:
        """(values, objective) pairs to warm-start Optuna with, a repeated suggestion as often as it counts."""
        return [(t.values, t.objective) for t in self.trials for _ in range(t.count)]


def stored_rows(location: Location, sweep: Sweep) -> list[dict[str, Any]]:
    """The runs rows at the objective's eval point: key, status, metric and param columns.

    A non-failed row wins over a failed one, so each run_id appears once."""
    import pyarrow.parquet as pq

    from iclscale.sweeps.store import FAILED, RUNS
    from iclscale.sweeps.store_fragments import committed_fragments

    key = objective_key(sweep)
    wanted = ["run_id", "eval_key", "seed", "status", sweep.search["metric"], *sweep.study.names("shape", "train")]
    rows: dict[str, dict[str, Any]] = {}
    for fragment in committed_fragments(location) if location.exists() else []:
        path = location.path(RUNS, f"{fragment}.parquet")
        present = set(pq.read_schema(path, filesystem=location.fs).names)
        table = pq.read_table(path, filesystem=location.fs, columns=[c for c in wanted if c in present])
        for row in table.to_pylist():
            if row["eval_key"] == key and rows.get(row["run_id"], {}).get("status") in (None, FAILED):
                rows[row["run_id"]] = row
    return list(rows.values())


def record_counts(location: Location) -> dict[str, int]:
    """How many trial records each config set (group) has: `search/<group>-<token>.json`."""
    return dict(Counter(name.split("-", 1)[0] for name in location.list(RECORDS, ".json")))


def point_state(sweep: Sweep, point: dict[str, Any], rows: list[dict[str, Any]], records: dict[str, int]) -> PointState:
    """The trials of one grid point found in the store (see the module docstring: Resume)."""
    search = sweep.search
    names = list(search["params"])
    by_run = {r["run_id"]: r for r in rows}
    # candidate value sets: those of the rows at this grid point (matching its case and grid values)
    candidates: dict[str, dict[str, Any]] = {}
    for row in rows:
        if all(row.get(k) == v for k, v in point.items()):
            values = {n: row.get(n) for n in names}
            if in_space(search, values):
                candidates[json.dumps(values, sort_keys=True)] = values
    state = PointState(point, [])
    for values in candidates.values():
        try:
            run_ids = trial_run_ids(sweep, point, values)
        except UserError:  # values that the study's checks refuse at this point cannot be a trial of it
            continue
        found = [by_run.get(run_id) for run_id in run_ids]
        if any(row is None for row in found):
            continue  # not every seed stored yet: not a trial
        failed = sum(row["status"] == "failed" for row in found)
        if failed:
            state.failed_configs += failed
            continue
        if search["metric"] not in found[0] and any(row["status"] == "ok" for row in found):
            raise UserError(missing_metric(sweep))
        statuses = [row["status"] for row in found]
        trial = StoredTrial(
            values=values,
            objective=objective(found, search["metric"], search["mode"]),
            ok=statuses.count("ok"),
            diverged=statuses.count("diverged"),
            count=max(1, records.get(group_name(run_ids), 0)),
        )
        state.trials.append(trial)
    return state


def load_states(sweep: Sweep, location: Location) -> list[PointState]:
    rows = stored_rows(location, sweep)
    records = record_counts(location) if location.exists() else {}
    return [point_state(sweep, point, rows, records) for point in grid_points(sweep)]


def typed(sweep: Sweep, values: Mapping[str, Any]) -> dict[str, Any]:
    """The searched values of a suggestion, in the params' types (Optuna and Tune hand back plain values)."""
    return {name: sweep.study.param(name, "search").coerce(values[name], "search") for name in sweep.search["params"]}


def run_trial(
    sweep: Sweep,
    point: Mapping[str, Any],
    values: Mapping[str, Any],
    context: SweepContext,
    device: str,
    token: str,
    node: str | None = None,
) -> float:
    """Train (what is not stored of) one trial, commit it, record it, and return its objective."""
    from iclscale.sweeps.execute import run_pack
    from iclscale.sweeps.plan import make_plan
    from iclscale.sweeps.store import Location
    from iclscale.sweeps.store_read import stored_keys

    location = Location(context.out)
    plan = make_plan(trial_sweep(sweep, point, values), stored_keys(location))
    for pack in plan.packs:  # none when Optuna repeats a stored suggestion
        run_pack(context, pack, device, node=node)
    run_ids = list(dict.fromkeys(c.run_id for c in plan.configs))
    by_run = {row["run_id"]: row for row in stored_rows(location, sweep)}
    found = [by_run[run_id] for run_id in run_ids]
    metric, mode = sweep.search["metric"], sweep.search["mode"]
    if all(metric not in row for row in found):
        raise UserError(missing_metric(sweep))
    value = objective(found, metric, mode)
    record = {"point": dict(point), "values": dict(values), metric: value, "run_ids": run_ids, "token": token}
    # written after the rows: a record never points at configs that are not stored
    location.write_bytes(f"{RECORDS}/{group_name(run_ids)}-{token}.json", json.dumps(record).encode())
    return value

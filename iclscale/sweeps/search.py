"""The search mode: tune params with Optuna instead of sweeping a grid over them.

A sweep file may carry a `search:` block:

    search:
      metric: test_mse       # a final metric of the study (checked by a 0-step pack before any training)
      mode: min              # min (default) or max
      params:                # train- or shape-role params that are not in fixed, grid or cases
        lr: {low: 1.0e-3, high: 1.0e-1, log: true}   # a float or int range (log optional) ...
        optimizer: {choices: [adam, sgd]}            # ... or a list of choices
      trials: 12             # Optuna trials per grid point
      seed: 0                # the sampler's seed (default 0)

Semantics
- One search per grid point: each case × grid combination gets its own Optuna study (with
  `grid: {attention: [softmax, linear]}`, lr is tuned separately for each, as Collins et al. did).
- A trial is the grid point plus the values Optuna suggests, trained over all the sweep's seeds as
  one pack (more than one if `resources.pack_size` is smaller than the seed count). It commits its
  fragment to the same store as a grid sweep, so `iclscale report` and `sweep status` read it.
- Its objective is the mean over seeds of the final `metric` at the sweep's first eval point, over
  the seeds that did not diverge; a trial whose every seed diverged scores the worst value
  (+inf for min, -inf for max) instead of failing.

Resume
- The store is the truth. A trial counts once all its seeds are stored (ok or diverged) at the first
  eval point, so re-running a search counts the trials stored for each grid point, warm-starts Optuna
  with their (values, objective) pairs and runs only the remaining `trials - stored`. Any value set
  whose configs are all stored at the grid point counts, whoever stored it; one outside the current
  ranges does not. A trial that failed after its retries does not count: the next run draws anew.
- Optuna may suggest values that are already stored (likely with choices or int ranges). Such a trial
  trains nothing (run_ids are content hashes) but still counts: every finished trial writes a small
  record `DIR/search/<group>-<token>.json` after its rows, and a stored value set counts as
  max(1, its records) trials. A kill between the rows and the record loses at most that one count.
- The sampler's seed is derived from (seed, trials already stored), so a resumed search does not
  redraw the values of its first session.

Execution: `--executor ray` runs each grid point's search as one Tune experiment through
`ray.tune.search.optuna.OptunaSearch`; `--executor inline` drives the same objective with Optuna's
ask/tell loop in this process. Grid points are searched one after another. The best values per grid
point are printed and written to `DIR/search_best.yaml`; every grid point's search is written as an Optuna
study to `DIR/optuna.db` (`optuna-dashboard sqlite:///DIR/optuna.db --port 8080`). Ray Tune's experiment state stays
out of the results directory.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import time
import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iclscale.errors import UserError, shorten
from iclscale.trainer.params import coerce_seed
from iclscale.trainer.registry import StudyInfo

if TYPE_CHECKING:
    from iclscale.sweeps.execute import SweepContext
    from iclscale.sweeps.spec import Sweep
    from iclscale.sweeps.store import Location

SEARCH_KEYS = ("metric", "mode", "params", "trials", "seed")
RANGE_KEYS = ("low", "high", "log")
MODES = ("min", "max")
RECORDS = "search"  # folder of trial records in the results directory
BEST_FILE = "search_best.yaml"
OPTUNA_FILE = "optuna.db"  # every grid point's search as an Optuna study (RDB storage, SQLite)
TUNE_METRIC = "objective"  # what a Tune trial reports; not a study metric name, so never a clash


# Parsing -------------------------------------------------------------------------------------
def parse_search(info: StudyInfo, raw: Any, where: str, sweep: Sweep) -> dict[str, Any]:
    """Validate a `search:` block; return it normalized (every key explicit, values in the params' types).

    The normalized form parses to itself, so the frozen sweep.yaml reads back unchanged."""
    if not isinstance(raw, dict):
        raise UserError(f"{where}: expected a mapping with keys {', '.join(SEARCH_KEYS)}")
    unknown = [k for k in raw if k not in SEARCH_KEYS]
    if unknown:
        raise UserError(f"{where}: unknown key {shorten(unknown[0])}; allowed keys: {', '.join(SEARCH_KEYS)}")
    for required in ("metric", "params", "trials"):
        if required not in raw:
            raise UserError(f"{where}: missing key {shorten(required)}")
    metric = raw["metric"]
    if not isinstance(metric, str) or not metric:
        raise UserError(f"{where}.metric: expected the name of a final metric of {info.name}, got {shorten(metric)}")
    mode = raw.get("mode", "min")
    if mode not in MODES:
        raise UserError(f"{where}.mode: expected min or max, got {shorten(mode)}")
    trials = raw["trials"]
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise UserError(f"{where}.trials: expected a positive integer (trials per grid point), got {shorten(trials)}")
    total = trials * max(1, len(sweep.cases)) * math.prod(len(v) for v in sweep.grid.values()) * len(sweep.seeds)
    if total > sweep.limits.max_configs:  # each trial trains its grid point's seeds: configs, capped like a grid
        raise UserError(
            f"{where}.trials: {trials:,} trials per grid point train {total:,} configs, past the cap of "
            f"{sweep.limits.max_configs:,}; lower trials, or raise the cap with --max-configs N"
        )
    seed = coerce_seed(raw.get("seed", 0), f"{where}.seed")
    params = raw["params"]
    if not isinstance(params, dict) or not params:
        raise UserError(
            f"{where}.params: expected a mapping of param names to ranges, e.g. lr: {{low: 1.0e-3, high: 0.1}}"
        )
    given = {"fixed": set(sweep.fixed), "grid": set(sweep.grid), "cases": set().union(*map(set, sweep.cases))}
    space = {}
    for name, spec in params.items():
        key = f"{where}.params.{name}"
        p = info.param(str(name), f"{where}.params")
        if p.role == "eval":
            raise UserError(
                f"{key}: {name} is an eval-role param of {info.name} (one trained model is measured over the "
                "eval grid); search train- or shape-role params"
            )
        for place, names in given.items():
            if name in names:
                raise UserError(
                    f"{key}: {name} is also in {place}; a searched param must not be in fixed, grid or cases"
                )
        space[name] = _parse_range(p, spec, key)
    search = {"metric": metric, "mode": mode, "params": space, "trials": trials, "seed": seed}
    _check_ends(sweep, search, where)
    return search


def _parse_range(p, spec: Any, key: str) -> dict[str, Any]:
    if not isinstance(spec, dict):
        raise UserError(
            f"{key}: expected {{low: ..., high: ..., log: true|false}} or {{choices: [...]}}, got {shorten(spec)}"
        )
    if "choices" in spec:
        if len(spec) > 1:
            raise UserError(f"{key}: give either choices or low/high, not both")
        choices = spec["choices"]
        if not isinstance(choices, list) or not choices:
            raise UserError(f"{key}.choices: expected a non-empty list ({p.allowed()})")
        values = [p.coerce(yaml_number(p, v), f"{key}.choices") for v in choices]
        if len(set(map(repr, values))) != len(values):
            raise UserError(f"{key}.choices: a value appears twice in {shorten(choices)}")
        return {"choices": values}
    unknown = [k for k in spec if k not in RANGE_KEYS]
    if unknown:
        raise UserError(f"{key}: unknown key {shorten(unknown[0])}; allowed keys: low, high, log (or choices)")
    if p.type not in (int, float) or p.choices is not None:
        raise UserError(f"{key}: {p.name} is {p.allowed()}; give its values as choices: [...]")
    for end in ("low", "high"):
        if end not in spec:
            raise UserError(f"{key}: missing key {shorten(end)}")
    low = p.coerce(yaml_number(p, spec["low"]), f"{key}.low")
    high = p.coerce(yaml_number(p, spec["high"]), f"{key}.high")
    if low is None or high is None:
        raise UserError(f"{key}: low and high must be numbers, got {shorten(spec['low'])} and {shorten(spec['high'])}")
    if not low < high:
        raise UserError(f"{key}: low must be below high, got low = {low}, high = {high}")
    log = spec.get("log", False)
    if not isinstance(log, bool):
        raise UserError(f"{key}.log: expected true or false, got {shorten(log)}")
    if log and low <= 0:
        raise UserError(f"{key}: a log range needs low > 0, got low = {low}")
    return {"low": low, "high": high, "log": log}


def yaml_number(p, value: Any) -> Any:
    """YAML 1.1 reads `1e-3` (no dot) as text; take it as the number it was meant to be."""
    if p.type is float and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _check_ends(sweep: Sweep, search: dict[str, Any], where: str) -> None:
    """Every grid point with each end of each range (and each choice) must pass the study's checks."""
    # the grid's own mistakes were reported first, as such (iclscale.sweeps.spec.parse_sweep validates the configs
    # before)
    for name, spec in search["params"].items():
        ends = spec["choices"] if "choices" in spec else [spec["low"], spec["high"]]
        check_at_grid_points(sweep, name, ends, f"{where}.params.{name}")


def check_at_grid_points(sweep: Sweep, name: str, values: list[Any], where: str) -> None:
    """Each grid point with `name` set to each of `values` must pass the study's checks."""
    for point, value in itertools.product(grid_points(sweep), values):
        sweep.study.resolve({**sweep.fixed, **point, name: value}, 0, f"{where} = {shorten(value)} at {label(point)}")


# Grid points, trials and their configs ---------------------------------------------------------
def grid_points(sweep: Sweep) -> list[dict[str, Any]]:
    """Each case × grid combination, in file order (one search each)."""
    points, seen = [], set()  # a set of canonical keys: `in list` made 20,000 points take minutes
    axes = list(sweep.grid)
    for case in sweep.cases or [{}]:
        for values in itertools.product(*(sweep.grid[a] for a in axes)):
            point = {**case, **dict(zip(axes, values, strict=True))}
            key = repr(sorted(point.items()))
            if key not in seen:
                seen.add(key)
                points.append(point)
    return points


def label(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items()) or "(defaults)"


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


# Reading the store ---------------------------------------------------------------------------
def stored_rows(location: Location, sweep: Sweep) -> list[dict[str, Any]]:
    """The runs rows at the objective's eval point: key, status, metric and param columns.

    A non-failed row wins over a failed one, so each run_id appears once."""
    import pyarrow.parquet as pq

    from iclscale.sweeps.store import FAILED, RUNS, committed_fragments

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


def missing_metric(sweep: Sweep, known: set[str] | None = None) -> str:
    where = f"sweep file {sweep.path}: search.metric"
    listed = f"; its final metrics are: {', '.join(sorted(known))}" if known else ""
    return f"{where}: study {sweep.study.name} reports no metric {sweep.search['metric']!r}{listed}"


def load_states(sweep: Sweep, location: Location) -> list[PointState]:
    rows = stored_rows(location, sweep)
    records = record_counts(location) if location.exists() else {}
    return [point_state(sweep, point, rows, records) for point in grid_points(sweep)]


# One trial -------------------------------------------------------------------------------------
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
    from iclscale.sweeps.store import Location, stored_keys

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


def check_metric(sweep: Sweep) -> None:
    """Refuse an unknown search metric before any training."""
    search = sweep.search
    values = {n: s["choices"][0] if "choices" in s else s["low"] for n, s in search["params"].items()}
    config = trial_sweep(sweep, grid_points(sweep)[0], values).configs()[0]
    known = final_metric_names(sweep, config, sweep.eval_points()[0])
    if known is not None and search["metric"] not in known:
        raise UserError(missing_metric(sweep, known))


def final_metric_names(sweep: Sweep, config, point, at_eval_points: bool = False) -> set[str] | None:
    """Every final metric the study reports for `config` at `point`, from a 0-step pack of it (train_loss
    too once steps > 0); with `at_eval_points`, only those measured at the eval point (not the probes). None
    when the study refuses 0 steps (the first training checks it instead)."""
    from iclscale.trainer.training import train_pack

    info = sweep.study
    steps = config.as_dict().get("steps")
    try:
        probe, _ = info.resolve({**config.as_dict(), **({"steps": 0} if steps else {})}, config.seed, "probe")
    except UserError:
        return None
    result = train_pack(info, [probe], [point], 1, device="cpu")
    if at_eval_points:
        return set(result.evals[point])
    return set(result.final_metrics(0, point)) | ({"train_loss"} if steps else set())


# Optuna ----------------------------------------------------------------------------------------
def distributions(search: dict[str, Any]) -> dict[str, Any]:
    """The search space as Optuna distributions (used as is by OptunaSearch and by the inline loop)."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    space = {}
    for name, spec in search["params"].items():
        if "choices" in spec:
            space[name] = CategoricalDistribution(spec["choices"])
        elif isinstance(spec["low"], int):
            space[name] = IntDistribution(spec["low"], spec["high"], log=spec["log"])
        else:
            space[name] = FloatDistribution(spec["low"], spec["high"], log=spec["log"])
    return space


def sampler(search: dict[str, Any], stored: int):
    """A seeded TPE sampler. It samples at random for the first third of the trials (Optuna's default
    of 10 would leave a 12-trial search almost all random), then models the finished ones. Its seed
    moves with the trials already stored, so a resumed search does not redraw its first values."""
    import optuna

    seed = (
        search["seed"]
        if stored == 0
        else int(hashlib.sha256(f"{search['seed']}:{stored}".encode()).hexdigest()[:8], 16)
    )
    startup = min(10, max(1, search["trials"] // 3))
    return optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup)


def search_inline(
    sweep: Sweep, state: PointState, remaining: int, context: SweepContext, device: str, quiet: bool, overall=None
) -> None:
    """Optuna's ask/tell loop in this process, warm-started with the stored trials."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    search = sweep.search
    space = distributions(search)
    study = optuna.create_study(
        direction="minimize" if search["mode"] == "min" else "maximize", sampler=sampler(search, state.stored)
    )
    for values, value in state.history():
        study.add_trial(optuna.trial.create_trial(params=values, distributions=space, value=value))
    session = uuid.uuid4().hex[:8]
    for number in range(remaining):
        trial = study.ask(space)
        values = typed(sweep, trial.params)
        value = run_trial(sweep, state.point, values, context, device, f"{session}{number:04d}")
        study.tell(trial, value)
        if not quiet:
            done = state.stored + number + 1
            line = f"{_values(values)}  {search['metric']} {value:.6g}  (best {study.best_value:.6g})"
            print(f"  {label(state.point)}  trial {done}/{search['trials']}: {line}{_overall(overall)}", flush=True)


def _overall(overall: dict | None) -> str:
    """The search's overall totals after one more finished trial: `· 17/48 trials of this run · 13:45:02Z`."""
    if overall is None:
        return ""
    from iclscale.trainer.statusline import duration, stamp

    overall["done"] += 1
    elapsed = time.monotonic() - overall["start"]
    left = overall["total"] - overall["done"]
    eta = duration(elapsed / overall["done"] * left) if left else "0:00"
    return f"  · {overall['done']}/{overall['total']} trials of this run · ETA {eta} · {stamp()}"


def search_trial(
    config: dict[str, Any], sweep: Sweep, point: dict[str, Any], context: SweepContext, device: str, session: str
) -> None:
    """A Tune function trainable: one trial of one grid point's search. It reports once, at the end:
    OptunaSearch reads the objective from every report."""
    import ray
    from ray import tune

    node = ray.util.get_node_ip_address()
    token = f"{session}{tune.get_context().get_trial_id()}"  # a retried trial rewrites the same record
    value = run_trial(sweep, point, typed(sweep, config), context, device, token, node)
    tune.report({TUNE_METRIC: value, "node": node})


def search_on_ray(
    sweep: Sweep,
    todo: list[tuple[PointState, int]],
    context: SweepContext,
    address: str | None,
    device: str,
    retries: int,
    quiet: bool,
    after_point=None,
    overall=None,
) -> None:
    """Each grid point's search as one Tune experiment driven by OptunaSearch, one point after another."""
    from iclscale.sweeps.ray_executor import _error_text, start_ray, tune_storage

    start_ray(address, quiet=quiet)  # first: it sets the environment Ray reads on import
    import optuna
    import ray
    from ray import tune
    from ray.tune.search.optuna import OptunaSearch

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    search, resources = sweep.search, sweep.resources
    session = uuid.uuid4().hex[:8]
    try:
        for index, (state, remaining) in enumerate(todo):
            history = state.history()
            searcher = OptunaSearch(
                space=distributions(search),
                metric=TUNE_METRIC,
                mode=search["mode"],
                sampler=sampler(search, state.stored),
                points_to_evaluate=[values for values, _ in history] or None,
                evaluated_rewards=[value for _, value in history] or None,  # told to Optuna, not re-run
            )
            trainable = tune.with_parameters(
                search_trial, sweep=sweep, point=state.point, context=context, device=device, session=session
            )
            trainable = tune.with_resources(trainable, {"cpu": resources.cpu, "gpu": resources.gpu})
            tuner = tune.Tuner(
                trainable,
                tune_config=tune.TuneConfig(
                    search_alg=searcher,
                    num_samples=remaining,
                    max_concurrent_trials=concurrency(search, remaining, resources),
                    reuse_actors=True,
                ),
                run_config=tune.RunConfig(
                    name=f"{context.sweep}-search{index}-{time.strftime('%Y%m%d-%H%M%S')}",
                    **tune_storage(context.out),
                    failure_config=tune.FailureConfig(max_failures=retries),
                    verbose=0,  # the search prints one line per finished trial instead
                    callbacks=[] if quiet else [_trial_printer(sweep, state, overall)],
                ),
            )
            errors = [result.error for result in tuner.fit() if result.error is not None]
            if errors:  # the trials do not count; the next run tries other values
                failed = f"{len(errors)} trials failed after {retries} retries"
                print(f"  {label(state.point)}: {failed}; first error:\n{_error_text(errors[0])}")
            if after_point:
                after_point()
    finally:
        if address is None:
            ray.shutdown()


def _trial_printer(sweep: Sweep, state: PointState, overall: dict | None):
    """A Tune callback: one line per finished trial, as the inline search prints, with the overall totals."""
    from ray.tune import Callback

    search = sweep.search
    finished = [state.stored]

    class TrialPrinter(Callback):
        def on_trial_result(self, iteration, trials, trial, result, **info):
            if TUNE_METRIC not in result:
                return
            finished[0] += 1
            values = _values(typed(sweep, trial.config))
            line = f"{values}  {search['metric']} {result[TUNE_METRIC]:.6g}"
            print(f"  {label(state.point)}  trial {finished[0]}/{search['trials']}: {line}{_overall(overall)}",
                  flush=True)  # fmt: skip

    return TrialPrinter()


def concurrency(search: dict[str, Any], remaining: int, resources) -> int:
    """Trials of one search at once: what the cluster holds, but at most a quarter of the search,
    since TPE learns only from finished trials (many at once is closer to random sampling)."""
    from iclscale.sweeps.ray_executor import worker_slots

    slots = worker_slots(resources)
    return int(max(1, min(slots, remaining, math.ceil(search["trials"] / 4))))


# The command -----------------------------------------------------------------------------------
def run_search(
    sweep: Sweep,
    location: Location,
    executor: str = "ray",
    address: str | None = None,
    device: str = "auto",
    retries: int = 2,
    quiet: bool = False,
) -> list[PointState]:
    """`iclscale sweep run` for a sweep with a `search:` block: search what is not stored, then
    print and write the best values per grid point."""
    from iclscale.sweeps.execute import SweepContext
    from iclscale.sweeps.store import write_frozen_sweep

    search = sweep.search
    states = load_states(sweep, location)
    if not quiet:
        print(describe_search(sweep, location.uri, states), flush=True)
    todo = [(state, search["trials"] - state.stored) for state in states if state.stored < search["trials"]]
    if todo:
        check_metric(sweep)  # before anything is written
    write_frozen_sweep(location, sweep.resolved())
    if todo:
        context = SweepContext(sweep.name, sweep.study.name, sweep.record, location.uri)

        def after_point() -> None:  # a killed search keeps the best of the points it finished
            write_best(sweep, location, load_states(sweep, location))

        overall = {"done": 0, "total": sum(remaining for _, remaining in todo), "start": time.monotonic()}
        if executor == "inline":
            for state, remaining in todo:
                search_inline(sweep, state, remaining, context, device, quiet, overall)
                after_point()
        else:
            search_on_ray(sweep, todo, context, address, device, retries, quiet, after_point, overall)
    else:
        print(f"nothing to run: every grid point of {sweep.name} has its {search['trials']} trials stored")
    states = load_states(sweep, location)
    write_best(sweep, location, states)
    print(describe_best(sweep, states, location.uri))
    return states


def best_table(sweep: Sweep, states: list[PointState]) -> dict[str, Any]:
    search = sweep.search
    points = []
    for state in states:
        best = state.best(search["mode"])
        points.append(
            {
                "point": state.point,
                "best": best.values if best else None,
                "objective": best.objective if best else None,
                "trials": state.stored,
                "all_diverged_trials": sum(t.count for t in state.trials if not t.ok),
            }
        )
    return {
        "sweep": sweep.name,
        "study": sweep.study.name,
        "metric": search["metric"],
        "mode": search["mode"],
        "eval_point": dict(sweep.eval_points()[0]),
        "seeds": sweep.seeds,
        "trials_per_point": search["trials"],
        "points": points,
    }


def write_best(sweep: Sweep, location: Location, states: list[PointState]) -> None:
    import yaml

    location.write_bytes(BEST_FILE, yaml.safe_dump(best_table(sweep, states), sort_keys=False).encode())
    write_optuna_studies(sweep, location, states)


def study_name(sweep: Sweep, point: Mapping[str, Any]) -> str:
    """The Optuna study of one grid point in DIR/optuna.db: `<sweep> <grid point>`."""
    return f"{sweep.name} {label(point)}"


def write_optuna_studies(sweep: Sweep, location: Location, states: list[PointState]) -> None:
    """Every grid point's search as an Optuna study in DIR/optuna.db (SQLite, Optuna's RDB storage), so that
    `optuna.load_study(study_name=..., storage="sqlite:///DIR/optuna.db")` and optuna-dashboard open it.

    The store stays the truth (a resumed search is warm-started from it, not from this file): the file is
    rebuilt from the stored trials after every grid point, in a temporary file moved into place, so a kill
    never leaves half a database. A trial whose every seed diverged (objective ±inf) is a FAIL trial."""
    import os
    import tempfile

    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    search = sweep.search
    space = distributions(search)
    with tempfile.TemporaryDirectory(prefix="iclscale-optuna-") as folder:
        path = os.path.join(folder, OPTUNA_FILE)
        storage = optuna.storages.RDBStorage(f"sqlite:///{path}")
        for state in states:
            study = optuna.create_study(
                study_name=study_name(sweep, state.point),
                storage=storage,
                direction="minimize" if search["mode"] == "min" else "maximize",
            )
            study.set_user_attr("grid_point", {k: _plain(v) for k, v in state.point.items()})
            study.set_user_attr("metric", search["metric"])
            for trial in state.trials:
                finite = math.isfinite(trial.objective)
                for _ in range(trial.count):
                    study.add_trial(
                        optuna.trial.create_trial(
                            params=trial.values,
                            distributions=space,
                            value=trial.objective if finite else None,
                            state=optuna.trial.TrialState.COMPLETE if finite else optuna.trial.TrialState.FAIL,
                            user_attrs={"seeds_ok": trial.ok, "seeds_diverged": trial.diverged},
                        )
                    )
        storage.engine.dispose()
        with open(path, "rb") as handle:
            location.write_bytes(OPTUNA_FILE, handle.read())


def _plain(value: Any) -> Any:
    return value if isinstance(value, (int, float, str, bool)) or value is None else str(value)


def describe_best(sweep: Sweep, states: list[PointState], out: str) -> str:
    search = sweep.search
    lines = [f"best per grid point ({search['mode']} {search['metric']}, mean over seeds):"]
    for state in states:
        best = state.best(search["mode"])
        if best is None:
            lines.append(f"  {label(state.point)}: no trial stored")
            continue
        result = f"{_values(best.values)}  {search['metric']} {best.objective:.6g}  ({state.stored} trials)"
        lines.append(f"  {label(state.point)}: {result}")
    lines.append(f"written to {BEST_FILE} in {out}")
    return "\n".join(lines)


def _values(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items())


def _space_text(search: dict[str, Any]) -> str:
    parts = []
    for name, spec in search["params"].items():
        if "choices" in spec:
            parts.append(f"{name} ∈ {{{', '.join(map(str, spec['choices']))}}}")
        else:
            parts.append(f"{name} ∈ [{spec['low']:g}, {spec['high']:g}]{' (log)' if spec['log'] else ''}")
    return ", ".join(parts)


def describe_search(sweep: Sweep, out: str, states: list[PointState]) -> str:
    """What `sweep plan` and `sweep run` print for a search sweep."""
    search = sweep.search
    trials, seeds = search["trials"], len(sweep.seeds)
    remaining = sum(max(0, trials - s.stored) for s in states)
    steps = int(trial_sweep(sweep, states[0].point, {}).configs()[0].as_dict().get("steps", 0)) if states else 0
    per_point = ", ".join(f"{label(s.point)} {s.stored}/{trials}" for s in states[:8]) + (
        ", …" if len(states) > 8 else ""
    )
    return "\n".join(
        [
            f"search sweep {sweep.name} ({sweep.study.name}): {len(states)} grid points × {trials} trials × "
            f"{seeds} seeds, one Optuna search per grid point",
            f"objective: {search['mode']} final {search['metric']} at eval point {dict(sweep.eval_points()[0])}, "
            f"mean over the seeds that did not diverge",
            f"searching: {_space_text(search)} (TPE sampler, seed {search['seed']})",
            f"stored: {sum(s.stored for s in states)} of {len(states) * trials} trials ({per_point})",
            f"to run: {remaining} trials, at most {remaining * seeds} configs and {remaining * seeds * steps:,} "
            "model-steps (a repeated suggestion trains nothing)",
            f"output: {out}",
        ]
    )


def search_status(sweep: Sweep, location: Location) -> dict[str, Any]:
    """`sweep status` of a search sweep: configs of the stored trials, and trials per grid point."""
    states = load_states(sweep, location)
    trials, seeds = sweep.search["trials"], len(sweep.seeds)
    counts = {
        "ok": sum(t.ok for s in states for t in s.trials),
        "diverged": sum(t.diverged for s in states for t in s.trials),
        "failed": sum(s.failed_configs for s in states),
        "missing": sum(max(0, trials - s.stored) for s in states) * seeds,
    }
    per_point = ", ".join(f"{label(s.point)} {s.stored}/{trials}" for s in states)
    stored = sum(s.stored for s in states)
    return {
        "sweep": sweep.name,
        "configs": sum(counts.values()),
        **counts,
        "search": f"search: {stored} of {len(states) * trials} trials stored ({per_point})",
    }

"""The search mode: tune params with Optuna instead of sweeping a grid over them.

A sweep file may carry a `search:` block:

    search:
      metric: test_mse       # a final metric the study declares (checked before any training)
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

Modules: this one drives a search; the `search:` block is parsed by search_spec, a trial and the store's trials
are search_trials, Optuna is search_optuna, Ray Tune search_ray, and what is printed and written search_output.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from iclscale.sweeps.metric_names import check_metric
from iclscale.sweeps.search_optuna import search_inline, write_optuna_studies
from iclscale.sweeps.search_output import BEST_FILE, best_table, describe_best, describe_search
from iclscale.sweeps.search_ray import search_on_ray
from iclscale.sweeps.search_trials import PointState, load_states

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep
    from iclscale.sweeps.store import Location


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
    from iclscale.sweeps.store_frozen import write_frozen_sweep

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


def write_best(sweep: Sweep, location: Location, states: list[PointState]) -> None:
    """DIR/search_best.yaml (the best values per grid point) and DIR/optuna.db, from the stored trials."""
    import yaml

    location.write_bytes(BEST_FILE, yaml.safe_dump(best_table(sweep, states), sort_keys=False).encode())
    write_optuna_studies(sweep, location, states)

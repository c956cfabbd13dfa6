"""A search on Ray (iclscale.sweeps.search): each grid point's search as one Tune experiment driven by
`ray.tune.search.optuna.OptunaSearch`, its trials as Tune function trainables."""

from __future__ import annotations

import math
import time
import uuid
from typing import TYPE_CHECKING, Any

from iclscale.sweeps.grid import label
from iclscale.sweeps.search_optuna import distributions, sampler
from iclscale.sweeps.search_output import overall_text, values_text
from iclscale.sweeps.search_trials import PointState, run_trial, typed

if TYPE_CHECKING:
    from iclscale.sweeps.execute import SweepContext
    from iclscale.sweeps.spec import Sweep


TUNE_METRIC = "objective"  # what a Tune trial reports; not a study metric name, so never a clash


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
            values = values_text(typed(sweep, trial.config))
            line = f"{values}  {search['metric']} {result[TUNE_METRIC]:.6g}"
            print(f"  {label(state.point)}  trial {finished[0]}/{search['trials']}: {line}{overall_text(overall)}",
                  flush=True)  # fmt: skip

    return TrialPrinter()


def concurrency(search: dict[str, Any], remaining: int, resources) -> int:
    """Trials of one search at once: what the cluster holds, but at most a quarter of the search,
    since TPE learns only from finished trials (many at once is closer to random sampling)."""
    from iclscale.sweeps.ray_executor import worker_slots

    slots = worker_slots(resources)
    return int(max(1, min(slots, remaining, math.ceil(search["trials"] / 4))))

"""Optuna for a search (iclscale.sweeps.search): the space as distributions, the seeded sampler, the inline
ask/tell loop, and every grid point's search written as an Optuna study to DIR/optuna.db."""

from __future__ import annotations

import hashlib
import math
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from iclscale.sweeps.grid import label
from iclscale.sweeps.search_output import overall_text, values_text
from iclscale.sweeps.search_trials import PointState, run_trial, typed

if TYPE_CHECKING:
    from iclscale.sweeps.execute import SweepContext
    from iclscale.sweeps.spec import Sweep
    from iclscale.sweeps.store import Location


OPTUNA_FILE = "optuna.db"  # every grid point's search as an Optuna study (RDB storage, SQLite)


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
            line = f"{values_text(values)}  {search['metric']} {value:.6g}  (best {study.best_value:.6g})"
            print(f"  {label(state.point)}  trial {done}/{search['trials']}: {line}{overall_text(overall)}", flush=True)


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

"""What a search (iclscale.sweeps.search) prints: its plan, its progress lines, its status counts, and the best
values per grid point (also the table iclscale.sweeps.search.write_best writes to DIR/search_best.yaml)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from iclscale.sweeps.grid import label
from iclscale.sweeps.search_trials import PointState, load_states, trial_sweep

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep
    from iclscale.sweeps.store import Location


BEST_FILE = "search_best.yaml"


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


def describe_best(sweep: Sweep, states: list[PointState], out: str) -> str:
    search = sweep.search
    lines = [f"best per grid point ({search['mode']} {search['metric']}, mean over seeds):"]
    for state in states:
        best = state.best(search["mode"])
        if best is None:
            lines.append(f"  {label(state.point)}: no trial stored")
            continue
        result = f"{values_text(best.values)}  {search['metric']} {best.objective:.6g}  ({state.stored} trials)"
        lines.append(f"  {label(state.point)}: {result}")
    lines.append(f"written to {BEST_FILE} in {out}")
    return "\n".join(lines)


def values_text(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items())


def overall_text(overall: dict | None) -> str:
    """The search's overall totals after one more finished trial: `· 17/48 trials of this run · 13:45:02Z`."""
    if overall is None:
        return ""
    from iclscale.trainer.statusline import duration, stamp

    overall["done"] += 1
    elapsed = time.monotonic() - overall["start"]
    left = overall["total"] - overall["done"]
    eta = duration(elapsed / overall["done"] * left) if left else "0:00"
    return f"  · {overall['done']}/{overall['total']} trials of this run · ETA {eta} · {stamp()}"


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

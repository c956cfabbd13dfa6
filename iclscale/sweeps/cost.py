"""What a sweep will cost before it runs: its wall time predicted from an earlier full run's (the committed
ledger's sweep entries: docs/results/claims.json, `sweeps`), so that `iclscale sweeps`, `sweep plan` and
`reproduce` say "≈ 12 min" before anything trains.

The prediction, in order of what it can see:
1. the same sweep timed in the earlier run: its time scaled by this plan's model-steps over that run's (a grid
   that trains nothing, such as C24's Monte Carlo oracle, by its configs);
2. another sweep of the same study: the study's median seconds per model-step there, times this plan's;
3. otherwise nothing (no estimate is better than a wrong one).
It is the earlier machine's time (the committed run: 2 cores); the line says so. Hand-written rather than the
schedule's least-squares fit (iclscale.sweeps.schedule.Overall), which needs sweeps finished in this session.
"""

from __future__ import annotations

import functools
import json
import statistics
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class EarlierRun:
    """One sweep as the earlier run timed it."""

    sweep: str
    study: str
    seconds: float
    model_steps: int
    configs: int


@functools.cache
def ledger_sweeps(claims_json: Path) -> tuple[dict, ...]:
    """A ledger's sweep entries (claims.json's `sweeps`), read once per process; () where the file is missing or
    not a ledger."""
    try:
        sweeps = json.loads(claims_json.read_text(encoding="utf-8"))["sweeps"]
    except (OSError, ValueError, KeyError, TypeError):
        return ()
    return tuple(s for s in sweeps if isinstance(s, dict)) if isinstance(sweeps, list) else ()


def earlier_runs(claims_json: Path) -> dict[str, EarlierRun]:
    """The earlier run's timed sweeps by name; empty where the file is missing or not a ledger, or a sweep entry
    lacks a time (ledgers before model-steps were recorded time nothing here)."""
    found = {}
    for s in ledger_sweeps(claims_json):
        if s.get("train_time_s") and "model_steps" in s:
            found[s["sweep"]] = EarlierRun(s["sweep"], s.get("study", ""), float(s["train_time_s"]),
                                           int(s["model_steps"]), int(s.get("configs") or 0))  # fmt: skip
    return found


def predicted_seconds(sweep: str, study: str, model_steps: int, configs: int, earlier: dict[str, EarlierRun]):
    """The sweep's predicted wall time in seconds (module docstring), or None."""
    same = earlier.get(sweep)
    if same is not None:
        if same.model_steps > 0:
            return same.seconds * model_steps / same.model_steps
        if same.configs > 0:
            return same.seconds * configs / same.configs
    rates = [r.seconds / r.model_steps for r in earlier.values() if r.study == study and r.model_steps > 0]
    if rates and model_steps > 0:
        return statistics.median(rates) * model_steps
    return None


def cost_text(seconds: float | None) -> str:
    """'≈ 12 min (the committed run's rate, 2 cores)', or '' without a prediction."""
    if seconds is None:
        return ""
    return f"≈ {duration_text(max(seconds, 1))} (at the committed run's rate)"


def duration_text(seconds: float, minute_decimals: int = 0) -> str:
    """A wall time as a reader takes it in: seconds under 90 s, minutes under 90 min, hours past that."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.{minute_decimals}f} min"
    return f"{seconds / 3600:.1f} h"


def config_steps(sweep) -> list[int]:
    """Each config's training steps as the sweep file plans them (its grid, counted without training)."""
    return [int(config.as_dict().get("steps", 0)) for config in sweep.configs()]


def steps_text(steps: list[int]) -> str:
    """'1,000', or '1,000–2,000' where the configs train for different numbers of steps."""
    return f"{min(steps):,}–{max(steps):,}" if len(set(steps)) > 1 else f"{max(steps, default=0):,}"

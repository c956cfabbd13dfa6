"""The `search:` block of a sweep file (iclscale.sweeps.search says what a search does): validated and
normalized, before anything runs."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from iclscale.errors import UserError, shorten
from iclscale.sweeps.grid import check_at_grid_points
from iclscale.sweeps.yamlsafe import yaml_number
from iclscale.trainer.params import coerce_seed
from iclscale.trainer.registry import StudyInfo

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep


SEARCH_KEYS = ("metric", "mode", "params", "trials", "seed")


RANGE_KEYS = ("low", "high", "log")


MODES = ("min", "max")


def parse_search(info: StudyInfo, raw: Any, where: str, sweep: Sweep) -> dict[str, Any]:
    """Validate a `search:` block; return it normalized (every key explicit, values in the params' types).

    The normalized form parses to itself, so the frozen sweep.yaml reads back unchanged."""
    _check_keys(raw, where)
    metric = raw["metric"]
    if not isinstance(metric, str) or not metric:
        raise UserError(f"{where}.metric: expected the name of a final metric of {info.name}, got {shorten(metric)}")
    mode = raw.get("mode", "min")
    if mode not in MODES:
        raise UserError(f"{where}.mode: expected min or max, got {shorten(mode)}")
    trials = _parse_trials(raw["trials"], where, sweep)
    seed = coerce_seed(raw.get("seed", 0), f"{where}.seed")
    space = _parse_space(info, raw["params"], where, sweep)
    search = {"metric": metric, "mode": mode, "params": space, "trials": trials, "seed": seed}
    _check_ends(sweep, search, where)
    return search


def _check_keys(raw: Any, where: str) -> None:
    """A mapping of the known keys, the required ones present."""
    if not isinstance(raw, dict):
        raise UserError(f"{where}: expected a mapping with keys {', '.join(SEARCH_KEYS)}")
    unknown = [k for k in raw if k not in SEARCH_KEYS]
    if unknown:
        raise UserError(f"{where}: unknown key {shorten(unknown[0])}; allowed keys: {', '.join(SEARCH_KEYS)}")
    for required in ("metric", "params", "trials"):
        if required not in raw:
            raise UserError(f"{where}: missing key {shorten(required)}")


def _parse_trials(trials: Any, where: str, sweep: Sweep) -> int:
    """Trials per grid point: a positive integer whose configs stay under the sweep's cap."""
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise UserError(f"{where}.trials: expected a positive integer (trials per grid point), got {shorten(trials)}")
    total = trials * max(1, len(sweep.cases)) * math.prod(len(v) for v in sweep.grid.values()) * len(sweep.seeds)
    if total > sweep.limits.max_configs:  # each trial trains its grid point's seeds: configs, capped like a grid
        raise UserError(
            f"{where}.trials: {trials:,} trials per grid point train {total:,} configs, past the cap of "
            f"{sweep.limits.max_configs:,}; lower trials, or raise the cap with --max-configs N"
        )
    return trials


def _parse_space(info: StudyInfo, params: Any, where: str, sweep: Sweep) -> dict[str, dict[str, Any]]:
    """The searched params, each a train- or shape-role param given nowhere else in the sweep, with its range."""
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
    return space


def _parse_range(p, spec: Any, key: str) -> dict[str, Any]:
    """One searched param's range: {choices: [...]} or {low, high, log}."""
    if not isinstance(spec, dict):
        raise UserError(
            f"{key}: expected {{low: ..., high: ..., log: true|false}} or {{choices: [...]}}, got {shorten(spec)}"
        )
    return _parse_choices(p, spec, key) if "choices" in spec else _parse_interval(p, spec, key)


def _parse_choices(p, spec: dict, key: str) -> dict[str, Any]:
    """{choices: [...]}: a non-empty list of distinct values of the param, alone in the mapping."""
    if len(spec) > 1:
        raise UserError(f"{key}: give either choices or low/high, not both")
    choices = spec["choices"]
    if not isinstance(choices, list) or not choices:
        raise UserError(f"{key}.choices: expected a non-empty list ({p.allowed()})")
    values = [p.coerce(yaml_number(p, v), f"{key}.choices") for v in choices]
    if len(set(map(repr, values))) != len(values):
        raise UserError(f"{key}.choices: a value appears twice in {shorten(choices)}")
    return {"choices": values}


def _parse_interval(p, spec: dict, key: str) -> dict[str, Any]:
    """{low, high, log}: a numeric param's interval, low < high (and low > 0 on a log scale)."""
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


def _check_ends(sweep: Sweep, search: dict[str, Any], where: str) -> None:
    """Every grid point with each end of each range (and each choice) must pass the study's checks."""
    # the grid's own mistakes were reported first, as such (iclscale.sweeps.spec.parse_sweep validates the configs
    # before)
    for name, spec in search["params"].items():
        ends = spec["choices"] if "choices" in spec else [spec["low"], spec["high"]]
        check_at_grid_points(sweep, name, ends, f"{where}.params.{name}")

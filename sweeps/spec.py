"""Sweep files: loading and validation, before anything runs.

A sweep file is YAML:

    name: fig3_relu_L            # output goes to results/<name>/ unless --out says otherwise
    study: softmax_window
    description: what it reproduces, and which values are not from the paper
    fixed: {d: 5, n: 20}         # shape/train params held at one value
    cases: [{...}, {...}]        # optional: alternatives that are not a product (each a dict of params)
    grid: {L: [0.1, 1, 10]}      # shape/train axes, crossed with each other and with the cases
    seeds: 10                    # a count (0..9) or a list of seeds
    eval: {L_test: [0.5, 1, 2]}  # eval-role params: a value or a list; one trained model measures all
    record: {every: 50}          # when to record metrics: {every: K}, {log: N} log-spaced, or {steps: [...]}
                                 # (record_every: K is the same as record: {every: K})
    laws: [name, ...]            # laws to fit in the report (analysis.laws)
    resources: {cpu: 1, gpu: 0, pack_size: auto}   # auto: sized by the device's memory
    search: {...}                # optional Optuna search mode (sweeps.search)

Every mistake is refused with one message naming the file, the key and what is allowed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from iclscale.errors import UserError
from iclscale.params import Config, EvalPoint, RecordSchedule, coerce_seed
from iclscale.registry import StudyInfo, study_info

TOP_LEVEL_KEYS = (
    "name",
    "study",
    "description",
    "fixed",
    "cases",
    "grid",
    "seeds",
    "eval",
    "record_every",
    "record",
    "laws",
    "resources",
    "search",
)
RESOURCE_KEYS = ("cpu", "gpu", "pack_size")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Resources:
    cpu: float = 1.0
    gpu: float = 0.0
    pack_size: int | str = "auto"
    """Configs per pack (per Ray trial), or "auto": one pack per shape group, split so that every worker has
    one; the trainer then trains a pack in parts if it does not fit in the device's memory."""


@dataclass
class Sweep:
    """A validated sweep file."""

    path: str
    name: str
    study: StudyInfo
    description: str = ""
    fixed: dict[str, Any] = field(default_factory=dict)
    cases: list[dict[str, Any]] = field(default_factory=list)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    seeds: list[int] = field(default_factory=lambda: [0])
    eval: dict[str, list[Any]] = field(default_factory=dict)
    record: RecordSchedule = field(default_factory=lambda: RecordSchedule(every=50))
    laws: list[str] = field(default_factory=list)
    resources: Resources = field(default_factory=Resources)
    search: dict[str, Any] | None = None

    def configs(self) -> list[Config]:
        """Every (case × grid point × seed) as a validated config, in file order."""
        configs = []
        axes = list(self.grid)
        for case in self.cases or [{}]:
            for values in itertools.product(*(self.grid[a] for a in axes)):
                assignment = {**self.fixed, **case, **dict(zip(axes, values, strict=True))}
                for seed in self.seeds:
                    where = f"sweep file {self.path}: the combination {_describe(case, axes, values)}"
                    config, _ = self.study.resolve(assignment, seed, where)
                    configs.append(config)
        return configs

    def eval_points(self) -> list[EvalPoint]:
        names = list(self.eval)
        points = []
        for values in itertools.product(*(self.eval[n] for n in names)):
            _, point = self.study.resolve(dict(zip(names, values, strict=True)), 0, f"sweep file {self.path}: eval")
            points.append(point)
        return points

    def resolved(self) -> dict[str, Any]:
        """The sweep as it is frozen next to its results: every value explicit."""
        return {
            "name": self.name,
            "study": self.study.name,
            "description": self.description,
            "fixed": self.fixed,
            "cases": self.cases or None,
            "grid": self.grid,
            "seeds": self.seeds,
            "eval": self.eval,
            "record": self.record.as_dict(),
            "laws": self.laws,
            "resources": vars(self.resources),
            "search": self.search,
            "params": {
                p.name: {"role": p.role, "type": p.type.__name__, "default": p.default} for p in self.study.params
            },
        }


def _describe(case: Mapping[str, Any], axes: list[str], values: tuple) -> str:
    items = {**case, **dict(zip(axes, values, strict=True))}
    return "{" + ", ".join(f"{k}={v!r}" for k, v in items.items()) + "}" if items else "(defaults)"


def load_sweep(path: str | Path) -> Sweep:
    path = Path(path)
    where = f"sweep file {path}"
    if not path.is_file():
        raise UserError(f"{where}: no such file")
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise UserError(f"{where}: not valid YAML: {str(error).splitlines()[0]}") from None
    if not isinstance(raw, dict):
        raise UserError(f"{where}: expected a mapping with keys {', '.join(TOP_LEVEL_KEYS)}")
    return parse_sweep(raw, str(path))


def parse_sweep(raw: Mapping[str, Any], path: str) -> Sweep:
    where = f"sweep file {path}"
    unknown = [k for k in raw if k not in TOP_LEVEL_KEYS]
    if unknown:
        raise UserError(f"{where}: unknown key {unknown[0]!r}; allowed keys: {', '.join(TOP_LEVEL_KEYS)}")
    for required in ("name", "study"):
        if required not in raw:
            raise UserError(f"{where}: missing key {required!r}")
    name = raw["name"]
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise UserError(f"{where}: name must be letters, digits, '_', '.' or '-', got {name!r}")
    if not isinstance(raw["study"], str):
        raise UserError(f"{where}: study must be a study name, got {raw['study']!r}")
    try:
        info = study_info(raw["study"])
    except UserError as error:
        raise UserError(f"{where}: study: {error}") from None

    sweep = Sweep(path=path, name=name, study=info)
    sweep.description = _text(raw.get("description", ""), f"{where}: description")
    sweep.fixed = _params(info, raw.get("fixed"), f"{where}: fixed", ("shape", "train"), scalar=True)
    sweep.grid = _params(info, raw.get("grid"), f"{where}: grid", ("shape", "train"), scalar=False)
    sweep.cases = _cases(info, raw.get("cases"), f"{where}: cases")
    sweep.eval = _params(info, raw.get("eval"), f"{where}: eval", ("eval",), scalar=None)
    _check_given_once(sweep, where)
    sweep.seeds = _seeds(raw.get("seeds", 1), f"{where}: seeds")
    sweep.record = _record(raw, where)
    sweep.laws = _laws(raw.get("laws", []), f"{where}: laws")
    sweep.resources = _resources(raw.get("resources", {}), f"{where}: resources")
    if raw.get("search") is not None:
        from sweeps.search import parse_search

        sweep.search = parse_search(info, raw["search"], f"{where}: search", sweep)
    sweep.configs()  # validates every combination (cross-param checks) before anything runs
    sweep.eval_points()
    return sweep


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise UserError(f"{where}: must be text, got {value!r}")
    return value


_ROLE_HINT = {"eval": "put it under eval", "shape": "put it under fixed or grid", "train": "put it under fixed or grid"}


def _params(info: StudyInfo, block: Any, where: str, roles: tuple[str, ...], scalar: bool | None) -> dict[str, Any]:
    """Validate a mapping of params. scalar=True: single values; False: non-empty lists; None: either."""
    if block is None:
        return {}
    if not isinstance(block, dict):
        raise UserError(f"{where}: expected a mapping of param names to values, got {block!r}")
    out: dict[str, Any] = {}
    for name, value in block.items():
        p = info.param(str(name), where)
        if p.role not in roles:
            article = "an" if p.role == "eval" else "a"
            raise UserError(
                f"{where}.{name}: {name} is {article} {p.role}-role param of {info.name}; {_ROLE_HINT[p.role]}"
            )
        key = f"{where}.{name}"
        if scalar is True or (scalar is None and not isinstance(value, list)):
            if isinstance(value, list):
                raise UserError(f"{key}: expected one value ({p.allowed()}); put lists under grid")
            out[name] = [p.coerce(value, key)] if scalar is None else p.coerce(value, key)
            continue
        if not isinstance(value, list):
            raise UserError(f"{key}: a grid axis must be a list of values ({p.allowed()}); use fixed for one value")
        if not value:
            raise UserError(f"{key}: empty axis; give at least one value ({p.allowed()})")
        values = [p.coerce(v, key) for v in value]
        if len(set(map(repr, values))) != len(values):
            raise UserError(f"{key}: a value appears twice in {value!r}")
        out[name] = values
    return out


def _cases(info: StudyInfo, block: Any, where: str) -> list[dict[str, Any]]:
    if block is None:
        return []
    if not isinstance(block, list) or not block:
        raise UserError(f"{where}: expected a non-empty list of mappings (one per case)")
    return [_params(info, case, f"{where}[{i}]", ("shape", "train"), scalar=True) for i, case in enumerate(block)]


def _check_given_once(sweep: Sweep, where: str) -> None:
    places = {"fixed": set(sweep.fixed), "grid": set(sweep.grid), "cases": set().union(*map(set, sweep.cases))}
    for (a, names_a), (b, names_b) in itertools.combinations(places.items(), 2):
        both = sorted(names_a & names_b)
        if both:
            raise UserError(f"{where}: param {both[0]!r} is given twice, in {a} and in {b}; give it in one place")


def _seeds(value: Any, where: str) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise UserError(f"{where}: a seed count must be at least 1, got {value}")
        return list(range(value))
    if isinstance(value, list) and value:
        seeds = [coerce_seed(v, where) for v in value]
        if len(set(seeds)) != len(seeds):
            raise UserError(f"{where}: a seed appears twice in {value!r}")
        return seeds
    raise UserError(f"{where}: expected a count (e.g. 10) or a non-empty list of seeds, got {value!r}")


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"{where}: expected a positive integer, got {value!r}")
    return value


def _record(raw: Mapping[str, Any], where: str) -> RecordSchedule:
    if "record" in raw and "record_every" in raw:
        raise UserError(f"{where}: give record or record_every, not both")
    if "record" in raw:
        return RecordSchedule.parse(raw["record"], f"{where}: record")
    return RecordSchedule(every=_positive_int(raw.get("record_every", 50), f"{where}: record_every"))


def _laws(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UserError(f"{where}: expected a list of law names, got {value!r}")
    return list(value)


def _resources(value: Any, where: str) -> Resources:
    if not isinstance(value, dict):
        raise UserError(f"{where}: expected a mapping with keys {', '.join(RESOURCE_KEYS)}")
    unknown = [k for k in value if k not in RESOURCE_KEYS]
    if unknown:
        raise UserError(f"{where}: unknown key {unknown[0]!r}; allowed keys: {', '.join(RESOURCE_KEYS)}")
    out = Resources()
    for key in ("cpu", "gpu"):
        amount = value.get(key, getattr(out, key))
        if (
            isinstance(amount, bool)
            or not isinstance(amount, int | float)
            or amount < 0
            or (key == "cpu" and amount == 0)
        ):
            raise UserError(f"{where}.{key}: expected a number {'> 0' if key == 'cpu' else '>= 0'}, got {amount!r}")
    pack_size = value.get("pack_size", out.pack_size)
    if pack_size != "auto":
        if isinstance(pack_size, bool) or not isinstance(pack_size, int) or pack_size < 1:
            raise UserError(f"{where}.pack_size: expected a positive integer or auto, got {pack_size!r}")
    return Resources(float(value.get("cpu", out.cpu)), float(value.get("gpu", out.gpu)), pack_size)

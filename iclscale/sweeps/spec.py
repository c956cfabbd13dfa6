"""Sweep files: loading and validation, before anything runs.

A sweep file is YAML:

    name: fig3_relu_L            # output goes to results/<name>/ unless --out says otherwise
    study: my_study              # a study of an installed paper (`iclscale studies`)
    description: what it reproduces, and which values are not from the paper
    fixed: {d: 5, n: 20}         # shape/train params held at one value
    cases: [{...}, {...}]        # optional: alternatives that are not a product (each a dict of params)
    grid: {L: [0.1, 1, 10]}      # shape/train axes, crossed with each other and with the cases
    seeds: 10                    # a count (0..9) or a list of seeds
    eval: {L_test: [0.5, 1, 2]}  # eval-role params: a value or a list; one trained model measures all
    record: {every: 50}          # when to record metrics: {every: K}, {log: N} log-spaced, or {steps: [...]}
                                 # (record_every: K is the same as record: {every: K})
    laws: [name, ...]            # laws to fit in the report (iclscale.analysis.laws)
    resources: {cpu: 1, gpu: 0, pack_size: auto}   # auto: sized by the device's memory
    search: {...}                # optional Optuna search mode (iclscale.sweeps.search)
    threshold: {...}             # optional threshold search along one axis (iclscale.sweeps.threshold_spec)

Every mistake is refused with one message naming the file, the line and column, the key and what
is allowed, before anything runs. Each top-level key has one validator (`VALIDATORS`, in the order
they run); the YAML itself is read with limits by `iclscale.sweeps.yamlsafe`. A sweep's size is capped
(`Limits`: configs and eval points, counted before anything is expanded); `--max-configs` and
`--max-eval-points` and `--max-records` raise the caps.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iclscale.errors import UserError, shorten, unknown_name
from iclscale.sweeps.limits import Limits, check_size
from iclscale.sweeps.threshold_spec import ThresholdSpec, parse_threshold
from iclscale.sweeps.yamlsafe import MAX_BYTES, Marks, load_yaml
from iclscale.trainer.params import Config, EvalPoint, RecordSchedule, coerce_seed
from iclscale.trainer.registry import StudyInfo, study_info

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
    "threshold",
    "quick",
)
# written into the frozen sweep.yaml, ignored when it is read back (checksums: iclscale.sweeps.store's mark)
FROZEN_ONLY_KEYS = ("params", "overrides", "checksums")
RESOURCE_KEYS = ("cpu", "gpu", "pack_size")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
NAME_MAX = 100  # a name becomes a directory name (results/<name>)
PACK_SIZE_MAX = 10**7


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
    threshold: ThresholdSpec | None = None
    overrides: list[str] = field(default_factory=list)
    """`key=value` overrides given on the command line (recorded in the frozen sweep.yaml)."""
    quick: dict[str, Any] = field(default_factory=dict)
    """Its `quick:` block: the overrides (key: value) `--budget quick` adds where its cost lies elsewhere than seeds,
    trials and steps (iclscale.sweeps.budget); not part of the frozen sweep."""
    limits: Limits = field(default_factory=Limits, repr=False)

    def configs(self) -> list[Config]:
        """Every (case × grid point × seed) as a validated config, in file order. Cross-param checks see each
        assignment together with each eval point (a check may span roles: an out-of-domain eval point that
        needs spare feature axes, say); past `JOINT_CHECKS` pairs, each assignment with the first eval point
        and each eval point with the first assignment."""
        configs = []
        axes = list(self.grid)
        points = self._eval_values()
        assignments = [
            ({**self.fixed, **case, **dict(zip(axes, values, strict=True))}, _describe(case, axes, values))
            for case in self.cases or [{}]
            for values in itertools.product(*(self.grid[a] for a in axes))
        ]
        joint = len(assignments) * len(points) <= JOINT_CHECKS
        for index, (assignment, described) in enumerate(assignments):
            where = f"sweep file {self.path}: the combination {described}"
            first, _ = self.study.resolve({**assignment, **points[0]}, self.seeds[0], self._at(where, points[0]))
            for point in points[1:] if joint or index == 0 else ():
                self.study.resolve({**assignment, **point}, self.seeds[0], self._at(where, point))
            # validated once
            configs += [Config(first.study, first.values, seed, first.unhashed) for seed in self.seeds]
        return configs

    def _eval_values(self) -> list[dict[str, Any]]:
        """The eval grid as plain assignments (only the eval params the sweep names)."""
        names = list(self.eval)
        return [dict(zip(names, values, strict=True)) for values in itertools.product(*self.eval.values())] or [{}]

    def _at(self, where: str, point: Mapping[str, Any]) -> str:
        return f"{where} at eval point {_describe(point, [], ())}" if len(self.eval) and point else where

    def eval_points(self) -> list[EvalPoint]:
        """Every eval point, each value checked (the cross-param checks run in `configs`, with the configs)."""
        where = f"sweep file {self.path}: eval"
        return [self.study.resolve(values, 0, where, check=False)[1] for values in self._eval_values()]

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
            "threshold": self.threshold.as_dict() if self.threshold else None,
            "overrides": self.overrides or None,
            "params": {
                p.name: {
                    "role": p.role,
                    "type": p.type.__name__,
                    "default": p.default,
                    "symbol": p.symbol or p.name,
                    "meaning": p.meaning,
                }
                for p in self.study.params
            },
        }


JOINT_CHECKS = 20_000
"""(assignment, eval point) pairs checked together; past this, each side is checked with the other's first."""


def _describe(case: Mapping[str, Any], axes: list[str], values: tuple) -> str:
    items = {**case, **dict(zip(axes, values, strict=True))}
    return "{" + ", ".join(f"{k}={v!r}" for k, v in items.items()) + "}" if items else "(defaults)"


def load_sweep(path: str | Path, overrides: list[str] | tuple[str, ...] = (), limits: Limits | None = None) -> Sweep:
    """Read, override (`key=value`, see `iclscale.sweeps.overrides`) and validate a sweep file (a path, or the
    name of a catalogue sweep: `sweep_path`)."""
    path = sweep_path(path)
    shown = str(path) if len(str(path)) <= 200 else str(path)[:199] + "…"
    where = f"sweep file {shown}"
    data = read_bounded(path, where)
    raw, marks = load_yaml(data, where)
    if not isinstance(raw, dict):
        raise UserError(f"{where}: expected a mapping with keys {', '.join(TOP_LEVEL_KEYS)}, got {shorten(raw)}")
    if overrides:
        from iclscale.sweeps.overrides import apply_overrides

        raw = apply_overrides(raw, overrides, marks, where, TOP_LEVEL_KEYS)
    try:
        sweep = parse_sweep(raw, str(path), limits, list(overrides))
    except UserError as error:
        raise UserError(locate(str(error), where, marks)) from None
    check_freezable(sweep, where)
    return sweep


def sweep_path(given: str | Path) -> Path:
    """The file a user named: a path that exists; else a catalogue sweep of that name (`demo`, `demo.yaml`) in
    any installed paper (iclscale.paper); else the path itself, which `read_bounded` then reports missing. A
    catalogue file's old place (`sweeps/demo.yaml`, before the papers had folders) says where it moved."""
    path = Path(given)
    if path.exists():
        return path
    from iclscale.paper import find_sweep, shown

    if path.parent == Path() or (path.parent.name == "sweeps" and path.suffix == ".yaml"):
        try:
            found = find_sweep(path.stem)
        except UserError:
            if path.parent == Path():
                raise
            return path
        if path.parent == Path():
            return found
        raise UserError(f"{given} moved to {shown(found)}; run it by name: iclscale sweep run {path.stem}")
    return path


def read_bounded(path: Path, where: str) -> bytes:
    """A regular file's bytes, its size checked before reading: a FIFO, a device (/dev/zero) or a
    2 GB file is refused at once, never read (reading one hangs or fills memory)."""
    import stat

    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise UserError(f"{where}: a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"{where}: not a regular file (a FIFO, device or socket); give a sweep file")
        if info.st_size > MAX_BYTES:
            raise UserError(f"{where}: {info.st_size:,} bytes, larger than {MAX_BYTES:,}; a sweep file is a short text")
        with open(path, "rb") as handle:
            return handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise UserError(f"{where}: no such file") from None
    except OSError as error:
        raise UserError(f"{where}: cannot be read ({error.strerror or type(error).__name__})") from None


def locate(message: str, where: str, marks: Marks) -> str:
    """Put the line and column (or the override) of the key a message is about into it: the key is
    the message's first segment after the file, e.g. `grid.L` in "sweep file f: grid.L: ..."."""
    prefix = f"{where}: "
    if not message.startswith(prefix):
        return message
    rest = message[len(prefix) :]
    place = marks.find(rest.split(": ", 1)[0])
    return f"{where}, {place}: {rest}" if place else message


def parse_frozen(raw: Mapping[str, Any], path: str) -> Sweep:
    """A frozen sweep.yaml (as `Sweep.resolved` wrote it) read back; its size was accepted when it ran."""
    sweep = {k: v for k, v in raw.items() if k not in FROZEN_ONLY_KEYS}
    return parse_sweep(
        sweep, path, Limits(max_configs=10**9, max_eval_points=10**9, max_records=10**9), raw.get("overrides") or []
    )


Validator = Callable[["Sweep", Any, str], None]


def parse_sweep(
    raw: Mapping[str, Any], path: str, limits: Limits | None = None, overrides: list[str] | None = None
) -> Sweep:
    where = f"sweep file {path}"
    unknown = [k for k in raw if k not in TOP_LEVEL_KEYS]
    if unknown:
        raise UserError(f"{where}: {_key_text(unknown[0])}: {unknown_name('key', unknown[0], TOP_LEVEL_KEYS)}")
    for required in ("name", "study"):
        if required not in raw:
            raise UserError(f"{where}: missing key {required!r}")
    sweep = Sweep(path=path, name="", study=_study(raw["study"], f"{where}: study"), overrides=overrides or [])
    if "record" in raw and "record_every" in raw:
        raise UserError(f"{where}: record_every: give record or record_every, not both")
    if raw.get("search") is not None and raw.get("threshold") is not None:
        raise UserError(f"{where}: threshold: give search (tune params) or threshold (find a crossing), not both")
    sweep.limits = limits or Limits()
    for key, validate in VALIDATORS.items():
        validate(sweep, raw.get(key, DEFAULTS.get(key)), f"{where}: {key}")
    _check_given_once(sweep, where)
    check_size(sweep, sweep.limits, where)
    if sweep.threshold is None:  # a threshold search checks its cells at both ends of its range
        configs = sweep.configs()  # validates every combination (cross-param checks) before anything runs
        _check_records(sweep, configs, where)
    else:  # its configs are proposed later: log and steps schedules counted now, without a run length
        _check_records(sweep, [], where)
    if raw.get("search") is not None:  # after the grid's own mistakes, reported as such
        from iclscale.sweeps.search_spec import parse_search

        sweep.search = parse_search(sweep.study, raw["search"], f"{where}: search", sweep)
    sweep.eval_points()
    return sweep


def _check_records(sweep: Sweep, configs: list[Config], where: str) -> None:
    """Records per run against `Limits.max_records` (`--max-records N` raises it), for the longest run."""
    cap = sweep.limits.max_records
    steps = max((int(c.as_dict().get("steps", 0)) for c in configs), default=0)
    if sweep.record.records(steps) > cap:
        raise UserError(
            f"{where}: record: {sweep.record.records(steps):,} records for a run of {steps:,} steps is past the cap "
            f"of {cap:,}; record less often (record: {{log: 200}} records 200 log-spaced steps), or raise the cap "
            "with --max-records N"
        )


def check_freezable(sweep: Sweep, where: str) -> None:
    """The sweep.yaml that `run` will freeze must be one its reader accepts (iclscale.sweeps.yamlsafe limits: size,
    nesting, expanded values, integers): checked before anything is trained, so that a results directory
    is never bricked by its own frozen sweep (aliases expand when written, say)."""
    import yaml

    text = yaml.safe_dump(dict(sweep.resolved()), sort_keys=False).encode()
    if len(text) > MAX_BYTES:
        raise UserError(
            f"{where}: its frozen form (every alias expanded) would be {len(text):,} bytes, past the "
            f"{MAX_BYTES:,} a results directory's sweep.yaml may hold; shorten lists or texts"
        )
    try:
        load_yaml(text, where)
    except UserError as error:
        raise UserError(f"{where}: its frozen form would not read back ({error})") from None


def _study(value: Any, where: str) -> StudyInfo:
    if not isinstance(value, str):
        raise UserError(f"{where}: must be a study name, got {shorten(value)}")
    try:
        return study_info(value)
    except UserError as error:
        raise UserError(f"{where}: {error}") from None


def _name(sweep: Sweep, value: Any, where: str) -> None:
    if not isinstance(value, str) or len(value) > NAME_MAX or not NAME_PATTERN.fullmatch(value):
        raise UserError(
            f"{where}: must be at most {NAME_MAX} letters, digits, '_', '.' or '-' (it names the results "
            f"directory), got {shorten(value)}"
        )
    sweep.name = value


def _description(sweep: Sweep, value: Any, where: str) -> None:
    if not isinstance(value, str):
        raise UserError(f"{where}: must be text, got {shorten(value)}")
    sweep.description = value


def _fixed(sweep: Sweep, value: Any, where: str) -> None:
    sweep.fixed = _params(sweep.study, value, where, ("shape", "train"), scalar=True)


def _grid(sweep: Sweep, value: Any, where: str) -> None:
    sweep.grid = _params(sweep.study, value, where, ("shape", "train"), scalar=False)


def _cases(sweep: Sweep, value: Any, where: str) -> None:
    if value is None:
        return
    if not isinstance(value, list) or not value:
        raise UserError(f"{where}: expected a non-empty list of mappings (one per case), got {shorten(value)}")
    for i, case in enumerate(value):
        if not isinstance(case, dict) or not case:
            raise UserError(f"{where}[{i}]: a case is a non-empty mapping of params to values, got {shorten(case)}")
    sweep.cases = [
        _params(sweep.study, c, f"{where}[{i}]", ("shape", "train"), scalar=True) for i, c in enumerate(value)
    ]


def _eval(sweep: Sweep, value: Any, where: str) -> None:
    sweep.eval = _params(sweep.study, value, where, ("eval",), scalar=None)


def _seeds(sweep: Sweep, value: Any, where: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise UserError(f"{where}: a seed count must be at least 1, got {value}")
        cap = sweep.limits.max_configs
        if value > cap:
            raise UserError(
                f"{where}: {value:,} seeds is past the cap of {cap:,} configs; raise it with --max-configs N"
            )
        sweep.seeds = list(range(value))
        return
    if isinstance(value, list) and value:
        seeds = [coerce_seed(v, where) for v in value]
        if len(set(seeds)) != len(seeds):
            raise UserError(f"{where}: a seed appears twice in {shorten(value)}")
        sweep.seeds = seeds
        return
    raise UserError(f"{where}: expected a count (e.g. 10) or a non-empty list of seeds, got {shorten(value)}")


def _record_every(sweep: Sweep, value: Any, where: str) -> None:
    """Shorthand for record: {every: K}."""
    if value is not None:
        sweep.record = RecordSchedule(every=_positive_int(value, where))


def _record(sweep: Sweep, value: Any, where: str) -> None:
    """When to record metrics: {every: K}, {log: N} log-spaced, or {steps: [...]} (iclscale.trainer.params)."""
    if value is not None:
        sweep.record = RecordSchedule.parse(value, where)


def _laws(sweep: Sweep, value: Any, where: str) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UserError(f"{where}: expected a list of law names, got {shorten(value)}")
    if len(set(value)) != len(value):
        seen: set[str] = set()
        twice = next(v for v in value if v in seen or seen.add(v))
        raise UserError(f"{where}: law {shorten(twice)} is listed twice")
    sweep.laws = list(value)


def _quick(sweep: Sweep, value: Any, where: str) -> None:
    """What `iclscale reproduce --budget quick` overrides in this file besides its seeds, trials and steps (where
    its cost lies elsewhere, e.g. `eval_prompts: 256`): KEY: VALUE pairs, checked as overrides when applied."""
    if value is not None and (not isinstance(value, dict) or not all(isinstance(k, str) for k in value)):
        raise UserError(f"{where}: expected a mapping of overrides (e.g. eval_prompts: 256), got {shorten(value)}")
    sweep.quick = dict(value or {})


def _resources(sweep: Sweep, value: Any, where: str) -> None:
    """Per-pack resources: finite, cpu > 0, gpu >= 0. Whether a cluster can ever offer them is
    checked once it is reached (iclscale.sweeps.ray_executor.check_resources)."""
    if not isinstance(value, dict):
        raise UserError(f"{where}: expected a mapping with keys {', '.join(RESOURCE_KEYS)}, got {shorten(value)}")
    unknown = [k for k in value if k not in RESOURCE_KEYS]
    if unknown:
        raise UserError(f"{where}.{_key_text(unknown[0])}: {unknown_name('key', unknown[0], RESOURCE_KEYS)}")
    default = Resources()
    amounts = {}
    for key in ("cpu", "gpu"):
        amount = value.get(key, getattr(default, key))
        if not _finite_number(amount) or amount < 0 or (key == "cpu" and amount == 0):
            wanted = "> 0" if key == "cpu" else ">= 0"
            raise UserError(f"{where}.{key}: expected a finite number {wanted}, got {shorten(amount)}")
        amounts[key] = float(amount)
    pack_size = value.get("pack_size", default.pack_size)
    if pack_size != "auto":
        if isinstance(pack_size, bool) or not isinstance(pack_size, int) or pack_size < 1:
            raise UserError(f"{where}.pack_size: expected a positive integer or auto, got {shorten(pack_size)}")
        if pack_size > PACK_SIZE_MAX:
            raise UserError(f"{where}.pack_size: at most {PACK_SIZE_MAX:,} configs per pack, got {pack_size:,}")
    sweep.resources = Resources(amounts["cpu"], amounts["gpu"], pack_size)


def _threshold(sweep: Sweep, value: Any, where: str) -> None:
    """The threshold search (iclscale.sweeps.threshold_spec); after fixed, grid, cases and eval, which it checks
    against."""
    if value is not None:
        sweep.threshold = parse_threshold(sweep, value, where)


def _nothing(sweep: Sweep, value: Any, where: str) -> None:
    """study and search are read outside the loop (the study first, search last)."""


DEFAULTS: dict[str, Any] = {"description": "", "seeds": 1, "laws": [], "resources": {}}
VALIDATORS: dict[str, Validator] = {
    "study": _nothing,
    "name": _name,
    "description": _description,
    "fixed": _fixed,
    "grid": _grid,
    "cases": _cases,
    "eval": _eval,
    "seeds": _seeds,
    "record_every": _record_every,
    "record": _record,
    "laws": _laws,
    "resources": _resources,
    "search": _nothing,
    "threshold": _threshold,
    "quick": _quick,
}


_ROLE_HINT = {"eval": "put it under eval", "shape": "put it under fixed or grid", "train": "put it under fixed or grid"}


def _params(info: StudyInfo, block: Any, where: str, roles: tuple[str, ...], scalar: bool | None) -> dict[str, Any]:
    """Validate a mapping of params. scalar=True: single values; False: non-empty lists; None: either."""
    if block is None:
        return {}
    if not isinstance(block, dict):
        raise UserError(f"{where}: expected a mapping of param names to values, got {shorten(block)}")
    out: dict[str, Any] = {}
    for name, value in block.items():
        p = info.param(name if isinstance(name, str) else shorten(name), f"{where}.{_key_text(name)}")
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
            raise UserError(f"{key}: a value appears twice in {shorten(value)}")
        out[name] = values
    return out


def _check_given_once(sweep: Sweep, where: str) -> None:
    places = {"fixed": set(sweep.fixed), "grid": set(sweep.grid), "cases": set().union(*map(set, sweep.cases))}
    for (a, names_a), (b, names_b) in itertools.combinations(places.items(), 2):
        both = sorted(names_a & names_b)
        if both:
            raise UserError(f"{where}: param {both[0]!r} is given twice, in {a} and in {b}; give it in one place")


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"{where}: expected a positive integer, got {shorten(value)}")
    return value


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) and len(key) <= 60 else shorten(key, 40)


def _finite_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False

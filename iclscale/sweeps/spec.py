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
    laws: [name, ...]            # laws to fit in the report (none: every law with data; a search: none)
    resources: {cpu: 1, gpu: 0, pack_size: auto}   # auto: sized by the device's memory
    search: {...}                # optional Optuna search mode (iclscale.sweeps.search)
    threshold: {...}             # optional threshold search along one axis (iclscale.sweeps.threshold_spec)

Every mistake is refused with one message naming the file, the line and column, the key and what
is allowed, before anything runs. Each top-level key has one validator (iclscale.sweeps.spec_keys.VALIDATORS,
in the order they run); the YAML itself is read with limits by `iclscale.sweeps.yamlsafe`. A sweep's size is capped
(`Limits`: configs and eval points, counted before anything is expanded); `--max-configs` and
`--max-eval-points` and `--max-records` raise the caps.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iclscale.errors import UserError, shorten, unknown_name
from iclscale.sweeps.limits import Limits, check_size
from iclscale.sweeps.spec_keys import DEFAULTS, VALIDATORS, Resources, check_given_once, key_text, study_of
from iclscale.sweeps.threshold_spec import ThresholdSpec
from iclscale.sweeps.yamlsafe import MAX_BYTES, Marks, load_yaml
from iclscale.trainer.params import Config, EvalPoint, RecordSchedule
from iclscale.trainer.registry import StudyInfo

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


def parse_sweep(
    raw: Mapping[str, Any], path: str, limits: Limits | None = None, overrides: list[str] | None = None
) -> Sweep:
    where = f"sweep file {path}"
    unknown = [k for k in raw if k not in TOP_LEVEL_KEYS]
    if unknown:
        raise UserError(f"{where}: {key_text(unknown[0])}: {unknown_name('key', unknown[0], TOP_LEVEL_KEYS)}")
    for required in ("name", "study"):
        if required not in raw:
            raise UserError(f"{where}: missing key {required!r}")
    sweep = Sweep(path=path, name="", study=study_of(raw["study"], f"{where}: study"), overrides=overrides or [])
    if "record" in raw and "record_every" in raw:
        raise UserError(f"{where}: record_every: give record or record_every, not both")
    if raw.get("search") is not None and raw.get("threshold") is not None:
        raise UserError(f"{where}: threshold: give search (tune params) or threshold (find a crossing), not both")
    sweep.limits = limits or Limits()
    for key, validate in VALIDATORS.items():
        validate(sweep, raw.get(key, DEFAULTS.get(key)), f"{where}: {key}")
    check_given_once(sweep, where)
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

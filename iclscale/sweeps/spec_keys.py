"""Each top-level key of a sweep file checked (iclscale.sweeps.spec): one validator per key, in the order they run
(`VALIDATORS`), each setting its part of the Sweep or refusing the file with one line naming the key."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iclscale.errors import UserError, shorten, unknown_name
from iclscale.sweeps.threshold_spec import parse_threshold
from iclscale.trainer.params import RecordSchedule, coerce_seed
from iclscale.trainer.registry import StudyInfo, study_info

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep

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


Validator = Callable[["Sweep", Any, str], None]


def study_of(value: Any, where: str) -> StudyInfo:
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
        raise UserError(f"{where}.{key_text(unknown[0])}: {unknown_name('key', unknown[0], RESOURCE_KEYS)}")
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
        p = info.param(name if isinstance(name, str) else shorten(name), f"{where}.{key_text(name)}")
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


def check_given_once(sweep: Sweep, where: str) -> None:
    places = {"fixed": set(sweep.fixed), "grid": set(sweep.grid), "cases": set().union(*map(set, sweep.cases))}
    for (a, names_a), (b, names_b) in itertools.combinations(places.items(), 2):
        both = sorted(names_a & names_b)
        if both:
            raise UserError(f"{where}: param {both[0]!r} is given twice, in {a} and in {b}; give it in one place")


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"{where}: expected a positive integer, got {shorten(value)}")
    return value


def key_text(key: Any) -> str:
    return key if isinstance(key, str) and len(key) <= 60 else shorten(key, 40)


def _finite_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False

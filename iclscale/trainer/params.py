"""Params, their roles, and configs with a stable content-hash run_id.

A study declares its knobs as `Param`s. The role says how a sweep may vary it:

- ``shape``: structural (tensor shapes, code paths, loop length). Configs that differ here
  cannot share a pack.
- ``train``: changes training but not structure (L, sigma, lr, ...). Varies inside a pack as a
  per-config tensor of shape (pack_size,).
- ``eval``: used only after training; one trained model is measured over the whole eval grid.

This module is torch-free so that planning a sweep and listing studies stay light.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, Unpack

from iclscale.errors import UserError, did_you_mean, shorten

Role = Literal["shape", "train", "eval"]
ROLES: tuple[Role, ...] = ("shape", "train", "eval")
SEED_MAX = 2**31 - 1  # seeds feed the int32 counter-based streams of iclscale.trainer.rng

FLOAT_MAX = 1.7976931348623157e308  # an integer past this cannot become a float param's value

_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


class Options(TypedDict, total=False):
    """What a param may add to its name, default, role and meaning (see `Param`)."""

    low: float | None
    high: float | None
    low_open: bool
    choices: tuple[str, ...] | None
    nullable: bool
    symbol: str | None
    added_later: bool


@dataclass(frozen=True)
class Param:
    """One knob of a study: its type, default, allowed range, role and meaning.

    `meaning` is one line naming the paper's symbol; values chosen by us and not by the paper
    say "not from the paper" there. `symbol` is that symbol alone (e.g. "σ", "α′"), for chart axes
    and tables; None where the paper has none (the param's name is used then).
    """

    name: str
    type: type
    default: Any
    role: Role
    meaning: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] | None = None
    nullable: bool = False
    symbol: str | None = None
    added_later: bool = False
    """A param added to a study after results were stored: at its default it is left out of the run_id, so every
    config stored before it existed keeps its run_id (and resume still finds it)."""

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"param {self.name}: role {self.role!r} not in {ROLES}")
        if self.type not in _TYPE_NAMES:
            raise ValueError(f"param {self.name}: unsupported type {self.type}")
        if self.role == "train" and (self.type is str or self.nullable):
            # train params become per-config (pack_size,) tensors inside a pack: numbers only
            raise ValueError(f"param {self.name}: a train-role param must be a non-null number (or bool)")
        if self.default is not None or not self.nullable:
            self.coerce(self.default, f"default of {self.name}")

    @classmethod
    def shape(
        cls, name: str, default: Any, meaning: str, type: type | None = None, **options: Unpack[Options]
    ) -> Param:
        """A shape-role param in one line: its type is the default's (give `type` where the default is None,
        which makes it nullable)."""
        return cls._declare("shape", name, default, meaning, type, options)

    @classmethod
    def train(
        cls, name: str, default: Any, meaning: str, type: type | None = None, **options: Unpack[Options]
    ) -> Param:
        """A train-role param in one line, typed like `Param.shape`."""
        return cls._declare("train", name, default, meaning, type, options)

    @classmethod
    def eval(cls, name: str, default: Any, meaning: str, type: type | None = None, **options: Unpack[Options]) -> Param:
        """An eval-role param in one line, typed like `Param.shape`."""
        return cls._declare("eval", name, default, meaning, type, options)

    @classmethod
    def _declare(cls, role: Role, name: str, default: Any, meaning: str, kind: type | None, options: Options) -> Param:
        if kind is None:
            if default is None:
                raise ValueError(f"param {name}: a null default needs its type given (type=int, ...)")
            kind = default.__class__
        if default is None:
            options = {**options, "nullable": True}
        return cls(name, kind, default, role, meaning, **options)

    def allowed(self) -> str:
        """What values are allowed, in words, for messages and `iclscale studies`."""
        if self.choices is not None:
            text = "one of " + ", ".join(self.choices)
        elif self.type is bool:
            text = "true or false"
        elif self.low is None and self.high is None:
            text = _TYPE_NAMES[self.type]
        else:
            left = "(" if self.low_open or self.low is None else "["
            low = "-inf" if self.low is None else _fmt(self.low)
            high = "inf" if self.high is None else _fmt(self.high)
            right = ")" if self.high is None else "]"
            text = f"{_TYPE_NAMES[self.type]} in {left}{low}, {high}{right}"
        return text + (" or null" if self.nullable else "")

    def coerce(self, value: Any, where: str) -> Any:
        """Check a typed value (from YAML or Python) and return it in the param's type."""
        if value is None:
            if self.nullable:
                return None
            raise UserError(f"{where}: {self.name} must be {self.allowed()}, got null")
        if self.type is bool:
            if not isinstance(value, bool):
                raise UserError(f"{where}: {self.name} must be true or false, got {shorten(value)}")
            return value
        if isinstance(value, bool) or not isinstance(value, _accepted(self.type)):
            raise UserError(f"{where}: {self.name} must be {self.allowed()}, got {shorten(value)}")
        if self.type is float and isinstance(value, int) and abs(value) > FLOAT_MAX:
            raise UserError(f"{where}: {self.name} must be {self.allowed()}, got {shorten(value)} (past float range)")
        value = self.type(value)
        if self.choices is not None and value not in self.choices:
            hint = did_you_mean(value, self.choices)
            raise UserError(f"{where}: {self.name} must be {self.allowed()}, got {shorten(value)}{hint}")
        if self.type in (int, float) and not self._in_range(value):
            raise UserError(f"{where}: {self.name} must be {self.allowed()}, got {shorten(value)}")
        return value

    def parse(self, text: str, where: str) -> Any:
        """Read a value written on the command line (`--set name=text`)."""
        text = text.strip()
        if self.nullable and text.lower() in ("null", "none"):
            return None
        try:
            if self.type is bool:
                lowered = text.lower()
                if lowered not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(text)
                value: Any = lowered in ("true", "1", "yes")
            elif self.type is str:
                value = text
            else:
                value = self.type(text)
        except ValueError:
            raise UserError(f"{where}: {self.name} must be {self.allowed()}, got {shorten(text)}") from None
        return self.coerce(value, where)

    def _in_range(self, value: float) -> bool:
        if isinstance(value, float) and not math.isfinite(value):
            return False
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return False
        return self.high is None or value <= self.high


def _accepted(kind: type) -> tuple[type, ...]:
    return (int, float) if kind is float else (kind,)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def coerce_seed(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= SEED_MAX:
        raise UserError(f"{where}: a seed must be an integer in [0, {SEED_MAX}], got {shorten(value)}")
    return value


@dataclass(frozen=True)
class Config:
    """One fully resolved assignment of a study's shape and train params, plus a seed.

    `run_id` is a content hash: stable across runs, machines and the order params were given in. `unhashed` names
    the params left out of it (params added later, at their defaults: see `Param.added_later`).
    """

    study: str
    values: tuple[tuple[str, Any], ...]
    seed: int
    unhashed: tuple[str, ...] = ()
    _index: dict[str, Any] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(sorted(self.values)))
        object.__setattr__(self, "_index", dict(self.values))

    def __getitem__(self, name: str) -> Any:
        return self._index[name]

    def as_dict(self) -> dict[str, Any]:
        return dict(self._index)

    @property
    def run_id(self) -> str:
        cached = self.__dict__.get("_run_id")
        if cached is None:  # hashed once: planning a large sweep asks for it many times
            params = {name: value for name, value in self.values if name not in self.unhashed}
            payload = {"study": self.study, "params": params, "seed": self.seed}
            canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
            cached = hashlib.sha256(canonical.encode()).hexdigest()[:16]
            object.__setattr__(self, "_run_id", cached)
        return cached

    def shape_key(self, shape_names: tuple[str, ...]) -> tuple:
        """The values that must agree for two configs to share a pack."""
        return tuple(self._index[name] for name in shape_names)


EvalPoint = tuple[tuple[str, Any], ...]
"""One assignment of every eval-role param, as sorted (name, value) pairs."""


def eval_point(values: Mapping[str, Any]) -> EvalPoint:
    return tuple(sorted(values.items()))


OPTIMIZERS = ("sgd", "adam", "gd")
SCHEDULES = ("constant", "exponential", "cosine")
DTYPES = ("float32", "float64")


def recipe_params(
    *,
    steps: int,
    lr: float,
    optimizer: str,
    source: str,
    schedule: str = "constant",
    lr_decay: float = 1.0,
    dtype: str = "float32",
    optimizers: tuple[str, ...] = ("sgd", "adam"),
) -> tuple[Param, ...]:
    """The recipe every trainable study has, read by the trainer (iclscale.trainer.recipe): loop length, optimizer,
    learning rate and its schedule, and the float type used end to end. A sweep file overrides any of them
    like any param. `source` says where the defaults come from (paper section, or "not from the paper");
    `optimizers` are those the study supports ("gd", full-batch gradient descent on a fixed training set,
    needs the study's `training_set`)."""
    optimizer_meaning = (
        "optimizer: sgd and adam on a fresh batch every step, gd = full-batch gradient descent on the fixed "
        "training set"
    )
    schedule_meaning = (
        "learning-rate schedule: constant η; exponential η·γ^t (torch's ExponentialLR stepped every iteration); "
        "cosine η·(1 + cos(πt/T))/2"
    )
    decay_meaning = "γ of the exponential schedule, per iteration; must be 1 for the others"
    dtype_meaning = "float type of parameters, data and optimizer state, end to end"
    # types given, not read from the defaults: a caller's lr=1 is still a float param
    return (
        Param.shape("steps", steps, f"training iterations T ({source})", int, low=0, high=10**8, symbol="T"),
        Param.shape("optimizer", optimizer, f"{optimizer_meaning} ({source})", str, choices=optimizers),
        Param.train("lr", lr, f"initial learning rate η ({source})", float, low=0, low_open=True, symbol="η"),
        Param.shape("schedule", schedule, f"{schedule_meaning} ({source})", str, choices=SCHEDULES),
        Param.train(
            "lr_decay", lr_decay, f"{decay_meaning} ({source})", float, low=0, high=1, low_open=True, symbol="γ"
        ),
        Param.shape("dtype", dtype, f"{dtype_meaning} ({source})", str, choices=DTYPES),
    )


def check_recipe(values: Mapping[str, Any]) -> str | None:
    """A cross-param check for `recipe_params`: γ only means something to the exponential schedule."""
    if "schedule" in values and values["schedule"] != "exponential" and values["lr_decay"] != 1.0:
        return (
            f"lr_decay = {values['lr_decay']} applies to the exponential schedule only; "
            f"the {values['schedule']} schedule needs lr_decay = 1 (or set schedule: exponential)"
        )
    return None


DTYPE_MAX = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}
"""The largest finite value of each float type (`torch.finfo(...).max`)."""


def check_float_range(values: Mapping[str, Any]) -> str | None:
    """A cross-param check of every study: a float value the run's tensors cannot hold (past the float type's
    range: `dtype`, float32 where a study has none) is refused at parse. It trained and then failed at every
    eval point (`L_test = 1e308`: "value cannot be converted to type float without overflow")."""
    dtype = values.get("dtype", "float32")
    largest = DTYPE_MAX.get(dtype, DTYPE_MAX["float32"])
    for name, value in values.items():
        if isinstance(value, float) and abs(value) > largest:
            return (
                f"{name} = {value:g} is past {dtype}'s range (±{largest:.4g}), which this run's tensors hold; "
                "give a smaller value" + (" (or dtype=float64)" if dtype == "float32" else "")
            )
    return None


MAX_RECORDS = 100_000
"""Records per run by default: each holds every metric of every config of a pack, so more would fill memory
(a sweep's `--max-records N` raises it; `iclscale.sweeps.limits`)."""


@dataclass(frozen=True)
class RecordSchedule:
    """When metrics are recorded: `every` k steps, `log`: n log-spaced steps, or an explicit list of `steps`.
    Step 0 (before training) and the last step are always recorded."""

    every: int | None = None
    log: int | None = None
    steps: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        given = [name for name in ("every", "log", "steps") if getattr(self, name) is not None]
        if len(given) != 1:
            raise UserError(f"a record schedule takes exactly one of every, log or steps, got {given or 'none'}")
        if self.steps is not None:
            if not self.steps:
                raise UserError("record steps: the list is empty; give at least one step")
            if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in self.steps):
                raise UserError(f"record steps must be non-negative integers, got {shorten(list(self.steps))}")
        for name in ("every", "log"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise UserError(f"record {name} must be a positive integer, got {shorten(value)}")

    @classmethod
    def parse(cls, value: Any, where: str) -> RecordSchedule:
        """From a sweep file: an integer (every k steps) or a mapping {every: k} | {log: n} | {steps: [...]}."""
        if isinstance(value, int) and not isinstance(value, bool):
            value = {"every": value}
        if not isinstance(value, Mapping) or len(value) != 1 or next(iter(value)) not in ("every", "log", "steps"):
            raise UserError(
                f"{where}: expected one of {{every: K}}, {{log: N}} or {{steps: [S, ...]}}, got {shorten(value)}"
            )
        ((kind, amount),) = value.items()
        if kind == "steps":
            if not isinstance(amount, list):
                raise UserError(f"{where}.steps: expected a list of steps, got {shorten(amount)}")
            amount = tuple(amount)
        try:
            return cls(**{kind: amount})
        except UserError as error:
            raise UserError(f"{where}: {error}") from None

    def as_dict(self) -> dict[str, Any]:
        if self.steps is not None:
            return {"steps": list(self.steps)}
        return {"every": self.every} if self.every is not None else {"log": self.log}

    def records(self, total: int) -> int:
        """How many records a run of `total` steps makes, at most (counted, not listed)."""
        if self.every is not None:
            return total // self.every + 2
        return (self.log if self.log is not None else len(self.steps)) + 2

    def record_steps(self, total: int) -> list[int]:
        """The sorted steps in [0, total] at which a run of `total` steps is recorded."""
        if self.every is not None:
            chosen = set(range(0, total + 1, self.every))
        elif self.log is not None:  # n points geometric in [1, total], rounded, plus 0
            chosen = {round(total ** (i / max(self.log - 1, 1))) for i in range(self.log)} if total else set()
        else:
            chosen = {s for s in self.steps if s <= total}
        return sorted(chosen | {0, total})

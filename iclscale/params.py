"""Params, their roles, and configs with a stable content-hash run_id.

A study declares its knobs as `Param`s. The role says how a sweep may vary it:

- ``shape``: structural (tensor shapes, code paths, loop length). Configs that differ here
  cannot share a pack.
- ``train``: changes training but not structure (L, sigma, lr, ...). Varies inside a pack as a
  per-config tensor of shape (K,).
- ``eval``: used only after training; one trained model is measured over the whole eval grid.

This module is torch-free so that planning a sweep and listing studies stay light.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from iclscale.errors import UserError, did_you_mean, shorten

Role = Literal["shape", "train", "eval"]
ROLES: tuple[Role, ...] = ("shape", "train", "eval")
SEED_MAX = 2**31 - 1  # seeds feed the int32 counter-based streams of iclscale.rng

FLOAT_MAX = 1.7976931348623157e308  # an integer past this cannot become a float param's value

_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


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

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"param {self.name}: role {self.role!r} not in {ROLES}")
        if self.type not in _TYPE_NAMES:
            raise ValueError(f"param {self.name}: unsupported type {self.type}")
        if self.role == "train" and (self.type is str or self.nullable):
            # train params become per-config (K,) tensors inside a pack: numbers only
            raise ValueError(f"param {self.name}: a train-role param must be a non-null number (or bool)")
        if self.default is not None or not self.nullable:
            self.coerce(self.default, f"default of {self.name}")

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

    `run_id` is a content hash: stable across runs, machines and the order params were given in.
    """

    study: str
    values: tuple[tuple[str, Any], ...]
    seed: int
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
            payload = {"study": self.study, "params": dict(self.values), "seed": self.seed}
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


def recipe_params(*, steps: int, lr: float, lr_decay: float, optimizer: str, source: str) -> tuple[Param, ...]:
    """The params every trainable study has, read by the trainer (iclscale.training).

    `source` says where the defaults come from (paper section, or "not from the paper").
    """
    return (
        Param("steps", int, steps, "shape", f"training iterations T ({source})", low=0, high=10**8, symbol="T"),
        Param("optimizer", str, optimizer, "shape", f"optimizer ({source})", choices=("adam", "sgd")),
        Param("lr", float, lr, "train", f"initial learning rate η ({source})", low=0, low_open=True, symbol="η"),
        Param(
            "lr_decay",
            float,
            lr_decay,
            "train",
            f"per-iteration exponential lr decay γ: lr_t = η·γ^t ({source})",
            low=0,
            high=1,
            low_open=True,
            symbol="γ",
        ),
    )

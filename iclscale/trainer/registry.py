"""The study registry: declarations (torch-free) and their implementations (loaded on demand).

Each paper (iclscale.paper) names a torch-free module of `StudyInfo`s (name, paper, params), each naming
its implementation class as "module:Class". Listing studies, validating a sweep
file and planning packs read only declarations; training loads the implementation.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iclscale.errors import UserError, did_you_mean, shorten
from iclscale.trainer import configclass
from iclscale.trainer.params import (
    Config,
    EvalPoint,
    Param,
    Role,
    check_float_range,
    check_recipe,
    coerce_seed,
    eval_point,
)

if TYPE_CHECKING:
    from iclscale.trainer.study import Study

Check = Callable[[Mapping[str, Any]], str | None]
"""A cross-param constraint: returns a message when a full assignment is not allowed."""


@dataclass(frozen=True)
class Metric:
    """A final metric a study reports, or a family of them (`#` stands for an index: `neuron_magnitude_#`),
    and what it means. `headline`: one of the paper's headline results, which `iclscale train` prints first.
    `regime`: for a 0/1 flag, the theorem's conditions it checks (0 means the config is outside them)."""

    name: str
    meaning: str
    headline: bool = False
    regime: str | None = None

    def matches(self, name: str) -> bool:
        """`#` matches an index (digits), `*` any text."""
        pattern = re.escape(self.name).replace("\\#", r"\d+").replace("\\*", ".+")
        return re.fullmatch(pattern, name) is not None


COMMON_METRICS = (
    Metric("train_loss", "training loss, mean over the steps since the previous record (NaN at step 0)"),
    Metric("gf_time", "gradient-flow time t = Σ η_s of the steps so far (full-batch gradient descent only)"),
)


@dataclass(frozen=True)
class StudyInfo:
    name: str
    title: str
    paper: str
    params: tuple[Param, ...]
    implementation: str
    checks: tuple[Check, ...] = ()
    metrics: tuple[Metric, ...] = ()  # every final metric's meaning (`iclscale studies NAME` lists them)
    config_base: type | None = None
    """A base of its config class that functions shared with other studies take (`configclass.shared_base`); the
    config class itself is made from the params (`config`)."""
    eval_values: Callable[[Mapping[str, Any]], int] | None = None
    """Floats one config's evaluation at an eval point holds at once (its test set), from the params alone (shape,
    train and eval): checked against the machine before training (`iclscale.trainer.footprint.check_evaluation`),
    where the footprint's short run would itself draw a test set too large to hold. None: not estimated."""

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        duplicated = {n for n in names if names.count(n) > 1}
        if duplicated:
            raise ValueError(f"study {self.name}: params declared twice: {sorted(duplicated)}")
        configclass.of(self)  # a config_base the params do not give fails here, at the declaration

    @property
    def config(self) -> type:
        """The config class its study functions receive, made from the params (iclscale.trainer.configclass)."""
        return configclass.of(self)

    def param(self, name: str, where: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        names = [p.name for p in self.params]
        raise UserError(
            f"{where}: unknown param {shorten(name)} for study {self.name}{did_you_mean(name, names)}; "
            f"known params: {', '.join(names)}"
        )

    def names(self, *roles: Role) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.role in roles)

    def defaults(self, *roles: Role) -> dict[str, Any]:
        return {p.name: p.default for p in self.params if p.role in roles}

    def check(self, values: Mapping[str, Any], where: str) -> None:
        for check in (check_recipe, check_float_range, *self.checks):
            message = check(values)
            if message:
                raise UserError(f"{where}: {message}")

    def resolve(self, values: Mapping[str, Any], seed: int, where: str, check: bool = True) -> tuple[Config, EvalPoint]:
        """Validate an assignment (any roles, typed values) and fill in defaults. `check=False` leaves out the
        cross-param checks (for part of an assignment, checked whole elsewhere).

        Returns the config (shape and train params, seed) and the eval point (eval params).
        """
        full = self.defaults("shape", "train", "eval")
        for name, value in values.items():
            full[name] = self.param(name, where).coerce(value, where)
        if check:
            self.check(full, where)
        training = {n: full[n] for n in self.names("shape", "train")}
        evaluation = {n: full[n] for n in self.names("eval")}
        unhashed = tuple(
            p.name for p in self.params if p.added_later and p.name in training and full[p.name] == p.default
        )
        return Config(self.name, tuple(training.items()), coerce_seed(seed, where), unhashed), eval_point(evaluation)

    def metric(self, name: str) -> Metric | None:
        """The declaration of a final metric (or of its family), or None."""
        found = next((m for m in (*self.metrics, *COMMON_METRICS) if m.matches(name)), None)
        layer = re.fullmatch(r"layer(\d+)_(.+)", name)  # a stack's layer ℓ ≥ 2 reports layer 1's metrics again
        if found is None and layer:
            inner = self.metric(layer.group(2))
            if inner is not None:
                return Metric(f"layer{layer.group(1)}_{inner.name}", f"{inner.meaning} (layer {layer.group(1)})")
        return found

    def load(self) -> Study:
        module_name, _, attr = self.implementation.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            from iclscale.moved import moved_message

            moved = moved_message(module_name)
            if moved is None:
                raise
            raise UserError(f"study {self.name}: implementation {self.implementation!r}: {moved}") from None
        study_class = getattr(module, attr)
        configclass.bind(self, module)
        configclass.check_reads(study_class, self.config)  # a misspelt `c.<name>` fails here, not under vmap
        return study_class(self)


def _declarations() -> dict[str, StudyInfo]:
    from iclscale.paper import papers

    found: dict[str, StudyInfo] = {}
    for paper in papers():
        for info in paper.load_declarations():
            if info.name in found:  # an installed paper must not silently replace another's study
                raise UserError(f"two papers declare a study called {info.name!r} (the second: {paper.name})")
            found[info.name] = info
    return found


def study_names() -> list[str]:
    return sorted(_declarations())


def study_info(name: str) -> StudyInfo:
    studies = _declarations()
    if name not in studies:
        raise UserError(
            f"unknown study {shorten(name)}{did_you_mean(name, studies)}; known studies: {', '.join(sorted(studies))}"
        )
    return studies[name]


def all_studies() -> Iterable[StudyInfo]:
    return (_declarations()[name] for name in study_names())

"""The config class of each study of this paper: one config as the study's functions see it (`c`).

Printed from the declared params by `python -m iclscale.trainer.configclass STUDY`; the StudyInfo checks that it
matches them, and loading the study checks every `c.<name>` its functions read (iclscale.trainer.configclass).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torch import Tensor

    from iclscale.trainer.rng import Stream


@dataclass(frozen=True)
class SoftmaxWindowConfig:
    """One config of `softmax_window` as its study functions see it (iclscale.trainer.study)."""

    d: int
    n: int
    queries: int
    tasks_per_iter: int
    task_class: str
    covariates: str
    attention: str
    linear_norm: str
    tied: bool
    k: int
    hills_mode: str
    train_set_tasks: int
    steps: int
    optimizer: str
    lr: Tensor
    schedule: str
    lr_decay: Tensor
    dtype: str
    L: Tensor
    sigma: Tensor
    nu: Tensor
    init_scale: Tensor
    rng: Stream
    const: dict[str, Tensor]


@dataclass(frozen=True)
class SoftmaxWindowOracleConfig:
    """One config of `softmax_window_oracle` as its study functions see it (iclscale.trainer.study)."""

    d: int
    n: int
    task_class: str
    covariates: str
    attention: str
    hills_mode: str
    mc_tasks: int
    w_min: float
    w_max: float
    w_points: int
    L: Tensor
    sigma: Tensor
    nu: Tensor
    rng: Stream
    const: dict[str, Tensor]

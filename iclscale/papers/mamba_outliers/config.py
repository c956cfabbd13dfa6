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
class MambaOutliersConfig:
    """One config of `mamba_outliers` as its study functions see it (iclscale.trainer.study)."""

    d: int
    M1: int
    M2: int
    V: int
    l_tr: int
    batch_size: int
    model: str
    layers: int
    hidden: int | None
    residual: bool
    lt_attention: str
    steps: int
    optimizer: str
    lr: Tensor
    schedule: str
    lr_decay: Tensor
    dtype: str
    p_a: Tensor
    beta: Tensor
    kappa_a: Tensor
    train_tasks: str
    K: Tensor
    delta: Tensor
    rng: Stream
    const: dict[str, Tensor]

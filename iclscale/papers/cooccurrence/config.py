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
class CooccurrenceConfig:
    """One config of `cooccurrence` as its study functions see it (iclscale.trainer.study)."""

    d: int
    L: int
    n: int
    m: int
    m1: int
    tokens: str
    init: str
    readout: str
    steps: int
    optimizer: str
    lr: Tensor
    schedule: str
    lr_decay: Tensor
    dtype: str
    c0: Tensor
    c1: Tensor
    rng: Stream
    const: dict[str, Tensor]

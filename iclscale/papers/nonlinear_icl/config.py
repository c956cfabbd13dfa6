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
class PatternConfig:
    """What both studies' configs hold: the data model and the recipe (the shared study functions take it)."""

    d_x: int
    d_y: int
    M1: int
    M2: int
    l_tr: int
    batch_size: int
    steps: int
    optimizer: str
    lr: Tensor
    schedule: str
    lr_decay: Tensor
    dtype: str
    alpha: Tensor
    beta: Tensor
    K: Tensor
    q_norm: Tensor
    U: Tensor
    n_train_tasks: Tensor
    rng: Stream
    const: dict[str, Tensor]


@dataclass(frozen=True)
class NonlinearICLConfig(PatternConfig):
    """One config of `nonlinear_icl` as its study functions see it (iclscale.trainer.study)."""

    m: int
    m_a: int
    m_b: int
    attend_to_query: bool
    a_scale: str
    probe_prompts: int
    delta: Tensor


@dataclass(frozen=True)
class NonlinearICLGPT2Config(PatternConfig):
    """One config of `nonlinear_icl_gpt2` as its study functions see it (iclscale.trainer.study)."""

    n_layer: int
    n_head: int
    n_embd: int
    n_positions: int
    positions: str

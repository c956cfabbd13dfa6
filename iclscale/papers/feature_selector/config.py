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
class FeatureSelectorConfig:
    """One config of `feature_selector` as its study functions see it (iclscale.trainer.study)."""

    d_x: int
    d_y: int
    M1: int
    M2: int
    l_tr: int
    batch_size: int
    task_set: str
    lambda_mode: str
    kappa_mode: str
    noise_mode: str
    m: int
    m_a: int | None
    m_b: int | None
    attend_to_query: bool
    probe_prompts: int
    steps: int
    optimizer: str
    lr: Tensor
    schedule: str
    lr_decay: Tensor
    dtype: str
    alpha: Tensor
    beta: Tensor
    lambda_star: Tensor
    tau: Tensor
    delta: Tensor
    xi: Tensor
    n_train_tasks: Tensor
    rng: Stream
    const: dict[str, Tensor]

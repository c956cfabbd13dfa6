"""A study's declared evaluation size (`StudyInfo.eval_values`) against what its own code draws, and the check
before training refusing a huge one: shared by each paper's tests (issue 38)."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
import torch
from torch.utils._pytree import tree_leaves

from iclscale.errors import UserError
from iclscale.trainer import footprint
from iclscale.trainer.registry import study_info
from iclscale.trainer.training import PackTrainer

Held = Callable[[Any, Any, Mapping[str, Any]], Any]
"""(study, c, point) → the tensors one config's evaluation at the point holds at once, drawn by the study."""


def assert_declared_is_drawn(name: str, cases: Sequence[Mapping[str, Any]], held: Held | None = None) -> None:
    """For each case (param values): the floats the study declares equal those `held` draws for one config;
    `held` None: the study's whole test set (`Study.test_data`, drawn as a record draws it)."""
    info = study_info(name)
    for values in cases:
        config, point = info.resolve(dict(values), 0, "t")
        trainer = PackTrainer(info, [config], [point], torch.device("cpu"))
        if held is None:
            with trainer.defaults():
                drawn = trainer.measurer.draw(dict(point))
        else:
            drawn = trainer.pack.map(lambda c: held(trainer.study, c, dict(point)))  # noqa: B023
        floats = sum(leaf[0].numel() for leaf in tree_leaves(drawn))  # one config of the pack of one
        assert floats == info.eval_values({**dict(config.values), **dict(point)}), values


def assert_refused_before_training(name: str, huge: Mapping[str, Any], monkeypatch) -> None:
    """On a machine with 1 GB free (a laptop's share), `huge` is refused in one line and the defaults pass."""
    monkeypatch.setattr(footprint, "free_memory", lambda device: 10**9)
    info = study_info(name)
    config, point = info.resolve(dict(huge), 0, "t")
    with pytest.raises(UserError, match="needs at least") as refused:
        footprint.check_evaluation(info, [config], [point], torch.device("cpu"))
    assert "\n" not in str(refused.value)
    default_config, default_point = info.resolve({}, 0, "t")
    footprint.check_evaluation(info, [default_config], [default_point], torch.device("cpu"))

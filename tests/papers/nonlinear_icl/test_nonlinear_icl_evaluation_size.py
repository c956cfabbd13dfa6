"""nonlinear_icl's declared test set (both studies) is what it draws; a huge one is refused (issue 38), by `train`
too, before anything is sized or trained."""

import pytest
from evaluation_sizes import assert_declared_is_drawn, assert_refused_before_training

from iclscale.errors import UserError
from iclscale.trainer import footprint
from iclscale.trainer.registry import study_info


@pytest.mark.parametrize("name", ["nonlinear_icl", "nonlinear_icl_gpt2"])
def test_the_declared_test_set_is_what_the_study_draws(name):
    assert_declared_is_drawn(name, [{"eval_prompts": 300, "l_ts": 3}])  # two chunks of prompts


def test_a_huge_test_set_is_refused_before_training(monkeypatch):
    assert_refused_before_training("nonlinear_icl", {"eval_prompts": 10**6, "l_ts": 100}, monkeypatch)


def test_an_evaluation_past_the_machines_memory_is_refused_before_anything_runs(monkeypatch):
    """`train nonlinear_icl eval_prompts=10000000 l_ts=10000` held 4.2 GB after a minute and grew; now refused
    at once, in one line with both numbers."""
    from iclscale.trainer.training import train_pack

    def never(*args, **kwargs):
        raise AssertionError("sized or trained before the check")

    monkeypatch.setattr(footprint, "free_memory", lambda device: 10**9)
    monkeypatch.setattr(footprint, "pack_parts", never)
    info = study_info("nonlinear_icl")
    config, point = info.resolve({"eval_prompts": 10**7, "l_ts": 10**4}, 0, "t")
    with pytest.raises(UserError) as refused:
        train_pack(info, [config], [point], 1)
    message = str(refused.value)
    assert "\n" not in message and "eval_prompts=10000000, l_ts=10000" in message
    assert "needs at least 24 TB" in message and "1 GB free" in message
    default_config, default_point = info.resolve({}, 0, "t")
    with pytest.raises(AssertionError, match="sized or trained"):  # a default evaluation passes the check
        train_pack(info, [default_config], [default_point], 1)

"""nonlinear_icl's declared test set (both studies) is what it draws; a huge one is refused (issue 38)."""

import pytest
from evaluation_sizes import assert_declared_is_drawn, assert_refused_before_training


@pytest.mark.parametrize("name", ["nonlinear_icl", "nonlinear_icl_gpt2"])
def test_the_declared_test_set_is_what_the_study_draws(name):
    assert_declared_is_drawn(name, [{"eval_prompts": 300, "l_ts": 3}])  # two chunks of prompts


def test_a_huge_test_set_is_refused_before_training(monkeypatch):
    assert_refused_before_training("nonlinear_icl", {"eval_prompts": 10**6, "l_ts": 100}, monkeypatch)

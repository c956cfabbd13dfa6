"""mamba_outliers' declared test chunk is what it draws; a huge one is refused (issue 38)."""

from evaluation_sizes import assert_declared_is_drawn, assert_refused_before_training

from iclscale.papers.common import EVAL_CHUNK_PROMPTS


def first_chunk(study, c, point):
    """The first chunk of test prompts and their labels: what evaluation holds at once."""
    prompts = study.test_chunk(c, point, min(point["eval_prompts"], EVAL_CHUNK_PROMPTS), 0)
    return prompts.tokens, prompts.draw.z


def test_the_declared_test_chunk_is_what_mamba_outliers_draws():
    assert_declared_is_drawn(
        "mamba_outliers", [{"eval_prompts": 300, "l_ts": 6}, {"eval_prompts": 7, "l_ts": 3}], first_chunk
    )


def test_a_huge_test_chunk_is_refused_before_training(monkeypatch):
    assert_refused_before_training("mamba_outliers", {"l_ts": 10**4, "d": 4096}, monkeypatch)

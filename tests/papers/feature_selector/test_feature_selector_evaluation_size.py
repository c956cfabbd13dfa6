"""feature_selector's declared test chunk is what it draws; a huge one is refused (issue 38)."""

from evaluation_sizes import assert_declared_is_drawn, assert_refused_before_training

from iclscale.papers.common import EVAL_CHUNK_PROMPTS


def first_chunk(study, c, point):
    """The first chunk of test prompts on the point's domain, and their labels: what evaluation holds at once."""
    domain = study.domain(c, point["domain"], point)
    prompts = study.test_chunk(c, point, domain, min(point["eval_prompts"], EVAL_CHUNK_PROMPTS), 0)
    return prompts.tokens, prompts.z


def test_the_declared_test_chunk_is_what_feature_selector_draws():
    """Two chunks at l_ts = 5, and one short chunk at l_ts null (the training length)."""
    assert_declared_is_drawn("feature_selector", [{"eval_prompts": 300, "l_ts": 5}, {"eval_prompts": 7}], first_chunk)


def test_a_huge_test_chunk_is_refused_before_training(monkeypatch):
    assert_refused_before_training("feature_selector", {"l_ts": 10**4, "d_x": 4000}, monkeypatch)

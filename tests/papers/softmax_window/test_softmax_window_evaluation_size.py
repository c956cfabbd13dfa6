"""softmax_window's and its oracle's declared evaluation sizes are what they draw; a huge one is refused (issue 38);
two eval points of one size, one with L_test unset, are checked without comparing them."""

import torch
from evaluation_sizes import assert_declared_is_drawn, assert_refused_before_training

from iclscale.papers.softmax_window.declaration import mc_chunk_tasks
from iclscale.trainer.registry import study_info


def test_the_declared_test_set_is_what_softmax_window_draws():
    """N = ⌊√n⌋ queries where `queries` is 0, else `queries`."""
    assert_declared_is_drawn("softmax_window", [{"test_tasks": 7, "n": 5, "d": 3, "queries": q} for q in (0, 3)])


def test_the_declared_monte_carlo_chunk_is_what_the_oracle_draws():
    """A sample smaller than one chunk, and one of many chunks (the first is what is held)."""

    def first_chunk(study, c, point):
        p = study.monte_carlo_chunk(c, 0, mc_chunk_tasks({"mc_tasks": c.mc_tasks, "n": c.n, "d": c.d}))
        return (p.x_context, p.y_context, p.x_query, p.f_query)

    cases = [{"mc_tasks": 40, "n": 6, "d": 2}, {"mc_tasks": 10**5, "n": 9, "d": 2}]
    assert mc_chunk_tasks(cases[1]) < cases[1]["mc_tasks"]
    assert_declared_is_drawn("softmax_window_oracle", cases, first_chunk)


def test_huge_evaluations_are_refused_before_training(monkeypatch):
    assert_refused_before_training("softmax_window", {"test_tasks": 10**6, "n": 10**5}, monkeypatch)
    assert_refused_before_training("softmax_window_oracle", {"n": 10**6, "d": 1000}, monkeypatch)


def test_eval_points_of_equal_size_are_checked_without_comparing_the_points():
    """Two points with the same test set, one with L_test unset (None) and one set: the check compares sizes only
    (comparing the points themselves raised TypeError, None against a float)."""
    from iclscale.trainer.footprint import check_evaluation

    info = study_info("softmax_window")
    config, unset = info.resolve({}, 0, "t")
    _, tested = info.resolve({"L_test": 2.0}, 0, "t")
    check_evaluation(info, [config], [unset, tested], torch.device("cpu"))

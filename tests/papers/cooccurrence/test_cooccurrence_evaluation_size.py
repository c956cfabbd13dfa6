"""cooccurrence's declared test set is what it draws; a huge one is refused (issue 38)."""

from evaluation_sizes import assert_declared_is_drawn, assert_refused_before_training


def test_the_declared_test_set_is_what_cooccurrence_draws():
    assert_declared_is_drawn("cooccurrence", [{"n_test": 12, "L": 4, "d": 16, "m": 8, "m1": 4}])


def test_a_huge_test_set_is_refused_before_training(monkeypatch):
    assert_refused_before_training("cooccurrence", {"n_test": 6 * 10**5, "L": 1024}, monkeypatch)

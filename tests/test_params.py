import hashlib

import pytest

from iclscale.errors import UserError
from iclscale.trainer.params import Config, Param


def test_run_id_ignores_param_order_and_changes_with_values():
    a = Config("s", (("L", 1.0), ("d", 5)), seed=0)
    b = Config("s", (("d", 5), ("L", 1.0)), seed=0)
    assert a.run_id == b.run_id
    assert a.run_id != Config("s", (("L", 2.0), ("d", 5)), seed=0).run_id
    assert a.run_id != Config("s", (("L", 1.0), ("d", 5)), seed=1).run_id
    assert len(a.run_id) == 16


def test_run_id_is_the_documented_hash():
    # a change here would orphan every stored result: resume keys on run_id
    canonical = b'{"params":{"L":1.0,"d":5},"seed":0,"study":"s"}'
    assert Config("s", (("d", 5), ("L", 1.0)), seed=0).run_id == hashlib.sha256(canonical).hexdigest()[:16]


def test_resolve_canonicalises_types_so_int_and_float_hash_alike(softmax_window):
    one, _ = softmax_window.resolve({"L": 1}, 0, "t")
    other, _ = softmax_window.resolve({"L": 1.0}, 0, "t")
    assert one.run_id == other.run_id and isinstance(one["L"], float)


def test_resolve_splits_eval_params_and_fills_defaults(softmax_window):
    config, point = softmax_window.resolve({"L_test": 2.0, "d": 3}, 4, "t")
    assert dict(point)["L_test"] == 2.0 and "L_test" not in config.as_dict()
    assert config["d"] == 3 and config["n"] == 20 and config.seed == 4


@pytest.mark.parametrize(
    "value, message",
    [
        (0, "must be an integer in [1, 4096]"),
        (2.5, "must be an integer"),
        (True, "must be an integer"),
        ("5", "must be"),
    ],
)
def test_coerce_refuses_wrong_types_and_ranges(value, message):
    p = Param("d", int, 5, "shape", "dimension", low=1, high=4096)
    with pytest.raises(UserError, match=message.replace("[", r"\[").replace("]", r"\]")):
        p.coerce(value, "where")


def test_parse_reads_command_line_text():
    assert Param("L", float, 1.0, "train", "L", low=0, low_open=True).parse("2.5", "w") == 2.5
    assert Param("t", bool, True, "shape", "t").parse("false", "w") is False
    assert Param("x", float, None, "eval", "x", nullable=True).parse("null", "w") is None
    with pytest.raises(UserError, match=r"\(0, inf\)"):
        Param("L", float, 1.0, "train", "L", low=0, low_open=True).parse("0", "w")
    with pytest.raises(UserError, match="one of a, b"):
        Param("c", str, "a", "shape", "c", choices=("a", "b")).parse("z", "w")


def test_non_finite_numbers_are_refused():
    with pytest.raises(UserError):
        Param("L", float, 1.0, "train", "L").parse("nan", "w")


def test_study_checks_cross_param_constraints(softmax_window):
    with pytest.raises(UserError, match="needs d = 2"):
        softmax_window.resolve({"task_class": "hills"}, 0, "t")
    with pytest.raises(UserError, match="k < d"):
        softmax_window.resolve({"task_class": "lowrank_cos", "d": 2, "k": 2}, 0, "t")


def test_train_params_must_be_numbers_because_they_become_per_config_tensors():
    with pytest.raises(ValueError, match="train-role param must be a non-null number"):
        Param("mode", str, "a", "train", "a mode", choices=("a", "b"))
    with pytest.raises(ValueError, match="train-role param must be a non-null number"):
        Param("x", float, None, "train", "x", nullable=True)


def test_a_float_past_the_runs_float_type_is_refused_at_parse(softmax_window):
    """L_test = 1e308 trained and then failed at every eval point (float32 overflow); now refused at parse."""
    with pytest.raises(UserError, match=r"L_test = 1e\+308 is past float32's range"):
        softmax_window.resolve({"L_test": 1e308}, 0, "t")
    with pytest.raises(UserError, match=r"L = 1e\+39 is past float32's range"):
        softmax_window.resolve({"L": 1e39}, 0, "t")
    softmax_window.resolve({"L_test": 3e38}, 0, "t")
    softmax_window.resolve({"L_test": 1e308, "dtype": "float64"}, 0, "t")

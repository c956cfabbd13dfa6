"""Cost before commitment (issue 39): a sweep's wall time predicted from the committed run's timed sweeps
(iclscale.sweeps.cost), printed by `sweep plan`, `iclscale sweeps` and `reproduce` before anything trains."""

import json

from iclscale.sweeps.cost import EarlierRun, cost_text, earlier_runs, predicted_seconds
from iclscale.sweeps.plan import describe_plan, make_plan
from iclscale.sweeps.spec import parse_sweep

EARLIER = {
    "a": EarlierRun("a", "softmax_window", 100.0, 10_000, 10),
    "b": EarlierRun("b", "softmax_window", 300.0, 10_000, 10),
    "oracle": EarlierRun("oracle", "softmax_window_oracle", 600.0, 0, 60),
}


def test_the_same_sweep_scales_by_model_steps_or_by_configs_where_it_trains_nothing():
    assert predicted_seconds("a", "softmax_window", 20_000, 5, EARLIER) == 200.0
    assert predicted_seconds("oracle", "softmax_window_oracle", 0, 30, EARLIER) == 300.0


def test_another_sweep_of_the_study_gives_its_median_rate_and_an_unknown_study_nothing():
    assert predicted_seconds("new", "softmax_window", 5_000, 5, EARLIER) == 0.02 * 5_000  # median of 0.01, 0.03
    assert predicted_seconds("new", "a_study_never_run", 5_000, 5, EARLIER) is None
    assert predicted_seconds("new", "softmax_window_oracle", 0, 5, EARLIER) is None


def test_the_text_says_whose_rate_it_is():
    assert cost_text(None) == ""
    assert cost_text(42) == "≈ 42 s (at the committed run's rate)"
    assert cost_text(720) == "≈ 12 min (at the committed run's rate)"
    assert cost_text(9000).startswith("≈ 2.5 h")


def test_earlier_runs_read_a_ledger_and_skip_sweeps_without_model_steps(tmp_path):
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"sweeps": [
        {"sweep": "a", "study": "s", "train_time_s": 12.5, "model_steps": 100, "configs": 4},
        {"sweep": "old", "study": "s", "train_time_s": 9.0, "configs": 4},  # a ledger from before model_steps
        {"sweep": "untimed", "study": "s", "train_time_s": 0, "model_steps": 5, "configs": 1},
    ]}), encoding="utf-8")  # fmt: skip
    assert earlier_runs(path) == {"a": EarlierRun("a", "s", 12.5, 100, 4)}
    assert earlier_runs(tmp_path / "missing.json") == {}
    (tmp_path / "bad.json").write_text("[1, 2]", encoding="utf-8")
    assert earlier_runs(tmp_path / "bad.json") == {}


def test_sweep_plan_prints_the_prediction_beside_its_model_steps():
    sweep = parse_sweep({"name": "a", "study": "softmax_window", "fixed": {"steps": 100}, "grid": {"L": [1.0, 2.0]},
                         "seeds": 2}, "t")  # fmt: skip
    plan = make_plan(sweep, {})
    assert plan.model_steps == 400
    line = next(x for x in describe_plan(plan, "out", EARLIER).splitlines() if x.startswith("model-steps"))
    assert line == "model-steps to train: 400 of 400; ≈ 4 s (at the committed run's rate)"
    assert "≈" not in describe_plan(plan, "out", {})

"""The `threshold:` block of a sweep file: a good block parses to itself through the frozen sweep; a bad one
is refused with one line naming the file and key, exit 2, before anything runs."""

from pathlib import Path

import pytest
import yaml

from iclscale.cli import main
from iclscale.sweeps.spec import load_sweep, parse_frozen

BASE = {
    "name": "t",
    "study": "nonlinear_icl",
    "fixed": {"steps": 20, "probe_prompts": 4},
    "grid": {"alpha": [0.4, 0.8]},
    "seeds": 2,
    "eval": {"alpha_test": 0.6, "l_ts": 20, "eval_prompts": 64},
    "record_every": 20,
}
L_TR = {"axis": "l_tr", "range": [1, 12], "resolution": 1, "metric": "test_error", "level": 0.01}


def _write(tmp_path: Path, threshold, **changes) -> Path:
    raw = {**BASE, **changes, "threshold": threshold}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in raw.items() if v is not None}, sort_keys=False))
    return path


def test_a_threshold_block_is_read_with_its_defaults_and_survives_the_frozen_round_trip(tmp_path):
    sweep = load_sweep(_write(tmp_path, L_TR))
    spec = sweep.threshold
    assert (spec.axis, spec.role, spec.low, spec.high, spec.integer) == ("l_tr", "shape", 1, 12, True)
    assert (spec.find, spec.meets, spec.over, spec.scale, spec.check_far_end) == (
        "smallest",
        "below",
        "seed",
        "linear",
        False,
    )
    assert spec.criterion_text() == "test_error ≤ 0.01 at the final record"
    frozen = yaml.safe_load(yaml.safe_dump(sweep.resolved(), sort_keys=False))
    assert parse_frozen(frozen, "frozen").threshold == spec


BROKEN = [
    ({"axis": "width"}, "threshold.axis: unknown param 'width'"),
    ({"axis": "domain"}, "threshold.axis: domain is one of id, id_train, ood; a threshold axis must be a number"),
    ({"axis": "alpha"}, "threshold.axis: alpha is also in grid"),
    ({"level": "small"}, "threshold.level: a level must be a number, got 'small'"),
    ({"level": True}, "threshold.level: a level must be a number"),
    ({"resolution": 0}, "threshold.resolution: must be > 0"),
    ({"resolution": -1}, "threshold.resolution: must be > 0"),
    ({"range": [12, 1]}, "threshold.range: expected low < high"),
    ({"range": [0, 12], "scale": "log"}, "threshold.range: l_tr must be"),
    ({"find": "least"}, "threshold.find: expected smallest or largest, got 'least'"),
    ({"colour": 1}, "unknown key 'colour' (allowed: axis, range, resolution"),
    ({"metric": None}, "threshold: missing key 'metric'"),
    ({"within": 0}, "threshold.within: expected a positive step count"),
    ({"within": 400}, "threshold.within: step 400 is past the end of training (20 steps)"),
    (
        {"axis": "l_ts", "range": [2, 40], "within": 10},
        "threshold.within: l_ts is an eval-role param, searched on each trained model at its final step",
    ),
    ({"axis": "l_ts", "range": [2, 40], "over": "median"}, "threshold.over: l_ts is an eval-role param"),
    ({"axis": "l_ts", "range": [2, 40], "warm_start": True}, "threshold.warm_start: l_ts is an eval-role param"),
    (
        {"axis": "l_ts", "range": [2, 40], "metric": "train_loss"},
        "threshold.metric: train_loss is not measured at eval points (the same for every l_ts)",
    ),
    ({"axis": "l_ts", "range": [2, 40], "metric": "nope"}, "threshold.metric: study nonlinear_icl reports no metric"),
    ({"warm_start": "beta"}, "threshold.warm_start: 'beta' is not a grid axis (grid axes: alpha)"),
    ({"warm_start": "alpha"}, "threshold.trend: warm_start along alpha needs the threshold's direction along it"),
    ({"warm_start": "alpha", "trend": "down"}, "threshold.trend: warm_start along alpha needs"),
    ({"trend": "decreasing"}, "threshold.trend: a trend orders a chain; give it with warm_start: AXIS"),
    ({"warm_start": 3}, "threshold.warm_start: expected true, false or a grid axis, got 3"),
]


@pytest.mark.parametrize(("changes", "message"), BROKEN, ids=[f"case{i}" for i in range(len(BROKEN))])
def test_a_bad_threshold_block_gets_one_line_and_exit_2_before_anything_runs(tmp_path, capsys, changes, message):
    block = {k: v for k, v in {**L_TR, **changes}.items() if v is not None}
    eval_ = {"alpha_test": 0.6, "eval_prompts": 64} if changes.get("axis") == "l_ts" else BASE["eval"]
    path = _write(tmp_path, block, eval=eval_)
    out = tmp_path / "out"
    code = main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert message in err and f"sweep file {path}" in err
    assert not out.exists()


def test_an_eval_axis_block_and_a_chain_survive_the_frozen_round_trip(tmp_path):
    eval_block = {**L_TR, "axis": "l_ts", "range": [2, 40], "scale": "log"}
    sweep = load_sweep(_write(tmp_path, eval_block, eval={"alpha_test": [0.5, 1.0], "eval_prompts": 64}))
    spec = sweep.threshold
    assert (spec.role, spec.warm_start, spec.check_far_end, spec.chain) == ("eval", False, True, None)
    frozen = yaml.safe_load(yaml.safe_dump(sweep.resolved(), sort_keys=False))
    assert parse_frozen(frozen, "frozen").threshold == spec
    chained = load_sweep(_write(tmp_path, {**L_TR, "warm_start": "alpha", "trend": "decreasing"})).threshold
    assert (chained.chain, chained.trend) == ("alpha", "decreasing")
    frozen = yaml.safe_load(yaml.safe_dump(load_sweep(tmp_path / "sweep.yaml").resolved(), sort_keys=False))
    assert parse_frozen(frozen, "frozen").threshold == chained


def test_threshold_and_search_together_are_refused(tmp_path, capsys):
    search = {"metric": "test_error", "params": {"lr": {"low": 0.1, "high": 1.0}}, "trials": 2}
    path = _write(tmp_path, L_TR, search=search)
    assert main(["sweep", "plan", str(path)]) == 2
    assert "give search (tune params) or threshold (find a crossing), not both" in capsys.readouterr().err

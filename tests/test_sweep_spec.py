"""Sweep files are validated before anything runs: one clear message, exit 2, nothing written."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from iclscale.cli import main
from iclscale.errors import UserError
from iclscale.paper import sweep_files
from iclscale.sweeps.limits import Limits
from iclscale.sweeps.spec import load_sweep

GOOD = {
    "name": "t",
    "study": "softmax_window",
    "fixed": {"d": 3, "steps": 20},
    "grid": {"L": [0.5, 1.0], "n": [5, 10]},
    "seeds": 2,
    "eval": {"L_test": [None, 2.0]},
    "record_every": 10,
}


def _write(tmp_path: Path, **changes) -> Path:
    raw = {k: v for k, v in {**GOOD, **changes}.items() if v is not None}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def test_a_good_sweep_expands_into_configs_and_eval_points(tmp_path):
    sweep = load_sweep(_write(tmp_path))
    configs = sweep.configs()
    assert len(configs) == 2 * 2 * 2
    assert len({c.run_id for c in configs}) == 8
    assert [dict(p)["L_test"] for p in sweep.eval_points()] == [None, 2.0]
    assert all(c["d"] == 3 and c["steps"] == 20 for c in configs)


def test_cases_cross_the_grid(tmp_path):
    sweep = load_sweep(_write(tmp_path, cases=[{"task_class": "cos"}, {"task_class": "affine", "sigma": 0.1}]))
    configs = sweep.configs()
    assert len(configs) == 2 * 4 * 2
    assert {c["task_class"] for c in configs} == {"cos", "affine"}


BROKEN = [
    ({"study": "nope"}, "study: unknown study 'nope'"),
    ({"grid": {"Lz": [1.0]}}, "grid.Lz: unknown param 'Lz' for study softmax_window; did you mean 'L'?"),
    ({"grid": {"L": ["abc"]}}, "grid.L: L must be a number in (0, inf), got 'abc'"),
    ({"grid": {"L": [-1.0]}}, "grid.L: L must be a number in (0, inf), got -1.0"),
    ({"grid": {"d": [2.5]}}, "grid.d: d must be an integer"),
    ({"grid": {"L": []}}, "grid.L: empty axis"),
    ({"grid": {"L": 1.0}}, "grid.L: a grid axis must be a list"),
    ({"fixed": {"L": 1.0, "d": 3}}, "param 'L' is given twice, in fixed and in grid"),
    ({"grid": {"L_test": [1.0]}}, "grid.L_test: L_test is an eval-role param of softmax_window; put it under eval"),
    (
        {"eval": {"sigma": [0.1]}},
        "eval.sigma: sigma is a train-role param of softmax_window; put it under fixed or grid",
    ),
    ({"eval": {"L_test": []}}, "eval.L_test: empty axis"),
    ({"seeds": 0}, "seeds: a seed count must be at least 1"),
    ({"seeds": [1, 1]}, "seeds: a seed appears twice"),
    ({"record_every": 0}, "record_every: expected a positive integer"),
    ({"resources": {"gpus": 1}}, "resources.gpus: unknown key 'gpus'; did you mean 'gpu'?"),
    ({"resources": {"pack_size": 0}}, "resources.pack_size: expected a positive integer or auto"),
    ({"fixed": {"task_class": "hills", "steps": 20, "d": 3}}, "needs d = 2"),
    ({"colour": "red"}, "unknown key 'colour'"),
    ({"name": "bad name!"}, "name: must be at most 100 letters"),
    ({"grid": {"L": [1.0, 1.0]}}, "a value appears twice"),
    ({"laws": ["no_such_law"]}, "laws: unknown law 'no_such_law'"),
]


@pytest.mark.parametrize("changes, message", BROKEN, ids=[m.split(":")[0][:30] for _, m in BROKEN])
def test_broken_sweep_files_get_one_message_naming_the_key_and_exit_2(tmp_path, capsys, changes, message):
    path = _write(tmp_path, **changes)
    out = tmp_path / "results"
    assert main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert message in err and str(path) in err
    assert not out.exists()  # nothing written


def test_not_yaml_and_missing_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(UserError, match="not valid YAML"):
        load_sweep(bad)
    with pytest.raises(UserError, match="no such file"):
        load_sweep(tmp_path / "missing.yaml")


def test_the_command_line_prints_no_traceback(tmp_path):
    path = _write(tmp_path, grid={"L": ["abc"]})
    done = subprocess.run([sys.executable, "-m", "iclscale.cli", "sweep", "plan", str(path)],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.startswith("iclscale: error: sweep file")


def test_every_catalogue_sweep_file_is_valid(capsys):
    files = sweep_files()
    assert files, "the sweep catalogue is empty"
    for path in files:
        assert main(["sweep", "plan", str(path), "--out", "/nonexistent/results"]) == 0, capsys.readouterr().err


OOD = {"name": "t", "study": "feature_selector", "seeds": 1, "eval": {"domain": ["id", "ood"], "ood_M2": [4, 8]}}


def test_cross_role_checks_see_each_assignment_with_each_eval_point(tmp_path):
    """feature_selector's out-of-domain ν′ need spare axes past M1 + M2: whether there are enough depends on d_x
    (a shape param) and ood_M2 (an eval param), so they are checked together, case by case."""
    ok = {**OOD, "fixed": {"steps": 10}, "cases": [{"d_x": 28}, {"d_x": 32}]}
    sweep = load_sweep(_write(tmp_path, **ok, grid=None, record_every=None))
    assert len(sweep.configs()) == 2 and len(sweep.eval_points()) == 4
    short = {**OOD, "fixed": {"steps": 10}, "cases": [{"d_x": 32}, {"d_x": 26}]}
    with pytest.raises(UserError) as refused:
        load_sweep(_write(tmp_path, **short, grid=None, record_every=None))
    message = str(refused.value)
    assert "the combination {d_x=26} at eval point {domain='ood', ood_M2=8}" in message
    assert "need 8 spare axes past M1 + M2 = 20, d_x = 26 has 6" in message


def test_the_record_cap_refuses_before_planning_and_the_flag_raises_it(tmp_path, capsys):
    path = _write(tmp_path, record_every=None, record={"log": 150_000})
    assert main(["sweep", "plan", str(path)]) == 2
    assert "past the cap of 100,000; record less often" in capsys.readouterr().err
    raised = load_sweep(path, limits=Limits(max_records=200_000))  # --max-records 200000
    assert raised.record.records(0) == 150_002
    assert main(["sweep", "plan", str(path), "--max-records", "200000"]) == 0
    assert main(["sweep", "plan", str(path), "--max-records", "0"]) == 2

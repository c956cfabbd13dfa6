"""The result store: atomic fragments, resume without duplicates, failed packs, the reader."""

import pyarrow.parquet as pq
import pytest
import yaml

from iclscale.cli import main
from iclscale.errors import UserError
from iclscale.sweeps.execute import SweepContext, record_failure, run_pack
from iclscale.sweeps.plan import make_plan
from iclscale.sweeps.spec import parse_sweep
from iclscale.sweeps.store import Location
from iclscale.sweeps.store_frozen import write_frozen_sweep
from iclscale.sweeps.store_read import read_store, stored_keys

RAW = {
    "name": "store_test",
    "study": "softmax_window",
    "fixed": {"d": 3, "n": 8, "steps": 20},
    "grid": {"L": [0.5, 2.0], "sigma": [0.1, 0.3]},
    "seeds": 2,
    "eval": {"L_test": [None, 3.0]},
    "record_every": 10,
    "resources": {"pack_size": 3},
}


def _run(tmp_path, raw=RAW, name="sweep.yaml", *extra, code=0):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(raw))
    out = tmp_path / "out"
    assert main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet", *extra]) == code
    return out


def _raw_runs(out):
    tables = [pq.read_table(p) for p in sorted((out / "runs").glob("*.parquet"))]
    return [
        row
        for t in tables
        for row in zip(t.column("run_id").to_pylist(), t.column("eval_key").to_pylist(), strict=True)
    ]


def test_a_sweep_stores_every_config_and_eval_point_once(tmp_path):
    out = _run(tmp_path)
    rows = _raw_runs(out)
    assert len(rows) == len(set(rows)) == 8 * 2
    data = read_store(out)
    assert set(data.runs["status"]) == {"ok"}
    assert {"L", "sigma", "L_test", "M_spectral_norm", "test_mse", "git_commit", "device", "pack_id"} <= set(data.runs)
    assert data.sweep["study"] == "softmax_window" and data.sweep["grid"]["L"] == [0.5, 2.0]
    probe = data.curves[data.curves["metric"] == "M_spectral_norm"]
    assert probe["eval_key"].isna().all() and len(probe) == 8 * 3  # steps 0, 10, 20
    assert len(data.curves[data.curves["metric"] == "test_mse"]) == 8 * 2 * 3


def test_rerunning_trains_nothing_and_a_grown_grid_trains_only_new_configs(tmp_path):
    out = _run(tmp_path)
    before = {p.name for p in (out / "runs").glob("*.parquet")}
    _run(tmp_path)
    assert {p.name for p in (out / "runs").glob("*.parquet")} == before
    grown = {**RAW, "grid": {"L": [0.5, 2.0, 4.0], "sigma": [0.1, 0.3]}}
    sweep = parse_sweep(grown, "grown")
    plan = make_plan(sweep, stored_keys(Location(out)))
    assert sum(len(p.configs) for p in plan.packs) == 4
    assert all(c["L"] == 4.0 for p in plan.packs for c in p.configs)
    _run(tmp_path, grown)
    rows = _raw_runs(out)
    assert len(rows) == len(set(rows)) == 12 * 2


def test_a_grown_eval_grid_writes_only_the_missing_rows(tmp_path):
    out = _run(tmp_path)
    _run(tmp_path, {**RAW, "eval": {"L_test": [None, 3.0, 0.25]}})
    rows = _raw_runs(out)
    assert len(rows) == len(set(rows)) == 8 * 3
    curves = read_store(out).curves
    probe = curves[curves["metric"] == "M_spectral_norm"]
    assert len(probe) == len(probe.drop_duplicates(["run_id", "step"]))  # eval-independent curves not repeated


def test_a_fragment_is_invisible_until_its_runs_file_is_committed(tmp_path, monkeypatch):
    sweep = parse_sweep(RAW, "t")
    out = tmp_path / "out"
    plan = make_plan(sweep, {})
    context = SweepContext(sweep.name, sweep.study.name, sweep.record, str(out))
    real_write = Location._put

    def crash_on_runs(self, where, data):
        if "/runs/" in str(where) and "/digests/" not in str(where):
            raise OSError("disk full")
        return real_write(self, where, data)

    monkeypatch.setattr(Location, "_put", crash_on_runs)
    with pytest.raises(OSError):
        run_pack(context, plan.packs[0], "cpu")
    monkeypatch.setattr(Location, "_put", real_write)
    assert list((out / "curves").glob("*.parquet"))  # the curves got written ...
    assert not list((out / "runs").iterdir())  # ... but no runs file, not even a temp file
    assert stored_keys(Location(out)) == {}
    run_pack(context, plan.packs[0], "cpu")  # resuming rewrites the same fragment
    data = read_store(out)
    assert len(data.runs) == len(plan.packs[0].configs) * 2
    assert set(data.curves["run_id"]) == set(data.runs["run_id"])


def test_a_retried_pack_is_not_stored_twice(tmp_path):
    sweep = parse_sweep(RAW, "t")
    plan = make_plan(sweep, {})
    context = SweepContext(sweep.name, sweep.study.name, sweep.record, str(tmp_path / "out"))
    run_pack(context, plan.packs[0], "cpu")
    assert run_pack(context, plan.packs[0], "cpu").get("skipped") == 1
    assert len(_raw_runs(tmp_path / "out")) == len(plan.packs[0].configs) * 2


def test_failed_packs_are_stored_then_retried_and_replaced(tmp_path, capsys):
    sweep = parse_sweep(RAW, "t")
    out = tmp_path / "out"
    (tmp_path / "sweep.yaml").write_text(yaml.safe_dump(RAW))
    plan = make_plan(sweep, {})
    context = SweepContext(sweep.name, sweep.study.name, sweep.record, str(out))
    write_frozen_sweep(Location(out), sweep.resolved())  # as `sweep run` does before its first pack
    record_failure(context, plan.packs[0], "CUDA out of memory (simulated)")
    data = read_store(out)
    assert set(data.runs["status"]) == {"failed"} and data.runs["error"].str.contains("out of memory").all()
    failed = len(plan.packs[0].configs)
    capsys.readouterr()
    _run(tmp_path, code=1)  # a plain re-run trains what is missing and keeps the failures, exit 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{failed} of the 8 configs failed (first: CUDA out of memory (simulated))" in err[0]
    assert "--retry-failed" in err[0]
    assert list((out / "runs").glob("failed-*")) and (read_store(out).runs["status"] == "failed").sum() == failed * 2
    _run(tmp_path, RAW, "sweep.yaml", "--retry-failed")  # asked: the failed configs are trained again
    data = read_store(out)
    assert set(data.runs["status"]) == {"ok"} and len(data.runs) == 16
    assert not list((out / "runs").glob("failed-*"))  # the superseded failure is gone
    capsys.readouterr()
    assert main(["sweep", "status", str(out)]) == 0
    assert "8 configs: 8 ok, 0 diverged, 0 failed, 0 missing" in capsys.readouterr().out


def test_status_counts_ok_diverged_failed_and_missing(tmp_path, capsys):
    raw = {**RAW, "grid": {"L": [0.5, 2.0], "lr": [0.1, 1e30]}}
    out = _run(tmp_path, raw)
    sweep = parse_sweep(raw, "t")
    context = SweepContext(sweep.name, sweep.study.name, sweep.record, str(out))
    grown = parse_sweep({**raw, "grid": {"L": [0.5, 2.0, 4.0], "lr": [0.1, 1e30]}}, "t2")
    (out / "sweep.yaml").write_text(yaml.safe_dump({**grown.resolved(), "params": None}))
    new = make_plan(grown, stored_keys(Location(out)))
    record_failure(context, new.packs[0], "boom")
    capsys.readouterr()
    assert main(["sweep", "status", str(out)]) == 0
    line = capsys.readouterr().out
    failed = len(new.packs[0].configs)
    assert f"12 configs: 4 ok, 4 diverged, {failed} failed, {4 - failed} missing" in line


def test_reading_a_missing_or_empty_directory_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        read_store(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="holds no runs"):
        read_store(tmp_path / "empty")
    assert main(["sweep", "status", str(tmp_path / "nothing")]) == 2


def test_train_out_writes_a_store(tmp_path, capsys):
    out = tmp_path / "one"
    assert main(["train", "softmax_window", "--set", "steps=30", "--set", "d=3", "--out", str(out), "--json"]) == 0
    data = read_store(out)
    assert len(data.runs) == 1 and data.runs["steps"].iloc[0] == 30
    assert set(data.curves["step"]) == {0, 30}


def test_a_float64_sweep_with_log_spaced_records_stores_both(tmp_path):
    """The recipe is stored with the results (dtype is a column), and a log-spaced record schedule puts the
    curves at exactly the requested steps."""
    from iclscale.trainer.params import RecordSchedule

    raw = {**RAW, "fixed": {"d": 3, "n": 8, "steps": 300, "dtype": "float64"}, "grid": {"L": [0.5, 2.0]}}
    raw.pop("record_every")
    raw["record"] = {"log": 7}
    out = _run(tmp_path, raw)
    data = read_store(out)
    assert set(data.runs["dtype"]) == {"float64"} and set(data.runs["optimizer"]) == {"adam"}
    steps = sorted(set(data.curves.loc[data.curves["metric"] == "M_spectral_norm", "step"]))
    assert steps == RecordSchedule(log=7).record_steps(300) == [0, 1, 3, 7, 17, 45, 116, 300]
    assert data.sweep["record"] == {"log": 7}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"fixed": {"optimizer": "rmsprop"}}, "optimizer must be one of adam, sgd, gd"),
        ({"fixed": {"lr": -0.1}}, "lr must be a number in (0, inf)"),
        ({"fixed": {"dtype": "float16"}}, "dtype must be one of float32, float64"),
        ({"record": {"steps": []}}, "the list is empty"),
        ({"fixed": {"schedule": "cosine"}}, "lr_decay = 0.999 applies to the exponential schedule only"),
    ],
)
def test_bad_recipe_values_are_refused_before_anything_trains(tmp_path, capsys, change, message):
    raw = {k: v for k, v in RAW.items() if k != "record_every"}
    raw = {**raw, **change, "fixed": {**RAW["fixed"], **change.get("fixed", {})}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(raw))
    out = tmp_path / "out"
    assert main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    assert not out.exists()

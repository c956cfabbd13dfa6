"""A store that plain readers can trust and faults cannot block: typed columns, one row per
(config, eval point), corrupted fragments moved aside and retrained, one writer at a time."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from iclscale.cli import main
from iclscale.sweeps.plan import PackPlan
from iclscale.sweeps.rows import pack_tables
from iclscale.sweeps.spec import parse_sweep
from iclscale.sweeps.store import eval_key
from iclscale.trainer.registry import study_info

RAW = {
    "name": "faults",
    "study": "softmax_window",
    "fixed": {"d": 3, "n": 8, "steps": 20},
    "grid": {"L": [0.5, 2.0], "lr": [0.1, 1e30]},  # lr 1e30 diverges
    "seeds": 2,
    "eval": {"L_test": [None, 3.0]},
    "record_every": 10,
    "resources": {"pack_size": 3},
}
CONFIGS, POINTS = 8, 2


def _run(tmp_path: Path, *extra: str, raw=RAW) -> tuple[int, Path]:
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(raw))
    out = tmp_path / "out"
    return main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet", *extra]), out


def _keys(out: Path) -> list[tuple[str, str]]:
    table = pq.read_table(out / "runs", columns=["run_id", "eval_key"])  # a plain reader of the folder
    return list(zip(table["run_id"].to_pylist(), table["eval_key"].to_pylist(), strict=True))


def test_plain_readers_see_one_row_per_config_and_eval_point_with_one_schema(tmp_path):
    code, out = _run(tmp_path)
    assert code == 0
    _run(tmp_path, "eval.L_test=[null, 3.0, 0.25]")  # a grown eval grid writes more fragments
    schemas = [pq.read_schema(p) for p in sorted((out / "runs").glob("*.parquet"))]
    assert len(schemas) >= 4 and all(s.equals(schemas[0]) for s in schemas), "fragments disagree on columns"
    curve_schemas = [pq.read_schema(p) for p in sorted((out / "curves").glob("*.parquet"))]
    assert all(s.equals(curve_schemas[0]) for s in curve_schemas)
    runs = pd.read_parquet(out / "runs")
    assert len(runs) == CONFIGS * 3 == len(runs.drop_duplicates(["run_id", "eval_key"]))
    assert schemas[0].field("diverged_step").type == pa.int64() and schemas[0].field("test_tasks").type == pa.int64()
    assert (
        curve_schemas[0].field("test_tasks").type == pa.int64()
        and curve_schemas[0].field("L_test").type == pa.float64()
    )
    diverged = runs[runs["status"] == "diverged"]
    assert len(diverged) == 4 * 3 and diverged["diverged_step"].notna().all()
    assert diverged["test_mse"].isna().all() and diverged["M_spectral_norm"].isna().all()  # NaN, not stale values
    ok = runs[runs["status"] == "ok"]
    assert ok["diverged_step"].isna().all() and ok["test_mse"].notna().all()
    rows, distinct = duckdb.sql(
        f"select count(*), count(distinct (run_id, eval_key)) from read_parquet('{out}/runs/*.parquet')"
    ).fetchall()[0]
    assert rows == distinct == CONFIGS * 3
    frozen = yaml.safe_load((out / "sweep.yaml").read_text())
    assert frozen["params"]["sigma"]["symbol"] == "σ" and "noise" in frozen["params"]["sigma"]["meaning"]
    assert frozen["overrides"] == ["eval.L_test=[null, 3.0, 0.25]"] and frozen["eval"]["L_test"] == [None, 3.0, 0.25]


@pytest.mark.parametrize("folder, damage", [("runs", "truncate"), ("runs", "garbage"), ("curves", "garbage")])
def test_a_corrupted_fragment_is_named_moved_aside_and_retrained(tmp_path, capsys, folder, damage):
    code, out = _run(tmp_path)
    assert code == 0
    victim = sorted((out / folder).glob("pack-*.parquet"))[0]
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 2] if damage == "truncate" else b"not parquet at all" * 50)
    capsys.readouterr()
    assert main(["sweep", "status", str(out)]) == 0  # status still works, and names the fragment
    captured = capsys.readouterr()
    assert victim.name in captured.err and "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert _run(tmp_path)[0] == 0  # moves it aside and retrains its configs
    said = capsys.readouterr()
    assert "moved damaged fragment aside" in said.out and victim.name in said.out
    assert (out / "quarantine" / f"{folder}-{victim.name}").read_bytes()[:18] in (data[:18], b"not parquet at all")
    keys = _keys(out)
    assert len(keys) == len(set(keys)) == CONFIGS * POINTS  # every config stored exactly once
    assert main(["sweep", "status", str(out)]) == 0
    assert f"{CONFIGS} configs: 4 ok, 4 diverged, 0 failed, 0 missing" in capsys.readouterr().out


def test_a_superseded_failed_row_is_gone_for_plain_readers(tmp_path):
    from iclscale.sweeps.execute import SweepContext, record_failure
    from iclscale.sweeps.plan import make_plan

    sweep = parse_sweep(RAW, "t")
    out = tmp_path / "out"
    from iclscale.sweeps.store import Location
    from iclscale.sweeps.store_frozen import write_frozen_sweep

    context = SweepContext(sweep.name, sweep.study.name, sweep.record, str(out))
    write_frozen_sweep(Location(out), sweep.resolved())  # as `sweep run` does before its first pack
    record_failure(context, make_plan(sweep, {}).packs[0], "simulated failure")
    assert _run(tmp_path)[0] == 1  # the failure is kept (and counted) until asked
    assert _run(tmp_path, "--retry-failed")[0] == 0
    runs = pd.read_parquet(out / "runs")
    assert len(runs) == CONFIGS * POINTS and "failed" not in set(runs["status"])


@pytest.mark.slow
def test_a_second_run_into_the_same_directory_refuses_and_names_the_first(tmp_path):
    long = {**RAW, "fixed": {**RAW["fixed"], "steps": 1500}, "resources": {"pack_size": 2}}
    first_file, second_file = tmp_path / "first.yaml", tmp_path / "second.yaml"
    first_file.write_text(yaml.safe_dump(long))
    second_file.write_text(yaml.safe_dump({**long, "resources": {"pack_size": 3}}))
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "iclscale.cli",
        "sweep",
        "run",
        "--executor",
        "inline",
        "--quiet",
        "--out",
        str(out),
    ]
    first = subprocess.Popen([*command, str(first_file)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lock = out / ".writer.lock"
    deadline = time.monotonic() + 120
    while not (lock.exists() and lock.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    second = subprocess.run([*command, str(second_file)], capture_output=True, text=True, timeout=120)
    _, first_err = first.communicate(timeout=600)
    assert first.returncode == 0, first_err[-2000:]
    assert second.returncode == 2 and len(second.stderr.strip().splitlines()) == 1, second.stderr
    assert "being written by another sweep run" in second.stderr and f"pid {first.pid}" in second.stderr
    third = subprocess.run([*command, str(second_file)], capture_output=True, text=True, timeout=300)
    assert third.returncode == 0, third.stderr
    keys = _keys(out)
    assert len(keys) == len(set(keys)) == CONFIGS * POINTS


def test_two_writers_without_the_lock_leave_no_duplicate_after_the_next_run(tmp_path):
    """What an object store (no lock) or an old version could leave: the same configs stored by two
    packings. The next run's compaction keeps one row per (config, point) and their curves once."""
    _, out = _run(tmp_path)
    other = tmp_path / "other"
    _run(other.mkdir() or other, "pack_size=5")
    for folder in ("runs", "curves"):
        for fragment in (other / "out" / folder).glob("*.parquet"):
            os.replace(fragment, out / folder / fragment.name)
    assert len(_keys(out)) == 2 * CONFIGS * POINTS
    assert _run(tmp_path)[0] == 0
    keys = _keys(out)
    assert len(keys) == len(set(keys)) == CONFIGS * POINTS
    curves = pd.read_parquet(out / "curves")
    assert not curves.duplicated(["run_id", "step", "metric", "eval_key"]).any()


@dataclass
class _Result:
    """The trainer's PackResult as iclscale.sweeps.rows reads it (eval_errors: the trainer's per-point errors)."""

    record_steps: list[int]
    probes: dict
    evals: dict
    status: list[str]
    diverged_step: list[int | None]
    wall_time: float = 0.5
    device: str = "cpu"
    eval_errors: dict = field(default_factory=dict)


def test_an_eval_point_that_fails_fails_only_its_own_rows():
    info = study_info("softmax_window")
    sweep = parse_sweep({**RAW, "grid": {"L": [0.5, 2.0, 4.0]}, "seeds": 1, "eval": {"L_test": [1.0, 1e30]}}, "t")
    configs, points = sweep.configs(), sweep.eval_points()
    keys = [eval_key(p) for p in points]
    pack = PackPlan("p", configs, points, {(c.run_id, k) for c in configs for k in keys}, {c.run_id for c in configs})
    ones = [np.ones(3), np.full(3, 2.0)]
    result = _Result(
        record_steps=[0, 20],
        probes={"M_spectral_norm": ones},
        evals={points[0]: {"test_mse": ones}},  # the second point has no metrics: its evaluation raised
        status=["ok", "diverged", "ok"],
        diverged_step=[None, 7, None],
        eval_errors={points[0]: None, points[1]: "OverflowError: L_test too large"},
    )
    runs, curves = pack_tables(info, "t", pack, result, {"device": "cpu", "node": "n", "iclscale_version": "0",
                                                         "git_commit": "c"})  # fmt: skip
    table = runs.to_pandas()
    bad = table[table["L_test"] == 1e30]
    assert (bad["status"] == "failed").all() and bad["error"].str.contains("OverflowError").all()
    assert bad["test_mse"].isna().all()
    good = table[table["L_test"] == 1.0].set_index("run_id").loc[[c.run_id for c in configs]]
    assert list(good["status"]) == ["ok", "diverged", "ok"] and list(good["diverged_step"].fillna(-1)) == [-1, 7, -1]
    assert good["test_mse"].iloc[0] == 2.0 and np.isnan(good["test_mse"].iloc[1])
    assert set(curves.column("eval_key").drop_null().to_pylist()) == {keys[0]}
    diverged_curves = curves.filter(pa.compute.equal(curves["run_id"], configs[1].run_id)).to_pandas()
    assert set(diverged_curves["step"]) == {0}  # only records before it diverged


def test_a_garbage_frozen_sweep_is_one_line_for_every_command(tmp_path, capsys):
    code, out = _run(tmp_path)
    assert code == 0
    run = ["sweep", "run", str(tmp_path / "sweep.yaml"), "--out", str(out), "--executor", "inline"]
    for content in (b"- just\n- a list\n", b"\xff\xfe garbage", b"name: [unclosed\n", b"a: 1\n"):
        (out / "sweep.yaml").write_bytes(content)
        capsys.readouterr()
        for argv in (["sweep", "status", str(out)], ["report", str(out)], run):
            assert main(argv) == 2, argv
            err = capsys.readouterr().err
            assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "sweep.yaml" in err, err


UNEVALUABLE = 1.0e30
"""An L_test whose evaluation the `unevaluable` fixture makes raise: a value past float range, which once did,
is refused at parse now (issue 38), so the failure that must fail only its rows is planted."""


@pytest.fixture
def unevaluable(monkeypatch):
    from iclscale.trainer.measuring import Measurer

    evaluate = Measurer.evaluate

    def failing(self, net, point, final):
        if point.get("L_test") == UNEVALUABLE:
            raise OverflowError("value cannot be converted to type float without overflow")
        return evaluate(self, net, point, final)

    monkeypatch.setattr(Measurer, "evaluate", failing)


def test_an_eval_value_that_overflows_fails_its_rows_only_in_a_real_sweep(tmp_path, unevaluable):
    raw = {**RAW, "grid": {"L": [0.5, 2.0]}, "eval": {"L_test": [1.0, UNEVALUABLE]}}
    assert _run(tmp_path, raw=raw)[0] == 1  # failures fail: the count and the first reason, exit 1
    runs = pd.read_parquet(tmp_path / "out" / "runs")
    assert set(runs[runs["L_test"] == 1.0]["status"]) == {"ok"}
    failed = runs[runs["L_test"] == UNEVALUABLE]
    assert set(failed["status"]) == {"failed"} and failed["error"].notna().all()


def test_a_deterministic_failure_is_kept_not_retrained_by_every_run(tmp_path, capsys, unevaluable):
    """Every config fails at its eval point (planted): stored as failed with the reason, exit 1 on this run and
    every later one, retrained only when asked (--retry-failed)."""
    raw = {**RAW, "grid": {"L": [0.5, 2.0]}, "seeds": 1, "eval": {"L_test": [UNEVALUABLE]}}
    assert _run(tmp_path, raw=raw)[0] == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("iclscale: error: 2 of the 2 configs failed (first: "), err
    assert "--retry-failed" in err[0] and len(err[0]) <= 500
    out = tmp_path / "out"
    written = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    assert _run(tmp_path, raw=raw)[0] == 1  # nothing retrained: the same fragments, untouched
    said = capsys.readouterr()
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} == written
    assert "2 configs: 0 ok, 0 diverged, 2 failed, 0 missing" in said.out and "2 of the 2 configs failed" in said.err
    assert main(["sweep", "plan", str(tmp_path / "sweep.yaml"), "--out", str(out)]) == 0
    assert "failed: 2 configs, kept" in capsys.readouterr().out
    assert _run(tmp_path, "--retry-failed", raw=raw)[0] == 1  # asked: trained again (and fails again)
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} != written


def test_diverged_configs_are_results_not_failures(tmp_path, capsys):
    raw = {**RAW, "grid": {"lr": [1e30]}, "seeds": 1, "eval": {"L_test": [3.0]}}
    assert _run(tmp_path, raw=raw)[0] == 0
    assert "1 configs: 0 ok, 1 diverged, 0 failed" in capsys.readouterr().out

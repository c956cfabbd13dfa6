"""The same config gives the same bits (issue 38): "auto" decides whether a pack's step is compiled from its steps
and planned size alone (iclscale.trainer.compiling.decide), never from a clock or a warm cache, and the rows
record the path taken."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import yaml

from iclscale.trainer import compiling
from iclscale.trainer.registry import study_info
from iclscale.trainer.training import train_pack


def test_auto_decides_on_steps_and_pack_size_alone(monkeypatch):
    monkeypatch.setenv(compiling.ENVIRONMENT, "auto")  # the suite's "off" would make "auto" mean "off"
    estimate = compiling.eager_estimate_s
    small = next(steps for steps in range(1, 10**6) if estimate(steps, 1) > compiling.COMPILE_PAYS_AFTER_S)
    assert not compiling.decide("auto", small - 1, 1) and compiling.decide("auto", small, 1)
    assert compiling.decide("auto", small // 4, 4096)  # a large pack pays sooner
    assert compiling.decide("auto", small // 4, 1, 10**6)  # so does a larger model
    assert not compiling.decide("auto", small // 4, 1, 25)  # under the least cost per config
    assert not compiling.decide("off", 10**9, 10**6) and compiling.decide("on", 1, 1)
    assert compiling.StepRunner(lambda x: x, small, "auto", pack_size=1).decided
    assert not compiling.StepRunner(lambda x: x, small - 1, "auto", pack_size=1).decided


def _pack(steps: int, size: int):
    info = study_info("softmax_window")
    resolved = [info.resolve({"steps": steps, "d": 3, "n": 8, "L": 0.5 + k / 4}, k, "t") for k in range(size)]
    return info, [c for c, _ in resolved], resolved[0][1]


def _values(result, point) -> list[float]:
    return [value for k in range(len(result.configs)) for value in result.final_metrics(k, point).values()]


def test_slow_eager_steps_do_not_change_the_decision(monkeypatch):
    """Before issue 38, "auto" timed three eager steps: a clock that says each took minutes (a loaded machine)
    made this short pack compile, and its values then differed at float32 rounding."""
    monkeypatch.setenv(compiling.ENVIRONMENT, "auto")
    info, configs, point = _pack(12, 3)
    steady = train_pack(info, configs, [point], 6, compile="auto")
    clock = iter(range(0, 10**9, 120))  # every reading two minutes after the last
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(clock)))
    slow = train_pack(info, configs, [point], 6, compile="auto")
    assert steady.compile_path == slow.compile_path == "eager"
    assert _values(slow, point) == _values(steady, point)  # exactly, not within a tolerance


SWEEP = {
    "name": "bits",
    "study": "softmax_window",
    "fixed": {"d": 3, "n": 8, "steps": 2100},  # 2100 steps × a pack of 2: "auto" compiles (decide)
    "grid": {"L": [0.5, 2.0]},
    "seeds": 1,
    "eval": {"L_test": [None, 3.0]},
    "record_every": 700,
    "resources": {"pack_size": 2},
}
RUN = textwrap.dedent(
    """
    import sys
    from iclscale.cli import main
    sys.exit(main(["sweep", "run", sys.argv[1], "--out", sys.argv[2], "--executor", "inline", "--quiet"]))
    """
)
VARYING = ["wall_time_s", "finished_at"]  # provenance a new run writes anew


def _sweep_in_a_new_process(sweep: Path, out: Path, home: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TORCHINDUCTOR")}
    env.update(HOME=str(home), ICLSCALE_COMPILE="auto")  # every cache of iclscale and inductor under `home`
    done = subprocess.run([sys.executable, "-c", RUN, str(sweep), str(out)], capture_output=True, text=True,
                          env=env, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def test_a_cold_and_a_warm_compile_cache_store_the_same_bits(tmp_path):
    sweep, home = tmp_path / "sweep.yaml", tmp_path / "home"
    sweep.write_text(yaml.safe_dump(SWEEP))
    _sweep_in_a_new_process(sweep, tmp_path / "cold", home)
    saved = sorted(p.name for p in (home / ".cache" / "iclscale" / "compiled").rglob("*.bin"))
    assert saved  # the second process finds the step compiled and saved by the first
    _sweep_in_a_new_process(sweep, tmp_path / "warm", home)
    runs = {}
    for name in ("cold", "warm"):
        table = pd.read_parquet(tmp_path / name / "runs").drop(columns=VARYING)
        runs[name] = table.sort_values(["run_id", "eval_key"]).reset_index(drop=True)
    assert set(runs["cold"]["compile_path"]) == set(runs["warm"]["compile_path"]) == {"compiled"}
    pd.testing.assert_frame_equal(runs["cold"], runs["warm"], check_exact=True)
    metrics = [c for c in runs["cold"] if runs["cold"][c].dtype == "float64"]
    assert "test_mse" in metrics
    for column in metrics:  # byte for byte, NaNs included
        assert runs["cold"][column].to_numpy().tobytes() == runs["warm"][column].to_numpy().tobytes(), column
    curves = [
        pd.read_parquet(tmp_path / name / "curves").sort_values(["run_id", "eval_key", "metric", "step"])
        for name in ("cold", "warm")
    ]
    assert len(curves[0]) > 0
    assert curves[0]["value"].to_numpy().tobytes() == curves[1]["value"].to_numpy().tobytes()


def test_a_store_written_before_compile_path_still_reads(tmp_path, capsys):
    """Runs fragments written before the column have none: they read, verify and count as stored (null path)."""
    import pyarrow.parquet as pq

    from iclscale.cli import main
    from iclscale.sweeps.store import RUNS, Location
    from iclscale.sweeps.store_read import read_store

    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(yaml.safe_dump({**SWEEP, "fixed": {"d": 3, "n": 8, "steps": 4}, "record_every": 2}))
    argv = ["sweep", "run", str(sweep), "--out", str(tmp_path / "out"), "--executor", "inline", "--quiet"]
    assert main(argv) == 0
    location = Location(tmp_path / "out")
    for path in (tmp_path / "out" / RUNS).glob("*.parquet"):
        table = pq.read_table(path)
        location.write_table(f"{RUNS}/{path.name}", table.drop_columns(["compile_path"]))
    assert "compile_path" not in pd.read_parquet(tmp_path / "out" / RUNS).columns
    runs = read_store(tmp_path / "out").runs
    assert len(runs) == 4 and "test_mse" in runs
    assert main(["sweep", "status", str(tmp_path / "out"), "--verify"]) == 0
    assert main(argv) == 0  # nothing retrained: the rows are stored; compacting gives them the column, null
    assert pd.read_parquet(tmp_path / "out" / RUNS)["compile_path"].isna().all()
    assert "Traceback" not in capsys.readouterr().err

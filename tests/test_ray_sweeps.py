"""Sweeps through real Ray: the demo fills the store, kill -9 then resume stores each config once."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from ray_helpers import kill_ray_processes, private_ray_tmpdir, ray_env

from iclscale.sweeps.store_read import read_store

pytestmark = pytest.mark.ray
ROOT = Path(__file__).resolve().parent.parent
ICLSCALE = [sys.executable, "-m", "iclscale.cli"]


@pytest.fixture
def ray_tmpdir():
    path = private_ray_tmpdir()
    yield path
    kill_ray_processes(path)


def test_demo_sweep_runs_through_ray_and_every_config_is_ok(tmp_path, ray_tmpdir):
    out = tmp_path / "demo"
    run = subprocess.run([*ICLSCALE, "sweep", "run", "demo", "--out", str(out)],
                         env=ray_env(ray_tmpdir), capture_output=True, text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "packs ran on nodes: 127.0.0.1" in run.stdout
    printed = (run.stdout + run.stderr).splitlines()
    assert len(printed) < 15, printed  # no Tune tables, boxes or hints by default
    assert any(line.startswith("progress: 36/36 configs") and "model-steps/s" in line for line in printed)
    assert not (out / ".tune").exists()  # Tune's pickled state never lives in a results directory
    status = subprocess.run([*ICLSCALE, "sweep", "status", str(out)], capture_output=True, text=True)
    assert "36 configs: 36 ok, 0 diverged, 0 failed, 0 missing" in status.stdout, status.stdout + status.stderr
    data = read_store(out)
    assert (data.runs["node"] == "127.0.0.1").all()
    assert data.runs["pack_id"].nunique() == 4


KILL_SWEEP = {
    "name": "kill_test",
    "study": "softmax_window",
    "fixed": {"d": 3, "n": 10, "steps": 1500},
    "grid": {"L": [0.1, 0.3, 1.0, 3.0]},
    "seeds": 4,
    "record_every": 500,
    "resources": {"cpu": 1, "pack_size": 2},
}


def _committed(out: Path) -> int:
    return len(list((out / "runs").glob("pack-*.parquet"))) if (out / "runs").exists() else 0


def test_kill_9_in_the_middle_then_the_same_command_stores_every_config_once(tmp_path, ray_tmpdir):
    sweep_file = tmp_path / "kill.yaml"
    sweep_file.write_text(yaml.safe_dump(KILL_SWEEP))
    out = tmp_path / "out"
    command = [*ICLSCALE, "sweep", "run", str(sweep_file), "--out", str(out), "--quiet"]
    driver = subprocess.Popen(command, env=ray_env(ray_tmpdir), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while _committed(out) < 1 and driver.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert driver.poll() is None, "the sweep ended before it could be killed: " + driver.stderr.read().decode()[-2000:]
    committed_before = _committed(out)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    assert 1 <= committed_before < 8
    kill_ray_processes(ray_tmpdir)  # what a killed driver leaves behind; the re-run starts afresh

    rerun = subprocess.run(command, env=ray_env(ray_tmpdir), capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    rows = []
    for fragment in sorted((out / "runs").glob("*.parquet")):
        table = pq.read_table(fragment, columns=["run_id", "eval_key"])
        rows += list(zip(table.column("run_id").to_pylist(), table.column("eval_key").to_pylist(), strict=True))
    assert len(rows) == len(set(rows)) == 16
    assert set(read_store(out).runs["status"]) == {"ok"}

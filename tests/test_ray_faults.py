"""Faults through real Ray: Ctrl-C, a full or read-only disk, resources no node offers, an address
where no cluster listens. Each ends in one line (or, for Ctrl-C, a count and how to resume)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from ray_helpers import kill_ray_processes, private_ray_tmpdir, ray_env

ROOT = Path(__file__).resolve().parent.parent
ICLSCALE = [sys.executable, "-m", "iclscale.cli"]
SWEEP = {
    "name": "ray_faults",
    "study": "softmax_window",
    "fixed": {"d": 3, "n": 10, "steps": 800},
    "grid": {"L": [0.1, 0.3, 1.0, 3.0]},
    "seeds": 4,
    "record_every": 500,
    "resources": {"cpu": 1, "pack_size": 2},
}


@pytest.fixture
def ray_tmpdir():
    path = private_ray_tmpdir()
    yield path
    kill_ray_processes(path)


def _sweep_file(tmp_path: Path, raw=SWEEP) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_where_no_cluster_listens_fails_fast_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    start = time.monotonic()
    address = f"127.0.0.1:{_closed_port()}"
    done = subprocess.run([*ICLSCALE, "sweep", "run", str(_sweep_file(tmp_path)), "--out", str(out), "--address",
                           address], capture_output=True, text=True, timeout=60)  # fmt: skip
    assert time.monotonic() - start < 30
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "no Ray cluster answers there" in done.stderr
    assert not out.exists()


@pytest.mark.ray
@pytest.mark.slow
def test_ctrl_c_through_ray_stops_cleanly_and_the_same_command_resumes(tmp_path, ray_tmpdir):
    out = tmp_path / "out"
    # 3000 steps a pack: packs finish seconds apart, so the Ctrl-C after the first stored pack finds others running
    # (at 800 steps a busy machine once stored all 16 configs before the signal arrived, and the sweep ended 0)
    slow = {**SWEEP, "fixed": {**SWEEP["fixed"], "steps": 3000}}
    command = [*ICLSCALE, "sweep", "run", str(_sweep_file(tmp_path, slow)), "--out", str(out)]
    # as a terminal's Ctrl-C finds it: SIGINT not ignored (a test run started in the background inherits SIG_IGN,
    # which Python keeps, and the driver would never see the signal)
    driver = subprocess.Popen(command, env=ray_env(ray_tmpdir), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    deadline = time.monotonic() + 300
    while not list((out / "runs").glob("pack-*.parquet")) if (out / "runs").exists() else True:
        assert driver.poll() is None and time.monotonic() < deadline, driver.communicate()[1][-2000:]
        time.sleep(0.2)
    os.killpg(driver.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole process group
    stdout, stderr = driver.communicate(timeout=120)
    assert driver.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "Tuner.restore" not in stderr + stdout, stderr[-3000:]
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("iclscale: interrupted: ") and "run the same command to resume" in last
    stored = int(last.split("interrupted: ")[1].split(" of ")[0])
    assert 1 <= stored < 16
    kill_ray_processes(ray_tmpdir)
    rerun = subprocess.run([*command, "--quiet"], env=ray_env(ray_tmpdir), capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "16 configs: 16 ok, 0 diverged, 0 failed, 0 missing" in rerun.stdout
    table = pq.read_table(out / "runs", columns=["run_id"])
    assert table.num_rows == len(set(table["run_id"].to_pylist())) == 16


@pytest.mark.ray
def test_resources_no_node_offers_are_refused_before_anything_runs(tmp_path, ray_tmpdir):
    out = tmp_path / "out"
    done = subprocess.run([*ICLSCALE, "sweep", "run", str(_sweep_file(tmp_path)), "--out", str(out), "gpu=1"],
                          env=ray_env(ray_tmpdir), capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr[-2000:]
    assert "no node of this machine can offer that" in done.stderr and not out.exists()


@pytest.fixture
def small_disk(tmp_path):
    """A 48 KiB tmpfs (root only): too small for the sweep's fragments."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.ray
@pytest.mark.slow
def test_a_full_disk_ends_in_one_line_and_the_sweep_resumes_once_there_is_room(tmp_path, ray_tmpdir, small_disk):
    out = small_disk / "out"
    command = [*ICLSCALE, "sweep", "run", "demo", "--out", str(out), "steps=100"]
    full = subprocess.run(command, env=ray_env(ray_tmpdir), capture_output=True, text=True, timeout=300)
    assert full.returncode == 2, full.stderr[-3000:]
    errors = [line for line in full.stderr.splitlines() if not line.startswith("progress: ")]
    assert len(errors) == 1 and "No space left on device" in errors[0] and str(out) in errors[0], full.stderr[-3000:]
    assert "Traceback" not in full.stderr
    subprocess.run(["mount", "-o", "remount,size=20m", str(small_disk)], check=True)
    again = subprocess.run([*command, "--quiet"], env=ray_env(ray_tmpdir), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "36 configs: 36 ok" in again.stdout, again.stderr[-3000:]


@pytest.mark.ray
def test_a_read_only_disk_ends_in_one_line(tmp_path, ray_tmpdir, small_disk):
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    done = subprocess.run([*ICLSCALE, "sweep", "run", str(_sweep_file(tmp_path)), "--out", str(small_disk / "out")],
                          env=ray_env(ray_tmpdir), capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr[-2000:]
    assert "Read-only file system" in done.stderr and str(small_disk / "out") in done.stderr

"""Failures that used to pass silently or end in a traceback: a failed sweep exits non-zero, SIGTERM
stops like Ctrl-C, `train --out` respects another sweep's directory, sizes that cannot fit in memory
are refused before training, and oversized reads are refused before reading."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from iclscale.cli import main

RAW = {
    "name": "silent",
    "study": "softmax_window",
    "fixed": {"d": 3, "n": 8, "steps": 20},
    "grid": {"L": [0.5, 2.0]},
    "seeds": 2,
    "record_every": 10,
    "resources": {"pack_size": 2},
}


def _write(tmp_path: Path, raw=RAW) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def test_a_sweep_whose_packs_fail_exits_non_zero_with_one_line(tmp_path, capsys, monkeypatch):
    """What the Ray executor reports when every pack failed after its retries (Ray itself not started)."""
    from iclscale.sweeps import run
    from iclscale.sweeps.execute import record_failure

    def failing_ray(plan, context, args, location, progress):
        for pack in plan.packs:
            record_failure(context, pack, "ModuleNotFoundError: No module named 'iclscale.trainer.training'")
        return {"failed_configs": sum(len(p.configs) for p in plan.packs), "nodes": []}

    monkeypatch.setattr(run, "_connect", lambda sweep, args: None)
    monkeypatch.setattr(run, "_run_ray", failing_ray)
    out = tmp_path / "out"
    code = main(["sweep", "run", str(_write(tmp_path)), "--out", str(out), "--quiet"])
    captured = capsys.readouterr()
    assert code == 1, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "4 of the 4 configs failed (first: ModuleNotFoundError: No module" in lines[0], lines
    assert "0 ok, 0 diverged, 4 failed" in captured.out


def test_a_sweep_stopped_in_this_process_leaves_ctrl_c_and_kill_as_they_were(tmp_path, capsys, monkeypatch):
    """A stop sets SIGINT and SIGTERM to SIG_IGN while its line is printed; run in process (reproduce, the
    suite's CLI tests) they must be put back, or the suite ignores Ctrl-C and `kill` from then on."""
    from iclscale.sweeps import run

    def stopped(sweep, args, location):
        signal.signal(signal.SIGTERM, lambda number, frame: None)  # as Ray's driver installs its own
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "_locked_run", stopped)
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    wakeup_fd = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup_fd)
    command = ["sweep", "run", str(_write(tmp_path)), "--out", str(tmp_path / "out"), "--executor", "inline"]
    assert main(command) == 130
    assert "iclscale: interrupted" in capsys.readouterr().err
    assert {number: signal.getsignal(number) for number in before} == before
    assert signal.set_wakeup_fd(wakeup_fd) == wakeup_fd  # the stop deadline's pipe is no longer the wakeup fd


def test_the_suite_puts_back_handlers_a_test_leaves():
    """The autouse fixture in conftest.py: what a test installs is undone after it, whatever the test is."""
    from conftest import signals_restored

    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE)}
    wakeup_fd = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup_fd)
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    try:
        with signals_restored():
            for number in before:
                signal.signal(number, signal.SIG_IGN)
            signal.set_wakeup_fd(write_fd)
        assert {number: signal.getsignal(number) for number in before} == before
        assert signal.set_wakeup_fd(wakeup_fd) == wakeup_fd
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_sigterm_stops_like_ctrl_c_and_the_same_command_resumes(tmp_path):
    raw = {**RAW, "fixed": {**RAW["fixed"], "steps": 3000}, "grid": {"L": [0.5, 1.0, 2.0, 4.0]}, "seeds": 1,
           "resources": {"pack_size": 1}}  # fmt: skip
    path = _write(tmp_path, raw)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "iclscale.cli", "sweep", "run", str(path), "--out", str(out), "--executor",
               "inline", "--quiet"]  # fmt: skip
    driver = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not list((out / "runs").glob("*.parquet")) and time.monotonic() < deadline and driver.poll() is None:
        time.sleep(0.2)
    driver.send_signal(signal.SIGTERM)
    _, err = driver.communicate(timeout=120)
    if driver.returncode == 0:  # finished before the signal: nothing to show on this machine
        return
    assert driver.returncode == 143, err[-2000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("iclscale: interrupted: ") and "Traceback" not in err, err
    stored = int(lines[0].split("interrupted: ")[1].split(" of ")[0])
    assert 1 <= stored < 4
    again = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "4 configs: 4 ok" in again.stdout


def test_train_out_refuses_another_sweeps_directory_and_takes_the_lock(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["sweep", "run", str(_write(tmp_path)), "--out", str(out), "--executor", "inline", "--quiet"]) == 0
    frozen = (out / "sweep.yaml").read_bytes()
    capsys.readouterr()
    code = main(["train", "softmax_window", "--set", "d=3", "--set", "steps=5", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "holds the results of sweep" in err, err
    assert (out / "sweep.yaml").read_bytes() == frozen
    from iclscale.sweeps.lock import writer_lock
    from iclscale.sweeps.store import Location

    other = tmp_path / "busy"
    with writer_lock(Location(other)):
        code = main(["train", "softmax_window", "--set", "d=3", "--set", "steps=5", "--out", str(other)])
    err = capsys.readouterr().err
    assert code == 2 and "being written by another" in err, err


def test_train_out_that_cannot_be_written_is_refused_before_training(tmp_path, capsys):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    for out in (a_file, a_file / "below", Path("/proc/iclscale"), Path("/dev/null")):
        start = time.monotonic()
        code = main(["train", "softmax_window", "--set", "d=3", "--set", "steps=100000", "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (out, err)
        assert time.monotonic() - start < 20, out  # refused before 100,000 steps of training


def test_a_fifo_or_device_as_a_sweep_file_is_refused_at_once(tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sparse = tmp_path / "sparse.yaml"
    with open(sparse, "wb") as handle:
        handle.truncate(2 * 10**9)
    for path in (str(fifo), "/dev/zero", "/dev/urandom", str(sparse)):
        start = time.monotonic()
        code = main(["sweep", "plan", path])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1, (path, err)
        assert time.monotonic() - start < 1, path


def test_sizes_that_exhaust_memory_end_in_one_line_with_both_numbers(tmp_path):
    """mamba_outliers d=4096 hidden=100000 layers=16 needs tens of GB; under a 3 GB address-space limit
    (so that the test never takes a shared machine's memory) its allocation fails like a small machine's."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))

    argv = ["train", "mamba_outliers", "--set", "d=4096", "--set", "hidden=100000", "--set", "layers=16"]
    done = subprocess.run([sys.executable, "-m", "iclscale.cli", *argv], capture_output=True, text=True,
                          preexec_fn=limit, timeout=300)  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "out of memory: an allocation of" in lines[0] and "GB are available" in lines[0], lines[0]


@pytest.mark.ray
@pytest.mark.slow
def test_ray_workers_import_the_installed_package_not_a_folder_in_the_working_directory(tmp_path):
    """`cd ~/src && iclscale sweep run iclscale/sweeps/x.yaml`: Ray puts the driver's working directory on
    every worker's sys.path, where a checkout named iclscale/ (a namespace package to the workers) shadowed
    the installed package and every pack failed."""
    from ray_helpers import kill_ray_processes, private_ray_tmpdir, ray_env

    checkout = tmp_path / "src" / "iclscale" / "sweeps"
    checkout.mkdir(parents=True)
    (checkout / "x.yaml").write_text(yaml.safe_dump(RAW))
    script = Path(sys.executable).parent / "iclscale"  # the console script: `python -m` would shadow it too
    ray_tmpdir = private_ray_tmpdir()
    try:
        done = subprocess.run([str(script), "sweep", "run", "iclscale/sweeps/x.yaml", "--out", str(tmp_path / "out"),
                               "--quiet", "--retries", "0"], cwd=tmp_path / "src", env=ray_env(ray_tmpdir),
                              capture_output=True, text=True, timeout=600)  # fmt: skip
    finally:
        kill_ray_processes(ray_tmpdir)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "4 configs: 4 ok" in done.stdout, done.stdout + done.stderr[-2000:]


def _one_line_exit_2(argv, capsys) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (argv, code, err)
    return err


def test_runs_that_is_a_file_is_one_line_for_every_command(tmp_path, capsys):
    out = tmp_path / "out"
    path = _write(tmp_path)
    assert main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"]) == 0
    import shutil

    shutil.rmtree(out / "runs")
    (out / "runs").write_text("not a folder")
    capsys.readouterr()
    for argv in (["sweep", "status", str(out)], ["sweep", "plan", str(path), "--out", str(out)], ["report", str(out)],
                 ["sweep", "run", str(path), "--out", str(out), "--executor", "inline"]):  # fmt: skip
        assert "not a directory" in _one_line_exit_2(argv, capsys)


def test_a_fragment_with_mistyped_key_columns_is_left_out_and_retrained(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    path = _write(tmp_path)
    assert main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"]) == 0
    victim = sorted((out / "runs").glob("*.parquet"))[0]
    table = pq.read_table(victim)
    status = pa.array(range(table.num_rows), pa.int64())  # a foreign writer's status column
    pq.write_table(table.set_column(table.schema.get_field_index("status"), "status", status), victim)
    import shutil

    import yaml

    shutil.rmtree(out / "digests")  # as if written before checksums: no digests, no marks
    for fragment in [*(out / "runs").glob("*.parquet"), *(out / "curves").glob("*.parquet")]:
        pq.write_table(pq.read_table(fragment).replace_schema_metadata({}), fragment)
    frozen = yaml.safe_load((out / "sweep.yaml").read_text())
    del frozen["checksums"]
    (out / "sweep.yaml").write_text(yaml.safe_dump(frozen, sort_keys=False))
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) in (0, 2)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "column status is of type int64" in err, err
    assert main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"]) == 0
    assert "4 configs: 4 ok" in capsys.readouterr().out


def test_a_foreign_footprints_file_is_measured_afresh(tmp_path, monkeypatch):
    import json

    import torch

    from iclscale.trainer import footprint
    from iclscale.trainer.cachedir import code_digest
    from iclscale.trainer.registry import study_info
    from iclscale.trainer.training import short_run

    info = study_info("softmax_window")
    config, point = info.resolve({"d": 3, "steps": 2}, 0, "t")
    key = repr((info.name, config.shape_key(info.names("shape")), (point,), "cpu"))
    cache = tmp_path / "footprints.json"
    monkeypatch.setattr(footprint, "CACHE_FILE", cache)
    monkeypatch.setattr(footprint, "_MEASURED", {})
    for wrong in ([1, 2], {code_digest(): [1]}, {code_digest(): {key: "x"}}, {code_digest(): {key: [1, -5]}}):
        cache.write_text(json.dumps(wrong))
        footprint._MEASURED.clear()
        fixed, per_config = footprint.per_config_bytes(info, [config], [point], torch.device("cpu"), short_run)
        assert isinstance(fixed, int) and per_config > 0


def test_device_cuda_without_cuda_is_refused_before_anything_is_written(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    out = tmp_path / "out"
    argv = ["sweep", "run", str(_write(tmp_path)), "--out", str(out), "--executor", "inline", "--device", "cuda"]
    assert "no CUDA device" in _one_line_exit_2(argv, capsys)
    assert not out.exists()


def test_report_on_a_full_disk_is_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["sweep", "run", str(_write(tmp_path)), "--out", str(out), "--executor", "inline", "--quiet"]) == 0
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        capsys.readouterr()
        assert "cannot write the report" in _one_line_exit_2(["report", str(out), "--out", str(disk / "r")], capsys)
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _server(kind: str) -> int:
    """A loopback TCP server that is not Ray: silent, closing at once, HTTP/1.1, or garbage."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held = []

    def serve() -> None:
        while True:
            connection, _ = listener.accept()
            if kind == "closing":
                connection.close()
            elif kind == "http":
                connection.recv(100)
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            elif kind == "garbage":
                connection.sendall(b"\x17\x03\x03 not grpc " * 4)
            held.append(connection)

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1]


@pytest.mark.parametrize("kind", ["silent", "closing", "http", "garbage", "digits"])
def test_an_address_that_is_not_a_ray_cluster_fails_fast_in_one_line(tmp_path, capsys, monkeypatch, kind):
    from iclscale.sweeps import ray_executor

    monkeypatch.setattr(ray_executor, "HANDSHAKE_TIMEOUT_S", 2.0)
    address = "127.0.0.1:" + ("9" * 5000 if kind == "digits" else str(_server(kind)))
    out = tmp_path / "out"
    start = time.monotonic()
    err = _one_line_exit_2(["sweep", "run", str(_write(tmp_path)), "--out", str(out), "--address", address], capsys)
    assert time.monotonic() - start < 30 and "--address" in err and len(err) < 500
    assert not out.exists()


STUCK = """
import ctypes, sys, time
from iclscale.cli import main
from iclscale.sweeps import execute, status

real_run_pack, real_counts = execute.run_pack, status.status_counts
def run_pack(context, pack, *args, **kwargs):
    if len(list(execute.Location(context.out).list("runs", ".parquet"))) == 0:
        return real_run_pack(context, pack, *args, **kwargs)
    open(str(context.out).rstrip("/") + ".stuck", "w").close()  # the test signals once the run is in it
    if sys.argv[1] == "c-call":
        ctypes.CDLL(None).system(b"sleep 60")  # a long C call: Python's signal handlers cannot run in it
    time.sleep(60)
def slow_counts(out):
    time.sleep(60)  # a count of a large store on a loaded machine
execute.run_pack = run_pack
if sys.argv[1] == "slow-count":
    status.status_counts = slow_counts
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("stop, stuck", [(signal.SIGTERM, "c-call"), (signal.SIGINT, "slow-count")])
def test_sigterm_and_ctrl_c_end_within_5_s_with_the_stored_line_whatever_the_run_is_doing(tmp_path, stop, stuck):
    raw = {**RAW, "grid": {"L": [0.5, 1.0, 2.0, 4.0]}, "seeds": 1, "resources": {"pack_size": 1}}
    out = tmp_path / "out"
    command = [sys.executable, "-c", STUCK, stuck, "sweep", "run", str(_write(tmp_path, raw)), "--out", str(out),
               "--executor", "inline", "--quiet"]  # fmt: skip
    with open(tmp_path / "stderr", "w") as stderr:  # a file: the stuck call's `sleep` child keeps a pipe open
        # as a terminal's Ctrl-C finds it: SIGINT not ignored (a suite started in the background, as CI may be,
        # passes SIG_IGN on to its children, and Python then keeps ignoring it)
        driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True,
                                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        stuck_marker = Path(f"{out}.stuck")  # written by the stuck run_pack, just before it sticks
        while not stuck_marker.exists() and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.1)
        time.sleep(0.5)  # into the stuck call (a loaded machine once took over 1 s from the first fragment to it)
        assert driver.poll() is None, (tmp_path / "stderr").read_text()
        sent = time.monotonic()
        driver.send_signal(stop)
        driver.wait(timeout=60)
        took = time.monotonic() - sent
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(driver.pid, signal.SIGKILL)  # what it left (the stuck call's `sleep`)
    err = (tmp_path / "stderr").read_text()
    assert driver.returncode == (143 if stop == signal.SIGTERM else 130), err[-2000:]
    assert took < 5, took
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0] == f"iclscale: interrupted: 1 of 4 configs are stored in {out}; run the same command to resume"

"""The device check (benchmarks/device_check.py) rehearsed on the CPU, as a GPU machine would run it: with Ray,
Optuna and Altair (and the other packages such a machine may lack) impossible to import. Its JSON must compare
every study and hold the speed numbers and the memory model; no time is asserted."""

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import device_check  # noqa: E402

ABSENT = ("ray", "optuna", "altair", "yaml", "statsmodels", "sklearn", "vl_convert", "duckdb")
"""Not on the GPU machines this check is for (torch, JAX, numpy, scipy, pandas and pyarrow are)."""

BLOCKER = textwrap.dedent(
    f"""
    import runpy, sys

    for name in {ABSENT!r}:
        sys.modules[name] = None  # as if not installed: import raises ModuleNotFoundError, find_spec gives None
    """
)
"""Emulates a machine without them (a finder that raised would break libraries that probe with find_spec)."""


def _run(code: str, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + code, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )


def test_the_trainer_and_the_benchmarks_import_without_ray_optuna_or_altair():
    code = textwrap.dedent(
        """
        import importlib, importlib.util, pkgutil
        import iclscale
        sys.path.insert(0, "benchmarks")
        # the trainer and the papers' trainer side (not sweeps, analysis, the laws or the command line)
        names = [m.name for m in pkgutil.walk_packages(iclscale.__path__, "iclscale.")
                 if m.name.startswith(("iclscale.trainer", "iclscale.papers")) and ".laws" not in m.name]
        names += ["peers", "peers.harness", "peers.settings", "peers.torch_loop", "peers.iclscale_run",
                  "device_check", "peer_throughput", "packing_throughput"]
        if importlib.util.find_spec("jax") is not None:  # the JAX peer needs jax (the bench extra; a GPU window has it)
            names.append("peers.jax_loop")
        for name in names:
            importlib.import_module(name)
        print(len(names), "imported")
        """
    )
    done = _run(code, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "imported" in done.stdout


def test_the_blocker_does_block():
    done = _run("import ray", timeout=60)
    assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr


def test_the_quick_cpu_rehearsal_compares_every_study_and_measures_every_peer(tmp_path):
    code = "sys.argv[0] = 'device_check.py'; runpy.run_path('benchmarks/device_check.py', run_name='__main__')"
    done = _run(code, "--device", "cpu", "--quick", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads((tmp_path / "device_check.json").read_text())
    from iclscale.trainer.registry import study_names

    parity = {entry["study"]: entry for entry in data["parity"]}
    assert sorted(parity) == study_names()  # every study, none skipped
    for study, entry in parity.items():
        assert entry["ok"], (study, entry)
        compared = [name for name, m in entry["metrics"].items() if m["compared"]]
        assert compared and all(entry["metrics"][name]["max_abs_diff"] == 0.0 for name in compared)  # CPU = CPU
        assert entry["compile_path"] == "eager" and entry["graphs_per_step"] == 0 and entry["graph_breaks"] == []
    for model in device_check.SPEED_MODELS:
        rows = [e for e in data["speed"] if e["model"] == model and e["error"] is None]
        peers = {e["peer"] for e in rows}
        assert {"iclscale", "torch eager"} <= peers, peers
        if "jax" not in peers:
            assert any(s["what"].startswith(f"{model} jax") for s in data["skipped"])
        assert all(e["model_steps_per_s"] > 0 and math.isfinite(e["model_steps_per_s"]) for e in rows)
        ours = [e for e in rows if e["peer"] == "iclscale"]
        assert all(e["peak_bytes"] > 0 and e["estimate_over_peak"] >= 0.99 for e in ours), ours
        assert all(e["compile_path"] == "eager" and e["graph_breaks"] == [] for e in ours), ours  # --quick: eager
        (auto,) = [e for e in data["auto"] if e["model"] == model]
        assert auto["auto_pack_size"] >= 1 and auto["per_config_bytes"] > 0
    lines = done.stdout.strip().splitlines()
    table = lines[lines.index(next(line for line in lines if line.startswith("device check on"))) :]
    assert any(line.startswith("model ") and "iclscale" in line and "torch eager" in line for line in table)
    assert all(any(line.startswith(model + " ") for line in table) for model in device_check.SPEED_MODELS)


def test_sizes_are_visited_ends_first_and_each_once():
    for count in range(12):
        order = device_check.visiting_order(count)
        assert sorted(order) == list(range(count))
        assert order[:2] == ([0, count - 1] if count > 1 else list(range(count)))


@pytest.mark.parametrize("argv", [["--out", "x", "--budget", "0"], ["--out", "x", "--threads", "0"], []])
def test_bad_arguments_are_refused(argv):
    with pytest.raises(SystemExit) as exit:
        device_check.parse_args(argv)
    assert exit.value.code == 2


def test_no_cuda_device_is_one_clear_line(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "device_check.py"), "--out", str(tmp_path)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and "no CUDA device" in done.stderr


def test_a_failing_study_is_reported_not_raised(tmp_path, monkeypatch):
    """One study that cannot train must not stop the check: its entry says why."""
    report = device_check.Report(tmp_path, {})

    def broken(*args, **kwargs):
        raise RuntimeError("no kernel image is available")

    monkeypatch.setattr("iclscale.trainer.training.train_pack", broken)
    from iclscale.paper import smoke_configs

    one = {"softmax_window": smoke_configs()["softmax_window"]}
    monkeypatch.setattr("iclscale.paper.smoke_configs", lambda: one)
    device_check.check_parity("cpu", device_check.QUICK, device_check.Budget(60), report, reserve=0)
    (entry,) = json.loads((tmp_path / "device_check.json").read_text())["parity"]
    assert not entry["ok"] and "no kernel image" in entry["error"]

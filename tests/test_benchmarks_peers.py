"""The peer benchmarks (benchmarks/peer_throughput.py) train what they time, and print the table they promise.

Tiny packs and a few dozen steps: every peer's loss must be finite and fall; no time is asserted."""

import importlib.util
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from peers import harness, iclscale_run, torch_loop  # noqa: E402

HAS_JAX = importlib.util.find_spec("jax") is not None
CHECK = {"softmax_window": (16, 100, 20), "nonlinear_icl": (8, 100, 20)}  # pack size, steps, window


@pytest.fixture(autouse=True)
def one_thread():
    """As the benchmark runs by default (two OpenMP threads crawl on a busy 2-core machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def falls(losses: list[float]) -> bool:
    return all(math.isfinite(v) for v in losses) and losses[-1] < 0.95 * losses[0]


@pytest.mark.parametrize("model", ["softmax_window", "nonlinear_icl"])
def test_hand_batched_torch_loop_trains(model):
    size, steps, window = CHECK[model]
    losses = torch_loop.prepare(model, size, steps, window, "cpu", compiled=False)()
    assert len(losses) == steps // window
    assert falls(losses), losses


@pytest.mark.parametrize("model", ["softmax_window", "nonlinear_icl"])
def test_iclscale_peer_trains(model):
    size, steps, window = CHECK[model]
    losses = iclscale_run.prepare(model, size, steps, window, "cpu")()
    assert len(losses) == steps // window
    assert falls(losses), losses


def test_iclscale_peer_trains_the_benchmark_setting():
    _, configs, point = iclscale_run.pack_configs("softmax_window", 8, 50)
    assert {c["L"] for c in configs} == {0.5, 1.0, 1.5, 2.0} and len({c.seed for c in configs}) == 8
    assert (configs[0]["d"], configs[0]["n"], configs[0]["sigma"], configs[0]["lr_decay"]) == (5, 20, 0.01, 0.999)
    assert dict(point)["test_tasks"] == 1


@pytest.mark.skipif(not HAS_JAX, reason="jax not installed (pip install -e '.[bench]')")
def test_jax_peer_trains():
    from peers import jax_loop

    size, steps, window = CHECK["softmax_window"]
    assert falls(jax_loop.prepare("softmax_window", size, steps, window, "cpu")())


def test_window_means_match_iclscale_records():
    assert harness.window_means([1.0, 3.0, 5.0, 7.0, 9.0], 2) == [2.0, 6.0, 9.0]


def test_command_prints_one_row_per_peer_and_the_ratios():
    peers = ["torch eager", "jax", "iclscale"]
    command = [sys.executable, str(BENCHMARKS / "peer_throughput.py"), "--pack-size", "8", "--steps", "5",
               "--repeats", "1", "--check-pack-size", "8", "--check-steps", "40", "--peers", *peers]  # fmt: skip
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600, env=env).stdout
    check, speed = out.split("loss check")[1].split("pack of 8, 5 steps")
    for name in peers:
        (row,) = [line for line in speed.splitlines() if line.startswith(name + " ")]
        if name == "jax" and not HAS_JAX:
            assert "skipped: JAX not installed" in row
            continue
        assert re.search(r" \d+\.\d\d× +[\d,]+$", row), row  # ratio to the first peer, then per CPU-second
        (loss_row,) = [line for line in check.splitlines() if line.startswith(name + " ")]
        start, end = (float(v) for v in loss_row.split()[-3:-1])
        assert end < start, loss_row
    assert "iclscale: " in speed and "× torch eager" in speed


def test_the_earlier_pack_size_flags_still_work(monkeypatch):
    import peer_throughput

    monkeypatch.setattr(sys, "argv", ["peer_throughput.py", "--K", "8", "16", "--check-K", "4"])
    args = peer_throughput.parse_args()
    assert (args.pack_size, args.check_pack_size) == ([8, 16], 4)


def test_end_to_end_benchmark_times_a_warm_sweep_against_the_loop():
    command = [sys.executable, str(BENCHMARKS / "end_to_end.py"), "--configs", "8", "--steps", "5", "--loop-steps", "5",
               "--repeats", "1", "--skip-ray"]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600).stdout
    assert "warm-up run" in out and "8 configs: 8 ok" in out
    (rate,) = re.findall(r"--executor inline: [\d.]+ s, +([\d,]+) model-steps/s", out)
    assert int(rate.replace(",", "")) > 0
    assert re.search(r"sweep / hand-batched loop: \d+\.\d\d× per second", out)

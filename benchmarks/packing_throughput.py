"""Packed training throughput of `softmax_window`: model-steps per second in packs of 1, 64, 256, 1024.

One model-step is one training iteration of one config. Every pack size runs the same code path (the
packed trainer); the ratios to a pack of 1 are what packing buys. A plain single-config PyTorch loop
(the attention unit as an nn.Module with torch.optim.Adam, no torch.func) is measured too, as the
honest "one config at a time" reference. All numbers come from one run on this machine.

    python benchmarks/packing_throughput.py [--steps 300] [--sizes 1 64 256 1024]

Torch's thread settings apply (OMP_NUM_THREADS=1 for one thread, as `iclscale train` and inline
sweeps use by default).
"""

from __future__ import annotations

import argparse
import time

import torch
from peers.iclscale_run import train

from iclscale.papers.softmax_window.data import sample_prompts
from iclscale.papers.softmax_window.model import SoftmaxAttention
from iclscale.trainer.registry import study_info
from iclscale.trainer.rng import Stream

SETTINGS = {"d": 5, "n": 20, "task_class": "relu", "test_tasks": 1}  # the paper's Fig 3 setting


def packed_rate(pack_size: int, steps: int) -> float:
    info = study_info("softmax_window")
    resolved = [info.resolve({**SETTINGS, "steps": steps, "L": 0.5 + k % 7}, k, "bench") for k in range(pack_size)]
    configs, point = [c for c, _ in resolved], resolved[0][1]
    train(info, configs, point, steps, "cpu")  # warm-up (allocator, first-call costs)
    start = time.perf_counter()
    train(info, configs, point, steps, "cpu")
    return pack_size * steps / (time.perf_counter() - start)


def plain_loop_rate(steps: int) -> float:
    """One config, the textbook way: nn.Module + torch.optim.Adam + ExponentialLR."""
    unit = SoftmaxAttention(SETTINGS["d"])
    with torch.no_grad():
        unit.M_K.copy_(1e-3 * torch.eye(SETTINGS["d"]))
    optimizer = torch.optim.Adam(unit.parameters(), lr=0.1)
    schedule = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.999)
    rng = Stream.from_seeds(0)  # one config's stream (a 0-d key)
    one = torch.tensor(1.0)

    def step(t: int) -> None:
        p = sample_prompts(rng, "train", t, tasks=1, n=SETTINGS["n"], queries=4, d=SETTINGS["d"],
                           covariates="isotropic", task_class="relu", L=one, sigma=0.01 * one, nu=one,
                           constants={}, hills_mode="frequency")  # fmt: skip
        loss = ((unit(p.x_context, p.y_context, p.x_query) - p.f_query) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()

    for t in range(20):
        step(t)
    start = time.perf_counter()
    for t in range(steps):
        step(t)
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 256, 1024])
    args = parser.parse_args()
    print(f"softmax_window {SETTINGS}, {args.steps} steps, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads")  # fmt: skip
    reference = plain_loop_rate(args.steps)
    print(f"{'plain single-config loop':>26}: {reference:>10,.0f} model-steps/s")
    rates = {size: packed_rate(size, args.steps) for size in args.sizes}
    base = rates[args.sizes[0]]
    for size, rate in rates.items():
        print(f"{f'pack of {size}':>26}: {rate:>10,.0f} model-steps/s   {rate / base:7.1f}× pack of {args.sizes[0]}"
              f"   {rate / reference:7.1f}× plain loop")  # fmt: skip


if __name__ == "__main__":
    main()

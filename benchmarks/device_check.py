"""One command for a short GPU window: CUDA = CPU for every study, and the packed trainer's speed beside its peers.

    PYTHONPATH=. timeout 480 python benchmarks/device_check.py --out $OUT
    python benchmarks/device_check.py --device cpu --quick --out /tmp/dc    # the same code on the CPU (≤ 2 min)

It needs torch and numpy, and pandas and scipy for the papers' laws, which hold the smoke configs (JAX for the
JAX peer, skipped when absent): nothing it imports needs Ray, Optuna, Altair or yaml, and it installs nothing.
Three parts, in this order:

1. parity: a small pack of every installed study (its smoke config, `PaperLaws(smoke=...)` of its paper)
   trained on the CPU (eager: the reference) and on the device by each variant (eager; eager steps replayed
   from CUDA graphs; compiled and replayed for the two speed models), the same configs and seeds; every final
   metric of every config compared within `TOLERANCE` (a config's random numbers are counter-based, so the two
   devices differ by float rounding only);
2. speed: model-steps/s of seed 004's unit (`softmax_window`) and `nonlinear_icl` at pack sizes doubling
   from 1024 up to the largest that may fit (twice the device's memory over the memory model's bytes per
   config), for iclscale (compiled; compiled and replayed from CUDA graphs), the hand-batched PyTorch loop
   and the JAX peer of `benchmarks/peers/`, each with its peak memory (`torch.cuda.max_memory_allocated`;
   JAX: XLA's buffer assignment of its compiled program). Sizes are visited ends first, then the middles of
   the widest gaps (`visiting_order`), so that a run cut short by its budget still spans the range. iclscale
   trains each pack whole: a size that runs out of memory is recorded and no larger one is tried for that
   peer; its memory model (`iclscale.trainer.footprint`) is set against the measured peak (estimate/peak ≥ 1: an
   upper bound). Then the pack size `pack_size: auto` chooses, and a pack twice that trained as a sweep
   trains it (in memory-sized parts), to show that it does not run out of memory;
3. one short table, printed last; every number goes to DIR/device_check.json (written after every
   measurement, so a killed run keeps what it measured).

A time budget (`--budget`, seconds from the start) skips what would not fit — each skip is recorded with
its reason — rather than overrun: a measurement starts only when the time it is predicted to take (from
the nearest size measured) is left; only the first size of each peer is measured whatever is left.
`--quick` shrinks every part (small packs, few steps, eager iclscale, the eager loop) so that the CPU runs
the same code in under two minutes on an idle machine (tests/test_device_check.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# JAX must neither take most of the GPU at start (its default) nor keep what it freed: torch shares the device
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
os.environ.setdefault("XLA_PYTHON_CLIENT_ALLOCATOR", "platform")

TOLERANCE = (1e-3, 1e-5)
"""(relative, absolute) tolerance of every final metric, CPU against the device: float32 rounding compounds
over the steps (the compiled-against-eager contract of tests/test_trainer_contract.py uses the same)."""
TOLERANCE_BY_METRIC = {"M_isotropy_ratio": None}
"""Metrics compared otherwise: None, not compared. M_isotropy_ratio is σ_max/σ_min of M, and σ_min is still at
rounding level after a few steps: its value is float noise on either device."""
SPEED_MODELS = ("softmax_window", "nonlinear_icl")
RECOMPILE_LIMITS = {"recompile_limit": 64, "cache_size_limit": 64, "accumulated_recompile_limit": 1024,
                    "accumulated_cache_size_limit": 1024}  # fmt: skip
"""torch.compile recompiles a function for every pack size (static shapes) and, past 8 sizes by default,
silently runs it eagerly: the compiled peers would be timed uncompiled at the larger sizes."""
GRAPH_STEPS = {"softmax_window": 8, "nonlinear_icl": 4}
"""Steps per replayed CUDA graph (a divisor of the timed steps, so that no step runs outside a graph)."""
SIZE_KEY, TRAINED_SIZE_KEY = "K", "trained_K"
"""The pack size's keys in device_check.json (speed and auto entries): kept as the runs stored in
benchmarks/measured/ have them, so that a new run compares with those."""


@dataclass
class Plan:
    """What one run measures: the full check or its quick CPU rehearsal."""

    sizes: dict[str, list[int]]
    steps: dict[str, int]
    max_pack_size: dict[str, int]
    repeats: int
    budget: float
    iclscale_compile: str
    torch_peer: str
    parity_compiled: bool


FULL = Plan(
    sizes={"softmax_window": [1024], "nonlinear_icl": [1024]},
    steps={"softmax_window": 200, "nonlinear_icl": 20},
    max_pack_size={"softmax_window": 2**21, "nonlinear_icl": 2**17},
    repeats=2,
    budget=420.0,
    iclscale_compile="on",
    torch_peer="torch compiled",
    parity_compiled=True,
)
QUICK = Plan(
    sizes={"softmax_window": [64], "nonlinear_icl": [8]},
    steps={"softmax_window": 16, "nonlinear_icl": 4},
    max_pack_size={"softmax_window": 128, "nonlinear_icl": 16},
    repeats=1,
    budget=90.0,
    iclscale_compile="off",
    torch_peer="torch eager",
    parity_compiled=False,
)


@dataclass
class Budget:
    seconds: float
    start: float = field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float:
        return self.seconds - self.elapsed()


class Report:
    """Everything measured, written to DIR/device_check.json after every addition."""

    def __init__(self, out: Path, header: dict):
        self.path = out / "device_check.json"
        self.data = {**header, "parity": [], "speed": [], "auto": [], "skipped": []}
        self.write()

    def add(self, part: str, entry: dict) -> dict:
        self.data[part].append(entry)
        self.write()
        return entry

    def skip(self, what: str, why: str) -> None:
        self.add("skipped", {"what": what, "why": why})

    def write(self) -> None:
        partial = self.path.with_suffix(".tmp")
        partial.write_text(json.dumps(self.data, indent=1, default=_plain))
        partial.replace(self.path)


def _plain(value):
    return None if isinstance(value, float) and not math.isfinite(value) else str(value)


# 1. parity ----------------------------------------------------------------------------------------
def parity_variants(name: str, device: str, plan: Plan) -> list[tuple[str, dict]]:
    """(variant, train_pack keywords) to run on the device for a study."""
    from iclscale.trainer.registry import study_info

    variants = [("eager", {"compile": "off"})]
    if device.startswith("cuda") and study_info(name).load().trainable:  # no training steps: nothing to graph
        variants.append(("eager, CUDA graphs of 4 steps", {"compile": "off", "graph_steps": 4}))
        if plan.parity_compiled and name in SPEED_MODELS:
            variants.append(("compiled, CUDA graphs of 4 steps", {"compile": "on", "graph_steps": 4}))
    return variants


def small_pack(name: str):
    """The study's smoke config (its paper's `PaperLaws(smoke=...)`): a pack of a few configs that trains in seconds,
    differing in train params as in a sweep."""
    from iclscale.paper import smoke_configs
    from iclscale.trainer.registry import study_info

    info, smoke = study_info(name), smoke_configs()[name]
    resolved = [info.resolve(params, seed, "device check") for seed, params in enumerate(smoke.configs())]
    return info, [c for c, _ in resolved], resolved[0][1]


def compare(reference, candidate, point) -> dict:
    """Every final metric of every config, the candidate against the reference, within `TOLERANCE`."""
    metrics, worst = {}, (0.0, None)
    ok = reference.status == candidate.status and reference.record_steps == candidate.record_steps
    for k in range(len(reference.configs)):
        a, b = reference.final_metrics(k, point), candidate.final_metrics(k, point)
        ok &= a.keys() == b.keys()
        for name in a.keys() & b.keys():
            tolerance = TOLERANCE_BY_METRIC.get(name, TOLERANCE)
            entry = metrics.setdefault(name, {"compared": tolerance is not None, "max_abs_diff": 0.0, "ok": True})
            if tolerance is None:
                continue
            rtol, atol = tolerance
            same = math.isclose(a[name], b[name], rel_tol=rtol, abs_tol=atol) or (
                math.isnan(a[name]) and math.isnan(b[name])
            )
            diff = abs(a[name] - b[name]) if not (math.isnan(a[name]) or math.isnan(b[name])) else 0.0
            entry["max_abs_diff"] = max(entry["max_abs_diff"], diff) if same else math.inf
            entry["ok"] &= same
            ok &= same
            scaled = diff / max(atol, rtol * abs(a[name]))
            if scaled > worst[0] or not same:
                worst = (scaled if same else math.inf, name)
    return {"ok": bool(ok), "status_equal": reference.status == candidate.status, "metrics": metrics,
            "worst_metric": worst[1], "worst_over_tolerance": worst[0]}  # fmt: skip


def check_parity(device: str, plan: Plan, budget: Budget, report: Report, reserve: float) -> None:
    from iclscale.paper import smoke_configs
    from iclscale.trainer.training import train_pack

    for name in smoke_configs():  # every installed study: a new paper is checked without editing a list
        if budget.left() < reserve:
            report.skip(f"parity {name}", f"time budget: {budget.left():.0f} s left, {reserve:.0f} s kept for speed")
            continue
        info, configs, point = small_pack(name)
        try:
            reference = train_pack(info, configs, [point], 4, device="cpu", compile="off")
        except Exception as error:
            report.add("parity", {"study": name, "variant": "cpu reference", "ok": False, "error": _error(error)})
            continue
        for variant, options in parity_variants(name, device, plan):
            entry, started = {"study": name, "variant": variant, "device": device}, time.perf_counter()
            try:
                candidate = train_pack(info, configs, [point], 4, device=device, **options)
                entry.update(compare(reference, candidate, point), compiled=candidate.compiled)
                entry.update(compile_path(candidate), graphed=candidate.graphed)
            except Exception as error:
                entry.update(ok=False, error=_error(error))
            entry["seconds"] = round(time.perf_counter() - started, 2)
            report.add("parity", entry)


# 2. speed -----------------------------------------------------------------------------------------
@dataclass
class Measured:
    rate: float = math.nan
    first_s: float = math.nan
    best_s: float = math.inf
    peak_bytes: int | None = None
    error: str | None = None
    out_of_memory: bool = False


def is_out_of_memory(error: BaseException) -> bool:
    import torch

    text = str(error)
    return isinstance(error, torch.cuda.OutOfMemoryError) or "RESOURCE_EXHAUSTED" in text or "out of memory" in text


def measure(prepare: Callable[[], Callable], pack_size: int, steps: int, repeats: int, device: str) -> Measured:
    """Prepare (compiling where the peer does), a first call, then the best of `repeats` timed calls; peak
    memory over all of them (CUDA). Out-of-memory is caught and recorded."""
    import torch

    cuda = device.startswith("cuda")
    found = Measured()
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
    try:
        started = time.perf_counter()
        run = prepare()
        run()
        found.first_s = time.perf_counter() - started
        for _ in range(repeats):
            started = time.perf_counter()
            run()  # returns host values: the device work is done
            found.best_s = min(found.best_s, time.perf_counter() - started)
        found.rate = pack_size * steps / found.best_s
    except Exception as error:
        found.out_of_memory = is_out_of_memory(error)
        found.error = "out of memory" if found.out_of_memory else _error(error)
    finally:
        if cuda:
            found.peak_bytes = torch.cuda.max_memory_allocated() - base
            run = None
            torch.cuda.empty_cache()
    return found


def peers(model: str, device: str, plan: Plan) -> dict[str, Callable]:
    """Peer name -> prepare(pack_size, steps) -> run."""
    from peers import torch_loop

    steps_per_graph = GRAPH_STEPS[model]
    chosen = {"iclscale": lambda size, steps: iclscale_prepare(model, size, steps, device, plan.iclscale_compile, 0)}
    if device.startswith("cuda"):
        chosen[f"iclscale graphs/{steps_per_graph}"] = lambda size, steps: iclscale_prepare(
            model, size, steps, device, plan.iclscale_compile, steps_per_graph
        )
    compiled = plan.torch_peer == "torch compiled"
    chosen[plan.torch_peer] = lambda size, steps: torch_loop.prepare(
        model, size, steps, steps, device, compiled=compiled
    )
    chosen["jax"] = lambda size, steps: jax_prepare(model, size, steps, device)
    return chosen


ICLSCALE_PATH: dict[str, object] = {}
"""How iclscale's last run went: compiled, its compile path, graphs per step and graph breaks, replayed from
CUDA graphs (a failed capture falls back quietly)."""


def compile_path(result) -> dict:
    """How a PackResult's steps ran: the compile path, compiled graphs per step, what broke the graph."""
    return {"compile_path": result.compile_path, "graphs_per_step": result.graphs, "graph_breaks": result.graph_breaks}


def iclscale_prepare(model: str, pack_size: int, steps: int, device: str, compile: str, graph_steps: int) -> Callable:
    """iclscale through its Python API, the pack trained whole (a memory limit beyond any device: the point is
    to find where it runs out), recording at the start and the end only."""
    from peers import iclscale_run

    info, configs, point = iclscale_run.pack_configs(model, pack_size, steps)
    options = {"graph_steps": graph_steps, "memory_limit": 2**62}

    def run() -> float:
        result = iclscale_run.train(info, configs, point, steps, device, compile, **options)
        ICLSCALE_PATH.update(compiled=result.compiled, graphed=result.graphed, **compile_path(result))
        return float(result.probes["train_loss"][-1].mean())

    return run


JAX_PROGRAM_BYTES: dict[tuple, int] = {}


def jax_prepare(model: str, pack_size: int, steps: int, device: str) -> Callable:
    """The JAX peer, compiled here; its memory is XLA's buffer assignment of the program (arguments, outputs
    and temporaries), which the platform allocator does not report as a peak."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from peers import jax_loop

    seed = jax.device_put(jnp.uint32(0), jax_loop.device_for(device))
    compiled = jax.jit(jax_loop.train, static_argnums=(0, 1, 2)).lower(model, pack_size, steps, seed).compile()
    try:
        memory = compiled.memory_analysis()
        JAX_PROGRAM_BYTES[(model, pack_size)] = int(
            memory.argument_size_in_bytes + memory.output_size_in_bytes + memory.temp_size_in_bytes
        )
    except Exception:  # not every backend reports it
        pass
    return lambda: float(np.asarray(compiled(seed)).mean())


def memory_model(model: str, steps: int, device: str) -> tuple[int, int]:
    """iclscale's (fixed, per-config) bytes for this model on this device (measured once per process)."""
    import torch
    from peers import iclscale_run

    from iclscale.trainer import footprint
    from iclscale.trainer.training import short_run

    info, configs, point = iclscale_run.pack_configs(model, footprint.PROBE_SIZES[-1], steps)
    return footprint.per_config_bytes(info, configs, [point], torch.device(device), short_run)


def cpu_peak(model: str, pack_size: int, steps: int) -> int:
    """On the CPU, where torch keeps no allocator statistics: the live-tensor peak of a short run of the pack
    (`footprint.peak_bytes`, the same short run the memory model is measured on)."""
    import torch
    from peers import iclscale_run

    from iclscale.trainer import footprint
    from iclscale.trainer.training import short_run

    info, configs, point = iclscale_run.pack_configs(model, pack_size, steps)
    return footprint.peak_bytes(info, configs, [point], torch.device("cpu"), short_run)


def sizes_to_try(model: str, device: str, plan: Plan, per_config: int) -> list[int]:
    """Doubling from the plan's first size to its largest, and on CUDA to twice the device's memory over the
    memory model's bytes per config (measured eagerly: compiled steps need less, so a pack past the model's
    limit may still fit)."""
    import torch

    cap = plan.max_pack_size[model]
    if device.startswith("cuda"):
        cap = min(cap, 2 * torch.cuda.get_device_properties(device).total_memory // per_config)
    sizes = [plan.sizes[model][0]]
    while sizes[-1] * 2 <= cap:
        sizes.append(sizes[-1] * 2)
    return sizes


def visiting_order(count: int) -> list[int]:
    """Indices 0 … count − 1, the two ends first and then the middle of the widest gap left: when time runs
    out the sizes measured are spread over the range, and for a peer that runs out of memory at the top the
    order bisects towards the largest pack that fits."""
    order = sorted({0, count - 1}) if count else []
    gaps = [(0, count - 1)] if count > 2 else []
    while gaps:
        gaps.sort(key=lambda gap: gap[1] - gap[0])
        low, high = gaps.pop()
        if high - low >= 2:
            middle = (low + high) // 2
            order.append(middle)
            gaps += [(low, middle), (middle, high)]
    return order


def predicted_seconds(done: dict[int, Measured], pack_size: int, repeats: int) -> float:
    """Time to measure a pack of `pack_size`: from the nearest smaller size measured, the setup and compilation
    again and the calls scaled with the size (pessimistic where larger packs run faster per config); 0 when
    none is."""
    smaller = [k for k in done if k < pack_size] or list(done)
    if not smaller:
        return 0.0
    k = max(smaller) if any(x < pack_size for x in done) else min(smaller)
    m = done[k]
    return max(0.0, m.first_s - m.best_s) + (1 + repeats) * m.best_s * pack_size / k


def check_speed(model: str, device: str, plan: Plan, budget: Budget, report: Report) -> None:
    from iclscale.trainer import footprint

    steps, cuda = plan.steps[model], device.startswith("cuda")
    fixed, per_config = memory_model(model, steps, device)
    sizes = sizes_to_try(model, device, plan, per_config)
    chosen = peers(model, device, plan)
    if importlib.util.find_spec("jax") is None:
        chosen.pop("jax")
        report.skip(f"{model} jax", "JAX not installed")
    fits_below: dict[str, int] = {}  # peer -> the smallest size that ran out of memory
    done: dict[str, dict[int, Measured]] = {peer: {} for peer in chosen}
    for index in visiting_order(len(sizes)):
        size = sizes[index]
        for peer, prepare in chosen.items():
            if size >= fits_below.get(peer, math.inf):
                why = f"out of memory in a pack of {fits_below[peer]}" if fits_below[peer] else "failed at another size"
                report.skip(f"{model} {peer} pack of {size}", why)
                continue
            predicted = predicted_seconds(done[peer], size, plan.repeats)
            if index and budget.left() < max(predicted, 5.0):  # the first size is measured whatever is left
                why = f"time budget: {budget.left():.0f} s left, {predicted:.0f} s"
                report.skip(f"{model} {peer} pack of {size}", why)
                continue
            found = measure(lambda prepare=prepare, size=size: prepare(size, steps), size, steps, plan.repeats, device)
            entry = {"model": model, SIZE_KEY: size, "peer": peer, "steps": steps, "model_steps_per_s": found.rate,
                     "first_call_s": found.first_s, "best_s": found.best_s, "peak_bytes": found.peak_bytes,
                     "peak_source": "torch.cuda.max_memory_allocated" if cuda else None,
                     "error": found.error, "out_of_memory": found.out_of_memory}  # fmt: skip
            if peer == "jax":
                entry["peak_bytes"] = JAX_PROGRAM_BYTES.get((model, size))
                entry["peak_source"] = "XLA buffer assignment"
            if peer.startswith("iclscale"):
                entry.update(ICLSCALE_PATH)
                if not cuda and found.error is None:
                    entry["peak_bytes"], entry["peak_source"] = cpu_peak(model, size, steps), "footprint.peak_bytes"
                entry["estimated_bytes"] = footprint.estimated_bytes(fixed, per_config, size)
                if entry["peak_bytes"]:
                    entry["estimate_over_peak"] = entry["estimated_bytes"] / entry["peak_bytes"]
            report.add("speed", entry)
            if found.out_of_memory:
                fits_below[peer] = min(size, fits_below.get(peer, size))
            elif found.error is None:
                done[peer][size] = found
            else:  # not a matter of size: no other size is tried
                fits_below[peer] = 0
    report.data["speed"].sort(key=lambda e: (SPEED_MODELS.index(e["model"]), e[SIZE_KEY], list(chosen).index(e["peer"])
                                             if e["peer"] in chosen else 0))  # fmt: skip
    report.write()


def check_auto(model: str, device: str, plan: Plan, budget: Budget, report: Report) -> None:
    """The pack size `pack_size: auto` chooses, and a pack twice as large trained as a sweep trains it."""
    import torch
    from peers import iclscale_run

    from iclscale.trainer import footprint
    from iclscale.trainer.training import short_run

    dev = torch.device(device)
    info, configs, point = iclscale_run.pack_configs(model, footprint.PROBE_SIZES[-1], plan.steps[model])
    fixed, per_config = memory_model(model, plan.steps[model], device)
    free = footprint.free_memory(dev)
    auto = footprint.auto_pack_size(info, configs, [point], dev, short_run)
    entry = {"model": model, "auto_pack_size": auto, "fixed_bytes": fixed, "per_config_bytes": per_config,
             "free_bytes": free, "memory_fraction": footprint.MEMORY_FRACTION}  # fmt: skip
    size = min(2 * auto, plan.max_pack_size[model])
    speed = [e for e in report.data["speed"] if e["model"] == model and e["peer"] == "iclscale" and not e["error"]]
    rate = max((e["model_steps_per_s"] for e in speed), default=0.0)
    predicted = 2 * size * plan.steps[model] / rate if rate else math.inf
    if budget.left() < predicted:
        report.skip(f"{model} auto-sized pack of {size}", f"time budget: {budget.left():.0f} s left, {predicted:.0f} s")
        report.add("auto", entry)
        return
    steps = plan.steps[model]
    trained = lambda: iclscale_run.prepare(model, size, steps, steps, device, plan.iclscale_compile)  # noqa: E731
    found = measure(trained, size, steps, 0, device)
    entry[TRAINED_SIZE_KEY], entry["parts"] = size, math.ceil(size / auto)
    entry["error"], entry["out_of_memory"], entry["peak_bytes"] = found.error, found.out_of_memory, found.peak_bytes
    entry["seconds"] = found.first_s
    report.add("auto", entry)


# 3. the table -------------------------------------------------------------------------------------
def table(data: dict) -> str:
    lines = [f"device check on {data['device']} ({data['mode']}, {data['elapsed_s']:.0f} s of {data['budget_s']:.0f})"]
    parity = data["parity"]
    failed = [e for e in parity if not e.get("ok")]
    lines.append(f"CPU vs {data['target']}: {len(parity) - len(failed)} of {len(parity)} study variants agree "
                 f"(rtol {TOLERANCE[0]:g}, atol {TOLERANCE[1]:g})")  # fmt: skip
    studies = sorted({e["study"] for e in parity})
    lines.append("  " + ", ".join(f"{s} {'ok' if all(e.get('ok') for e in parity if e['study'] == s) else 'FAIL'}"
                                  for s in studies))  # fmt: skip
    for e in failed:
        lines.append(f"  FAIL {e['study']} [{e['variant']}]: {e.get('error') or e.get('worst_metric')}")
    uncaptured = [f"{e['study']} [{e['variant']}]" for e in parity if "graphs" in e["variant"] and not e.get("graphed")]
    uncaptured += [
        f"{e['model']} pack of {e[SIZE_KEY]}" for e in data["speed"] if "graphs" in e["peer"] and not e.get("graphed")
    ]
    if uncaptured:
        lines.append(f"  no CUDA graph captured (steps launched one by one): {', '.join(uncaptured)}")
    lines += speed_rows(data["speed"])
    for e in data["auto"]:
        trained = (f"; a pack of {e[TRAINED_SIZE_KEY]} in {e['parts']} part(s): "
                   f"{'ok' if not e.get('error') else e['error']}") if TRAINED_SIZE_KEY in e else ""  # fmt: skip
        lines.append(f"pack_size auto, {e['model']}: {e['auto_pack_size']:,} configs "
                     f"({e['per_config_bytes']:,} B each){trained}")  # fmt: skip
    if data["skipped"]:
        lines.append(f"skipped: {len(data['skipped'])} (see device_check.json)")
    return "\n".join(lines)


def speed_rows(speed: list[dict]) -> list[str]:
    """One row per model and pack size: each peer's model-steps/s (OOM: out of memory; err: see the JSON) and
    peak MiB, and iclscale's best against JAX; the memory model's estimate over iclscale's measured peak."""
    peers = list(dict.fromkeys(e["peer"] for e in speed))
    width = max([16, *(len(p) for p in peers)])
    head = f"{'model':<15} {'pack':>8} " + " ".join(f"{p:>{width}}" for p in peers)
    lines = [
        "model-steps/s (peak MiB); est/peak: iclscale's memory model over its measured peak",
        head + "  ours/jax  est/peak",
    ]
    for model, size in dict.fromkeys((e["model"], e[SIZE_KEY]) for e in speed):
        row = {e["peer"]: e for e in speed if (e["model"], e[SIZE_KEY]) == (model, size)}
        cells = []
        for peer in peers:
            e = row.get(peer)
            if e is None:
                cells.append("-")
            elif e["error"] is not None:
                cells.append("OOM" if e["out_of_memory"] else "err")
            else:
                peak = f" ({_short(e['peak_bytes'] / 2**20)})" if e.get("peak_bytes") else ""
                cells.append(f"{_short(e['model_steps_per_s'])}{peak}")
        ours = max((e["model_steps_per_s"] for p, e in row.items() if p.startswith("iclscale") and not e["error"]),
                   default=math.nan)  # fmt: skip
        jax = row.get("jax")
        versus = ours / jax["model_steps_per_s"] if jax and not jax["error"] else math.nan
        ratio = row.get("iclscale", {}).get("estimate_over_peak") or math.nan
        lines.append(
            f"{model:<15} {size:>8} " + " ".join(f"{c:>{width}}" for c in cells) + f"  {versus:>8.2f}  {ratio:>8.2f}"
        )
    return lines


def _short(rate: float) -> str:
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if rate >= scale:
            return f"{rate / scale:.3g}{suffix}"
    return f"{rate:.3g}"


# The command --------------------------------------------------------------------------------------
def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="folder for device_check.json")
    parser.add_argument("--device", default="cuda", help="the device checked against the CPU (default cuda)")
    parser.add_argument("--quick", action="store_true", help="small packs and few steps: a rehearsal")
    parser.add_argument("--budget", type=float, help="seconds for the whole check (default 420, quick 100)")
    parser.add_argument("--models", nargs="+", choices=SPEED_MODELS, default=list(SPEED_MODELS))
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (the CPU reference and CPU peers)")
    args = parser.parse_args(argv)
    if args.budget is not None and args.budget <= 0:
        parser.error("--budget must be positive")
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    from peers.settings import limit_threads

    limit_threads(args.threads)  # before torch and jax are imported
    import torch
    import torch._dynamo

    torch.set_num_threads(args.threads)
    for name, limit in RECOMPILE_LIMITS.items():  # names differ between torch versions
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, limit)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print(f"--device {args.device}: torch sees no CUDA device here (--device cpu rehearses)", file=sys.stderr)
        return 2
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        print(f"--out {args.out}: cannot create it ({error.strerror})", file=sys.stderr)
        return 2
    plan = QUICK if args.quick else FULL
    budget = Budget(args.budget or plan.budget)
    name = torch.cuda.get_device_name(args.device) if args.device.startswith("cuda") else platform.processor()
    jax_version = None
    if importlib.util.find_spec("jax"):
        import jax

        jax_version = jax.__version__
    header = {"device": name or "cpu", "target": args.device, "mode": "quick" if args.quick else "full",
              "torch": torch.__version__, "jax": jax_version, "python": platform.python_version(),
              "budget_s": budget.seconds, "elapsed_s": 0.0, "threads": args.threads,
              "tolerance": {"default": TOLERANCE, **TOLERANCE_BY_METRIC}}  # fmt: skip
    report = Report(args.out, header)  # fmt: skip
    check_parity(args.device, plan, budget, report, reserve=0.6 * budget.seconds)
    for model in args.models:
        share = Budget(budget.left() / (len(args.models) - args.models.index(model)))
        try:
            check_speed(model, args.device, plan, share, report)
            check_auto(model, args.device, plan, share, report)
        except Exception as error:  # one model's failure must not lose the other's numbers
            report.skip(f"{model} speed", _error(error))
    report.data["elapsed_s"] = budget.elapsed()
    report.write()
    print(table(report.data))
    return 0


def _error(error: BaseException) -> str:
    last = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
    where = f" at {Path(last[0].filename).name}:{last[0].lineno}" if last else ""
    return f"{type(error).__name__}: {str(error)[:300]}{where}"


if __name__ == "__main__":
    sys.exit(main())

"""The memory model behind `pack_size: auto` (iclscale.trainer.footprint): the parts it cuts, and its estimate set
against
the measured peak of live tensors on the CPU (torch keeps no CPU allocator statistics; `LiveBytes` counts them)."""

import pytest
import torch

from iclscale.errors import UserError
from iclscale.trainer import footprint
from iclscale.trainer.registry import study_info
from iclscale.trainer.training import short_run

SMALL = {
    "softmax_window": {"steps": 6, "d": 3, "n": 12, "tasks_per_iter": 2, "test_tasks": 64},
    "cooccurrence": {"steps": 6, "d": 24, "n": 12, "m": 16, "m1": 8, "init": "theory", "lr": 0.1, "n_test": 60},
}


def _pack(name, pack_size):
    info = study_info(name)
    resolved = [info.resolve(SMALL[name], seed, "t") for seed in range(pack_size)]
    return info, [c for c, _ in resolved], [resolved[0][1]]


def test_the_pack_size_grows_with_the_budget_and_shrinks_with_the_bytes_per_config():
    budgets = [0, 10, 1_000, 10**6, 10**9]
    sizes = [footprint.fits(budget, 100, 7) for budget in budgets]
    assert sizes == sorted(sizes) and sizes[0] == 1  # at least one config, even when nothing fits
    assert footprint.fits(10**6, 100, 7) == (10**6 - 100) // 7
    assert footprint.fits(10**6, 100, 8) < footprint.fits(10**6, 100, 7)
    for budget in budgets[2:]:  # the chosen size is the largest whose estimate stays within the budget
        size = footprint.fits(budget, 100, 7)
        assert footprint.estimated_bytes(100, 7, size) <= budget < footprint.estimated_bytes(100, 7, size + 1)


def test_parts_are_never_larger_than_the_auto_pack_size():
    info, configs, points = _pack("softmax_window", 40)
    fixed, per_config = footprint.per_config_bytes(info, configs, points, torch.device("cpu"), short_run)
    limit = footprint.estimated_bytes(fixed, per_config, 15)
    auto = footprint.auto_pack_size(info, configs, points, torch.device("cpu"), short_run, memory_limit=limit)
    assert auto == 15
    parts = footprint.pack_parts(info, configs, points, torch.device("cpu"), short_run, memory_limit=limit)
    assert all(len(members) <= auto for members, _ in parts) and sum(len(m) - p for m, p in parts) == 40


@pytest.mark.parametrize("name", list(SMALL))
def test_the_estimate_bounds_the_measured_peak_from_above(name):
    """Measured at 8 and 16 configs, extrapolated to 48: at least the peak a short run of 48 reaches. (For
    cooccurrence, whose autograd makes storage-less zero tensors, measuring raised until LiveBytes skipped them.)"""
    info, configs, points = _pack(name, 48)
    fixed, per_config = footprint._measure(info, configs, points, torch.device("cpu"), short_run)
    measured = footprint.peak_bytes(info, configs, points, torch.device("cpu"), short_run)
    estimate = footprint.estimated_bytes(fixed, per_config, 48)
    assert measured > 0 and estimate >= measured, (estimate, measured)
    assert estimate <= 2 * measured  # an upper bound that still says something


def test_cuda_is_probed_at_sizes_where_the_allocators_512_byte_blocks_are_noise():
    """In packs of 8 and 16 a tiny model's per-config tensors fit one 512-byte CUDA block each: the difference of
    the two peaks would hide the bytes per config (as it did on an H100: 640 B measured, 4.3 kB real)."""
    small, large = footprint.probe_sizes(torch.device("cuda"))
    assert small >= 512 and large >= 2 * small  # a byte per config already fills a block at the smaller size
    assert footprint.probe_sizes(torch.device("cpu")) == footprint.PROBE_SIZES


def test_an_evaluation_past_the_machines_memory_is_refused_before_anything_runs(monkeypatch):
    """`train nonlinear_icl eval_prompts=10000000 l_ts=10000` held 4.2 GB after a minute and grew; now refused
    at once, in one line with both numbers."""
    from iclscale.trainer.training import train_pack

    def never(*args, **kwargs):
        raise AssertionError("sized or trained before the check")

    monkeypatch.setattr(footprint, "free_memory", lambda device: 10**9)
    monkeypatch.setattr(footprint, "pack_parts", never)
    info = study_info("nonlinear_icl")
    config, point = info.resolve({"eval_prompts": 10**7, "l_ts": 10**4}, 0, "t")
    with pytest.raises(UserError) as refused:
        train_pack(info, [config], [point], 1)
    message = str(refused.value)
    assert "\n" not in message and "eval_prompts=10000000, l_ts=10000" in message
    assert "needs at least 24 TB" in message and "1 GB free" in message
    default_config, default_point = info.resolve({}, 0, "t")
    with pytest.raises(AssertionError, match="sized or trained"):  # a default evaluation passes the check
        train_pack(info, [default_config], [default_point], 1)


def test_every_study_declares_what_its_evaluation_holds():
    """Issue 38: the check before training covers eval prompts, test lengths and Monte Carlo sizes of every
    built-in study (an installed paper's may leave it out: not estimated). Each paper's tests hold its
    declarations equal to what its code draws (`tests/evaluation_sizes.py`)."""
    import importlib

    from iclscale.papers import BUILT_IN

    studies = [
        info
        for name in BUILT_IN
        for info in importlib.import_module(f"iclscale.papers.{name}").PAPER.load_declarations()
    ]
    assert studies and [info.name for info in studies if info.eval_values is None] == []


def test_eval_points_of_equal_size_are_checked_without_comparing_the_points():
    """Two points with the same test set, one with L_test unset (None) and one set: the check compares sizes only
    (comparing the points themselves raised TypeError, None against a float)."""
    from iclscale.trainer.footprint import check_evaluation

    info = study_info("softmax_window")
    config, unset = info.resolve({}, 0, "t")
    _, tested = info.resolve({"L_test": 2.0}, 0, "t")
    check_evaluation(info, [config], [unset, tested], torch.device("cpu"))

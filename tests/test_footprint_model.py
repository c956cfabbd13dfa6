"""The memory model behind `pack_size: auto` (iclscale.trainer.footprint): the parts it cuts, and its estimate set
against the measured peak of live tensors on the CPU (torch keeps no CPU allocator statistics; `LiveBytes` counts
them), for every study in the registry at its smoke config (its paper's `PaperLaws(smoke=...)`). A paper's own
evaluation sizes are tested in its folder (tests/papers/<paper>/test_<paper>_evaluation_size.py)."""

import pytest
import torch

from iclscale.paper import smoke_configs
from iclscale.trainer import footprint
from iclscale.trainer.registry import study_info, study_names
from iclscale.trainer.training import short_run

SMOKE = smoke_configs()  # every study at a small size, from its paper's laws record
STUDIES = list(SMOKE)


def _pack(name, pack_size):
    """`pack_size` seeds of the study's smoke config (the params its pack's members share)."""
    info = study_info(name)
    resolved = [info.resolve(SMOKE[name].config, seed, "t") for seed in range(pack_size)]
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


def test_the_checks_below_cover_every_study():
    assert STUDIES and sorted(STUDIES) == study_names()


@pytest.mark.parametrize("name", STUDIES)
def test_parts_are_never_larger_than_the_auto_pack_size(name):
    info, configs, points = _pack(name, 40)
    fixed, per_config = footprint.per_config_bytes(info, configs, points, torch.device("cpu"), short_run)
    limit = footprint.estimated_bytes(fixed, per_config, 15)
    auto = footprint.auto_pack_size(info, configs, points, torch.device("cpu"), short_run, memory_limit=limit)
    assert auto == 15
    parts = footprint.pack_parts(info, configs, points, torch.device("cpu"), short_run, memory_limit=limit)
    assert all(len(members) <= auto for members, _ in parts) and sum(len(m) - p for m, p in parts) == 40


@pytest.mark.parametrize("name", STUDIES)
def test_the_estimate_bounds_the_measured_peak_from_above(name):
    """Measured at 8 and 16 configs, extrapolated to 48: at least the peak a short run of 48 reaches. (A study whose
    autograd makes storage-less zero tensors made measuring raise until LiveBytes skipped them.)"""
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

"""The trainer contract: compiled = eager, CPU = CUDA, float64 end to end, full-batch GD, record schedules,
memory-sized parts, and an eval point that fails alone."""

import traceback
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._device import _device_constructors

from iclscale.paper import smoke_configs
from iclscale.trainer.params import RecordSchedule
from iclscale.trainer.registry import study_info
from iclscale.trainer.study import Net, Pack
from iclscale.trainer.training import PackTrainer, short_run, train_pack

SMOKE = smoke_configs()
"""Every installed study at a small size, from its paper's laws record (`PaperLaws(smoke=...)`): a new paper's studies
are tested here without editing a list."""
STUDIES = list(SMOKE)


def _configs(name, **extra):
    info = study_info(name)
    resolved = [info.resolve({**params, **extra}, seed, "t") for seed, params in enumerate(SMOKE[name].configs())]
    return info, [c for c, _ in resolved], resolved[0][1]


ILL_CONDITIONED = {"M_isotropy_ratio"}
"""σ_max/σ_min of M, where σ_min is still at rounding level after a few steps: float noise, not a result."""


def _assert_results_close(a, b, point, rtol, atol):
    assert a.status == b.status and a.record_steps == b.record_steps
    for k in range(len(a.configs)):
        fa, fb = a.final_metrics(k, point), b.final_metrics(k, point)
        assert fa.keys() == fb.keys()
        for name in fa.keys() - ILL_CONDITIONED:
            assert fa[name] == pytest.approx(fb[name], rel=rtol, abs=atol, nan_ok=True), name


@pytest.mark.parametrize("name", STUDIES)
def test_the_compiled_step_equals_the_eager_step(name):
    info, configs, point = _configs(name)
    eager = train_pack(info, configs, [point], 10, compile="off")
    compiled = train_pack(info, configs, [point], 10, compile="on")
    assert compiled.compiled == bool(info.load().trainable) and not eager.compiled  # no steps: nothing to compile
    _assert_results_close(compiled, eager, point, rtol=1e-3, atol=1e-5)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("name", STUDIES)
def test_cuda_equals_cpu(name):
    info, configs, point = _configs(name)
    cpu = train_pack(info, configs, [point], 10, device="cpu", compile="off")
    cuda = train_pack(info, configs, [point], 10, device="cuda", compile="off")
    assert cuda.device.startswith("cuda")
    _assert_results_close(cuda, cpu, point, rtol=1e-3, atol=1e-5)


def test_float64_is_used_end_to_end():
    info, configs, point = _configs("softmax_window", dtype="float64")
    trainer = PackTrainer(info, configs, [point], torch.device("cpu"))
    assert trainer.pack.hp["L"].dtype == torch.float64
    assert all(p.dtype == torch.float64 for p in trainer.params.values())
    assert all(s.dtype == torch.float64 for s in trainer.opt_state.values())
    batch = trainer.pack.map(lambda c: trainer.study.batch(c, 0))
    assert all(x.dtype == torch.float64 for x in batch)
    wide = trainer.run(RecordSchedule(every=10))
    narrow = train_pack(info, _configs("softmax_window")[1], [_configs("softmax_window")[2]], 10)
    for k in range(3):  # the same training in another precision: close, not equal
        a = wide.final_metrics(k, point)["M_spectral_norm"]
        b = narrow.final_metrics(k, _configs("softmax_window")[2])["M_spectral_norm"]
        assert a == pytest.approx(b, rel=1e-2) and a != b
    assert torch.get_default_dtype() == torch.float32  # restored after the pack


def test_full_batch_gradient_descent_is_gradient_descent_on_the_fixed_training_set():
    info = study_info("softmax_window")
    settings = {**SMOKE["softmax_window"].config, "optimizer": "gd", "schedule": "constant", "lr_decay": 1.0}
    settings.update(lr=0.5, train_set_tasks=16, steps=15)
    config, point = info.resolve(settings, 3, "t")
    result = train_pack(info, [config], [point], 15)
    # the same by hand: torch.optim.SGD on the set the study draws once
    study, pack = info.load(), Pack.build(info, [config])
    x_context, y_context, x_query, f_query = (t[0] for t in pack.map(study.training_set))
    module = study.module(pack.view())
    init = {n: v[0] for n, v in pack.map(study.init, randomness="same").items()}
    M_K = init["M_K"].clone().requires_grad_(True)
    optimizer = torch.optim.SGD([M_K], lr=0.5)
    for _ in range(15):
        optimizer.zero_grad()
        ((Net(module, {"M_K": M_K})(x_context, y_context, x_query) - f_query) ** 2).mean().backward()
        optimizer.step()
    by_hand = torch.linalg.matrix_norm(M_K.detach().T @ M_K.detach(), ord=2).item()
    assert result.final_metrics(0, point)["M_spectral_norm"] == pytest.approx(by_hand, rel=1e-4)


def test_full_batch_gradient_descent_needs_a_study_with_a_training_set():
    from iclscale.errors import UserError

    with pytest.raises(UserError, match="optimizer must be one of sgd, adam"):
        study_info("nonlinear_icl").resolve({"optimizer": "gd"}, 0, "t")


@pytest.mark.parametrize(
    "schedule", [RecordSchedule(log=6), RecordSchedule(steps=(0, 3, 7, 50)), RecordSchedule(every=7)]
)
def test_records_land_at_the_scheduled_steps(schedule):
    info, configs, point = _configs("softmax_window", steps=40)
    result = train_pack(info, configs, [point], schedule)
    assert result.record_steps == schedule.record_steps(40)
    steps_in_curve = sorted({row[0] for row in result.curve(0) if row[1] == "test_mse"})
    assert steps_in_curve == schedule.record_steps(40)


def test_log_spaced_records_resolve_the_first_steps():
    steps = RecordSchedule(log=20).record_steps(30_000)
    assert steps[:5] == [0, 1, 2, 3, 5] and steps[-1] == 30_000 and len(steps) <= 21
    assert RecordSchedule(steps=(5, 10, 10_000)).record_steps(100) == [0, 5, 10, 100]


def test_a_pack_too_large_for_memory_is_trained_in_parts_with_the_same_results():
    from iclscale.trainer.footprint import per_config_bytes

    info = study_info("softmax_window")
    resolved = [info.resolve({**SMOKE["softmax_window"].config, "L": 0.5 + k / 10}, k, "t") for k in range(20)]
    configs, point = [c for c, _ in resolved], resolved[0][1]
    fixed, per_config = per_config_bytes(info, configs, [point], torch.device("cpu"), short_run)
    assert per_config > 0
    whole = train_pack(info, configs, [point], 10, memory_limit=10**12)
    parts = train_pack(info, configs, [point], 10, memory_limit=fixed + 7 * per_config)  # three parts of 7
    assert len(parts.configs) == 20 and parts.configs == configs
    for k in (0, 13, 19):
        assert parts.final_metrics(k, point) == pytest.approx(whole.final_metrics(k, point), rel=1e-6)
        assert parts.curve(k) == whole.curve(k)


def test_the_measured_footprint_grows_with_the_prompt():
    from iclscale.trainer.footprint import per_config_bytes

    info = study_info("softmax_window")
    sizes = []
    for n in (10, 80):
        config, point = info.resolve({**SMOKE["softmax_window"].config, "n": n}, 0, "t")
        sizes.append(per_config_bytes(info, [config], [point], torch.device("cpu"), short_run)[1])
    assert sizes[1] > 2 * sizes[0]


def test_a_measured_footprint_is_reused_by_a_new_process_until_the_code_changes(monkeypatch):
    from iclscale.trainer import footprint

    info = study_info("softmax_window")
    config, point = info.resolve(SMOKE["softmax_window"].config, 0, "t")
    measured = footprint.per_config_bytes(info, [config], [point], torch.device("cpu"), short_run)
    monkeypatch.setattr(footprint, "_MEASURED", {})  # as a new process starts
    monkeypatch.setattr(footprint, "_measure", lambda *a: pytest.fail("measured again"))
    assert footprint.per_config_bytes(info, [config], [point], torch.device("cpu"), short_run) == measured
    monkeypatch.setattr(footprint, "_MEASURED", {})
    monkeypatch.setattr(footprint, "code_digest", lambda: "changed code")
    monkeypatch.setattr(footprint, "_measure", lambda *a: (1, 2))
    assert footprint.per_config_bytes(info, [config], [point], torch.device("cpu"), short_run) == (1, 2)
    footprint.CACHE_FILE.write_text("{not json")  # a damaged cache is measured over, never an error
    monkeypatch.setattr(footprint, "_MEASURED", {})
    assert footprint.per_config_bytes(info, [config], [point], torch.device("cpu"), short_run) == (1, 2)


def test_an_eval_point_that_cannot_be_computed_fails_alone(monkeypatch):
    from iclscale.trainer.measuring import Measurer

    info, configs, good = _configs("softmax_window")
    bad = info.resolve({"L_test": 1e30}, 0, "t")[1]
    evaluate = Measurer.evaluate

    def failing_at_bad(self, net, point, final):  # values past float range are refused at parse: plant the failure
        if point.get("L_test") == 1e30:
            raise OverflowError("planted: L_test cannot be evaluated")
        return evaluate(self, net, point, final)

    monkeypatch.setattr(Measurer, "evaluate", failing_at_bad)
    result = train_pack(info, configs, [good, bad], 10)
    assert result.eval_errors[good] is None and "planted" in result.eval_errors[bad]
    assert result.status == ["ok"] * 3
    assert np.isfinite(result.final_metrics(0, good)["test_mse"])
    assert "test_mse" not in result.final_metrics(0, bad)  # its other metrics (probes) are still there
    assert "M_spectral_norm" in result.final_metrics(0, bad)


FACTORIES = _device_constructors() | {torch.tensor, torch.as_tensor, torch.scalar_tensor, torch.asarray}


class _FactoriesWithoutDevice(TorchFunctionMode):
    """Records every factory call (torch.zeros, arange, eye, tensor, ...) that gives no device."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in FACTORIES and kwargs.get("device") is None:
            caller = traceback.extract_stack(limit=3)[0]
            self.calls.append(f"torch.{func.__name__} at {Path(caller.filename).name}:{caller.lineno}")
        return func(*args, **kwargs)


@pytest.mark.parametrize("name", STUDIES)
def test_a_step_names_the_device_of_every_tensor_it_creates(name, monkeypatch):
    """torch.compile (torch 2.11 on an H100: "Unhandled FakeTensor Device") ignores the pack's `with
    torch.device(...)` for factory functions inside a compiled step and builds their tensors on the CPU, so a
    CUDA pack's step fails to compile. Eagerly on the CPU, the step must name a device at every factory call."""
    from iclscale.trainer import training

    spy, make_step = _FactoriesWithoutDevice(), training.make_step

    def spied_make_step(*args, **kwargs):
        step = make_step(*args, **kwargs)

        def spied(*inputs):
            with spy:
                return step(*inputs)

        return spied

    monkeypatch.setattr(training, "make_step", spied_make_step)
    training._STEPS.clear()
    info, configs, point = _configs(name)
    train_pack(info, configs, [point], 2, compile="off")
    training._STEPS.clear()
    assert spy.calls == [], sorted(set(spy.calls))


@pytest.mark.parametrize("name", STUDIES)
def test_a_record_copies_its_metrics_to_the_host_at_once(name, monkeypatch):
    """On CUDA a copy per metric waited for the device once per metric; a record now copies all of them at once."""
    from iclscale.trainer.training import PackResult

    info, configs, point = _configs(name)
    trainer = PackTrainer(info, configs, [point], torch.device("cpu"))
    result = PackResult(configs, [point])
    result.evals, result.eval_errors = {point: {}}, {point: None}
    copies, numpy = [], torch.Tensor.numpy
    monkeypatch.setattr(torch.Tensor, "numpy", lambda self, *a, **k: copies.append(self.shape) or numpy(self, *a, **k))
    with trainer.defaults():
        trainer.record(result, 0, torch.ones(len(configs), dtype=torch.bool), torch.zeros(len(configs)))
    monkeypatch.undo()
    assert len(copies) == 1, copies
    metrics = {**result.probes, **result.evals[point]}
    size = (len(configs),)
    assert len(metrics) >= 2 and all(len(column) == 1 and column[0].shape == size for column in metrics.values())
    assert copies[0] == (len(configs) * len(metrics),)

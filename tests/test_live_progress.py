"""Progress that is alive (issue 39 point 3): running packs report their steps, the line says "compiling" while a
step compiles, and rates and ETAs count only steps trained after compiling — in a sweep's line, in `train`'s line
and in `train`'s long-run warning."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from iclscale.sweeps.progress import COMPILING, Progress
from iclscale.trainer.train_progress import TrainProgress


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _plan(*packs: tuple[int, int]):
    """A plan of packs given as (configs, steps)."""
    return SimpleNamespace(packs=[SimpleNamespace(configs=[None] * k, steps=t) for k, t in packs])


def test_a_running_pack_shows_a_rate_and_an_eta_before_any_pack_finishes():
    clock = Clock()
    progress = Progress(_plan((4, 1000), (4, 1000)), enabled=False, clock=clock)
    progress.started(0)
    progress.advanced(0, 0)
    clock.now += 10
    progress.advanced(0, 100)  # 400 model-steps in 10 s; 7600 left
    line = progress.line()
    assert "0/8 configs · 1 pack running · 40 model-steps/s" in line and line.endswith("ETA 3:10"), line


def test_the_line_says_compiling_and_its_rate_leaves_compile_time_out():
    clock = Clock()
    progress = Progress(_plan((4, 1000), (4, 1000)), enabled=False, clock=clock)
    progress.started(0)
    progress.advanced(0, 0)
    progress.advanced(0, 0, compiling=True)
    clock.now += 100
    line = progress.line()
    assert COMPILING in line and "model-steps/s" not in line and line.endswith("ETA ?"), line
    progress.advanced(0, 1)  # compiled (its first step ran with it)
    clock.now += 10
    progress.advanced(0, 101)
    line = progress.line()
    # 400 model-steps in the 10 s after compiling (not 404 in 110 s: 3.7/s); (8000 - 404) / 40 s left
    assert COMPILING not in line and "· 40 model-steps/s ·" in line and line.endswith("ETA 3:10"), line
    progress.started(1)  # another pack (a parallel trial) compiles: the rate measured so far stays
    progress.advanced(1, 0, compiling=True)
    clock.now += 50
    line = progress.line()
    assert f"2 packs running · {COMPILING} · 40 model-steps/s" in line, line


def test_a_sequential_run_keeps_its_rate_while_the_next_pack_compiles_and_only_training_counts():
    clock = Clock()
    progress = Progress(_plan((2, 100), (2, 100), (2, 100)), enabled=False, clock=clock)
    progress.started(0)
    progress.finished(0)  # already stored: no steps trained here
    assert progress.rate() == 0 and progress.line().endswith("ETA ?"), progress.line()
    progress.started(1)
    progress.advanced(1, 0)
    clock.now += 20
    progress.advanced(1, 50)
    clock.now += 20
    progress.advanced(1, 100)  # 200 model-steps in 40 s
    clock.now += 15  # its last record and fragment: not training
    progress.finished(1)
    clock.now += 30  # setting up the next pack is not training
    progress.started(2)
    progress.advanced(2, 0, compiling=True)
    clock.now += 60
    line = progress.line()
    assert f"{COMPILING} · 5 model-steps/s" in line and line.endswith("ETA 0:40"), line


def test_a_measurement_only_sweep_has_its_eta_from_the_configs_done():
    clock = Clock()
    progress = Progress(_plan((4, 0), (4, 0)), enabled=False, clock=clock)
    progress.started(0)
    clock.now += 10
    assert progress.line().endswith("ETA ?"), progress.line()  # not 0:00 while nothing is done
    progress.finished(0)
    line = progress.line()
    assert "model-steps/s" not in line and line.endswith("ETA 0:10"), line


def test_trains_line_and_long_run_warning_count_steps_after_compiling():
    clock, stream = Clock(), io.StringIO()
    progress = TrainProgress("study run", 10_000, stream, clock=clock)
    clock.now += 1
    progress(0, 10_000, None)
    progress(0, 10_000, None, compiling=True)
    clock.now += 100
    assert COMPILING in progress.line() and progress.line().endswith("ETA ?"), progress.line()
    progress(1, 10_000, None)  # compiled
    clock.now += 10
    progress(1001, 10_000, None)  # 100 steps/s after compiling
    progress.close()
    text = stream.getvalue()
    # 111 s so far and 8999 steps at 100/s: 3:21 (elapsed × steps / step would say 18:29)
    assert "study run: 10000 steps will take about 3:21 (from 1000 steps after compiling)" in text, text
    assert progress.rate() == 100.0 and "· 100 steps/s ·" in progress.line() and "ETA 1:30" in progress.line()


def test_a_training_that_does_not_compile_measures_from_its_first_report():
    clock, stream = Clock(), io.StringIO()
    progress = TrainProgress("study run", 10_000, stream, clock=clock)
    clock.now += 30  # building the pack, the first record
    progress(0, 10_000, None)
    clock.now += 6
    progress(60, 10_000, None)
    progress.close()
    assert "about 17:10 (from its first 60 steps)" in stream.getvalue(), stream.getvalue()  # 36 s + 9940 / 10


# The trainer's side: reports inside a pack, and around compiling ----------------------------------------------


def _pack(steps: int, size: int):
    from iclscale.trainer.registry import study_info

    info = study_info("softmax_window")
    resolved = [info.resolve({"steps": steps, "d": 3, "n": 8, "L": 0.5 + k / 4}, k, "t") for k in range(size)]
    return info, [c for c, _ in resolved], resolved[0][1]


@pytest.fixture
def fake_compiler(monkeypatch):
    """compile_function without inductor (seconds to minutes): the step, cached as a compiled one would be."""
    from iclscale.trainer import compiling

    monkeypatch.setattr(compiling, "_COMPILED", {})
    monkeypatch.setattr(compiling, "_FAILED", {})
    calls = []

    def compile_function(fn, args, key=None, external=None):
        calls.append(key)
        compiling._COMPILED[compiling._signature(fn, args, key)] = fn
        return fn

    monkeypatch.setattr(compiling, "compile_function", compile_function)
    return calls


def test_the_trainer_says_when_its_step_compiles_once_per_shape_and_reports_between_records(fake_compiler, monkeypatch):
    from iclscale.trainer import training

    info, configs, point = _pack(20, 2)
    events = []
    record = lambda step, steps, result, compiling=False: events.append((step, compiling))  # noqa: E731
    training.train_pack(info, configs, [point], 10, progress=record, compile="on")
    assert fake_compiler and events[:2] == [(0, True), (1, False)], events
    assert [e for e in events if e[1]] == [(0, True)] and events[-1] == (20, False)
    assert {10, 20} <= {step for step, _ in events}
    events.clear()
    monkeypatch.setattr(training, "REPORT_S", 0.0)  # a report from every step, not only at records
    training.train_pack(info, configs, [point], 10, progress=record, compile="on")
    assert not any(c for _, c in events), events  # compiled once per shape and process
    assert {step for step, _ in events} == set(range(21)), events


def test_an_inline_sweep_reports_every_pack_before_it_finishes(tmp_path, monkeypatch):
    from iclscale.cli import main
    from iclscale.sweeps import progress as progress_module

    calls = []

    class Recording(Progress):
        def advanced(self, pack, step, compiling=False):
            calls.append(("advanced", pack, step))
            super().advanced(pack, step, compiling)

        def finished(self, pack, failed=False):
            calls.append(("finished", pack, None))
            super().finished(pack, failed)

    monkeypatch.setattr(progress_module, "Progress", Recording)
    sweep = tmp_path / "t.yaml"
    sweep.write_text(
        "name: t\nstudy: softmax_window\nfixed: {d: 3, steps: 20}\ngrid: {L: [0.5, 1.0, 2.0]}\nrecord_every: 10\n"
        "resources: {pack_size: 1}\n"
    )
    assert main(["sweep", "run", str(sweep), "--out", str(tmp_path / "out"), "--executor", "inline", "--quiet"]) == 0
    packs = sorted({pack for _, pack, _ in calls})
    assert packs == [0, 1, 2], calls
    for pack in packs:
        mine = [(kind, step) for kind, p, step in calls if p == pack]
        assert mine[-1] == ("finished", None), mine
        assert any(kind == "advanced" and step > 0 for kind, step in mine[:-1]), mine


# The Ray executor's side: what a trial reports to Tune, and what the driver's callback makes of it -------------


def test_a_trial_reports_every_few_seconds_and_whenever_compiling_starts_or_ends():
    from iclscale.sweeps.ray_executor import TrialReports

    clock, sent = Clock(), []
    reports = TrialReports(sent.append, every=2.0, clock=clock)
    for step, compiling, later in [(0, False, 0), (1, False, 0.5), (1, True, 0.1), (2, False, 0.1), (5, False, 0.5),
                                   (9, False, 2.0), (20, False, 0.1)]:  # fmt: skip
        clock.now += later
        reports(step, 20, compiling)
    assert [(m["step"], m["compiling"]) for m in sent] == [(0, False), (1, True), (2, False), (9, False), (20, False)]


def test_the_ray_callback_forwards_a_trials_steps_and_compiling_to_the_line():
    pytest.importorskip("ray")
    from iclscale.sweeps.ray_executor import _progress_callback

    clock = Clock()
    progress = Progress(_plan((3, 100)), enabled=False, clock=clock)
    callback = _progress_callback(progress)
    trial = SimpleNamespace(config={"pack": 0})
    callback.on_trial_start(0, [trial], trial)
    callback.on_trial_result(0, [trial], trial, {"step": 0, "steps": 100, "compiling": True})
    assert COMPILING in progress.line()
    callback.on_trial_result(0, [trial], trial, {"step": 1, "steps": 100, "compiling": False})
    clock.now += 3
    callback.on_trial_result(0, [trial], trial, {"step": 31, "steps": 100, "compiling": False})
    line = progress.line()
    assert COMPILING not in line and "· 30 model-steps/s ·" in line and line.endswith("ETA 0:07"), line

"""k training steps per replayed CUDA graph (iclscale.trainer.replay): the static-buffer path, run on the CPU without
capture (there are no graphs here), must give exactly the results of k single steps, in the trainer too."""

import numpy as np
import pytest
import torch

from iclscale.trainer import replay
from iclscale.trainer.registry import study_info
from iclscale.trainer.training import PackTrainer, train_pack

SETTINGS = {"steps": 23, "d": 3, "n": 12, "tasks_per_iter": 2, "test_tasks": 16}


def counter_step(x, total, scale, t):
    """A pure step with a state of two tensors, a fixed input and the step count."""
    return x * scale + t, total + x.sum()


def test_graphed_steps_equal_single_steps_and_take_a_changed_state():
    graph = replay.GraphedSteps(counter_step, 4, state_size=2, capture=False)
    x, total, scale = torch.arange(3.0), torch.zeros(()), torch.tensor(0.5)
    expected = (x, total)
    for t in range(8):
        expected = counter_step(*expected, scale, torch.tensor(t))
    state = graph(x, total, scale, torch.tensor(0))
    state = graph(*state, scale, torch.tensor(4))
    assert all(torch.equal(a, b) for a, b in zip(state, expected, strict=True))
    # the caller resets part of the state (as the trainer resets the loss sum at a record): it is copied in
    reset = (state[0], torch.zeros(()))
    expected = reset
    for t in range(8, 12):
        expected = counter_step(*expected, scale, torch.tensor(t))
    state = graph(*reset, scale, torch.tensor(8))
    assert all(torch.equal(a, b) for a, b in zip(state, expected, strict=True))
    assert x.tolist() == [0.0, 1.0, 2.0]  # the caller's first tensors were never written


def test_a_failed_capture_falls_back_to_single_steps(capsys):
    def refusing(*args):
        raise RuntimeError("operation not permitted when stream is capturing")

    graph = replay.GraphedSteps(refusing, 3, state_size=2, capture=False)
    scale = torch.tensor(2.0)
    state, ran = replay.call_or_fall_back(graph, counter_step, (torch.ones(2), torch.zeros(()), scale, torch.tensor(5)))
    assert not ran and graph.failed and "CUDA graph failed" in capsys.readouterr().err
    expected = (torch.ones(2), torch.zeros(()))
    for t in range(5, 8):
        expected = counter_step(*expected, scale, torch.tensor(t))
    assert all(torch.equal(a, b) for a, b in zip(state, expected, strict=True))


@pytest.mark.parametrize("text, steps", [("", 0), ("1", 0), ("16", 16)])
def test_steps_per_graph_come_from_the_environment(monkeypatch, text, steps):
    monkeypatch.setenv(replay.ENVIRONMENT, text)
    assert replay.graph_steps() == steps
    assert replay.graph_steps(8) == 8


def test_a_bad_steps_per_graph_setting_is_refused(monkeypatch):
    monkeypatch.setenv(replay.ENVIRONMENT, "many")
    with pytest.raises(ValueError, match=replay.ENVIRONMENT):
        replay.graph_steps()
    with pytest.raises(ValueError):
        replay.graph_steps(-1)


def test_no_graph_off_cuda():
    assert replay.graphed(counter_step, 8, 2, torch.device("cpu")) is None


@pytest.mark.parametrize("record", [5, 23])
def test_the_trainer_with_graphed_steps_trains_exactly_as_with_single_steps(monkeypatch, record):
    """Blocks of 4 steps between records (23 steps, records every 5: blocks and single steps mix), the loss
    sum reset at each record copied into the buffers: bit-identical metrics, statuses and records."""
    info = study_info("softmax_window")
    resolved = [info.resolve({**SETTINGS, "L": 0.5 + k / 4, "lr": 0.05 + 10.0 * (k == 2)}, k, "t") for k in range(3)]
    configs, point = [c for c, _ in resolved], resolved[0][1]
    plain = train_pack(info, configs, [point], record, compile="off", graph_steps=0)
    used = []

    def on_the_cpu(self, runner, graph_steps):
        steps = replay.graph_steps(graph_steps)
        used.append(steps)
        return replay.GraphedSteps(runner.settled(()), steps, 5, capture=False)

    monkeypatch.setattr(PackTrainer, "graph", on_the_cpu)
    graphed = train_pack(info, configs, [point], record, compile="off", graph_steps=4)
    assert used == [4] and graphed.graphed and not plain.graphed
    assert graphed.record_steps == plain.record_steps and graphed.status == plain.status
    assert graphed.diverged_step == plain.diverged_step
    for name, values in plain.probes.items():
        np.testing.assert_array_equal(np.array(graphed.probes[name]), np.array(values), err_msg=name)
    for name, values in plain.evals[point].items():
        np.testing.assert_array_equal(np.array(graphed.evals[point][name]), np.array(values), err_msg=name)


def test_a_settled_runner_is_compiled_unless_compiling_is_off_or_fails(monkeypatch, capsys):
    """What a graph captures is decided at once (no timed eager steps in between)."""
    from iclscale.trainer import compiling

    monkeypatch.setattr(compiling, "_COMPILED", {})
    args = (torch.arange(3.0), torch.zeros(()), torch.tensor(0.5), torch.tensor(1))
    assert compiling.StepRunner(counter_step, 10, "off").settled(args) is counter_step
    runner = compiling.StepRunner(counter_step, 10, "on")
    compiled = runner.settled(args)
    assert compiled is not counter_step and runner.compiled
    assert all(torch.equal(a, b) for a, b in zip(compiled(*args), counter_step(*args), strict=True))

    def fails(*args, **kwargs):
        raise RuntimeError("no compiler")

    monkeypatch.setattr(compiling, "compile_function", fails)

    def another_step(x, total, scale, t):
        return counter_step(x, total, scale, t)

    assert compiling.StepRunner(another_step, 10, "on").settled(args) is another_step
    assert "compiling the training step failed" in capsys.readouterr().err

"""The training step is one compiled graph for every registered study, on every supported torch, and a step
that is not one graph is never trained as if it were (iclscale.trainer.compiling).

torch 2.11 (the GPU machines') could not trace `rng._crc32`'s iteration over `bytes`: the break fell inside
the vmapped step, whose every line then ran eagerly, while the run said it was compiled."""

import os
import subprocess
from pathlib import Path

import pytest
import torch

from iclscale.trainer import compiling, precompiled, rng, training
from iclscale.trainer.registry import all_studies, study_info
from iclscale.trainer.training import PackTrainer, train_pack

LOWEST_TORCH = "ICLSCALE_LOWEST_TORCH_PYTHON"
"""A Python whose torch is the lowest the project supports (2.11, the GPU machines'), with iclscale's
dependencies and pytest: the one-graph check runs under it too. .ci/run does not build one (docs/speed.md:
installing torch 2.11 and the dependencies took 6 minutes here)."""
TRAINABLE = [info.name for info in all_studies() if info.load().trainable]


def trace_step(name: str) -> list[int]:
    """The ops of each graph dynamo makes of the study's step (its defaults, a pack of two), traced whole:
    a graph break raises."""
    info = study_info(name)
    configs = [info.resolve({}, seed, "t")[0] for seed in range(2)]
    trainer = PackTrainer(info, configs, [], torch.device("cpu"))
    graphs = []

    def count(graph_module, example_inputs):
        graphs.append(sum(node.op == "call_function" for node in graph_module.graph.nodes))
        return graph_module.forward

    with trainer.defaults():
        args = (*trainer.start_state(), *trainer.step_inputs(), torch.zeros((), dtype=torch.int64))
        torch._dynamo.reset()
        torch.compile(trainer.runner("off").step, fullgraph=True, dynamic=False, backend=count)(*args)
    return graphs


def test_every_trainable_study_is_checked():
    assert "softmax_window" in TRAINABLE and "softmax_window_oracle" not in TRAINABLE


ONE_GRAPH_TEST = "test_every_study_step_traces_as_one_graph"


@pytest.mark.parametrize("name", TRAINABLE)
def test_every_study_step_traces_as_one_graph(name):
    graphs = trace_step(name)
    assert len(graphs) == 1 and graphs[0] > 50, graphs  # the whole step, not its last lines (2.11: 6 ops)


@pytest.mark.skipif(not os.environ.get(LOWEST_TORCH), reason=f"{LOWEST_TORCH} not set: no torch 2.11 to check under")
def test_every_study_step_is_one_graph_under_the_lowest_supported_torch():
    python = os.environ[LOWEST_TORCH]
    root = Path(__file__).resolve().parents[1]
    version = subprocess.run(
        [python, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert version != torch.__version__, f"{LOWEST_TORCH} runs this torch ({version}), not the lowest supported"
    env = {**os.environ, "PYTHONPATH": str(root), LOWEST_TORCH: ""}
    done = subprocess.run(
        [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", f"{__file__}::{ONE_GRAPH_TEST}"],
        capture_output=True, text=True, env=env, cwd=root, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, f"under torch {version}:\n{done.stdout[-3000:]}"
    assert f"{len(TRAINABLE)} passed" in done.stdout


@pytest.fixture
def a_step_with_a_graph_break(monkeypatch, tmp_path):
    """The purpose hash breaks the graph while compiling (as `bytes` iteration did under torch 2.11); a new
    process's caches, so that the step is traced again."""
    crc32 = rng._crc32

    def breaking(text):
        if torch.compiler.is_compiling():
            torch._dynamo.graph_break()
        return crc32(text)

    monkeypatch.setattr(rng, "_crc32", breaking)
    monkeypatch.setattr(precompiled, "ROOT", tmp_path)
    monkeypatch.setattr(compiling, "_COMPILED", {})
    monkeypatch.setattr(compiling, "_FAILED", {})
    monkeypatch.setattr(training, "_STEPS", {})
    torch._dynamo.reset()
    info = study_info("softmax_window")
    resolved = [
        info.resolve({"steps": 4, "d": 3, "n": 12, "tasks_per_iter": 2, "test_tasks": 8}, k, "t") for k in range(3)
    ]
    return info, [c for c, _ in resolved], resolved[0][1]


def test_a_graph_break_fails_under_the_test_suite(a_step_with_a_graph_break):
    info, configs, point = a_step_with_a_graph_break
    assert os.environ[compiling.GRAPH_BREAKS] == "error"  # tests/conftest.py
    with pytest.raises(compiling.GraphBreak, match="not one graph"):
        train_pack(info, configs, [point], 2, compile="on")


def test_a_graph_break_trains_eagerly_with_one_line_naming_it(a_step_with_a_graph_break, monkeypatch, capsys):
    info, configs, point = a_step_with_a_graph_break
    monkeypatch.setenv(compiling.GRAPH_BREAKS, "warn")
    result = train_pack(info, configs, [point], 2, compile="on")
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("iclscale:")]
    err = [line for line in said if "the training step" in line]  # (and the test-set draw, also compiled)
    assert len(err) == 1 and "not one graph" in err[0] and err[0].endswith("training eagerly"), said
    assert "graph_break()" in err[0] and "test_one_graph.py" in err[0]  # what broke it, and where
    assert not result.compiled and result.compile_path == "eager: graph break" and result.graphs == 0
    assert len(result.graph_breaks) == 1 and result.graph_breaks[0] in err[0]
    eager = train_pack(info, configs, [point], 2, compile="off")
    assert eager.compile_path == "eager" and eager.graph_breaks == []
    for k in range(3):
        assert result.final_metrics(k, point) == eager.final_metrics(k, point)


def test_a_compiled_run_says_so():
    info = study_info("softmax_window")
    resolved = [
        info.resolve({"steps": 4, "d": 3, "n": 12, "tasks_per_iter": 2, "test_tasks": 8}, k, "t") for k in range(3)
    ]
    configs, point = [c for c, _ in resolved], resolved[0][1]
    result = train_pack(info, configs, [point], 2, compile="on")
    assert result.compiled and result.compile_path in ("compiled", "loaded")
    assert result.graphs == 1 and result.graph_breaks == []


def test_the_environment_must_say_warn_or_error(monkeypatch):
    monkeypatch.setenv(compiling.GRAPH_BREAKS, "ignore")
    with pytest.raises(ValueError, match="warn or error"):
        compiling.breaks_are_errors()

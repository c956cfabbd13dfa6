"""Compiled steps saved on disk and loaded by a new process (iclscale.trainer.precompiled), and the CPU rule that
compiles small batched matrix products as fused multiply-adds (iclscale.trainer.compiling)."""

import json
import subprocess
import sys
import textwrap

import pytest
import torch

from iclscale.trainer import compiling, precompiled
from iclscale.trainer.registry import study_info
from iclscale.trainer.training import train_pack

SETTINGS = {"steps": 12, "d": 3, "n": 12, "tasks_per_iter": 2, "test_tasks": 32}


@pytest.fixture(autouse=True)
def _fresh_process_cache(tmp_path, monkeypatch):
    """Each test saves into its own directory and starts as a new process would: nothing compiled yet."""
    monkeypatch.setattr(precompiled, "ROOT", tmp_path)
    monkeypatch.setattr(compiling, "_COMPILED", {})


def _pack(pack_size):
    info = study_info("softmax_window")
    resolved = [info.resolve({**SETTINGS, "L": 0.5 + k / 4}, k, "t") for k in range(pack_size)]
    return info, [c for c, _ in resolved], resolved[0][1]


def _saved_files():
    return sorted(p.name for p in precompiled.ROOT.rglob("*.bin"))


NEW_PROCESS = textwrap.dedent(
    """
    import json, sys
    from iclscale.trainer import precompiled
    from iclscale.trainer.registry import study_info
    from iclscale.trainer.training import train_pack

    precompiled.ROOT = type(precompiled.ROOT)(sys.argv[1])
    compile_and_save = precompiled.compile_and_save
    def refuse(*args, **kwargs):
        raise AssertionError("traced and compiled again")
    precompiled.compile_and_save = refuse  # loading alone must serve
    info = study_info("softmax_window")
    settings = json.loads(sys.argv[2])
    resolved = [info.resolve({**settings, "L": 0.5 + k / 4}, k, "t") for k in range(4)]
    configs, point = [c for c, _ in resolved], resolved[0][1]
    result = train_pack(info, configs, [point], 6, compile="on")
    print(json.dumps([result.compile_path == "loaded", [result.final_metrics(k, point)["test_mse"] for k in range(4)]]))
    """
)


def test_a_new_process_loads_the_saved_step_and_trains_the_same(tmp_path):
    info, configs, point = _pack(4)
    compiled = train_pack(info, configs, [point], 6, compile="on")
    eager = train_pack(info, configs, [point], 6, compile="off")
    assert compiled.compiled and len(_saved_files()) == 2  # the step and the test-set draw
    done = subprocess.run(
        [sys.executable, "-c", NEW_PROCESS, str(tmp_path), json.dumps(SETTINGS)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    was_loaded, errors = json.loads(done.stdout.strip().splitlines()[-1])
    assert was_loaded
    for k in range(4):
        assert errors[k] == pytest.approx(compiled.final_metrics(k, point)["test_mse"], rel=1e-6)
        assert errors[k] == pytest.approx(eager.final_metrics(k, point)["test_mse"], rel=1e-3)


def test_another_pack_size_gets_its_own_compiled_step():
    """A saved step has no guards: a pack of another size must never be handed one made for 4 configs."""
    for size in (4, 6):
        info, configs, point = _pack(size)
        compiled = train_pack(info, configs, [point], 6, compile="on")
        eager = train_pack(info, configs, [point], 6, compile="off")
        for k in range(size):
            assert compiled.final_metrics(k, point)["test_mse"] == pytest.approx(
                eager.final_metrics(k, point)["test_mse"], rel=1e-3
            )
    assert len(_saved_files()) == 4  # a step and a test-set draw per pack size


def test_a_damaged_saved_step_is_compiled_again(tmp_path, monkeypatch):
    info, configs, point = _pack(4)
    train_pack(info, configs, [point], 6, compile="on")
    for saved in tmp_path.rglob("*.bin"):
        saved.write_bytes(b"not a compiled function")
    monkeypatch.setattr(compiling, "_COMPILED", {})  # as a new process starts
    again = train_pack(info, configs, [point], 6, compile="on")
    assert again.compiled
    assert all(saved.read_bytes() != b"not a compiled function" for saved in tmp_path.rglob("*.bin"))  # overwritten


def test_small_batched_products_are_fused_on_the_cpu_and_large_ones_are_not():
    from torch._inductor.fx_passes import decompose_mem_bound_mm as decompose

    compiling._fuse_small_matmuls()

    class Node:  # what the pass hands the rule: an fx node whose meta holds a (fake) tensor
        def __init__(self, *shape):
            self.meta = {"val": torch.empty(shape)}

    assert decompose.should_decompose_bmm(Node(4096, 4, 5), Node(4096, 5, 20))
    assert not decompose.should_decompose_bmm(Node(256, 60, 21), Node(256, 21, 60))
    assert not decompose.should_decompose_bmm(Node(4096, 4, 5, 2), Node(4096, 5, 20))


def test_the_compiled_test_set_draw_equals_the_eager_draw_in_padded_chunks(monkeypatch):
    """Five configs in chunks of two: the last chunk is padded, and no config's test set depends on its chunk."""
    from iclscale.trainer import measuring
    from iclscale.trainer.training import PackTrainer

    monkeypatch.setattr(measuring, "DRAW_CHUNK", 2)
    info, configs, point = _pack(5)
    trainer = PackTrainer(info, configs, [point], torch.device("cpu"))
    with trainer.defaults():
        eager = trainer.pack.map(lambda c: trainer.study.test_data(c, dict(point)))
        trainer.measurer.compile = "on"
        compiled = trainer.measurer.draw(dict(point))
    assert len(_saved_files()) == 1
    for a, b in zip(torch.utils._pytree.tree_leaves(compiled), torch.utils._pytree.tree_leaves(eager), strict=True):
        assert a.shape == b.shape and a.shape[0] == 5
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_code_is_loaded_only_from_a_cache_no_one_else_can_write(tmp_path, capsys):
    """A saved function is unpickled (code) only from a directory owned by this user and writable by
    no one else; otherwise the caller compiles again, told once."""
    from iclscale.trainer import cachedir

    root = tmp_path / "cache"
    saved = root / "digest" / "f.bin"
    saved.parent.mkdir(parents=True)
    saved.write_bytes(b"x")
    assert cachedir.trusted(saved, root)
    cachedir._said.clear()
    for target in (saved.parent, root, saved):
        target.chmod(target.stat().st_mode | 0o002)  # writable by others
        assert not cachedir.trusted(saved, root), target
        target.chmod(target.stat().st_mode & ~0o022)
    assert cachedir.trusted(saved, root)
    err = capsys.readouterr().err
    assert err.count("compiling instead") == 1 and "writable by others" in err
    link = root / "digest" / "g.bin"
    link.symlink_to(saved)
    assert not cachedir.trusted(link, root)


def test_options_this_torch_does_not_know_are_dropped_not_raised(monkeypatch):
    """torch 2.11 lacks `realize_cpu_opcount_threshold`; passing it made torch.compile raise and every step run
    eagerly. Unknown options are dropped, known ones kept."""
    kept = compiling.known_inductor_options({"max_autotune": False, "no_such_inductor_option_anywhere": 1})
    assert kept == {"max_autotune": False}

    def doubled(x):
        return x * 2

    monkeypatch.setattr(compiling, "INDUCTOR_OPTIONS", {"no_such_inductor_option_anywhere": 8})
    compiled = compiling.compile_function(doubled, (torch.arange(3.0),))
    assert torch.equal(compiled(torch.arange(3.0)), torch.arange(3.0) * 2)

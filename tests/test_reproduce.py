"""`iclscale reproduce`: a paper's sweeps into one root, cheapest first, at the quick budget; interrupted and run
again it trains nothing twice. The paper's sweeps are two tiny copies of the demo sweep (inline, a few seconds)."""

import json
from pathlib import Path

import pytest
import yaml

from iclscale import reproduce
from iclscale.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_a_quick_root_is_not_continued_at_the_full_budget(tmp_path, monkeypatch, capsys):
    files = [tiny_sweep(tmp_path, "tiny_small", [0.5, 1.0])]
    monkeypatch.setattr(reproduce, "paper_sweep_files", lambda studies: files)
    root = tmp_path / "root"
    assert main(["reproduce", "C24", "--out", str(root), "--budget", "quick", "--executor", "inline"]) == 0
    capsys.readouterr()
    assert main(["reproduce", "C24", "--out", str(root), "--budget", "full", "--executor", "inline"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds runs of another length" in err and "another --out" in err


def tiny_sweep(folder: Path, name: str, sigmas: list[float]) -> str:
    raw = yaml.safe_load((ROOT / "iclscale/papers/softmax_window/sweeps/demo.yaml").read_text(encoding="utf-8"))
    raw.update(name=name, seeds=4, grid={"n": [50], "sigma": sigmas})
    raw["fixed"]["steps"] = 100
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return str(path)


def stored_fragments(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.glob("*/runs/*.parquet")}


def test_interrupted_and_run_again_it_trains_nothing_twice(tmp_path, monkeypatch, capsys):
    files = [tiny_sweep(tmp_path, "tiny_big", [0.35, 0.5, 0.7, 1.0]), tiny_sweep(tmp_path, "tiny_small", [0.5, 1.0])]
    monkeypatch.setattr(reproduce, "paper_sweep_files", lambda studies: files)
    import iclscale.sweeps.run

    real_run = iclscale.sweeps.run.run_sweep
    calls = []

    def interrupted_at_the_second(sweep, args, out):  # Ctrl-C as the second sweep starts: run_sweep says 130
        calls.append(sweep.name)
        return 130 if len(calls) == 2 else real_run(sweep, args, out)

    monkeypatch.setattr(iclscale.sweeps.run, "run_sweep", interrupted_at_the_second)
    root = tmp_path / "root"
    command = ["reproduce", "C24", "--out", str(root), "--budget", "quick", "--executor", "inline", "--jobs", "1"]
    assert main(command) == 130
    assert calls == ["tiny_small", "tiny_big"]  # cheapest first
    first = stored_fragments(root)
    assert first and all(name.startswith("tiny_small/") for name in first)
    assert "run the same command to resume" in capsys.readouterr().err

    monkeypatch.setattr(iclscale.sweeps.run, "run_sweep", real_run)
    assert main(command) == 0
    captured = capsys.readouterr()
    output = captured.out
    assert (
        "progress: 12/12 configs" in captured.err
    )  # each sweep's own progress line (a heartbeat in a log), as sweep run
    second = stored_fragments(root)
    assert {k: v for k, v in second.items() if k in first} == first  # the first sweep's packs not rewritten
    assert {k.split("/")[0] for k in second} == {"tiny_small", "tiny_big"}
    assert "reproduce: sweep 1/2 tiny_big" in output and "2/2 sweeps done" in output  # the finished one goes last
    frozen = yaml.safe_load((root / "tiny_big/sweep.yaml").read_text(encoding="utf-8"))
    assert frozen["seeds"] == [0, 1, 2] and frozen["overrides"] == ["seeds=3", "steps=25"]
    claims = json.loads((root / "ledger/claims.json").read_text(encoding="utf-8"))["claims"]
    assert {c["budget"] for c in claims if c["estimates"]} == {"custom"}  # not catalogue sweeps: "custom"

    before = stored_fragments(root)
    assert main(command) == 0  # a third run: everything stored, nothing trained
    assert stored_fragments(root) == before

    # every invocation is logged, with its wall time: the ledger sums them into the paper's run
    logged = [json.loads(line) for line in (root / "reproduce.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(x["papers"], x["budget"], x["ended"]) for x in logged] == [
        (["C24"], "quick", "interrupted"),
        (["C24"], "quick", "finished"),
        (["C24"], "quick", "finished"),
    ]
    assert all(x["wall_s"] >= 0 and x["sweeps"] == 2 for x in logged)
    paper = next(p for p in json.loads((root / "ledger/claims.json").read_text())["papers"] if p["tag"] == "C24")
    assert [x["ended"] for x in paper["reproduce"]] == ["interrupted", "finished", "finished"]


@pytest.mark.parametrize("argv", [["reproduce"], ["reproduce", "C24", "--all"], ["reproduce", "Z99"]])
def test_a_wrong_paper_choice_is_one_clear_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("iclscale: error:") and err.count("\n") == 1


def planned_sweeps(steps: list[int]) -> list:
    from types import SimpleNamespace

    from iclscale.sweeps.schedule import Planned

    return [Planned("f", SimpleNamespace(name=f"s{i}"), Path("."), n, n) for i, n in enumerate(steps)]


def test_the_eta_fits_a_fixed_cost_per_sweep_and_a_cost_per_model_step():
    from iclscale.sweeps.schedule import Overall

    planned = planned_sweeps([800, 800, 3000, 60000])
    progress = Overall(planned)
    assert progress.eta(planned) == "?"  # nothing timed yet
    progress.timed = [(800, 60.0), (800, 61.0)]
    assert progress.eta(planned[2:]) == "?"  # one size timed: fixed and per-step cost not separable
    progress.timed = [(p.left, 50 + 0.005 * p.left) for p in planned[:3]]  # 50 s per sweep + 5 ms per model-step
    assert progress.eta(planned[3:]) == "5:50"  # 50 + 0.005 · 60000 = 350 s
    assert progress.eta([]) == "0:00"


def test_several_at_a_time_the_eta_counts_the_running_sweeps_and_the_slots():
    from iclscale.sweeps.schedule import Overall

    planned = planned_sweeps([1000, 2000, 60000, 4000, 4000])
    progress = Overall(planned, jobs=2)
    progress.timed = [(1000, 55.0), (2000, 60.0)]  # 50 s per sweep + 5 ms per model-step
    # the 60k sweep (350 s) has run 100 s: 250 s left in its slot; the two 4k sweeps (70 s each) share the other
    assert progress.eta(planned[3:], [(planned[2], 100.0)]) == "4:10"
    # a running sweep past its prediction holds its slot no longer; the waiting ones go on both slots
    assert progress.eta(planned[3:], [(planned[2], 400.0)]) == "1:10"
    # nothing waiting, one running: its own time left, however many slots
    assert progress.eta([], [(planned[2], 50.0)]) == "5:00"


def test_the_eta_scales_the_full_run_times_where_it_has_them():
    from iclscale.sweeps.schedule import Overall

    planned = planned_sweeps([100, 90000, 5000, 300])
    full = {"s0": 400.0, "s1": 200.0, "s2": 600.0}  # s0's time is evaluation: model-steps would not see it
    progress = Overall(planned, jobs=1, earlier_seconds=full)
    assert progress.eta(planned[1:3]) == "?"  # nothing finished yet
    progress.finished(planned[0], 100.0)  # a quarter of its full-run time
    assert progress.eta(planned[1:3]) == "3:20"  # (200 + 600) / 4
    assert progress.eta(planned[1:]) == "?"  # s3 has no full-run time, and one size timed fits no model-steps
    progress.finished(planned[1], 50.0)  # ratio of sums: 150 / 600 still
    progress.timed = [(100, 11.0), (90000, 910.0)]  # 10 s + 0.01 s per model-step, for the untimed s3
    assert progress.eta(planned[2:]) == "2:43"  # 600 / 4 + 10 + 0.01 · 300 = 163 s


def test_sweeps_are_ordered_by_the_earlier_runs_time_left_longest_or_cheapest_first():
    """Issue 39: the Monte Carlo sweep s0 (its time is evaluation: few model-steps) is the longest by its measured
    time, so it starts first several at a time and last one at a time; half of s1 stored halves its time left."""
    from iclscale.sweeps.schedule import by_measured_cost

    planned = planned_sweeps([100, 90000, 5000, 0, 300])  # s3 has nothing left to train
    seconds = {"s0": 400.0, "s1": 120.0, "s3": 900.0}  # their times in the full run: s0's is its evaluation
    longest = [p.sweep.name for p in by_measured_cost(planned, seconds, longest=True)]
    assert longest == ["s0", "s1", "s2", "s4", "s3"]  # timed longest first, then by model-steps, the finished last
    cheapest = [p.sweep.name for p in by_measured_cost(planned, seconds, longest=False)]
    assert cheapest == ["s1", "s0", "s4", "s2", "s3"]
    planned[0].left = planned[0].total // 8  # s0: 50 s left, now cheaper than s1
    assert [p.sweep.name for p in by_measured_cost(planned, seconds, longest=False)][:2] == ["s0", "s1"]


def test_the_committed_full_run_times_every_catalogue_sweep():
    from iclscale.catalogue import shown_path, sweeps
    from iclscale.reproduce import full_run_seconds

    seconds = full_run_seconds()
    assert all(s > 0 for s in seconds.values())
    # a sweep file added after the committed full run has no time yet (it is scheduled after the timed ones)
    import json
    import subprocess

    ledger = json.loads((ROOT / "docs/results/claims.json").read_text(encoding="utf-8"))
    commit = ledger["git_commit"].removesuffix("-dirty")
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", commit], capture_output=True,
                            text=True, check=True).stdout.split()  # fmt: skip
    # a sweep the committed run did not re-run (a paper's re-run cut short: its claims are carried from an earlier
    # ledger, or judged without it) has no time either; every sweep a committed estimate rests on has one
    used = {e["sweep"] for c in ledger["claims"] if not c.get("carried") for e in c["estimates"]}
    untimed = {f.name for f in sweeps() if f.name not in seconds and shown_path(f) in set(listed)}
    assert not untimed & used, "a sweep the committed ledger judges from has no committed time"


def test_sigterm_during_a_sweep_stops_the_whole_reproduce(tmp_path, monkeypatch, capsys):
    """`kill` (SIGTERM) makes run_sweep return 143: reproduce must stop there, not go on to the next sweep."""
    files = [tiny_sweep(tmp_path, "tiny_big", [0.35, 0.5, 0.7, 1.0]), tiny_sweep(tmp_path, "tiny_small", [0.5, 1.0])]
    monkeypatch.setattr(reproduce, "paper_sweep_files", lambda studies: files)
    import iclscale.sweeps.run

    calls = []

    def terminated_at_the_first(sweep, args, out):
        calls.append(sweep.name)
        return 143

    monkeypatch.setattr(iclscale.sweeps.run, "run_sweep", terminated_at_the_first)
    command = ["reproduce", "C24", "--out", str(tmp_path / "root"), "--budget", "quick", "--executor", "inline"]
    command += ["--jobs", "1"]  # in this process, where run_sweep is replaced
    assert main(command) == 143
    assert calls == ["tiny_small"]
    assert "reproduce interrupted at sweep tiny_small" in capsys.readouterr().err


def test_jobs_is_a_count_of_one_or_more(capsys):
    assert main(["reproduce", "C24", "--jobs", "0", "--executor", "inline"]) == 2
    assert main(["reproduce", "C24", "--jobs", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "--jobs" in err


@pytest.mark.slow
@pytest.mark.ray
def test_through_ray_two_sweeps_run_at_a_time_on_one_ray_instance(tmp_path, monkeypatch, capsys):
    """Issue 39 point 4: the default Ray reproduction runs sweeps two at a time, each a driver joining the one
    instance this command started (the one address every sweep's process is given), and shuts it down at the end."""
    files = [tiny_sweep(tmp_path, "tiny_big", [0.35, 0.5, 0.7, 1.0]), tiny_sweep(tmp_path, "tiny_small", [0.5, 1.0])]
    monkeypatch.setattr(reproduce, "paper_sweep_files", lambda studies: files)
    started = []
    import iclscale.sweeps.ray_executor as ray_executor

    real_start = ray_executor.start_ray

    def start_ray(*args, **kwargs):
        started.append(args)
        return real_start(*args, **kwargs)

    monkeypatch.setattr(ray_executor, "start_ray", start_ray)
    joined = []
    real_child = reproduce._start_child

    def start_child(context, item, run_args, logs):
        joined.append(run_args.address)
        return real_child(context, item, run_args, logs)

    monkeypatch.setattr(reproduce, "_start_child", start_child)
    root = tmp_path / "root"
    assert main(["reproduce", "C24", "--out", str(root), "--budget", "quick"]) == 0
    output = capsys.readouterr().out
    assert len(joined) == 2 and len(set(joined)) == 1 and joined[0].startswith("127.0.0.1:")  # both the same one
    assert "2 at a time, longest first" in output and "2/2 sweeps done" in output
    assert "running tiny_big, tiny_small" in output or "running tiny_small, tiny_big" in output
    assert started == [(None,)]  # this process started one local instance; the sweeps only joined it
    for name, configs in (("tiny_big", 12), ("tiny_small", 6)):
        assert f"{name}: {configs} configs: {configs} ok" in output
    import ray

    assert not ray.is_initialized()


KILLABLE = """
import sys
from iclscale import reproduce
from iclscale.cli import main
reproduce.paper_sweep_files = lambda studies: sys.argv[2:]
sys.exit(main(["reproduce", "C24", "--out", sys.argv[1], "--budget", "quick", "--executor", "inline", "--jobs", "2"]))
"""


def test_sigterm_reaches_the_parallel_sweeps_and_the_rerun_trains_only_what_is_missing(tmp_path, monkeypatch, capsys):
    """Sweeps two at a time, each in its own process: `kill` stops them all (each storing what it finished, the
    third never started), and the same command trains only what is missing."""
    import signal
    import subprocess
    import sys
    import time

    files = []
    for name, sigma in (("long_a", 0.5), ("long_b", 0.7), ("long_c", 1.0)):
        path = Path(tiny_sweep(tmp_path, name, [sigma]))
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        raw["fixed"]["steps"] = 1200  # a quarter of it at the quick budget: long enough to be stopped midway
        raw["resources"]["pack_size"] = 1  # a pack per seed, stored one by one
        path.write_text(yaml.safe_dump(raw), encoding="utf-8")
        files.append(str(path))
    root = tmp_path / "root"
    process = subprocess.Popen([sys.executable, "-c", KILLABLE, str(root), *files], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(root.glob("*/runs/*.parquet")):
        time.sleep(0.2)  # until the first pack is stored
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 143, err
    assert "run the same command to resume" in err
    first = stored_fragments(root)
    assert first and not (root / "long_c").exists()  # the third sweep never started
    monkeypatch.setattr(reproduce, "paper_sweep_files", lambda studies: files)  # run again, in this process
    command = ["reproduce", "C24", "--out", str(root), "--budget", "quick", "--executor", "inline", "--jobs", "2"]
    assert main(command) == 0
    output = capsys.readouterr().out
    assert "running long_" in output and "3/3 sweeps done" in output
    for name in ("long_a", "long_b", "long_c"):
        assert f"{name}: 3 configs: 3 ok" in output  # each sweep's own summary line, from its log
        assert "model-steps to train" in (root / "logs" / f"{name}.log").read_text(encoding="utf-8")
    second = stored_fragments(root)
    assert {k: v for k, v in second.items() if k in first} == first  # finished packs kept, not trained again
    assert {k.split("/")[0] for k in second} == {"long_a", "long_b", "long_c"}

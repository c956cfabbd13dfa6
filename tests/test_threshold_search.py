"""Threshold searches run by `iclscale sweep run` (inline executor) on a stub trainer with a planted criterion
(tests/planted_trainer.py): the planted thresholds are recovered exactly with fewer trainings than a grid,
a window is reported as non-monotone, and a search killed with -9 mid-round resumes with nothing trained
twice."""

import csv
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from planted_trainer import install, planted_threshold

from iclscale.cli import main

ALPHAS = [0.15, 0.3, 0.45, 0.6, 0.8]  # planted thresholds 12, 5, 3, 2, 1 (seed 0) and 13, 6, 4, 3, 2
SWEEP = {
    "name": "planted",
    "study": "nonlinear_icl",
    "fixed": {"steps": 10, "probe_prompts": 4},
    "grid": {"alpha": ALPHAS},
    "seeds": 2,
    "eval": {"alpha_test": 0.6, "eval_prompts": 64},
    "record_every": 10,
    "threshold": {"axis": "l_tr", "range": [1, 12], "resolution": 1, "metric": "test_error", "level": 0.01},
    "resources": {"pack_size": 32},
}


def _write(tmp_path: Path, **threshold) -> Path:
    raw = {**SWEEP, "threshold": {**SWEEP["threshold"], **threshold}}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def _run(path: Path, out: Path) -> int:
    return main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"])


def _thresholds(out: Path) -> list[dict[str, str]]:
    with open(out / "thresholds.csv") as handle:
        return list(csv.DictReader(handle))


def _stored_rows(out: Path) -> Counter:
    """(run_id, eval_key) -> how many committed rows hold it."""
    counts = Counter()
    for fragment in (out / "runs").glob("*.parquet"):
        table = pq.read_table(fragment, columns=["run_id", "eval_key"])
        counts.update(zip(*(table.column(c).to_pylist() for c in ("run_id", "eval_key")), strict=True))
    return counts


def test_planted_thresholds_are_recovered_exactly_with_fewer_trainings_than_the_grid(tmp_path, monkeypatch, capsys):
    install(monkeypatch)
    out = tmp_path / "out"
    assert _run(_write(tmp_path), out) == 0
    rows = _thresholds(out)
    assert len(rows) == len(ALPHAS) * 2
    for row in rows:
        expected = planted_threshold(float(row["alpha"]), int(row["seed"]))
        if expected > 12:
            assert (row["status"], row["censored"], row["threshold"]) == ("censored_high", "high", "12")
        elif expected <= 1:
            assert (row["status"], row["censored"], row["threshold"]) == ("censored_low", "low", "1")
        else:
            assert (row["status"], int(row["threshold"]), int(row["lo"])) == ("found", expected, expected - 1)

    stored = _stored_rows(out)
    assert set(stored.values()) == {1}
    grid = len(ALPHAS) * 2 * 12
    assert len(stored) <= grid / 3, f"{len(stored)} trainings against {grid} for the grid"
    before = len(stored)
    assert _run(_write(tmp_path), out) == 0  # a re-run finds every search ended: nothing trains
    assert len(_stored_rows(out)) == before
    assert Counter(r["status"] for r in rows) == {"found": 8, "censored_low": 1, "censored_high": 1}
    capsys.readouterr()
    assert main(["sweep", "status", str(out)]) == 0
    printed = capsys.readouterr().out
    assert (
        f"planted: {before} configs stored: {before} ok, 0 diverged, 0 failed; 10 searches: 10 ended (8 found, "
        "2 censored [1 low, 1 high], 0 non-monotone), 0 failed, 0 open, 0 waiting" in printed
    )
    assert "missing" not in printed  # unfinished searches are counted as such, not as missing configs


def _spans(values: set[int], low: int, high: int) -> str:
    """Integers of [low, high] not in `values`, as runs ("3-12, 14")."""
    runs, run = [], []
    for v in range(low, high + 1):
        if v in values:
            runs, run = runs + ([run] if run else []), []
        else:
            run = [*run, v]
    runs += [run] if run else []
    return ", ".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs) or "none"


def test_thresholds_csv_says_which_values_were_evaluated_and_which_spans_went_unchecked(tmp_path, monkeypatch):
    install(monkeypatch)
    out = tmp_path / "out"
    assert _run(_write(tmp_path), out) == 0
    for row in _thresholds(out):
        seen = {int(v.split()[0]): v.split()[1] == "holds" for v in row["outcomes"].split(", ")}
        assert len(seen) == int(row["evaluated"])
        t = int(row["threshold"])
        if row["status"] == "found":
            assert seen[t] and not seen[t - 1]
        past = {v for v in range(t + 1, 13)} - set(seen)
        assert row["unchecked_past"] == _spans(set(range(1, 13)) - past, 1, 12)
        before = {v for v in range(1, t) if v not in seen and not (row["lo"] and int(row["lo"]) < v < t)}
        assert row["unchecked_before"] == _spans(set(range(1, 13)) - before, 1, 12)
    one = next(r for r in _thresholds(out) if r["status"] == "found" and r["outcomes"].count(",") == 1)
    assert one["unchecked_past"] == f"{int(one['threshold']) + 1}-12"  # e.g. "2 fails, 3 holds": 4-12 unchecked


def test_a_chain_along_the_grid_axis_recovers_the_thresholds_with_fewer_trainings_and_checks_the_trend(
    tmp_path, monkeypatch, capsys
):
    """warm_start: alpha starts each seed's searches from a neighbouring α's threshold; the stated trend orders
    the chain and is checked, never taken for an outcome: a wrong trend costs trainings, not answers. (Which
    warm start trains least depends on the data: here seeds differ by exactly one step, which favours
    warm_start: true; on nonlinear_icl's l_tr vs α the chain trains fewer: its README.)"""
    install(monkeypatch)
    counts = {}
    for name, block in {
        "cold": {"warm_start": False},
        "chain": {"warm_start": "alpha", "trend": "decreasing"},  # planted: ⌈2/α⌉ + seed − 2 falls with α
        "wrong": {"warm_start": "alpha", "trend": "increasing"},
    }.items():
        out = tmp_path / name
        assert _run(_write(tmp_path, scale="log", resolution=0.01, **block), out) == 0
        rows = _thresholds(out)
        for row in rows:
            expected = planted_threshold(float(row["alpha"]), int(row["seed"]))
            assert row["threshold"] == str(min(max(expected, 1), 12))
        counts[name] = len({run_id for run_id, _ in _stored_rows(out)})
        trends = Counter(row["trend"].split(" (")[0] for row in rows)
        if name == "chain":
            assert trends == {"": 2, "as stated": 8}  # the first α of each seed's chain has no neighbour before it
        if name == "wrong":
            assert trends["against the stated trend"] > 0
            assert "against the stated trend (increasing)" in capsys.readouterr().out
    assert counts["chain"] < counts["cold"] and counts["chain"] < counts["wrong"], counts


def test_a_planted_window_is_reported_as_non_monotone_not_bisected_through(tmp_path, monkeypatch, capsys):
    install(monkeypatch)
    monkeypatch.setenv("PLANTED_WINDOW", "1")  # the error is 0 from the planted threshold to l_tr = 8 only
    out = tmp_path / "out"
    assert _run(_write(tmp_path, check_far_end=True), out) == 0
    rows = {(r["alpha"], r["seed"]): r for r in _thresholds(out)}
    window = rows[("0.3", "0")]  # holds on l_tr ∈ [5, 8], fails at 12
    assert window["status"] == "non_monotone" and window["evidence"].endswith("but fails at 12")
    assert rows[("0.15", "0")]["status"] == "censored_high"  # 12 > 8: never holds
    assert all(r["status"] in ("non_monotone", "censored_high") for r in rows.values())
    assert "non_monotone at alpha=0.3, alpha_test=0.6, eval_prompts=64 (seed 0): holds at" in capsys.readouterr().out


KILLABLE = """
import sys
sys.path.insert(0, {tests!r})
from planted_trainer import install
install()
from iclscale.cli import main
sys.exit(main(["sweep", "run", {path!r}, "--out", {out!r}, "--executor", "inline", "--quiet"]))
"""


@pytest.mark.parametrize("warm_start", [{"warm_start": False}, {"warm_start": "alpha", "trend": "decreasing"}])
def test_a_search_killed_with_minus_9_mid_round_resumes_with_nothing_trained_twice(tmp_path, warm_start):
    path, out, log = _write(tmp_path, **warm_start), tmp_path / "out", tmp_path / "trained.log"
    script = KILLABLE.format(tests=str(Path(__file__).parent), path=str(path), out=str(out))
    env = {**os.environ, "PLANTED_LOG": str(log), "PLANTED_DELAY": "0.3", "PYTHONPATH": os.getcwd()}
    with subprocess.Popen([sys.executable, "-c", script], env=env, start_new_session=True) as child:
        deadline = time.monotonic() + 60
        while len(list((out / "runs").glob("*.parquet")) if (out / "runs").exists() else []) < 3:
            assert time.monotonic() < deadline and child.poll() is None, "the search ended before it was killed"
            time.sleep(0.05)
        os.killpg(child.pid, signal.SIGKILL)  # mid-round: some packs of the round committed, others not
    killed_at = len(_stored_rows(out))
    assert 0 < killed_at
    env.pop("PLANTED_DELAY")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    stored = _stored_rows(out)
    assert set(stored.values()) == {1}  # no (config, eval point) stored twice
    trained = Counter(log.read_text().split())
    committed = {run_id for run_id, _ in stored}
    assert set(trained) == committed
    # a config is trained twice only when the kill took it mid-pack, before its fragment was committed
    twice = {run_id for run_id, n in trained.items() if n > 1}
    assert len(twice) <= 1 and len(committed) > killed_at
    for row in _thresholds(out):
        expected = planted_threshold(float(row["alpha"]), int(row["seed"]))
        assert row["threshold"] == str(min(max(expected, 1), 12))


@pytest.mark.ray
def test_a_search_through_ray_finds_what_the_inline_executor_finds_and_stores_each_config_once(tmp_path):
    """The real study, tiny: rounds run as Tune trials give the same thresholds and configs as inline."""
    from ray_helpers import kill_ray_processes, private_ray_tmpdir, ray_env

    raw = {**SWEEP, "grid": {"alpha": [0.5, 0.8]}, "fixed": {"steps": 40, "probe_prompts": 4}, "record_every": 40,
           "threshold": {**SWEEP["threshold"], "range": [1, 8], "level": 0.3}}  # fmt: skip
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    assert _run(path, tmp_path / "inline") == 0
    ray_tmpdir = private_ray_tmpdir()
    try:
        done = subprocess.run([sys.executable, "-m", "iclscale.cli", "sweep", "run", str(path), "--out",
                               str(tmp_path / "ray"), "--quiet"], env=ray_env(ray_tmpdir), capture_output=True,
                              text=True, timeout=600)  # fmt: skip
    finally:
        kill_ray_processes(ray_tmpdir)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _thresholds(tmp_path / "ray") == _thresholds(tmp_path / "inline")
    stored = _stored_rows(tmp_path / "ray")
    assert set(stored.values()) == {1} and set(stored) == set(_stored_rows(tmp_path / "inline"))


def test_over_median_one_search_per_cell_finds_the_median_seeds_threshold(tmp_path, monkeypatch):
    install(monkeypatch)
    raw = {**SWEEP, "seeds": 3, "threshold": {**SWEEP["threshold"], "over": "median"}}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    out = tmp_path / "out"
    assert _run(path, out) == 0
    rows = _thresholds(out)
    assert [r["seed"] for r in rows] == [""] * len(ALPHAS)
    # the planted error is 0 or 1 per seed: the median over seeds 0, 1, 2 is 0 from seed 1's threshold on
    expected = [str(min(max(planted_threshold(alpha, 1), 1), 12)) for alpha in ALPHAS]
    assert [r["threshold"] for r in rows] == expected
    assert len({run_id for run_id, _ in _stored_rows(out)}) % 3 == 0  # every value trained for all seeds

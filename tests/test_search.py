"""The Optuna search mode (`search:` in a sweep file): validation, one search per grid point,
trials in the store, resume without repeating work. Inline executor, except one Ray test."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from iclscale.cli import main
from iclscale.sweeps.search_trials import objective
from iclscale.sweeps.spec import load_sweep, parse_frozen
from iclscale.sweeps.store_read import read_store

# A problem that trains in a fraction of a second per trial: the softmax unit on affine tasks in d = 2.
TINY = {
    "name": "tiny_search",
    "study": "softmax_window",
    "fixed": {"d": 2, "n": 8, "steps": 20, "tasks_per_iter": 4, "task_class": "affine", "sigma": 0.1},
    "seeds": 2,
    "eval": {"test_tasks": 64},
    "record_every": 10,
}
LR_SEARCH = {"metric": "test_mse", "mode": "min", "params": {"lr": {"low": 1.0e-3, "high": 3.0, "log": True}}}


def _write(tmp_path: Path, raw: dict, name: str = "sweep.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def _run(path: Path, out: Path) -> int:
    return main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"])


def _rows(out: Path) -> int:
    return len(read_store(out, curves=False).runs)


BROKEN = [
    ({"colour": 1}, "search: unknown key 'colour'"),
    ({"metric": None}, "search: missing key 'metric'"),
    ({"mode": "minimize"}, "search.mode: expected min or max, got 'minimize'"),
    ({"trials": 0}, "search.trials: expected a positive integer"),
    ({"trials": "ten"}, "search.trials: expected a positive integer"),
    ({"seed": -1}, "search.seed: a seed must be an integer"),
    ({"params": {}}, "search.params: expected a mapping of param names to ranges"),
    ({"params": {"lz": {"low": 1, "high": 2}}}, "search.params: unknown param 'lz'"),
    ({"params": {"L_test": {"low": 0.5, "high": 2.0}}}, "search.params.L_test: L_test is an eval-role param"),
    ({"params": {"L": {"low": 0.5, "high": 2.0}}}, "search.params.L: L is also in grid"),
    ({"params": {"d": {"low": 2, "high": 4}}}, "search.params.d: d is also in fixed"),
    ({"params": {"lr": {"low": 0.1, "high": 0.01}}}, "search.params.lr: low must be below high"),
    (
        {"params": {"init_scale": {"low": 0.0, "high": 1.0, "log": True}}},
        "search.params.init_scale: a log range needs low > 0",
    ),
    ({"params": {"lr": {"low": -1.0, "high": 1.0}}}, "search.params.lr.low: lr must be a number in (0, inf)"),
    ({"params": {"lr_decay": {"low": 0.5, "high": 2.0}}}, "search.params.lr_decay.high: lr_decay must be a number"),
    ({"params": {"lr": {"low": "abc", "high": 1.0}}}, "search.params.lr.low: lr must be a number"),
    ({"params": {"lr": {"low": 0.01, "high": 1.0, "log": "yes"}}}, "search.params.lr.log: expected true or false"),
    ({"params": {"lr": {"low": 0.01, "hi": 1.0}}}, "search.params.lr: unknown key 'hi'"),
    ({"params": {"lr": [0.01, 0.1]}}, "search.params.lr: expected {low: ..., high: ..., log: true|false}"),
    ({"params": {"covariates": {"low": 1, "high": 2}}}, "search.params.covariates: covariates is one of"),
    ({"params": {"lr": {"choices": []}}}, "search.params.lr.choices: expected a non-empty list"),
    ({"params": {"queries": {"low": 1.5, "high": 3}}}, "search.params.queries.low: queries must be an integer"),
]


@pytest.mark.parametrize(
    "changes, message", BROKEN, ids=[m.split(":")[0] + "-" + str(i) for i, (_, m) in enumerate(BROKEN)]
)
def test_a_broken_search_block_gets_one_message_naming_the_file_and_key_and_exit_2(tmp_path, capsys, changes, message):
    search = {**LR_SEARCH, "trials": 3, **changes}
    search = {k: v for k, v in search.items() if v is not None}
    path = _write(tmp_path, {**TINY, "grid": {"L": [0.5, 1.0]}, "search": search})
    out = tmp_path / "results"
    assert _run(path, out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"iclscale: error: sweep file {path}, line ") and f": {message}" in err, err
    assert not out.exists()


def test_an_unknown_metric_is_refused_before_any_training(tmp_path, capsys):
    path = _write(tmp_path, {**TINY, "search": {**LR_SEARCH, "metric": "test_mae", "trials": 2}})
    out = tmp_path / "results"
    assert _run(path, out) == 2
    err = capsys.readouterr().err
    assert "search.metric: study softmax_window reports no metric 'test_mae'" in err
    assert "test_mse" in err and "train_loss" in err  # it lists what there is
    assert not out.exists()


def test_the_search_block_survives_the_frozen_sweep_round_trip(tmp_path):
    raw = {**TINY, "grid": {"attention": ["softmax", "linear"]}}
    raw["search"] = {
        "metric": "test_mse",
        "params": {"lr": {"low": "1e-3", "high": 1}, "optimizer": {"choices": ["adam", "sgd"]}},
        "trials": 4,
    }
    sweep = load_sweep(_write(tmp_path, raw))
    assert sweep.search == {
        "metric": "test_mse",
        "mode": "min",
        "params": {"lr": {"low": 0.001, "high": 1.0, "log": False}, "optimizer": {"choices": ["adam", "sgd"]}},
        "trials": 4,
        "seed": 0,
    }
    frozen = yaml.safe_load(yaml.safe_dump(sweep.resolved(), sort_keys=False))
    assert parse_frozen(frozen, "frozen.yaml").search == sweep.search


def test_the_objective_is_the_mean_over_seeds_that_did_not_diverge_and_the_worst_when_all_did():
    rows = [{"status": "ok", "m": 1.0}, {"status": "ok", "m": 3.0}, {"status": "diverged", "m": 0.0}]
    assert objective(rows, "m", "min") == 2.0
    diverged = [{"status": "diverged", "m": 0.5}, {"status": "ok", "m": float("nan")}]
    assert objective(diverged, "m", "min") == float("inf")
    assert objective(diverged, "m", "max") == float("-inf")


def test_an_inline_search_lands_in_the_store_and_gets_close_to_the_best_of_a_dense_grid(tmp_path):
    # 40 steps of 16 tasks: a smoother lr landscape than TINY's, so that "close to the best" means something
    fixed = {**TINY["fixed"], "steps": 40, "tasks_per_iter": 16, "attention": "softmax"}
    trials = 5
    out = tmp_path / "search"
    assert _run(_write(tmp_path, {**TINY, "fixed": fixed, "search": {**LR_SEARCH, "trials": trials}}), out) == 0

    runs = read_store(out, curves=False).runs
    assert len(runs) == trials * 2 and runs["lr"].nunique() == trials  # trials × seeds rows, one eval point
    assert set(runs["status"]) == {"ok"} and set(runs["sweep"]) == {"tiny_search"}
    best = yaml.safe_load((out / "search_best.yaml").read_text())["points"][0]
    assert best["trials"] == trials and 1e-3 <= best["best"]["lr"] <= 3.0
    # the objective is what the store says: the mean over seeds of the final test_mse at the best lr
    assert best["objective"] == pytest.approx(runs[runs["lr"] == best["best"]["lr"]]["test_mse"].mean())

    lrs = [1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, 3.0]  # a dense grid over the same range, on the same seeds
    grid = {**TINY, "name": "tiny_grid", "fixed": fixed, "grid": {"lr": lrs}}
    assert _run(_write(tmp_path, grid, "grid.yaml"), tmp_path / "grid") == 0
    dense = read_store(tmp_path / "grid", curves=False).runs.groupby("lr")["test_mse"].mean()
    assert best["objective"] < dense.max()
    assert best["objective"] <= 2 * dense.min(), (best, dense.to_dict())  # 5 trials vs 8 grid values


def test_one_search_per_grid_point_rerun_adds_nothing_and_more_trials_run_only_the_difference(tmp_path, capsys):
    raw = {**TINY, "grid": {"attention": ["softmax", "linear"]}, "search": {**LR_SEARCH, "trials": 2}}
    path, out = _write(tmp_path, raw), tmp_path / "out"
    assert _run(path, out) == 0
    runs = read_store(out, curves=False).runs
    assert len(runs) == 2 * 2 * 2  # grid points × trials × seeds
    for attention in ("softmax", "linear"):  # each grid point got its own search
        assert runs[runs["attention"] == attention]["lr"].nunique() == 2
    fragments = sorted(p.name for p in (out / "runs").iterdir())

    assert _run(path, out) == 0
    assert sorted(p.name for p in (out / "runs").iterdir()) == fragments  # nothing trained, nothing rewritten
    assert "nothing to run" in capsys.readouterr().out

    raw["search"]["trials"] = 3
    _write(tmp_path, raw)
    assert main(["sweep", "plan", str(path), "--out", str(out)]) == 0
    plan = capsys.readouterr().out
    assert "2 grid points × 3 trials × 2 seeds" in plan
    assert "stored: 4 of 6 trials" in plan and "to run: 2 trials, at most 4 configs" in plan
    assert _run(path, out) == 0
    assert _rows(out) == 2 * 3 * 2  # one more trial per grid point
    best = yaml.safe_load((out / "search_best.yaml").read_text())
    assert [p["point"] for p in best["points"]] == [{"attention": "softmax"}, {"attention": "linear"}]
    assert [p["trials"] for p in best["points"]] == [3, 3]

    capsys.readouterr()
    assert main(["sweep", "status", str(out)]) == 0
    status = capsys.readouterr().out
    assert "12 configs: 12 ok, 0 diverged, 0 failed, 0 missing" in status
    assert "search: 6 of 6 trials stored (attention=softmax 3/3, attention=linear 3/3)" in status


def test_a_repeated_suggestion_trains_nothing_but_counts_as_a_trial(tmp_path):
    raw = {**TINY, "search": {"metric": "test_mse", "params": {"lr": {"choices": [0.05, 0.5]}}, "trials": 5}}
    path, out = _write(tmp_path, raw), tmp_path / "out"
    assert _run(path, out) == 0
    assert _rows(out) <= 2 * 2  # at most two distinct lrs × two seeds, never a duplicated row
    assert len(list((out / "search").glob("*.json"))) == 5
    assert yaml.safe_load((out / "search_best.yaml").read_text())["points"][0]["trials"] == 5
    rows = _rows(out)
    assert _run(path, out) == 0  # resumes to "all 5 stored", not into an endless hunt for new values
    assert _rows(out) == rows and len(list((out / "search").glob("*.json"))) == 5


def test_a_trial_whose_seeds_all_diverge_scores_the_worst_value_and_the_search_goes_on(tmp_path):
    fixed = {**TINY["fixed"], "attention": "linear", "optimizer": "sgd"}  # linear attention + SGD at lr 1000 blows up
    raw = {
        **TINY,
        "fixed": fixed,
        "search": {"metric": "test_mse", "params": {"lr": {"choices": [1000.0]}}, "trials": 2},
    }
    path, out = _write(tmp_path, raw), tmp_path / "out"
    assert _run(path, out) == 0
    assert set(read_store(out, curves=False).runs["status"]) == {"diverged"}
    best = yaml.safe_load((out / "search_best.yaml").read_text())["points"][0]
    assert best["objective"] == float("inf") and best["all_diverged_trials"] == 2
    record = json.loads(next((out / "search").glob("*.json")).read_text())
    assert record["test_mse"] == float("inf")
    raw["search"]["trials"] = 3  # warm-starting Optuna with an infinite objective works too
    assert _run(_write(tmp_path, raw), out) == 0
    assert yaml.safe_load((out / "search_best.yaml").read_text())["points"][0]["trials"] == 3


@pytest.mark.ray
def test_a_search_resumed_through_ray_warm_starts_optuna_and_runs_the_remaining_trial(tmp_path):
    from ray_helpers import kill_ray_processes, private_ray_tmpdir, ray_env

    raw = {**TINY, "search": {**LR_SEARCH, "trials": 1}}
    path, out = _write(tmp_path, raw), tmp_path / "out"
    assert _run(path, out) == 0  # the first trial inline
    raw["search"]["trials"] = 2
    path = _write(tmp_path, raw)
    ray_tmpdir = private_ray_tmpdir()
    try:
        command = [sys.executable, "-m", "iclscale.cli", "sweep", "run", str(path), "--out", str(out), "--quiet"]
        run = subprocess.run(command, env=ray_env(ray_tmpdir), capture_output=True, text=True, timeout=300)
    finally:
        kill_ray_processes(ray_tmpdir)
    assert run.returncode == 0, run.stderr[-3000:]
    runs = read_store(out, curves=False).runs
    assert runs["lr"].nunique() == 2 and len(runs) == 2 * 2
    assert set(runs["node"]) >= {"127.0.0.1"}  # the second trial ran on a Ray worker
    assert "search: 2 of 2 trials stored" in run.stdout

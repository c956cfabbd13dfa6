"""A threshold search over an eval-role axis (l_ts) on a stub trainer with a planted criterion
(tests/planted_trainer.py): each (grid point, seed) model is trained once and the eval axis is bisected on it
through the trainer's refine hook; the planted thresholds are recovered exactly, every measured value is a
stored eval point (once), a re-run trains nothing, and a planted window is reported as non-monotone."""

import csv
from collections import Counter
from pathlib import Path

import yaml
from planted_trainer import install, planted_ts
from test_threshold_search import _stored_rows

from iclscale.cli import main

ALPHA_TESTS = [0.1, 0.3, 0.5, 1.0]  # planted ⌈4/α'⌉ + seed: 40 (41, censored), 14 (15), 8 (9), 4 (5)
SWEEP = {
    "name": "planted_eval",
    "study": "nonlinear_icl",
    "fixed": {"steps": 10, "probe_prompts": 4},
    "grid": {"alpha": [0.5, 0.8]},  # two models per seed; the planted ts_error does not depend on α
    "seeds": 2,
    "eval": {"alpha_test": ALPHA_TESTS, "eval_prompts": 64},
    "record_every": 10,
    "threshold": {"axis": "l_ts", "range": [1, 40], "resolution": 0.01, "scale": "log", "metric": "ts_error"}
    | {"level": 0.01},
}


def _run(tmp_path: Path, out: Path, **threshold) -> int:
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({**SWEEP, "threshold": {**SWEEP["threshold"], **threshold}}, sort_keys=False))
    return main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"])


def _thresholds(out: Path) -> list[dict[str, str]]:
    with open(out / "thresholds.csv") as handle:
        return list(csv.DictReader(handle))


def test_an_eval_axis_is_searched_on_each_trained_model_without_retraining(tmp_path, monkeypatch):
    install(monkeypatch)
    log = tmp_path / "trained.log"
    monkeypatch.setenv("PLANTED_LOG", str(log))
    out = tmp_path / "out"
    assert _run(tmp_path, out) == 0
    trained = Counter(log.read_text().split())
    assert len(trained) == 2 * 2 and set(trained.values()) == {1}  # (α, seed) models, each trained once
    rows = _thresholds(out)
    assert len(rows) == 2 * 2 * len(ALPHA_TESTS)
    for row in rows:
        expected = planted_ts(float(row["alpha_test"]), int(row["seed"]))
        if expected > 40:
            assert (row["status"], row["threshold"]) == ("censored_high", "40")
        else:
            assert (row["status"], int(row["threshold"]), int(row["lo"])) == ("found", expected, expected - 1)
    stored = _stored_rows(out)
    assert set(stored.values()) == {1}  # every (model, eval point) once
    assert {run_id for run_id, _ in stored} == set(trained)
    measured = Counter(run_id for run_id, _ in stored)
    assert len(set(measured.values())) == 1  # one evaluation covers the pack: every model at every value
    assert max(measured.values()) < 40 * len(ALPHA_TESTS)  # fewer values than a grid of every l_ts

    assert _run(tmp_path, out) == 0  # every search ended: a re-run trains and measures nothing more
    assert Counter(log.read_text().split()) == trained and _stored_rows(out) == stored


def test_a_planted_window_on_the_eval_axis_is_reported_as_non_monotone(tmp_path, monkeypatch, capsys):
    install(monkeypatch)
    monkeypatch.setenv("PLANTED_WINDOW", "1")  # ts_error is 0 from the planted threshold to l_ts = 30 only
    out = tmp_path / "out"
    assert _run(tmp_path, out) == 0  # check_far_end is on for an eval axis: l_ts = 40 is measured
    statuses = Counter((row["alpha_test"], row["status"]) for row in _thresholds(out))
    assert statuses[("0.1", "censored_high")] == 4  # 40 > 30: never holds
    assert all(statuses[(str(a), "non_monotone")] == 4 for a in ALPHA_TESTS[1:])
    assert "non_monotone at alpha=0.5, alpha_test=0.3, eval_prompts=64 (seed 0): holds at" in capsys.readouterr().out

"""The analysis reads a threshold search's answers (DIR/thresholds.csv) as threshold-law points: found
thresholds as values, ends censored, non-monotone searches left out (stub trainer, tests/planted_trainer.py)."""

import dataclasses

import pytest
import yaml
from planted_trainer import install, planted_threshold
from test_threshold_search import ALPHAS, SWEEP

from iclscale.analysis.measures import ThresholdAlongAxis
from iclscale.analysis.reader import load_results
from iclscale.analysis.searched import search_summary
from iclscale.cli import main

MEASURE = ThresholdAlongAxis("test_error", axis="l_tr", threshold=0.01)


def _search(tmp_path, **threshold):
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({**SWEEP, "threshold": {**SWEEP["threshold"], **threshold}}, sort_keys=False))
    out = tmp_path / "out"
    assert main(["sweep", "run", str(path), "--out", str(out), "--executor", "inline", "--quiet"]) == 0
    return load_results(str(out))


def _points(results):
    table = MEASURE.per_run(results, results.runs)
    return {(row.alpha, row.seed): row for row in table.itertuples()}


def test_searched_thresholds_are_the_law_points_with_censored_ends(tmp_path, monkeypatch):
    install(monkeypatch)
    points = _points(_search(tmp_path))
    assert len(points) == len(ALPHAS) * 2
    for (alpha, seed), point in points.items():
        planted = planted_threshold(alpha, seed)
        assert point.value == min(max(planted, 1), 12)
        assert point.censored == (planted <= 1 or planted > 12)
        assert point.left_censored == (planted <= 1)


def test_a_non_monotone_search_gives_no_point_where_the_stored_values_minimum_would(tmp_path, monkeypatch):
    install(monkeypatch)
    monkeypatch.setenv("PLANTED_WINDOW", "1")
    results = _search(tmp_path, check_far_end=True)
    assert set(results.thresholds["status"]) == {"non_monotone", "censored_high"}
    points = _points(results)
    assert all(point.censored for point in points.values())  # only the censored searches are points
    assert len(points) == (results.thresholds["status"] == "censored_high").sum() > 0
    as_grid = _points(dataclasses.replace(results, thresholds=None))  # the stored values read like a grid
    assert len(as_grid) == len(ALPHAS) * 2 and any(not point.censored for point in as_grid.values())


@pytest.mark.parametrize("level", [0.5, 0.001])
def test_a_measure_at_another_level_reads_the_stored_values_not_the_search(tmp_path, monkeypatch, level):
    install(monkeypatch)
    results = _search(tmp_path)
    other = MEASURE.with_threshold(level).per_run(results, results.runs)
    assert len(other) == len(ALPHAS) * 2  # the grid reading: every (α, seed) of the stored values


def test_the_report_says_what_the_search_found_and_what_its_monotonicity_check_covered(tmp_path, monkeypatch):
    install(monkeypatch)
    results = _search(tmp_path / "plain")
    summary = search_summary(results)
    assert "10 searches for the smallest l_tr with test_error ≤ 0.01: 8 found, 2 censored" in summary
    assert "detected among the evaluated values only (its far end not evaluated)" in summary
    past = int((results.thresholds["unchecked_past"] != "none").sum())
    assert 0 < past and f"{past} of 10 ended searches have values past their threshold that were never" in summary
    monkeypatch.setenv("PLANTED_WINDOW", "1")
    window = search_summary(_search(tmp_path / "window", check_far_end=True))
    assert ": 0 found, " in window and "non-monotone" in window and "(its far end evaluated too)" in window
    assert search_summary(dataclasses.replace(load_results(str(tmp_path / "plain" / "out")), sweep={})) is None

"""A search sweep's Optuna studies persisted in the results directory: `optuna.load_study` opens each grid
point's study from DIR/optuna.db with the stored trials, optuna-dashboard (where installed) serves them with
the README's command, and the report gets a search section."""

import json
import math
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import optuna
import pytest
import yaml

from iclscale.cli import main
from iclscale.sweeps.search_optuna import OPTUNA_FILE

TINY = {
    "name": "tiny_search_file",
    "study": "softmax_window",
    "fixed": {"d": 2, "n": 8, "steps": 20, "tasks_per_iter": 4, "task_class": "affine", "sigma": 0.1},
    "grid": {"attention": ["softmax", "linear"]},
    "seeds": 2,
    "eval": {"test_tasks": 64},
    "record_every": 10,
    "search": {"metric": "test_mse", "mode": "min", "params": {"lr": {"low": 1.0e-3, "high": 3.0, "log": True}},
               "trials": 3},
}  # fmt: skip


NAMES = ["tiny_search_file attention=linear", "tiny_search_file attention=softmax"]


@pytest.fixture(scope="module")
def search_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("search")
    sweep_file = folder / "search.yaml"
    sweep_file.write_text(yaml.safe_dump(TINY, sort_keys=False))
    out = folder / "out"
    argv = ["sweep", "run", str(sweep_file), "--out", str(out), "--executor", "inline", "--quiet"]
    assert main(argv) == 0
    return out


def test_optuna_load_study_opens_each_grid_points_search_from_the_results_directory(search_store):
    out = search_store
    storage = f"sqlite:///{out / OPTUNA_FILE}"
    names = sorted(s.study_name for s in optuna.get_all_study_summaries(storage))
    assert names == NAMES
    best = yaml.safe_load((out / "search_best.yaml").read_text())["points"]
    for name, point in zip(names, sorted(best, key=lambda p: p["point"]["attention"]), strict=True):
        study = optuna.load_study(study_name=name, storage=storage)
        assert len(study.trials) == 3 and study.direction == optuna.study.StudyDirection.MINIMIZE
        assert all(0.001 <= t.params["lr"] <= 3.0 for t in study.trials)
        assert math.isclose(study.best_value, point["objective"]) and study.best_params == point["best"]
    assert main(["report", str(out)]) == 0
    page = (out / "report" / "index.html").read_text()
    assert "Search: " in page and "optuna.load_study" in page
    assert f"optuna-dashboard sqlite:///{out / OPTUNA_FILE} --port 8080" in page
    charts = sorted(p.name for p in Path(out / "report" / "charts").glob("*.png"))
    assert any("objective-vs-lr" in c for c in charts) and any("search-history" in c for c in charts)


def test_optuna_dashboard_serves_the_studies_with_the_readmes_command(search_store):
    """`optuna-dashboard sqlite:///DIR/optuna.db --port P` on loopback: its API lists every grid point's study
    with its trials (a separate package: skipped where it is not installed)."""
    command = shutil.which("optuna-dashboard")
    if command is None:
        pytest.skip("optuna-dashboard is not installed (pip install optuna-dashboard)")
    with socket.socket() as probe:  # a free port: with --port 0 the dashboard does not say which it took
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    storage = f"sqlite:///{search_store / OPTUNA_FILE}"
    server = subprocess.Popen([command, storage, "--host", "127.0.0.1", "--port", str(port), "--quiet"])
    base = f"http://127.0.0.1:{port}"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, never through a proxy
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = opener.open(f"{base}/dashboard", timeout=5).read().decode()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.3)
        assert "Optuna Dashboard" in page
        listed = json.load(opener.open(f"{base}/api/studies", timeout=10))["study_summaries"]
        assert sorted(s["study_name"] for s in listed) == NAMES
        for summary in listed:
            study = json.load(opener.open(f"{base}/api/studies/{summary['study_id']}", timeout=10))
            assert [t["state"] for t in study["trials"]] == ["Complete"] * 3
    finally:
        server.terminate()
        server.wait(timeout=10)

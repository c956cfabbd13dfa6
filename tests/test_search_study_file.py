"""A search sweep's Optuna studies persisted in the results directory: `optuna.load_study` opens each grid
point's study from DIR/optuna.db with the stored trials, and the report gets a search section."""

import math
from pathlib import Path

import optuna
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


def test_optuna_load_study_opens_each_grid_points_search_from_the_results_directory(tmp_path):
    sweep_file = tmp_path / "search.yaml"
    sweep_file.write_text(yaml.safe_dump(TINY, sort_keys=False))
    out = tmp_path / "out"
    argv = ["sweep", "run", str(sweep_file), "--out", str(out), "--executor", "inline", "--quiet"]
    assert main(argv) == 0
    storage = f"sqlite:///{out / OPTUNA_FILE}"
    names = sorted(s.study_name for s in optuna.get_all_study_summaries(storage))
    assert names == ["tiny_search_file attention=linear", "tiny_search_file attention=softmax"]
    best = yaml.safe_load((out / "search_best.yaml").read_text())["points"]
    for name, point in zip(names, sorted(best, key=lambda p: p["point"]["attention"]), strict=True):
        study = optuna.load_study(study_name=name, storage=storage)
        assert len(study.trials) == 3 and study.direction == optuna.study.StudyDirection.MINIMIZE
        assert all(0.001 <= t.params["lr"] <= 3.0 for t in study.trials)
        assert math.isclose(study.best_value, point["objective"]) and study.best_params == point["best"]
    assert main(["report", str(out)]) == 0
    page = (out / "report" / "index.html").read_text()
    assert "Search: " in page and "optuna.load_study" in page
    charts = sorted(p.name for p in Path(out / "report" / "charts").glob("*.png"))
    assert any("objective-vs-lr" in c for c in charts) and any("search-history" in c for c in charts)

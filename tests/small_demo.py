"""The demo sweep shrunk for tests (fewer steps, grid values and seeds; same study, fixed params and laws), trained
inline into a store: shared by the tests that need a real store to read, report or pack."""

from pathlib import Path

import yaml

from iclscale.cli import main
from iclscale.paper import find_sweep


def train_small_demo(folder: Path, store: Path) -> Path:
    raw = yaml.safe_load(find_sweep("demo").read_text())
    raw["fixed"].update(steps=40, tasks_per_iter=4)
    raw["grid"] = {"n": [50, 200], "sigma": [0.5, 1.0, 2.0]}
    raw["seeds"] = 2
    raw["record_every"] = 20
    sweep_file = folder / "demo_small.yaml"
    sweep_file.write_text(yaml.safe_dump(raw))
    assert main(["sweep", "run", str(sweep_file), "--executor", "inline", "--out", str(store), "--quiet"]) == 0
    return store

"""The launch-count benchmark (benchmarks/launch_count.py) runs on a tiny pack and prints every field it promises."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("study", "pack_size", "path", "torch", "graphs_per_step", "step_ops_outside_graphs", "record_kernel_ops",
          "record_host_syncs", "setup_linalg_calls", "graph_breaks", "compile_path")  # fmt: skip


def test_one_line_per_study_size_and_path_with_every_field():
    done = subprocess.run(
        [sys.executable, "benchmarks/launch_count.py", "--json", "--sizes", "4", "--studies", "softmax_window"],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [(r["study"], r["pack_size"], r["path"]) for r in rows] == [
        ("softmax_window", 4, p) for p in ("cpu", "cuda")
    ]
    for row in rows:
        assert all(field in row for field in FIELDS), sorted(set(FIELDS) - set(row))
        assert row["graphs_per_step"] == 1 and row["step_ops_outside_graphs"] == 0 and row["graph_breaks"] == []
        assert row["setup_linalg_calls"] == 0  # ReLU tasks: no task subspace drawn
        assert row["record_kernel_ops"] > 0 and row["record_host_syncs"] >= 1  # a record is measured and read back


def test_unknown_studies_and_bad_sizes_are_refused():
    for args in (["--studies", "no_such_study"], ["--sizes", "0"]):
        done = subprocess.run(
            [sys.executable, "benchmarks/launch_count.py", *args],
            capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300,
        )  # fmt: skip
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1].startswith(f"launch_count.py: error: {args[0]}"), done.stderr

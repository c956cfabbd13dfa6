"""benchmarks/calibration.py runs end to end in its quick mode and prints its table (its numbers at 5 replicates
are noise: the table in docs/laws-and-verdicts.md is made with 400)."""

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "calibration.py"


def test_the_calibration_script_prints_a_row_per_kind_and_design():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--workers", "1"], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and not line.startswith("| kind")]
    kinds = {row.split("|")[1].strip() for row in rows}
    assert kinds == {"power law", "line", "trend", "threshold", "curve", "iclscale fit"}
    fit_rows = {row.split("|")[2].strip(): row.split("|")[3].strip() for row in rows if "| iclscale fit |" in row}
    assert fit_rows["paired: 3 seeds × 6 x"] == "t-interval of per-seed fits"  # every seed at every x
    assert fit_rows["paired: 3 seeds × 6 x, --independent (the pooled interval)"] == "OLS t-interval"
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        rates = [float(c) for c in cells[3:] if re.fullmatch(r"\d\.\d{3}", c)]
        assert len(rates) >= 3 and all(0.0 <= r <= 1.0 for r in rates), row
    assert "5 replicates per design and case" in done.stdout

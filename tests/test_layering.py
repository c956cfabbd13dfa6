"""DESIGN.md's layering, held by reading the source: the trainer (`iclscale`) imports neither `sweeps` nor
`analysis` (only the command line, iclscale/cli.py, composes the three); `analysis` imports neither the
trainer nor torch, not even inside a function; and importing analysis's modules loads neither."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMPOSER = ROOT / "iclscale" / "cli.py"  # the one module allowed to import all three packages


def imported_modules(path: Path) -> set[str]:
    """Every module an `import` or `from … import` statement in the file names, at any depth."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def forbidden_imports(package: str, forbidden: tuple[str, ...], skip: tuple[Path, ...] = ()) -> list[str]:
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        if path in skip:
            continue
        for name in imported_modules(path):
            if name.split(".")[0] in forbidden:
                found.append(f"{path.relative_to(ROOT)} imports {name}")
    return found


def test_the_trainer_imports_neither_sweeps_nor_analysis():
    assert forbidden_imports("iclscale", ("sweeps", "analysis"), skip=(COMPOSER,)) == []


def test_analysis_imports_neither_the_trainer_nor_torch():
    assert forbidden_imports("analysis", ("iclscale", "torch")) == []


def test_the_reader_that_analysis_uses_does_not_import_the_trainer():
    """analysis reads the store through iclscale.sweeps.store: that module must not pull the trainer in either."""
    assert {n for n in imported_modules(ROOT / "sweeps" / "store.py") if n.split(".")[0] == "iclscale"} <= {
        "iclscale"  # only `from iclscale import __version__`, inside the function that writes provenance
    }


def test_the_checks_see_a_forbidden_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from iclscale.errors import UserError\n    import torch.nn as nn\n")
    assert imported_modules(module) == {"iclscale.errors", "torch.nn"}


@pytest.mark.parametrize(
    "module",
    ["iclscale.analysis.laws", "iclscale.analysis.reader", "iclscale.analysis.report", "iclscale.analysis.cli"],
)
def test_importing_analysis_loads_neither_the_trainer_nor_torch(module):
    code = f"import json, sys, {module}; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
    code += "('iclscale', 'torch'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_reading_a_results_directory_loads_neither_the_trainer_nor_torch(tmp_path):
    """analysis reads the store through iclscale.sweeps.store: reading a real directory must not pull the trainer in."""
    from iclscale.sweeps.store import Location, write_fragment, write_frozen_sweep

    location = Location(str(tmp_path))
    write_frozen_sweep(location, {"name": "t", "study": "toy", "laws": [], "params": {"x": {"role": "train"}}})
    write_fragment(location, "pack-1", [{"run_id": "r", "sweep": "t", "study": "toy", "seed": 0, "x": 1.0,
                                        "status": "ok", "eval_key": "{}", "y": 2.0}], [])  # fmt: skip
    code = (
        "import json, sys\nfrom iclscale.analysis.reader import load_results\n"
        f"assert len(load_results({str(tmp_path)!r}).runs) == 1\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('iclscale', 'torch'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []

"""A paper from outside: examples/external_paper installed as a distribution in a temporary folder (no network),
then every command run on it in a subprocess, as a user who installed it beside iclscale would."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from ray_helpers import kill_ray_processes, private_ray_tmpdir, ray_env

from iclscale.paper import ENTRY_POINT_GROUP
from iclscale.sweeps.store_read import read_store

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "external_paper"
ICLSCALE = [sys.executable, "-m", "iclscale.cli"]
SWEEP, STUDY, LAW = "scalar_sgd_sigma", "scalar_sgd", "scalar_sgd.excess_risk_vs_sigma"


def install(source: Path, site: Path) -> None:
    """Install the distribution at `source` into the folder `site`: with pip where setuptools is at hand (offline:
    no index, no build isolation), else by hand from its pyproject.toml (the package and a .dist-info holding
    METADATA and entry_points.txt, which is all that importlib.metadata reads)."""
    if importlib.util.find_spec("setuptools") is not None:
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
        done = subprocess.run([*command, "--no-index", "--target", str(site), str(source)],
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return
    pyproject = tomllib.loads((source / "pyproject.toml").read_text())
    project = pyproject["project"]
    for package in pyproject["tool"]["setuptools"]["packages"]:
        shutil.copytree(source / package, site / package)
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    entries = project["entry-points"][ENTRY_POINT_GROUP]
    lines = [f"[{ENTRY_POINT_GROUP}]", *(f"{name} = {value}" for name, value in entries.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The example copied to a temporary folder (a build writes beside its sources) and installed there."""
    folder = tmp_path_factory.mktemp("external")
    shutil.copytree(EXAMPLE, folder / "source", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    install(folder / "source", folder / "site")
    return folder / "site"


def iclscale(site: Path, cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run the command with the installed example on the path (and this checkout's iclscale); its output."""
    env = dict(env or os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), str(ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run([*ICLSCALE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"iclscale {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_the_installed_paper_is_listed_trained_swept_inline_and_judged(site, tmp_path):
    assert f"{STUDY}: SGD on a scalar linear regression" in iclscale(site, tmp_path, "studies")
    assert "independent runs per config" in iclscale(site, tmp_path, "studies", STUDY)
    listed = iclscale(site, tmp_path, "sweeps", "--paper", "scalar_sgd")
    assert SWEEP in listed and "15 configs × 300 steps" in listed
    laws = iclscale(site, tmp_path, "laws", "--study", STUDY)
    assert "Scalar SGD (iclscale's worked example) [SGD]: 1 claims with laws" in laws
    assert LAW in laws and "planted at exponent 2 → consistent" in laws
    assert "headline metrics:" in iclscale(site, tmp_path, "train", STUDY, "steps=20", "chains=4", "--quiet")
    assert "to run: 15 configs" in iclscale(site, tmp_path, "sweep", "plan", SWEEP, "--out", str(tmp_path / "plan"))

    out = tmp_path / "results" / SWEEP
    ran = iclscale(site, tmp_path, "sweep", "run", SWEEP, "--executor", "inline", "--out", str(out))
    assert "15 configs: 15 ok, 0 diverged, 0 failed, 0 missing" in ran
    runs = read_store(out).runs
    assert set(runs["study"]) == {STUDY} and (runs["status"] == "ok").all()
    # the excess risk against the stationary value of constant-step SGD, ησ²/(B(2 − η(1 + 2/B))) (laws.py)
    ratio = (runs["excess_risk"] / runs["sigma"] ** 2).mean()
    assert abs(ratio / (0.1 / (16 * (2 - 0.1 * (1 + 2 / 16)))) - 1) < 0.15

    report = iclscale(site, tmp_path, "report", str(out))
    assert f"{LAW}  batch=16, lr=0.1: exponent 2" in report and "consistent" in report
    fits = (out / "report" / "fits.csv").read_text()
    assert f"{LAW},sigma,excess_risk" in fits
    ledger = iclscale(site, tmp_path, "ledger", str(out.parent))
    assert "Scalar SGD (iclscale's worked example) [SGD]: 1 consistent" in ledger


@pytest.mark.ray
def test_the_installed_paper_sweeps_through_ray_whose_workers_import_it(site, tmp_path):
    ray_tmpdir = private_ray_tmpdir()
    try:
        out = tmp_path / SWEEP
        ran = iclscale(site, tmp_path, "sweep", "run", SWEEP, "--out", str(out), env=ray_env(ray_tmpdir))
    finally:
        kill_ray_processes(ray_tmpdir)
    assert "packs ran on nodes: 127.0.0.1" in ran
    assert "15 configs: 15 ok, 0 diverged, 0 failed, 0 missing" in ran
    runs = read_store(out).runs
    assert (runs["node"] == "127.0.0.1").all() and (runs["status"] == "ok").all()


def test_an_installed_paper_cannot_silently_replace_a_study_or_a_sweep_of_another(monkeypatch):
    from iclscale import paper
    from iclscale.errors import UserError
    from iclscale.papers.softmax_window import PAPER
    from iclscale.trainer.registry import study_info

    copy = paper.Paper(**{**PAPER.__dict__, "name": "copy"})  # the same studies and sweep files under another name
    monkeypatch.setattr(paper, "papers", lambda: (PAPER, copy))
    with pytest.raises(UserError, match="two papers declare a study called 'softmax_window'"):
        study_info("softmax_window")
    with pytest.raises(UserError, match=r"two catalogue sweeps are called 'demo'.*give its path"):
        paper.find_sweep("demo")


def test_the_cached_compiled_steps_are_keyed_on_an_installed_papers_study_sources(site, tmp_path):
    """Saved compiled steps and footprints are valid for one version of the code (cachedir.code_digest): that
    version must include the installed paper's study, or an edited study would reuse its old compiled step."""
    show = "from iclscale.trainer.cachedir import source_folders, code_digest; print(source_folders(), code_digest())"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(site), str(ROOT)))}

    def digest_and_folders() -> str:
        done = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    before = digest_and_folders()
    assert str((site / "scalar_sgd").resolve()) in before and str(ROOT / "iclscale") in before
    study = next((site / "scalar_sgd").rglob("study.py"))
    study.write_text(study.read_text() + "\n# edited\n")
    assert digest_and_folders().split()[-1] != before.split()[-1]


def test_the_trainer_contract_tests_run_the_installed_paper_without_editing_a_list(site, tmp_path):
    """tests/test_trainer_contract.py takes every installed study from its paper's smoke config (PaperLaws): with the
    example installed, its study is trained by them (compiled = eager, every tensor on its device, ...)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(site), str(ROOT)))}
    contract = [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-k", STUDY]
    done = subprocess.run([*contract, str(ROOT / "tests" / "test_trainer_contract.py")], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    passed = [line for line in done.stdout.splitlines() if line.startswith("PASSED") and f"[{STUDY}]" in line]
    assert any("test_the_compiled_step_equals_the_eager_step" in line for line in passed), done.stdout[-3000:]
    assert len(passed) >= 3, passed

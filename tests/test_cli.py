"""The command line: one clear line and exit 2 for every mistake a user can make (a Hydra comma list gets a hint);
`key=value` for `train` as for `sweep run`; JSON output."""

import json
import re
import subprocess
import sys

import pytest

ICLSCALE = [sys.executable, "-m", "iclscale.cli"]


def _run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*ICLSCALE, *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize(
    "args, message",
    [
        (["train", "softmax_window", "--set", "nonexistent=1"], "unknown param 'nonexistent' for study softmax_window"),
        (["train", "softmax_window", "--set", "L=abc"], "L must be a number in (0, inf), got 'abc'"),
        (["train", "softmax_window", "--set", "d=0"], "d must be an integer in [1, 4096], got 0"),
        (["train", "no_such_study"], "unknown study 'no_such_study'; known studies: "),
        (["train", "softmax_window", "--set", "L"], "expected NAME=VALUE"),
        (["train", "softmax_window", "--set", "L=1", "--set", "L=2"], "given twice"),
        (["train", "softmax_window", "--device", "tpu"], "--device must be auto, cpu or cuda"),
        (["studies", "nope"], "unknown study 'nope'"),
        (["sweep", "status", "/nonexistent/results"], "does not exist"),
        (["report", "/nonexistent/results"], "does not exist"),
        (["laws", "--study", "nope"], "no laws about this study"),
        (["sweep", "run", "demo", "--executor", "inline", "--dashboard"], "--dashboard needs --executor ray"),
        (["reproduce", "C24", "--executor", "inline", "--dashboard"], "--dashboard needs --executor ray"),
    ],
)
def test_user_errors_end_with_one_line_and_exit_2(args, message):
    done = _run(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("iclscale: error: ") and message in lines[0]


def test_train_json_with_defaults_reports_the_window_scale_and_test_error():
    done = _run("train", "softmax_window", "--json", "--set", "steps=300")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {"M_spectral_norm", "test_mse", "run_id", "params", "status"} <= result.keys()
    assert result["status"] == "ok" and result["M_spectral_norm"] > 1e-6  # M grew from 1e-6·I
    assert result["params"]["steps"] == 300 and result["params"]["d"] == 5


def test_studies_lists_every_param_with_role_default_and_range():
    done = _run("studies", "softmax_window")
    assert done.returncode == 0
    assert re.search(r"\n  sigma +train +default 0\.01 +a number in \[0, inf\)\n", done.stdout)
    assert re.search(r"\n  L_test +eval +default null +a number in \(0, inf\) or null\n", done.stdout)
    assert re.search(r"\n  d +shape +default 5 +an integer in \[1, 4096\]\n", done.stdout)
    assert "Lipschitz constant L" in done.stdout  # the meaning, with the paper's symbol


def test_an_eval_value_that_cannot_be_computed_is_refused_at_parse_in_one_line():
    """Issue 38: L_test = 1e308 trained and then failed at every eval point; now refused before any training."""
    done = _run("train", "softmax_window", "--set", "L_test=1e308", "--set", "steps=10")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "L_test = 1e+308 is past float32's range" in lines[0], done.stderr


def test_train_takes_key_value_like_sweep_run_and_the_same_as_set():
    plain = _run("train", "softmax_window", "steps=20", "L=2", "--json", "--compile", "off")
    flag = _run("train", "softmax_window", "--set", "steps=20", "--set", "L=2", "--json", "--compile", "off")
    assert plain.returncode == flag.returncode == 0, plain.stderr + flag.stderr
    assert '"run_id"' in plain.stdout
    assert plain.stdout.split('"run_id": ')[1][:18] == flag.stdout.split('"run_id": ')[1][:18]


@pytest.mark.parametrize(
    "args, hint",
    [
        (["train", "softmax_window", "sigma=0.5,1,2"], "a comma list is Hydra's multirun syntax"),
        (["train", "softmax_window", "steps=20", "--set", "steps=30"], "given both as --set and as steps=…"),
        (["sweep", "plan", "demo", "sigma=0.5,1,2"], "write the list as sigma=[0.5,1,2]"),
    ],
)
def test_a_hydra_comma_list_gets_a_one_line_hint(args, hint):
    done = _run(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and hint in lines[0], done.stderr


SWEEP = "name: t\nstudy: softmax_window\nfixed: {d: 3, steps: 20}\ngrid: {L: [0.5, 1.0]}\nrecord_every: 10\n"


def _out_commands(sweep_file, out: str) -> list[list[str]]:
    return [
        ["sweep", "plan", str(sweep_file), "--out", out],
        ["sweep", "run", str(sweep_file), "--out", out, "--executor", "inline", "--quiet"],
        ["train", "softmax_window", "steps=5", "--out", out, "--quiet"],
    ]


def _tree(root) -> dict:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*")}


@pytest.mark.parametrize("kind", ["unrelated folder", "a file", "empty string", "another sweep's store", "blank"])
def test_out_must_be_a_results_directory_for_plan_run_and_train_alike(tmp_path, capsys, kind):
    from iclscale.cli import main

    sweep_file = tmp_path / "t.yaml"
    sweep_file.write_text(SWEEP)
    target = tmp_path / "target"
    if kind == "unrelated folder":
        target.mkdir()
        (target / "thesis.tex").write_text("years of work")
    elif kind == "a file":
        target.write_text("a file")
    elif kind == "another sweep's store":
        other = tmp_path / "other.yaml"
        other.write_text(SWEEP.replace("name: t", "name: other"))
        assert main(["sweep", "run", str(other), "--out", str(target), "--executor", "inline", "--quiet"]) == 0
    out = {"empty string": "", "blank": "  "}.get(kind, str(target))
    before = _tree(tmp_path)
    capsys.readouterr()
    for argv in _out_commands(sweep_file, out):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("iclscale: error: --out") and len(err[0]) <= 500, (argv, err)
        assert _tree(tmp_path) == before, argv  # nothing written, anywhere


def test_out_may_be_missing_empty_left_by_a_stopped_run_or_this_sweeps_store(tmp_path, capsys):
    from iclscale.cli import main

    sweep_file = tmp_path / "t.yaml"
    sweep_file.write_text(SWEEP)
    (tmp_path / "empty").mkdir()
    (tmp_path / "stopped").mkdir()
    (tmp_path / "stopped" / ".writer.lock").write_text("pid 1")  # what a run stopped before its first write leaves
    for out in ("missing", "empty", "stopped"):
        assert main(["sweep", "plan", str(sweep_file), "--out", str(tmp_path / out)]) == 0, out
    store = str(tmp_path / "stopped")
    assert main(["sweep", "run", str(sweep_file), "--out", store, "--executor", "inline", "--quiet"]) == 0
    grown = tmp_path / "grown.yaml"  # the same sweep, grown: still its store
    grown.write_text(SWEEP.replace("[0.5, 1.0]", "[0.5, 1.0, 2.0]"))
    assert main(["sweep", "plan", str(grown), "--out", store]) == 0
    assert "to run: 1 configs" in capsys.readouterr().out


def test_the_sweep_files_own_folder_is_not_taken_for_its_results(tmp_path, capsys):
    from iclscale.cli import main

    (tmp_path / "sweep.yaml").write_text(SWEEP)
    for command in ("plan", "run"):
        assert main(["sweep", command, str(tmp_path / "sweep.yaml"), "--out", str(tmp_path)]) == 2
        assert "is the sweep file itself" in capsys.readouterr().err
    assert (tmp_path / "sweep.yaml").read_text() == SWEEP


def test_report_on_a_folder_of_foreign_parquet_is_one_line_that_says_what_it_found(tmp_path, capsys):
    """Not a warning naming runs/data.parquet followed by an error saying there is no runs/*.parquet."""
    import pandas as pd

    from iclscale.cli import main

    (tmp_path / "runs").mkdir()
    pd.DataFrame({"a": [1, 2]}).to_parquet(tmp_path / "runs" / "data.parquet")
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("iclscale: error: "), err
    assert "runs/data.parquet" in err[0] and "holds no sound runs: 1 file in runs/" in err[0], err


def test_version_prints_the_installed_version_and_exits_0():
    from importlib.metadata import version

    done = _run("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"iclscale {version('iclscale')}"


def _subcommands(parser, path=()):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name)
                yield from _subcommands(sub, (*path, name))


def test_every_subcommand_help_opens_with_a_one_line_description(capsys):
    from iclscale.cli import build_parser, main

    commands = list(_subcommands(build_parser()))
    assert {("train",), ("sweep", "run"), ("reproduce",), ("fit",)} <= set(commands)
    for command in commands:
        with pytest.raises(SystemExit) as ended:
            main([*command, "--help"])
        text = capsys.readouterr().out
        assert ended.value.code == 0
        description = text.split("\n\n")[1]  # the paragraph after the usage
        assert not description.splitlines()[0].endswith(":"), (command, text)  # "options:": no description
        assert len(" ".join(description.split())) < 200, (command, description)  # one line, not a page


def test_reproduce_help_lists_the_papers_of_the_catalogue(capsys):
    from iclscale.cli import main
    from iclscale.paper import by_citation as papers

    with pytest.raises(SystemExit) as ended:
        main(["reproduce", "--help"])
    assert ended.value.code == 0
    listed = " ".join(capsys.readouterr().out.split()).split("PAPER is one of: ")[1]
    known = papers()
    assert len(known) >= 5 and all(f"{p.tag} (seed {p.seed}; studies {', '.join(p.studies)})" in listed for p in known)


@pytest.mark.parametrize("dashboard", [False, True])
def test_rays_dashboard_is_off_unless_asked_and_then_its_address_is_printed(dashboard, monkeypatch, capsys):
    """The local instance's ray.init, seen without starting Ray."""
    import os
    from types import SimpleNamespace

    import ray
    import ray._private.ray_constants as ray_constants

    from iclscale.sweeps import ray_executor

    monkeypatch.setattr(os, "environ", os.environ.copy())  # start_ray sets the environment Ray reads
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", ray_constants.ENABLE_RAY_CLUSTER)
    monkeypatch.setattr(ray_executor, "check_dashboard_packages", lambda: None)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    calls = []
    started = SimpleNamespace(dashboard_url="127.0.0.1:8265")
    monkeypatch.setattr(ray, "init", lambda **kwargs: calls.append(kwargs) or started)
    ray_executor.start_ray(None, quiet=True, dashboard=dashboard)
    assert len(calls) == 1 and calls[0]["include_dashboard"] is dashboard and calls[0]["dashboard_host"] == "127.0.0.1"
    printed = capsys.readouterr().err
    assert ("Ray dashboard: http://127.0.0.1:8265" in printed) is dashboard, printed


def test_dashboard_without_rays_dashboard_packages_is_one_line(monkeypatch):
    import importlib.util

    from iclscale.errors import UserError
    from iclscale.sweeps import ray_executor

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "aiohttp" else real(name, *a))
    with pytest.raises(UserError, match=r"--dashboard needs Ray's dashboard packages: pip install 'ray\[default\]'"):
        ray_executor.start_ray(None, dashboard=True)

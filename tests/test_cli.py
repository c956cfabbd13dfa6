"""The command line: one clear line and exit 2 for every mistake a user can make; JSON output."""

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


def _trainer_records_eval_errors() -> bool:
    from iclscale.trainer.training import PackResult

    return "eval_errors" in getattr(PackResult, "__dataclass_fields__", {})


@pytest.mark.skipif(not _trainer_records_eval_errors(), reason="the trainer's PackResult.eval_errors (issue 9)")
def test_an_eval_value_that_cannot_be_computed_is_one_line_not_a_traceback():
    done = _run("train", "softmax_window", "--set", "L_test=1e308", "--set", "steps=10")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "could not be evaluated at" in lines[0] and "L_test=1e+308" in lines[0], done.stderr

"""What a researcher sees on a long run and after it: the status line and its heartbeat in a log, `train`'s
output with the answer first, every metric's meaning declared, `key=value` for `train`, the hint for a
Hydra comma list."""

import io
import re
import subprocess
import sys
import time

import pytest

from iclscale.trainer.registry import all_studies, study_info
from iclscale.trainer.statusline import StatusLine

ICLSCALE = [sys.executable, "-m", "iclscale.cli"]
STAMP = r"\d\d:\d\d:\d\dZ"


def _run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    if args[0] == "train":  # compiling would cost more than these few steps
        args = (*args, "--compile", "off")
    return subprocess.run([*ICLSCALE, *args], capture_output=True, text=True, timeout=timeout)


def test_a_log_gets_a_stamped_heartbeat_while_nothing_happens_and_a_last_line_at_the_end():
    stream = io.StringIO()  # not a terminal
    count = [0]
    status = StatusLine(lambda: f"working {count[0]}", stream, every=0.3)
    time.sleep(1.1)  # no event at all: only the heartbeat speaks
    count[0] = 7
    status.close()
    lines = stream.getvalue().splitlines()
    assert 2 <= len(lines) - 1 <= 5, lines  # about one heartbeat per 0.3 s, then the last line
    assert all(re.fullmatch(rf"working \d · {STAMP}", line) for line in lines), lines
    assert lines[-1].startswith("working 7")


def test_a_status_line_survives_pickling_as_a_closed_copy():  # Ray Tune pickles its callbacks
    import pickle

    from iclscale.sweeps.progress import Progress

    plan = type("Plan", (), {"packs": []})()
    stream = io.StringIO()
    progress = Progress(plan, stream=stream)
    copy = pickle.loads(pickle.dumps(progress))
    copy.status.update(milestone=True)
    copy.close()
    progress.close()
    assert copy.line().startswith("progress: 0/0 configs") and stream.getvalue().count("\n") == 1


def test_a_short_training_in_a_log_prints_no_status_line():
    from iclscale.trainer.train_progress import TrainProgress

    stream = io.StringIO()
    progress = TrainProgress("study run", 10, stream)
    progress(10, 10, None)
    progress.close()
    assert stream.getvalue() == ""


def test_milestones_in_a_log_are_spaced_by_the_heartbeat_interval():
    stream = io.StringIO()
    status = StatusLine(lambda: "step", stream, every=60)
    for _ in range(50):
        status.update(milestone=True)  # many events within a second: none printed before 60 s
    status.close()
    assert stream.getvalue().count("\n") == 1


@pytest.mark.parametrize("name", [info.name for info in all_studies()])
def test_every_final_metric_of_every_study_has_a_declared_meaning(name):
    from test_trainer_contract import SMOKE  # each study at a small size

    from iclscale.trainer.training import train_pack

    for info in [study_info(name)]:
        # two steps whatever the role of `steps` (a shape param in cooccurrence, whose default is 30,000 records)
        values = {**SMOKE[info.name].config, "steps": 2} if "steps" in info.names("train", "shape") else {}
        config, point = info.resolve(values, 0, "test")
        result = train_pack(info, [config], [point], 1, device="cpu", compile="off")
        undeclared = [n for n in result.final_metrics(0, point) if info.metric(n) is None]
        assert not undeclared, f"{info.name}: {undeclared}"
        assert any(m.headline for m in info.metrics), info.name


def test_a_metric_family_matches_its_members_only():
    info = study_info("nonlinear_icl")
    assert info.metric("neuron_magnitude_007").name == "neuron_magnitude_#"
    assert info.metric("neuron_magnitude_median").name == "neuron_magnitude_median"
    assert info.metric("neuron_magnitude_x") is None
    layered = study_info("mamba_outliers").metric("layer2_gate_outlier_at03")
    assert layered.name == "layer2_gate_outlier_at#" and "(layer 2)" in layered.meaning


def test_studies_lists_the_meaning_of_the_metric_nobody_could_look_up():
    done = _run("studies", "softmax_window")
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.strip().startswith("M_isotropy_ratio"))
    assert "σ_max(M)/σ_min(M)" in line and "Lemma B.5" in line


def test_train_leads_with_the_headline_metrics_folds_probe_families_and_lists_all_on_request():
    done = _run("train", "nonlinear_icl", "steps=4", "eval_prompts=64", "--quiet")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "headline metrics:" and lines[2].split()[0] == "test_error"
    assert re.search(r"\n  neuron_magnitude_# +65 values: min \S+ · median \S+ · max \S+\n", done.stdout)
    assert "neuron_magnitude_007" not in done.stdout and len(lines) < 70
    every = _run("train", "nonlinear_icl", "steps=4", "eval_prompts=64", "--quiet", "--all")
    assert every.returncode == 0 and "neuron_magnitude_007" in every.stdout


def test_train_says_when_the_config_is_outside_a_theorems_conditions_and_what_a_nan_means():
    oracle = _run("train", "softmax_window_oracle", "--quiet")
    assert oracle.returncode == 0, oracle.stderr
    assert "outside a theorem's conditions (regime_window = 0): [C24] Thm 3.4's proof, Lemma C.5" in oracle.stdout
    mamba = _run("train", "mamba_outliers", "steps=2", "eval_prompts=64", "--quiet")
    assert mamba.returncode == 0, mamba.stderr
    nan_part = mamba.stdout.split("not measured for this config (NaN):\n")[1]
    assert re.search(r"  gate_outlier_at# \(\d+ values\): .*NaN when no prompt has an outlier there", nan_part)


def test_train_takes_key_value_like_sweep_run_and_the_same_as_set():
    plain = _run("train", "softmax_window", "steps=20", "L=2", "--json")
    flag = _run("train", "softmax_window", "--set", "steps=20", "--set", "L=2", "--json")
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


def test_a_long_training_in_a_log_says_how_long_it_takes_and_shows_step_loss_rate_and_eta(tmp_path):
    from iclscale.trainer.train_progress import memoise_rate, memoised_rate

    rates = tmp_path / "rates.json"
    assert memoised_rate("k", rates) is None
    memoise_rate("k", 12.5, rates)
    assert memoised_rate("k", rates) == 12.5

    from iclscale.trainer.train_progress import TrainProgress

    stream = io.StringIO()
    progress = TrainProgress("study run", 10_000, stream, rate=10.0)  # 1000 s from the memoised rate
    progress(100, 10_000, None)
    progress.close()
    text = stream.getvalue()
    assert "study run: 10000 steps will take about 16:40 (from the rate" in text
    assert re.search(rf"study run: step 100/10000 · loss — · \S+ steps/s · elapsed 0:00 · ETA \S+ · {STAMP}", text)


def test_torchs_no_cuda_runtime_notice_stays_out_of_progress_output(caplog):
    """torch's CUDA build without a GPU logs this when a compile imports torch.utils.cpp_extension; in every
    process that trains a pack (iclscale.sweeps.execute) it is dropped, and only it."""
    import logging

    import iclscale.sweeps.execute  # noqa: F401  what a Ray worker or an inline run imports before training

    logger = logging.getLogger("torch.utils.cpp_extension")
    with caplog.at_level(logging.WARNING):
        logger.warning("No CUDA runtime is found, using CUDA_HOME='%s'", "/usr/local/cuda")
        logger.warning("Error checking compiler version for %s", "c++")
    assert [record.getMessage() for record in caplog.records] == ["Error checking compiler version for c++"]

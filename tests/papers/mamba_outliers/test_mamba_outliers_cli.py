"""What a researcher sees of mamba_outliers' metrics: a stack's layer 2 reports layer 1's outlier family again, and
`train` says what a NaN means (no prompt with an outlier at that position)."""

import re

from cli_runs import run_cli

from iclscale.trainer.registry import study_info


def test_a_layer_2_metric_is_layer_1s_family_again():
    layered = study_info("mamba_outliers").metric("layer2_gate_outlier_at03")
    assert layered.name == "layer2_gate_outlier_at#" and "(layer 2)" in layered.meaning


def test_train_says_what_a_nan_means():
    mamba = run_cli("train", "mamba_outliers", "steps=2", "eval_prompts=64", "--quiet")
    assert mamba.returncode == 0, mamba.stderr
    nan_part = mamba.stdout.split("not measured for this config (NaN):\n")[1]
    assert re.search(r"  gate_outlier_at# \(\d+ values\): .*NaN when no prompt has an outlier there", nan_part)

"""What a researcher sees of nonlinear_icl's metrics: the neuron-magnitude family matches its members only, and
`train` leads with the headline metrics and folds the 65 values of the family into one line unless --all."""

import re

from cli_runs import run_cli

from iclscale.trainer.registry import study_info


def test_the_neuron_magnitude_family_matches_its_members_only():
    info = study_info("nonlinear_icl")
    assert info.metric("neuron_magnitude_007").name == "neuron_magnitude_#"
    assert info.metric("neuron_magnitude_median").name == "neuron_magnitude_median"
    assert info.metric("neuron_magnitude_x") is None


def test_train_leads_with_the_headline_metrics_folds_probe_families_and_lists_all_on_request():
    done = run_cli("train", "nonlinear_icl", "steps=4", "eval_prompts=64", "--quiet")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "headline metrics:" and lines[2].split()[0] == "test_error"
    assert re.search(r"\n  neuron_magnitude_# +65 values: min \S+ · median \S+ · max \S+\n", done.stdout)
    assert "neuron_magnitude_007" not in done.stdout and len(lines) < 70
    every = run_cli("train", "nonlinear_icl", "steps=4", "eval_prompts=64", "--quiet", "--all")
    assert every.returncode == 0 and "neuron_magnitude_007" in every.stdout

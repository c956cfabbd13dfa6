"""What a researcher sees of softmax_window's metrics: `studies` gives the meaning of M_isotropy_ratio, and `train`
says when the oracle's config is outside Thm 3.4's conditions."""

from cli_runs import run_cli


def test_studies_lists_the_meaning_of_the_metric_nobody_could_look_up():
    done = run_cli("studies", "softmax_window")
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.strip().startswith("M_isotropy_ratio"))
    assert "σ_max(M)/σ_min(M)" in line and "Lemma B.5" in line


def test_train_says_when_the_config_is_outside_a_theorems_conditions():
    oracle = run_cli("train", "softmax_window_oracle", "--quiet")
    assert oracle.returncode == 0, oracle.stderr
    assert "outside a theorem's conditions (regime_window = 0): [C24] Thm 3.4's proof, Lemma C.5" in oracle.stdout

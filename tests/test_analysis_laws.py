"""The law registry, and the threshold kinds on synthetic results with planted answers (no training); each paper's
own laws are tested in tests/papers/<paper>/."""

import math

import numpy as np
import pandas as pd
import pytest
from synthetic_results import results_of

from iclscale.analysis.laws import LAWS, check_law_names, get_law, laws_of_study
from iclscale.analysis.reader import Results
from iclscale.analysis.verdict import CONSISTENT
from iclscale.cli import main
from iclscale.errors import UserError
from iclscale.paper import paper_of_study, sweep_files


def test_registry_names_studies_and_citations():
    assert set(LAWS) >= {
        "softmax_window.M_norm_vs_Lambda",
        "softmax_window.w_star_vs_Lambda",
        "softmax_window.linear_floor",
        "softmax_window.softmax_error_decreases_in_n",
        "softmax_window.transfer_diagonal",
        "softmax_window.subspace_recovery",
    }
    for law in LAWS.values():  # each law cites its study's paper, by the paper's tag, and is named after a study of it
        paper = paper_of_study(law.study)
        assert f"[{paper.tag}]" in law.citation and law.name.split(".")[0] in paper.studies, law.name
        assert law.conditions and law.claim
    assert {law.name for law in laws_of_study("softmax_window_oracle")} == {"softmax_window.w_star_vs_Lambda"}


def test_check_law_names_refuses_unknown_laws_and_other_studies():
    check_law_names(["softmax_window.w_star_vs_Lambda"], "softmax_window_oracle", "sweep file x")
    with pytest.raises(UserError, match="unknown law 'nope'"):
        check_law_names(["nope"], "softmax_window", "sweep file x: laws")
    with pytest.raises(UserError, match="is about study 'softmax_window_oracle'"):
        check_law_names(["softmax_window.w_star_vs_Lambda"], "softmax_window", "sweep file x: laws")


def test_laws_command_lists_a_study(capsys):
    assert main(["laws", "--study", "softmax_window_oracle"]) == 0
    out = capsys.readouterr().out
    assert "softmax_window.w_star_vs_Lambda" in out and "Theorem 3.4" in out
    assert "linear_floor" not in out
    assert main(["laws", "--study", "no_such_study"]) == 2


def test_a_threshold_law_of_a_later_study_fits_with_censoring_and_epsilon_sensitivity():
    """A law declared outside the catalogue, as seed 000's T ∝ α^(−2/3) is: iterations to reach test error ≤ ε
    against α. Runs that never reach ε are censored, counted, and enter the censored (Tobit) fit."""
    from iclscale.analysis.kinds import PowerLaw
    from iclscale.analysis.law import Hypothesis, Law, Prediction
    from iclscale.analysis.measures import FirstStepReaching
    from iclscale.analysis.verdict import Band

    law = Law(
        name="toy.iterations_vs_alpha",
        study="toy",
        claim="T ∝ α^(−2/3)",
        citation="a planted law (not from a paper)",
        conditions="none",
        prediction_text="−2/3",
        measure=FirstStepReaching("test_mse", threshold=0.01),
        x="alpha",
        predict=lambda group: Prediction(Hypothesis("planted", Band.point(-2 / 3), "test")),
        kind=PowerLaw(),
    )
    rows, curves = [], []
    for alpha in (0.1, 0.2, 0.4, 0.8, 1.6):
        for seed in range(3):
            run = f"{alpha}-{seed}"
            rows.append({"run_id": run, "sweep": "s", "study": "toy", "seed": seed, "eval_key": "{}", "alpha": alpha})
            rows[-1]["status"] = "ok"
            rate = alpha ** (2 / 3) / 100 * (1 + 0.01 * seed)
            curves += [
                {"run_id": run, "sweep": "s", "step": t, "metric": "test_mse", "value": math.exp(-rate * t)}
                for t in range(0, 2001, 2)
            ]
    fits = law.evaluate(results_of("toy", rows, pd.DataFrame(curves).assign(eval_key=None)))
    (fit,) = fits
    assert fit.n_censored == 3  # α = 0.1 needs ≈ 2140 steps > 2000
    assert fit.n_points == 12
    assert fit.estimate == pytest.approx(-2 / 3, abs=0.01)
    assert fit.verdict.verdict == CONSISTENT
    # T ∝ log(1/ε)·α^(−2/3): the exponent does not depend on ε; the censoring does
    assert fit.sensitivity["exponent at ε = 0.02"] == pytest.approx(-2 / 3, abs=0.01)
    assert fit.sensitivity["censored at ε = 0.005"] >= 3
    assert fit.sensitivity["censored at ε = 0.02"] == 0


def test_a_threshold_along_an_axis_law_fits_per_group_and_seed():
    """As seed 000's l_tr ∝ α^(−1): the smallest training length l_tr with error ≤ ε, against α."""
    from iclscale.analysis.kinds import PowerLaw
    from iclscale.analysis.law import Hypothesis, Law, Prediction
    from iclscale.analysis.measures import ThresholdAlongAxis
    from iclscale.analysis.verdict import Band

    law = Law(
        name="toy.l_tr_vs_alpha",
        study="toy",
        claim="l_tr ∝ α^(−1)",
        citation="a planted law (not from a paper)",
        conditions="none",
        prediction_text="−1",
        measure=ThresholdAlongAxis("test_mse", axis="l_tr", threshold=0.1),
        x="alpha",
        predict=lambda group: Prediction(Hypothesis("planted", Band.point(-1.0), "test")),
        kind=PowerLaw(),
    )
    rows = []
    for alpha in (0.05, 0.1, 0.2, 0.4, 0.8):
        for seed in range(3):
            for l_tr in 2 ** np.arange(1, 12):
                error = 0.1 * (20 / (alpha * l_tr)) * (1 + 0.05 * seed)  # ≤ 0.1 once l_tr ≥ 20(1+.05s)/α
                rows.append(
                    {"run_id": f"{alpha}-{seed}-{l_tr}", "sweep": "s", "study": "toy", "seed": seed}
                    | {"eval_key": "{}", "alpha": alpha, "l_tr": int(l_tr), "status": "ok", "test_mse": error}
                )
    (fit,) = law.evaluate(results_of("toy", rows))
    assert fit.n_points == 15 and fit.n_censored == 0
    assert fit.estimate == pytest.approx(-1.0, abs=0.1)  # powers of 2 on the l_tr grid: a coarse staircase
    # every seed crosses at the same grid value, on an exact power law of the grid: the OLS interval has no width
    assert fit.interval_method.startswith("OLS t-interval") and fit.ci_high - fit.ci_low < 1e-9
    assert fit.verdict.verdict == CONSISTENT


def test_every_law_named_in_the_sweep_catalogue_exists_for_that_study():
    """A sweep file's `laws:` is checked by the report only; catch a misspelt or misplaced name here."""
    import yaml

    files = sweep_files()
    named = 0
    for path in files:
        sweep = yaml.safe_load(path.read_text())
        for name in sweep.get("laws", []):
            assert get_law(name).study == sweep["study"], f"{path.name}: {name}"
            named += 1
    assert named >= len(files) // 2  # most catalogue files exist to test a law


def test_every_claim_of_both_papers_is_a_law_and_iclscale_laws_lists_them(capsys):
    from iclscale.analysis.catalogue import PAPERS

    counts = {paper: len(package.claims) for paper, (_, package) in PAPERS.items()}
    # seed 004: 15 claims, seed 000: 20 ([L24] L1–L18, Figs 4, 5A), seed 002: 23 (L1–L21, F2, T1: every one with a
    # law),
    # seed 001: 18 ([LW23] S1–S17 and S1', every one with a law),
    # seed 003: 22 ([Y24] claims C1–C21 and the gradient-flow reading of GD), every one with a law
    assert sorted(counts.values()) == [15, 18, 20, 22, 23]
    for paper, (_, package) in PAPERS.items():
        for claim in package.claims:
            assert all(name in LAWS for name in claim.laws), claim
            assert claim.laws or "seed 002" in paper or "no law" in claim.text, claim  # seeds 000, 004: all laws
    covered = {name for _, package in PAPERS.values() for claim in package.claims for name in claim.laws}
    experiments = {
        name for _, package in PAPERS.values() for claim in package.claims if claim.experiment
        for name in claim.experiment.laws
    }  # fmt: skip
    assert covered | experiments == set(LAWS)  # and every law tests a claim or judges a paper's experiment
    assert all(name in LAWS for name in experiments)
    assert main(["laws"]) == 0
    out = capsys.readouterr().out
    assert "15 claims with laws of 15" in out and "20 claims with laws of 20" in out
    assert "23 claims with laws of 23" in out
    assert "18 claims with laws of 18" in out
    assert "F5A" in out and "random pruning hurts earlier" in out and "Lemma B.5" in out


def test_axis_titles_come_from_the_params_symbol_and_meaning():
    params = {"sigma": {"role": "train", "symbol": "σ", "meaning": "label-noise std σ ([C24] §3.2: 0.01)"}}
    results = Results("x", {"params": params, "study": "softmax_window"}, pd.DataFrame({"sigma": [0.1]}), None)
    assert results.title("sigma") == "σ (sigma): label-noise std σ"
    assert results.title("n") == "n"  # no symbol or meaning in the sweep: the column name
    assert results.title("Lambda").startswith("Λ = nL²/σ²")  # the study's paper's derived variable
    assert Results("x", {"params": params, "study": "cooccurrence"}, results.runs, None).title("Lambda") == "Lambda"


def test_exponent_prediction_judges_the_point_and_the_bound_reading_in_overlap_mode():
    from iclscale.analysis.law import exponent_prediction
    from iclscale.analysis.verdict import OVERLAP, Band

    bound = Band(-1.0, math.inf)
    made = exponent_prediction(-1.0, "Thm 1", bound, "Thm 1 as a bound")
    assert (made.primary.name, made.primary.band, made.primary.mode) == ("exponent -1", Band.point(-1.0), OVERLAP)
    (reading,) = made.alternatives
    assert (reading.name, reading.band, reading.mode) == (f"bound reading {bound.describe()}", bound, OVERLAP)
    named = exponent_prediction(0.5, "s", bound, "b", name="exponent 0.5", bound_name="bound reading")
    assert (named.primary.name, named.alternatives[0].name) == ("exponent 0.5", "bound reading")
    assert exponent_prediction(0.5, "s", bound, "b").primary.name == "exponent +0.5"

"""Seed 002's laws and Table 1's report section on synthetic results with planted answers (no training)."""

import pandas as pd
import pytest

from iclscale.analysis.laws import get_law
from iclscale.analysis.reader import Results
from iclscale.analysis.verdict import CONSISTENT, INCONSISTENT
from iclscale.papers.mamba_outliers.laws.table1_section import accuracy_table, table1_section

STUDY = "mamba_outliers"
EVAL_PARAMS = ("alpha", "label_mode", "kappa_a_test", "l_ts", "placement")
METRICS = ("test_error", "error_trained", "train_loss")
ALPHAS = (0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 0.9)


# what a planted run carries where a test leaves it out: trained inside [LM25] Thms 1/3's conditions, constants 1
INSIDE_THEOREM = {"V": 3, "batch_size": 200000, "M1": 6, "beta": 3.0, "kappa_a": 4.0, "kappa_a_test": 5000.0}
INSIDE_THEOREM |= {"p_a": 0.6, "l_tr": 20, "lr": 0.1, "layers": 1}


def results_of(rows: list[dict]) -> Results:
    runs = pd.DataFrame(rows)
    runs = runs.assign(**{k: v for k, v in INSIDE_THEOREM.items() if k not in runs})
    skip = {"run_id", "sweep", "study", "seed", "eval_key", "status"}
    params = {c: {"role": "eval" if c in EVAL_PARAMS else "train"} for c in runs if c not in skip | set(METRICS)}
    curves = pd.DataFrame([], columns=["run_id", "sweep", "step", "metric", "value", "eval_key"])
    return Results("synthetic", {"name": "synthetic", "study": STUDY, "laws": [], "params": params}, runs, curves)


def fig2_rows(mamba_error, lt_error) -> list[dict]:
    """One-layer runs of Fig. 2's grid with planted errors e(α) per model, 3 seeds."""
    rows = []
    for model, error in (("mamba", mamba_error), ("lt", lt_error)):
        for seed in range(3):
            for alpha in ALPHAS:
                value = error(alpha) * (1 + 0.01 * seed)
                point = {
                    "alpha": alpha,
                    "label_mode": "flip",
                    "kappa_a_test": 2.0,
                    "l_ts": 20,
                    "placement": "bernoulli",
                }
                rows.append(
                    {"run_id": f"{model}-{seed}", "sweep": "s", "study": STUDY, "seed": seed, "status": "ok"}
                    | {"eval_key": str(sorted(point.items())), "model": model, "layers": 1, "p_a": 0.6, "l_tr": 20}
                    | {"M1": 6, **point, "test_error": value, "error_trained": value}
                )
    return rows


def _verdicts(name: str, results: Results) -> list[str]:
    return [fit.verdict.verdict for fit in get_law(name).evaluate(results)]


def test_mamba_below_one_percent_up_to_08_is_judged_on_the_data():
    paper = results_of(fig2_rows(lambda a: 0.002 if a <= 0.8 else 0.3, lambda a: 0.002 if a < 0.5 else 0.4))
    assert _verdicts(f"{STUDY}.fig2_mamba_below_1pct", paper) == [CONSISTENT]
    assert _verdicts(f"{STUDY}.lt_threshold_half", paper) == [CONSISTENT]
    pilot = results_of(fig2_rows(lambda a: 0.04 + a / 2, lambda a: 0.14 + a))  # a floor at α = 0 and growth
    assert _verdicts(f"{STUDY}.fig2_mamba_below_1pct", pilot) == [INCONSISTENT]
    assert _verdicts(f"{STUDY}.mamba_threshold_theorem2", pilot) == [INCONSISTENT]


def test_theorem2_threshold_is_min_of_one_and_p_a_l_tr_over_l_ts():
    # error ≤ 0.01 below α = 0.6 = p_a·l_tr/l_ts, above it from there: consistent (a sufficient condition)
    results = results_of(fig2_rows(lambda a: 0.002 if a < 0.6 else 0.2, lambda a: 0.5))
    assert _verdicts(f"{STUDY}.mamba_threshold_theorem2", results) == [CONSISTENT]
    # the same below α = 0.5 only: α = 0.5 is on the wrong side
    results = results_of(fig2_rows(lambda a: 0.002 if a < 0.5 else 0.2, lambda a: 0.5))
    assert _verdicts(f"{STUDY}.mamba_threshold_theorem2", results) == [INCONSISTENT]


@pytest.mark.parametrize("mamba_scale, expected", [(0.5, CONSISTENT), (1.5, INCONSISTENT)])
def test_mamba_against_the_lt_compares_the_two_models_at_every_alpha(mamba_scale, expected):
    results = results_of(fig2_rows(lambda a: mamba_scale * (0.1 + a), lambda a: 0.1 + a))
    assert _verdicts(f"{STUDY}.fig2_mamba_beats_lt", results) == [expected]


def test_mamba_against_the_lt_pools_each_models_own_tuned_settings():
    rows = fig2_rows(lambda a: 0.05 + a / 10, lambda a: 0.1 + a)
    tuned = [r | ({"lr": 0.1, "steps": 1000} if r["model"] == "mamba" else {"lr": 0.01, "steps": 500}) for r in rows]
    assert _verdicts(f"{STUDY}.fig2_mamba_beats_lt", results_of(tuned)) == [CONSISTENT]


def test_table1_section_reports_accuracy_per_model_and_placement_beside_the_paper():
    rows = []
    for model, errors in (("mamba", (0.01, 0.02, 0.3)), ("lt", (0.2, 0.2, 0.2))):
        for seed in range(2):
            for placement, error in zip(("farthest", "random", "closest"), errors, strict=True):
                rows.append(
                    {"run_id": f"{model}{seed}", "sweep": "s", "study": STUDY, "seed": seed, "status": "ok"}
                    | {"eval_key": placement, "model": model, "layers": 3, "alpha": 0.5, "label_mode": "flip"}
                    | {"placement": placement, "test_error": error + 0.01 * seed}
                )
    table = accuracy_table(pd.DataFrame(rows)).set_index(["model", "placement"])
    assert table.loc[("mamba", "closest"), "mean"] == pytest.approx(69.5)
    section = table1_section(results_of(rows), add_chart=None)
    html = section.items[0][2]
    assert "73.28" in html and "69.50 ± 0.71" in html
    assert accuracy_table(pd.DataFrame(rows).assign(placement="bernoulli")) is None

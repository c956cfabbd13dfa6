"""Seed 000's laws and report sections on synthetic results with planted answers (no training).

The exponent laws (T ∝ α^(−2/3), T ∝ M1·√log M1, l_tr ∝ α^(−1)), the threshold laws (error ≤ ε iff S1 ≥ 1,
|T_tr|* = M1), the linear and flat-region pruning laws, the onset of the pruning cost, and the report's
pruning and classical-learner sections.
"""

import math

import numpy as np
import pandas as pd
import pytest

from iclscale.analysis.fits import fit_line
from iclscale.analysis.kinds import Threshold
from iclscale.analysis.law import Hypothesis, Law, Prediction
from iclscale.analysis.laws import get_law
from iclscale.analysis.levels import cost_onset, level_means
from iclscale.analysis.measures import FinalValue
from iclscale.analysis.reader import Results
from iclscale.analysis.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Band
from iclscale.papers.nonlinear_icl.laws.common import EPSILON

STUDY = "nonlinear_icl"
EVAL_PARAMS = ("domain", "alpha_test", "l_ts", "S1", "K_ood", "prune_method", "prune_ratio", "prune_score", "learner")
METRICS = ("test_error", "test_hinge", "small_neuron_fraction")


# what a planted run carries where a test leaves it out: a config inside [L24] Thm 3.3's conditions, constants 1
# (m ≥ M1² ln M1, B ≥ 10⁴ ln M1, l_tr ≥ ln M1/α, η ≤ 1), as a real store carries every param of the study
INSIDE_THEOREM = {"M1": 6, "m": 20000, "batch_size": 50000, "l_tr": 50, "alpha": 0.8, "beta": 3.0, "lr": 1.0}
INSIDE_THEOREM |= {"n_train_tasks": 0, "alpha_test": 0.8, "l_ts": 20}


def results_of(rows: list[dict], curves: list[dict] | None = None, study: str = STUDY) -> Results:
    runs = pd.DataFrame(rows)
    runs = runs.assign(**{k: v for k, v in INSIDE_THEOREM.items() if k not in runs})
    skip = {"run_id", "sweep", "study", "seed", "eval_key", "status"}
    params = {
        c: {"role": "eval" if c in EVAL_PARAMS else "train"}
        for c in runs.columns
        if c not in skip and c not in METRICS and not c.startswith("neuron_")
    }
    curve_frame = pd.DataFrame(curves or [], columns=["run_id", "sweep", "step", "metric", "value", "eval_key"])
    return Results("synthetic", {"name": "synthetic", "study": study, "laws": [], "params": params}, runs, curve_frame)


def row(run_id: str, seed: int, **values) -> dict:
    point = {k: v for k, v in values.items() if k in EVAL_PARAMS}
    return {"run_id": run_id, "sweep": "s", "study": STUDY, "seed": seed, "eval_key": str(sorted(point.items()))} | {
        "status": "ok",
        **values,
    }


# T ∝ α^(−2/3): iterations to unseen-task error ≤ ε ----------------------------------------------
def iteration_store(
    exponent: float, axis: str = "alpha", levels=(0.4, 0.5, 0.6, 0.8, 1.0), transform=None, scale: float = 100
):
    """Error curves e(t) = 0.5·exp(−t/τ) recorded every 5 steps, with τ chosen so that e ≤ ε (the laws') first at
    T = scale·g(x)^exponent·(1 + 0.02·seed)."""
    rows, curves = [], []
    for level in levels:
        for seed in range(4):
            run = f"{axis}{level}-{seed}"
            g = transform(level) if transform else level
            crossing = scale * g**exponent * (1 + 0.02 * seed)
            r = row(run, seed, **{axis: level}, domain="id", alpha_test=0.8, l_ts=20, prune_method="none")
            rows.append(r)
            tau = crossing / math.log(0.5 / EPSILON)
            curves += [
                {"run_id": run, "sweep": "s", "step": t, "metric": "test_error"}
                | {"value": 0.5 * math.exp(-t / tau), "eval_key": r["eval_key"]}
                for t in range(0, 801, 5)
            ]
    return results_of(rows, curves)


def test_planted_alpha_exponent_is_recovered_and_consistent():
    law = get_law("nonlinear_icl.T_vs_alpha")
    (fit,) = law.evaluate(iteration_store(-2 / 3))
    assert fit.estimate == pytest.approx(-2 / 3, abs=0.05)  # the 5-step record grid rounds T up
    assert fit.ci_low <= -2 / 3 <= fit.ci_high
    assert fit.verdict.verdict == CONSISTENT
    row_ = fit.row()
    assert row_["theory_low"] == row_["theory_high"] == pytest.approx(-2 / 3)
    assert "Eq. (10)" in row_["citation"]
    assert fit.sensitivity[f"exponent at ε = {2 * EPSILON:g}"] == pytest.approx(-2 / 3, abs=0.05)


def test_a_wrong_alpha_slope_is_inconsistent():
    (fit,) = get_law("nonlinear_icl.T_vs_alpha").evaluate(iteration_store(-1.5))
    assert fit.estimate == pytest.approx(-1.5, abs=0.05)
    assert fit.verdict.verdict == INCONSISTENT
    # the bound reading (T grows no faster than α^(−2/3) as α → 0: exponent ≥ −2/3) is judged beside it
    assert [v.verdict for h, v in fit.alternatives if h.name == "bound reading"] == [INCONSISTENT]


def test_t_vs_m1_fits_against_m1_sqrt_log_m1():
    law = get_law("nonlinear_icl.T_vs_M1")
    store = iteration_store(
        1.0, axis="M1", levels=(4, 6, 8, 10, 12), transform=lambda m: m * math.sqrt(math.log(m)), scale=20
    )
    (fit,) = law.evaluate(store)
    assert fit.group == {}  # M1 is the swept param, never a group
    assert fit.estimate == pytest.approx(1.0, abs=0.05) and fit.verdict.verdict == CONSISTENT
    assert fit.row()["x"] == "M1·√(ln M1)"
    plain = iteration_store(0.4, axis="M1", levels=(4, 6, 8, 10, 12), scale=40)  # T ∝ M1^0.4: slower than the theory
    assert law.evaluate(plain)[0].verdict.verdict == INCONSISTENT


def test_required_length_law_refits_at_other_thresholds():
    """l_tr* ∝ α^(−1): the smallest l_tr with final error ≤ ε; the ε sensitivity reruns the selection."""
    rows = []
    for alpha in (0.3, 0.4, 0.5, 0.6, 0.8, 1.0):
        for seed in range(3):
            for l_tr in (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 25, 32, 40):
                error = EPSILON * (6 / (alpha * l_tr)) ** 2  # ≤ ε once l_tr ≥ 6/α
                rows.append(row(f"{alpha}-{l_tr}-{seed}", seed, alpha=alpha, l_tr=l_tr, domain="id", test_error=error))
    (fit,) = get_law("nonlinear_icl.l_tr_vs_alpha").evaluate(results_of(rows))
    assert fit.n_points == 18 and fit.n_censored == 0
    assert fit.estimate == pytest.approx(-1.0, abs=0.15)
    assert math.isfinite(fit.sensitivity[f"exponent at ε = {2 * EPSILON:g}"])
    assert fit.sensitivity[f"censored at ε = {EPSILON / 2:g}"] == 0


def test_samples_law_multiplies_the_first_step_by_the_batch_size():
    """N = B·T (Thm 3.3): at B = 2·10⁴ (inside B ≥ 10⁴ ln M1) the samples are B·T, with T's exponent; a planted
    α^(−2/3) is consistent."""
    store = iteration_store(-2 / 3)
    store.runs["batch_size"] = 20000
    (samples,) = get_law("nonlinear_icl.samples_vs_alpha").evaluate(store)
    (iterations,) = get_law("nonlinear_icl.T_vs_alpha").evaluate(store)
    assert samples.estimate == pytest.approx(iterations.estimate, abs=1e-9)
    assert samples.verdict.verdict == CONSISTENT
    measured = samples.points["value"].to_numpy()
    assert np.all(measured % 20000 == 0) and measured.min() >= 20000 * 5  # B × a record step (every 5)


def width_store(required_width):
    """Final error 0.002 (≤ ε) once m ≥ required_width(M1, seed), 0.2 (> ε) below it, on a doubling m grid."""
    rows = []
    for M1 in (4, 6, 8, 10):
        for seed in range(3):
            for m in (2, 4, 8, 16, 32, 64, 128, 256, 512):
                error = 0.002 if m >= required_width(M1, seed) else 0.2
                rows.append(row(f"{M1}-{m}-{seed}", seed, M1=M1, m=m, domain="id", test_error=error))
    return results_of(rows)


def test_width_law_fits_the_smallest_sufficient_width_against_m1_squared_log_m1():
    law = get_law("nonlinear_icl.width_vs_M1")
    # the smallest grid m ≥ 0.5·M1²·ln M1: M1 = 4, 6, 8, 10 → 16, 64, 128, 128 (+ a seed's doubling)
    (fit,) = law.evaluate(width_store(lambda M1, seed: 0.5 * M1**2 * math.log(M1) * (1.3 if seed == 2 else 1)))
    assert fit.row()["x"] == "M1²·ln M1" and fit.n_censored == 0
    assert 0.6 < fit.estimate < 1.2
    assert [v.verdict for h, v in fit.alternatives if h.name == "bound reading"] != [INCONSISTENT]
    (flat,) = law.evaluate(width_store(lambda M1, seed: 4))  # m = 4 suffices for every M1: no growth at all
    assert flat.estimate == pytest.approx(0.0, abs=1e-9)
    assert flat.verdict.verdict == INCONSISTENT  # not the exponent 1 of Thm 3.3 (i) …
    assert [v.verdict for h, v in flat.alternatives if h.name == "bound reading"] == [CONSISTENT]  # … but under it
    (censored,) = law.evaluate(width_store(lambda M1, seed: 10**4))  # no grid width suffices
    assert censored.n_censored == 12 and censored.verdict.verdict == INCONCLUSIVE


def test_hinge_vs_batch_law_recovers_a_planted_inverse_square_root():
    rows = []
    for B in (16, 32, 64, 128, 256, 512):  # inside Thm 3.3's B ≥ M1 ln M1 ≈ 10.8 (the loss is the law's ε)
        for seed in range(4):
            hinge = 0.4 * B**-0.5 * (1 + 0.03 * seed)
            rows.append(row(f"{B}-{seed}", seed, batch_size=B, domain="id", test_hinge=hinge))
    rows.append(row("zero", 0, batch_size=1024, domain="id", test_hinge=0.0))  # a loss of 0: left out, counted
    (fit,) = get_law("nonlinear_icl.hinge_vs_batch").evaluate(results_of(rows))
    assert fit.estimate == pytest.approx(-0.5, abs=0.02) and fit.verdict.verdict == CONSISTENT
    assert fit.row()["n_points"] == 24


# Threshold laws ------------------------------------------------------------------------------------
S1_LEVELS = (0.5, 0.7, 0.9, 1.0, 1.1, 1.28)


def s1_store(error_of, seeds=4, study=STUDY):
    rows = []
    for s1 in S1_LEVELS:
        for seed in range(seeds):
            for l_ts in (8, 20):  # the laws read the longest test prompt only
                error = error_of(s1, seed) if l_ts == 20 else 0.4
                r = row(f"run-{seed}", seed, S1=s1, domain="ood", alpha_test=0.8, l_ts=l_ts, test_error=error)
                rows.append(r | {"study": study})
    return results_of(rows, study=study)


@pytest.mark.parametrize(
    ("error_of", "iff", "sufficient"),
    [
        (lambda s, k: 0.002 + 0.001 * k if s >= 1 else 0.05 + 0.01 * k, CONSISTENT, CONSISTENT),  # the paper's claim
        (lambda s, k: 0.002 + 0.001 * k, INCONSISTENT, CONSISTENT),  # ≈ 0 everywhere: only the "if" holds
        (lambda s, k: 0.5 if s <= 1.1 else 0.002, INCONSISTENT, INCONSISTENT),  # fails at S1 = 1, 1.1
        (lambda s, k: 0.002 if s >= 1 else (0.002, 0.03)[k % 2], INCONCLUSIVE, CONSISTENT),  # straddles ε below 1
    ],
)
def test_s1_threshold_verdicts_on_constructed_cases(error_of, iff, sufficient):
    """The "iff" law reads Fig. 3A's ε = 0.01, the sufficient one the theorem's ε (0.1)."""
    assert get_law("nonlinear_icl.ood_error_threshold_S1").kind.threshold == 0.01
    assert get_law("nonlinear_icl.ood_error_sufficient_S1").kind.threshold == EPSILON
    store = s1_store(error_of)
    (both,) = get_law("nonlinear_icl.ood_error_threshold_S1").evaluate(store)
    (only_if,) = get_law("nonlinear_icl.ood_error_sufficient_S1").evaluate(store)
    assert (both.verdict.verdict, only_if.verdict.verdict) == (iff, sufficient), (both.verdict, only_if.verdict)
    assert both.n_points == len(S1_LEVELS) * 4  # l_ts = 8 rows left out
    assert both.row()["theory_low"] == 1.0


def test_s1_crossing_statistic_and_gpt2_law():
    store = s1_store(lambda s, k: 0.002 if s >= 1 else 0.05, study="nonlinear_icl_gpt2")
    (fit,) = get_law("nonlinear_icl_gpt2.ood_error_threshold_S1").evaluate(store)
    assert fit.estimate == 1.0 and (fit.ci_low, fit.ci_high) == (1.0, 1.0)
    assert fit.verdict.verdict == CONSISTENT
    never = s1_store(lambda s, k: 5 * EPSILON)  # the one-layer law's ε: above it at every S1
    (fit,) = get_law("nonlinear_icl.ood_error_threshold_S1").evaluate(never)
    assert fit.estimate == math.inf and fit.verdict.verdict == INCONSISTENT


def tasks_store(shift: int = 0):
    rows = []
    for M1 in (4, 6, 8):
        for n in sorted({1, M1 - 2, M1 - 1, M1, M1 + 1, M1 + 3}):
            for seed in range(3):
                error = 0.0 if n >= M1 + shift else 0.15 + 0.02 * seed
                rows.append(row(f"{M1}-{n}-{seed}", seed, M1=M1, n_train_tasks=n, domain="id", test_error=error))
    return results_of(rows)


def test_train_tasks_threshold_is_judged_per_m1():
    law = get_law("nonlinear_icl.train_tasks_threshold")
    fits = law.evaluate(tasks_store())
    assert [f.group for f in fits] == [{"M1": 4}, {"M1": 6}, {"M1": 8}]
    assert all(f.verdict.verdict == CONSISTENT and f.estimate == f.group["M1"] for f in fits)
    shifted = law.evaluate(tasks_store(shift=1))  # needs M1 + 1 tasks: |T_tr| = M1 is on the wrong side
    assert all(f.verdict.verdict == INCONSISTENT for f in shifted)
    (power,) = get_law("nonlinear_icl.train_tasks_vs_M1").evaluate(tasks_store())
    assert power.estimate == pytest.approx(1.0, abs=1e-9)


def test_threshold_law_needs_a_level_on_each_claimed_side():
    law = Law(
        name="toy.threshold",
        study=STUDY,
        claim="",
        citation="planted",
        conditions="",
        prediction_text="",
        measure=FinalValue("test_error"),
        x="S1",
        predict=lambda group: Prediction(Hypothesis("x0", Band.point(2.0), "planted")),
        kind=Threshold(),
        where={"l_ts": (20,)},
        one_row_per_run=False,
    )
    (fit,) = law.evaluate(s1_store(lambda s, k: 0.0))
    assert fit.verdict.verdict == INCONCLUSIVE and "no S1 value with S1 ≥ 2" in fit.verdict.reason


# Pruning laws and the onset of the cost ---------------------------------------------------------------
RATIOS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6)


def pruning_store(error_of, hinge_of=None, share=0.25, methods=("magnitude",), m=8):
    rows = []
    for seed in range(4):
        magnitudes = {f"neuron_magnitude_{i:03d}": 0.1 + i for i in range(m)}
        magnitudes |= {f"neuron_wo_magnitude_{i:03d}": 1.0 + 0.01 * i for i in range(m)}
        for method in methods:
            for ratio in RATIOS:
                values = {"test_error": error_of(method, ratio, seed), "small_neuron_fraction": share}
                if hinge_of:
                    values["test_hinge"] = hinge_of(method, ratio, seed)
                rows.append(
                    row(f"run-{seed}", seed, domain="ood", alpha_test=0.6, prune_method=method)
                    | {"prune_ratio": ratio, "prune_score": "wowv", "learner": "transformer"}
                    | values
                    | magnitudes
                )
    for r in rows:
        r["eval_key"] = f"{r['prune_method']}-{r['prune_ratio']}"
    return results_of(rows)


def knee(ratio_from):
    return lambda method, ratio, seed: 0.01 + 0.001 * seed + (0.5 * (ratio - ratio_from) if ratio > ratio_from else 0)


def test_cost_onset_pairs_seeds_and_needs_more_than_the_seed_scatter():
    table = pd.DataFrame([{"R": r, "seed": s, "err": knee(0.2)("magnitude", r, s)} for r in RATIOS for s in range(4)])
    onset, levels = cost_onset(table, "R", "err")
    assert onset == 0.25
    assert not levels[levels["x"] <= 0.2]["costs"].any()
    # a tiny but consistent increase (below the seed-to-seed s.d. of the unpruned error) does not count
    tiny = table.assign(err=table["err"] + np.where(table["R"] > 0, 1e-4, 0.0))
    assert cost_onset(tiny, "R", "err")[0] == 0.25
    assert math.isnan(cost_onset(table.assign(err=0.01), "R", "err")[0])


def test_magnitude_pruning_is_free_up_to_the_small_share():
    law = get_law("nonlinear_icl.magnitude_pruning_free")
    (fit,) = law.evaluate(pruning_store(knee(0.3), share=0.25))
    assert fit.verdict.verdict == CONSISTENT and fit.estimate == 0.35
    assert fit.row()["theory_low"] == pytest.approx(0.25)
    (early,) = law.evaluate(pruning_store(knee(0.1), share=0.25))
    assert early.verdict.verdict == INCONSISTENT and early.estimate == 0.15


def test_largest_first_hinge_is_linear_in_r():
    law = get_law("nonlinear_icl.largest_pruning_linear")
    store = pruning_store(knee(0.0), hinge_of=lambda m, r, s: 0.3 + 1.2 * r + 0.01 * s, methods=("largest",))
    (fit,) = law.evaluate(store)
    assert fit.estimate == pytest.approx(1.2, abs=1e-6) and fit.verdict.verdict == CONSISTENT
    assert fit.r2 > 0.99 and fit.sensitivity["quadratic coefficient"] == pytest.approx(0.0, abs=1e-6)
    flat = pruning_store(knee(0.0), hinge_of=lambda m, r, s: 0.3 + 0.01 * (s - 1.5) * (r - 0.3), methods=("largest",))
    assert law.evaluate(flat)[0].verdict.verdict == INCONCLUSIVE  # the slope's interval holds 0


def small_set_store(increase_of):
    """Per (M1, seed) one trained model measured unpruned and with its small set L^c pruned; the unpruned hinge
    loss varies from model to model, so only a paired difference recovers the planted increase."""
    rows = []
    for M1 in (4, 6, 8, 10, 12):
        for seed in range(4):
            unpruned = 0.2 + 0.05 * ((seed * 7 + M1) % 5)
            for method in ("none", "small"):
                hinge = unpruned + (increase_of(M1, seed) if method == "small" else 0.0)
                rows.append(
                    row(f"{M1}-{seed}", seed, M1=M1, domain="id", prune_method=method, prune_ratio=0.0)
                    | {"prune_score": "wowv", "learner": "transformer", "test_hinge": hinge, "test_error": 0.0}
                )
    rows.append(row("orphan", 0, M1=8, domain="id", prune_method="small", prune_ratio=0.0) | {"test_hinge": 0.9})
    return results_of(rows)


def test_small_set_pruning_cost_is_paired_with_the_same_runs_unpruned_loss():
    law = get_law("nonlinear_icl.small_pruning_cost_vs_M1")
    (fit,) = law.evaluate(small_set_store(lambda M1, seed: 0.05 * M1**-0.5 * (1 + 0.03 * seed)))
    assert fit.estimate == pytest.approx(-0.5, abs=0.02) and fit.verdict.verdict == CONSISTENT
    assert fit.n_points == 20  # the orphan (no unpruned row of its run) is left out
    assert [v.verdict for h, v in fit.alternatives] == [CONSISTENT]
    (growing,) = law.evaluate(small_set_store(lambda M1, seed: 0.01 * M1 * (1 + 0.03 * seed)))
    assert growing.estimate == pytest.approx(1.0, abs=0.02) and growing.verdict.verdict == INCONSISTENT
    assert [v.verdict for h, v in growing.alternatives] == [INCONSISTENT]  # the increase grows with M1


def test_fit_line_and_level_means():
    line = fit_line([0, 1, 2, 3, 0, 1, 2, 3], [1, 3, 5, 7, 1.1, 3.1, 5.1, 7.1])
    assert line.slope == pytest.approx(2.0) and line.intercept == pytest.approx(1.05)
    levels = level_means([0.1, 0.3, 0.5], [1, 1, 2])
    assert levels["mean"].tolist() == pytest.approx([0.2, 0.5])
    assert levels["low"].iloc[1] == levels["high"].iloc[1] == 0.5  # one seed: no interval to draw


# Report sections ------------------------------------------------------------------------------------
def test_pruning_findings_state_where_magnitude_pruning_starts_to_cost():
    from iclscale.papers.nonlinear_icl.laws.pruning_section import pruning_findings

    def error(method, ratio, seed):
        return knee({"magnitude": 0.3, "random": 0.05, "none": 2.0, "small": -1.0}[method])(method, ratio, seed)

    # "small" (all of L^c, whatever R) is no ratio curve: left out here, even its rows at R = 0
    (finding,) = pruning_findings(pruning_store(error, methods=("none", "random", "magnitude", "small")))
    assert finding.group == {}
    assert set(finding.onsets) == {"magnitude", "random"}
    assert finding.onsets["magnitude"][0] == 0.35 and finding.onsets["random"][0] == 0.1
    text = finding.text_html()
    assert "Magnitude pruning (smallest first) starts to cost error at R = 0.35" in text
    assert "small-neuron share" in text and "0.25" in text
    assert finding.magnitudes["magnitude"].tolist() == pytest.approx([0.1 + i for i in range(8)])
    assert finding.magnitudes["high"].iloc[-1] == 1.0


def learner_store():
    rows = []
    for seed in range(2):
        for learner, scale in (("transformer", 1.0), ("logistic", 6.0), ("knn1", 4.0)):
            for alpha in (0.8, 0.6):
                for l_ts in (1, 2, 4, 8, 16):
                    error = min(0.5, scale / (alpha * l_ts**2)) * (1 + 0.01 * seed)
                    rows.append(
                        row(f"run-{seed}", seed, learner=learner, alpha_test=alpha, l_ts=l_ts, domain="id")
                        | {"test_error": error, "prune_method": "none", "prune_ratio": 0.0}
                    )
    return results_of(rows)


def test_baseline_findings_name_the_most_sample_efficient_learner():
    from iclscale.papers.nonlinear_icl.laws.learner_section import baseline_findings

    (finding,) = baseline_findings(learner_store())
    sentences = finding.sentences()
    assert sentences[0].startswith("α' = 0.8") and sentences[1].startswith("α' = 0.6")
    assert "transformer at l_ts = 8" in sentences[1] and "the most sample-efficient is transformer" in sentences[1]
    assert "<table>" in finding.html()


def write_store(folder, results: Results) -> str:
    from iclscale.sweeps.store import Location, write_fragment
    from iclscale.sweeps.store_frozen import write_frozen_sweep

    location = Location(folder)
    write_frozen_sweep(location, {"name": "synthetic", "study": STUDY, "laws": [], "params": results.sweep["params"]})
    rows = [{k: v for k, v in r.items() if v == v} for r in results.runs.to_dict("records")]  # v == v: not NaN
    write_fragment(location, "pack-1", rows, [])
    return str(folder)


def test_report_writes_the_pruning_and_learner_sections(tmp_path):
    """Synthetic results directories on disk (no training) through `write_report`."""
    from iclscale.analysis.report import write_report

    def error(method, ratio, seed):
        return knee({"magnitude": 0.3, "random": 0.05, "none": 2.0}[method])(method, ratio, seed)

    pruning = pruning_store(error, hinge_of=lambda m, r, s: 0.3 + r, methods=("none", "random", "magnitude"))
    report = write_report(write_store(tmp_path / "pruning", pruning))
    page = report.index.read_text()
    assert "<h2>Pruning</h2>" in page and "starts to cost error at R = 0.35" in page
    assert "Definition (this tool's, not from the paper)" in page
    assert "classical learners</h2>" not in page
    learners = write_report(write_store(tmp_path / "learners", learner_store()))
    page = learners.index.read_text()
    assert "<h2>In-context learning vs classical learners</h2>" in page and "<h2>Pruning</h2>" not in page
    for done in (report, learners):
        titles = [title for title, _ in done.charts]
        assert any(t.startswith(("pruning", "learners")) for t in titles)
        assert all((done.out / png).stat().st_size > 1000 for _, png in done.charts)

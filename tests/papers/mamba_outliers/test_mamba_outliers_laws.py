"""Seed 002's iteration, threshold and mechanism laws and the Figures 3–6 section on synthetic results with planted
answers (no training): each law must find what was planted, and call a planted violation inconsistent."""

import math

import numpy as np
import pandas as pd
import pytest

from iclscale.analysis.laws import get_law
from iclscale.analysis.reader import Results, add_derived
from iclscale.analysis.verdict import CONSISTENT, INCONSISTENT
from iclscale.papers.mamba_outliers.laws.figures3_6_section import figures3_6_section

STUDY = "mamba_outliers"
EVAL_PARAMS = ("alpha", "label_mode", "kappa_a_test", "l_ts", "placement")
TRAIN_PARAMS = ("model", "layers", "lr", "p_a", "l_tr", "M1", "beta", "kappa_a")
CURVE_COLUMNS = ["run_id", "sweep", "step", "metric", "value", "eval_key"]
BASE = {"layers": 1, "lr": 0.1, "p_a": 0.4, "l_tr": 20, "M1": 6, "beta": 3.0, "kappa_a": 2.0}


# what a planted run carries where a test leaves it out: trained inside [LM25] Thms 1/3's conditions, constants 1
# (B ≥ B_M, Vβ⁻⁴ ≤ κ_a ≤ Vβ(1 − p_a)/(p_a ε), l_tr ≥ ln M1/(1 − p_a)), as a real store carries every param
INSIDE_THEOREM = {"V": 3, "batch_size": 200000, "model": "mamba", "kappa_a_test": 5000.0}


def results_of(rows: list[dict], curves: list[dict] = ()) -> Results:
    frame = pd.DataFrame(rows)
    runs = add_derived(frame.assign(**{k: v for k, v in INSIDE_THEOREM.items() if k not in frame}))
    params = {c: {"role": "eval" if c in EVAL_PARAMS else "train"} for c in (*TRAIN_PARAMS, *EVAL_PARAMS) if c in runs}
    table = pd.DataFrame(list(curves)) if curves else pd.DataFrame([], columns=CURVE_COLUMNS)
    return Results("synthetic", {"name": "synthetic", "study": STUDY, "laws": [], "params": params}, runs, table)


def verdicts(name: str, results: Results) -> list[str]:
    return [fit.verdict.verdict for fit in get_law(f"{STUDY}.{name}").evaluate(results)]


def hinge_curve(run_id: str, T: int, last: int = 400) -> list[dict]:
    """A training hinge that falls from 1 to 0.1, crossing 0.5 at step T (records every 2 steps)."""
    return [
        {"run_id": run_id, "sweep": "s", "step": s, "metric": "train_loss", "value": 1.0 if s < T else 0.1,
         "eval_key": ""}
        for s in range(0, last + 1, 2)
    ]  # fmt: skip


def iteration_results(T_of) -> Results:
    """Mamba (η = 0.1) and LT (η = 0.002) runs over l_tr, 3 seeds, with T = T_of(model, l_tr, seed)."""
    rows, curves = [], []
    for model, lr in (("mamba", 0.1), ("lt", 0.002)):
        for l_tr in (10, 20, 40, 80):
            for seed in range(3):
                run = f"{model}-{l_tr}-{seed}"
                rows.append({"run_id": run, "sweep": "s", "study": STUDY, "seed": seed, "status": "ok",
                             "eval_key": "", **BASE, "model": model, "lr": lr, "l_tr": l_tr})  # fmt: skip
                curves += hinge_curve(run, T_of(model, l_tr, seed))
    return results_of(rows, curves)


def test_the_ratio_law_compares_eta_times_T_of_the_two_models_by_seed():
    # Thm 1 and 3: T_M flat in l_tr, T_T ∝ 1/l_tr → η·T_M / η·T_T ∝ l_tr
    paper = iteration_results(lambda m, l, s: 2 * round((50 if m == "mamba" else 1600 / l) * (1 + 0.05 * s)))
    assert verdicts("T_ratio_vs_l_tr", paper) == [CONSISTENT]
    fit = get_law(f"{STUDY}.T_ratio_vs_l_tr").evaluate(paper)[0]
    assert fit.estimate == pytest.approx(1.0, abs=0.05)
    # the η scaling enters: 0.1·100 / (0.002·T_T)
    assert fit.points["value"].max() == pytest.approx(0.1 * 100 / (0.002 * 40), rel=0.05)
    # an LT flat in l_tr as well: exponent 0, inconsistent with 1
    flat = iteration_results(lambda m, l, s: 2 * round((50 if m == "mamba" else 30) * (1 + 0.05 * s)))
    assert verdicts("T_ratio_vs_l_tr", flat) == [INCONSISTENT]


def test_T_against_one_minus_p_a_fits_the_transformed_variable():
    rows, curves = [], []
    for p_a in (0.0, 0.2, 0.4, 0.6, 0.8):
        for seed in range(3):
            run = f"m-{p_a}-{seed}"
            rows.append({"run_id": run, "sweep": "s", "study": STUDY, "seed": seed, "status": "ok", "eval_key": "",
                         **BASE, "model": "mamba", "p_a": p_a})  # fmt: skip
            curves += hinge_curve(run, 2 * round(30 / (1 - p_a) * (1 + 0.05 * seed)))
    fits = get_law(f"{STUDY}.mamba_T_vs_p_a").evaluate(results_of(rows, curves))
    assert [f.verdict.verdict for f in fits] == [CONSISTENT]
    assert fits[0].estimate == pytest.approx(-1.0, abs=0.05)


def threshold_rows(model: str, error) -> list[dict]:
    """One-layer runs at p_a × l_tr (3 seeds), measured over α × l_ts with error(α, l_ts, p_a, l_tr)."""
    rows = []
    for p_a in (0.3, 0.6):
        for l_tr in (10, 20):
            for seed in range(3):
                for alpha in (0.0, 0.1, 0.2, 0.3, 0.4, 0.45, 0.6, 0.8):
                    for l_ts in (5, 10, 20, 40, 80):
                        point = {"alpha": alpha, "l_ts": l_ts, "label_mode": "flip", "kappa_a_test": 2.0,
                                 "placement": "bernoulli"}  # fmt: skip
                        value = error(alpha, l_ts, p_a, l_tr) * (1 + 0.01 * seed)
                        rows.append({"run_id": f"{model}{p_a}{l_tr}{seed}", "sweep": "s", "study": STUDY,
                                     "seed": seed, "status": "ok", "eval_key": str(sorted(point.items())), **BASE,
                                     "model": model, "p_a": p_a, "l_tr": l_tr, **point, "test_error": value,
                                     "error_trained": value})  # fmt: skip
    return rows


def test_the_r_threshold_pools_every_p_a_l_tr_and_l_ts():
    ok = results_of(threshold_rows("mamba", lambda a, l, p, lt: 0.002 if a * l / (p * lt) < 1 else 0.3))
    assert verdicts("mamba_threshold_r", ok) == [CONSISTENT]
    # failing already at r ≈ 0.5: inconsistent
    early = results_of(threshold_rows("mamba", lambda a, l, p, lt: 0.002 if a * l / (p * lt) < 0.5 else 0.3))
    assert verdicts("mamba_threshold_r", early) == [INCONSISTENT]


def test_the_lt_tail_bound_is_checked_per_test_length():
    # error = half the bound: consistent at every l_ts; twice the bound (capped at 1): inconsistent where it binds
    half = results_of(threshold_rows("lt", lambda a, l, p, lt: 0.5 * math.exp(-l * (0.5 - a) ** 2 * a)))
    assert set(verdicts("lt_error_tail_bound", half)) == {CONSISTENT}
    double = results_of(threshold_rows("lt", lambda a, l, p, lt: min(1.0, 2 * math.exp(-l * (0.5 - a) ** 2 * a))))
    assert INCONSISTENT in verdicts("lt_error_tail_bound", double)


def test_the_lt_l_ts_threshold_recovers_a_planted_growth():
    # error ≤ ε exactly when l_ts ≥ 4·α/(1/2 − α)²: on a doubling grid the fitted exponent is near 1
    def error(alpha, l_ts, p_a, l_tr):
        return 0.001 if l_ts >= 4 * alpha / (0.5 - alpha) ** 2 else 0.2

    fits = get_law(f"{STUDY}.lt_l_ts_threshold").evaluate(results_of(threshold_rows("lt", error)))
    assert len(fits) == 4  # per trained p_a × l_tr
    assert all(0.6 < f.estimate < 1.4 for f in fits)


def mechanism_rows(factor: float, outlier_gate: float) -> list[dict]:
    rows = []
    for seed in range(3):
        for alpha in (0.1, 0.3, 0.5, 0.7):
            point = {"alpha": alpha, "l_ts": 20, "label_mode": "flip", "kappa_a_test": 2.0, "placement": "bernoulli"}
            ranks = {f"gate_clean_rank{j:02d}": 0.2 * factor ** (j - 1) * (1 + 0.01 * seed) for j in range(1, 11)}
            ranks["gate_clean_rank10"] = math.nan  # a rank no prompt reached
            rows.append({"run_id": f"m{seed}", "sweep": "s", "study": STUDY, "seed": seed, "status": "ok",
                         "eval_key": str(alpha), **BASE, "model": "mamba", **point, **ranks,
                         "gate_outlier_at01": outlier_gate + 0.001 * seed, "attn_same": 50.0 + seed,
                         "attn_other": -10.0})  # fmt: skip
    return rows


@pytest.mark.parametrize("factor, expected", [(0.8, CONSISTENT), (0.3, INCONSISTENT)])
def test_the_clean_gate_decay_is_the_per_step_factor_of_a_log_line(factor, expected):
    results = results_of(mechanism_rows(factor, 0.02))
    assert verdicts("clean_gate_decay_at_most_half", results) == [expected]
    fit = get_law(f"{STUDY}.clean_gate_decay_at_most_half").evaluate(results)[0]
    assert fit.estimate == pytest.approx(factor, rel=0.02)


@pytest.mark.parametrize("gate, expected", [(0.02, CONSISTENT), (0.4, INCONSISTENT)])
def test_outlier_gates_are_held_to_one_over_M1(gate, expected):
    assert verdicts("outlier_gate_small", results_of(mechanism_rows(0.8, gate))) == [expected]


def test_attention_sums_follow_corollary_1():
    results = results_of(mechanism_rows(0.8, 0.02))
    assert verdicts("attention_same_pattern", results) == [CONSISTENT]
    assert verdicts("attention_other_pattern", results) == [CONSISTENT]
    spread = results_of([{**r, "attn_other": 5.0} for r in mechanism_rows(0.8, 0.02)])
    assert verdicts("attention_other_pattern", spread) == [INCONSISTENT]


def test_figures_3_to_6_section_draws_every_layer():
    rows, curves = [], []
    for seed in range(2):
        run = f"m{seed}"
        gates = {f"{p}gate_{k}_at{d:02d}": (0.01 if k == "outlier" else 0.1 * 0.8**d)
                 for p in ("", "layer2_", "layer3_") for k in ("outlier", "clean") for d in range(1, 21)}  # fmt: skip
        gates |= {f"{p}gate_chmean_{k}_at01": 0.5 for p in ("", "layer2_", "layer3_") for k in ("outlier", "clean")}
        rows.append({"run_id": run, "sweep": "s", "study": STUDY, "seed": seed, "status": "ok", "eval_key": "a",
                     **BASE, "layers": 3, "model": "mamba", "alpha": 0.3, "label_mode": "flip",
                     "kappa_a_test": 2.0, "l_ts": 20, "placement": "bernoulli", **gates})  # fmt: skip
        for step in (0, 50, 100, 150):
            for p in ("", "layer2_", "layer3_"):
                for metric, value in (("attn_same", step / 10), ("attn_other", -step / 100)):
                    curves.append({"run_id": run, "sweep": "s", "step": step, "metric": p + metric,
                                   "value": value, "eval_key": "a", "alpha": 0.3, "label_mode": "flip",
                                   "kappa_a_test": 2.0, "l_ts": 20, "placement": "bernoulli"})  # fmt: skip
    charts = []
    section = figures3_6_section(results_of(rows, curves), lambda chart, title: charts.append(title) or {})
    titles = [item[0] for item in section.items]
    assert len(titles) == 6 and titles[0].startswith("Fig. 3") and titles[-1].startswith("Fig. 6")
    assert "15 → " in section.items[0][2] or "0 → 15" in section.items[0][2]
    assert np.isclose(len(charts), 6)
    assert "Averaged over the d + 1 channels, at distance 1: outliers 0.5" in section.items[1][2]


# The regimes read the ε their laws measure at (issue 35) ------------------------------------------------------------
def test_each_law_checks_the_training_theorems_at_the_epsilon_it_reads():
    # the iteration laws read T where the hinge falls to 0.5: their batch condition B ≥ B_M is checked at 0.5, not
    # at 0.01 (which asks B ≥ 4.6·10⁴ of runs that only need B ≥ 10.4 to reach a hinge of 0.5)
    from iclscale.papers.mamba_outliers.laws import PAPER_LAWS

    checked = 0
    for law in PAPER_LAWS.laws:
        levels = {getattr(law.measure, "threshold", None), getattr(law.kind, "threshold", None)} - {None}
        if law.regime is None or not levels or law.regime.epsilon is None:
            continue
        assert levels == {law.regime.epsilon}, f"{law.name} reads {levels}, its regime checks ε = {law.regime.epsilon}"
        assert f"ε = {law.regime.epsilon:g}" in law.regime.text
        checked += 1
    assert checked >= 25  # the iteration, batch, threshold, window and κ_a laws
    assert get_law(f"{STUDY}.mamba_T_vs_lr").regime.epsilon == 0.5


def test_the_iteration_sweeps_lie_inside_at_the_epsilon_t_is_read_at():
    from iclscale.analysis.derived import add_derived as with_derived
    from iclscale.sweeps.spec import load_sweep

    for variable in ("lr", "beta", "M1", "p_a", "l_tr"):
        sweep = load_sweep(f"iclscale/papers/mamba_outliers/sweeps/mamba_outliers_law_T_vs_{variable}.yaml")
        rows = with_derived(pd.DataFrame([c.as_dict() for c in sweep.configs()]), STUDY)
        for model in ("mamba", "lt"):
            law = get_law(f"{STUDY}.{model}_T_vs_{variable}")
            assert law.regime.on_params(rows[rows["model"] == model]).all(), law.name
    # at ε = 0.01 (the figure's) the same B = 64 runs would be outside: B_T = 4.6·10⁴
    from iclscale.papers.mamba_outliers.laws.common import trained_regime

    assert not trained_regime(0.01).on_params(rows).any()

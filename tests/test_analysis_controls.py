"""The negative control of every law (iclscale.analysis.controls), and the theorem conditions added to the catalogue's
regimes (issue 21, points 4 and 8):

- every law in the catalogue, planted at its own prediction, is "consistent" through `Law.evaluate`, and planted
  clearly wrong is "inconsistent" (or the law says why it has no control);
- a control can fail: a law whose rule cannot be met, or whose regime excludes every planted point, does not pass;
- [L24] Thm 3.3's conditions with constants 1 put the catalogue's T-vs-β design (m = 60, B = 64, M1 = 6) outside;
- [Y24] Lemma D.8 and Def. F.1 as conditions on measured curves: a run whose ‖Wᵀa‖² outgrows 2σ1² m m1 in Phase 2,
  or whose |F(0)| > 0.01, is outside for κ vs m, and every seed of its config with it;
- [C24] Thm 3.5's laws carry Thm 3.4's conditions, labelled; the error law has a sweep inside them (Fig. 1's is the
  paper's experiment); Lemma B.5's isotropy counts only runs whose ‖M‖ has settled (a measured condition).
"""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from iclscale.analysis import controls
from iclscale.analysis.laws import LAWS
from iclscale.analysis.reader import Results
from iclscale.analysis.select import inside_regime
from iclscale.analysis.verdict import CONSISTENT, INCONSISTENT, OUTSIDE
from iclscale.papers.cooccurrence.laws.common import PHASE_2_CONDITIONS


@pytest.mark.parametrize("name", sorted(LAWS))
def test_every_law_tells_its_own_prediction_from_a_wrong_one(name):
    law = LAWS[name]
    outcome = controls.run(law)
    if outcome.plan.right is None:
        assert law.no_control, f"{name} has no control and does not say why: {outcome.plan.reason}"
        return
    assert outcome.right == CONSISTENT, (outcome.plan.describe(), outcome.right_reason)
    if outcome.plan.wrong is None:
        assert outcome.plan.reason, f"{name}: no wrong value and no reason"
    else:
        assert outcome.wrong == INCONSISTENT, (outcome.plan.describe(), outcome.wrong_reason)
    assert outcome.passed


def test_a_control_fails_where_the_law_cannot_decide():
    law = LAWS["nonlinear_icl.T_vs_alpha"]
    demanding = replace(law, rule=replace(law.rule, min_levels=50))  # more x levels than any design has
    outcome = controls.run(demanding)
    assert outcome.right != CONSISTENT and not outcome.passed


def test_a_control_fails_where_the_regime_excludes_the_planted_points():
    law = LAWS["nonlinear_icl.T_vs_alpha"]
    nowhere = replace(law, regime=replace(law.regime, inside=lambda rows: np.zeros(len(rows), bool)))
    outcome = controls.run(nowhere)
    assert outcome.right == OUTSIDE and not outcome.passed


def test_iclscale_laws_shows_each_control():
    text = LAWS["nonlinear_icl.T_vs_alpha"].describe()
    assert "control:    planted at exponent -0.667 → consistent; at -1.17 → inconsistent" in text
    curve = LAWS["feature_selector.T_vs_alpha_curve"]
    assert "no wrong value" in controls.plan(curve).describe()  # C > 1/min α ≥ 1 by the fit's bounds


# [L24] Thm 3.3's conditions --------------------------------------------------------------------------------
def _nonlinear_rows(**overrides) -> pd.DataFrame:
    base = {"M1": 6, "m": 60, "batch_size": 64, "l_tr": 20, "alpha": 0.8, "beta": 2.0, "l_ts": 20, "alpha_test": 0.8}
    return pd.DataFrame([{**base, "lr": 1.0, "n_train_tasks": 0, **overrides}])


def test_theorem_3_3_with_constants_1_and_the_laws_epsilon():
    """T is read at ε = 0.1, so (ii) asks B ≥ max{ε⁻², M1}·ln M1 = 100 ln 6 ≈ 179 and (i) m ≥ 36 ln 6 ≈ 64.5: the
    catalogue's old design (m = 60, B = 64) was outside, the study's defaults (m = 65, B = 180) are inside."""
    regime = LAWS["nonlinear_icl.T_vs_beta"].regime
    assert regime.epsilon == 0.1 and "ε = 0.1" in regime.text
    assert not regime.on_params(_nonlinear_rows())[0]  # m = 60 < 36 ln 6 = 64.5 and B = 64 < 100 ln 6
    assert not regime.on_params(_nonlinear_rows(m=65))[0]  # B still below ε⁻² ln M1 ≈ 179
    assert regime.on_params(_nonlinear_rows(m=65, batch_size=180))[0]
    assert not regime.on_params(_nonlinear_rows(m=65, batch_size=180, lr=2.0))[0]  # η ≤ 1 (explicit)
    assert not regime.on_params(_nonlinear_rows(m=65, batch_size=180, l_tr=2))[0]  # l_tr ≥ ln M1/α
    assert regime.on_params(_nonlinear_rows(m=65, batch_size=64), constants=0.3)[0]  # B = 64: c* = 0.357
    # the width law measures m: its regime leaves the width condition out; the hinge law's ε is its own loss
    assert LAWS["nonlinear_icl.width_vs_M1"].regime.on_params(_nonlinear_rows(batch_size=180))[0]
    assert LAWS["nonlinear_icl.hinge_vs_batch"].regime.on_params(_nonlinear_rows(m=65, batch_size=16))[0]


# [Y24] Lemma D.8 and Def. F.1 on measured curves ----------------------------------------------------------
def _cooccurrence_results(readout_growth: dict[int, float], f0: float = 0.005) -> Results:
    """Two configs (m = 64, 256) × 3 seeds; min_margin crosses 0 at t = 10; ‖Wᵀa‖² = c1²m at t = 0, then grows by
    `readout_growth[m]` over Phase 2; max|F| = f0 at t = 0."""
    runs, curves = [], []
    for m in (64, 256):
        for seed in range(3):
            run_id = f"m{m}-s{seed}"
            runs.append({"run_id": run_id, "sweep": "s", "study": "cooccurrence", "seed": seed, "eval_key": "{}",
                         "status": "ok", "m": m, "m1": 64, "L": 5, "n": 60, "c0": 0.1, "c1": 0.3})  # fmt: skip
            for step, t in enumerate(np.arange(0, 40, 5.0)):
                scale = 0.09 * m * (1 + readout_growth[m] * max(0.0, t - 10) / 30)
                for metric, value in (("gf_time", t), ("min_margin", t - 10), ("u_norm2", scale),
                                      ("max_abs_output", f0 if step == 0 else 1.0)):  # fmt: skip
                    curves.append({"run_id": run_id, "step": step, "metric": metric, "value": value, "eval_key": ""})
    params = {p: {"role": "train"} for p in ("m", "m1", "L", "n", "c0", "c1")}
    spec = {"name": "s", "study": "cooccurrence", "params": params}
    return Results("planted", spec, pd.DataFrame(runs), pd.DataFrame(curves))


def test_a_readout_that_outgrows_its_theta_size_is_outside_phase_2():
    law = replace(LAWS["cooccurrence.kappa_vs_m"], regime=PHASE_2_CONDITIONS)
    results = _cooccurrence_results({64: 5.7, 256: 0.5})  # 6.7× c1²m at m = 64 (the case)
    inside = inside_regime(law, results, results.runs)
    assert list(inside) == [False] * 3 + [True] * 3
    small_start = _cooccurrence_results({64: 0.5, 256: 0.5}, f0=0.05)  # Lemma D.8's |F(0)| ≤ 0.01 fails
    assert not inside_regime(law, small_start, small_start.runs).any()


def test_a_store_without_the_probe_counts_as_outside():
    results = _cooccurrence_results({64: 0.5, 256: 0.5})
    results.curves = results.curves[results.curves["metric"] != "max_abs_output"]
    assert not inside_regime(LAWS["cooccurrence.kappa_vs_m"], results, results.runs).any()


def test_the_kappa_law_carries_the_phase_2_conditions():
    text = LAWS["cooccurrence.kappa_vs_m"].regime.text
    assert "Lemma D.8" in text and "‖Wᵀa‖²" in text and "Condition 1" in text


# [C24] Thm 3.5 under Thm 3.4's conditions -------------------------------------------------------------------
def test_the_softmax_error_law_has_theorem_3_4s_conditions():
    regime = LAWS["softmax_window.softmax_error_decreases_in_n"].regime
    rows = pd.DataFrame({"d": [2, 2, 2], "n": [100, 100, 100], "L": [1.0, 1.0, 1.0], "sigma": [1.0, 0.01, 1.0],
                         "task_class": ["relu", "relu", "cos"], "covariates": ["isotropic"] * 3})  # fmt: skip
    assert list(regime.on_params(rows)) == [True, False, False]  # σ = 0.01: n < (L²/σ²)^{d/2}; cos: no case of Thm 3.4
    # each condition is labelled: the task class and covariates explicit, n and σ's bounds hidden-constant
    kinds = {c.text.split(" (")[0]: c.kind for c in regime.conditions}
    assert kinds["affine or ReLU tasks"] == "explicit" and kinds["σ² ≳ n^{−2/d}"] == "hidden constant"


def _sweep_rows(name: str) -> pd.DataFrame:
    from iclscale.analysis.derived import add_derived
    from iclscale.paper import find_sweep
    from iclscale.sweeps.spec import load_sweep

    sweep = load_sweep(find_sweep(name))
    return add_derived(pd.DataFrame([c.as_dict() for c in sweep.configs()]), sweep.study.name)


def test_the_softmax_error_law_has_an_in_regime_sweep_and_fig_1_is_the_papers_experiment():
    law = LAWS["softmax_window.softmax_error_decreases_in_n"]
    # σ = 0.6·L at d = 2: n ≥ (L²/σ²)^{(d+2)/2} = 7.7 for affine tasks from n = 10 on, with constants 1
    assert law.regime.on_params(_sweep_rows("softmax_window_law_error_vs_n")).all()
    # Fig. 1's hills tasks are no case of Thm 3.4: outside, and judged by its own law on every point instead
    assert not law.regime.on_params(_sweep_rows("softmax_window_fig1_hills")).any()
    assert LAWS["softmax_window.softmax_error_decreases_in_n_fig1"].regime is None


def _window_results(final_growth: dict[int, float]) -> Results:
    """Two configs (n = 100, 400) × 3 seeds of affine tasks at d = 2, L = 1, σ = 1 (inside Thm 3.4's params); ‖M‖
    recorded every 100 of 1000 steps, settled at 2 from step 500 on but for a last-quarter drift of
    `final_growth[n]` (relative)."""
    runs, curves = [], []
    for n in (100, 400):
        for seed in range(3):
            run_id = f"n{n}-s{seed}"
            runs.append({"run_id": run_id, "sweep": "s", "study": "softmax_window", "seed": seed, "eval_key": "",
                         "status": "ok", "d": 2, "n": n, "L": 1.0, "sigma": 1.0, "task_class": "affine",
                         "covariates": "isotropic", "attention": "softmax", "M_anisotropy": 0.3})  # fmt: skip
            for step in range(0, 1001, 100):
                norm = 2.0 * min(1.0, step / 500 + 0.1) * (1 + final_growth[n] * max(0.0, step - 700) / 300)
                curves.append({"run_id": run_id, "step": step, "metric": "M_spectral_norm", "value": norm,
                               "eval_key": ""})  # fmt: skip
    params = {p: {"role": "train"} for p in ("d", "n", "L", "sigma", "task_class", "covariates", "attention")}
    return Results("planted", {"name": "s", "study": "softmax_window", "params": params}, pd.DataFrame(runs),
                   pd.DataFrame(curves))  # fmt: skip


def test_the_isotropy_law_leaves_out_a_run_whose_m_has_not_settled():
    # Lemma B.5 is about the minimiser: a run whose ‖M‖ still grows 30 % over the last quarter is no evidence against
    # it, however anisotropic its M (C3's "inconsistent" rested on such runs); a settled one (1 %) is
    law = LAWS["softmax_window.M_isotropy"]
    results = _window_results({100: 0.3, 400: 0.01})
    assert list(inside_regime(law, results, results.runs)) == [False] * 3 + [True] * 3
    assert "measured on the run" in law.regime.text and "settled" in law.regime.text
    unsettled = _window_results({100: 0.3, 400: 0.3})
    assert [f.verdict.verdict for f in law.evaluate(unsettled)] == [OUTSIDE]
    assert [f.verdict.verdict for f in law.evaluate(results)] == [INCONSISTENT]  # the settled run's 0.3 counts
    # a store without the ‖M‖ curve: convergence not shown, so outside
    bare = _window_results({100: 0.0, 400: 0.0})
    bare.curves = bare.curves.iloc[0:0]
    assert not inside_regime(law, bare, bare.runs).any()


def test_the_report_counts_points_inside_and_outside_the_conditions():
    law = LAWS["nonlinear_icl.T_vs_alpha"]
    results = controls.planted_results(law, -2 / 3)
    results.runs["l_tr"] = 10  # l_tr ≥ ln M1/α holds from α = ln 6/10 ≈ 0.18 on: α = 0.1, 0.15 are outside
    small = results.runs["alpha"] < 0.18
    (fit,) = controls.controlled(law).evaluate(results)
    assert fit.n_outside == int(small.sum()) and fit.n_inside == int((~small).sum())
    row = fit.row()
    assert (row["n_inside_conditions"], row["n_outside_conditions"]) == (fit.n_inside, fit.n_outside)
    assert f"{fit.n_outside} points outside the theorem's conditions" in fit.verdict.reason


def test_a_band_that_carries_its_tolerance_is_not_widened_again():
    """[Y24]'s exponent bands are p ± 0.1 already (cooccurrence.common): 1.15 against 1 ± 0.1 is outside, where a
    second widening by the rule's 0.1 would call it consistent."""
    verdict, reason = controls.verdict_at(LAWS["cooccurrence.kappa_vs_m"], 1.15)
    assert verdict == INCONSISTENT, reason

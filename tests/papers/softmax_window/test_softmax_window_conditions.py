"""[C24]'s theorem conditions in the catalogue's regimes (issue 21, point 8): Thm 3.5's laws carry Thm 3.4's
conditions, labelled; the error law has a sweep inside them (Fig. 1's is the paper's experiment); Lemma B.5's
isotropy counts only runs whose ‖M‖ has settled (a measured condition)."""

import pandas as pd

from iclscale.analysis.laws import LAWS
from iclscale.analysis.reader import Results
from iclscale.analysis.select import inside_regime
from iclscale.analysis.verdict import INCONSISTENT, OUTSIDE


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

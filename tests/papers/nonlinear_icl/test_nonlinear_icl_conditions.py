"""[L24]'s theorem conditions in the catalogue's regimes, and its laws' negative controls (iclscale.analysis.controls)
on its own numbers (issue 21, points 4 and 8):

- `iclscale laws` shows T vs α's control: planted at the exponent −2/3, and at −2/3 − 0.5;
- Thm 3.3's conditions with constants 1 put the catalogue's old T-vs-β design (m = 60, B = 64, M1 = 6) outside;
- the report counts the planted points inside and outside l_tr ≥ ln M1/α.
"""

import pandas as pd

from iclscale.analysis import controls
from iclscale.analysis.laws import LAWS


def test_iclscale_laws_shows_the_control_of_t_vs_alpha():
    text = LAWS["nonlinear_icl.T_vs_alpha"].describe()
    assert "control:    planted at exponent -0.667 → consistent; at -1.17 → inconsistent" in text


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

"""[Y24]'s theorem conditions in the catalogue's regimes (issue 21, point 8): Lemma D.8 and Def. F.1 as conditions on
measured curves (a run whose ‖Wᵀa‖² outgrows 2σ1² m m1 in Phase 2, or whose |F(0)| > 0.01, is outside for κ vs m,
and every seed of its config with it), and an exponent band that carries its tolerance, not widened again by the
negative control (iclscale.analysis.controls)."""

from dataclasses import replace

import numpy as np
import pandas as pd

from iclscale.analysis import controls
from iclscale.analysis.laws import LAWS
from iclscale.analysis.reader import Results
from iclscale.analysis.select import inside_regime
from iclscale.analysis.verdict import INCONSISTENT
from iclscale.papers.cooccurrence.laws.common import PHASE_2_CONDITIONS


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


def test_a_band_that_carries_its_tolerance_is_not_widened_again():
    """[Y24]'s exponent bands are p ± 0.1 already (cooccurrence.common): 1.15 against 1 ± 0.1 is outside, where a
    second widening by the rule's 0.1 would call it consistent."""
    verdict, reason = controls.verdict_at(LAWS["cooccurrence.kappa_vs_m"], 1.15)
    assert verdict == INCONSISTENT, reason

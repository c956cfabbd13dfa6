"""[LM25] the windows of Theorems 1–4 that had no law: each theorem is a sufficient condition, so each law checks
that the error (or hinge) is ≤ ε everywhere inside the window, and says nothing outside it (no 'only if' is
printed). Points outside the window are set aside (the regime), counted, and drawn grey.

- Thm 2 (b): Mamba's test error ≤ ε for κ_a ≤ κ_a′ ≤ Θ(Vβp_a^(−1)κ_a^(−1)L^(−1)(1 − p_a)ε^(−1)), with (c) α <
  min(1, p_a·l_tr/l_ts) and (d) l_ts ≳ (1 − α)^(−1)·log M1;
- Thm 2 (a): the same for arbitrary outliers v ∈ 𝒱′ (Eq. 11, Σλ ≥ L), here fresh random unit λ with Σλ = L
  (outlier_set = sum_L), at L = outlier_sum;
- Thm 4 (b): the LT's test error ≤ ε for κ_a′ ≤ Θ(Vβp_a^(−1)(1 − p_a)κ_a^(−1)L^(−1)l_tr·ε^(−1)) (no lower end),
  with (c) α < 1/2 and (d) l_ts ≳ max{(1 − α)^(−1), (1/2 − α)^(−2)α}·log M1;
- Thm 2 (d), Eq. (12): Mamba's test error ≤ ε for (1 − α)^(−1)·log M1 ≲ l_ts ≲ α^(−1)·poly(M1^κ_a) — the upper
  end bounds the number of outliers α·l_ts (Remark 3);
- Thm 1 (iii), Eq. (8): Mamba's training hinge ≤ ε for (1 − p_a)^(−1)·log M1 ≲ l_tr ≲ p_a^(−1)·poly(M1^κ_a); Thm 3
  (iii): the LT's for l_tr ≳ (1 − p_a)^(−1)·log M1 (no upper end).

Constants 1 and poly(x) = x (degree 1) are this tool's reading (not from the paper); ε = THEOREM_EPSILON = 0.1 as in
`common`, for the level read and the training regime alike.
The L of the unseen v′ of §4 is 0.3 (the smallest Σλ of the three: 0.9, 0.5, 0.3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from iclscale.analysis.kinds import Bound
from iclscale.analysis.law import EXPLICIT, STRONGER, Condition, Hypothesis, Law, Prediction, VersusPrinted, inside_rule
from iclscale.analysis.measures import FinalValue
from iclscale.analysis.verdict import Band
from iclscale.papers.mamba_outliers.laws.common import LM25, ONE_LAYER, STUDY, THEOREM_EPSILON, trained_regime
from iclscale.papers.mamba_outliers.laws.fig2 import ERRORS

EPSILON = THEOREM_EPSILON  # the level each window law reads, and the ε of its training regime

UNSEEN_L = 0.3
"""Σλ of [LM25] §4's least aligned unseen outlier v′₃ (λ = (0.4, −0.3, 0.2)): the L of 𝒱′ for outlier_set unseen."""
RULE = inside_rule(min_levels=1, min_points=2)


def _f(rows, name):
    return rows[name].astype(float)


def outlier_L(rows):
    """L of Eq. (11): outlier_sum for the sum_L outliers, 0.3 for §4's unseen v′ (and its v1..v3 parts, ≥ 0.3), 1 for
    the training v*_s (λ a unit vector e_s). Rows with another outlier set get NaN."""
    sets = rows["outlier_set"].astype(str)
    L = np.where(sets == "sum_L", _f(rows, "outlier_sum"), np.where(sets == "train", 1.0, UNSEEN_L))
    return L


def mamba_kappa_upper(rows):
    """[LM25] Thm 2 (b): Vβp_a^(−1)κ_a^(−1)L^(−1)(1 − p_a)ε^(−1) (constant 1)."""
    p_a = _f(rows, "p_a")
    return _f(rows, "V") * _f(rows, "beta") * (1 - p_a) / (p_a * _f(rows, "kappa_a") * outlier_L(rows) * EPSILON)


def lt_kappa_upper(rows):
    """[LM25] Thm 4 (b): Vβp_a^(−1)(1 − p_a)κ_a^(−1)L^(−1)l_tr·ε^(−1) (constant 1)."""
    return mamba_kappa_upper(rows) * _f(rows, "l_tr")


def _mamba_alpha_ok(rows):
    """Thm 2 (c), (d)'s lower end: α < min(1, p_a·l_tr/l_ts) and l_ts ≥ (1 − α)^(−1)·log M1."""
    alpha = _f(rows, "alpha")
    star = np.minimum(1.0, _f(rows, "p_a") * _f(rows, "l_tr") / _f(rows, "l_ts"))
    needed = np.log(_f(rows, "M1")) / (1 - alpha).clip(lower=1e-9)
    return (alpha < star) & (_f(rows, "l_ts") >= needed)


def _lt_alpha_ok(rows):
    """Thm 4 (c), (d): α < 1/2 and l_ts ≥ max{(1 − α)^(−1), (1/2 − α)^(−2)α}·log M1."""
    alpha = _f(rows, "alpha")
    gap = (0.5 - alpha).clip(lower=1e-9)
    needed = np.maximum(1 / (1 - alpha).clip(lower=1e-9), alpha / gap**2) * np.log(_f(rows, "M1"))
    return (alpha < 0.5) & (_f(rows, "l_ts") >= needed)


def mamba_kappa_window(rows):
    kappa = _f(rows, "kappa_a_test")
    return _mamba_alpha_ok(rows) & (kappa >= _f(rows, "kappa_a")) & (kappa <= mamba_kappa_upper(rows))


def lt_kappa_window(rows):
    return _lt_alpha_ok(rows) & (_f(rows, "kappa_a_test") <= lt_kappa_upper(rows))


def l_ts_window(rows):
    """Thm 2 (c) and (d) both ends: (1 − α)^(−1)·log M1 ≤ l_ts ≤ α^(−1)·M1^κ_a (poly = degree 1)."""
    upper = _f(rows, "M1") ** _f(rows, "kappa_a") / _f(rows, "alpha").clip(lower=1e-9)
    return _mamba_alpha_ok(rows) & (_f(rows, "l_ts") <= upper) & (_f(rows, "kappa_a_test") >= _f(rows, "kappa_a"))


def l_tr_window(mamba: bool):
    def inside(rows):
        """Thm 1 (iii) / Thm 3 (iii): (1 − p_a)^(−1)·log M1 ≤ l_tr (≤ p_a^(−1)·M1^κ_a for Mamba)."""
        p_a, l_tr = _f(rows, "p_a"), _f(rows, "l_tr")
        ok = l_tr >= np.log(_f(rows, "M1")) / (1 - p_a).clip(lower=1e-9)
        if mamba:
            ok &= l_tr <= _f(rows, "M1") ** _f(rows, "kappa_a") / p_a.clip(lower=1e-9)
        return ok

    return inside


def below_epsilon(source: str):
    def predict(params: Mapping[str, Any]) -> Prediction:
        return Prediction(Hypothesis(f"≤ ε = {EPSILON:g}", Band(0.0, EPSILON), source))

    return predict


def _outlier_sets(*sets: str):
    def keep(runs):
        return runs[runs["outlier_set"].isin(sets)] if "outlier_set" in runs else runs.iloc[0:0]

    return keep


def _window_law(
    name, model, metric, claim, citation, conditions, text, x, window, window_text, row_filter=None, **particular
):
    """A window law: the window's own conditions and the training theorems' (Thms 2, 4 test 'the model trained
    under Theorem 1' / 3: `trained_regime`; an l_tr window leaves out the part it measures), and the params of its
    negative control (`particular`: control_params)."""
    without = ("l_tr",) if x == "l_tr" else ()
    return Law(
        name=f"{STUDY}.{name}",
        study=STUDY,
        claim=f"{claim} ({ERRORS[metric]})" if metric in ERRORS else claim,
        citation=f"{LM25} {citation}",
        conditions=conditions + f"; constants 1, poly degree 1, ε = {EPSILON:g} (not from the paper; the training "
        "regime's ε too); a sufficient condition: nothing is claimed outside the window (those points are set aside)",
        prediction_text=text,
        measure=FinalValue(metric),
        x=x,
        predict=below_epsilon(f"[LM25] {citation}"),
        kind=Bound(aggregate="max", statistic_text=f"largest seed-mean {metric} inside the window"),
        where={**ONE_LAYER, "model": (model,), "placement": ("bernoulli",)},
        row_filter=row_filter,
        one_row_per_run=metric == "train_loss",
        # the window is the law's scope (what the theorem claims something of, edges at constants 1): explicit here
        regime=trained_regime(
            EPSILON,
            without=without,
            also=(Condition(f"{window_text} (the law's window, constants 1)", EXPLICIT, window),),
            source=f"{citation.split(',')[0]}, trained inside Thm {'1' if model == 'mamba' else '3'}",
        ),
        rule=RULE,
        versus_printed=VersusPrinted(STRONGER, "the window's Θ(·) and poly(·) edges are taken at constant 1, degree 1"),
        **particular,
    )


# The negative controls' levels (iclscale.analysis.controls), inside each window at the study's control config (V =
# 3, β = 3,
# κ_a = 4, p_a = 0.6, l_tr = 80, α = 0.1, M1 = 6, §4's unseen v′ with L = 0.3): Mamba's κ_a′ in [4, 150/L], the LT's
# ≤ 1.2·10⁴/L, l_ts in [2.0, 480) (α < p_a·l_tr/l_ts); the sum_L law at Σλ = L = 0.5
CONTROL = {
    "mamba": {"kappa_a_test": (4.0, 8.0, 16.0, 64.0, 256.0)},
    "lt": {"kappa_a_test": (1.0, 10.0, 100.0, 1000.0, 10000.0)},
    "sum_L": {"outlier_set": "sum_L", "outlier_sum": 0.5, "kappa_a_test": (4.0, 16.0, 64.0, 256.0)},
    "l_ts": {"l_ts": (10, 20, 40, 80, 160, 320)},
}


def _laws(metric: str, suffix: str) -> tuple[Law, ...]:
    return (
        _window_law(
            "mamba_kappa_test_window" + suffix,
            "mamba",
            metric,
            "Mamba's test error is ≤ ε for every test outlier magnitude κ_a′ in [κ_a, Vβ(1 − p_a)/(p_a κ_a L ε)]",
            "Theorem 2 (b)",
            "§4's unseen v′ (L = 0.3) or the training v*_s (L = 1); α and l_ts inside Thm 2 (c), (d)",
            f"error ≤ {EPSILON:g} at every κ_a′ inside the window",
            "kappa_a_test",
            mamba_kappa_window,
            "κ_a ≤ κ_a′ ≤ Vβ(1 − p_a)/(p_a κ_a L ε), α < min(1, p_a l_tr/l_ts), l_ts ≥ (1 − α)^(−1) log M1",
            _outlier_sets("unseen", "train"),
            control_params=CONTROL["mamba"],
        ),
        _window_law(
            "lt_kappa_test_window" + suffix,
            "lt",
            metric,
            "the LT's test error is ≤ ε for every κ_a′ ≤ Vβ(1 − p_a)l_tr/(p_a κ_a L ε)",
            "Theorem 4 (b)",
            "§4's unseen v′ (L = 0.3) or the training v*_s (L = 1); α and l_ts inside Thm 4 (c), (d)",
            f"error ≤ {EPSILON:g} at every κ_a′ inside the window",
            "kappa_a_test",
            lt_kappa_window,
            "κ_a′ ≤ Vβ(1 − p_a)l_tr/(p_a κ_a L ε), α < 1/2, l_ts ≥ max{(1 − α)^(−1), (1/2 − α)^(−2)α} log M1",
            _outlier_sets("unseen", "train"),
            control_params=CONTROL["lt"],
        ),
        _window_law(
            "mamba_arbitrary_outliers_sum_L" + suffix,
            "mamba",
            metric,
            "Mamba's test error is ≤ ε for any outliers v = Σλ_s v*_s with ‖v‖ = 1, Σλ ≥ L > 0",
            "Theorem 2 (a), Eq. (11)",
            "a fresh random unit λ with Σλ = L per outlier (outlier_set = sum_L, L = outlier_sum; not from the "
            "paper: the paper's figures use three fixed v′); κ_a′, α and l_ts inside Thm 2 (b)–(d) for that L",
            f"error ≤ {EPSILON:g} at every κ_a′ inside the window, per L",
            "kappa_a_test",
            mamba_kappa_window,
            "κ_a ≤ κ_a′ ≤ Vβ(1 − p_a)/(p_a κ_a L ε), α < min(1, p_a l_tr/l_ts), l_ts ≥ (1 − α)^(−1) log M1",
            _outlier_sets("sum_L"),
            control_params=CONTROL["sum_L"],
        ),
        _window_law(
            "mamba_l_ts_window" + suffix,
            "mamba",
            metric,
            "Mamba's test error is ≤ ε for (1 − α)^(−1)·log M1 ≤ l_ts ≤ α^(−1)·poly(M1^κ_a) (at most poly(M1^κ_a) "
            "outliers per prompt)",
            "Theorem 2 (d), Eq. (12); Remark 3",
            "α < min(1, p_a l_tr/l_ts) (Thm 2 (c)), κ_a′ ≥ κ_a",
            f"error ≤ {EPSILON:g} at every l_ts inside the window",
            "l_ts",
            l_ts_window,
            "(1 − α)^(−1) log M1 ≤ l_ts ≤ α^(−1) M1^κ_a, α < min(1, p_a l_tr/l_ts), κ_a′ ≥ κ_a",
            control_params=CONTROL["l_ts"],
        ),
    )


def _l_tr_law(model: str) -> Law:
    mamba = model == "mamba"
    window = "(1 − p_a)^(−1)·log M1 ≤ l_tr" + (" ≤ p_a^(−1)·M1^κ_a" if mamba else "")
    citation = "Theorem 1 (iii), Eq. (8)" if mamba else "Theorem 3 (iii)"
    return _window_law(
        f"{model}_l_tr_window",
        model,
        "train_loss",
        f"{'Mamba' if mamba else 'the LT'}'s training hinge is ≤ ε for {window}",
        citation,
        "final training hinge (mean over the last record interval, prompts of 𝒟 on the training tasks); T, B, η, "
        "κ_a as the sweep's (T ≥ T_M not checked)",
        f"hinge ≤ {EPSILON:g} at every l_tr with {window}",
        "l_tr",
        l_tr_window(mamba),
        window,
    )


LAWS = (
    *_laws("test_error", ""),
    *_laws("error_trained", "_trained_tasks"),
    _l_tr_law("mamba"),
    _l_tr_law("lt"),
)

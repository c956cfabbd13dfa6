"""Seed 002's batch-size laws (Thm 1 (i), Thm 3 (i): one term of a max{}, the `MaxTerm` kind) and the κ_a window
(Thm 1 (ii)) on synthetic results with planted answers (no training): each law must find what was planted, call
a planted violation inconsistent, and a term it cannot tell from the max{}'s others inconclusive."""

import math
from dataclasses import replace

import pandas as pd
import pytest

from iclscale.analysis.exponent_drift import Curvature
from iclscale.analysis.kinds import MaxTerm
from iclscale.analysis.law import Hypothesis, Prediction
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.laws import get_law
from iclscale.analysis.reader import Results, add_derived
from iclscale.analysis.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, OUTSIDE, Band, VerdictRule

STUDY = "mamba_outliers"
TRAIN_PARAMS = ("model", "layers", "lr", "p_a", "M1", "beta", "kappa_a", "V", "batch_size", "steps")
BASE = {"model": "mamba", "layers": 1, "lr": 0.1, "p_a": 0.6, "M1": 6, "beta": 3.0, "kappa_a": 2.0, "V": 3,
        "steps": 80}  # fmt: skip


# what a planted run carries where a test leaves it out: trained inside [LM25] Thms 1/3's conditions other than the
# batch (constants 1: Vβ⁻⁴ ≤ κ_a ≤ Vβ(1 − p_a)/(p_a ε), l_tr ≥ ln M1/(1 − p_a)), as a real store carries every param
INSIDE_THEOREM = {"l_tr": 20, "batch_size": 200000}


def results_of(rows: list[dict]) -> Results:
    frame = pd.DataFrame(rows)
    runs = add_derived(frame.assign(**{k: v for k, v in INSIDE_THEOREM.items() if k not in frame}))
    params = {c: {"role": "train"} for c in TRAIN_PARAMS if c in runs}
    curves = pd.DataFrame([], columns=["run_id", "sweep", "step", "metric", "value", "eval_key"])
    return Results("synthetic", {"name": "synthetic", "study": STUDY, "laws": [], "params": params}, runs, curves)


def verdicts(name: str, results: Results) -> list[str]:
    return [fit.verdict.verdict for fit in get_law(f"{STUDY}.{name}").evaluate(results)]


def batch_rows(variable: str, values, required, **fixed) -> list[dict]:
    """A batch grid around the planted smallest batch B*(x, seed): the hinge is 0 from B* on, 0.5 below it."""
    rows = []
    for x in values:
        for seed in range(4):
            needed = max(2, round(required(x) * (1 + 0.05 * seed)))
            for batch in sorted({1, needed - 1, needed, 2 * needed}):
                run = f"{x}-{seed}-{batch}"
                rows.append({"run_id": run, "sweep": "s", "study": STUDY, "seed": seed, "status": "ok",
                             "eval_key": "", **BASE, **fixed, variable: x, "batch_size": batch,
                             "hinge_trained": 0.0 if batch >= needed else 0.5})  # fmt: skip
    return rows


KAPPAS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
# where Mamba's own term β⁻⁴V²κ_a⁻²(1 − p_a)⁻² dominates B_M at ε = 0.01 with constants 1 (the law's regime):
# 4444/κ_a² ≥ 10⁴ at β = 3, p_a = 0.995 for κ_a ≤ 0.67, and κ_a ≥ Vβ⁻⁴ = 0.037 (a decade and more)
DOMINANT_KAPPAS = (0.04, 0.08, 0.16, 0.32, 0.64)
DOMINANT = {"p_a": 0.995, "l_tr": 400}


@pytest.mark.parametrize(
    "required, expected, reason",
    [
        (lambda k: 400 * k**-2, CONSISTENT, "misses the other terms' 0"),  # the κ_a^(−2) term dominates
        (lambda k: 6.0, INCONCLUSIVE, "envelope"),  # flat: B_T dominates, the κ_a term is not seen
        (lambda k: 40 * k**-1, INCONCLUSIVE, "envelope"),  # between: a crossover of the max{}
        (lambda k: 12 * k, INCONSISTENT, "misses even the envelope"),  # rising: no max{} of κ_a^(−2) and 1 does that
    ],
)
def test_mamba_batch_vs_kappa_a_tells_its_term_from_b_t(required, expected, reason):
    rows = batch_rows("kappa_a", DOMINANT_KAPPAS, lambda k: required(k / DOMINANT_KAPPAS[0] * 0.25), **DOMINANT)
    fits = get_law(f"{STUDY}.mamba_batch_vs_kappa_a").evaluate(results_of(rows))
    assert [f.verdict.verdict for f in fits] == [expected]
    assert reason in fits[0].verdict.reason


@pytest.mark.parametrize("law", ["mamba_batch_vs_kappa_a", "lt_batch_vs_p_a", "lt_batch_vs_M1"])
def test_a_batch_law_is_outside_where_its_term_is_not_the_bound(law):
    # at the paper's values (β = 3, κ_a = 2, p_a = 0.6, M1 = 6) ε⁻² = 10⁴ dominates every max{} at ε = 0.01: the
    # named term's exponent is not the bound's there, so B* (1–16) cannot count against it (L12, L13)
    variable, values, model = {
        "mamba_batch_vs_kappa_a": ("kappa_a", KAPPAS, "mamba"),
        "lt_batch_vs_p_a": ("p_a", (0.0, 0.2, 0.4, 0.6, 0.8), "lt"),
        "lt_batch_vs_M1": ("M1", (3, 6, 12, 24), "lt"),
    }[law]
    fits = get_law(f"{STUDY}.{law}").evaluate(results_of(batch_rows(variable, values, lambda x: 12 * x, model=model)))
    assert [f.verdict.verdict for f in fits] == [OUTSIDE]
    assert "dominates" in fits[0].verdict.reason and fits[0].c_star < 0.01


def test_the_lt_batch_vs_p_a_fits_one_minus_p_a_and_pools_the_budget():
    # B* ∝ (1 − p_a)^(−1) with a budget (steps) that moves with p_a by design: one group, exponent −1
    # at M1 = 1000 the term M1(1 − p_a)⁻¹ dominates ε⁻² = 10⁴ from p_a = 0.9 on (the law's regime)
    values = (0.9, 0.95, 0.97, 0.99)
    rows = [{**r, "steps": round(43 / (1 - r["p_a"]))}
            for r in batch_rows("p_a", values, lambda p: 20 / (1 - p), model="lt", M1=1000, l_tr=800)]  # fmt: skip
    fits = get_law(f"{STUDY}.lt_batch_vs_p_a").evaluate(results_of(rows))
    assert len(fits) == 1 and fits[0].verdict.verdict == CONSISTENT
    assert fits[0].estimate == pytest.approx(-1.0, abs=0.1)


def estimate(low: float, high: float) -> Estimate:
    """An exponent's interval over 5 x values whose power-law form is shown (a straight line on log axes)."""
    straight = Curvature(drift=0.0, low=-0.05, high=0.05, bend_low=-0.06, bend_high=0.06, df=15, method="planted",
                         n_levels=5, decades=1.0, local=(((low + high) / 2, low - 0.2, high + 0.2),) * 4)  # fmt: skip
    return Estimate(statistic="exponent", estimate=(low + high) / 2, ci_low=low, ci_high=high, n_points=20,
                    n_levels=5, curvature=straight)  # fmt: skip


@pytest.mark.parametrize(
    "interval, expected",
    [
        ((-2.08, -1.92), CONSISTENT),  # inside −2 ± 0.1 only
        ((-2.05, -1.7), INCONCLUSIVE),  # straddles −2 ± 0.1 (the equivalence rule of issue 21)
        ((-1.2, -0.9), INCONCLUSIVE),  # meets the other term's −1 (and not −2)
        ((-2.1, -1.8), INCONCLUSIVE),  # straddles −2 ± 0.1
        ((-0.3, 0.1), INCONCLUSIVE),  # the ε^(−2) term's 0
        ((0.3, 0.5), INCONSISTENT),  # outside [−2, 0]
        ((-2.6, -2.3), INCONSISTENT),  # steeper than any term
    ],
)
def test_max_term_judges_one_term_of_three(interval, expected):
    # Mamba's B_M in 1 − p_a: its own term −2, B_T's −1 and 0 (Thm 1 (i))
    law = get_law(f"{STUDY}.mamba_batch_vs_p_a")
    prediction = Prediction(Hypothesis("exponent −2", Band.point(-2.0), "test"))
    assert law.kind.judge(law, prediction, estimate(*interval)).verdict == expected


def test_max_term_is_inconclusive_where_the_interval_meets_two_terms():
    # a rule loose enough for the shared verdict to call [−2.1, −0.9] consistent with −2: it also meets −1
    law = replace(get_law(f"{STUDY}.mamba_batch_vs_p_a"), rule=VerdictRule(tolerance=1.2, max_interval_width=2.0))
    verdict = law.kind.judge(law, Prediction(Hypothesis("−2", Band.point(-2.0), "t")), estimate(-2.1, -0.9))
    assert verdict.verdict == INCONCLUSIVE and "not identified" in verdict.reason


def test_max_term_leaves_thin_evidence_to_the_shared_rule():
    law = get_law(f"{STUDY}.mamba_batch_vs_kappa_a")
    assert isinstance(law.kind, MaxTerm)
    thin = Estimate(statistic="exponent", ci_low=-2.1, ci_high=-1.9, n_points=2, n_levels=2)
    verdict = law.kind.judge(law, Prediction(Hypothesis("−2", Band.point(-2.0), "t")), thin)
    assert verdict.verdict == INCONCLUSIVE and "x value" in verdict.reason


# The κ_a window (Thm 1 (ii)) ------------------------------------------------------------------------------------------
WINDOW_KAPPAS = tuple(2.0**k for k in range(-6, 11))


def window_rows(hinge) -> list[dict]:
    """Mamba at β ∈ {1, 3} (η·β² fixed), 3 seeds, over κ_a = 2^−6 … 2^10, final hinge = hinge(κ_a, β, seed)."""
    rows = []
    for beta in (1.0, 3.0):
        for kappa in WINDOW_KAPPAS:
            for seed in range(3):
                rows.append({"run_id": f"{beta}-{kappa}-{seed}", "sweep": "s", "study": STUDY, "seed": seed,
                             "status": "ok", "eval_key": "", **BASE, "beta": beta, "lr": 0.9 / beta**2,
                             "kappa_a": kappa, "train_loss": hinge(kappa, beta, seed)})  # fmt: skip
    return rows


def theorem_window(kappa, beta, seed):
    """≤ ε exactly inside [Vβ^(−4), Vβ(1 − p_a)/(p_a ε)] = [3β^(−4), 20β] (V = 3, p_a = 0.6, ε = 0.1)."""
    return 0.001 * (1 + seed) if 3 * beta**-4 <= kappa <= 20 * beta else 0.3


def test_the_window_laws_find_a_planted_window_at_the_bounds():
    results = results_of(window_rows(theorem_window))
    assert verdicts("mamba_kappa_a_lower_bound", results) == [CONSISTENT, CONSISTENT]  # per β
    assert verdicts("mamba_kappa_a_upper_bound", results) == [CONSISTENT, CONSISTENT]
    lower = get_law(f"{STUDY}.mamba_kappa_a_lower_bound").evaluate(results)
    # the crossing per β: the first grid κ_a at or above 3β^(−4): 4 at β = 1, 2^−4 at β = 3
    assert [f.estimate for f in lower] == [4.0, 2.0**-4]


def test_a_window_that_does_not_move_with_beta_is_inconsistent_where_the_bound_moved():
    # an edge at κ_a = 0.5 for every β: below the bound at β = 1 (3), above it at β = 3 (0.037)
    fixed = results_of(window_rows(lambda k, b, s: 0.001 if 0.5 <= k <= 8 else 0.3))
    assert verdicts("mamba_kappa_a_lower_bound", fixed) == [INCONSISTENT, INCONSISTENT]
    # the upper edge at 8 for every β: inside the bound 20β (ε = 0.1), so failing on its claimed side
    assert verdicts("mamba_kappa_a_upper_bound", fixed) == [INCONSISTENT, INCONSISTENT]
    fit = get_law(f"{STUDY}.mamba_kappa_a_upper_bound").evaluate(fixed)[0]
    assert "kappa_a = 16" in fit.verdict.reason and math.isclose(fit.estimate, 8.0)


def test_each_window_law_sets_the_other_half_aside():
    # a failure near the upper edge only: the lower law does not see it
    upper_only = results_of(window_rows(lambda k, b, s: theorem_window(k, b, s) if k < 16 else 0.3))
    assert verdicts("mamba_kappa_a_lower_bound", upper_only) == [CONSISTENT, CONSISTENT]
    assert INCONSISTENT in verdicts("mamba_kappa_a_upper_bound", upper_only)

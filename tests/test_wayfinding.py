"""Finding one's way: `iclscale laws` names the sweep files that test each law and the claims no law tests;
a terminal verdict line carries its reason in a few words and never prints `[nan, nan]`."""

import math
from types import SimpleNamespace

from iclscale.analysis.cli import sweep_files_by_law, verdict_summary
from iclscale.analysis.page import brief_reason
from iclscale.analysis.verdict import CONSISTENT, INCONCLUSIVE, OUTSIDE, Verdict
from iclscale.cli import main


def _fit(estimate, low, high, verdict):
    law = SimpleNamespace(name="study.law")
    return SimpleNamespace(law=law, group_label="d=2", statistic="exponent", estimate=estimate, ci_low=low,
                           ci_high=high, verdict=verdict)  # fmt: skip


def test_a_consistent_verdict_off_the_power_law_says_which_form_fits():
    reason = (
        "a pure power law is rejected (lack-of-fit F(5, 30) = 9.1, p = 2e-05) but the paper's form c0 + c1·L′² "
        "(finite-width correction, Thm 3.4) fits: lack-of-fit p = 0.41, AIC 12.3 below the power law's, c1 = 0.2 > 0"
    )
    line = verdict_summary(_fit(1.92, 1.91, 1.92, Verdict(CONSISTENT, reason)))
    assert line == (
        "study.law  d=2: exponent 1.92 [1.91, 1.92]  consistent — a pure power law is rejected but the paper's "
        "form c0 + c1·L′² fits"
    )


def test_no_nan_interval_is_printed_and_outside_says_which_conditions():
    line = verdict_summary(_fit(math.nan, math.nan, math.nan, Verdict(INCONCLUSIVE, "only 2 x value(s) with data")))
    assert "nan" not in line and "no exponent" in line and line.endswith("inconclusive — only 2 x value(s) with data")
    outside = Verdict(OUTSIDE, "outside the theorem's conditions: all 6 points violate n ≥ (L²/σ²)^{d/2}")
    line = verdict_summary(_fit(0.4, math.nan, math.nan, outside))
    assert "exponent 0.4 (no interval)" in line
    assert line.endswith("outside the theorem's conditions — all 6 points violate n ≥ (L²/σ²)^{d/2}")
    assert brief_reason("x" * 300, limit=50).endswith("…") and len(brief_reason("x" * 300, limit=50)) == 50


def test_laws_names_each_laws_sweep_files_and_the_claims_without_a_law(capsys):
    files = sweep_files_by_law()
    assert "iclscale/papers/softmax_window/sweeps/demo.yaml" in files["softmax_window.M_norm_vs_Lambda"]
    assert main(["laws", "--study", "mamba_outliers"]) == 0
    out = capsys.readouterr().out
    from iclscale.analysis.catalogue import PAPERS

    package = next(package for studies, package in PAPERS.values() if "mamba_outliers" in studies)
    untested = [claim for claim in package.claims if not claim.laws]
    if untested:  # each claim without a law is listed under its count
        assert f"claims without a law (not tested by this tool): {len(untested)}" in out
        assert all(f"  {claim.label:<4} {claim.source}: {claim.text}" in out for claim in untested)
    else:  # seed 002 has a law for every claim: no such list
        assert "claims without a law" not in out
    assert main(["laws"]) == 0
    everything = capsys.readouterr().out
    missing = sum(not claim.laws for _, package in PAPERS.values() for claim in package.claims)
    assert everything.count("claims without a law (not tested by this tool)") == sum(
        any(not claim.laws for claim in package.claims) for _, package in PAPERS.values()
    )
    assert missing == sum(
        int(line.rsplit(":", 1)[1]) for line in everything.splitlines() if "claims without a law (not tested" in line
    )
    assert "sweep files: iclscale/papers/mamba_outliers/sweeps/mamba_outliers_law_T_vs_lr.yaml" in out

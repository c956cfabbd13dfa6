"""The report's headlines (iclscale.analysis.headlines): one sentence per fitted law, made from the fit's numbers,
linking to its section; a law's groups past a few folded."""

from __future__ import annotations

import math
import re

from iclscale.analysis.headlines import SHOWN_GROUPS, headline, headlines_html
from iclscale.analysis.kinds import PowerLaw, Trend
from iclscale.analysis.law import Hypothesis, Law, Prediction
from iclscale.analysis.lawfit import LawFit
from iclscale.analysis.measures import FinalValue
from iclscale.analysis.verdict import CONSISTENT, INCONCLUSIVE, OUTSIDE, Band, Verdict

BAND = Band(1 / 6, 2 / 3)


def _law(kind=None, band=BAND, symbol="‖M‖₂") -> Law:
    return Law(
        name="test.window", study="test", claim="a claim", citation="[X24] Theorem 3.4 (App E.1, eq. (17)); Lemma B.5",
        conditions="none", prediction_text="a band", measure=FinalValue("M_spectral_norm", symbol=symbol), x="n",
        predict=lambda params: Prediction(Hypothesis("theory", band, "test")), kind=kind or PowerLaw(),
    )  # fmt: skip


def _fit(estimate=0.3834, low=0.3712, high=0.3941, verdict=CONSISTENT, reason="inside", group=None, **more) -> LawFit:
    law = more.pop("law", None) or _law()
    return LawFit(law=law, prediction=law.predict({}), verdict=Verdict(verdict, reason), estimate=estimate,
                  ci_low=low, ci_high=high, group=group or {"d": 2}, statistic="exponent", **more)  # fmt: skip


def test_a_power_law_headline_says_source_symbols_estimate_interval_band_and_verdict():
    assert headline(_fit()) == (
        "[X24] Theorem 3.4: ‖M‖₂ ∝ n^0.383 [0.371, 0.394], inside the band [0.167, 0.667]: consistent"
    )
    moved = headline(_fit(estimate=0.5123, low=0.45, high=0.9))  # the numbers are the fit's, not typed
    assert "n^0.512 [0.45, 0.9], overlapping the band [0.167, 0.667]" in moved
    widened = headline(_fit(estimate=0.6, low=0.5, high=0.7))  # the verdict's tolerance (0.1 for power laws)
    assert "inside the band [0.167, 0.667] widened by 0.1" in widened
    assert "outside the band" in headline(_fit(estimate=0.9, low=0.8, high=1.0, verdict="inconsistent"))


def test_without_the_measures_symbol_the_headline_names_its_metric():
    assert headline(_fit(law=_law(symbol=""))).split(": ")[1].startswith("M_spectral_norm ∝ n^0.383")


def test_an_outside_headline_gives_the_constant_it_would_need_and_an_inconclusive_one_its_reason():
    outside = _fit(verdict=OUTSIDE, reason="outside the theorem's conditions: every point has m < M1²", c_star=0.125)
    assert headline(outside).endswith(": outside: inside only if the hidden constants were ≤ c* = 0.125")
    no_constant = _fit(verdict=OUTSIDE, reason="outside the theorem's conditions: every point has m < M1²")
    assert headline(no_constant).endswith(": outside: every point has m < M1²")
    hopeless = _fit(estimate=math.nan, verdict=OUTSIDE, reason="outside the theorem's conditions: …", c_star=0.0)
    assert ": ‖M‖₂: no estimate inside the theorem's conditions, " in headline(hopeless)
    assert headline(hopeless).endswith(": outside: no value of the hidden constants brings a point inside (an "
                                       "explicit or measured condition fails)")  # fmt: skip
    unsure = _fit(verdict=INCONCLUSIVE, reason="too few x values (3, needs 4)")
    assert headline(unsure).endswith(": inconclusive: too few x values (3, needs 4)")
    empty = _fit(estimate=math.nan, low=math.nan, high=math.nan, verdict=INCONCLUSIVE, reason="no rows")
    assert headline(empty) == "[X24] Theorem 3.4: ‖M‖₂: no estimate, the band [0.167, 0.667]: inconclusive: no rows"


def test_another_kind_states_its_statistic_and_a_one_sided_prediction():
    law = _law(kind=Trend(), band=Band(0.5, math.inf))
    fit = _fit(law=law, estimate=0.8, low=0.6, high=0.95)
    fit.statistic = "Spearman ρ"
    text = headline(fit)
    assert text == "[X24] Theorem 3.4: Spearman ρ = 0.8 [0.6, 0.95], inside the predicted ≥ 0.5: consistent"


def test_headlines_link_to_their_sections_name_groups_and_fold_a_long_list():
    fits = [_fit(group={"d": d}) for d in range(SHOWN_GROUPS + 2)] + [_fit(law=_law(symbol="T"))]
    fits[-1] = LawFit(**{**fits[-1].__dict__, "law": Law(**{**fits[-1].law.__dict__, "name": "test.other"})})
    page = headlines_html(fits)
    links = re.findall(r'<li[^>]*><a href="#law-(\d+)">([^<]*)</a>', page)
    assert [int(i) for i, _ in links] == list(range(len(fits)))
    assert all(f"(d={i})" in text for i, (_, text) in enumerate(links[:-1]))  # the law has several groups
    assert "(d=" not in links[-1][1] and "T ∝ n^" in links[-1][1]  # one group: none named
    folded = page.split("<details>")[1].split("</details>")[0]
    assert folded.count("<li") == 2 and "2 more groups of test.window" in folded
    assert page.split("<details>")[0].count('<a href="#law-') == SHOWN_GROUPS

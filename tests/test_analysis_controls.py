"""The negative control of every law in the catalogue (iclscale.analysis.controls; issue 21, point 4), run over the
registry of papers as one contract test per law:

- every law, planted at its own prediction, is "consistent" through `Law.evaluate`, and planted clearly wrong is
  "inconsistent" (or the law says why it has no control);
- a control can fail: every law made to demand more x levels than any design has, and every law whose regime is made
  to exclude every planted point, does not pass;
- `iclscale laws` shows each law's control.

A paper's theorem conditions and its laws' controls on its own numbers are tested in its folder
(tests/papers/<paper>/test_<paper>_conditions.py).
"""

from dataclasses import replace

import numpy as np
import pytest

from iclscale.analysis import controls
from iclscale.analysis.laws import LAWS
from iclscale.analysis.verdict import CONSISTENT, INCONSISTENT, OUTSIDE
from iclscale.paper import paper_of_study
from iclscale.papers import BUILT_IN

CONTROLLED = sorted(name for name, law in LAWS.items() if not law.no_control)  # those that say why not are left out
WITH_REGIME = [name for name in CONTROLLED if LAWS[name].regime is not None]


def test_the_controls_cover_every_papers_laws():
    """The tests below run once per law: every built-in paper's laws are there, and some have a regime to exclude
    points."""
    assert set(BUILT_IN) <= {paper_of_study(LAWS[name].study).name for name in CONTROLLED}
    assert WITH_REGIME


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


@pytest.mark.parametrize("name", CONTROLLED)
def test_a_control_fails_where_the_law_cannot_decide(name):
    law = LAWS[name]
    demanding = replace(law, rule=replace(law.rule, min_levels=50))  # more x levels than any design has
    outcome = controls.run(demanding)
    assert outcome.right != CONSISTENT and not outcome.passed


@pytest.mark.parametrize("name", WITH_REGIME)
def test_a_control_fails_where_the_regime_excludes_the_planted_points(name):
    law = LAWS[name]
    nowhere = replace(law, regime=replace(law.regime, inside=lambda rows: np.zeros(len(rows), bool)))
    outcome = controls.run(nowhere)
    assert outcome.right == OUTSIDE and not outcome.passed


@pytest.mark.parametrize("name", sorted(LAWS))
def test_iclscale_laws_shows_each_control(name):
    assert f"control:    {controls.plan(LAWS[name]).describe()}" in LAWS[name].describe()

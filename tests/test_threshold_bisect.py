"""The threshold search's state machine (iclscale.sweeps.bisect) against planted criteria: a monotone criterion
with a known threshold is recovered exactly, the ends are censored, a window is reported as non-monotone."""

import pytest

from iclscale.sweeps.bisect import CENSORED_HIGH, CENSORED_LOW, FOUND, NON_MONOTONE, OPEN, Axis, search_state


def _search(axis: Axis, criterion, hint=None, cap: int = 60):
    """Drive one search to its end: evaluate each proposal with the planted criterion."""
    outcomes = {}
    for _ in range(cap):
        state = search_state(axis, outcomes, hint)
        if state.status != OPEN:
            return state, outcomes
        assert state.proposal not in outcomes, f"proposed {state.proposal} twice"
        outcomes[state.proposal] = criterion(state.proposal)
    raise AssertionError(f"no end after {cap} evaluations: {outcomes}")


def _planted(find: str, t: float):
    return (lambda v: v >= t) if find == "smallest" else (lambda v: v <= t)


@pytest.mark.parametrize("scale", ["linear", "log"])
@pytest.mark.parametrize("find", ["smallest", "largest"])
@pytest.mark.parametrize("check_far_end", [False, True])
def test_a_planted_integer_threshold_is_recovered_exactly_and_ends_are_censored(scale, find, check_far_end):
    axis = Axis(1, 12, 1, scale=scale, integer=True, find=find, check_far_end=check_far_end)
    for t in range(0, 14):
        state, outcomes = _search(axis, _planted(find, t))
        if find == "smallest" and t <= 1:
            assert (state.status, state.value) == (CENSORED_LOW, 1)  # holds at the low end: at or below it
        elif find == "smallest" and t > 12:
            assert (state.status, state.value) == (CENSORED_HIGH, 12)
        elif find == "largest" and t >= 12:
            assert (state.status, state.value) == (CENSORED_HIGH, 12)
        elif find == "largest" and t < 1:
            assert (state.status, state.value) == (CENSORED_LOW, 1)
        else:
            assert (state.status, state.value) == (FOUND, t)
        assert len(outcomes) <= 8  # bisection, not a scan of the 12 values


@pytest.mark.parametrize("scale", ["linear", "log"])
def test_a_float_threshold_lies_in_a_final_bracket_no_wider_than_the_resolution(scale):
    relative = scale == "log"
    axis = Axis(0.01, 10.0, 0.05, relative=relative, scale=scale)
    for t in (0.013, 0.5, 3.3, 9.99):
        state, _ = _search(axis, _planted("smallest", t))
        assert state.status == FOUND and state.lo < t <= state.hi == state.value
        assert (state.hi <= state.lo * 1.05) if relative else (state.hi - state.lo <= 0.05)


@pytest.mark.parametrize("scale", ["linear", "log"])
def test_a_hint_at_the_threshold_finds_it_in_two_evaluations_and_a_wrong_hint_still_finds_it(scale):
    axis = Axis(1, 12, 1, scale=scale, integer=True)
    for t in range(2, 13):
        state, outcomes = _search(axis, _planted("smallest", t), hint=t)
        assert (state.status, state.value, len(outcomes)) == (FOUND, t, 2)
        for hint in (1, 5, 12):
            assert _search(axis, _planted("smallest", t), hint=hint)[0].value == t


@pytest.mark.parametrize("scale", ["linear", "log"])
def test_a_window_is_reported_as_non_monotone_when_the_far_end_is_checked(scale):
    window = lambda v: 3 <= v <= 6  # noqa: E731 - the planted non-monotone criterion (an l_ts window)
    state, outcomes = _search(Axis(1, 12, 1, scale=scale, integer=True, check_far_end=True), window)
    assert state.status == NON_MONOTONE and state.value == 3
    assert state.evidence == "holds at 3 but fails at 12" and outcomes[12] is False
    # without the far end's check bisection cannot see it: the price of check_far_end: false
    assert _search(Axis(1, 12, 1, scale=scale, integer=True), window)[0].status == FOUND


def test_outcomes_stored_by_anyone_count_and_contradicting_ones_stop_the_search():
    axis = Axis(1, 12, 1, integer=True)
    grid = {v: v >= 5 for v in range(1, 13)}  # a dense grid already stored
    assert search_state(axis, grid).status == FOUND and search_state(axis, grid).value == 5
    state = search_state(axis, {4: False, 5: True, 9: False})
    assert state.status == NON_MONOTONE and state.evidence == "holds at 5 but fails at 9"


@pytest.mark.parametrize("find", ["smallest", "largest"])
def test_the_unchecked_spans_are_the_gaps_between_evaluated_values_on_each_side_of_the_threshold(find):
    from types import SimpleNamespace

    from iclscale.sweeps.threshold_table import unchecked

    axis = Axis(0.01, 10.0, 0.05, relative=True, scale="log", find=find)
    state, outcomes = _search(axis, _planted(find, 0.5))
    sweep = SimpleNamespace(threshold=SimpleNamespace(low=0.01, high=10.0, integer=False, find=find))
    past, before = unchecked(sweep, state, past=True), unchecked(sweep, state)
    values = sorted(outcomes)
    gaps = [(a, b) for a, b in zip([0.01, *values], [*values, 10.0], strict=True) if a < b]
    bracket = tuple(sorted((state.lo, state.hi)))
    assert sorted((a, b) for a, b, _, _ in past + before) == [g for g in gaps if g != bracket]
    beyond = (lambda a, b: a >= state.value) if find == "smallest" else (lambda a, b: b <= state.value)
    assert past and all(beyond(a, b) for a, b, _, _ in past) and not any(beyond(a, b) for a, b, _, _ in before)
    far_end = 10.0 if find == "smallest" else 0.01
    assert any(far_end in (a, b) and (a_in if far_end == a else b_in) for a, b, a_in, b_in in past)  # not evaluated

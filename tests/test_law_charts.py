"""Every kind of law chart marks a censored point the same way: a triangle at its bound with the legend entry
"not reached by the end of the run (lower bound)", and a count in the caption (read off the Vega-Lite spec)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from iclscale.analysis import censored_marks, law_charts
from iclscale.analysis.kinds import (
    Bound,
    Comparison,
    DiagonalMinimum,
    EarlierOnset,
    FlatRegion,
    Linear,
    PowerLaw,
    Threshold,
    Trend,
)
from iclscale.analysis.law import Hypothesis, Law, Prediction
from iclscale.analysis.lawfit import LawFit
from iclscale.analysis.measures import FinalValue
from iclscale.analysis.verdict import INCONCLUSIVE, Band, Verdict

X = [1.0, 2.0, 4.0, 8.0]
SEEDS = [0, 1, 2]


def _points(censored_at: float = 8.0, left: bool = False, **extra) -> pd.DataFrame:
    """Three seeds at each x, y = 1/x; seed 0 at the largest x censored at its bound."""
    rows = [{"x": x, "seed": s, "value": 1.0 / x * (1 + 0.05 * s), **extra} for x in X for s in SEEDS]
    table = pd.DataFrame(rows)
    censored = (table["x"] == censored_at) & (table["seed"] == 0)
    return table.assign(censored=censored, left_censored=censored & left)


def _law(kind, x: str | None = "n") -> Law:
    def predict(params):
        return Prediction(Hypothesis("theory", Band(-1.0, -1.0), "test"))

    return Law(
        name=f"test.{kind.name.replace(' ', '_')}",
        study="test",
        claim="a claim",
        citation="nowhere",
        conditions="none",
        prediction_text="-1",
        measure=FinalValue("test_error"),
        x=x,
        predict=predict,
        kind=kind,
    )


def _fit(kind, points: pd.DataFrame, **details) -> LawFit:
    law = _law(kind)
    return LawFit(
        law=law,
        points=points,
        prediction=law.predict({}),
        verdict=Verdict(INCONCLUSIVE, "a test"),
        details=details,
        estimate=0.5,
        ci_low=0.1,
        ci_high=0.9,
    )


def _levels(points: pd.DataFrame) -> pd.DataFrame:
    stats = points.groupby("x")["value"].agg(["mean", "std", "count"]).reset_index()
    return pd.DataFrame(
        {
            "x": stats["x"],
            "seeds": stats["count"],
            "mean": stats["mean"],
            "low": stats["mean"] - stats["std"],
            "high": stats["mean"] + stats["std"],
            "side": "> ε",
            "expected": "> ε",
            "claimed": True,
        }
    )


def _grid() -> pd.DataFrame:
    """Pretraining value (row) × test value (x), three seeds a cell, the error least on the diagonal; seed 0 of
    the cell (8, 8) censored at its bound."""
    rows = [
        {"row": r, "x": x, "seed": s, "value": (1 + abs(np.log2(r / x))) * (1 + 0.05 * s)}
        for r in X
        for x in X
        for s in SEEDS
    ]
    table = pd.DataFrame(rows)
    censored = (table["row"] == 8.0) & (table["x"] == 8.0) & (table["seed"] == 0)
    return table.assign(censored=censored, left_censored=False)


def _fits() -> dict[str, LawFit]:
    plain = _points()
    compared = pd.concat([_points(setting="softmax"), _points(censored_at=0.0, setting="linear")], ignore_index=True)
    compared = compared.rename(columns={"setting": "attention"})
    variants = pd.concat([_points(R="random"), _points(censored_at=0.0, R="magnitude")], ignore_index=True)
    return {
        "power law": _fit(PowerLaw(), plain),
        "bound": _fit(Bound(), plain),
        "trend": _fit(Trend(), plain),
        "linear": _fit(Linear(), plain, slope=-0.1, intercept=1.0),
        "threshold": _fit(Threshold(threshold=0.2), plain, threshold=0.2, levels=_levels(plain)),
        "comparison": _fit(
            Comparison(param="attention", subject="softmax"), compared, param="attention", subject="softmax"
        ),
        "flat region": _fit(FlatRegion(), plain, edge=2.0, onset=4.0),
        "diagonal minimum": _fit(DiagonalMinimum(row_axis="L"), _grid()),
        "earlier onset": _fit(
            EarlierOnset(param="R", first="magnitude", second="random"),
            variants,
            onsets={"random": 4.0, "magnitude": 2.0},
        ),
    }


def _marks(spec) -> list[dict]:
    """Every layer of the spec with its data rows (inline datasets resolved)."""
    datasets = spec.get("datasets", {})
    found = []

    def walk(node, inherited=None):  # a nested layer's data may sit on its parent
        if isinstance(node, dict):
            name = (node.get("data") or {}).get("name") or inherited
            if "mark" in node:
                found.append({**node, "rows": datasets.get(name, [])})
            for key, value in node.items():
                if key != "datasets":  # rows, not layers
                    walk(value, name)
        elif isinstance(node, list):
            for value in node:
                walk(value, inherited)

    walk(spec)
    return found


def _censored_layers(spec) -> list[dict]:
    """Layers that draw a triangle for a point labelled "not reached by the end of the run (lower bound)"."""
    out = []
    for layer in _marks(spec):
        shape = (layer.get("encoding") or {}).get("shape") or {}
        domain = (shape.get("scale") or {}).get("domain") or []
        if censored_marks.ABOVE in domain:
            shapes = dict(zip(domain, shape["scale"]["range"], strict=True))
            assert shapes[censored_marks.ABOVE] == "triangle-up"
            assert shape.get("legend") is not None or layer["encoding"].get("color", {}).get("legend") is not None
            out.append(layer)
    return out


@pytest.mark.parametrize("kind", list(_fits()))
def test_a_censored_point_is_marked_with_its_legend_entry_and_counted_in_the_caption(kind):
    fit = _fits()[kind]
    spec = law_charts.law_chart(fit).to_dict()
    layers = _censored_layers(spec)
    assert layers, f"{kind}: no layer marks the censored point"
    labelled = [row for layer in layers for row in layer["rows"] if censored_marks.ABOVE in json.dumps(row)]
    assert len(labelled) == int(fit.points["censored"].sum())
    assert {row.get("x") for row in labelled} <= set(fit.points.loc[fit.points["censored"], "x"])
    text = json.dumps(spec, ensure_ascii=False)
    assert f"{int(fit.points['censored'].sum())} of {len(fit.points)} points censored" in text
    assert censored_marks.ABOVE in text


def test_a_left_censored_point_points_down_and_says_it_is_an_upper_bound():
    fit = _fit(Bound(), _points(left=True))
    spec = law_charts.law_chart(fit).to_dict()
    shapes = [
        dict(zip(s["scale"]["domain"], s["scale"]["range"], strict=True))
        for layer in _marks(spec)
        if (s := (layer.get("encoding") or {}).get("shape")) and "scale" in s
    ]
    assert {censored_marks.BELOW: "triangle-down"} in shapes
    assert "1 ▼ reached already at the first value (upper bound)" in json.dumps(spec, ensure_ascii=False)


def test_without_censored_points_there_is_no_mark_and_no_count():
    fit = _fit(Trend(), _points().assign(censored=False, left_censored=False))
    spec = law_charts.law_chart(fit).to_dict()
    assert not _censored_layers(spec)
    assert "points censored" not in json.dumps(spec, ensure_ascii=False)


def test_the_kinds_hand_their_censored_points_to_the_chart_but_not_to_the_statistic():
    from iclscale.analysis.select import Group

    rows = _points().rename(columns={"x": "n"}).assign(stratum=0)
    group = Group(key={}, params={}, rows=rows, outside=rows.iloc[:0], n_not_ok=0, paired=True)
    for kind in (Bound(), Trend(), Linear(), Threshold(threshold=0.2)):
        law = _law(kind)
        estimate = kind.estimate(law, group, law.predict({}), None, {})
        assert int(estimate.points["censored"].sum()) == 1, kind.name
        assert estimate.n_points == len(rows) - 1, kind.name  # the statistic reads the measured points only
        assert np.allclose(np.sort(estimate.points["x"].unique()), X)


@pytest.fixture(scope="module")
def threshold_search(tmp_path_factory):
    """A threshold search shrunk to seconds: two α, one seed, 40 steps (every search ends censored at l_tr = 12)."""
    from iclscale.cli import main

    store = tmp_path_factory.mktemp("threshold") / "store"
    overrides = ["seeds=1", "steps=40", "alpha=[0.4,0.8]", "eval.eval_prompts=64", "record_every=20"]
    name = "nonlinear_icl_law_l_tr_vs_alpha_searched"
    assert main(["sweep", "run", name, *overrides, "--executor", "inline", "--out", str(store), "--quiet"]) == 0
    return store


def test_a_threshold_search_draws_its_epsilon_on_the_searched_metric_and_marks_its_censored_thresholds(
    threshold_search,
):
    from iclscale.analysis import sweep_charts
    from iclscale.analysis.reader import load_results
    from iclscale.analysis.report import fit_sweep_laws
    from iclscale.papers.nonlinear_icl.laws.common import EPSILON  # the law's ε, which the search's level matches

    results = load_results(str(threshold_search))
    fits = fit_sweep_laws(results)
    thresholds = {fit.law.measure.metric: fit.law.measure.threshold for fit in fits}
    assert thresholds == {"test_error": EPSILON}
    for title, chart in (
        *sweep_charts.training_curve_charts(results, thresholds),
        *sweep_charts.probe_charts(results, thresholds),
    ):
        if title in ("curve test_error", "probe test_error"):
            spec = chart.to_dict()
            rules = [m for m in _marks(spec) if m["mark"] == "rule" or m["mark"].get("type") == "rule"]
            assert any(m["encoding"]["y"]["field"] == "epsilon" for m in rules), title
            assert {row["epsilon"] for row in next(iter(spec["datasets"].values()))} == {EPSILON}
            assert f"ε = {EPSILON:g}" in json.dumps(spec["title"], ensure_ascii=False)
    probes = [title for title, _ in sweep_charts.probe_charts(results, thresholds)]
    assert probes[0] == "probe test_error"  # the searched metric first, never cut off
    spec = law_charts.law_chart(fits[0]).to_dict()
    assert _censored_layers(spec)
    assert "2 of 2 points censored" in json.dumps(spec, ensure_ascii=False)


@pytest.mark.parametrize("kind", list(_fits()))
def test_a_law_with_no_finite_point_still_renders(kind):
    """A group whose every run failed to reach its threshold (NaN values, nothing censored) has nothing to draw:
    an empty legend scale made the PNG conversion fail ("SVG has an invalid size") and the whole report with it."""
    import vl_convert

    fit = _fits()[kind]
    empty = fit.points.assign(value=np.nan, censored=False, left_censored=False)
    fit = LawFit(**{**fit.__dict__, "points": empty})
    spec = law_charts.law_chart(fit).to_dict()
    assert vl_convert.vegalite_to_png(spec)[:4] == b"\x89PNG"


def test_the_caption_says_what_is_drawn_the_fit_the_band_and_the_points_outside():
    outside = _points().assign(censored=False, left_censored=False).iloc[:4]
    fit = _fits()["power law"]
    counts = {"n_points": 11, "n_levels": 4, "n_censored": 1, "n_outside": 4, "n_excluded": 5}
    more = {"outside_points": outside, "binding": "m ≥ M1²", "interval_method": "OLS t-interval (t, df)"}
    fit = LawFit(**{**fit.__dict__, **counts, **more})
    text = law_charts.caption(fit)
    assert text.startswith("final test_error against n, on log–log axes")
    assert "Solid line: the fitted exponent 0.5 [0.1, 0.9] (OLS t-interval)." in text
    assert "The theory's exponent -1 (test), dashed: its exponent" in text
    assert "11 points at 4 x values fitted, 1 censored (triangles at their bound)." in text
    assert (
        "4 points outside the theorem's conditions, drawn hollow and grey, not fitted; binding condition: m ≥ M1²."
        in text
    )
    assert "1 runs not ok (diverged or failed) left out." in text
    bound = law_charts.caption(_fits()["bound"])
    assert "black: the mean over seeds ± 1 s.d. at each x" in bound and "Dashed: the prediction -1 (test)." in bound
    assert "outside the theorem's conditions" not in bound


@pytest.mark.parametrize("kind", ["power law", "bound", "trend", "linear", "comparison", "earlier onset"])
def test_the_y_axis_names_the_measured_quantity_by_the_papers_symbol(kind):
    fit = _fits()[kind]
    law = Law(**{**fit.law.__dict__, "measure": FinalValue("test_error", symbol="ε_test")})
    spec = law_charts.law_chart(LawFit(**{**fit.__dict__, "law": law})).to_dict()
    titles = {
        str(layer["encoding"]["y"].get("title"))
        for layer in _marks(spec)
        if "title" in layer.get("encoding", {}).get("y", {})
    }
    assert any(t.startswith("ε_test") for t in titles), titles


LEGEND_CHANNELS = ("color", "fill", "stroke", "shape")


def _panels(spec) -> list[dict]:
    """The chart's panels: the vconcat's parts (a power law's data, residuals and local exponents), else itself."""
    return [{**panel, "datasets": spec.get("datasets", {})} for panel in spec.get("vconcat") or [spec]]


def _legend_labels(channel: dict, rows: list[dict]) -> set[str]:
    domain = (channel.get("scale") or {}).get("domain")
    return set(domain) if domain else {str(row.get(channel["field"])) for row in rows}


def _with_outside(kind: str) -> LawFit:
    """The kind's planted fit with three seeds outside the theorem's conditions at x = 16 (beyond the fitted x)."""
    fit = _fits()[kind]
    extra = {"attention": "softmax"} if kind == "comparison" else {"R": "random"} if kind == "earlier onset" else {}
    outside = pd.DataFrame([{"x": 16.0, "seed": s, "value": 0.05 * (1 + 0.1 * s), **extra} for s in SEEDS])
    outside = outside.assign(censored=False, left_censored=False)
    return LawFit(**{**fit.__dict__, "outside_points": outside, "n_outside": 3, "n_excluded": 3})


@pytest.mark.parametrize("kind", list(_fits()))
def test_every_mark_drawn_on_a_panel_is_named_in_that_panels_legend(kind):
    """Each layer (but a text label) carries a channel with a legend, and a keyed layer's own label is among that
    legend's entries: nothing is drawn that the legend does not name (fit line, band, seeds, means, censored and
    outside points, predicted edges, residuals, local exponents)."""
    fit = _with_outside(kind) if kind != "diagonal minimum" else _fits()[kind]
    spec = law_charts.law_chart(fit).to_dict()
    for panel in _panels(spec):
        layers = [layer for layer in _marks(panel) if (layer["mark"] if isinstance(layer["mark"], str)
                                                        else layer["mark"]["type"]) != "text"]  # fmt: skip
        assert layers
        for layer in layers:
            encoding = layer.get("encoding") or {}
            shown = [encoding[c] for c in LEGEND_CHANNELS if "field" in encoding.get(c, {})
                     and encoding[c].get("legend", {}) is not None]  # fmt: skip
            assert shown, f"{kind}: a {layer['mark']} layer has no legend entry: {encoding}"
            for step in layer.get("transform", []):
                if step.get("as") == "key":  # a constant label: it must be an entry of the legend
                    label = json.loads(step["calculate"])
                    assert any(label in _legend_labels(c, layer["rows"]) for c in shown), (kind, label)


@pytest.mark.parametrize("kind", [k for k in _fits() if k != "diagonal minimum"])
def test_points_outside_the_theorems_conditions_are_drawn_hollow_with_their_legend_entry(kind):
    fit = _with_outside(kind)
    spec = law_charts.law_chart(fit).to_dict()
    main = _panels(spec)[0]
    drawn = [layer for layer in _marks(main) if any(row.get("x") == 16.0 for row in layer["rows"])]
    assert drawn, f"{kind}: the points outside the conditions are not drawn"
    text = json.dumps(main, ensure_ascii=False)
    assert "outside the theorem's conditions" in text
    for layer in drawn:
        mark = layer["mark"] if isinstance(layer["mark"], dict) else {"type": layer["mark"]}
        fill = layer.get("encoding", {}).get("fill", {}).get("scale", {})
        fills = dict(zip(fill.get("domain", []), fill.get("range", []), strict=True))
        hollow = mark.get("filled") is False or fills.get("outside the theorem's conditions (not fitted)") == "white"
        assert hollow, (kind, mark)
    plain = _fits()[kind]
    assert "outside the theorem's conditions" not in json.dumps(law_charts.law_chart(plain).to_dict())

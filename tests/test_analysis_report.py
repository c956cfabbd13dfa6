"""`iclscale report` end to end: the demo sweep (shrunk) run inline into a tmp dir, then its report:
index.html, fits.csv, PNGs, no torch in the report's process, and rendering in headless Chromium."""

import csv
import html
import importlib.util
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from small_demo import train_small_demo

from iclscale.analysis.reader import load_results
from iclscale.analysis.report import FITS_COLUMNS, fit_sweep_laws
from iclscale.cli import main

ROOT = Path(__file__).resolve().parents[1]
CHECK_SCRIPT = ROOT / "scripts" / "check_report_in_chromium.py"

# Renders the report through the console script's main() in a fresh process, then lists any
# forbidden module that got imported on the way.
REPORT_WITHOUT_TORCH = """
import json, sys
from iclscale.cli import main
status = main(["report", sys.argv[1]])
print(json.dumps({"status": status, "imported": [m for m in ("torch", "ray") if m in sys.modules]}))
"""


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    """the demo sweep with fewer steps, grid values and seeds (same study, fixed params and laws)."""
    folder = tmp_path_factory.mktemp("demo")
    return train_small_demo(folder, folder / "store")


@pytest.fixture(scope="module")
def demo_report(demo_store):
    """The report, rendered in a subprocess that must not import torch or ray."""
    done = subprocess.run(
        [sys.executable, "-c", REPORT_WITHOUT_TORCH, str(demo_store)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    return demo_store / "report", outcome


def test_report_process_never_imports_torch_or_ray(demo_report):
    _, outcome = demo_report
    assert outcome["status"] == 0
    assert outcome["imported"] == []


def test_report_writes_index_fits_and_every_png(demo_report):
    out, _ = demo_report
    page = (out / "index.html").read_text()
    with open(out / "fits.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
        header = list(rows[0].keys()) if rows else []
    assert tuple(header[: len(FITS_COLUMNS)]) == FITS_COLUMNS
    (row,) = [r for r in rows if r["law"] == "softmax_window.M_norm_vs_Lambda"]  # demo.yaml's law
    assert row["x"] == "Lambda" and row["y"] == "M_spectral_norm"
    assert float(row["theory_low"]) == pytest.approx(1 / 6) and float(row["theory_high"]) == pytest.approx(2 / 3)
    # 40 steps are too few for ‖M‖ to have settled (Thm 3.4's measured condition): every point lies outside, and the
    # reason still gives the exponent all 12 points follow
    assert int(row["n_inside_conditions"]) + int(row["n_outside_conditions"]) == 12
    if row["verdict"] == "outside":
        assert "M_spectral_norm settled" in row["reason"] and re.search(r"exponent 0\.\d+ \[", row["reason"])
    else:
        assert float(row["ci_low"]) <= float(row["exponent"]) <= float(row["ci_high"])
        assert row["verdict"] in ("consistent", "inconsistent", "inconclusive")

    charts = re.findall(r'<div id="chart-\d+">', page)
    pngs = re.findall(r'href="(charts/[^"]+\.png)"', page)
    assert len(charts) == len(pngs) >= 5  # the law, training curves and probes
    for png in pngs:
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in (out / "charts").glob("*.png")) == sorted(Path(p).name for p in pngs)
    # offline: the Vega libraries are inline, nothing is loaded from elsewhere
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"(https?:)?//", page)
    assert "vegaEmbed(" in page
    assert re.search(r'<td class="(consistent|inconsistent|inconclusive|outside)"', page)  # the verdict, highlighted


def test_the_report_opens_with_one_headline_per_law_made_from_its_fits_row(demo_report):
    """Right after the title, before anything else about the laws: a sentence per fit whose estimate, interval and
    band are the fits.csv row's, whose verdict is the row's, and which links to the law's section."""
    out, _ = demo_report
    page = (out / "index.html").read_text()
    after_title = page.split("</h1>", 1)[1].lstrip()
    assert after_title.startswith('<section id="headlines"'), after_title[:200]
    block = after_title.split("</section>", 1)[0]
    with open(out / "fits.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    lines = re.findall(
        r'<li class="[^"]*" data-law="([^"]+)" data-group="([^"]*)"><a href="#law-(\d+)">([^<]+)</a>', block
    )
    assert len(lines) == len(rows) >= 1
    for law, group, index, text in lines:
        text = html.unescape(text)
        (row,) = [r for r in rows if r["law"] == law and r["group"] == html.unescape(group)]
        columns = ["theory_low", "theory_high"]
        pattern = r"the band \[(\S+), (\S+)\]"
        if row["exponent"] and math.isfinite(float(row["exponent"])):
            columns[:0], pattern = ["exponent", "ci_low", "ci_high"], r"\^(\S+) \[(\S+), (\S+)\], \w+ " + pattern
        else:  # 40 steps: every point outside (see above)
            assert "no estimate inside the theorem's conditions" in text
        numbers = re.search(pattern, text)
        assert numbers, text
        for found, column in zip(numbers.groups(), columns, strict=True):
            assert float(found) == pytest.approx(float(row[column]), rel=5e-3, abs=1e-12), (column, text)
        verdict = "outside" if row["verdict"] == "outside" else row["verdict"]
        assert re.search(rf"\]: {verdict}(:|$)", text), text
        if row["verdict"] in ("outside", "inconclusive"):
            assert text.split(f": {verdict}: ", 1)[1]  # with its short reason
        section = re.search(rf'<h3 id="law-{index}">([^<]+)', page)
        assert section and law in html.unescape(section.group(1))
        assert text.startswith("C1, Thm 3.4: ‖M‖₂")  # the claim's source, the paper's symbol


def test_each_law_section_shows_its_figure_then_the_caption_then_the_details(demo_report):
    """As in a paper: the chart first, a caption under it counting the points fitted and those outside the theorem's
    conditions (the fits.csv row's numbers), then the verdict's evidence."""
    out, _ = demo_report
    page = (out / "index.html").read_text()
    with open(out / "fits.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    sections = re.split(r'(?=<h3 id="law-\d+">)', page.split('<h2 id="laws">', 1)[1])[1:]
    assert len(sections) == len(rows)
    for section, row in zip(sections, rows, strict=True):
        section = section.split("<h2", 1)[0].split("<h3", 2)
        section = "<h3" + section[1]
        order = [section.find(tag) for tag in ('<figure class="law-figure">', '<div id="chart-', "<figcaption>",
                                               "</figcaption></figure>", "<details")]  # fmt: skip
        assert -1 not in order and order == sorted(order), order
        figcaption = html.unescape(section.split("<figcaption>", 1)[1].split("</figcaption>", 1)[0])
        assert f"{row['n_points']} points at {row['n_levels']} x values fitted" in figcaption
        outside = int(row["n_outside_conditions"])
        if outside:
            assert f"{outside} points outside the theorem's conditions, drawn hollow and grey" in figcaption
        assert figcaption.startswith("‖M‖₂ — final M_spectral_norm against Λ")  # the paper's symbols


def test_a_report_without_pngs_draws_the_same_charts_and_the_same_fits(demo_store, demo_report, tmp_path):
    from iclscale.analysis.report import write_report

    out, _ = demo_report
    report = write_report(str(demo_store), str(tmp_path / "preview"), png=False)
    page = report.index.read_text()
    assert not list((tmp_path / "preview" / "charts").glob("*.png")) and report.charts == []
    assert "PNG</a>" not in page and '"export": true' in page  # each chart's menu saves it instead
    assert len(re.findall(r'<div id="chart-\d+">', page)) == len(
        re.findall(r'<div id="chart-\d+">', (out / "index.html").read_text())
    )
    assert report.fits_csv.read_text() == (out / "fits.csv").read_text()


def test_report_of_a_missing_or_empty_directory_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "does not exist" in error and "Traceback" not in error
    assert main(["report", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "holds no runs" in error


def test_report_cli_in_a_subprocess_exits_2_for_a_missing_directory(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "iclscale.cli", "report", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert done.stderr.strip().startswith("iclscale: error:") and len(done.stderr.strip().splitlines()) == 1


def test_report_fits_the_named_laws_or_else_every_law_with_data(demo_store):
    """demo.yaml names only M_norm_vs_Lambda; with no laws named, every softmax_window law whose data
    are present is fitted (here also the error-vs-n law, the σ trend and the isotropy of M; no linear
    attention, transfer grid, L or n trend, or ρ)."""
    results = load_results(str(demo_store))
    assert {f.law.name for f in fit_sweep_laws(results)} == {"softmax_window.M_norm_vs_Lambda"}
    results.sweep["laws"] = []
    assert {f.law.name for f in fit_sweep_laws(results)} == {
        "softmax_window.M_norm_vs_Lambda",
        "softmax_window.softmax_error_decreases_in_n",
        "softmax_window.M_norm_falls_with_sigma",
        "softmax_window.M_isotropy",
    }


@pytest.mark.skipif(
    not any(shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")),
    reason="Chromium is not installed (apt-get install -y chromium); the headless render check needs it",
)
def test_report_renders_in_headless_chromium_offline_without_console_errors(demo_report):
    out, _ = demo_report
    spec = importlib.util.spec_from_file_location("check_report_in_chromium", CHECK_SCRIPT)
    checker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checker)
    seen = checker.check_report(out, timeout=90)
    assert seen["errors"] == [] and seen["network"] == []
    assert seen["charts"] and all(chart["drawn"] for chart in seen["charts"]), seen["charts"]
    assert seen["passed"]


def test_a_named_law_without_data_gets_an_inconclusive_row(demo_store, tmp_path):
    results = load_results(str(demo_store))
    results.sweep["laws"] = ["softmax_window.M_norm_vs_Lambda", "softmax_window.linear_floor"]
    fits = fit_sweep_laws(results)
    (floor,) = [f for f in fits if f.law.name == "softmax_window.linear_floor"]
    assert floor.verdict.verdict == "inconclusive" and "no softmax_window rows" in floor.verdict.reason
    assert math.isnan(floor.row()["exponent"]) and floor.row()["n_points"] == 0


def test_sweep_cases_become_one_facet_axis_in_the_sweeps_order():
    import pandas as pd

    from iclscale.analysis.reader import Results
    from iclscale.analysis.sweep_charts import CASE, with_case_axis

    cases = [{"d": 2, "n": 1000}, {"d": 3, "n": 300}, {"d": 10, "n": 50}]
    table = pd.DataFrame([{**c, "sigma": s} for c in reversed(cases) for s in (0.1, 0.2)])
    results = Results("x", {"cases": cases, "grid": {"sigma": [0.1, 0.2]}}, table, None)
    labelled, axes = with_case_axis(results, table, ["d", "n", "sigma"])
    assert axes == ["sigma", CASE]
    assert sorted(labelled[CASE].unique()) == ["1: d=2, n=1000", "2: d=3, n=300", "3: d=10, n=50"]


def test_a_law_without_an_x_wholly_outside_its_conditions_is_in_the_report_as_outside():
    """A bound on one number per group (no x) whose every point lies outside the theorem's conditions: its
    points' x is NaN. It must be shown `outside`, not dropped (the ledger then said "not run")."""
    import numpy as np
    import pandas as pd

    from iclscale.analysis.kinds import Bound
    from iclscale.analysis.law import Hypothesis, Law, Prediction
    from iclscale.analysis.lawfit import LawFit
    from iclscale.analysis.measures import FinalValue
    from iclscale.analysis.report import _has_data
    from iclscale.analysis.verdict import OUTSIDE, Band, Verdict, VerdictRule

    def law(x):
        return Law(name="test.bound", study="test", claim="c", citation="nowhere", conditions="none",
                   prediction_text="≤ 1", measure=FinalValue("loss"), x=x, kind=Bound(aggregate="mean"),
                   predict=lambda params: Prediction(Hypothesis("theory", Band(0.0, 1.0), "test")),
                   rule=VerdictRule(min_levels=1, min_points=3))  # fmt: skip

    outside = pd.DataFrame({"x": [np.nan] * 3, "value": [0.5, 0.6, 0.7], "seed": [0, 1, 2]})
    fit = LawFit(law=law(None), verdict=Verdict(OUTSIDE, "outside"), n_outside=3, outside_points=outside)
    assert _has_data(fit)
    with_x = LawFit(law=law("n"), verdict=Verdict(OUTSIDE, "outside"), n_outside=3, outside_points=outside)
    assert not _has_data(with_x)  # a law with an x needs real x values to be shown
    counted_only = LawFit(law=law(None), verdict=Verdict(OUTSIDE, "outside"), n_outside=3)  # no point table
    assert _has_data(counted_only)


def test_a_tuning_search_that_names_no_laws_fits_none(demo_store):
    """A search's trials are picked by its objective at one setting, so with no `laws:` they are not judged; a
    search that names a law still has it fitted."""
    results = load_results(str(demo_store))
    results.sweep["laws"] = []
    assert fit_sweep_laws(results)  # a grid with no laws named: every law with data
    results.sweep["search"] = {"metric": "test_error", "mode": "min", "params": {}, "trials": 1}
    assert fit_sweep_laws(results) == []
    results.sweep["laws"] = ["softmax_window.M_norm_vs_Lambda"]
    assert {f.law.name for f in fit_sweep_laws(results)} == {"softmax_window.M_norm_vs_Lambda"}

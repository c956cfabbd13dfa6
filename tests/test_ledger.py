"""The claims ledger (iclscale.analysis.ledger) on a real store: the README's demo sweep trained inline into a
results root
(~20 s), then `iclscale ledger`; and its verdict rule and history on planted fits."""

import csv
import dataclasses
import html
import json
import re
from pathlib import Path

import pytest

from iclscale.analysis import ledger, ledger_files, ledger_page, ledger_reports
from iclscale.analysis.ledger import (
    CONSISTENT,
    INCONCLUSIVE,
    INCONSISTENT,
    NO_LAW,
    NOT_RUN,
    OUTSIDE,
    claim_verdict,
)
from iclscale.analysis.ledger_reports import SweepResult
from iclscale.cli import main
from iclscale.paper import by_citation as papers
from iclscale.paper import find_sweep

ROOT = Path(__file__).resolve().parents[1]
N_CLAIMS = sum(len(p.load_laws().claims) for p in papers())


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory):
    """A results root holding one sweep: the demo sweep shrunk to one pack (n = 50, 2 seeds, 300 steps), inline."""
    root = tmp_path_factory.mktemp("root")
    code = main(["sweep", "run", "demo", "--out", str(root / "demo"), "--executor", "inline",
                 "--quiet", "seeds=2", "n=50", "steps=300", "pack_size=12"])  # fmt: skip
    assert code == 0
    return root


@pytest.fixture(scope="module")
def demo_ledger(demo_root):
    out = demo_root / "ledger"
    assert main(["ledger", str(demo_root), "--out", str(out)]) == 0
    return out, json.loads((out / "claims.json").read_text(encoding="utf-8"))


def test_every_claim_of_every_paper_is_in_the_ledger_once(demo_ledger):
    _, data = demo_ledger
    keys = [(c["paper_tag"], c["claim_id"]) for c in data["claims"]]
    assert len(keys) == len(set(keys)) == N_CLAIMS
    for paper in data["papers"]:
        assert sum(paper["counts"].values()) == sum(c["paper"] == paper["paper"] for c in data["claims"])


def test_the_run_claim_carries_its_fits_and_provenance(demo_root, demo_ledger):
    out, data = demo_ledger
    (claim,) = [c for c in data["claims"] if c["paper_tag"] == "C24" and c["claim_id"] == "C1"]
    with open(demo_root / "demo/report/fits.csv", newline="", encoding="utf-8") as stream:
        rows = [r for r in csv.DictReader(stream) if r["law"] == "softmax_window.M_norm_vs_Lambda"]
    assert rows, "the ledger wrote the demo's report (it had none) and its fits.csv holds the law"
    assert claim["verdict"] == claim_verdict([r["verdict"] for r in rows])
    assert [e["verdict"] for e in claim["estimates"]] == [r["verdict"] for r in rows]
    assert claim["budget"] == "custom"  # n=50 narrows the demo file's grid (not only fewer seeds: not "quick")
    assert claim["seeds"] == [0, 1] and claim["configs"] == 12  # 6 grid points × 2 seeds
    assert claim["root"] == str(demo_root.resolve()) and len(claim["git_commits"]) == 1
    assert claim["runs_finished"]["last"] and claim["quote"]
    report, section = claim["estimates"][0]["report"].split("#")
    assert (out / report).resolve() == (demo_root / "demo/report/index.html").resolve()
    assert f'id="{section}"' in (out / report).read_text(encoding="utf-8")
    assert claim["command"].startswith("iclscale sweep run demo --out ") and " seeds=2 n=50" in claim["command"]


def test_a_claim_carries_c_star_its_controls_and_the_paper_its_sensitivity(demo_root, demo_ledger):
    """c* flows from the report's fits to the claim (the best of its fits), every claim names its laws' negative
    controls with their outcome, and each paper counts its claims inside at each value of the hidden constants."""
    _, data = demo_ledger
    (claim,) = [c for c in data["claims"] if c["paper_tag"] == "C24" and c["claim_id"] == "C1"]
    with open(demo_root / "demo/report/fits.csv", newline="", encoding="utf-8") as stream:
        constants = [
            float(r["c_star"]) for r in csv.DictReader(stream) if r["law"] == "softmax_window.M_norm_vs_Lambda"
        ]
    best = max(constants)
    assert claim["c_star"] == ("inf" if best == float("inf") else pytest.approx(best))
    c24 = next(p for p in data["papers"] if p["tag"] == "C24")
    inside = {key: int(best >= float(key)) for key in ("10", "1", "0.1", "0.01", "0.001")}
    assert c24["sensitivity"] == inside  # the one claim run; the others have no c*
    for c in data["claims"]:
        if c["laws"]:
            assert len(c["negative_control"]) == len(c["laws"]), c["claim_id"]
    assert any("passed (right → consistent" in text for c in data["claims"] for text in c["negative_control"])


def test_counts_and_not_run_claims_carry_the_command(demo_root, demo_ledger):
    _, data = demo_ledger
    c24 = next(p for p in data["papers"] if p["tag"] == "C24")
    run = [c for c in data["claims"] if c["paper_tag"] == "C24" and c["verdict"] != NOT_RUN]
    assert [c["claim_id"] for c in run] == ["C1"]  # the demo fits one law, of claim C1
    assert c24["counts"][NOT_RUN] == 14 and c24["counts"][run[0]["verdict"]] == 1
    not_run = [c for c in data["claims"] if c["verdict"] == NOT_RUN]
    assert len(not_run) == N_CLAIMS - 1 - sum(c["verdict"] == NO_LAW for c in data["claims"])
    for claim in not_run:
        assert claim["estimates"] == [] and claim["root"] == "" and claim["budget"] == ""
        assert claim["command"].startswith("iclscale sweep run "), claim["claim_id"]
        assert find_sweep(claim["command"].split()[3]).exists()  # a catalogue sweep, run by name
        assert f"--out {demo_root.resolve()}/" in claim["command"]
    lawless = [c for c in data["claims"] if c["verdict"] == NO_LAW]
    from iclscale.analysis.catalogue import PAPERS

    without_law = {claim.label for _, package in PAPERS.values() for claim in package.claims if not claim.laws}
    assert {c["claim_id"] for c in lawless} == without_law  # every claim without a law, and only those


def test_the_report_is_rewritten_only_when_the_store_changed(demo_root, demo_ledger):
    out, _ = demo_ledger
    fits = demo_root / "demo/report/fits.csv"
    written = fits.stat().st_mtime_ns
    ledger_files.write_ledger([str(demo_root)], out)
    assert fits.stat().st_mtime_ns == written  # the same store: its report is read, not rewritten
    (demo_root / "demo/sweep.yaml").write_text((demo_root / "demo/sweep.yaml").read_text() + "\n")
    ledger_files.write_ledger([str(demo_root)], out)
    assert fits.stat().st_mtime_ns > written


def test_the_report_is_rewritten_when_the_analysis_code_changed(demo_root, demo_ledger, monkeypatch):
    out, _ = demo_ledger
    fits = demo_root / "demo/report/fits.csv"
    ledger_files.write_ledger([str(demo_root)], out)
    written = fits.stat().st_mtime_ns
    monkeypatch.setattr(ledger_reports, "analysis_digest", lambda: "other analysis code")
    ledger_files.write_ledger([str(demo_root)], out)
    assert fits.stat().st_mtime_ns > written


def test_claims_json_validates_against_its_documented_schema(demo_ledger):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the dev extra: pip install -e .[dev]")
    _, data = demo_ledger
    schema = json.loads((ROOT / "docs/claims.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    broken = {**data, "claims": [{**data["claims"][0], "verdict": "probably"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_the_csv_and_the_offline_page(demo_ledger):
    out, data = demo_ledger
    with open(out / "claims.csv", newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert len(rows) == N_CLAIMS and rows[0].keys() == set(ledger_files.CSV_COLUMNS)
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<script src" not in page and "http://" not in page and "https://" not in page  # nothing to fetch
    assert page.count('<details class="claim"') == N_CLAIMS
    for paper in data["papers"]:
        assert f'<option value="{paper["tag"]}">' in page


def test_the_claim_verdict_holds_only_where_every_part_holds():
    assert claim_verdict([]) == NOT_RUN
    assert claim_verdict([OUTSIDE, OUTSIDE]) == OUTSIDE
    assert claim_verdict([CONSISTENT, OUTSIDE]) == CONSISTENT
    assert claim_verdict([CONSISTENT, INCONCLUSIVE]) == INCONCLUSIVE
    assert claim_verdict([CONSISTENT, INCONCLUSIVE, INCONSISTENT]) == INCONSISTENT


def _planted(root: Path, verdict: str, finished: str) -> SweepResult:
    row = {"law": "softmax_window.M_norm_vs_Lambda", "group": "d=2", "verdict": verdict, "exponent": "0.3",
           "ci_low": "0.2", "ci_high": "0.4", "interval_method": "cluster bootstrap", "n_points": "12"}  # fmt: skip
    return SweepResult(directory=root / "demo", root=root, name="demo", study="softmax_window", fits=[row],
                       report=root / "demo/report/index.html", seeds=[0, 1, 2], configs=36, commits=["abc"],
                       first_finished=finished, last_finished=finished, budget="full", overrides=[])  # fmt: skip


def test_several_roots_give_the_latest_verdict_and_its_history(tmp_path):
    paper = next(p for p in papers() if p.tag == "C24")
    claim = next(c for c in paper.load_laws().claims if c.label == "C1")
    old, new = tmp_path / "old", tmp_path / "new"
    per_root = [(new, [_planted(new, INCONSISTENT, "2026-02-01T00:00:00")]),
                (old, [_planted(old, CONSISTENT, "2026-01-01T00:00:00")])]  # fmt: skip
    entry = ledger.entry(paper, claim, per_root, tmp_path / "ledger")
    assert entry["verdict"] == INCONSISTENT and entry["root"] == str(new)
    assert [(h["root"], h["verdict"]) for h in entry["history"]] == [(str(old), CONSISTENT), (str(new), INCONSISTENT)]
    assert entry["estimates"][0]["method"] == "cluster bootstrap" and entry["estimates"][0]["report"].endswith("#law-0")


def test_the_papers_experiment_is_judged_beside_the_theorem_and_never_counts_as_its_evidence(tmp_path):
    """L24's claim L1: the theorem's law reads the in-regime sweep; Fig. 6's run at the paper's settings is judged as
    the paper's experiment (every point), in its own column; an experiment row never enters the theorem's verdict."""
    paper = next(p for p in papers() if p.tag == "L24")
    claim = next(c for c in paper.load_laws().claims if c.label == "L1")
    root = tmp_path / "root"
    theorem = _planted(root, OUTSIDE, "2026-01-01T00:00:00")
    theorem.name, theorem.study = "nonlinear_icl_law_T_vs_alpha", "nonlinear_icl"
    theorem.fits = [{**theorem.fits[0], "law": "nonlinear_icl.T_vs_alpha", "c_star": "0.36"}]
    figure = _planted(root, CONSISTENT, "2026-01-02T00:00:00")
    figure.name, figure.study = "nonlinear_icl_fig6_right_T", "nonlinear_icl"
    figure.fits = [
        {**figure.fits[0], "law": "nonlinear_icl.T_vs_alpha_fig6", "judged": "experiment", "c_star": "0.01"},
        {**figure.fits[0], "law": "nonlinear_icl.T_vs_alpha", "verdict": INCONSISTENT, "judged": "experiment"},
    ]  # the second: a theorem law's name on an experiment row, which must not make the claim inconsistent
    entry = ledger.entry(paper, claim, [(root, [theorem, figure])], tmp_path / "ledger")
    assert entry["verdict"] == OUTSIDE and entry["c_star"] == pytest.approx(0.36)
    experiment = entry["experiment"]
    assert experiment["figure"] == "Fig. 6 (right)" and experiment["sweep"] == "nonlinear_icl_fig6_right_T"
    assert experiment["verdict"] == CONSISTENT and [e["law"] for e in experiment["estimates"]] == [
        "nonlinear_icl.T_vs_alpha_fig6"
    ]
    assert "linear in" in experiment["quote"]
    row = ledger_files.csv_row({**entry, "paper": paper.citation})
    assert row["experiment"].startswith("consistent (Fig. 6 (right), nonlinear_icl_fig6_right_T)")
    assert "the paper's experiment (Fig. 6 (right)): consistent" in ledger_page.claim_html(entry)


def test_a_claim_not_consistent_and_not_diagnosed_gets_the_runs_own_account(tmp_path):
    """Every claim that is not consistent carries a diagnosis: the catalogue's, or one generated from the run and
    marked so (outside: how far the constants are, from c*)."""
    paper = next(p for p in papers() if p.tag == "L24")
    claim = next(c for c in paper.load_laws().claims if c.label == "L4")
    claim = dataclasses.replace(claim, diagnoses=())  # as if the catalogue had none for it
    root = tmp_path / "root"
    planted = _planted(root, OUTSIDE, "2026-01-01T00:00:00")
    planted.fits = [{**planted.fits[0], "law": "nonlinear_icl.T_vs_eta", "c_star": "0.357",
                     "binding_condition": "B ≥ Ω(max{ε⁻², M1}·ln M1)"}]  # fmt: skip
    entry = ledger.entry(paper, claim, [(root, [planted])], tmp_path / "ledger")
    assert entry["diagnosis"] == [
        "regime (generated from this run): inside only if the hidden constants were ≤ c* = 0.357 (binding: "
        "B ≥ Ω(max{ε⁻², M1}·ln M1))"
    ]
    planted.fits = [{**planted.fits[0], "verdict": INCONCLUSIVE, "reason": "interval straddles an edge"}]
    entry = ledger.entry(paper, claim, [(root, [planted])], tmp_path / "ledger")
    assert entry["diagnosis"][0].startswith("open (generated from this run; not yet explained)")
    planted.fits = [{**planted.fits[0], "verdict": CONSISTENT}]
    assert ledger.entry(paper, claim, [(root, [planted])], tmp_path / "ledger")["diagnosis"] == []


def test_a_missing_root_is_one_clear_line(tmp_path, capsys):
    assert main(["ledger", str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_claim_with_a_law_not_fitted_is_not_consistent(tmp_path):
    paper = next(p for p in papers() if p.tag == "LW23")
    claim = next(c for c in paper.load_laws().claims if c.label == "S1")  # three laws: T vs M, λ_*, η
    root = tmp_path / "root"
    planted = _planted(root, CONSISTENT, "2026-01-01T00:00:00")
    planted.fits = [{**planted.fits[0], "law": "feature_selector.T_vs_M"}]
    entry = ledger.entry(paper, claim, [(root, [planted])], tmp_path / "ledger")
    assert entry["verdict"] == INCONCLUSIVE
    assert entry["laws_not_run"] == ["feature_selector.T_vs_lambda_star", "feature_selector.T_vs_eta"]
    outside = [
        {**planted.fits[0], "law": f"feature_selector.{name}", "verdict": OUTSIDE}
        for name in ("T_vs_lambda_star", "T_vs_eta")
    ]
    planted.fits += outside  # the other two laws fitted, but only outside the theorem's conditions
    entry = ledger.entry(paper, claim, [(root, [planted])], tmp_path / "ledger")
    assert entry["verdict"] == INCONCLUSIVE and entry["laws_not_run"] == []
    planted.fits = [{**row, "verdict": CONSISTENT} for row in planted.fits]
    assert ledger.entry(paper, claim, [(root, [planted])], tmp_path / "ledger")["verdict"] == CONSISTENT


def test_stale_reports_are_rewritten_in_parallel_and_a_broken_one_is_named(demo_root, demo_ledger, tmp_path):
    import shutil

    root = tmp_path / "root"
    for name in ("a", "broken"):  # two stale reports: two processes where there are two cores
        shutil.copytree(demo_root / "demo", root / name, ignore=shutil.ignore_patterns("report"))
    (root / "broken/sweep.yaml").write_text("study: [not, a, sweep\n")
    directories = ledger_reports.results_directories(root)
    assert not any(ledger_reports.report_is_fresh(d) for d in directories)
    errors = ledger_reports.refresh_reports(directories)
    assert list(errors) == [root / "broken"] and errors[root / "broken"]  # its one line, the others written
    assert ledger_reports.report_is_fresh(root / "a")
    assert (root / "a/report/fits.csv").read_text() == (demo_root / "demo/report/fits.csv").read_text()
    assert ledger_reports.refresh_reports(directories).keys() == {root / "broken"}  # the fresh ones are not rewritten


def test_an_earlier_ledgers_verdict_is_carried_only_for_claims_not_run_and_labelled(demo_ledger, tmp_path, capsys):
    """`--carry-from`: a claim no root ran keeps the earlier ledger's verdict and evidence, labelled with that
    ledger's date and commit (claims.json, the CSV, the page); a claim these roots ran is judged afresh."""
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the dev extra: pip install -e .[dev]")
    out, data = demo_ledger
    earlier = json.loads(json.dumps(data))
    earlier.update(generated_at="2026-01-02T03:04:05+00:00", git_commit="0123456789abcdef")
    not_run = next(c for c in earlier["claims"] if c["verdict"] == "not run" and c["laws"])
    ran = next(c for c in earlier["claims"] if c["verdict"] not in ("not run", "no law"))
    estimate = {**(ran["estimates"][0]), "law": not_run["laws"][0]["name"], "verdict": "inconsistent"}
    not_run.update(verdict="inconsistent", estimates=[estimate], root="/old/root", git_commits=["0123456789ab"])
    ran.update(verdict="consistent" if ran["verdict"] != "consistent" else "inconsistent")  # must not be carried
    path = tmp_path / "earlier.json"
    path.write_text(json.dumps(earlier), encoding="utf-8")
    assert main(["ledger", str(out.parent), "--out", str(tmp_path / "now"), "--carry-from", str(path)]) == 0
    now = json.loads((tmp_path / "now/claims.json").read_text(encoding="utf-8"))
    by_key = {(c["paper_tag"], c["claim_id"]): c for c in now["claims"]}
    carried = by_key[(not_run["paper_tag"], not_run["claim_id"])]
    assert carried["verdict"] == "inconsistent" and carried["estimates"] == [estimate]
    assert carried["carried"] == {"generated_at": "2026-01-02T03:04:05+00:00", "git_commit": "0123456789abcdef",
                                  "verdict_now": "not run"}  # fmt: skip
    fresh = by_key[(ran["paper_tag"], ran["claim_id"])]
    original = next(c for c in data["claims"] if (c["paper_tag"], c["claim_id"]) == (ran["paper_tag"], ran["claim_id"]))
    assert fresh["verdict"] == original["verdict"] and "carried" not in fresh
    assert sum("carried" in c for c in now["claims"]) == 1  # the others were not run in the earlier ledger either
    jsonschema.validate(now, json.loads((ROOT / "docs/claims.schema.json").read_text(encoding="utf-8")))
    with open(tmp_path / "now/claims.csv", newline="", encoding="utf-8") as stream:
        rows = {(r["paper_tag"], r["claim_id"]): r for r in csv.DictReader(stream)}
    assert "2026-01-02" in rows[(not_run["paper_tag"], not_run["claim_id"])]["carried_from"]
    page = (tmp_path / "now/index.html").read_text(encoding="utf-8")
    line = _line(page, not_run["paper_tag"], not_run["claim_id"])
    assert "carried · 2026-01-02" in line and "(from the ledger of 2026-01-02, not this run)" in line  # on the line
    assert sum("carried · " in _line(page, c["paper_tag"], c["claim_id"]) for c in now["claims"]) == 1
    capsys.readouterr()
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    assert (
        main(["ledger", str(out.parent), "--out", str(tmp_path / "x"), "--carry-from", str(tmp_path / "bad.json")]) == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot read an earlier ledger" in err[0]


def _line(page: str, tag: str, claim_id: str) -> str:
    """A claim's line on the page: its <summary>, what a reader sees before unfolding it."""
    key = re.escape(html.escape(f"{tag}-{claim_id}"))
    match = re.search(rf'<details class="claim" id="{key}"[^>]*>(<summary.*?</summary>)', page)
    assert match, f"{tag} {claim_id} has no line"
    return match[1]


def _fit(law: str, verdict: str, reason: str = "", group: str = "") -> dict:
    return {"law": law, "group": group, "sweep": "s", "statistic": "slope", "estimate": 0.5, "ci_low": 0.4,
            "ci_high": 0.6, "method": "OLS", "theory": "band", "theory_low": 0.1, "theory_high": 0.2,
            "verdict": verdict, "reason": reason, "n_points": 4, "report": f"../s/report/index.html#law-{group}",
            "c_star": None, "binding": ""}  # fmt: skip


def test_each_claim_is_one_line_with_the_estimate_it_rests_on_its_reason_and_diagnosis(demo_ledger):
    out, data = demo_ledger
    page = (out / "index.html").read_text(encoding="utf-8")
    (claim,) = [c for c in data["claims"] if c["paper_tag"] == "C24" and c["claim_id"] == "C1"]
    resting = next(x for x in claim["estimates"] if x["verdict"] == claim["verdict"])
    line = _line(page, "C24", "C1")
    assert html.escape(ledger_page.short_estimate(resting)) in line
    assert f"<a href='{html.escape(resting['report'])}'>" in line  # the estimate links to its report's section
    sentence = re.split(r"(?<=[.;])\s", resting["reason"])[0].rstrip(";")
    assert html.escape(sentence[:40]) in line and html.escape(resting["reason"]) not in line.replace(sentence, "")
    assert html.escape(claim["verdict"]) in line and "<ul" not in line and "<li" not in line  # nothing folded open
    assert page.count("<summary class='line'>") == N_CLAIMS


def test_the_resting_estimate_is_the_first_fit_with_the_claims_verdict():
    fits = [_fit("a.x", CONSISTENT, group="1"), _fit("a.x", INCONSISTENT, group="2"),
            _fit("a.y", INCONSISTENT, group="3"), _fit("a.y", OUTSIDE, group="4")]  # fmt: skip
    claim = {"verdict": INCONSISTENT, "estimates": fits, "laws_not_run": []}
    assert ledger_page.resting_estimate(claim) is fits[1]
    assert ledger_page.resting_estimate({**claim, "verdict": CONSISTENT}) is fits[0]
    assert ledger_page.resting_estimate({**claim, "verdict": OUTSIDE}) is fits[3]
    unfitted = {**claim, "verdict": INCONCLUSIVE, "laws_not_run": ["a.z"]}  # inconclusive: a law was not fitted
    assert ledger_page.resting_estimate(unfitted) is None
    assert ledger_page.the_reason(unfitted) == "not every law fitted: z not run here"


def test_the_first_sentence_stops_outside_parentheses_and_shortens_long_ones():
    first = ledger_page.first_sentence
    assert first("interval [0.2, 0.4] lies inside [0.1, 0.5]. The rest") == "interval [0.2, 0.4] lies inside [0.1, 0.5]"
    assert first("only 2 x values (needs 4; see below); more") == "only 2 x values (needs 4; see below)"
    long = "each point violates one (" + "m ≥ L²; " * 12 + "n ≥ L²); the fit"
    assert first(long) == "each point violates one (m ≥ L²; …)"
    assert len(first("word " * 100, 50)) == 50 and first("word " * 100, 50).endswith("…")


def test_the_details_group_the_fits_by_law_with_counts_per_verdict(demo_ledger):
    _, data = demo_ledger
    claim = next(c for c in data["claims"] if c["paper_tag"] == "C24" and c["claim_id"] == "C1")
    law = claim["laws"][0]["name"]
    verdicts = [CONSISTENT, OUTSIDE, OUTSIDE, INCONCLUSIVE]
    fits = [_fit(law, v, group=f"g{i}") for i, v in enumerate(verdicts)] + [_fit("other.law", CONSISTENT)]
    planted = {**claim, "verdict": INCONCLUSIVE, "estimates": fits}
    block = ledger_page.claim_html(planted)
    more = block.split("</summary>", 1)[1]
    short = law.split(".", 1)[1]
    assert f"<summary>{short}: 4 fits — 1 consistent, 1 inconclusive, 2 outside</summary>" in more
    assert "<summary>law: 1 fit — 1 consistent</summary>" in more  # a law outside the claim's list, after its own
    assert more.index(f"<summary>{short}:") < more.index("<summary>law: 1 fit")
    for i in range(4):
        assert more.count(f"#law-g{i}") == 1  # each fit once, under its law
    assert ledger_page.law_counts(law, []) == f"{short}: not fitted here"


def test_a_ledger_of_previews_hides_the_claims_not_run_unless_asked(demo_ledger):
    """The demo ledger ran one claim at a custom budget and none at full: its claims not run are hidden behind a
    box that says how many; the same ledger at full budget shows them all."""
    out, data = demo_ledger
    page = (out / "index.html").read_text(encoding="utf-8")
    idle = sum(c["verdict"] in (NOT_RUN, NO_LAW) for c in data["claims"])
    assert ledger_page.is_preview(data) and idle == N_CLAIMS - 1
    assert f"<input type='checkbox' id='show-all'> show the {idle} claims not run here (hidden by default" in page
    assert page.count('data-ran="no"') == idle and page.count('data-ran="yes"') == 1
    full = {**data, "claims": [{**c, "budget": "full"} if c["budget"] else c for c in data["claims"]]}
    assert not ledger_page.is_preview(full)
    assert f"<input type='checkbox' id='show-all' checked> show the {idle} claims not run here</label>" in (
        ledger_page.render_page(full)
    )
    nothing_ran = {**data, "claims": [c for c in data["claims"] if c["verdict"] in (NOT_RUN, NO_LAW)]}
    assert not ledger_page.is_preview(nothing_ran)  # a ledger of the catalogue alone shows every claim


def test_the_search_box_filters_over_paper_claim_laws_and_verdict(demo_ledger):
    out, data = demo_ledger
    page = (out / "index.html").read_text(encoding="utf-8")
    assert '<input type="search" id="search"' in page
    assert "claim.dataset.search.includes(t)" in page and "addEventListener('input', applyFilters)" in page
    assert "document.getElementById(decodeURIComponent(location.hash.slice(1)))" in page  # index.html#C24-C3 opens it
    claim = next(c for c in data["claims"] if c["verdict"] not in (NOT_RUN, NO_LAW))
    words = re.search(rf'id="{claim["paper_tag"]}-{claim["claim_id"]}"[^>]*data-search="([^"]*)"', page)[1]
    for field in (claim["paper_tag"], claim["claim_id"], claim["laws"][0]["name"], claim["verdict"], claim["claim"]):
        assert html.escape(field.lower()) in words, field


def test_the_page_works_in_chromium_search_and_show_all_included(demo_ledger, tmp_path):
    """The filters, the search box and the show-all box driven in headless Chromium (scripts/
    check_ledger_in_chromium.py); skipped where no Chromium is installed."""
    import shutil
    import sys

    if not (shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")):
        pytest.skip("no Chromium")
    sys.path.insert(0, str(ROOT / "scripts"))
    from check_ledger_in_chromium import check_ledger

    out, _ = demo_ledger
    seen = check_ledger(out, tmp_path / "ledger.png")
    assert seen["passed"], seen
    assert seen["show_all_default"] is False  # a preview ledger: not-run claims hidden
    searched = [f for f in seen["filters"] if f["search"]]
    assert searched and all(f["shown"] == f["expected"] for f in searched) and any(f["shown"] for f in searched)
    assert {f["show_all"] for f in seen["filters"]} == {True, False}


def test_a_preview_shows_the_catalogues_diagnosis_as_the_catalogues():
    claim = {"verdict": INCONSISTENT, "budget": "quick", "diagnosis": ["open: ‖M‖ saturates at 9.7 (full run)."]}
    assert (
        ledger_page.the_diagnosis(claim) == "the catalogue's (from its full run): open: ‖M‖ saturates at 9.7 (full run)"
    )
    assert ledger_page.the_diagnosis({**claim, "budget": "full"}) == "open: ‖M‖ saturates at 9.7 (full run)"
    own = {**claim, "diagnosis": ["open (generated from this run; not yet explained): a.x on s: interval misses"]}
    assert ledger_page.the_diagnosis(own).startswith("open (generated")


def test_laws_verdicts_prints_one_line_per_claim_and_a_bad_ledger_is_one_line(demo_ledger, tmp_path, capsys):
    _, data = demo_ledger
    planted = json.loads(json.dumps(data))
    claim = next(c for c in planted["claims"] if c["paper_tag"] == "C24" and c["claim_id"] == "C1")
    claim["verdict"] = INCONSISTENT
    claim["estimates"] = [_fit(claim["laws"][0]["name"], CONSISTENT, group="d=1"),
                          _fit(claim["laws"][0]["name"], INCONSISTENT, group="d=7")]  # fmt: skip
    claim["diagnosis"] = ["open: a planted diagnosis that is long enough to be cut somewhere after its first words"]
    (tmp_path / "ledger").mkdir()
    (tmp_path / "ledger/claims.json").write_text(json.dumps(planted), encoding="utf-8")
    capsys.readouterr()
    assert main(["laws", "--verdicts", str(tmp_path / "ledger")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + N_CLAIMS and f"{N_CLAIMS} claims" in lines[0]
    (line,) = [x for x in lines if x.startswith("C24   C1 ")]
    assert "inconsistent" in line and "d=7: 0.5 [0.4, 0.6] vs band" in line and "d=1" not in line
    assert "— the catalogue's (from its full run): open: a planted diagnosis" in line  # a custom run: labelled
    assert "after its first words" not in line
    not_run = next(c for c in planted["claims"] if c["verdict"] == NOT_RUN)
    assert f"{not_run['claim_id']:<4} not run        not run in these roots" in "\n".join(lines)
    (tmp_path / "bad.json").write_text("[1, 2]", encoding="utf-8")
    for bad in (tmp_path / "bad.json", tmp_path / "nowhere.json"):
        assert main(["laws", "--verdicts", str(bad)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "cannot read a claims ledger" in err[0], err


def _slow_report_directories(tmp_path, monkeypatch) -> list:
    """Four results directories whose reports take two minutes each (tests/slow_reports.py), two at a time."""
    import slow_reports

    directories = []
    for name in ("a", "b", "c", "d"):
        (tmp_path / name / "runs").mkdir(parents=True)
        (tmp_path / name / "sweep.yaml").write_text(f"name: {name}\n", encoding="utf-8")
        (tmp_path / name / "runs" / "pack-0.parquet").write_bytes(b"not read")
        directories.append(tmp_path / name)
    monkeypatch.setattr(ledger_reports, "refresh_report", slow_reports.write_slowly)
    monkeypatch.setattr(ledger_reports.os, "cpu_count", lambda: 2)
    return directories


def test_sigterm_stops_the_ledger_command_and_its_report_writers(tmp_path, monkeypatch, capsys):
    """`kill` (SIGTERM) during `iclscale ledger` ends it within seconds with exit 143, the pool's workers with it;
    before, the command died at once and left its two workers writing reports."""
    import multiprocessing
    import os
    import signal
    import threading
    import time

    from iclscale.cli import main

    def unhandled(number, frame):  # what SIGTERM would reach were the command to set no handler of its own
        raise AssertionError("SIGTERM reached the test: `iclscale ledger` does not handle it")

    directories = _slow_report_directories(tmp_path, monkeypatch)
    before = {child.pid for child in multiprocessing.active_children()}
    previous = signal.signal(signal.SIGTERM, unhandled)
    timer = threading.Timer(3, os.kill, (os.getpid(), signal.SIGTERM))  # the workers have started by then
    started = time.monotonic()
    timer.start()
    try:
        code = main(["ledger", str(tmp_path), "--out", str(tmp_path / "ledger")])
        assert signal.getsignal(signal.SIGTERM) is unhandled  # the command's handler does not outlive it
    finally:
        timer.cancel()
        signal.signal(signal.SIGTERM, previous)
    assert code == 143 and time.monotonic() - started < 15
    assert "interrupted" in capsys.readouterr().err
    assert {child.pid for child in multiprocessing.active_children()} <= before
    assert all(not (d / "report").exists() for d in directories)


def test_ctrl_c_stops_the_reports_being_written_at_once(tmp_path, monkeypatch):
    """Ctrl-C while the ledger writes reports in its pool ends within seconds, its workers with it; before, the
    pool's exit first wrote every queued report (minutes for a catalogue)."""
    import multiprocessing
    import signal
    import time

    directories = _slow_report_directories(tmp_path, monkeypatch)
    before = {child.pid for child in multiprocessing.active_children()}

    def interrupt(number, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    started = time.monotonic()
    try:
        signal.alarm(3)  # the workers have started their reports by then
        with pytest.raises(KeyboardInterrupt):
            ledger_reports.refresh_reports(directories)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - started < 15  # not the 2 × 120 s of the queued reports
    assert {child.pid for child in multiprocessing.active_children()} <= before  # the pool's workers are gone

"""The verdict rule is stated once (iclscale.analysis.verdict.rule_lines), from the constants the code applies, and
printed alike by the docs, the report and claims.json; a fit whose bend is significant but inside the margin says in
its reason why it is still consistent."""

import html
import json
from pathlib import Path

import numpy as np
import pandas as pd

from iclscale.analysis import exponent_drift, forms, verdict
from iclscale.analysis.verdict import FORM_DRIFT, RULE_BEGIN, RULE_END, VerdictRule, rule_lines, rule_markdown
from iclscale.cli import main

DOCS = Path(__file__).resolve().parents[1] / "docs" / "laws-and-verdicts.md"
SENTENCE = "the bend is too small to change the verdict"


def test_the_docs_hold_the_generated_rule():
    text = DOCS.read_text()
    block = text.split(RULE_BEGIN, 1)[1].split(RULE_END, 1)[0]
    assert block.strip() == rule_markdown().strip(), "run `python scripts/docs_verdict_rule.py`"


def test_the_rule_text_is_made_from_the_constants_the_code_applies(monkeypatch):
    text = " ".join(rule_lines())
    assert f"within ±{FORM_DRIFT:g}" in text and f"p < {forms.LOF_ALPHA:g}" in text
    assert f"{verdict.EXPONENT_TOLERANCE:g} for an exponent" in text
    other = " ".join(rule_lines(VerdictRule(form_drift=0.2, min_levels=5, max_interval_width=0.7)))
    assert "within ±0.2" in other and "fewer than 5 distinct x values" in other and "wider than 0.7" in other
    monkeypatch.setattr(forms, "LOF_ALPHA", 0.002)
    monkeypatch.setattr(exponent_drift, "QUADRATIC_ALPHA", 0.03)
    patched = " ".join(rule_lines())
    assert "p < 0.002" in patched and "p ≥ 0.03" in patched and "p < 0.01" not in patched


def test_the_report_and_the_ledger_print_the_same_rule():
    from iclscale.analysis.ledger import verdict_rule_text
    from iclscale.analysis.page import _verdict_rule_html

    page = " ".join(html.unescape(_verdict_rule_html()).split())
    for line in rule_lines():
        assert " ".join(line.split()) in page
    assert verdict_rule_text().endswith(" ".join(rule_lines()))


def test_the_ledger_page_folds_the_fit_rule_under_the_claim_rule():
    from iclscale.analysis.ledger import CLAIM_RULE, verdict_rule_text
    from iclscale.analysis.ledger_page import render_page

    committed = json.loads((DOCS.parent / "results" / "claims.json").read_text(encoding="utf-8"))
    page = html.unescape(render_page({**committed, "verdict_rule": verdict_rule_text()}))
    assert f"Claim verdict: {CLAIM_RULE}." in page
    folded = page.split("<summary>How each fit's verdict is decided</summary>", 1)[1].split("</details>", 1)[0]
    assert folded == " ".join(rule_lines())


def planted(path, bend, seeds=8, levels=8, sd=0.02, seed=0):
    """y = 3·x^(−1) over two decades with local exponents −1 ± bend across the range (a drift of 2·bend)."""
    rng = np.random.default_rng(seed)
    x = np.repeat(np.geomspace(1, 100, levels), seeds)
    u = np.log(x) - np.log(x).mean()
    reach = np.log(x).max() - np.log(x).min()
    log_y = np.log(3) - u + (bend / reach) * u**2 + rng.normal(0, sd, len(x))
    pd.DataFrame({"size": x, "loss": np.exp(log_y), "seed": np.tile(np.arange(seeds), levels)}).to_csv(path)
    return path


def test_a_significant_bend_inside_the_margin_says_why_it_is_still_consistent(tmp_path, capsys):
    """Local exponents −1.08 … −0.92 (a drift of 0.16), measured precisely: the bend is significant (the lack of fit
    rejects, the drift's interval excludes 0) but the drift is shown inside ±FORM_DRIFT: consistent, and the reason
    says why in one sentence. Without a bend the sentence is absent."""
    bent, clean = planted(tmp_path / "bent.csv", bend=0.08), planted(tmp_path / "clean.csv", bend=0.0)
    argv = ["fit", "--x", "size", "--y", "loss", "--exponent", "-1", "--json"]
    assert main([*argv, str(bent), str(clean)]) == 0
    bent_fit, clean_fit = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert bent_fit["verdict"] == "consistent" and SENTENCE in bent_fit["reason"]
    assert f"inside the margin ±{FORM_DRIFT:g}" in bent_fit["reason"] and "lack-of-fit F(" in bent_fit["reason"]
    assert clean_fit["verdict"] == "consistent" and SENTENCE not in clean_fit["reason"]


def test_a_bend_beyond_the_margin_is_not_excused(tmp_path, capsys):
    """Local exponents −1.3 … −0.7: the same data with the margin's own width of drift and more is not a power law."""
    bent = planted(tmp_path / "bent.csv", bend=0.3)
    assert main(["fit", "--x", "size", "--y", "loss", "--exponent", "-1", "--json", str(bent)]) == 0
    fit = json.loads(capsys.readouterr().out)
    assert fit["verdict"] == "inconclusive" and SENTENCE not in fit["reason"] and "not a power law" in fit["reason"]

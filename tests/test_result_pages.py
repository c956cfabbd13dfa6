"""The committed result pages (docs/results/) are what iclscale.analysis.result_pages makes of the committed
claims ledger (docs/results/claims.json), and that ledger follows its schema (docs/claims.schema.json)."""

import copy
import json
from pathlib import Path

import pytest

from iclscale.analysis.result_pages import render

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
COMMITTED = json.loads((RESULTS / "claims.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(render(COMMITTED)))
def test_a_committed_page_is_what_the_generator_makes_of_the_committed_ledger(name):
    made = render(COMMITTED)[name]
    with open(RESULTS / name, encoding="utf-8", newline="") as stream:  # as written: CSV rows end in \r\n
        committed = stream.read()
    assert committed == made, (
        f"docs/results/{name} is stale: run `python -m iclscale.analysis.result_pages docs/results`"
    )


def test_the_committed_ledger_follows_its_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((RESULTS.parent / "claims.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(COMMITTED, schema)


def test_the_committed_ledger_was_written_by_committed_code():
    # "-dirty": generated from a working tree with uncommitted changes, so no commit holds the code that judged it
    assert not COMMITTED["git_commit"].endswith("-dirty"), "regenerate docs/results from a clean working tree"


def test_every_paper_and_claim_of_the_ledger_is_on_a_page():
    pages = render(COMMITTED)
    for paper in COMMITTED["papers"]:
        page = pages[f"{paper['tag']}.md"]
        assert paper["paper"] in pages["README.md"]
        for claim in (c for c in COMMITTED["claims"] if c["paper_tag"] == paper["tag"]):
            assert f"| {claim['claim_id']} |" in page and f"| {claim['verdict']} |" in page


def test_a_changed_verdict_or_time_changes_the_page():
    data = copy.deepcopy(COMMITTED)
    paper = data["papers"][0]
    claim = next(c for c in data["claims"] if c["paper_tag"] == paper["tag"])
    before = render(data)[f"{paper['tag']}.md"]
    claim["verdict"] = "inconsistent" if claim["verdict"] != "inconsistent" else "consistent"
    paper["train_time_s"] += 600
    after = render(data)[f"{paper['tag']}.md"]
    assert after != before
    assert f"| {claim['claim_id']} | {claim['anchor'].replace('|', chr(92) + '|')} |" in after
    assert f"{(paper['train_time_s']) / 60:.1f} min" in after

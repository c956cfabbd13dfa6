"""Why claims do not reproduce (issue 23): the diagnosis kept with each claim, its validation, its counts per
category and paper, the README's generated copy, and where `iclscale laws` and the report show it."""

from pathlib import Path

import pytest

from iclscale.analysis import diagnoses
from iclscale.analysis.catalogue import PAPERS
from iclscale.analysis.law import DIAGNOSIS_CATEGORIES, Claim, Diagnosis, VersusPrinted
from iclscale.analysis.laws import LAWS
from iclscale.cli import main
from iclscale.papers import BUILT_IN

README = Path(__file__).resolve().parents[1] / "README.md"


def test_a_diagnosis_takes_only_the_five_categories_and_needs_evidence():
    assert set(DIAGNOSIS_CATEGORIES) == {"paper", "regime", "reading", "budget", "open"}
    with pytest.raises(ValueError, match="category"):
        Diagnosis("bug", "something")
    with pytest.raises(ValueError, match="evidence"):
        Diagnosis("open", "  ")
    with pytest.raises(ValueError, match="does not list"):
        Claim("X1", "Thm 1", "a claim", ("s.a",), (Diagnosis("open", "why", ("s.b",)),))
    with pytest.raises(ValueError, match="stronger"):
        VersusPrinted("tighter", "why")


def test_a_diagnosis_explains_the_laws_it_names_or_all_of_its_claims_laws():
    claim = Claim(
        "X1", "Thm 1", "a claim", ("s.a", "s.b"), (Diagnosis("regime", "outside", ("s.a",)), Diagnosis("open", "?"))
    )
    assert [d.category for d in claim.diagnoses_of("s.a")] == ["regime", "open"]
    assert [d.category for d in claim.diagnoses_of("s.b")] == ["open"]
    assert claim.diagnoses_of("s.c") == ()


def test_counts_are_the_catalogues_diagnoses_per_category_and_paper():
    table = diagnoses.counts()
    assert set(table) == set(PAPERS)
    for paper, row in table.items():
        assert set(row) == set(DIAGNOSIS_CATEGORIES)
        found = [d.category for claim in PAPERS[paper][1].claims for d in claim.diagnoses]
        assert row == {category: found.count(category) for category in DIAGNOSIS_CATEGORIES}
    text = diagnoses.counts_markdown()
    assert text.count("\n| ") == len(PAPERS) + 1  # one row per paper and the total, under the header
    claims = [claim for _, package in PAPERS.values() for claim in package.claims]
    per_category = [sum(row[category] for row in table.values()) for category in DIAGNOSIS_CATEGORIES]
    all_row = [len(claims), sum(bool(claim.diagnoses) for claim in claims), *per_category]
    assert "| all | " + " | ".join(map(str, all_row)) + " |" in text


def test_every_diagnosis_names_laws_of_its_claim_and_the_diagnosed_papers_have_some():
    for _, package in PAPERS.values():
        for claim in package.claims:
            for d in claim.diagnoses:
                assert all(name in LAWS for name in d.laws), (claim.label, d)
                assert d.evidence.rstrip().endswith((".", ")")), (claim.label, d.evidence)
    for seed in ("seed 000", "seed 001", "seed 003", "seed 004"):
        paper = next(p for p in PAPERS if p.endswith(seed))
        assert sum(diagnoses.counts()[paper].values()) > 0, seed


def test_the_readmes_diagnosis_blocks_are_the_generated_ones():
    """The READMEs' tables are the catalogue's: the counts in the project's README, each built-in paper's list in
    its folder's README (`python scripts/readme_diagnoses.py` writes them)."""
    assert diagnoses.readme_of(diagnoses.COUNTS_BLOCK) == README
    for name, text in diagnoses.blocks().items():
        readme = diagnoses.readme_of(name)
        if readme is None:  # a paper installed from outside the repository
            continue
        assert readme == README or readme.parent.parent == README.parent / "iclscale" / "papers", readme
        assert diagnoses.readme_block(readme.read_text(), name) == text, (
            f"{readme}: block {name!r} differs from the catalogue: run `python scripts/readme_diagnoses.py`"
        )
    for paper in BUILT_IN:
        text = (README.parent / "iclscale" / "papers" / paper / "README.md").read_text()
        assert diagnoses.BEGIN.split("{}")[0] in text, f"{paper}'s README has no diagnosis block"


def test_iclscale_laws_shows_the_diagnoses_and_the_versus_printed_labels(capsys):
    assert main(["laws", "--diagnoses"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == diagnoses.markdown().strip()
    assert main(["laws"]) == 0
    out = capsys.readouterr().out
    assert "does not reproduce — " in out and "diagnoses per category and paper" in out
    labelled = [law for law in LAWS.values() if law.versus_printed is not None]
    assert labelled and all(law.versus_printed.describe() in out for law in labelled)


def test_the_report_shows_a_laws_diagnosis():
    from iclscale.analysis.page import diagnosis_items

    claim, diagnosis = next(
        (claim, d) for _, p in PAPERS.values() for claim in p.claims for d in claim.diagnoses if d.laws
    )
    items = diagnosis_items(diagnosis.laws[0])
    assert (f"diagnosis of claim {claim.label}", diagnosis.describe()) in items

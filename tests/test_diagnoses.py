"""Why claims do not reproduce (issue 23): the diagnosis kept with each claim, its validation, its counts per
category and paper, the README's generated copy, and where `iclscale laws` and the report show it."""

import re
import subprocess
from pathlib import Path

import pytest

from iclscale.analysis import diagnoses
from iclscale.analysis.catalogue import PAPERS
from iclscale.analysis.law import DIAGNOSIS_CATEGORIES, Claim, Diagnosis, VersusPrinted, estimate_references
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


def _row(law, estimate, low, high, group="all", sweep="s1"):
    return {"law": law, "group": group, "sweep": sweep, "estimate": estimate, "ci_low": low, "ci_high": high}


def test_a_diagnosis_cites_a_measured_number_by_naming_the_ledger_quantity():
    """`{estimate:LAW|WORDS}` renders the ledger's rows for the law (by full or short name, every word in the
    row's group or sweep); without rows it says where to read it, never a number the run did not make."""
    d = Diagnosis("open", "T ∝ M1^{estimate:T_vs_M1} misses 1; at d = 5: {estimate:p.w_vs_L|d=5}.", ("p.T_vs_M1",))
    rows = [
        _row("p.T_vs_M1", 0.7612, 0.634, 0.9),
        _row("p.w_vs_L", 0.2, 0.1, 0.3, group="d=2"),
        _row("p.w_vs_L", 0.4, 0.3, 0.5, group="d=5", sweep="a"),
        _row("p.w_vs_L", 0.6, 0.5, 0.7, "d=5", "b"),
    ]
    assert d.describe(rows) == (
        "open [T_vs_M1]: T ∝ M1^0.761 [0.634, 0.9] misses 1; "
        "at d = 5: 0.4 [0.3, 0.5] (d=5, a); 0.6 [0.5, 0.7] (d=5, b)."
    )
    assert "no estimate of T_vs_M1 in this run" in d.describe([])
    assert "(the ledger's estimate of w_vs_L at d=5)" in d.describe(None)
    outside = {**_row("p.x", None, None, None), "verdict": "outside"}
    assert Diagnosis("open", "{estimate:x}").describe([outside]) == "open: no estimate of x in this run (outside)"
    assert Diagnosis("open", "{estimate:x}").describe([_row("p.x", 2.0, None, None)]) == "open: 2 [—, —]"


def test_a_setting_in_a_citation_names_a_whole_setting_of_the_group():
    """alpha=0 cites the group at α = 0, not also those at α = 0.1 or 0.45; a plain word still matches within the
    group or the sweep's name."""
    rows = [
        _row("p.err", 0.09, 0.08, 0.1, group="l_tr=20, alpha=0"),
        _row("p.err", 0.2, 0.1, 0.3, group="l_tr=20, alpha=0.1"),
        _row("p.err", 0.3, 0.2, 0.4, group="l_tr=10, alpha=0.45", sweep="law_thresholds"),
    ]
    assert Diagnosis("open", "{estimate:err|l_tr=20 alpha=0}").describe(rows) == "open: 0.09 [0.08, 0.1]"
    assert Diagnosis("open", "{estimate:err|thresholds}").describe(rows) == "open: 0.3 [0.2, 0.4]"
    assert Diagnosis("open", "{estimate:err|alpha=0.4}").describe(rows) == "open: no estimate of err in this run"


def test_a_diagnosis_may_cite_only_its_claims_laws():
    with pytest.raises(ValueError, match="cites the estimate of laws the claim does not list: other"):
        Claim("X1", "Thm 1", "a claim", ("s.a",), (Diagnosis("open", "{estimate:a} and {estimate:other}"),))


def test_every_catalogue_citation_names_a_law_of_its_claim():
    cited = [(c.label, law) for _, p in PAPERS.values() for c in p.claims for d in c.diagnoses
             for law, _ in estimate_references(d.evidence)]  # fmt: skip
    assert len(cited) >= 25  # the diagnoses that quote a measured interval cite it


HAND_INTERVAL = re.compile(r"(?<![\w{.])[−-]?\d+(?:\.\d+)?\)?×?\s*\[[−-]?\d+(?:\.\d+)?,\s*[−-]?\d")


def _hand_written_text(path: Path) -> str:
    """The file's text less the blocks a generator writes (between `<!-- diagnoses: … -->` markers)."""
    text = path.read_text(encoding="utf-8")
    return re.sub(r"<!-- (\w+): ([^>]*) -->.*?<!-- /\1: \2 -->", "", text, flags=re.S)


def test_no_hand_written_file_holds_a_measured_interval():
    """Issue 35: a measured "x [a, b]" is rendered from the ledger (docs/results/, generated blocks, `{estimate:…}`
    in diagnoses), never typed: every tracked markdown, Python and sweep file outside tests/ and docs/results/."""
    root = Path(__file__).resolve().parents[1]
    listed = subprocess.run(["git", "ls-files", "*.md", "*.py", "*.yaml"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    found = []
    for name in listed.stdout.split():
        if name.startswith(("tests/", "docs/results/")) or not (root / name).is_file():
            continue
        for number, line in enumerate(_hand_written_text(root / name).splitlines(), 1):
            if HAND_INTERVAL.search(line):
                found.append(f"{name}:{number}: {line.strip()[:100]}")
    assert not found, "hand-written measured intervals (cite the ledger instead):\n" + "\n".join(found)


def test_the_interval_pattern_finds_typed_intervals_and_leaves_bands_and_code_alone():
    for typed in (
        "exponent 0.394 [0.387, 0.401]",
        "m^(−0.94 [−1.08, −0.80])",
        "0.42× [0.31, 0.55]",
        "ρ = −1 [−1, −0.88]",
    ):
        assert HAND_INTERVAL.search(typed), typed
    for other in ("a band, e.g. [0.5, 1]", 'f"{e:.3g} [{lo:.3g}, {hi:.3g}]"', "x[0, 1]", "w_1[0, 1]"):
        assert not HAND_INTERVAL.search(other), other

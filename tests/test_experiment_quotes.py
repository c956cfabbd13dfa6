"""Every paper's own experiment (a claim's `Experiment`: the figure or table run at the paper's settings) carries
what the paper says of that figure in its own words, and each quote is found in the paper's text the way the claims'
quotes are (tests/test_claim_quotes.py: normalised, "…" leaving words out); its sweep is a catalogue sweep and its
laws are laws of the catalogue."""

import pytest
from test_claim_quotes import QUOTE_LIMIT, SEEDS, found_in, normalised, paper_text

from iclscale.analysis.laws import get_law
from iclscale.paper import by_citation as papers
from iclscale.paper import find_sweep


def experiments():
    return [(paper, claim, claim.experiment) for paper in papers() for claim in paper.load_laws().claims
            if claim.experiment is not None]  # fmt: skip


def test_a_quote_not_in_the_text_is_not_found():
    text = normalised("Figure 2 shows that the error of Mamba is smaller than 0.01 even when α is close to 0.8.")
    assert found_in("Figure 2 shows that the error of Mamba is smaller than 0.01 … close to 0.8", text)
    assert not found_in("Figure 2 shows that the error of Mamba is larger than 0.01", text)


def test_every_claim_tied_to_a_figure_or_table_of_these_papers_names_its_experiment():
    # the claims whose source names a figure or a table, in the papers whose experiments are written (issue 35)
    missing = [f"{p.tag} {c.label}" for p in papers() if p.tag in ("LM25", "C24") for c in p.load_laws().claims
               if ("Fig" in c.source or "Table" in c.source) and c.experiment is None]  # fmt: skip
    assert missing == []


def test_every_experiment_names_a_catalogue_sweep_and_catalogue_laws_of_its_study():
    found = experiments()
    assert len(found) >= 13  # LM25's 5, C24's 8, L24's 2
    for paper, claim, experiment in found:
        assert find_sweep(experiment.sweep) is not None, f"{paper.tag} {claim.label}: no sweep {experiment.sweep}"
        for name in experiment.laws:
            assert get_law(name).study in paper.studies, f"{paper.tag} {claim.label}: {name} is another paper's"
        assert len(experiment.quote) <= QUOTE_LIMIT, f"{paper.tag} {claim.label}: the quote is a passage"


@pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the papers' texts are not here ({SEEDS} is absent)")
def test_every_experiment_quote_is_found_in_its_paper():
    checked, not_found = 0, []
    for paper, claim, experiment in experiments():
        checked += 1
        if not found_in(experiment.quote, paper_text(paper.seed)):
            not_found.append(f"{paper.tag} {claim.label} ({experiment.figure}): {experiment.quote[:80]!r}")
    assert not_found == [], f"{len(not_found)} of {checked} experiment quotes not found: " + "; ".join(not_found)
    assert checked == len(experiments()) > 0

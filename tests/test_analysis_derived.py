"""Derived variables are a paper's own (iclscale.analysis.derived): looked up by study, so two papers may give one
name two meanings, and a study gets no column from another paper's table. The installed papers' tables are checked
over the registry; each variable's values on the paper's own numbers, in its folder (tests/papers/<paper>/)."""

import types

import pandas as pd

from iclscale.analysis import derived
from iclscale.analysis.derived import DerivedVariable, add_derived, derived_variables, ingredients, symbol
from iclscale.paper import papers


def two_papers_with_one_name(monkeypatch):
    """Two papers that both call a variable Λ, with L a Lipschitz constant in one and a length in the other."""
    tables = {
        "lipschitz": {"Lambda": DerivedVariable("Lambda", "Λ", {"n": 1, "L": 2, "sigma": -2}, "Λ = nL²/σ²")},
        "sequence": {"Lambda": DerivedVariable("Lambda", "Λ_seq", {"n": 1, "L": 1}, "Λ = n + L", sum=True)},
    }

    def paper_of_study(study):
        if study not in tables:
            return None
        return types.SimpleNamespace(load_laws=lambda: types.SimpleNamespace(derived=tables[study]))

    monkeypatch.setattr(derived, "paper_of_study", paper_of_study)


def test_a_name_means_what_the_studys_paper_says(monkeypatch):
    two_papers_with_one_name(monkeypatch)
    table = pd.DataFrame({"n": [2.0, 2.0], "L": [3.0, 3.0], "sigma": [1.0, 1.0], "study": ["lipschitz", "sequence"]})
    assert add_derived(table.iloc[:1], "lipschitz")["Lambda"].tolist() == [18.0]
    assert add_derived(table.iloc[:1], "sequence")["Lambda"].tolist() == [5.0]
    assert add_derived(table)["Lambda"].tolist() == [18.0, 5.0]  # without a study: each row's own
    assert ingredients("Lambda", "lipschitz") == {"n": 1, "L": 2, "sigma": -2}
    assert symbol("Lambda", "sequence") == "Λ_seq"


def test_a_study_without_the_variable_gets_no_column(monkeypatch):
    two_papers_with_one_name(monkeypatch)
    table = pd.DataFrame({"n": [2.0], "L": [3.0], "sigma": [1.0]})
    assert derived_variables("other") == {} and "Lambda" not in add_derived(table, "other")
    assert ingredients("Lambda", "other") == {"Lambda": 1.0} and symbol("Lambda", "other") == "Lambda"
    assert "Lambda" not in add_derived(table)  # no study given and no study column: nothing to look up


def test_every_papers_variables_reach_its_studies_and_no_other_papers():
    """Over the registry: each paper's variables (its laws record's `derived`) are columns for each of its studies,
    computed as declared, and no study of another paper gets one its own paper does not define."""
    tables = {paper.name: dict(paper.load_laws().derived) for paper in papers()}
    variables = {name for table in tables.values() for name in table}
    ingredients_ = sorted({param for table in tables.values() for v in table.values() for param in v.params})
    assert variables and len(tables) >= 2  # a variable, and a paper that must not get it
    table = pd.DataFrame([{param: 2.0 + k for k, param in enumerate(ingredients_)}])
    checked = 0
    for paper in papers():
        for study in paper.studies:
            added = add_derived(table, study)
            for name, variable in tables[paper.name].items():
                assert added[name].tolist() == variable.compute(table).tolist(), (study, name)
            assert [n for n in variables - tables[paper.name].keys() - set(ingredients_) if n in added] == [], study
            checked += 1
    assert checked >= len(tables)

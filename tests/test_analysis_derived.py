"""Derived variables are a paper's own (iclscale.analysis.derived): looked up by study, so two papers may give one
name two meanings, and a study gets no column from another paper's table."""

import types

import pandas as pd

from iclscale.analysis import derived
from iclscale.analysis.derived import DerivedVariable, add_derived, derived_variables, ingredients, symbol


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


def test_the_built_in_papers_keep_their_variables_to_themselves():
    table = pd.DataFrame({"n": [20.0], "L": [2.0], "sigma": [0.5], "M1": [4], "M2": [12]})
    assert add_derived(table, "softmax_window")["Lambda"].tolist() == [320.0]  # [C24]'s Λ = nL²/σ²
    assert add_derived(table, "softmax_window_oracle")["Lambda"].tolist() == [320.0]  # the same paper
    assert "Lambda" not in add_derived(table, "cooccurrence")  # there L is the sequence length
    assert add_derived(table, "feature_selector")["M"].tolist() == [16]  # [LW23]'s M = M1 + M2
    assert "M" not in add_derived(table, "nonlinear_icl")

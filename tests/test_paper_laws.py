"""The laws contract (iclscale.paper_laws): one typed record per paper, a name it does not know refused at load, a
smoke config for every installed study, and where each law is defined."""

import sys
import types
from pathlib import Path

import pytest

from iclscale.errors import UserError
from iclscale.paper import Paper, papers, smoke_configs
from iclscale.paper_laws import PaperLaws, Smoke

SMOKE = Smoke({"steps": 2}, ({"lr": 0.1}, {"lr": 0.2}))


def laws_module(monkeypatch, name: str, **globals_) -> Paper:
    """A throwaway laws module holding `globals_`, and a paper of one study ("toy") whose laws it is."""
    module = types.ModuleType(name)
    module.__dict__.update(globals_)
    monkeypatch.setitem(sys.modules, name, module)
    return Paper("toy_paper", "Toy 2026 [T26], seed 999", "T26", ("toy",), "toy.declaration", name, Path("."), "999")


def test_a_paper_reads_through_its_record(monkeypatch):
    record = PaperLaws(claims=[], laws=[], smoke={"toy": SMOKE}, control_config={"toy": {"d": 2}})
    loaded = laws_module(monkeypatch, "toy_laws_ok", PAPER_LAWS=record, HELPER=1).load_laws()
    assert loaded is record and loaded.control_config == {"toy": {"d": 2}} and loaded.claims == ()
    assert loaded.derived == {} and loaded.run_summary == {} and loaded.sections == ()


def test_a_misspelt_field_is_refused_naming_the_right_one():
    with pytest.raises(UserError, match=r"unknown field of PaperLaws 'control_configs'; did you mean 'control_config'"):
        PaperLaws(claims=(), laws=(), smoke={}, control_configs={"toy": {}})
    with pytest.raises(UserError, match="keyword arguments only"):
        PaperLaws((), (), {})


def test_a_misspelt_or_old_module_global_is_refused_at_load(monkeypatch):
    record = PaperLaws(claims=(), laws=(), smoke={"toy": SMOKE})
    paper = laws_module(monkeypatch, "toy_laws_misspelt", PAPER_LAWS=record, CONTROL_CONFIGS={"toy": {"d": 2}})
    with pytest.raises(UserError, match=r"misspelt defines CONTROL_CONFIGS, .* PaperLaws\(control_config=") as e:
        paper.load_laws()
    assert "\n" not in str(e.value)
    old = laws_module(monkeypatch, "toy_laws_old", PAPER_LAWS=record, DERIVED={})
    with pytest.raises(UserError, match=r"defines DERIVED, .* PaperLaws\(derived="):
        old.load_laws()


def test_a_module_without_the_record_is_refused(monkeypatch):
    paper = laws_module(monkeypatch, "toy_laws_none", PAPER_LAW=PaperLaws(claims=(), laws=(), smoke={"toy": SMOKE}))
    with pytest.raises(UserError, match=r"defines no PAPER_LAWS = PaperLaws.*did you mean 'PAPER_LAW'"):
        paper.load_laws()


def test_a_study_without_a_smoke_config_or_unknown_to_the_paper_is_refused(monkeypatch):
    missing = laws_module(monkeypatch, "toy_laws_nosmoke", PAPER_LAWS=PaperLaws(claims=(), laws=(), smoke={}))
    with pytest.raises(UserError, match="no smoke config for the study 'toy'"):
        missing.load_laws()
    record = PaperLaws(claims=(), laws=(), smoke={"toy": SMOKE}, run_summary={"tyo": print})
    stray = laws_module(monkeypatch, "toy_laws_stray", PAPER_LAWS=record)
    with pytest.raises(UserError, match=r"PaperLaws\(run_summary=...\): unknown study 'tyo'; did you mean 'toy'"):
        stray.load_laws()
    with pytest.raises(UserError, match="give two or more"):
        Smoke({"steps": 2}, ({},))


def test_every_installed_study_has_a_smoke_config_and_the_contract_tests_run_it():
    sys.path.insert(0, str(Path(__file__).parent))
    import test_trainer_contract

    studies = [study for paper in papers() for study in paper.studies]
    assert list(smoke_configs()) == studies and len(studies) >= 7
    assert test_trainer_contract.STUDIES == studies
    compiled = test_trainer_contract.test_the_compiled_step_equals_the_eager_step
    (marker,) = [m for m in compiled.pytestmark if m.name == "parametrize"]
    assert list(marker.args[1]) == studies  # compiled = eager over every installed study, CUDA = CPU likewise


def test_a_law_is_shown_where_its_table_row_is(tmp_path, monkeypatch):
    """A builder's laws are found at the rows that call it, not at the builder's one `return Law(...)`."""
    source = tmp_path / "toy_table_laws.py"
    source.write_text(
        "from iclscale.analysis.kinds import PowerLaw\n"
        "from iclscale.analysis.law import Law\n"
        "from iclscale.analysis.measures import FinalValue\n"
        "\n"
        "def build(x):\n"
        "    return Law(name=f'toy.y_vs_{x}', study='toy', claim='', citation='', conditions='', prediction_text='',\n"
        "               measure=FinalValue('y'), x=x, predict=lambda p: None, kind=PowerLaw())\n"
        "\n"
        "ROWS = (\n"
        "    build('a'),\n"
        "    build('b'),\n"
        ")\n"
        "DIRECT = Law(name='toy.direct', study='toy', claim='', citation='', conditions='', prediction_text='',\n"
        "             measure=FinalValue('y'), x='c', predict=lambda p: None, kind=PowerLaw())\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import toy_table_laws

    from iclscale.analysis.laws import definition_sites

    sites = definition_sites([*toy_table_laws.ROWS, toy_table_laws.DIRECT])
    assert sites == {"toy.y_vs_a": f"{source}:10", "toy.y_vs_b": f"{source}:11", "toy.direct": f"{source}:13"}


def test_every_law_is_defined_at_a_line_of_its_papers_laws():
    from iclscale.analysis.laws import LAWS, definition_sites
    from iclscale.paper import REPOSITORY

    sites = definition_sites(LAWS.values())
    assert set(sites) == set(LAWS)
    for name, site in sites.items():
        path, line = site.rsplit(":", 1)
        assert "/laws/" in path, (name, site)
        assert 1 <= int(line) <= len((REPOSITORY / path).read_text().splitlines()), (name, site)

"""The catalogue in one home: each paper declares its tag and seed (iclscale.paper), the sweep files are parsed once
into Sweeps (iclscale.catalogue), and no other module reads a sweep file's YAML or parses a citation."""

import ast
from pathlib import Path

import pytest

from iclscale.errors import UserError
from iclscale.paper import by_citation, find_papers, papers

PACKAGE = Path(__file__).resolve().parents[1] / "iclscale"

# every module that calls a YAML loader, and what it reads: one of them, spec.py, reads sweep files
YAML_READERS = {
    "iclscale/sweeps/spec.py": "a sweep file (the one parser: iclscale.catalogue indexes what it returns)",
    "iclscale/sweeps/yamlsafe.py": "the bounded loader itself, and one number's text (yaml_number)",
    "iclscale/sweeps/store_frozen.py": "a results directory's frozen sweep.yaml, which `sweep run` wrote",
    "iclscale/sweeps/ray_executor.py": "Ray's bootstrap config",
    "iclscale/paper.py": "a paper's quotes.yaml",
}
LOADERS = {"safe_load", "load", "full_load", "unsafe_load", "load_yaml", "safe_load_all", "load_all"}


def yaml_loading_calls(tree: ast.AST) -> list[str]:
    """The calls of a YAML loader in a module: `yaml.<loader>(…)`, or `load_yaml(…)` imported from yamlsafe."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in LOADERS and ast.unparse(func.value) == "yaml":
            found.append(ast.unparse(func))
        elif isinstance(func, ast.Name) and func.id in ("load_yaml", "safe_load"):
            found.append(func.id)
    return found


def citation_parsing(tree: ast.AST) -> list[str]:
    """Where a module takes a citation apart: a string method, an index or a regular expression applied to an
    expression naming a citation, or a pattern for its tag ("[C24]") or seed ("seed 004")."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = ast.unparse(node.func.value)
            arguments = " ".join(ast.unparse(a) for a in node.args)
            if "law.citation" in target:  # a law's own citation ("Thm 2, eq. 5"), not the paper's, may be cut
                continue
            if "citation" in target and node.func.attr not in ("lower", "__eq__"):
                found.append(ast.unparse(node))
            elif target == "re" and "citation" in arguments:
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Subscript) and "citation" in ast.unparse(node.value).replace("law.citation", ""):
            found.append(ast.unparse(node))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "seed (\\d" in node.value or "\\[([^\\]]" in node.value:
                found.append(repr(node.value))
    return found


def scan(check, framework_only: bool = False) -> dict[str, list[str]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if framework_only and PACKAGE / "papers" in path.parents:
            continue
        hits = check(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if hits:
            found[path.relative_to(PACKAGE.parent).as_posix()] = hits
    return found


def test_one_module_reads_a_sweep_files_yaml():
    """Only the modules of YAML_READERS load YAML, and of those only spec.py reads sweep files: the ledger and
    `iclscale reproduce` take a sweep's laws, seeds, steps and quick: block from iclscale.catalogue."""
    assert set(scan(yaml_loading_calls)) == set(YAML_READERS)


def test_no_module_parses_a_citation():
    """No framework module takes a paper's tag or seed out of its citation (a paper's own laws may cut their own
    citations, "Thm 2, eq. 5", which are not the paper's)."""
    assert scan(citation_parsing, framework_only=True) == {}


def test_the_checks_see_a_yaml_reader_and_a_citation_parsed():
    planted = ast.parse(
        "import re, yaml\nraw = yaml.safe_load(text)\ntag = re.search(r'\\[([^\\]]+)\\]', name)\n"
        "seed = paper.citation.rsplit(', ', 1)[-1]\n"
    )
    assert yaml_loading_calls(planted) == ["yaml.safe_load"]
    assert len(citation_parsing(planted)) == 3  # the tag's pattern, the rsplit and its index


def test_every_paper_declares_a_unique_tag_and_its_seed():
    found = papers()
    tags = [p.tag for p in found]
    assert len(tags) == len(set(tags)) and all(tags)
    for paper in found:  # what the citation shows is what the paper declares
        assert f"[{paper.tag}]" in paper.citation and (not paper.seed or f"seed {paper.seed}" in paper.citation)
    assert [p.citation for p in by_citation()] == sorted(p.citation for p in found)


def test_a_paper_is_found_by_tag_seed_study_or_name():
    c24 = next(p for p in papers() if p.tag == "C24")
    for name in ("C24", "[C24]", "c24", c24.seed, f"seed {c24.seed}", c24.studies[0], c24.name, c24.citation):
        assert find_papers([name]) == [c24], name
    assert find_papers(["C24", "C24", c24.name]) == [c24]  # each once
    with pytest.raises(UserError, match=r"unknown paper 'X99'; papers: .*C24 \(seed"):
        find_papers(["X99"])


def test_the_index_holds_every_sweep_file_parsed_with_its_quick_block():
    from iclscale.catalogue import files_by_law, sweep_named, sweeps, sweeps_of_paper, sweeps_of_studies
    from iclscale.paper import sweep_files

    index = sweeps()
    assert [Path(s.path).resolve() for s in index] == [p.resolve() for p in sweep_files()]
    assert sum(len(sweeps_of_paper(p)) for p in papers()) == len(index)
    quick = [s for s in index if s.quick]
    assert quick and all(isinstance(s.quick, dict) for s in quick)  # C24's oracle and Y24's Figure 1 have one
    for sweep in index:
        assert sweep_named(sweep.name) is sweep
        assert sweep in sweeps_of_studies({sweep.study.name})
        for law in sweep.laws:
            assert any(Path(sweep.path).name in shown for shown in files_by_law()[law])
    assert sweep_named("no such sweep") is None


def test_a_sweep_file_keeps_its_quick_block(tmp_path):
    from iclscale.sweeps.spec import load_sweep

    demo = (PACKAGE / "papers/softmax_window/sweeps/demo.yaml").read_text(encoding="utf-8")
    path = tmp_path / "q.yaml"
    path.write_text(demo + "quick: {eval_prompts: 64, record: {log: 10}}\n", encoding="utf-8")
    assert load_sweep(path).quick == {"eval_prompts": 64, "record": {"log": 10}}
    assert "quick" not in load_sweep(path).resolved()  # not part of the frozen sweep

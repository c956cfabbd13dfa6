"""The architecture, held by reading the source (docs/design.md, "Layering").

One import name, `iclscale`, and one direction:

    iclscale.errors, iclscale.moved,
    iclscale.paper, iclscale.paper_laws    neutral: import nothing of the project but each other
    iclscale.trainer                       the packed trainer; finds studies through iclscale.paper
    iclscale.sweeps                        sweep files, plans, executors, the store; runs the trainer
    iclscale.catalogue                     every paper's sweep files, parsed once (by iclscale.sweeps.spec)
    iclscale.analysis                      reads the store, judges laws; never the trainer, never torch
    iclscale.papers.<paper>                a paper's studies (trainer side) and laws (analysis side)
    iclscale.cli, iclscale.reproduce       the command line, which composes them all (`reproduce`: sweeps, then the
                                           ledger)

The framework (trainer, sweeps, analysis, paper, errors) names no paper: a study's name appears outside its
paper's folders (iclscale/papers/<paper>/, tests/papers/<paper>/) only in the list of built-in papers and the files
NAMES_A_STUDY lists, tests and benchmarks included. No paper imports another but through iclscale/papers/common/,
which imports no paper. In a paper's folder, the declarations, the laws and the
package itself stay torch-free (listing studies, planning a sweep and judging laws import no torch); the
study, model and data modules are the trainer side. No module imports, through others, one that imports it (an
import inside a function counts; one under `if TYPE_CHECKING:` names a type and never runs, one under
`if __name__ == "__main__":` runs only as a script). No module of the package is over 450 lines, and no function is
over McCabe complexity 10 but where its docstring says why, in a sentence starting "Complexity:".
"""

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "iclscale"
PAPERS = PACKAGE / "papers"
COMMAND_LINE = ("iclscale.cli", "iclscale.reproduce")
FRAMEWORK = (
    "iclscale.trainer",
    "iclscale.sweeps",
    "iclscale.analysis",
    "iclscale.paper",
    "iclscale.paper_laws",
    "iclscale.catalogue",
    "iclscale.errors",
)


def imported_modules(path: Path) -> set[str]:
    """Every module an `import` or `from … import` statement in the file names, at any depth (inside functions
    too); `from package import module` names both."""
    return imported_modules_of(ast.parse(path.read_text(), str(path)))


def imported_modules_of(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def within(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def files_of(*prefixes: str) -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if within(module_name(p), prefixes)]


def imports_from(prefixes, forbidden) -> list[str]:
    """`file imports module` for every import of a module under `forbidden` by a file under `prefixes`."""
    found = []
    for path in files_of(*prefixes):
        for name in sorted(imported_modules(path)):
            if within(name, forbidden):
                found.append(f"{path.relative_to(ROOT)} imports {name}")
    return found


def paper_modules() -> list[str]:
    return [f"iclscale.papers.{p.name}" for p in sorted(PAPERS.iterdir()) if (p / "__init__.py").exists()]


def test_one_import_name():
    """Installing the distribution adds `iclscale` to site-packages and nothing else."""
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'include = \["iclscale\*"\]', text)
    assert [p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()] == ["iclscale"]


def test_the_neutral_modules_import_nothing_of_the_project_but_errors_and_the_list_of_papers():
    assert imports_from(("iclscale.errors", "iclscale.moved"), ("iclscale",)) == []
    found = imports_from(("iclscale.paper", "iclscale.paper_laws"), ("iclscale",))
    neutral = ("iclscale.errors", "iclscale.moved", "iclscale.papers", "iclscale.paper_laws")
    assert [line for line in found if not within(line.split(" imports ")[1], neutral)
            or within(line.split(" imports ")[1], tuple(paper_modules()))] == []  # fmt: skip


def test_the_trainer_imports_neither_sweeps_nor_analysis_nor_the_command_line():
    assert imports_from(("iclscale.trainer",), ("iclscale.sweeps", "iclscale.analysis", *COMMAND_LINE)) == []


def test_sweeps_import_neither_analysis_nor_the_command_line():
    assert imports_from(("iclscale.sweeps",), ("iclscale.analysis", *COMMAND_LINE)) == []


def test_the_catalogue_sits_on_the_papers_and_the_sweep_files_parser_and_only_above_them():
    """iclscale.catalogue indexes the papers' sweep files through iclscale.paper and the one parser
    (iclscale.sweeps.spec); the trainer and the sweeps never import it (the analysis and the command line do)."""
    allowed = ("iclscale.paper", "iclscale.errors", "iclscale.sweeps.spec")
    found = imports_from(("iclscale.catalogue",), ("iclscale",))
    assert [line for line in found if not within(line.split(" imports ")[1], allowed)] == []
    assert imports_from(("iclscale.trainer", "iclscale.sweeps", "iclscale.paper"), ("iclscale.catalogue",)) == []


def test_analysis_imports_neither_the_trainer_nor_torch():
    assert imports_from(("iclscale.analysis",), ("iclscale.trainer", "torch", *COMMAND_LINE)) == []


def test_the_framework_imports_no_paper():
    """Papers are found through iclscale.paper (the built-in list and entry points), never imported by name."""
    assert imports_from(FRAMEWORK, tuple(paper_modules())) == []


def test_a_papers_declarations_laws_and_package_stay_torch_free():
    found = []
    for paper in paper_modules():
        torch_free = (paper, f"{paper}.declaration", f"{paper}.laws")
        for path in files_of(*torch_free):
            if module_name(path) == paper or within(module_name(path), torch_free[1:]):
                found += [f"{path.relative_to(ROOT)} imports {n}" for n in imported_modules(path)
                          if within(n, ("torch", "iclscale.trainer.study", "iclscale.trainer.training"))]  # fmt: skip
    assert found == []


def test_config_classes_are_made_in_one_place():
    """A study's config class is made from its params by iclscale.trainer.configclass (each param declared once):
    no other module of the package makes a dataclass at run time or writes into its own globals()."""
    maker = PACKAGE / "trainer" / "configclass.py"
    found = [str(path.relative_to(ROOT)) for path in sorted(PACKAGE.rglob("*.py"))
             if path != maker and re.search(r"make_dataclass\(|globals\(\)\[", path.read_text())]  # fmt: skip
    assert found == []
    assert "make_dataclass(" in maker.read_text()  # the check reads the right file


MAX_MODULE_LINES = 450  # issue 37 point 3: a module a reader can hold


def test_no_module_of_the_package_is_over_450_lines():
    """Lines counted as `wc -l` counts them (newline characters); a module over the limit is split by responsibility."""
    lines = {
        path.relative_to(ROOT).as_posix(): path.read_bytes().count(b"\n") for path in sorted(PACKAGE.rglob("*.py"))
    }
    over = {path: n for path, n in lines.items() if n > MAX_MODULE_LINES}
    assert over == {}, f"modules over {MAX_MODULE_LINES} lines: " + ", ".join(f"{p} ({n})" for p, n in over.items())


MAX_COMPLEXITY = 10  # issue 37 point 3: a function a reader can hold
EXEMPTION = "Complexity:"  # the docstring's sentence that says why a function over MAX_COMPLEXITY stays one


def too_complex_functions(root: Path, package: str = "iclscale") -> list[str]:
    """`path:line name (complexity)` for every function of the package that ruff's McCabe check (C901) finds over
    MAX_COMPLEXITY and whose docstring has no EXEMPTION sentence (a flat list of checks that reads best in one place
    says so there)."""
    command = [sys.executable, "-m", "ruff", "check", package, "--no-cache", "--select", "C901", "--output-format",
               "json", "--config", f"lint.mccabe.max-complexity={MAX_COMPLEXITY}"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=root, timeout=300)
    assert done.returncode in (0, 1), done.stderr  # 1: something was found
    found = []
    for problem in json.loads(done.stdout):
        path, line = Path(problem["filename"]).resolve(), problem["location"]["row"]
        nodes = ast.walk(ast.parse(path.read_text(), str(path)))
        function = next(f for f in nodes if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.lineno == line)
        if EXEMPTION not in (ast.get_docstring(function) or ""):
            complexity = re.search(r"\((\d+) > \d+\)", problem["message"]).group(1)
            found.append(f"{path.relative_to(root.resolve()).as_posix()}:{line} {function.name} ({complexity})")
    return found


def needs_ruff() -> None:
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is in the dev extra: pip install -e .[dev]")


def test_no_function_of_the_package_is_over_complexity_10_but_where_its_docstring_says_why():
    """McCabe complexity as ruff counts it (C901); a function over the limit is split into a helper per step, or
    says in its docstring, in a sentence starting "Complexity:", why it stays one function."""
    needs_ruff()
    over = too_complex_functions(ROOT)
    assert over == [], f"over complexity {MAX_COMPLEXITY} without a {EXEMPTION!r} sentence: " + ", ".join(over)


def test_the_complexity_check_sees_a_function_over_the_limit(tmp_path):
    needs_ruff()
    checks = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(MAX_COMPLEXITY))  # 1 + 10 branches
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        f'def plain(x):\n{checks}\n\ndef flat(x):\n    """Ten checks. Complexity: a flat list."""\n{checks}\n'
        f"\ndef small(x):\n    if x:\n        return 1\n"
    )
    assert too_complex_functions(tmp_path, "pkg") == [f"pkg/m.py:1 plain ({MAX_COMPLEXITY + 1})"]


def test_a_papers_laws_do_not_import_its_trainer_side():
    found = []
    for paper in paper_modules():
        trainer_side = [m for m in map(module_name, files_of(paper)) if not within(m, (f"{paper}.laws",))]
        trainer_side = [m for m in trainer_side if m not in (paper, f"{paper}.declaration")]
        found += imports_from((f"{paper}.laws",), tuple(trainer_side))
    assert found == []


SCANNED = ("iclscale", "tests", "benchmarks", "scripts", "examples")  # every Python file of the repository
LIST_OF_PAPERS = "iclscale/papers/__init__.py"  # the built-in papers, by folder name
EXAMPLE = "uses softmax_window, the smallest and fastest built-in study, as its worked example of a study"
REAL_LAW = "uses a real law and its claim as the worked example (a planted result needs a law that exists)"
THRESHOLD = "nonlinear_icl's l_tr vs α is the catalogue's threshold search, the worked example of one"
PEERS = "benchmarks the trainer on fixed configs of named studies; the peers write the same models in torch and JAX"
SW, ORACLE, NL = {"softmax_window"}, {"softmax_window", "softmax_window_oracle"}, {"nonlinear_icl"}
# Files outside a paper's folders that name a study today, each with the studies it names and why. Shrink it: a file
# here that stops naming one of its studies fails the test until its entry does too.
NAMES_A_STUDY = {
    "benchmarks/calibration.py": (
        {"feature_selector"},
        "calibrates the Curve kind's interval on feature_selector's law",
    ),
    "benchmarks/device_check.py": (NL | SW, PEERS),
    "benchmarks/device_profile.py": (SW, PEERS),
    "benchmarks/end_to_end.py": (SW, PEERS),
    "benchmarks/launch_count.py": (SW, PEERS),
    "benchmarks/packing_throughput.py": (SW, PEERS),
    "benchmarks/peer_throughput.py": (NL | SW, PEERS),
    "benchmarks/peers/iclscale_run.py": (NL | SW, PEERS),
    "benchmarks/peers/jax_loop.py": (NL | SW, PEERS),
    "benchmarks/peers/settings.py": (NL | SW, PEERS),
    "benchmarks/peers/torch_loop.py": (NL | SW, PEERS),
    "benchmarks/ray_pack_overhead.py": (SW, PEERS),
    "benchmarks/store_write.py": (SW, PEERS),
    "tests/conftest.py": (SW, EXAMPLE),
    "tests/test_analysis_laws.py": ({"cooccurrence", *ORACLE}, "the registry, with softmax_window's laws as example"),
    "tests/test_analysis_report.py": (SW, EXAMPLE),
    "tests/test_analysis_userfit.py": (NL | SW, REAL_LAW),
    "tests/test_benchmarks_design_power.py": (NL, REAL_LAW),
    "tests/test_benchmarks_peers.py": (NL | SW, PEERS),
    "tests/test_catalogue.py": (SW, EXAMPLE),
    "tests/test_cli.py": (SW, EXAMPLE),
    "tests/test_compile_decision.py": (SW, EXAMPLE),
    "tests/test_cost.py": (ORACLE, EXAMPLE),
    "tests/test_device_check.py": (SW, EXAMPLE),
    "tests/test_external_paper.py": (SW, "a second paper declaring a built-in study's name must be refused"),
    "tests/test_launch_count.py": (SW, EXAMPLE),
    "tests/test_law_charts.py": (NL, THRESHOLD),
    "tests/test_layering.py": ({"cooccurrence", "feature_selector", "mamba_outliers", *NL, *ORACLE}, "this list"),
    "tests/test_ledger.py": ({"feature_selector", *NL, *SW}, REAL_LAW),
    "tests/test_live_progress.py": (SW, EXAMPLE),
    "tests/test_malformed_inputs.py": (SW, EXAMPLE),
    "tests/test_nothing_silent.py": ({"mamba_outliers", *SW}, "a real study's run too big for memory, and the example"),
    "tests/test_object_store.py": (SW, EXAMPLE),
    "tests/test_one_graph.py": (ORACLE, EXAMPLE),
    "tests/test_packing.py": (ORACLE, EXAMPLE),
    "tests/test_params.py": (SW, EXAMPLE),
    "tests/test_precompiled.py": (SW, EXAMPLE),
    "tests/test_ray_faults.py": (SW, EXAMPLE),
    "tests/test_ray_sweeps.py": (SW, EXAMPLE),
    "tests/test_refine_hook.py": (SW, EXAMPLE),
    "tests/test_replay.py": (SW, EXAMPLE),
    "tests/test_reproduce.py": (SW, EXAMPLE),
    "tests/test_search.py": (SW, EXAMPLE),
    "tests/test_search_study_file.py": (SW, EXAMPLE),
    "tests/test_store.py": (SW, EXAMPLE),
    "tests/test_store_checksums.py": (SW, EXAMPLE),
    "tests/test_store_faults.py": (SW, EXAMPLE),
    "tests/test_sweep_spec.py": ({"feature_selector", *SW}, "a sweep file's checks need a real study's params"),
    "tests/test_threshold_eval.py": (NL, THRESHOLD),
    "tests/test_threshold_search.py": (NL, THRESHOLD),
    "tests/test_threshold_spec.py": (NL, THRESHOLD),
    "tests/test_trainer_contract.py": (NL | SW, "the example, and a study that refuses an optimizer (nonlinear_icl)"),
    "tests/test_two_node_cluster.py": (SW, EXAMPLE),
    "tests/test_wayfinding.py": ({"mamba_outliers", *SW}, "finds a real law's sweep files and package"),
}


def studies_named_outside_their_paper(root: Path, studies: dict[str, str]) -> dict[str, set[str]]:
    """`grep -rlw <study> --include=*.py` over SCANNED: file (relative to root) -> the studies (name -> its paper's
    folder name) it names, leaving out each study's own folders (iclscale/papers/<paper>/, tests/papers/<paper>/) and
    the list of papers."""
    patterns = {study: re.compile(rf"\b{re.escape(study)}\b") for study in studies}
    found = {}
    for path in sorted(p for top in SCANNED for p in (root / top).rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative == LIST_OF_PAPERS:
            continue
        text = path.read_text()
        own = {s: (f"iclscale/papers/{paper}/", f"tests/papers/{paper}/") for s, paper in studies.items()}
        named = {s for s, pattern in patterns.items() if pattern.search(text) and not relative.startswith(own[s])}
        if named:
            found[relative] = named
    return found


def built_in_studies() -> dict[str, str]:
    from iclscale.paper import papers

    return {study: paper.name for paper in papers() if (PAPERS / paper.name).is_dir() for study in paper.studies}


def test_a_study_is_named_outside_its_papers_folders_only_where_listed():
    """No file outside iclscale/papers/<paper>/ and tests/papers/<paper>/ names one of the paper's studies, tests
    and benchmarks included, but the list of papers and the exceptions in NAMES_A_STUDY (each with its reason)."""
    found = studies_named_outside_their_paper(ROOT, built_in_studies())
    allowed = {path: studies for path, (studies, _) in NAMES_A_STUDY.items()}
    assert {path: sorted(s) for path, s in found.items() if s - allowed.get(path, set())} == {}
    assert {path: sorted(s - found.get(path, set())) for path, s in allowed.items() if s - found.get(path, set())} == {}


def test_the_study_check_sees_a_study_named_outside_its_paper(tmp_path):
    (tmp_path / "tests" / "papers" / "p").mkdir(parents=True)
    (tmp_path / "tests" / "papers" / "q").mkdir(parents=True)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "tests" / "papers" / "p" / "test_p.py").write_text('STUDY = "alpha"  # its own paper\n')
    (tmp_path / "tests" / "papers" / "q" / "test_q.py").write_text('OTHER = "alpha"  # another paper\'s\n')
    (tmp_path / "benchmarks" / "b.py").write_text('run("alpha_beta", "beta")\n')
    found = studies_named_outside_their_paper(tmp_path, {"alpha": "p", "beta": "p", "alpha_beta": "q"})
    assert found == {"benchmarks/b.py": {"alpha_beta", "beta"}, "tests/papers/q/test_q.py": {"alpha"}}


def cross_paper_imports(root: Path, papers: list[str]) -> list[str]:
    """`file imports module` for every import by a paper's file (iclscale/papers/<paper>/, tests/papers/<paper>/)
    of another paper's module: papers share code only through iclscale/papers/common/, which imports no paper."""
    found = []
    for paper in [*papers, "common"]:
        others = tuple(f"iclscale.papers.{p}" for p in papers if p != paper)
        for folder in (root / "iclscale" / "papers" / paper, root / "tests" / "papers" / paper):
            for path in sorted(folder.rglob("*.py")):
                found += [f"{path.relative_to(root).as_posix()} imports {name}"
                          for name in sorted(imported_modules(path)) if within(name, others)]  # fmt: skip
    return found


def test_no_paper_imports_another_but_through_common():
    papers = [p.split(".")[-1] for p in paper_modules() if p != "iclscale.papers.common"]
    assert len(papers) >= 2  # the check compares something
    assert cross_paper_imports(ROOT, papers) == []


def test_the_paper_check_sees_one_paper_importing_another(tmp_path):
    for folder in ("iclscale/papers/p", "iclscale/papers/q", "iclscale/papers/common", "tests/papers/q"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "iclscale/papers/p/laws.py").write_text("from iclscale.papers.common.patterns import x\n")
    (tmp_path / "iclscale/papers/q/model.py").write_text("def f():\n    from iclscale.papers.p.laws import L\n")
    (tmp_path / "tests/papers/q/test_q.py").write_text("import iclscale.papers.q.model\nimport iclscale.papers.p\n")
    (tmp_path / "iclscale/papers/common/patterns.py").write_text("import iclscale.papers.q\n")
    assert cross_paper_imports(tmp_path, ["p", "q"]) == [
        "iclscale/papers/q/model.py imports iclscale.papers.p.laws",
        "iclscale/papers/q/model.py imports iclscale.papers.p.laws.L",
        "tests/papers/q/test_q.py imports iclscale.papers.p",
        "iclscale/papers/common/patterns.py imports iclscale.papers.q",
    ]


def run_time_imported_modules(path: Path) -> set[str]:
    """`imported_modules` less the imports under `if TYPE_CHECKING:`, which never run (they name types for
    annotations: a block parser's `sweep: Sweep`, say, where spec.py imports the block parser), and under
    `if __name__ == "__main__":`, which runs only when the module is a script, never when imported."""
    tree = ast.parse(path.read_text(), str(path))
    skipped = ("TYPE_CHECKING", "typing.TYPE_CHECKING", "__name__ == '__main__'")
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in skipped:
            node.body = [ast.Pass()]
    return imported_modules_of(tree)


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports when it runs (at any depth, inside functions too; a name resolves
    to the longest module it starts with, so `from iclscale.sweeps.spec import Sweep` is an edge to
    iclscale.sweeps.spec)."""
    files = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    graph = {}
    for module, path in files.items():
        targets = set()
        for name in run_time_imported_modules(path):
            parts = name.split(".")
            while parts and ".".join(parts) not in files:
                parts.pop()
            if parts and ".".join(parts) != module:
                targets.add(".".join(parts))
        graph[module] = targets
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_import_cycle_among_the_projects_modules():
    """Every import counts, inside functions too: a module that imports another lazily still depends on it."""
    graph = import_graph()
    cycles = import_cycles(graph)
    text = "\n".join(
        f"{len(c)} modules: " + "; ".join(f"{m} -> {', '.join(sorted(graph[m] & set(c)))}" for m in c) for c in cycles
    )
    assert cycles == [], f"import cycles:\n{text}"


def reachable(graph: dict[str, set[str]], module: str) -> set[str]:
    """Every project module `module` imports, directly or through others."""
    seen, todo = set(), [module]
    while todo:
        for target in graph[todo.pop()] - seen:
            seen.add(target)
            todo.append(target)
    return seen


def test_parsing_a_sweep_file_imports_no_executor_and_the_memory_sizer_no_trainer():
    """spec.py (the sweep file) sits below planning and the executors; footprint.py measures a short run it is
    handed, so it imports neither the training loop nor the measurements it sizes."""
    graph = import_graph()
    executors = ("plan", "execute", "run", "ray_executor", "search", "search_optuna", "search_ray", "threshold")
    assert reachable(graph, "iclscale.sweeps.spec") & {f"iclscale.sweeps.{m}" for m in executors} == set()
    assert reachable(graph, "iclscale.trainer.footprint") & {"iclscale.trainer.training", "iclscale.trainer.measuring",
                                                              "iclscale.trainer.study"} == set()  # fmt: skip


def test_the_cycle_check_sees_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert import_cycles(graph) == [["a", "b", "c"]]


def test_the_checks_see_a_forbidden_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from iclscale.errors import UserError\n    import torch.nn as nn\n")
    assert imported_modules(module) == {"iclscale.errors", "iclscale.errors.UserError", "torch.nn"}


@pytest.mark.parametrize(
    "module",
    ["iclscale.analysis.laws", "iclscale.analysis.reader", "iclscale.analysis.report", "iclscale.analysis.cli"],
)
def test_importing_analysis_loads_neither_the_trainer_nor_torch_nor_plotting(module):
    heavy = "('torch', 'altair', 'matplotlib')"  # plotting is imported by the command that draws
    code = f"import json, sys, {module}; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy} "
    code += "or m.startswith('iclscale.trainer'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_reading_a_results_directory_loads_neither_the_trainer_nor_torch(tmp_path):
    """analysis reads the store through iclscale.sweeps.store_read: reading a real directory must not pull the trainer
    in."""
    from iclscale.sweeps.store import Location, write_fragment
    from iclscale.sweeps.store_frozen import write_frozen_sweep

    location = Location(str(tmp_path))
    write_frozen_sweep(location, {"name": "t", "study": "toy", "laws": [], "params": {"x": {"role": "train"}}})
    write_fragment(location, "pack-1", [{"run_id": "r", "sweep": "t", "study": "toy", "seed": 0, "x": 1.0,
                                        "status": "ok", "eval_key": "{}", "y": 2.0}], [])  # fmt: skip
    code = (
        "import json, sys\nfrom iclscale.analysis.reader import load_results\n"
        f"assert len(load_results({str(tmp_path)!r}).runs) == 1\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'torch' "
        "or m.startswith('iclscale.trainer'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("iclscale.studies.softmax_window.study", "iclscale.papers.softmax_window.study"),
        ("iclscale.studies.patterns", "iclscale.papers.common.patterns"),
        ("analysis.reader", "iclscale.analysis.reader"),
        ("sweeps.store", "iclscale.sweeps.store"),
        ("iclscale.training", "iclscale.trainer.training"),
        ("usererror", "iclscale.errors"),
    ],
)
def test_an_old_module_path_says_where_it_moved(old, new):
    import importlib

    from iclscale.moved import moved_to

    assert moved_to(old) == new
    if "<" not in new:
        importlib.import_module(new)  # the new place exists
    assert moved_to("iclscale.trainer.training") is None and moved_to("analysisx") is None


def test_a_study_implemented_at_an_old_module_path_gets_the_moved_to_line():
    from dataclasses import replace

    from iclscale.errors import UserError
    from iclscale.trainer.registry import study_info

    old = replace(study_info("softmax_window"), implementation="iclscale.studies.softmax_window.study:SoftmaxWindow")
    with pytest.raises(UserError, match=re.escape("moved to iclscale.papers.softmax_window.study")):
        old.load()


def catalogue_sweep(mode: str) -> Path:
    """The first catalogue sweep file with a `search:` or `threshold:` block."""
    import yaml

    from iclscale.paper import sweep_files

    return next(p for p in sweep_files() if (yaml.safe_load(p.read_text()) or {}).get(mode) is not None)


@pytest.mark.parametrize("mode", ["search", "threshold", "grid"])
def test_planning_a_sweep_loads_no_torch(mode, tmp_path):
    """`iclscale sweep plan` expands and checks a sweep file (a search's metric against the study's declared ones)
    without training: it imports no torch."""
    path = "demo" if mode == "grid" else str(catalogue_sweep(mode))
    code = (
        "import contextlib, io, json, sys\nfrom iclscale.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    code = main(['sweep', 'plan', {path!r}, '--out', "
        f"{str(tmp_path / 'out')!r}])\n"
        "print(json.dumps([code, sorted(m for m in sys.modules if m.split('.')[0] == 'torch')]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [0, []]

"""The built-in studies' declarations: the same params as the snapshot taken before they were rewritten in the
compact form (tests/data/declared_params.json), and config classes in step with them."""

import ast
import importlib
import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from iclscale.papers import BUILT_IN
from iclscale.trainer.params import Param
from iclscale.trainer.registry import StudyInfo

SNAPSHOT = Path(__file__).parent / "data" / "declared_params.json"


def built_in_studies():
    for name in BUILT_IN:
        yield from importlib.import_module(f"iclscale.papers.{name}").PAPER.load_declarations()


def as_json(p: Param) -> dict:
    """Every field of a param; the type by name. JSON keeps 3 and 3.0 apart."""
    return {f.name: (p.type.__name__ if f.name == "type" else getattr(p, f.name)) for f in fields(p)}


def dump() -> str:
    studies = {info.name: [as_json(p) for p in info.params] for info in built_in_studies()}
    return json.dumps(studies, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def test_declared_params_equal_the_snapshot():
    """Name, type, default (int or float), role, range, choices, symbol, meaning, added_later, ... and order."""
    assert dump() == SNAPSHOT.read_text()


if __name__ == "__main__":  # python tests/test_declarations.py: rewrite the snapshot (only for a deliberate change)
    SNAPSHOT.write_text(dump())


def test_every_built_in_study_declares_its_config_class():
    assert all(info.config is not None for info in built_in_studies())


def test_every_c_of_a_study_function_is_annotated_with_its_config_class():
    """Unannotated, a function's `c.<name>` reads would escape the check at load."""
    loose = []
    for path in sorted((Path(__file__).parents[1] / "iclscale" / "papers").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                loose += [
                    f"{path.name}:{node.lineno} {node.name}"
                    for a in node.args.args
                    if a.arg == "c" and not a.annotation
                ]
    assert loose == []


def small_study(tmp_path, monkeypatch, body: str, config_fields: str = "d: int\n    lr: Tensor") -> StudyInfo:
    """A study `tiny` with one shape param d and the recipe, its config class and a study whose `module` is `body`."""
    module = "tiny_" + "".join(ch if ch.isalnum() else "_" for ch in tmp_path.name)  # one module per test
    (tmp_path / f"{module}.py").write_text(
        "from __future__ import annotations\n"
        "from dataclasses import dataclass\n"
        "from iclscale.trainer.study import Study\n\n\n"
        "@dataclass(frozen=True)\n"
        "class TinyConfig:\n"
        f"    {config_fields}\n"
        "    rng: Stream\n"
        "    const: dict[str, Tensor]\n\n\n"
        "class Tiny(Study):\n"
        f"    def module(self, c: TinyConfig):\n        {body}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    config = importlib.import_module(module).TinyConfig
    params = (Param.shape("d", 3, "a width", low=1), Param.train("lr", 0.1, "a learning rate"))
    return StudyInfo("tiny", "t", "p", params, f"{module}:Tiny", config=config)


def test_a_config_class_out_of_step_with_the_params_is_refused(tmp_path, monkeypatch):
    with pytest.raises(TypeError, match=r"needs lr: Tensor.*has lr: float"):
        small_study(tmp_path, monkeypatch, "return c.d", config_fields="d: int\n    lr: float")


def test_a_misspelt_config_attribute_fails_when_the_study_is_loaded(tmp_path, monkeypatch):
    info = small_study(tmp_path, monkeypatch, "return c.lr_ * c.d")
    with pytest.raises(AttributeError, match=r"tiny_\w+.py:\d+: c.lr_ is not a field of TinyConfig.*lr"):
        info.load()


def test_a_correct_study_loads(tmp_path, monkeypatch):
    info = small_study(tmp_path, monkeypatch, "return c.lr * c.d + len(c.const) + hash(c.rng)")
    assert info.load().info is info


def test_declarations_and_their_config_classes_import_no_torch():
    """The config classes name Tensor and Stream for editors only (under TYPE_CHECKING)."""
    code = (
        "import sys; from tests.test_declarations import built_in_studies; list(built_in_studies()); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch'))"
    )
    root = Path(__file__).parents[1]
    found = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"

"""The built-in studies' declarations: the same params as the snapshot taken before they were rewritten in the
compact form (tests/data/declared_params.json), and config classes made from them (each param declared once)."""

import ast
import importlib
import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from iclscale.papers import BUILT_IN
from iclscale.trainer import configclass
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


def test_each_config_class_has_one_field_per_shape_and_train_param_and_is_bound_in_its_study_module():
    for info in built_in_studies():
        shape, train = info.names("shape"), info.names("train")
        made = {f.name: f.type for f in fields(info.config)}
        assert made == {**{n: made[n] for n in shape}, **dict.fromkeys(train, "Tensor"), **configclass.VIEW_FIELDS}
        assert all(made[p.name] == p.type.__name__ + (" | None" if p.nullable else "") for p in info.params
                   if p.role == "shape")  # fmt: skip
        module = importlib.import_module(info.config.__module__)  # pickle finds it there, by name
        assert getattr(module, info.config.__name__) is info.config, info.name


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


def small_study(tmp_path, monkeypatch, body: str, prelude: str = "", **given) -> StudyInfo:
    """A study `tiny` with one shape param d and a train param lr, and a study whose `module` is `body`."""
    module = "tiny_" + "".join(ch if ch.isalnum() else "_" for ch in tmp_path.name)  # one module per test
    (tmp_path / f"{module}.py").write_text(
        "from __future__ import annotations\n"
        "from iclscale.trainer.study import Study\n"
        f"{prelude}\n\n"
        "class Tiny(Study):\n"
        f"    def module(self, c: TinyConfig):\n        {body}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    params = (Param.shape("d", 3, "a width", low=1), Param.train("lr", 0.1, "a learning rate"))
    return StudyInfo("tiny", "t", "p", params, f"{module}:Tiny", **given)


def test_the_config_class_is_made_from_the_params_and_put_in_the_study_module(tmp_path, monkeypatch):
    info = small_study(tmp_path, monkeypatch, "return c.d")
    assert [(f.name, f.type) for f in fields(info.config)] == [
        ("d", "int"), ("lr", "Tensor"), ("rng", "Stream"), ("const", "dict[str, Tensor]")
    ]  # fmt: skip
    study = info.load()
    assert vars(importlib.import_module(info.config.__module__))["TinyConfig"] is info.config is study.info.config


def test_a_study_module_binding_another_class_under_the_config_name_is_refused(tmp_path, monkeypatch):
    info = small_study(tmp_path, monkeypatch, "return c.d", prelude="class TinyConfig:\n    pass")
    with pytest.raises(TypeError, match=r"TinyConfig is not the config class made from its declaration"):
        info.load()


def test_a_config_base_the_params_do_not_give_is_refused(tmp_path, monkeypatch):
    base = configclass.shared_base("Base", __name__, (Param.train("d", 0.5, "a rate"),))  # d: Tensor, not int
    with pytest.raises(TypeError, match=r"do not give the fields of Base \(d: Tensor"):
        small_study(tmp_path, monkeypatch, "return c.d", config_base=base)


def test_a_shared_base_holds_the_fields_every_study_has_alike():
    one = (Param.shape("d", 3, "w"), Param.shape("n", 2, "n"), Param.train("lr", 0.1, "η"))
    other = (Param.shape("d", 3, "w"), Param.train("n", 2.0, "n as a rate"), Param.train("lr", 0.1, "η"))
    base = configclass.shared_base("Base", __name__, one, other)
    assert [f.name for f in fields(base)] == ["d", "lr", "rng", "const"]  # n differs: int in one, Tensor in other


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

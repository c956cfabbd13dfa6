"""A study's config class: the typed view `c` of one config that its functions receive (iclscale.trainer.study).

A paper declares it once, as a frozen dataclass with one field per shape param (its Python type), one per train
param (`Tensor`: 0-d under vmap), then `rng: Stream` and `const: dict[str, Tensor]`, and names it in its
`StudyInfo(config=...)`; `python -m iclscale.trainer.configclass STUDY` prints it from the declared params (its
module has `from __future__ import annotations`: annotations are compared as written, and torch is imported for
editors only, under TYPE_CHECKING, so that the declarations stay torch-free). Two
checks keep it honest, both torch-free: the declaration (`check_fields`, when the StudyInfo is made) and every
`c.<name>` a study function reads (`check_reads`, when the study is loaded), so that a misspelt attribute fails
then, not under vmap.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import sys
from typing import TYPE_CHECKING

from iclscale.errors import did_you_mean

if TYPE_CHECKING:
    from iclscale.trainer.registry import StudyInfo

VIEW_FIELDS = {"rng": "Stream", "const": "dict[str, Tensor]"}
"""What every view holds besides the params: the config's random stream and its constants."""


def expected_fields(info: StudyInfo) -> dict[str, str]:
    """Field name -> annotation (as written) of the study's config class."""
    fields = {}
    for p in info.params:
        if p.role == "shape":
            fields[p.name] = p.type.__name__ + (" | None" if p.nullable else "")
        elif p.role == "train":
            fields[p.name] = "Tensor"
    return {**fields, **VIEW_FIELDS}


def check_fields(info: StudyInfo) -> None:
    """The config class has exactly the fields of the declared shape and train params, with their types."""
    assert info.config is not None
    declared = {f.name: f.type for f in dataclasses.fields(info.config)}
    expected = expected_fields(info)
    if declared != expected:
        missing = [f"{n}: {t}" for n, t in expected.items() if declared.get(n) != t]
        extra = [f"{n}: {t}" for n, t in declared.items() if expected.get(n) != t]
        raise TypeError(
            f"study {info.name}: config class {info.config.__name__} is out of step with the declared params "
            f"(needs {', '.join(missing) or 'nothing more'}; has {', '.join(extra) or 'nothing else'}); "
            f"print it afresh with python -m iclscale.trainer.configclass {info.name}"
        )


def source(info: StudyInfo, name: str) -> str:
    """The config class of a study, as Python source for its paper's config module."""
    lines = [
        "@dataclass(frozen=True)",
        f"class {name}:",
        f'    """One config of `{info.name}` as its study functions see it (iclscale.trainer.study)."""',
        "",
    ]
    lines += [f"    {field}: {annotation}" for field, annotation in expected_fields(info).items()]
    return "\n".join(lines) + "\n"


def check_reads(study_class: type, config: type) -> None:
    """Every `c.<name>` read by a function whose parameter `c` is annotated with `config` (or one of its bases, or
    a type variable bound to one), in the modules that define the study class and its bases, names a field or
    attribute of that class."""
    classes = {cls.__name__: cls for cls in config.__mro__ if dataclasses.is_dataclass(cls)}
    modules = {cls.__module__ for cls in study_class.__mro__ if cls.__module__ in sys.modules}
    problems = [problem for name in sorted(modules) for problem in _bad_reads(sys.modules[name], classes)]
    if problems:
        raise AttributeError("\n".join(problems))


@functools.cache
def _tree(module) -> tuple[ast.Module, str] | None:
    try:
        text = inspect.getsource(module)
    except (OSError, TypeError):  # no source (a frozen or compiled-only module): nothing to check
        return None
    return ast.parse(text), inspect.getsourcefile(module) or module.__name__


def _bad_reads(module, classes: dict[str, type]) -> list[str]:
    parsed = _tree(module)
    if parsed is None:
        return []
    tree, path = parsed
    problems = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = function.args.posonlyargs + function.args.args + function.args.kwonlyargs
        typed = {a.arg: classes[name] for a in arguments if (name := _class_name(module, a)) in classes}
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in typed:
                cls = typed[node.value.id]
                names = {f.name for f in dataclasses.fields(cls)}
                if node.attr not in names and not hasattr(cls, node.attr):
                    problems.append(
                        f"{path}:{node.lineno}: {node.value.id}.{node.attr} is not a field of {cls.__name__}"
                        f"{did_you_mean(node.attr, names)}"
                    )
    return problems


def _class_name(module, argument: ast.arg) -> str | None:
    """The name of the class an argument is annotated with; for a type variable, its bound's."""
    annotation = argument.annotation
    if annotation is None:
        return None
    text = annotation.value if isinstance(annotation, ast.Constant) else ast.unparse(annotation)
    name = str(text).rsplit(".", 1)[-1]
    bound = getattr(getattr(module, name, None), "__bound__", None)
    return bound.__name__ if isinstance(bound, type) else name


if __name__ == "__main__":  # python -m iclscale.trainer.configclass STUDY [CLASS_NAME]
    from iclscale.trainer.registry import study_info

    study = study_info(sys.argv[1])
    default_name = study.implementation.rpartition(":")[2] + "Config"
    print(source(study, sys.argv[2] if len(sys.argv) > 2 else default_name), end="")

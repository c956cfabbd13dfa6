"""A study's config class: the typed view `c` of one config that its functions receive (iclscale.trainer.study).

Made here from the declared params, never written by hand, so that a param is declared once (its `Param(...)`):
a frozen dataclass with one field per shape param (its Python type), one per train param (`Tensor`: 0-d under
vmap), then `rng: Stream` and `const: dict[str, Tensor]`; the annotations are text, so declarations stay
torch-free. `of(info)` is the class of a study, named after its study class (`NonlinearICL` ->
`NonlinearICLConfig`) and placed in the study's module, which binds that name for its annotations (and pickle
finds it there): `NonlinearICLConfig = configclass.of(NONLINEAR_ICL)`. Several studies of a paper whose functions
are shared take a common base, the fields they all have (`shared_base`, named by `StudyInfo(config_base=...)`).

Loading a study checks every `c.<name>` a study function reads (`check_reads`, torch-free) against its class, so
that a misspelt attribute fails then, not under vmap.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from iclscale.errors import did_you_mean

if TYPE_CHECKING:
    from iclscale.trainer.params import Param
    from iclscale.trainer.registry import StudyInfo

VIEW_FIELDS = {"rng": "Stream", "const": "dict[str, Tensor]"}
"""What every view holds besides the params: the config's random stream and its constants."""


def fields_of(params: Iterable[Param]) -> dict[str, str]:
    """Field name -> annotation (as text) of a config class holding these params."""
    fields = {}
    for p in params:
        if p.role == "shape":
            fields[p.name] = p.type.__name__ + (" | None" if p.nullable else "")
        elif p.role == "train":
            fields[p.name] = "Tensor"
    return {**fields, **VIEW_FIELDS}


def class_name(info: StudyInfo) -> str:
    """`NonlinearICL` -> `NonlinearICLConfig`: the config class is named after the study class."""
    return info.implementation.rpartition(":")[2] + "Config"


@functools.cache
def of(info: StudyInfo) -> type:
    """The config class of a study: one field per shape and train param, `rng` and `const` (module docstring).
    Made once per declaration (equal declarations, e.g. one unpickled in a Ray worker, share it)."""
    fields = fields_of(info.params)
    bases: tuple[type, ...] = ()
    if info.config_base is not None:
        inherited = {f.name: f.type for f in dataclasses.fields(info.config_base)}
        wrong = [f"{n}: {t}" for n, t in inherited.items() if fields.get(n) != t]
        if wrong:
            raise TypeError(
                f"study {info.name}: its params do not give the fields of {info.config_base.__name__} "
                f"({', '.join(wrong)})"
            )
        fields = {n: t for n, t in fields.items() if n not in inherited}
        bases = (info.config_base,)
    module = info.implementation.partition(":")[0]
    doc = f"One config of `{info.name}` as its study functions see it (iclscale.trainer.study)."
    return _dataclass(class_name(info), module, list(fields.items()), bases, doc)


def shared_base(name: str, module: str, *studies: tuple[Param, ...]) -> type:
    """A base class of several studies' config classes: the fields that every one of them has, alike (what their
    shared functions may read), made in `module`, which binds it as `name`."""
    each = [fields_of(params) for params in studies]
    common = [(n, t) for n, t in each[0].items() if all(other.get(n) == t for other in each[1:])]
    doc = "What the config of each study that shares these functions holds (iclscale.trainer.configclass)."
    return _dataclass(name, module, common, (), doc)


def _dataclass(name: str, module: str, fields: list[tuple[str, str]], bases: tuple[type, ...], doc: str) -> type:
    made = dataclasses.make_dataclass(name, fields, bases=bases, frozen=True)
    made.__module__ = module  # where pickle (a saved compiled step) finds it by name
    made.__doc__ = doc
    return made


def bind(info: StudyInfo, module) -> None:
    """Put the study's config class in its module under its name where the module has not bound it (a study that
    annotates no `c`): pickle finds a class there by name. A module that binds another class under that name is
    out of step with its declaration."""
    made, name = of(info), class_name(info)
    bound = getattr(module, name, None)
    if bound is None:
        setattr(module, name, made)
    elif bound is not made:
        raise TypeError(
            f"study {info.name}: {module.__name__}.{name} is not the config class made from its declaration; "
            f"bind it as {name} = configclass.of(<its StudyInfo>)"
        )


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

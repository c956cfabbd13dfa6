"""`key=value` overrides on the command line, as Hydra has them: every variation without a YAML edit.

    iclscale sweep run demo seeds=5 sigma=[0.5,1,2] steps=200 pack_size=64 name=demo_small

- a dotted path sets that key of the file: `grid.L=[0.1,1]`, `fixed.d=3`, `eval.L_test=[1,2]`,
  `resources.pack_size=64`, `seeds=5`, `name=x`, `search.trials=4`;
- a param's bare name puts it where its value says: a list under `grid` (eval-role params: `eval`),
  one value under `fixed` (or `eval`), and takes it out of the other of fixed and grid;
- `pack_size`, `cpu` and `gpu` are short for `resources.pack_size`, `.cpu`, `.gpu`.

Values are YAML (`[0.1, 1]`, `null`, `true`), read with the sweep file's limits. The overridden
sweep is validated like the file (messages name the override instead of a line) and frozen, with
the overrides listed, into the results directory's sweep.yaml.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from iclscale.errors import UserError, did_you_mean, shorten
from iclscale.sweeps.yamlsafe import Marks, parse_value
from iclscale.trainer.registry import study_info

RESOURCE_SHORTHANDS = ("pack_size", "cpu", "gpu")
KEY_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def apply_overrides(
    raw: dict[str, Any], overrides: list[str] | tuple[str, ...], marks: Marks, where: str, top_level: tuple[str, ...]
) -> dict:
    """The sweep file's mapping with every override applied; `marks` learns which paths they set. `top_level`: the
    keys a sweep file may have (iclscale.sweeps.spec.TOP_LEVEL_KEYS)."""
    raw = copy.deepcopy(raw)
    given: dict[str, str] = {}  # what each override sets (a param wherever it goes) -> the override
    for item in overrides:
        key, sep, text = item.partition("=")
        key = key.strip()
        label = f"override {shorten(item)}"
        if not sep or not KEY_PATTERN.fullmatch(key):
            raise UserError(f"{label}: expected KEY=VALUE, e.g. seeds=5, L=[0.1,1] or grid.sigma=[0.5,1]")
        value = parse_value(text, label)
        path = _path(raw, key, value, label, top_level)
        target = path[-1] if path[0] in ("fixed", "grid", "eval") and len(path) == 2 else ".".join(path)
        if target in given:  # `L=1 L=2`: the last would win silently
            raise UserError(f"{label}: {target} is already set by override {given[target]}; give it once")
        given[target] = shorten(item, 80)
        if path[0] in ("fixed", "grid", "eval") and isinstance(value, str) and "," in value:
            raise UserError(f"{label}: {comma_list_hint(key, text)}")
        _set(raw, path, value, label)
        marks.overrides[".".join(path)] = item if len(item) <= 80 else shorten(item, 80)
    return raw


def comma_list_hint(key: str, text: str) -> str:
    """What to say to `sigma=0.5,1,2`: Hydra's multirun list; here a list is YAML's flow form."""
    return f"a comma list is Hydra's multirun syntax; write the list as {key}=[{text.strip()}]"


def _path(raw: dict[str, Any], key: str, value: Any, label: str, top_level: tuple[str, ...]) -> list[str]:
    parts = key.split(".")
    if parts[0] in top_level:
        return parts
    if key in RESOURCE_SHORTHANDS:
        return ["resources", key]
    study = raw.get("study")
    if len(parts) == 1 and isinstance(study, str):
        try:
            param = study_info(study).param(key, label)
        except UserError:
            param = None
        if param is not None:
            if param.role == "eval":
                return ["eval", key]
            place, other = ("grid", "fixed") if isinstance(value, list) else ("fixed", "grid")
            if isinstance(raw.get(other), dict):
                raw[other].pop(key, None)  # the override replaces the param wherever the file had it
            return [place, key]
    names = [*top_level, *RESOURCE_SHORTHANDS]
    if isinstance(study, str):
        try:
            names += [p.name for p in study_info(study).params]
        except UserError:
            pass
    raise UserError(
        f"{label}: {key!r} is neither a key of a sweep file nor a param of study {shorten(study)}"
        f"{did_you_mean(key, names)}; keys: {', '.join(top_level)}"
    )


def _set(raw: dict[str, Any], path: list[str], value: Any, label: str) -> None:
    node = raw
    for part in path[:-1]:
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        if not isinstance(child, dict):
            raise UserError(f"{label}: {part} is {shorten(child)} in the sweep file, not a mapping")
        node = child
    node[path[-1]] = value

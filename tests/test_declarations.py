"""The built-in studies' declarations: the same params as the snapshot taken before they were rewritten in the
compact form (tests/data/declared_params.json), and config classes in step with them."""

import json
from dataclasses import fields
from pathlib import Path

from iclscale.papers import BUILT_IN
from iclscale.trainer.params import Param

SNAPSHOT = Path(__file__).parent / "data" / "declared_params.json"


def built_in_studies():
    import importlib

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

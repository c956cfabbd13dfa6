"""The law registry: every law by name (declared in `iclscale.analysis.catalogue`), and the check the
sweeps CLI runs on a sweep file's `laws:` list. Imports no torch and no plotting (tests/test_layering.py), but every
installed paper's laws, and with them pandas (imported at module level by iclscale.analysis.kinds.power and .flat and
by some papers' laws): about 1 s to import, a third to a half of it pandas (`python -X importtime`, measured
0.7–0.9 s with pandas 0.3–0.7 s on a loaded machine)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from iclscale.analysis.catalogue import ALL_LAWS
from iclscale.analysis.law import Law
from iclscale.errors import UserError

LAWS: dict[str, Law] = {law.name: law for law in ALL_LAWS}
if len(LAWS) != len(ALL_LAWS):  # an installed paper's law must not silently replace another's
    twice = sorted({law.name for law in ALL_LAWS if sum(other.name == law.name for other in ALL_LAWS) > 1})
    raise UserError(f"two papers declare a law called {', '.join(twice)}")


def get_law(name: str, where: str = "law") -> Law:
    if name not in LAWS:
        raise UserError(f"{where}: unknown law {name!r}; known laws: {', '.join(sorted(LAWS)) or 'none yet'}")
    return LAWS[name]


def laws_of_study(study: str) -> list[Law]:
    return [law for law in LAWS.values() if law.study == study]


def definition_sites(laws: Iterable[Law]) -> dict[str, str]:
    """Where each law is defined, "file:line": of the lines that built it (`Law.built_at`, from its Law(...) out to
    module level), the one the fewest other laws share, the outermost on a tie: a table's row or a builder's call
    with this law's arguments, not the builder's one `return Law(...)` nor a module's `LAWS = (*build(1), ...)`."""
    laws = list(laws)
    shared = Counter(line for law in laws for line in set(law.built_at))
    return {law.name: min(reversed(law.built_at), key=shared.__getitem__, default="") for law in laws}


def check_law_names(names: list[str], study: str, where: str) -> None:
    """Refuse a sweep's law that is unknown, or that reads another study's results."""
    for name in names:
        law = get_law(name, where)
        if law.study != study:
            own = ", ".join(sorted(law.name for law in laws_of_study(study))) or "none"
            raise UserError(
                f"{where}: law {name!r} is about study {law.study!r}, not {study!r}; laws of {study}: {own}"
            )

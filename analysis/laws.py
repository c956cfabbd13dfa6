"""The theory-law registry (filled by the analysis package)."""

from __future__ import annotations

from iclscale.errors import UserError

LAWS: dict = {}


def check_law_names(names: list[str], study: str, where: str) -> None:
    for name in names:
        if name not in LAWS:
            known = ", ".join(sorted(LAWS)) or "none yet"
            raise UserError(f"{where}: unknown law {name!r}; known laws: {known}")

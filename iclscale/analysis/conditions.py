"""A theorem's conditions, one at a time: what each assumes (explicit, a hidden constant, measured on the run) and
the value the hidden constants are taken at. `iclscale.analysis.law.Regime` gathers them for a law;
`iclscale.analysis.select.regime_constant` applies them (this module imports nothing of the project, so both can)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

EXPLICIT, HIDDEN_CONSTANT, MEASURED = "explicit", "hidden constant", "measured on the run"
CONDITION_KINDS = (EXPLICIT, HIDDEN_CONSTANT, MEASURED)
CONSTANTS = 1.0
"""The value every hidden Ω/O constant of a theorem is taken at when a point is judged inside or outside its
conditions (the papers give none; this tool's choice). `LawFit.c_star` says how far from it each fit is."""


@dataclass(frozen=True)
class Condition:
    """One condition of a theorem, labelled by what it assumes:

    - `explicit`: stated with every number (m ≥ 4·M1²·ln N, η ≤ 1, a cyclic task set); `test(rows)` is a
      boolean per row;
    - `hidden constant`: an order condition lhs ≥ Ω(rhs) whose constant the paper does not give; `test(rows)`
      is lhs / rhs per row, the largest constant at which the row meets it (inside at constants `CONSTANTS` when
      ≥ `CONSTANTS`);
    - `measured on the run`: something the proof needs of the trained run itself (convergence of the quantity a
      lemma is about, a norm bound at t = 0); `test(results, rows)` is a boolean per row, and must hold for
      every seed of a config."""

    text: str
    kind: str
    test: Callable[..., Any]

    def __post_init__(self):
        if self.kind not in CONDITION_KINDS:
            raise ValueError(f"Condition.kind must be one of {', '.join(CONDITION_KINDS)}, not {self.kind!r}")

    def describe(self) -> str:
        return f"{self.text} [{self.kind}]"


__all__ = ["CONDITION_KINDS", "CONSTANTS", "EXPLICIT", "HIDDEN_CONSTANT", "MEASURED", "Condition"]

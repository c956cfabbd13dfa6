"""The interface every kind of law implements (see iclscale.analysis.kinds)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from iclscale.analysis.law import default_axes, default_symbol

if TYPE_CHECKING:
    from iclscale.analysis.law import Law, Prediction
    from iclscale.analysis.lawfit import Estimate
    from iclscale.analysis.reader import Results
    from iclscale.analysis.select import Group
    from iclscale.analysis.verdict import Verdict


class Kind:
    """The interface iclscale.analysis.evaluate calls; defaults for a law whose x is a param or derived variable."""

    name: ClassVar[str] = "law"
    # the band's default widening (iclscale.analysis.verdict), in the statistic's units
    tolerance: ClassVar[float] = 0.0
    power_form: ClassVar[bool] = False  # the statistic is an exponent: "consistent" needs the power law shown
    form_required: bool = False  # a rejected form is inconsistent (the theory requires it), not inconclusive
    form_decides: bool = True  # False for a sign claim read off an exponent: a bent curve still has a sign

    def axes(self, law: Law) -> tuple[str, ...]:
        return default_axes(law)

    def x_label(self, law: Law) -> str:
        return law.x or ""

    def x_symbol(self, law: Law) -> str:
        return default_symbol(law)

    def prepare(self, law: Law, measured):
        """The measured rows, with any column the kind adds (e.g. a transformed x)."""
        return measured

    def predict(self, law: Law, group: Group) -> Prediction | None:
        return law.predict(group.params)

    def estimate(self, law: Law, group: Group, prediction, results: Results, context: dict) -> Estimate:
        raise NotImplementedError

    def judge(self, law: Law, prediction: Prediction, estimate: Estimate) -> Verdict | None:
        """A kind's own verdict; None: the shared rule (evidence → form → band)."""
        return None


@dataclass(frozen=True)
class TransformedX(Kind):
    """A kind whose x may be a fixed function of one swept param: x = transform(param), written to the column
    named by the law's x (e.g. T ∝ M1·√(ln M1): x = "M1_sqrt_ln_M1"; ℒ = c0 + c1·L'²: x = "L_test_squared")."""

    transform: Callable[[Any], Any] | None = None
    param: str = ""  # the swept param (never grouped)
    x_text: str = ""  # how charts and fits.csv write the transform

    def axes(self, law: Law) -> tuple[str, ...]:
        return (self.param,) if self.transform else super().axes(law)

    def x_label(self, law: Law) -> str:
        return self.x_text or super().x_label(law)

    def x_symbol(self, law: Law) -> str:
        return self.x_text or super().x_symbol(law)

    def prepare(self, law: Law, measured):
        if self.transform is None or self.param not in measured:
            return measured
        return measured.assign(**{law.x: self.transform(np.asarray(measured[self.param], dtype=float))})

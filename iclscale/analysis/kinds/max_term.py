"""measure ∝ max{c1·x^p, c2·x^q, …} with unknown constants: the exponent p of one term of a max{}, e.g. the
κ_a^(−2) of [LM25]'s batch size B_M = max{B_T, β^(−4)V²κ_a^(−2)(1 − p_a)^(−2) log ε^(−1)} (Thm 1 (i)), where B_T
does not depend on κ_a (q = 0). Which term dominates over the swept range is set by the constants the theorem
hides, so a fitted exponent identifies p only where it is told apart from every other term's exponent.

Fitted like `PowerLaw` (the same exponent, interval, form checks). The prediction's primary band is the point
p; `others` are the exponents of the max{}'s other terms in x. The verdict (this tool's rule, not from any
paper) refines the shared rule's (evidence → form → band against p):

- consistent only if the interval also misses every other term's exponent; one meeting p and some q as well
  is inconclusive (the term is not identified: either may dominate);
- an interval that misses p but meets the envelope [min, max] of all the terms' exponents is inconclusive: a
  max{} of power laws has local exponents anywhere in it (another term dominates, or the range holds the
  crossover);
- inconsistent only if the interval misses the envelope, which no max{} of these terms can produce.

Generic, though one paper's laws use it today: any law of a max{} of power terms takes this form, and the
planted controls (iclscale.analysis.controls) plan for it by name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from iclscale.analysis.kinds.power import PowerLaw
from iclscale.analysis.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Band, Verdict


@dataclass(frozen=True)
class MaxTerm(PowerLaw):
    others: tuple[float, ...] = ()  # the exponents in x of the max{}'s other terms (0 for a term free of x)

    name: ClassVar[str] = "max{} term"

    def envelope(self, named: float) -> Band:
        exponents = (named, *self.others)
        return Band(min(exponents), max(exponents))

    def judge(self, law, prediction, estimate) -> Verdict:
        from iclscale.analysis.evaluate import shared_verdict

        shared = shared_verdict(law, prediction, estimate)
        named = prediction.primary.band.low
        low, high = estimate.ci_low, estimate.ci_high
        interval = f"interval [{low:.3g}, {high:.3g}]"
        tolerance = law.rule.band_tolerance(self.tolerance, prediction.primary.mode)
        if shared.verdict == CONSISTENT:  # each other term's exponent widened by the same tolerance
            met = [q for q in self.others if Band.point(q).widened(tolerance).meets(low, high)]
            if not met:
                return replace(shared, reason=f"{shared.reason}, and misses the other terms' {_list(self.others)}")
            return Verdict(
                INCONCLUSIVE,
                f"{interval} meets this term's {named:g} and the other term's {_list(met)}: which term of the "
                "max{} dominates here is not identified",
            )
        widened = prediction.primary.band.widened(tolerance)
        band_miss = shared.verdict == INCONSISTENT and not widened.meets(low, high)
        if not band_miss:
            return shared  # too little evidence, or not a power law: as the shared rule says
        envelope = self.envelope(named)
        if envelope.meets(low, high):
            return Verdict(
                INCONCLUSIVE,
                f"{interval} misses this term's {named:g} but meets the envelope {envelope.describe()} of the "
                f"max{{}}'s terms ({_list((named, *self.others))}): another term dominates, or the range holds "
                "the crossover; this term is not identified here",
            )
        return Verdict(INCONSISTENT, f"{interval} misses even the envelope {envelope.describe()} of the max{{}}'s "
                       f"terms ({_list((named, *self.others))})")  # fmt: skip


def _list(values) -> str:
    return ", ".join(f"{v:g}" for v in values)

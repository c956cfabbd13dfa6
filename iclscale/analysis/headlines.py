"""The report's headlines: one sentence per fitted law (per group where a law fits several), made from the fit,
never typed: where the claim comes from, what was measured in the paper's symbols, the estimate and its
interval, the prediction and the verdict, with the short reason of an outside or inconclusive one, e.g.

    C1, Thm 3.4: ‖M‖₂ ∝ Λ^γ [lo, hi], inside the band [a, b]: consistent   (γ, lo, hi: the fit's; a, b: the theory's)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from iclscale.analysis import verdict as verdict_rule
from iclscale.analysis.conditions import CONSTANTS

if TYPE_CHECKING:
    from iclscale.analysis.law import Law
    from iclscale.analysis.lawfit import LawFit

SHOWN_GROUPS = 3  # a law fitted on more groups shows this many headlines, the rest folded
SHORT_VERDICT = {verdict_rule.OUTSIDE: "outside"}


def source(fit: LawFit) -> str:
    """Where the law's claim comes from: the paper's experiment's figure, else the claim's label and source
    (C1, Thm 3.4) where a catalogue claim lists the law, else the citation's first part."""
    if fit.experiment is not None:
        return fit.experiment.figure
    claims = claims_of_law(fit.law.name)
    if claims:
        return "; ".join(f"{c.label}, {c.source}" for c in claims)
    from iclscale.analysis.page import _without_asides

    return _without_asides(fit.law.citation.split(";")[0], shortest=1).strip() or fit.law.name


def claims_of_law(name: str) -> list:
    """The catalogue's claims that list the law (none for a law of no installed paper)."""
    from iclscale.analysis.catalogue import PAPERS

    return [claim for _, package in PAPERS.values() for claim in package.claims if name in claim.laws]


def y_symbol(law: Law) -> str:
    """The measured quantity as the paper writes it (the measure's symbol), else its short name."""
    return law.measure.symbol or law.measure.label


def measured(fit: LawFit) -> str:
    """The estimate and its interval in the paper's terms: `‖M‖₂ ∝ Λ^γ [lo, hi]` for a power law."""
    from iclscale.analysis.page import num

    if not math.isfinite(fit.estimate):
        inside = " inside the theorem's conditions" if fit.verdict.verdict == verdict_rule.OUTSIDE else ""
        return f"{y_symbol(fit.law)}: no estimate{inside}"
    interval = f"[{num(fit.ci_low)}, {num(fit.ci_high)}]"
    if fit.law.kind.name == "power law" and fit.law.x:
        return f"{y_symbol(fit.law)} ∝ {fit.law.x_symbol}^{num(fit.estimate)} {interval}"
    return f"{fit.statistic or y_symbol(fit.law)} = {num(fit.estimate)} {interval}"


def predicted(fit: LawFit) -> str:
    """The prediction and where the interval lies against it: `inside the band [a, b]`."""
    if fit.prediction is None:
        return "no prediction for this group"
    band = fit.prediction.primary.band
    if band.low == band.high:
        return f"predicted {band.describe()}"
    where = "the band" if math.isfinite(band.low) and math.isfinite(band.high) else "the predicted"
    if not (math.isfinite(fit.ci_low) and math.isfinite(fit.ci_high)):
        return f"{where} {band.describe()}"
    low, high = fit.ci_low, fit.ci_high
    if band.contains(low, high):
        return f"inside {where} {band.describe()}"
    tolerance = fit.tolerance  # the verdict's widening of the band, where the law's rule has one
    if tolerance > 0 and band.widened(tolerance).contains(low, high):
        return f"inside {where} {band.describe()} widened by {tolerance:.3g}"
    return f"{'overlapping' if band.meets(low, high) else 'outside'} {where} {band.describe()}"


def verdict_text(fit: LawFit) -> str:
    """The verdict, with its short reason where it is outside or inconclusive."""
    from iclscale.analysis.page import VERDICT_TEXT, brief_reason

    verdict = fit.verdict.verdict
    word = SHORT_VERDICT.get(verdict, verdict)
    if verdict not in (verdict_rule.OUTSIDE, verdict_rule.INCONCLUSIVE):
        return word
    if verdict == verdict_rule.OUTSIDE and 0 < fit.c_star < CONSTANTS:
        return f"{word}: inside only if the hidden constants were ≤ c* = {fit.c_star:.3g}"
    if verdict == verdict_rule.OUTSIDE and fit.c_star == 0:
        return (
            f"{word}: no value of the hidden constants brings a point inside (an explicit or measured condition fails)"
        )
    reason = brief_reason(fit.verdict.reason, limit=90, verdict=VERDICT_TEXT.get(verdict, verdict))
    return f"{word}: {reason}" if reason else word


def headline(fit: LawFit, several_groups: bool = False) -> str:
    """One sentence of the fit: source, group (where the law has several), estimate, prediction, verdict."""
    group = f" ({fit.group_label})" if several_groups and fit.group_label else ""
    return f"{source(fit)}{group}: {measured(fit)}, {predicted(fit)}: {verdict_text(fit)}"


def headlines_html(fits: list[LawFit]) -> str:
    """The block at the top of the report: a list of headlines, each linking to its law's section (#law-i);
    a law's groups past SHOWN_GROUPS are folded."""
    from iclscale.analysis.page import e

    if not fits:
        return '<section id="headlines" class="headlines"><p class="note">No law was fitted.</p></section>'
    by_law: dict[str, list[int]] = {}
    for index, fit in enumerate(fits):
        by_law.setdefault(fit.law.name, []).append(index)
    items = []
    for indices in by_law.values():
        several = len(indices) > 1
        lines = [
            f'<li class="{fits[i].verdict.verdict}-line" data-law="{e(fits[i].law.name)}" '
            f'data-group="{e(fits[i].group_label)}"><a href="#law-{i}">{e(headline(fits[i], several))}</a></li>'
            for i in indices
        ]
        items += lines[:SHOWN_GROUPS]
        if len(lines) > SHOWN_GROUPS:
            rest = len(lines) - SHOWN_GROUPS
            items.append(
                f"<li><details><summary>{rest} more group{'s' if rest > 1 else ''} of {e(fits[indices[0]].law.name)}"
                f"</summary><ul>{''.join(lines[SHOWN_GROUPS:])}</ul></details></li>"
            )
    return f'<section id="headlines" class="headlines"><ul>{"".join(items)}</ul></section>'

"""[LM25]'s laws against the statements the paper printed (issue 23, point 2): where a law asks more than printed,
it says so (iclscale.analysis.law.VersusPrinted), without changing what it judges. Kept apart from the law
modules so that the labels of the whole paper read in one place."""

from __future__ import annotations

from dataclasses import replace

from iclscale.analysis.law import STRONGER, Law, VersusPrinted

SUFFICIENT_T = VersusPrinted(
    STRONGER,
    "Thms 1 and 3 give a T after which the model generalises (Eqs. 9, 14); the exponent reads it as the T needed",
)
IFF_WINDOW = VersusPrinted(
    STRONGER,
    "Thm 1 (ii) gives the window Vβ^(−4) ≲ κ_a ≲ Vβ(1 − p_a)/(p_a ε) as sufficient (Remark 1 explains why outside it "
    "may fail); the law also asks the hinge to fail outside it ('iff'), with the ≲ constants taken as 1",
)
SUFFICIENT_L_TS = VersusPrinted(
    STRONGER,
    "Thm 2 (d) / Thm 4 (d) give an l_ts that suffices (Eqs. 12, 15); the exponent reads it as the l_ts needed",
)
POLY_AS_INVERSE_M1 = VersusPrinted(
    STRONGER, "Cor. 2 (i) bounds outlier gates by poly(M1)^(−1) with no degree or constant; the law takes 1/M1"
)


def _label(law: Law) -> VersusPrinted | None:
    short = law.name.split(".", 1)[1]
    if "_T_vs_" in short or short == "T_ratio_vs_l_tr":
        return SUFFICIENT_T
    if short.startswith("mamba_kappa_a_"):
        return IFF_WINDOW
    if "_l_ts_threshold" in short:
        return SUFFICIENT_L_TS
    if short.startswith("outlier_gate_small"):
        return POLY_AS_INVERSE_M1
    return None


def labelled(laws: tuple[Law, ...]) -> tuple[Law, ...]:
    """The laws, each with its label where it departs from the printed statement (and none set already)."""
    return tuple(
        replace(law, versus_printed=_label(law)) if law.versus_printed is None and _label(law) else law for law in laws
    )

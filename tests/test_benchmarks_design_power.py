"""benchmarks/design_power.py: it finds the catalogue's power-law designs as the sweep files hold them, and a
design over a decade has power where the same seeds over 0.4 decades have none (the form needs a decade)."""

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import design_power


def test_it_reads_each_catalogue_designs_x_levels_and_seeds():
    found = {(d.sweep, d.law): d for d in design_power.designs()}
    design = found[("nonlinear_icl_law_T_vs_alpha", "nonlinear_icl.T_vs_alpha")]
    assert design.x == (0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0) and design.seeds == 6 and not design.paired
    assert found[("nonlinear_icl_law_l_ts_vs_alpha_test", "nonlinear_icl.l_ts_vs_alpha_test")].paired  # α' is eval


def test_a_decade_has_power_where_0_4_decades_have_none():
    design = next(d for d in design_power.designs() if d.law == "nonlinear_icl.T_vs_alpha")
    _, _, wide = design_power.power((design, 0.1, 20, 1))
    _, _, narrow = design_power.power((replace(design, x=(0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)), 0.1, 20, 1))
    assert sum(wide.values()) == sum(narrow.values()) == 20
    assert wide["consistent"] >= 3 and narrow["consistent"] == 0  # power ≈ 0.4 over a decade at 6 seeds, sd 0.1

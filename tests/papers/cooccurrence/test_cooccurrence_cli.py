"""The cooccurrence study's bad values are refused in one line, exit 2, before anything trains."""

import pytest

from iclscale.cli import main


@pytest.mark.parametrize(
    "setting, says",
    [
        ("n=62", "multiple of 6"),  # Assumption 2.3(i)'s exact type counts
        ("n_test=100", "multiple of 6"),
        ("L=2", "L must be"),  # a type-1 sequence holds μ1, μ2 and μ3
        ("init=xavier", "init must be one of"),
        ("readout=foo", "readout must be one of"),
        ("tokens=distinct", "163"),  # d = 64 < 3 + 160 (Assumption 2.3(ii))
        ("optimizer=adam", "optimizer"),  # the paper's full-batch GD only
    ],
)
def test_bad_values_exit_2_in_one_line(setting, says, tmp_path, capsys):
    try:
        code = main(["train", "cooccurrence", "--set", setting, "--json", "--out", str(tmp_path / "r")])
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("iclscale: error: ") and says in err[0], err
    assert not (tmp_path / "r").exists()


def test_train_json_says_when_phase1_ends_and_when_the_one_target_losses_peak(tmp_path, capsys):
    """`iclscale train cooccurrence --json` carries the run's course: T1 and the type-2/3 peaks (a small model at
    a large step, so that both phases fit in a few hundred steps)."""
    import json

    small = ["d=24", "n=12", "m=16", "m1=8", "steps=300", "lr=0.15", "n_test=60"]
    code = main(["train", "cooccurrence", "--json", *(a for s in small for a in ("--set", s))])
    out = json.loads(capsys.readouterr().out)
    course = out["course"]
    assert code in (0, None) and course["loss_falls"] and course["loss_end"] < course["loss_start"]
    assert course["T1"] > 0 and course["T1_step"] * 0.15 == pytest.approx(course["T1"])
    peaks_before = 0 < course["T_peak_type2"] < course["T1"] and 0 < course["T_peak_type3"] < course["T1"]
    assert course["one_target_losses_peak_before_T1"] == peaks_before

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

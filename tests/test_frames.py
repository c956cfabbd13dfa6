import numpy as np
import pandas as pd

from iclscale.analysis.frames import joined


def test_joined_is_the_row_wise_join_of_the_values_as_text():
    frame = pd.DataFrame({"m": [64, 128, 64], "c0": [0.3, 0.1, 0.3], "init": ["theory", "kaiming", "theory"]})
    expected = frame.astype(str).agg("|".join, axis=1)  # the row-wise form it replaces
    assert (
        joined(frame, ["m", "c0", "init"]).tolist()
        == expected.tolist()
        == ["64|0.3|theory", "128|0.1|kaiming", "64|0.3|theory"]
    )
    assert joined(frame, ["init", "m"], ", ").tolist() == ["theory, 64", "kaiming, 128", "theory, 64"]
    assert joined(frame, ["m"]).tolist() == ["64", "128", "64"]


def test_joined_reads_a_missing_value_as_nan_where_the_row_wise_join_failed():
    frame = pd.DataFrame({"a": [1.0, np.nan], "b": ["x", None]}, index=[5, 7])
    key = joined(frame, ["a", "b"])
    assert key.tolist() == ["1.0|x", "nan|nan"]
    assert key.index.tolist() == [5, 7]  # aligned with the rows, for groupby(key)

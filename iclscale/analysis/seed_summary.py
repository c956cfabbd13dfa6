"""The seeds of a law's points summarised per x value, as the law charts draw them (iclscale.analysis.law_charts,
iclscale.analysis.power_chart)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


def seed_summary(points: pd.DataFrame, by: str = "x", log: bool = True) -> pd.DataFrame:
    """Per x value: mean over seeds (geometric on log axes) and mean ± one standard deviation."""
    import pandas as pd

    usable = points[~points["censored"] & np.isfinite(points["value"])]
    if log:
        usable = usable[usable["value"] > 0].assign(value=lambda t: np.log(t["value"]))
    stats = usable.groupby(by, dropna=False)["value"].agg(["mean", "std", "count"]).reset_index()
    stats["std"] = stats["std"].fillna(0.0)
    transform = np.exp if log else (lambda v: v)
    return pd.DataFrame(
        {
            by: stats[by],
            "mean": transform(stats["mean"]),
            "low": transform(stats["mean"] - stats["std"]),
            "high": transform(stats["mean"] + stats["std"]),
            "seeds": stats["count"],
        }
    )

"""Seed-means per level of x and where a measure starts to rise above a baseline (the onset of a pruning
cost): statistics of one trained model per seed measured at every level, so seeds are paired across levels."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


# Where a measure starts to rise above a baseline ----------------------------------------------
ONSET_CONFIDENCE = 0.95
ONSET_RESAMPLES = 2000


def cost_onset(
    table: pd.DataFrame, x: str, value: str, baseline: float = 0.0, random_state: int = 0
) -> tuple[float, pd.DataFrame]:
    """Where a measure starts to cost: e.g. the smallest pruning ratio R whose test error exceeds the
    unpruned error (this tool's definition, not from any paper).

    `table` holds one row per (x, seed). Each seed's value at x is paired with the same seed's value at
    x = `baseline` (the same trained model, the same test prompts): Δ_s(x) = value_s(x) − value_s(baseline).
    x *costs* when both
      - the 95% bootstrap interval (over seeds) of the mean increase mean_s Δ_s(x) lies above 0, and
      - that mean increase exceeds the seed-to-seed standard deviation of the baseline value (the
        increase is larger than the scatter between independently trained models).
    Returns (onset: the smallest x > baseline that costs, NaN if none; per-x table with columns x,
    seeds, mean (of the value), increase, increase_low, increase_high, baseline_sd, costs)."""
    import pandas as pd

    usable = table[np.isfinite(table[value].astype(float))]
    base = usable[np.isclose(usable[x].astype(float), baseline)].groupby("seed")[value].mean()
    baseline_sd = float(base.std(ddof=1)) if len(base) > 1 else 0.0
    rng = np.random.default_rng(random_state)
    alpha = (1 - ONSET_CONFIDENCE) / 2
    rows = []
    for level, part in usable.groupby(x, sort=True):
        per_seed = part.groupby("seed")[value].mean()
        paired = (per_seed - base).dropna().to_numpy(float)
        row = {"x": float(level), "seeds": len(per_seed), "mean": float(per_seed.mean())}
        if np.isclose(float(level), baseline) or not len(paired):
            row.update(increase=0.0 if len(paired) else np.nan, increase_low=np.nan, increase_high=np.nan)
            row.update(baseline_sd=baseline_sd, costs=False)
            rows.append(row)
            continue
        increase = float(paired.mean())
        if len(paired) > 1:
            means = paired[rng.integers(0, len(paired), size=(ONSET_RESAMPLES, len(paired)))].mean(axis=1)
            low, high = (float(q) for q in np.quantile(means, [alpha, 1 - alpha]))
        else:
            low = high = increase
        costs = low > 0 and increase > baseline_sd
        row.update(increase=increase, increase_low=low, increase_high=high, baseline_sd=baseline_sd, costs=costs)
        rows.append(row)
    columns = ["x", "seeds", "mean", "increase", "increase_low", "increase_high", "baseline_sd", "costs"]
    levels = pd.DataFrame(rows, columns=columns)
    costing = levels[levels["costs"] & (levels["x"] > baseline)]
    onset = float(costing["x"].min()) if len(costing) else float("nan")
    return onset, levels


def level_means(values, levels, confidence: float = ONSET_CONFIDENCE) -> pd.DataFrame:
    """Per level: the mean over its seeds and the Student t-interval of that mean, mean ± t(n − 1)·s/√n (a
    bootstrap of 3 to 5 seeds is too narrow: it covered a mean of 3 seeds 75% of the time; one seed: the
    interval is the value itself, and no side can be claimed from it beyond that). Columns x, seeds, mean,
    low, high, sd."""
    import pandas as pd
    from scipy.special import stdtrit

    values, levels = np.asarray(values, float), np.asarray(levels, float)
    rows = []
    for level in np.unique(levels):
        v = values[(levels == level) & np.isfinite(values)]
        if not len(v):
            continue
        if len(v) > 1:
            half = float(stdtrit(len(v) - 1, 0.5 + confidence / 2)) * v.std(ddof=1) / np.sqrt(len(v))
            low, high = v.mean() - half, v.mean() + half
        else:
            low = high = v[0]
        sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
        rows.append({"x": float(level), "seeds": len(v), "mean": float(v.mean())} | {"sd": sd})
        rows[-1].update(low=float(low), high=float(high))
    return pd.DataFrame(rows, columns=["x", "seeds", "mean", "low", "high", "sd"])

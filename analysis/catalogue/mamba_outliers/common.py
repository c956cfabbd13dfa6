"""What the laws of seed 002 share. Li, Lu, Cui, Chen, Wang, "Can Mamba Learn In Context with Outliers? A
Theoretical Generalization Analysis" (arXiv 2510.00399, 2025), cited as [LM25]. Spec: shared/specs/seed-002.md
§6.7 (L1–L15).

Theorems 1–4 are sufficient conditions with O(ε) and unnamed constants; the figures' statements give numbers
(Fig. 2: "< 0.01"). ε = 0.01 throughout is the figure's number, used for the theorems too (not from the paper).
"""

from __future__ import annotations

LM25 = "Li, Lu, Cui, Chen, Wang 2025 [LM25] (arXiv 2510.00399)"
STUDY = "mamba_outliers"
EPSILON = 0.01  # [LM25] §4.1, Fig. 2: "smaller than 0.01"; the theorems' ε has no number
ONE_LAYER = {"layers": (1,)}  # §4.1's one-layer models (Theorems 1–4)

READING_DEFAULTS = {"train_tasks": "cyclic", "lt_attention": "causal_mean"}
"""The readings added as params after results were stored (iclscale/studies/mamba_outliers/declaration.py): a
results table from before them has no column, and ran at these values."""


def reading(runs, name: str, allowed: tuple[str, ...]):
    """The rows whose reading `name` is one of `allowed`; rows stored before the param existed count as its
    default."""
    values = runs[name].fillna(READING_DEFAULTS[name]) if name in runs else READING_DEFAULTS[name]
    keep = values.isin(allowed) if name in runs else values in allowed
    return runs[keep] if name in runs else (runs if keep else runs.iloc[0:0])

"""What the laws of seed 004 share: the citation, the task classes the theorems cover, the row filters and
verdict rules. Collins, Parulekar, Mokhtari, Sanghavi, Shakkottai, "In-Context Learning with Transformers:
Softmax Attention Adapts to Function Lipschitzness", NeurIPS 2024 (arXiv 2402.11639), cited as [C24]."""

from __future__ import annotations

import pandas as pd

from iclscale.analysis.verdict import VerdictRule

C24 = "Collins et al. 2024 [C24] (NeurIPS 2024, arXiv 2402.11639)"
STUDY, ORACLE = "softmax_window", "softmax_window_oracle"
THEORY_CLASSES = ("affine", "relu")  # the task classes Theorems 3.4–3.6 cover (Def 3.2)
LOW_RANK_CLASSES = ("lowrank_linear", "lowrank_affine", "lowrank_quadratic", "lowrank_cos")
EXPONENT_RULE = VerdictRule(max_interval_width=0.25)  # 0.25: not from the paper (the bands are 0.1–0.5 wide)


def in_distribution(runs):
    """Rows whose test tasks come from the training distribution: L' = L and the same class."""
    keep = runs["status"].notna()
    if "L_test" in runs:
        keep &= runs["L_test"].isna() | (runs["L_test"] == runs["L"])
    if "test_class" in runs:
        keep &= runs["test_class"].isna() | (runs["test_class"] == runs["task_class"])
    return runs[keep]


def same_family_with_test_L(runs):
    """Rows tested on the training class; a null L_test (= the training L) written out as L."""
    if "L_test" not in runs:
        return runs.iloc[0:0]
    same_class = runs["test_class"].isna() | (runs["test_class"] == runs["task_class"])
    runs = runs[same_class].copy()
    runs["L_test"] = pd.to_numeric(runs["L_test"], errors="coerce").fillna(runs["L"].astype(float))
    return runs


def with_test_class(runs):
    """Rows tested at the training L, a null test_class (= the training class) written out."""
    if "test_class" not in runs:
        return runs.iloc[0:0]
    if "L_test" in runs:
        runs = runs[runs["L_test"].isna() | (runs["L_test"] == runs["L"])]
    return runs.assign(test_class=runs["test_class"].fillna(runs["task_class"]))

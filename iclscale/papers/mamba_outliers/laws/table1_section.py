"""The report's section for [LM25] Table 1: the 3-layer models' ICL accuracy (1 − test error, %) per model and
outlier placement (FQ farthest from the query, R random, CQ closest), per label mode and LT attention reading, beside
the paper's numbers. The verdicts are the laws of `table1`. The generic report calls `table1_section`
(iclscale.analysis.catalogue)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from iclscale.analysis.page import Section
from iclscale.papers.mamba_outliers.laws.common import READING_DEFAULTS

if TYPE_CHECKING:
    from iclscale.analysis.reader import Results

PLACEMENTS = {"farthest": "FQ", "random": "R", "closest": "CQ"}
PAPER = {"mamba": (99.84, 99.04, 73.28), "lt": (78.52, 78.28, 78.60)}  # [LM25] Table 1 (α = 0.5, p_a = 0.4)


def accuracy_table(runs):
    """Mean and s.d. over seeds of the accuracy in %, per (label mode, model, placement), or None when the runs
    place no outliers at fixed positions."""
    if "placement" not in runs or not runs["placement"].isin(list(PLACEMENTS)).any():
        return None
    placed = runs[runs["placement"].isin(list(PLACEMENTS)) & runs["test_error"].notna()]
    accuracy = placed.assign(accuracy=100 * (1 - placed["test_error"].astype(float)), reading=_reading(placed))
    keys = ["label_mode", "layers", "model", "reading", "placement"]
    return accuracy.groupby(keys)["accuracy"].agg(["mean", "std", "count"]).reset_index()


def _reading(runs):
    """The attention reading of a 3-layer LT row, "" for Mamba and one layer (where it does nothing); rows stored
    before the param existed ran the causal mean."""
    default = READING_DEFAULTS["lt_attention"]
    attention = runs["lt_attention"].fillna(default) if "lt_attention" in runs else runs["model"].map(lambda _: default)
    stacked_lt = (runs["model"] == "lt") & (runs["layers"].astype(int) > 1)
    return attention.where(stacked_lt, "")


def table1_section(results: Results, add_chart) -> Section | None:
    table = accuracy_table(results.runs)
    if table is None:
        return None
    section = Section(
        "Table 1: accuracy by outlier placement",
        "<p>ICL accuracy (%, mean ± s.d. over seeds) with the outliers of each test prompt farthest from the query "
        "(FQ), at random positions (R) or closest to it (CQ), beside [LM25] Table 1 (3-layer models, α = 0.5). "
        "The paper does not say which outlier label mode Table 1 uses, nor how its 3-layer LT attends: every mode "
        "and both LT readings run are shown (causal_mean: each position averages its past, order-dependent; "
        "full_mean: every position averages all l + 1, order-invariant). Verdicts: the table1_* laws.</p>",
    )
    for (mode, layers), part in table.groupby(["label_mode", "layers"]):
        header = "".join(f"<th>{short}</th>" for short in PLACEMENTS.values())
        rows = []
        for (model, reading), cells in part.groupby(["model", "reading"]):
            by = cells.set_index("placement")
            name = f"{model} ({reading})" if reading else model
            measured = "".join(
                f"<td class='num'>{by.loc[p, 'mean']:.2f} ± {by.loc[p, 'std']:.2f}</td>"
                if p in by.index
                else "<td></td>"
                for p in PLACEMENTS
            )
            paper = "".join(f"<td class='num'>{v:.2f}</td>" for v in PAPER.get(model, ()))
            rows.append(f"<tr><td>{name}, measured</td>{measured}</tr><tr><td>{model}, [LM25]</td>{paper}</tr>")
        html = f"<table><tr><th>model</th>{header}</tr>{''.join(rows)}</table>"
        section.items.append((f"label mode {mode}, {layers} layer(s)", None, html))
    return section

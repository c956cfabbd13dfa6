"""The report's section for [LM25] Table 1: the 3-layer models' ICL accuracy (1 − test error, %) per model and
outlier placement (FQ farthest from the query, R random, CQ closest), per label mode, beside the paper's numbers.
Table 1 has no theorem behind it: a table to read, no verdict. The generic report calls `table1_section`
(analysis.catalogue)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.page import Section

if TYPE_CHECKING:
    from analysis.reader import Results

PLACEMENTS = {"farthest": "FQ", "random": "R", "closest": "CQ"}
PAPER = {"mamba": (99.84, 99.04, 73.28), "lt": (78.52, 78.28, 78.60)}  # [LM25] Table 1 (α = 0.5, p_a = 0.4)


def accuracy_table(runs):
    """Mean and s.d. over seeds of the accuracy in %, per (label mode, model, placement), or None when the runs
    place no outliers at fixed positions."""
    if "placement" not in runs or not runs["placement"].isin(list(PLACEMENTS)).any():
        return None
    placed = runs[runs["placement"].isin(list(PLACEMENTS)) & runs["test_error"].notna()]
    accuracy = placed.assign(accuracy=100 * (1 - placed["test_error"].astype(float)))
    keys = ["label_mode", "layers", "model", "placement"]
    return accuracy.groupby(keys)["accuracy"].agg(["mean", "std", "count"]).reset_index()


def table1_section(results: Results, add_chart) -> Section | None:
    table = accuracy_table(results.runs)
    if table is None:
        return None
    section = Section(
        "Table 1: accuracy by outlier placement",
        "<p>ICL accuracy (%, mean ± s.d. over seeds) with the outliers of each test prompt farthest from the query "
        "(FQ), at random positions (R) or closest to it (CQ), beside [LM25] Table 1 (3-layer models, α = 0.5). "
        "The paper does not say which outlier label mode Table 1 uses: every mode run is shown.</p>",
    )
    for (mode, layers), part in table.groupby(["label_mode", "layers"]):
        header = "".join(f"<th>{short}</th>" for short in PLACEMENTS.values())
        rows = []
        for model, cells in part.groupby("model"):
            by = cells.set_index("placement")
            measured = "".join(
                f"<td class='num'>{by.loc[p, 'mean']:.2f} ± {by.loc[p, 'std']:.2f}</td>"
                if p in by.index
                else "<td></td>"
                for p in PLACEMENTS
            )
            paper = "".join(f"<td class='num'>{v:.2f}</td>" for v in PAPER.get(model, ()))
            rows.append(f"<tr><td>{model} (measured)</td>{measured}</tr><tr><td>{model} ([LM25])</td>{paper}</tr>")
        html = f"<table><tr><th>model</th>{header}</tr>{''.join(rows)}</table>"
        section.items.append((f"label mode {mode}, {layers} layer(s)", None, html))
    return section

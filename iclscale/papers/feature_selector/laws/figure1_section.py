"""The report's Figure 1 section for feature_selector ([LW23] Fig. 1, the paper's only figure): (a) the mean norms
‖W_Q μ‖, ‖W_K μ‖, ‖W_Q ν‖, ‖W_K ν‖ over iterations (Prop. 1 Eq. 7–8), (b) the MLP's pre-ReLU output split into
what the features and what the labels contribute (Prop. 2 Eq. 10), in both our splits of it, named: the
input-side split is the one plotted solid, the output-coordinate split (Eq. 10 as printed) dashed. Means over the
seeds that end in the selection regime (A_* ≥ 0.9); the others are counted. The generic report calls it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from iclscale.analysis.page import Section, e, num

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from iclscale.analysis.reader import Results

NORMS = {"wq_mu_norm": "‖W_Q μ‖", "wk_mu_norm": "‖W_K μ‖", "wq_nu_norm": "‖W_Q ν‖", "wk_nu_norm": "‖W_K ν‖"}
SPLITS = {
    "mlp_in_feature": "feature (input-side split)",
    "mlp_in_label": "label (input-side split)",
    "mlp_out_feature": "feature (output-coordinate split, Eq. 10)",
    "mlp_out_label": "label (output-coordinate split, Eq. 10)",
}
WIDTH, HEIGHT = 380, 240


def figure1_section(results: Results, add_chart) -> Section | None:
    """The section, for a feature_selector store with the Fig. 1 probes recorded over training; None otherwise."""
    if results.study != "feature_selector" or "in_regime" not in results.runs:
        return None
    if "mlp_in_label" not in set(results.curves["metric"]):
        return None
    runs = results.runs.drop_duplicates("run_id")
    selected = set(runs.loc[runs["in_regime"] >= 1, "run_id"])
    from iclscale.analysis.reader import curves_with_params  # the store (and yaml) only for a report

    curves = curves_with_params(results)
    curves = curves[curves["run_id"].isin(selected) & curves["metric"].isin([*NORMS, *SPLITS])]
    if not len(curves):
        return None
    means = curves.groupby(["metric", "step"], as_index=False)["value"].mean()
    section = Section(
        "Figure 1 — features promoted, labels decoded",
        f"<p>{e(f'{len(selected)} of {len(runs)} runs end in the selection regime (A_* ≥ 0.9): the curves are')} "
        + e(f"their means. {_summary(means)}")
        + "</p>",
    )
    for title, names, metric_set in (
        ("Fig. 1(a): Q/K norms along the relevant μ and the irrelevant ν", NORMS, NORMS),
        ("Fig. 1(b): MLP output before ReLU, feature vs label contribution", SPLITS, SPLITS),
    ):
        chart = add_chart(_chart(means[means["metric"].isin(metric_set)], names), title)
        section.items.append((title, chart, ""))
    return section


def _summary(means: pd.DataFrame) -> str:
    def at(metric: str, which: int) -> float:
        series = means[means["metric"] == metric].sort_values("step")["value"]
        return float(series.iloc[which]) if len(series) else float("nan")

    label = means[means["metric"] == "mlp_in_label"].set_index("step")["value"]
    feature = means[means["metric"] == "mlp_in_feature"].set_index("step")["value"]
    ahead = (label > feature.reindex(label.index)) & (label > 0)
    overtakes = f"from step {int(ahead.idxmax())}" if ahead.any() else "at no record"
    out_ahead = at("mlp_out_label", -1) > at("mlp_out_feature", -1)
    return (
        f"‖W_Q μ‖ went from {num(at('wq_mu_norm', 0))} to {num(at('wq_mu_norm', -1))} and ‖W_K μ‖ to "
        f"{num(at('wk_mu_norm', -1))}, while ‖W_Q ν‖ went from {num(at('wq_nu_norm', 0))} to "
        f"{num(at('wq_nu_norm', -1))} and ‖W_K ν‖ to {num(at('wk_nu_norm', -1))}. In the input-side split (solid; "
        f"plotted as Fig. 1(b)) the label contribution leads {overtakes} and ends at {num(at('mlp_in_label', -1))} "
        f"against {num(at('mlp_in_feature', -1))}; in the output-coordinate split (dashed; Eq. 10 as printed) it ends "
        f"at {num(at('mlp_out_label', -1))} against {num(at('mlp_out_feature', -1))}, "
        + (
            "the same order."
            if out_ahead
            else "the other order: W_V mixes label information into the feature coordinates."
        )
    )


def _chart(table: pd.DataFrame, names: dict[str, str]) -> alt.Chart:
    import altair as alt

    table = table.assign(curve=table["metric"].map(names), split=table["metric"].str.contains("_out_"))
    return (
        alt.Chart(table)
        .mark_line()
        .encode(
            x=alt.X("step:Q", title="iteration t"),
            y=alt.Y("value:Q", title="mean over selection-regime seeds"),
            color=alt.Color("curve:N", sort=list(names.values()), title=None),
            strokeDash=alt.StrokeDash("split:N", legend=None),
        )
        .properties(width=WIDTH, height=HEIGHT)
    )

"""The report's section for [LM25] Figures 3–6: per layer of the trained Mamba, the attention sums on test prompts over
training (S_same on demonstrations sharing the query's relevant pattern, S_other on the rest: Fig. 3 for layer 1,
Fig. 5 for layers 2 and 3) and the final gates by distance to the query, outlier vs clean demonstrations (Fig. 4
for layer 1, Fig. 6 for layers 2 and 3). Means over seeds; at α = 0.3 (the paper's Fig. 4) where the sweep
measured it, else at its first α. The generic report calls it for any mamba_outliers store with these probes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from iclscale.analysis.page import Section, e, num

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from iclscale.analysis.reader import Results

FIGURE_ALPHA = 0.3  # [LM25] §4.2: Fig. 4's α (Figs. 3, 5, 6 do not say; 0.3 for them is our reading)
DISTANCES = 20  # the probes' profile (iclscale.papers.mamba_outliers.probes.PROFILE_DISTANCE)
WIDTH, HEIGHT = 320, 200


def _prefix(layer: int) -> str:
    return "" if layer == 1 else f"layer{layer}_"


def _alpha(table: pd.DataFrame) -> float | None:
    if "alpha" not in table or not len(table):
        return None
    alphas = sorted(table["alpha"].dropna().astype(float).unique())
    return FIGURE_ALPHA if FIGURE_ALPHA in alphas else (alphas[0] if alphas else None)


def _one_point(table: pd.DataFrame, alpha: float | None) -> pd.DataFrame:
    """Mamba rows at one α, Bernoulli outliers, the first value of every other eval axis that varies."""
    part = table[table["model"] == "mamba"]
    if alpha is not None:
        part = part[part["alpha"].astype(float) == alpha]
    if "placement" in part:
        part = part[part["placement"] == "bernoulli"]
    for axis in ("label_mode", "kappa_a_test", "l_ts"):
        if axis in part and part[axis].nunique() > 1:
            part = part[part[axis] == sorted(part[axis].unique())[0]]
    return part


def figures3_6_section(results: Results, add_chart) -> Section | None:
    """The section, for a mamba_outliers store whose Mamba runs recorded the attention sums over training."""
    if results.study != "mamba_outliers" or "model" not in results.runs:
        return None
    runs = results.runs[results.runs["status"] == "ok"]
    alpha = _alpha(runs[runs["model"] == "mamba"])
    final = _one_point(runs, alpha)
    from iclscale.analysis.reader import curves_with_params  # the store (and yaml) only for a report

    curves = curves_with_params(results)
    curves = curves[curves["metric"].str.endswith(("attn_same", "attn_other")) & (curves["status"] == "ok")]
    curves = _one_point(curves, alpha)
    if not len(final) or curves["step"].nunique() < 3:
        return None
    layers = int(final["layers"].max())
    point = ", ".join(f"{a} = {final[a].iloc[0]}" for a in ("label_mode", "kappa_a_test", "l_ts") if a in final)
    count = final["run_id"].nunique()
    intro = f"{count} Mamba run(s), {layers} layer(s), test prompts at α = {alpha} ({point}); means over seeds."
    section = Section("Figures 3–6: attention sums over training and gates by position", f"<p>{e(intro)}</p>")
    for layer in range(1, layers + 1):
        name = "3" if layer == 1 else "5"
        title = f"Fig. {name}: layer {layer}, attention sums over training"
        means = _attention_means(curves, _prefix(layer))
        section.items.append((title, add_chart(_attention_chart(means), title), _attention_text(means)))
        name = "4" if layer == 1 else "6"
        title = f"Fig. {name}: layer {layer}, final gate by distance to the query"
        profile = _gate_profile(final, _prefix(layer))
        if len(profile):
            text = _gate_text(profile) + _channel_mean_text(final, _prefix(layer))
            section.items.append((title, add_chart(_gate_chart(profile), title), text))
    return section


def _attention_means(curves: pd.DataFrame, prefix: str) -> pd.DataFrame:
    names = {prefix + "attn_same": "S_same (same pattern as the query)", prefix + "attn_other": "S_other (other)"}
    own = curves[curves["metric"].isin(names)]
    means = own.groupby(["metric", "step"], as_index=False)["value"].mean()
    return means.assign(curve=means["metric"].map(names))


def _attention_text(means: pd.DataFrame) -> str:
    def ends(curve: str) -> str:
        series = means[means["curve"].str.startswith(curve)].sort_values("step")["value"]
        return f"{num(series.iloc[0])} → {num(series.iloc[-1])}" if len(series) else "—"

    same, other = ends("S_same"), ends("S_other")
    return f"<p>{e(f'S_same {same}, S_other {other} from the first to the last record.')}</p>"


def _attention_chart(means: pd.DataFrame) -> alt.Chart:
    import altair as alt

    return (
        alt.Chart(means)
        .mark_line(point=True)
        .encode(
            x=alt.X("step:Q", title="iteration t"),
            y=alt.Y("value:Q", title="sum of attention scores a_i (mean over prompts, seeds)"),
            color=alt.Color("curve:N", title=None),
        )
        .properties(width=WIDTH, height=HEIGHT)
    )


def _gate_profile(final: pd.DataFrame, prefix: str) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for k in range(1, DISTANCES + 1):
        for kind in ("outlier", "clean"):
            column = f"{prefix}gate_{kind}_at{k:02d}"
            if column in final:
                rows.append({"distance": k, "demonstration": kind, "gate": final[column].astype(float).mean()})
    return pd.DataFrame(rows)


def _gate_text(profile: pd.DataFrame) -> str:
    at = profile.set_index(["demonstration", "distance"])["gate"]

    def g(kind: str, k: int) -> str:
        return num(at.get((kind, k), float("nan")))

    outliers = " / ".join(g("outlier", k) for k in (1, 2, 5))
    clean = " / ".join(g("clean", k) for k in (1, 2, 5))
    return f"<p>{e(f'Mean gate at distance 1 / 2 / 5 from the query: outliers {outliers}, clean {clean}.')}</p>"


def _channel_mean_text(final: pd.DataFrame, prefix: str) -> str:
    """The same at distance 1 with every channel's gate averaged (a stack's layers; Figs. 4, 6 name no channel)."""
    columns = [f"{prefix}gate_chmean_{kind}_at01" for kind in ("outlier", "clean")]
    if not all(c in final for c in columns):
        return ""
    outlier, clean = (num(final[c].astype(float).mean()) for c in columns)
    return f"<p>{e(f'Averaged over the d + 1 channels, at distance 1: outliers {outlier}, clean {clean}.')}</p>"


def _gate_chart(profile: pd.DataFrame) -> alt.Chart:
    import altair as alt

    return (
        alt.Chart(profile)
        .mark_bar()
        .encode(
            x=alt.X("distance:O", title="distance to the query (1 = the last demonstration)"),
            xOffset=alt.XOffset("demonstration:N"),
            y=alt.Y("gate:Q", title="gate G_{i,l+1} (mean)"),
            color=alt.Color(
                "demonstration:N", scale=alt.Scale(domain=["outlier", "clean"], range=["#d62728", "#2ca02c"])
            ),
        )
        .properties(width=WIDTH + 160, height=HEIGHT)
    )

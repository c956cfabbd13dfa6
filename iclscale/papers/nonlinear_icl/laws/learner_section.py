"""The report's section for nonlinear_icl's classical learners ([L24] Fig. 4's layout): error against the
context length per learner, one panel per α', and which learner first reaches a small error. The generic
report calls `learner_section` (iclscale.analysis.catalogue)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iclscale.analysis.page import Section, e, num
from iclscale.analysis.select import label
from iclscale.papers.nonlinear_icl.laws.learners import SMALL_ERROR
from iclscale.papers.nonlinear_icl.laws.pruning_section import varying

if TYPE_CHECKING:
    import altair as alt

    from iclscale.analysis.reader import Results

HEIGHT = 240


def learner_section(results: Results, add_chart) -> Section | None:
    """The section, when a `learner` eval param takes several values; None otherwise."""
    comparisons = baseline_findings(results)
    if not comparisons:
        return None
    section = Section(
        "In-context learning vs classical learners",
        "<p>Test error against the context length for the trained transformer (ICL) and classical learners "
        "fit on each prompt's demonstrations, one panel per α' (mean ± 1 s.d. over seeds). 'Reaches' "
        f"means a seed-mean error ≤ {SMALL_ERROR:g} (this tool's threshold for a small error, not from "
        "the paper).</p>",
    )
    for finding in comparisons:
        chart = add_chart(baselines_chart(finding), f"learners {finding.label}")
        section.items.append((f"Learners — {finding.label}", chart, finding.html()))
    return section


@dataclass
class BaselineFinding:
    """One group's comparison of the transformer with classical learners: error per (learner, α', l_ts, seed)."""

    group: dict[str, Any]
    table: Any  # DataFrame: learner, alpha_test, l_ts, seed, test_error

    @property
    def label(self) -> str:
        return label(self.group)

    def means(self):
        return self.table.groupby(["alpha_test", "learner", "l_ts"], as_index=False)["test_error"].mean()

    def reaching(self):
        """Per (α', learner): the smallest l_ts whose seed-mean error is ≤ SMALL_ERROR (NaN if none)."""
        means = self.means()
        hit = means[means["test_error"] <= SMALL_ERROR].groupby(["alpha_test", "learner"])["l_ts"].min()
        every = means[["alpha_test", "learner"]].drop_duplicates().set_index(["alpha_test", "learner"])
        return every.join(hit.rename("l_ts")).reset_index()

    def sentences(self) -> list[str]:
        out = []
        reach = self.reaching()
        means = self.means()
        for alpha in sorted(reach["alpha_test"].unique(), reverse=True):
            part = reach[reach["alpha_test"] == alpha]
            alpha_means = means[means["alpha_test"] == alpha]
            mean_error = alpha_means.groupby("learner")["test_error"].mean()
            order = part.assign(
                rank_l=part["l_ts"].fillna(math.inf), rank_e=part["learner"].map(mean_error)
            ).sort_values(["rank_l", "rank_e"])
            best = order.iloc[0]
            listed = ", ".join(
                f"{r.learner} at l_ts = {int(r.l_ts)}" if math.isfinite(r.rank_l) else f"{r.learner} never"
                for r in order.itertuples()
            )
            longest = alpha_means["l_ts"].max()
            out.append(
                f"α' = {alpha:g}: first context length with seed-mean error ≤ {SMALL_ERROR:g} — {listed} "
                f"(l_ts up to {longest:g}); the most sample-efficient is {best['learner']} "
                "(ties broken by the mean error over all l_ts)."
            )
        return out

    def html(self) -> str:
        means = self.means()
        tables = []
        for alpha in sorted(means["alpha_test"].unique(), reverse=True):
            part = means[means["alpha_test"] == alpha]
            wide = part.pivot(index="learner", columns="l_ts", values="test_error")
            head = "<tr><th>learner \\ l_ts</th>" + "".join(f"<th>{e(num(float(c)))}</th>" for c in wide.columns)
            rows = "".join(
                f"<tr><td>{e(learner)}</td>"
                + "".join(f'<td class="num">{num(float(v))}</td>' for v in wide.loc[learner])
                + "</tr>"
                for learner in wide.index
            )
            tables.append(f"<p>α' = {e(num(float(alpha)))}: seed-mean test error</p><table>{head}</tr>{rows}</table>")
        text = "".join(f"<p>{e(s)}</p>" for s in self.sentences())
        return text + "<div class='wide'>" + "".join(tables) + "</div>"


def baseline_findings(results: Results) -> list[BaselineFinding]:
    """Classical-learner comparisons grouped by every other param that varies; empty without them."""
    runs = results.runs
    if not {"learner", "l_ts", "alpha_test", "test_error"} <= set(runs.columns):
        return []
    runs = runs[(runs["status"] == "ok") & runs["learner"].notna()]
    if runs["learner"].nunique() < 2:
        return []
    if "prune_method" in runs:
        runs = runs[(runs["prune_method"].fillna("none") == "none") | (runs["prune_ratio"].fillna(0) == 0)]
    keys = varying(runs, {"learner", "l_ts", "alpha_test", "seed"}, results.params())
    parts = runs.groupby(keys, dropna=False, sort=True) if keys else [((), runs)]
    out = []
    for key, part in parts:
        key = key if isinstance(key, tuple) else (key,)
        group = {k: (v.item() if hasattr(v, "item") else v) for k, v in zip(keys, key, strict=True)}
        table = part[["learner", "alpha_test", "l_ts", "seed", "test_error"]].copy()
        table = table.sort_values("alpha_test", ascending=False, kind="stable")
        out.append(BaselineFinding(group, table))
    return out


def baselines_chart(finding) -> alt.TopLevelMixin:
    """[L24] Fig. 4's layout: error against the context length per learner, one panel per α'."""
    import altair as alt

    stats = (
        finding.table.groupby(["alpha_test", "learner", "l_ts"])["test_error"]
        .agg(["mean", "std"])
        .reset_index()
        .fillna({"std": 0.0})
    )
    stats = stats.assign(low=(stats["mean"] - stats["std"]).clip(lower=0), high=stats["mean"] + stats["std"])
    stats["panel"] = stats["alpha_test"].map(lambda a: f"α' = {a:g}")
    learners = ["transformer", *sorted(set(stats["learner"]) - {"transformer"})]
    colour = alt.Color(
        "learner:N", sort=learners, scale=alt.Scale(scheme="category10"), legend=alt.Legend(orient="bottom")
    )
    x_enc = alt.X("l_ts:Q", title="context length l_ts")
    base = alt.Chart().encode(x=x_enc, color=colour)
    y_scale = alt.Scale(type="symlog", constant=0.01)  # small errors stay visible; 0 stays on the chart
    layers = alt.layer(
        base.mark_rule(opacity=0.5).encode(
            y=alt.Y("low:Q", title="test error (mean ± 1 s.d., symlog)", scale=y_scale), y2="high:Q"
        ),
        base.mark_line(point=True).encode(
            y=alt.Y("mean:Q", scale=y_scale),
            strokeWidth=alt.condition(alt.datum.learner == "transformer", alt.value(3), alt.value(1.5)),
            tooltip=["learner:N", "l_ts:Q", "mean:Q", "std:Q"],
        ),
        data=stats,
    ).properties(width=300, height=HEIGHT)
    order = sorted(stats["panel"].unique(), key=lambda t: -float(t.split("= ")[1]))
    return layers.facet(column=alt.Column("panel:N", sort=order, title=None)).properties(
        title={"text": f"ICL vs classical learners — {finding.label}", "anchor": "start"}
    )

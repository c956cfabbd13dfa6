"""The report's section for a search sweep (iclscale.sweeps.search): what Optuna found, read from the studies the search
wrote to DIR/optuna.db (one per grid point; `optuna.load_study` and optuna-dashboard open the same file).

- the best trials of each grid point (the five best, by the objective: the mean over seeds of the final metric);
- the objective against each searched param, every trial a point, one colour per grid point;
- the optimisation history (each trial's objective and the best so far, in trial order);
- the params' importances by Optuna's default evaluator (`optuna.importance.get_param_importances`; with a
  single searched param it is 1 by construction, and says nothing).

Each chart is saved as a PNG with the others (report.py's `add`).
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from iclscale.analysis.page import Section
    from iclscale.analysis.reader import Results

OPTUNA_FILE = "optuna.db"
BEST_SHOWN = 5


def search_section(results: Results, add) -> Section | None:
    """The search section, or None for a sweep without a `search:` block or without DIR/optuna.db."""
    search = (results.sweep or {}).get("search")
    path = Path(str(results.directory)) / OPTUNA_FILE
    if not search or not path.is_file():
        return None
    import optuna
    import pandas as pd

    from iclscale.analysis.page import Section

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = f"sqlite:///{path}"
    frames, importances = [], []
    for summary in optuna.get_all_study_summaries(storage):
        study = optuna.load_study(study_name=summary.study_name, storage=storage)
        table = study.trials_dataframe(attrs=("number", "value", "params", "state"))
        table = table[table["state"] == "COMPLETE"].assign(study=summary.study_name)
        frames.append(table.rename(columns=lambda c: c.removeprefix("params_")))
        importances += _importances(study, summary.study_name)
    if not frames:
        return None
    trials = pd.concat(frames, ignore_index=True)
    params = list(search["params"])
    metric, mode = search["metric"], search.get("mode", "min")
    intro = (
        f"<p>Search: {mode} {html.escape(metric)} (mean over seeds, final record) over "
        f"{html.escape(', '.join(params))}, {len(frames)} Optuna studies (one per grid point), "
        f"{len(trials)} finished trials. The studies are in <code>{html.escape(str(path))}</code>: "
        f'<code>optuna.load_study(study_name=..., storage="sqlite:///{html.escape(str(path))}")</code> or '
        f"<code>optuna-dashboard sqlite:///{html.escape(str(path))} --port 8080</code> (<code>pip install "
        "optuna-dashboard</code>), then http://127.0.0.1:8080/dashboard.</p>" + _best_table(trials, params, mode)
    )
    section = Section("Search: what Optuna found", intro, first=True)
    for param in params:
        section.items.append(
            (f"objective vs {param}", add(_against(trials, param, metric), f"objective vs {param}"), "")
        )
    section.items.append(("history", add(_history(trials, metric, mode), "search history"), ""))
    if importances:
        note = "<p class='note'>With one searched param its importance is 1 by construction.</p>"
        chart = _importance_chart(pd.DataFrame(importances))
        section.items.append(("param importances (Optuna)", add(chart, "search param importances"), note))
    return section


def _importances(study, name: str) -> list[dict]:
    import optuna

    try:
        found = optuna.importance.get_param_importances(study)
    except (RuntimeError, ValueError):  # too few finished trials, or a param that never varied
        return []
    return [{"study": name, "param": p, "importance": v} for p, v in found.items()]


def _best_table(trials, params: list[str], mode: str) -> str:
    rows = []
    for name, part in trials.groupby("study", sort=True):
        best = part.sort_values("value", ascending=mode == "min").head(BEST_SHOWN)
        for rank, (_, trial) in enumerate(best.iterrows(), start=1):
            values = ", ".join(f"{p}={_number(trial[p])}" for p in params if p in trial)
            cells = [html.escape(name), str(rank), str(int(trial["number"])), html.escape(values)]
            rows.append(
                "<tr>"
                + "".join(f"<td>{c}</td>" for c in cells)
                + f"<td class='num'>{_number(trial['value'])}</td></tr>"
            )
    head = "<tr><th>grid point</th><th>rank</th><th>trial</th><th>values</th><th>objective</th></tr>"
    return f"<h3>Best trials</h3><div class='wide'><table>{head}{''.join(rows)}</table></div>"


def _number(value) -> str:
    return f"{value:.4g}" if isinstance(value, float) and math.isfinite(value) else html.escape(str(value))


def _against(trials, param: str, metric: str):
    import altair as alt

    numeric = trials[param].dtype.kind in "if"
    log = numeric and bool((trials[param] > 0).all()) and trials[param].max() / trials[param].min() > 10
    x = alt.X(f"{param}:{'Q' if numeric else 'N'}", scale=alt.Scale(type="log") if log else alt.Undefined)
    positive = bool((trials["value"] > 0).all())
    y = alt.Y("value:Q", title=f"objective: {metric}", scale=alt.Scale(type="log") if positive else alt.Undefined)
    return (
        alt.Chart(trials)
        .mark_point(filled=True, size=70)
        .encode(
            x=x,
            y=y,
            color=alt.Color("study:N", title="grid point", legend=alt.Legend(orient="bottom")),
            tooltip=["study:N", "number:Q", f"{param}", "value:Q"],
        )
        .properties(width=860, height=320, title=f"objective against {param}, every trial")
    )


def _history(trials, metric: str, mode: str):
    import altair as alt

    ordered = trials.sort_values(["study", "number"])
    best = ordered.groupby("study")["value"].cummin() if mode == "min" else ordered.groupby("study")["value"].cummax()
    ordered = ordered.assign(best=best)
    colour = alt.Color("study:N", title="grid point", legend=alt.Legend(orient="bottom"))
    positive = bool((ordered["value"] > 0).all())
    y_scale = alt.Scale(type="log") if positive else alt.Undefined
    points = (
        alt.Chart(ordered)
        .mark_point(filled=True, size=50)
        .encode(
            x=alt.X("number:Q", title="trial"),
            y=alt.Y("value:Q", title=f"objective: {metric}", scale=y_scale),
            color=colour,
        )
    )
    line = alt.Chart(ordered).mark_line(interpolate="step-after").encode(x="number:Q", y="best:Q", color=colour)
    return alt.layer(points, line).properties(
        width=860, height=300, title="optimisation history: trials and the best so far"
    )


def _importance_chart(table):
    import altair as alt

    return (
        alt.Chart(table)
        .mark_bar()
        .encode(
            x=alt.X("importance:Q", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("param:N"),
            color=alt.Color("study:N", title="grid point", legend=alt.Legend(orient="bottom")),
            yOffset="study:N",
        )
        .properties(width=860, title="param importances (Optuna's default evaluator)")
    )

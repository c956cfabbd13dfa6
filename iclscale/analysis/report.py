"""`iclscale report DIR`: fit the sweep's laws and write OUT/index.html, OUT/fits.csv and a PNG of every chart
under OUT/charts/.

Besides the laws and the sweep's curves, a study's paper may add sections of its own (`PaperLaws(sections=...)`,
found through `iclscale.analysis.catalogue`, e.g. a paper's pruning curves and classical-learner baselines); the
generic report only calls them and lays them out (iclscale.analysis.page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from iclscale.analysis import verdict as verdict_rule
from iclscale.analysis.law import Law
from iclscale.analysis.lawfit import LawFit
from iclscale.analysis.reader import Results, load_results
from iclscale.errors import UserError

FITS_COLUMNS = (
    "law",
    "x",
    "y",
    "exponent",
    "ci_low",
    "ci_high",
    "theory_low",
    "theory_high",
    "r2",
    "n_points",
    "n_censored",
    "verdict",
)
PNG_SCALE = 1.5


@dataclass
class Report:
    out: Path
    fits: list[LawFit]
    charts: list[tuple[str, str]] = field(default_factory=list)  # (title, png path relative to out)
    notes: list[str] = field(default_factory=list)  # said on the page and by `iclscale report`
    png: bool = True  # write each chart's PNG file

    @property
    def index(self) -> Path:
        return self.out / "index.html"

    @property
    def fits_csv(self) -> Path:
        return self.out / "fits.csv"


def fit_sweep_laws(results: Results) -> list[LawFit]:
    """Fit the frozen sweep's `laws:`; when it lists none, every law of its study whose data are present:
    some group has points (inside or outside the theorem's conditions) at three x values, or as many as the
    law's verdict rule asks for where that is fewer (a law whose x does not vary in the sweep is left out). A
    named law with no rows at all still gets a row, saying so. A tuning search (`search:`) that names no laws
    fits none: its trials are chosen by its objective at one setting, with the few seeds a trial has, so they
    tune the sweeps that measure and are not evidence for or against a law themselves."""
    from iclscale.analysis.laws import get_law, laws_of_study

    named = results.sweep.get("laws") or []
    if not named and results.sweep.get("search"):
        return fit_experiments(results)
    if not named:
        from iclscale.analysis.catalogue import experiment_only_laws

        only_experiments = experiment_only_laws()
        found = [law.evaluate(results) for law in laws_of_study(results.study) if law.name not in only_experiments]
        return [fit for fits in found if any(_has_data(f) for f in fits) for fit in fits]
    fits = []
    for name in named:
        law = get_law(name, f"{results.directory}/sweep.yaml: laws")
        fits.extend(law.evaluate(results) or [_no_data(law, results)])
    return fits + fit_experiments(results)


def fit_experiments(results: Results) -> list[LawFit]:
    """The papers' own experiments this sweep runs (iclscale.analysis.catalogue.experiments_of_sweep), each law of
    one judged on every point, whatever the theorem's conditions."""
    from iclscale.analysis.catalogue import experiments_of_sweep
    from iclscale.analysis.laws import get_law

    fits = []
    for claim, experiment in experiments_of_sweep(results.study, results.sweep.get("name", "")):
        for name in experiment.laws:
            law = get_law(name, f"claim {claim.label}'s experiment")
            fits.extend(law.evaluate(results, experiment) or [_no_data(law, results)])
    return fits


def _has_data(fit: LawFit) -> bool:
    outside = fit.outside_points
    levels_outside = outside["x"].nunique() if outside is not None and len(outside) else 0
    if fit.law.x is None and fit.n_outside:  # a bound on one number per group: its outside points are one level
        levels_outside = 1  # (without this, such a law wholly outside its conditions was dropped: "not run")
    # three x values suffice to be shown (flagged as too few for a verdict where the rule asks four)
    shown_from = min(fit.law.rule.min_levels, 3)
    return max(fit.n_levels, levels_outside) >= shown_from and bool(fit.n_points or levels_outside)


def _no_data(law: Law, results: Results) -> LawFit:
    reason = f"no {law.study} rows matching the law's conditions in {results.directory}"
    return LawFit(law=law, verdict=verdict_rule.Verdict(verdict_rule.INCONCLUSIVE, reason))


def write_report(directory: str, out: str | None = None, png: bool = True) -> Report:
    """The sweep's report: DIR/report/index.html (its charts drawn in the page), fits.csv and, with `png`, each
    chart as a PNG file beside it (half the report's time; `reproduce --budget quick` previews go without)."""
    results = load_results(directory)  # UserError for a missing or empty directory
    if out is None and "://" in str(directory):
        raise UserError(f"results {directory!r} are not on a local disk: give --out DIR for the report")
    out_dir = Path(out) if out else Path(directory) / "report"
    try:
        (out_dir / "charts").mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"--out {out_dir}: cannot create the report folder: {error.strerror}") from None
    for stale in (out_dir / "charts").glob("*.png"):  # from an earlier report of this directory
        stale.unlink()
    from iclscale.analysis.searched import search_summary

    fits = fit_sweep_laws(results)
    notes = [note for note in (chance_note(fits), search_summary(results)) if note]
    report = Report(out_dir, fits, notes=notes, png=png)
    write_fits_csv(fits, report.fits_csv)

    from iclscale.analysis import law_charts, sweep_charts
    from iclscale.analysis.catalogue import sections_of_study
    from iclscale.analysis.page import render_html

    def add(chart, title: str) -> dict | None:
        return _add_chart(report, chart, title)

    law_sections = [
        (fit, add(law_charts.law_chart(fit), f"law {fit.law.name} {fit.group_label}"), law_charts.caption(fit))
        for fit in fits
    ]
    from iclscale.analysis.ladder_section import ladder_section
    from iclscale.analysis.search_section import search_section

    sections = [s for s in (search_section(results, add), ladder_section(fits, add)) if s is not None]
    sections += [s for hook in sections_of_study(results.study) if (s := hook(results, add)) is not None]
    thresholds = {fit.law.measure.metric: fit.law.measure.threshold for fit in fits
                  if getattr(fit.law.measure, "threshold", None) is not None}  # fmt: skip
    charts = sweep_charts.training_curve_charts(results, thresholds) + sweep_charts.probe_charts(results, thresholds)
    sweep = [(title, add(chart, title)) for title, chart in charts]
    key_metrics = {getattr(fit.law.measure, "metric", None) for fit in fits}
    from iclscale.analysis.headlines import headlines_html

    page = render_html(
        results, fits, law_sections, sweep, sections, _vl_version(), report.notes, key_metrics, headlines_html(fits)
    )
    report.index.write_text(page, encoding="utf-8")
    return report


CHANCE_PER_VERDICT = 0.025  # a 95% interval lies wholly beyond one edge of a band that holds the truth: ≤ 2.5%


def chance_note(fits: list[LawFit]) -> str:
    """How many "inconsistent" verdicts chance alone would give across the hypotheses judged (primaries and
    the other readings): where every theory holds, a verdict read off a 95% interval is "inconsistent" with
    probability at most 2.5% (the truth at the band's edge; less inside it), so at most 0.025·N are expected
    among N, and Binomial(N, 0.025) bounds how many chance gives 95% of the time (hypotheses taken as
    independent, which those sharing one fit are not: a rough bound). "" with nothing judged."""
    from scipy.stats import binom

    judged = [
        v.verdict
        for fit in fits
        if fit.verdict is not None
        for v in (fit.verdict, *(verdict for _, verdict in fit.alternatives))
        if v.verdict in (verdict_rule.CONSISTENT, verdict_rule.INCONSISTENT, verdict_rule.INCONCLUSIVE)
    ]
    if not judged:
        return ""
    count = len(judged)
    found = judged.count(verdict_rule.INCONSISTENT)
    expected = CHANCE_PER_VERDICT * count
    bound = int(binom.ppf(0.95, count, CHANCE_PER_VERDICT))
    return (
        f"Chance across laws: {count} hypotheses judged (laws and their other readings), {found} inconsistent. "
        f"Were every theory true, chance alone would give at most {expected:.2g} inconsistent on average and, 95% "
        f"of the time, at most {bound} (each verdict rests on a 95% interval: ≤ 2.5% wholly beyond a band holding "
        "the truth)."
    )


def write_fits_csv(fits: list[LawFit], path: Path) -> None:
    import pandas as pd

    rows = [fit.row() for fit in fits]
    table = pd.DataFrame(rows) if rows else pd.DataFrame(columns=FITS_COLUMNS)
    rest = [c for c in table.columns if c not in FITS_COLUMNS]
    table[[*FITS_COLUMNS, *rest]].to_csv(path, index=False)


def _add_chart(report: Report, chart, title: str) -> dict | None:
    """Save the chart's PNG (where the report writes them); return its spec and PNG file name for the page (None
    without a chart)."""
    if chart is None:
        return None
    spec = with_readable_config(chart.to_dict())
    if not report.png:
        return {"spec": spec, "png": None, "title": title}
    import vl_convert

    name = f"{len(report.charts):02d}-{_slug(title)}.png"
    png = vl_convert.vegalite_to_png(spec, scale=PNG_SCALE, vl_version=_vl_version())
    (report.out / "charts" / name).write_bytes(png)
    report.charts.append((title, f"charts/{name}"))
    return {"spec": spec, "png": f"charts/{name}", "title": title}


READABLE = {  # every chart's type sizes and legends: readable at a glance, titles and labels never cut short
    "axis": {"labelFontSize": 12, "titleFontSize": 13, "titleLimit": 0, "labelLimit": 0},
    "legend": {
        "labelFontSize": 12,
        "titleFontSize": 12,
        "symbolSize": 160,
        "symbolOpacity": 1,
        "symbolStrokeWidth": 2,
        "labelLimit": 0,
    },
    "header": {"labelFontSize": 12, "titleFontSize": 13},
    "title": {"fontSize": 15, "subtitleFontSize": 12},
}


def with_readable_config(spec: dict) -> dict:
    """The chart's spec with READABLE merged into its config (a chart's own settings win)."""
    config = spec.setdefault("config", {})
    for part, settings in READABLE.items():
        config[part] = {**settings, **config.get(part, {})}
    return spec


def _vl_version() -> str:
    import altair

    return ".".join(altair.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:80]

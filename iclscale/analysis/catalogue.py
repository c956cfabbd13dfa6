"""Every paper's laws, claims and report sections, from each paper's laws module (iclscale.paper).

A catalogue package exports LAWS (iclscale.analysis.law.Law), CLAIMS (every claim of its paper and the laws testing it)
and SECTIONS: hooks `section(results, add_chart) -> Section | None` that the generic report calls for a study's
results, so that study-specific pages (pruning curves, classical learners) live beside the study's laws.
Optionally CONTROL_CONFIG: {study: params}, one config inside every theorem's conditions of the study, a
tuple giving a param's levels, for the negative controls (iclscale.analysis.controls). Optionally RUN_SUMMARY:
{study: function(one run's curves, one row per record) -> dict}, what `iclscale train` prints about the
run's course beside its final metrics (a training-dynamics paper's phases, say). Optionally DERIVED: the paper's
derived variables, which iclscale.analysis.derived looks up by study."""

from iclscale.paper import papers

PAPERS = {
    # paper: (its studies, its laws module), ordered by citation
    paper.citation: (paper.studies, paper.load_laws())
    for paper in sorted(papers(), key=lambda p: p.citation)
}
ALL_LAWS = tuple(law for _, package in PAPERS.values() for law in package.LAWS)


def control_config(study: str) -> dict:
    """The study's config for the negative controls (iclscale.analysis.controls): CONTROL_CONFIG[study] of its
    package."""
    for studies, package in PAPERS.values():
        if study in studies:
            return dict(getattr(package, "CONTROL_CONFIG", {}).get(study, {}))
    return {}


def sections_of_study(study: str) -> tuple:
    return tuple(section for studies, package in PAPERS.values() if study in studies for section in package.SECTIONS)


def run_summary(study: str, records) -> dict | None:
    """The study's summary of one run's course (RUN_SUMMARY), from its (step, metric, value) records; None
    where the study has none."""
    summaries = {name: fn for _, package in PAPERS.values() for name, fn in getattr(package, "RUN_SUMMARY", {}).items()}
    if study not in summaries:
        return None
    import pandas as pd

    run = pd.DataFrame(records, columns=["step", "metric", "value"])
    return summaries[study](run.pivot_table(index="step", columns="metric", values="value").sort_index())


def experiments_of_sweep(study: str, sweep: str) -> tuple:
    """The papers' own experiments run by this sweep: (claim, Experiment) for every claim of the study's paper whose
    experiment names the sweep (iclscale.analysis.law.Experiment)."""
    return tuple(
        (claim, claim.experiment)
        for studies, package in PAPERS.values()
        if study in studies
        for claim in package.CLAIMS
        if getattr(claim, "experiment", None) is not None and claim.experiment.sweep == sweep
    )


def experiment_only_laws() -> frozenset[str]:
    """Laws that only judge a paper's own experiment (named by an Experiment, by no claim): a sweep that names no
    laws is not fitted with them as if they were the theorem's."""
    claimed = {name for _, package in PAPERS.values() for claim in package.CLAIMS for name in claim.laws}
    return frozenset(
        name
        for _, package in PAPERS.values()
        for claim in package.CLAIMS
        if getattr(claim, "experiment", None) is not None
        for name in claim.experiment.laws
        if name not in claimed
    )

"""Every paper's laws, claims and report sections, from each paper's laws record (iclscale.paper_laws.PaperLaws, the
laws contract: claims, laws, report sections, derived variables, control configs, run summaries, smoke configs)."""

from iclscale.paper import papers

PAPERS = {
    # paper: (its studies, its laws record), ordered by citation
    paper.citation: (paper.studies, paper.load_laws())
    for paper in sorted(papers(), key=lambda p: p.citation)
}
ALL_LAWS = tuple(law for _, record in PAPERS.values() for law in record.laws)


def control_config(study: str) -> dict:
    """The study's config for the negative controls (iclscale.analysis.controls): its paper's control_config[study]."""
    for studies, record in PAPERS.values():
        if study in studies:
            return dict(record.control_config.get(study, {}))
    return {}


def sections_of_study(study: str) -> tuple:
    return tuple(section for studies, record in PAPERS.values() if study in studies for section in record.sections)


def run_summary(study: str, records) -> dict | None:
    """The study's summary of one run's course (its paper's run_summary), from its (step, metric, value) records;
    None where the study has none."""
    summaries = {name: fn for _, record in PAPERS.values() for name, fn in record.run_summary.items()}
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
        for studies, record in PAPERS.values()
        if study in studies
        for claim in record.claims
        if getattr(claim, "experiment", None) is not None and claim.experiment.sweep == sweep
    )


def experiment_only_laws() -> frozenset[str]:
    """Laws that only judge a paper's own experiment (named by an Experiment, by no claim): a sweep that names no
    laws is not fitted with them as if they were the theorem's."""
    claimed = {name for _, record in PAPERS.values() for claim in record.claims for name in claim.laws}
    return frozenset(
        name
        for _, record in PAPERS.values()
        for claim in record.claims
        if getattr(claim, "experiment", None) is not None
        for name in claim.experiment.laws
        if name not in claimed
    )

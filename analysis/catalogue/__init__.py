"""Every paper's laws, claims and report sections (a new paper adds a package here and one entry below).

A catalogue package exports LAWS (analysis.law.Law), CLAIMS (every claim of its paper and the laws testing it)
and SECTIONS: hooks `section(results, add_chart) -> Section | None` that the generic report calls for a study's
results, so that study-specific pages (pruning curves, classical learners) live beside the study's laws.
Optionally CONTROL_CONFIG: {study: params}, one config inside every theorem's conditions of the study, a
tuple giving a param's levels, for the negative controls (analysis.controls). Optionally RUN_SUMMARY:
{study: function(one run's curves, one row per record) -> dict}, what `iclscale train` prints about the
run's course beside its final metrics (a training-dynamics paper's phases, say)."""

from analysis.catalogue import cooccurrence, feature_selector, mamba_outliers, nonlinear_icl, softmax_window

PAPERS = {
    # paper: (its studies, its catalogue package)
    "Collins et al. 2024 [C24], seed 004": (("softmax_window", "softmax_window_oracle"), softmax_window),
    "Li et al. 2024 [L24], seed 000": (("nonlinear_icl", "nonlinear_icl_gpt2"), nonlinear_icl),
    "Li, Lu et al. 2025 [LM25], seed 002": (("mamba_outliers",), mamba_outliers),
    "Li, Wang et al. 2023 [LW23], seed 001": (("feature_selector",), feature_selector),
    "Yang et al. 2024 [Y24], seed 003": (("cooccurrence",), cooccurrence),
}
ALL_LAWS = tuple(law for _, package in PAPERS.values() for law in package.LAWS)


def control_config(study: str) -> dict:
    """The study's config for the negative controls (analysis.controls): CONTROL_CONFIG[study] of its package."""
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

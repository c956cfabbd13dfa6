"""Every paper's laws, claims and report sections (a new paper adds a package here and one entry below).

A catalogue package exports LAWS (analysis.law.Law), CLAIMS (every claim of its paper and the laws testing it)
and SECTIONS: hooks `section(results, add_chart) -> Section | None` that the generic report calls for a study's
results, so that study-specific pages (pruning curves, classical learners) live beside the study's laws."""

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


def sections_of_study(study: str) -> tuple:
    return tuple(section for studies, package in PAPERS.values() if study in studies for section in package.SECTIONS)

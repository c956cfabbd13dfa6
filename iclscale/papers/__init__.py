"""The built-in papers, one folder each (iclscale.paper says what a folder holds; installed distributions add
theirs through entry points). This list is the one place outside a paper's folder that names it."""

BUILT_IN = ("softmax_window", "nonlinear_icl", "feature_selector", "mamba_outliers", "cooccurrence")

"""Data models that several papers share: the orthogonal patterns and task pairs of [L24], [LW23] and [LM25],
their noisy variant, and [LM25]'s outliers."""

"""Data models that several papers share: the orthogonal patterns and task pairs of [L24], [LW23] and [LM25],
their noisy variant, and [LM25]'s outliers."""

EVAL_CHUNK_PROMPTS = 256
"""Test prompts drawn and evaluated together (chunk c is draw c of the test stream). Fixed rather than sized by
the pack, so that a config's test set does not depend on the pack it runs in; one value for every paper on this
model, since changing it changes every test set drawn in chunks. Here, outside the torch modules, because the
declarations size a chunk's test set from it (`StudyInfo.eval_values`)."""

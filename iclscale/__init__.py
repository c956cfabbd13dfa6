"""iclscale: measure the scaling laws of in-context-learning theory papers.

The trainer package: studies (a paper's data model, model and recipe), configs, and packed
training of many configs as one batched model. Pure PyTorch; it imports neither `sweeps` nor
`analysis` (only the command line, `iclscale.cli`, composes the three).
"""

__version__ = "0.1.0"

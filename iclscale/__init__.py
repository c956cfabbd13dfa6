"""iclscale: measure the scaling laws of in-context-learning theory papers.

The trainer package: studies (a paper's data model, model and recipe), configs, and packed
training of many configs as one batched model. Pure PyTorch; it imports neither `sweeps` nor
`analysis` (only the command line, `iclscale.cli`, composes the three).
"""

import os

# Before torch loads its OpenMP runtime: threads that spin while waiting make tiny batched ops up to
# 50x slower as soon as another process competes for the cores (measured on 2 cores: 3k vs 136k
# model-steps/s at K = 1024). Passive waiting costs nothing measurable when the machine is idle.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"

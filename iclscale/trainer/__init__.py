"""The trainer: a study's configs trained as one batched model (a pack) on CPU or CUDA. Pure PyTorch;
imports neither iclscale.sweeps nor iclscale.analysis."""

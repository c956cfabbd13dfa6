"""Peers of iclscale's packed trainer: the same two models trained a pack of configs at a time by

- `torch_loop`: a plain hand-batched PyTorch loop (einsum over a leading config axis, torch.randn /
  torch.rand data, hand-written per-config Adam or SGD), eager and under `torch.compile`;
- `jax_loop`: the same model in JAX, a per-config step vmapped over configs, `lax.scan` over steps, `jit`;
- `iclscale_run`: iclscale itself, through its Python API.

`settings` holds what the three share (the models' sizes and recipes, per-config hyperparameters);
`harness` times them and prints the tables. The command lines are `benchmarks/peer_throughput.py`
and `benchmarks/end_to_end.py`.
"""

"""How one config is trained: optimizer and learning-rate schedule, as pure functions of one config's
tensors (the trainer vmaps them over the pack, so each config has its own learning rate and state).

Every update is elementwise, so config k's trajectory depends only on its own gradients. The step
count t is the pack's (a diverged config is frozen for good, so it needs no count of its own).

    sgd, gd:  p ← p − η_t g                                       (gd: g of the whole fixed training set)
    adam:     m ← β1 m + (1 − β1) g,  v ← β2 v + (1 − β2) g²,
              p ← p − η_t m̂ / (√v̂ + ε),  m̂ = m/(1 − β1^(t+1)),  v̂ = v/(1 − β2^(t+1))
              (Kingma & Ba 2015, torch's defaults β = (0.9, 0.999), ε = 1e-8)

    constant η_t = η;  exponential η_t = η·γ^t (torch's ExponentialLR stepped every iteration);
    cosine η_t = η·(1 + cos(π t/T))/2 (torch's CosineAnnealingLR with η_min = 0, T_max = T).
"""

from __future__ import annotations

import math

import torch

Tensors = dict[str, torch.Tensor]

ADAM_BETAS, ADAM_EPS = (0.9, 0.999), 1e-8


def learning_rate(schedule: str, lr: torch.Tensor, decay: torch.Tensor, t: torch.Tensor, total: int) -> torch.Tensor:
    """η_t for iteration t (0-based) of `total`."""
    t = t.to(lr.dtype)
    if schedule == "constant":
        return lr
    if schedule == "exponential":
        return lr * decay**t
    if schedule == "cosine":
        return lr * 0.5 * (1.0 + torch.cos(math.pi * t / max(total, 1)))
    raise ValueError(f"unknown schedule {schedule!r}")


def elapsed_time(schedule: str, lr: torch.Tensor, decay: torch.Tensor, steps_done: int, total: int) -> torch.Tensor:
    """t = Σ_{s<k} η_s after k steps: the time of the gradient flow dθ/dt = −∇L that gradient descent
    discretises (t = η·k for a constant η). lr and decay are (pack_size,) or 0-d; so is the result."""
    if steps_done == 0:
        return torch.zeros_like(lr)
    s = torch.arange(steps_done, dtype=torch.int64, device=lr.device)
    return learning_rate(schedule, lr[..., None], decay[..., None], s, total).expand(*lr.shape, steps_done).sum(-1)


def initial_state(optimizer: str, params: Tensors) -> Tensors:
    """Optimizer state of one config: Adam's moments, nothing for SGD."""
    if optimizer == "adam":
        return {**{f"m/{n}": torch.zeros_like(p) for n, p in params.items()},
                **{f"v/{n}": torch.zeros_like(p) for n, p in params.items()}}  # fmt: skip
    return {}


def update(optimizer: str, params: Tensors, grads: Tensors, state: Tensors, lr: torch.Tensor, t: torch.Tensor):
    """One optimizer step of one config: (new params, new state)."""
    if optimizer in ("sgd", "gd"):
        return {n: p - lr * grads[n] for n, p in params.items()}, state
    if optimizer == "adam":
        beta1, beta2 = ADAM_BETAS
        step = (t + 1).to(lr.dtype)
        new_params, moments = {}, {}
        for n, p in params.items():
            g = grads[n]
            m = beta1 * state[f"m/{n}"] + (1 - beta1) * g
            v = beta2 * state[f"v/{n}"] + (1 - beta2) * g * g
            m_hat = m / (1 - beta1**step)
            v_hat = v / (1 - beta2**step)
            new_params[n] = p - lr * m_hat / (v_hat.sqrt() + ADAM_EPS)
            moments[f"m/{n}"], moments[f"v/{n}"] = m, v
        return new_params, {key: moments[key] for key in state}  # the same order: compiled code guards on it
    raise ValueError(f"unknown optimizer {optimizer!r}")

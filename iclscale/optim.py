"""SGD and Adam for stacked parameters: K configs, each with its own learning rate and schedule.

Parameters are tensors with a leading pack dimension K. Every update is elementwise per config,
so config k's trajectory depends only on its own gradients. A config that is not `active`
(diverged, or finished) is frozen: its parameters, moments and step count stay as they are.
The learning rate of config k after t of its own steps is lr_k * lr_decay_k**t, which is
torch's `ExponentialLR(gamma=lr_decay)` stepped once per iteration.
"""

from __future__ import annotations

import torch

from iclscale.tensors import per_config


class StackedOptimizer:
    def __init__(self, params: dict[str, torch.Tensor], lr: torch.Tensor, lr_decay: torch.Tensor | None = None):
        self.params = params
        self.lr = lr
        self.lr_decay = torch.ones_like(lr) if lr_decay is None else lr_decay
        self.steps_taken = torch.zeros_like(lr)

    def current_lr(self) -> torch.Tensor:
        return self.lr * self.lr_decay**self.steps_taken

    def step(self, grads: dict[str, torch.Tensor], active: torch.Tensor) -> None:
        lr = self.current_lr()
        self.steps_taken = torch.where(active, self.steps_taken + 1, self.steps_taken)
        for name, param in self.params.items():
            update = self._update(name, grads[name], per_config(lr, param), per_config(active, param))
            param.copy_(torch.where(per_config(active, param), param - update, param))

    def _update(self, name: str, grad: torch.Tensor, lr: torch.Tensor, active: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class StackedSGD(StackedOptimizer):
    """Plain SGD: p <- p - lr * g."""

    def _update(self, name, grad, lr, active):
        return lr * grad


class StackedAdam(StackedOptimizer):
    """Adam (Kingma & Ba 2015) with torch's defaults betas = (0.9, 0.999), eps = 1e-8."""

    def __init__(self, params, lr, lr_decay=None, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, lr, lr_decay)
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.m = {name: torch.zeros_like(p) for name, p in params.items()}
        self.v = {name: torch.zeros_like(p) for name, p in params.items()}

    def _update(self, name, grad, lr, active):
        grad = torch.where(active, grad, 0.0)  # keeps a frozen config's NaN gradient out of its moments
        m = torch.where(active, self.beta1 * self.m[name] + (1 - self.beta1) * grad, self.m[name])
        v = torch.where(active, self.beta2 * self.v[name] + (1 - self.beta2) * grad * grad, self.v[name])
        self.m[name], self.v[name] = m, v
        t = per_config(self.steps_taken.clamp(min=1), m)
        m_hat = m / (1 - self.beta1**t)
        v_hat = v / (1 - self.beta2**t)
        return lr * m_hat / (v_hat.sqrt() + self.eps)


OPTIMIZERS = {"sgd": StackedSGD, "adam": StackedAdam}

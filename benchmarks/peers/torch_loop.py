"""The hand-batched PyTorch peer: what one would write by hand to train a pack of configs at once.

Every tensor carries a leading config axis (its length: the pack size) and the model is written with
einsum over it; data come from torch.rand / torch.randn (torch's global generator, not iclscale's
counter-based streams); the per-config gradient is the gradient of the loss summed over configs
(`torch.func.grad`); Adam and SGD are written out elementwise so that each config has its own learning
rate. One step is a pure function of tensors, run eagerly or under `torch.compile` (the same code).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch.func import grad

from .harness import Run, window_means
from .settings import SETTINGS, NonlinearICL, SoftmaxWindow, per_config_values

BETA1, BETA2, EPS = 0.9, 0.999, 1e-8  # Adam (Kingma & Ba 2015), torch's and iclscale's defaults


def adam(p, g, m, v, t, lr):
    """One Adam update; t is the 1-based count of this update, lr the (pack_size, 1, 1) learning rate."""
    m = BETA1 * m + (1 - BETA1) * g
    v = BETA2 * v + (1 - BETA2) * g * g
    update = lr * (m / (1 - BETA1**t)) / ((v / (1 - BETA2**t)).sqrt() + EPS)
    return p - update, m, v


# Seed 004's unit --------------------------------------------------------------------------------
def softmax_window_batch(s: SoftmaxWindow, L: torch.Tensor):
    """One ReLU task per config on isotropic covariates: (x_context, y_context, x_query, f_query)."""
    pack_size, n, shape = L.shape[0], s.n, (L.shape[0], s.tasks)
    x = torch.randn(*shape, n + s.queries, s.d, device=L.device)
    x = x / x.norm(dim=-1, keepdim=True)  # x ~ U(S^{d−1})
    w = torch.randn(*shape, s.d, device=L.device)
    w = w / w.norm(dim=-1, keepdim=True)  # w ~ U(S^{d−1})
    c = (2 * torch.rand(*shape, 3, device=L.device) - 1) * L.view(pack_size, 1, 1)  # l_1, l_2, b ~ U[−L, L]
    u = torch.einsum("ktpd,ktd->ktp", x, w)
    f = c[..., 0:1] * torch.relu(u) + c[..., 1:2] * torch.relu(-u) + c[..., 2:3]
    y = f[..., :n] + s.sigma * torch.randn(*shape, n, device=L.device)
    return x[:, :, :n], y, x[:, :, n:], f[..., n:]


def softmax_window_loss(M_K, x_context, y_context, x_query, f_query):
    """Σ_k of config k's mean squared error; also returns the per-config losses."""
    M = torch.einsum("kab,kac->kbc", M_K, M_K)  # M = M_Kᵀ M_K (tied)
    scores = torch.einsum("ktia,kab,ktqb->ktqi", x_context, M, x_query)  # x_iᵀ M x_q
    prediction = torch.einsum("ktqi,kti->ktq", torch.softmax(scores, dim=-1), y_context)
    per_config = ((prediction - f_query) ** 2).mean(dim=(1, 2))
    return per_config.sum(), per_config


def softmax_window_step(M_K, m, v, t, lr, decay, L):
    s = SETTINGS["softmax_window"]
    batch = softmax_window_batch(s, L)
    g, per_config = grad(softmax_window_loss, has_aux=True)(M_K, *batch)
    rate = (lr * decay**t).view(-1, 1, 1)  # lr_t = η·γ^t
    M_K, m, v = adam(M_K, g, m, v, t + 1, rate)
    return (M_K, m, v), per_config.mean()


def softmax_window_run(pack_size: int, steps: int, device: str, step: Callable) -> np.ndarray:
    s = SETTINGS["softmax_window"]
    M_K = s.init_scale * torch.eye(s.d, device=device).expand(pack_size, s.d, s.d).clone()
    state = (M_K, torch.zeros_like(M_K), torch.zeros_like(M_K))
    lr, decay = torch.full((pack_size,), s.lr, device=device), torch.full((pack_size,), s.lr_decay, device=device)
    L = torch.tensor(per_config_values("softmax_window", pack_size), device=device)
    return _loop(steps, device, state, lambda state, t: step(*state, t, lr, decay, L))


# nonlinear_icl ------------------------------------------------------------------------------------
def split(u: torch.Tensor, count: int):
    """One uniform as an index on [count] and a fresh uniform remainder (as iclscale's sampler draws)."""
    scaled = u * count
    index = scaled.long().clamp(max=count - 1)
    return index, (scaled - index).clamp(0.0, 1.0)


def nonlinear_icl_batch(s: NonlinearICL, alpha: torch.Tensor, tasks: torch.Tensor, units: torch.Tensor):
    """B prompts per config of l demonstrations and a query ([L24] §3.2): tokens (pack_size, B, l+1, D),
    labels z (pack_size, B)."""
    pack_size, B, l, device = alpha.shape[0], s.batch, s.l, alpha.device
    task = tasks[split(torch.rand(pack_size, B, device=device), len(tasks))[0]]  # uniform over T_tr
    a, b = task[..., 0:1], task[..., 1:2]
    z = torch.where(torch.rand(pack_size, B, device=device) < 0.5, 1.0, -1.0)
    query = torch.where(z > 0, task[..., 0], task[..., 1])
    u = torch.rand(pack_size, B, l, device=device)
    al = alpha.view(pack_size, 1, 1)
    other, coin = split(((u - al) / (1 - al)).clamp(0.0, 1.0), s.M1 - 2)
    other = other + (other >= torch.minimum(a, b)).long()
    other = other + (other >= torch.maximum(a, b)).long()
    pattern = torch.where(u < al / 2, a, torch.where(u < al, b, other))  # μ_a, μ_b w.p. α/2 each
    label = torch.where(pattern == a, 1.0, torch.where(pattern == b, -1.0, torch.where(coin < 0.5, 1.0, -1.0)))
    irrelevant, kappa = split(torch.rand(pack_size, B, l + 1, device=device), s.M2)
    kappa = s.kappa_range * (2 * kappa - 1)  # κ ~ U(−K, K)
    relevant = torch.cat([pattern, query[..., None]], dim=-1)
    x = s.beta * (units[relevant] + kappa[..., None] * units[s.M1 + irrelevant])  # x = μ_j + κν_k ([L24] Eq. 6)
    y = torch.zeros(pack_size, B, l + 1, s.d_y, device=device)
    y[:, :, :l, 0] = label  # y_i = ±q, q = e_1; the query's slot is 0 ([L24] Eq. 1)
    return torch.cat([x, y], dim=-1), z


def nonlinear_icl_loss(W, a, P, z):
    """Σ_k of config k's mean hinge loss of F(Ψ; P) = aᵀReLU(W_O Σ_i W_V p_i softmax_i(p_iᵀW_KᵀW_Q p_query))."""
    query = P[:, :, -1]
    columns = P[:, :, :-1]
    key = torch.einsum("kbd,kad,kae->kbe", query, W["W_Q"], W["W_K"])  # W_Kᵀ W_Q p_query
    attention = torch.softmax(torch.einsum("kbld,kbd->kbl", columns, key), dim=-1)
    mixed = torch.einsum("kbl,kbld->kbd", attention, columns)
    hidden = torch.relu(torch.einsum("kbd,ked,kme->kbm", mixed, W["W_V"], W["W_O"]))
    F = torch.einsum("kbm,km->kb", hidden, a)
    per_config = torch.clamp(1 - z * F, min=0).mean(dim=1)  # hinge ([L24] Eq. 3)
    return per_config.sum(), per_config


def nonlinear_icl_step(W, a, lr, alpha, tasks, units):
    s = SETTINGS["nonlinear_icl"]
    P, z = nonlinear_icl_batch(s, alpha, tasks, units)
    g, per_config = grad(nonlinear_icl_loss, has_aux=True)(W, a, P, z)
    new = {name: p - lr.view(-1, 1, 1) * g[name] for name, p in W.items()}  # SGD, constant lr
    return new, per_config.mean()


def nonlinear_icl_run(pack_size: int, steps: int, device: str, step: Callable) -> np.ndarray:
    s = SETTINGS["nonlinear_icl"]
    feature = (torch.arange(s.D, device=device) < s.d_x).float()
    W_QK = s.delta * torch.eye(s.m_a, s.D, device=device) * feature  # δ on the first d_X diagonal entries
    W = {"W_Q": W_QK.expand(pack_size, -1, -1).clone(), "W_K": W_QK.expand(pack_size, -1, -1).clone(),
         "W_V": (s.delta * torch.eye(s.m_b, s.D, device=device)).expand(pack_size, -1, -1).clone(),
         "W_O": torch.randn(pack_size, s.m, s.m_b, device=device) / s.m**0.5}  # fmt: skip
    a = torch.where(torch.rand(pack_size, s.m, device=device) < 0.5, 1.0, -1.0) / s.m  # a ~ U{±1/m}, fixed
    lr = torch.full((pack_size,), s.lr, device=device)
    alpha = torch.tensor(per_config_values("nonlinear_icl", pack_size), device=device)
    tasks = torch.tensor(s.training_tasks(), device=device)
    units = torch.eye(s.d_x, device=device)  # μ_j/β = e_j, ν_k/β = e_{M1+k}
    return _loop(steps, device, W, lambda W, t: step(W, a, lr, alpha, tasks, units))


# The loop -----------------------------------------------------------------------------------------
def _loop(steps: int, device: str, state, advance: Callable) -> np.ndarray:
    """Run `steps` steps of `advance(state, t) -> (state, mean loss)`; the losses stay on the device until
    the end (no per-step synchronisation). Returns the mean loss over configs of every step."""
    losses = []
    ts = torch.arange(steps, dtype=torch.float32, device=device)
    for t in range(steps):
        state, loss = advance(state, ts[t])
        losses.append(loss)
    return torch.stack(losses).cpu().numpy()


STEPS = {"softmax_window": softmax_window_step, "nonlinear_icl": nonlinear_icl_step}
RUNS = {"softmax_window": softmax_window_run, "nonlinear_icl": nonlinear_icl_run}
_COMPILED: dict[tuple[str, str], Callable] = {}


def compiled_step(model: str, device: str) -> Callable:
    """The step under torch.compile, once per model and device. On CPU, random numbers come from aten's
    generator (`fallback_random`): Inductor's generated CPU sampler measured 3× slower than the eager
    loop (0.15 M vs 0.46 M model-steps/s, seed 004, a pack of 4096, one thread); on CUDA Triton's is kept."""
    key = (model, torch.device(device).type)
    if key not in _COMPILED:
        options = {"fallback_random": key[1] == "cpu"}
        _COMPILED[key] = torch.compile(STEPS[model], fullgraph=True, dynamic=False, options=options)
    return _COMPILED[key]


def prepare(model: str, pack_size: int, steps: int, record_every: int, device: str, compiled: bool) -> Run:
    """A fresh training of `pack_size` configs per call (seeded torch generator)."""
    step = compiled_step(model, device) if compiled else STEPS[model]

    def run() -> list[float]:
        torch.manual_seed(0)
        return window_means(RUNS[model](pack_size, steps, device, step), record_every)

    return run

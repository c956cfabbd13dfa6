"""The JAX peer: each model written for one config, `vmap` over configs, `lax.scan` over steps, `jit`.

A step (sample a batch from the config's key folded with the step, loss, gradient, Adam or SGD) is a
function of one config; `jax.vmap` runs it for the whole pack and `lax.scan` chains the steps inside
one compiled program. Data come from `jax.random` (threefry), not iclscale's streams: the same
distributions and shapes, other numbers. Import this module only when jax is installed
(`pip install -e ".[bench]"`), after the thread settings (XLA reads XLA_FLAGS when it starts).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .harness import Run, Unavailable, window_means
from .settings import SETTINGS, per_config_values

BETA1, BETA2, EPS = 0.9, 0.999, 1e-8  # Adam (Kingma & Ba 2015), torch's and iclscale's defaults


def unit_rows(key, shape):
    """Points uniform on the unit sphere: normalised standard normals."""
    g = jax.random.normal(key, shape)
    return g / jnp.linalg.norm(g, axis=-1, keepdims=True)


# Seed 004's unit, one config ----------------------------------------------------------------------
def softmax_window_batch(key, L):
    s = SETTINGS["softmax_window"]
    kx, kw, kc, kn = jax.random.split(key, 4)
    x = unit_rows(kx, (s.tasks, s.n + s.queries, s.d))  # x ~ U(S^{d−1})
    w = unit_rows(kw, (s.tasks, s.d))
    c = L * jax.random.uniform(kc, (s.tasks, 3), minval=-1.0, maxval=1.0)  # l_1, l_2, b ~ U[−L, L]
    u = jnp.einsum("tpd,td->tp", x, w)
    f = c[:, 0:1] * jax.nn.relu(u) + c[:, 1:2] * jax.nn.relu(-u) + c[:, 2:3]
    y = f[:, : s.n] + s.sigma * jax.random.normal(kn, (s.tasks, s.n))
    return x[:, : s.n], y, x[:, s.n :], f[:, s.n :]


def softmax_window_loss(M_K, batch):
    x_context, y_context, x_query, f_query = batch
    M = M_K.T @ M_K  # tied
    scores = jnp.einsum("tia,ab,tqb->tqi", x_context, M, x_query)  # x_iᵀ M x_q
    prediction = jnp.einsum("tqi,ti->tq", jax.nn.softmax(scores, axis=-1), y_context)
    return jnp.mean((prediction - f_query) ** 2)


def softmax_window_step(state, t, hp):
    (M_K, m, v), (key, lr, decay, L) = state, hp
    loss, g = jax.value_and_grad(softmax_window_loss)(M_K, softmax_window_batch(jax.random.fold_in(key, t), L))
    m = BETA1 * m + (1 - BETA1) * g
    v = BETA2 * v + (1 - BETA2) * g * g
    n = t + 1
    M_K = M_K - lr * decay**t * (m / (1 - BETA1**n)) / (jnp.sqrt(v / (1 - BETA2**n)) + EPS)
    return (M_K, m, v), loss


def softmax_window_init(keys, init_keys, pack_size):  # M_K = 0.001·I: no random init
    s = SETTINGS["softmax_window"]
    M_K = jnp.broadcast_to(s.init_scale * jnp.eye(s.d), (pack_size, s.d, s.d))
    L = jnp.asarray(per_config_values("softmax_window", pack_size), dtype=jnp.float32)
    full = partial(jnp.full, (pack_size,), dtype=jnp.float32)
    return (M_K, jnp.zeros_like(M_K), jnp.zeros_like(M_K)), (keys, full(s.lr), full(s.lr_decay), L)


# nonlinear_icl, one config ------------------------------------------------------------------------
def split(u, count):
    """One uniform as an index on [count] and a fresh uniform remainder (as iclscale's sampler draws)."""
    scaled = u * count
    index = jnp.minimum(scaled.astype(jnp.int32), count - 1)
    return index, jnp.clip(scaled - index, 0.0, 1.0)


def nonlinear_icl_batch(key, alpha):
    s = SETTINGS["nonlinear_icl"]
    B, l = s.batch, s.l
    tasks = jnp.asarray(s.training_tasks())
    units = jnp.eye(s.d_x)  # μ_j/β = e_j, ν_k/β = e_{M1+k}
    k_task, k_z, k_context, k_irrelevant = jax.random.split(key, 4)
    task = tasks[split(jax.random.uniform(k_task, (B,)), len(tasks))[0]]
    a, b = task[:, 0:1], task[:, 1:2]
    z = jnp.where(jax.random.uniform(k_z, (B,)) < 0.5, 1.0, -1.0)
    query = jnp.where(z > 0, task[:, 0], task[:, 1])
    u = jax.random.uniform(k_context, (B, l))
    other, coin = split(jnp.clip((u - alpha) / (1 - alpha), 0.0, 1.0), s.M1 - 2)
    other = other + (other >= jnp.minimum(a, b))
    other = other + (other >= jnp.maximum(a, b))
    pattern = jnp.where(u < alpha / 2, a, jnp.where(u < alpha, b, other))  # μ_a, μ_b w.p. α/2 each
    label = jnp.where(pattern == a, 1.0, jnp.where(pattern == b, -1.0, jnp.where(coin < 0.5, 1.0, -1.0)))
    irrelevant, kappa = split(jax.random.uniform(k_irrelevant, (B, l + 1)), s.M2)
    kappa = s.kappa_range * (2 * kappa - 1)  # κ ~ U(−K, K)
    relevant = jnp.concatenate([pattern, query[:, None]], axis=-1)
    x = s.beta * (units[relevant] + kappa[..., None] * units[s.M1 + irrelevant])  # x = μ_j + κν_k
    y = jnp.zeros((B, l + 1, s.d_y)).at[:, :l, 0].set(label)  # y_i = ±q, q = e_1; the query's slot is 0
    return jnp.concatenate([x, y], axis=-1), z


def nonlinear_icl_loss(W, a, P, z):
    query, columns = P[:, -1], P[:, :-1]
    key = (query @ W["W_Q"].T) @ W["W_K"]  # W_Kᵀ W_Q p_query
    attention = jax.nn.softmax(jnp.einsum("bld,bd->bl", columns, key), axis=-1)
    mixed = jnp.einsum("bl,bld->bd", attention, columns)
    hidden = jax.nn.relu(mixed @ W["W_V"].T @ W["W_O"].T)
    return jnp.mean(jnp.maximum(0.0, 1.0 - z * (hidden @ a)))  # hinge ([L24] Eq. 3)


def nonlinear_icl_step(W, t, hp):
    key, a, lr, alpha = hp
    P, z = nonlinear_icl_batch(jax.random.fold_in(key, t), alpha)
    loss, g = jax.value_and_grad(nonlinear_icl_loss)(W, a, P, z)
    return jax.tree_util.tree_map(lambda p, gp: p - lr * gp, W, g), loss  # SGD, constant lr


def nonlinear_icl_init(keys, init_keys, pack_size):
    s = SETTINGS["nonlinear_icl"]
    feature = (jnp.arange(s.D) < s.d_x).astype(jnp.float32)
    W_QK = jnp.broadcast_to(s.delta * jnp.eye(s.m_a, s.D) * feature, (pack_size, s.m_a, s.D))
    init_keys = jax.vmap(jax.random.split)(init_keys)
    W_O = jax.vmap(lambda k: jax.random.normal(k, (s.m, s.m_b)))(init_keys[:, 0]) / s.m**0.5
    a = jax.vmap(lambda k: jnp.where(jax.random.uniform(k, (s.m,)) < 0.5, 1.0, -1.0))(init_keys[:, 1]) / s.m
    W = {
        "W_Q": W_QK,
        "W_K": W_QK,
        "W_V": jnp.broadcast_to(s.delta * jnp.eye(s.m_b, s.D), (pack_size, s.m_b, s.D)),
        "W_O": W_O,
    }
    alpha = jnp.asarray(per_config_values("nonlinear_icl", pack_size), dtype=jnp.float32)
    return W, (keys, a, jnp.full((pack_size,), s.lr, dtype=jnp.float32), alpha)


# The pack -------------------------------------------------------------------------------------------
MODELS = {
    "softmax_window": (softmax_window_init, softmax_window_step),
    "nonlinear_icl": (nonlinear_icl_init, nonlinear_icl_step),
}


def train(model: str, pack_size: int, steps: int, seed):
    """A pack of `pack_size` configs trained for `steps` steps: per-config step, vmapped, scanned. Returns each
    step's mean loss."""
    init, step = MODELS[model]
    keys = jax.random.split(jax.random.PRNGKey(seed), 2 * pack_size)
    state, hp = init(keys[:pack_size], keys[pack_size:], pack_size)  # data and initialisation keys per config
    packed = jax.vmap(step, in_axes=(0, None, 0))

    def body(state, t):
        state, loss = packed(state, t, hp)
        return state, jnp.mean(loss)

    return lax.scan(body, state, jnp.arange(steps))[1]


def device_for(name: str):
    platform = "gpu" if name.startswith("cuda") else name
    try:
        return jax.devices(platform)[0]
    except RuntimeError as error:
        raise Unavailable(f"JAX has no {platform} backend here ({jax.__version__}; jax[cuda12] has one)") from error


def prepare(model: str, pack_size: int, steps: int, record_every: int, device: str) -> Run:
    """Compiled ahead of time here (for this pack size and steps); each call trains `pack_size` fresh configs."""
    seed = jax.device_put(jnp.uint32(0), device_for(device))
    compiled = jax.jit(train, static_argnums=(0, 1, 2)).lower(model, pack_size, steps, seed).compile()

    def run() -> list[float]:
        return window_means(np.asarray(compiled(seed)), record_every)

    return run

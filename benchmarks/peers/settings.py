"""What every peer trains: the two models' sizes and recipes, as iclscale's studies declare them.

Seed 004's unit (`softmax_window`, Collins et al. 2024 [C24]): d = 5, n = 20, N = ⌊√n⌋ = 4 queries, one
ReLU task per iteration, isotropic covariates on the sphere, σ = 0.01, tied M = M_Kᵀ M_K from 0.001·I,
squared loss against the noise-free targets, Adam lr 0.1 with decay 0.999 per iteration ([C24] App J).

`nonlinear_icl` (Li et al. 2024 [L24]) at its declared defaults: d_X = d_Y = 30, M1 = 6 relevant and
M2 = 24 irrelevant patterns, l_tr = 20 demonstrations, B = 64 prompts per step, α = 0.8, β = 3, K = 0.5,
m = m_a = m_b = 60, the cyclic training tasks (U = 1), hinge loss, SGD lr 1 ([L24] §5, Alg. 1).

Configs in a pack differ in one train param, as in a sweep: L for seed 004, α for nonlinear_icl,
cycling through four values; every peer uses the same values so their losses are comparable.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

MODELS = ("softmax_window", "nonlinear_icl")


@dataclass(frozen=True)
class SoftmaxWindow:
    d: int = 5
    n: int = 20
    queries: int = math.isqrt(20)  # N = ⌊√n⌋ ([C24] App J)
    tasks: int = 1
    sigma: float = 0.01
    init_scale: float = 0.001
    lr: float = 0.1
    lr_decay: float = 0.999
    L_values: tuple[float, ...] = (0.5, 1.0, 1.5, 2.0)  # config k has L = L_values[k % 4]

    def iclscale_values(self) -> dict:
        """The same setting as `softmax_window` params (the rest are its defaults)."""
        return {"d": self.d, "n": self.n, "task_class": "relu", "covariates": "isotropic", "sigma": self.sigma,
                "init_scale": self.init_scale, "lr": self.lr, "lr_decay": self.lr_decay}  # fmt: skip


@dataclass(frozen=True)
class NonlinearICL:
    d_x: int = 30
    d_y: int = 30
    M1: int = 6
    M2: int = 24
    l: int = 20
    batch: int = 64
    m: int = 60
    m_a: int = 60
    m_b: int = 60
    beta: float = 3.0
    kappa_range: float = 0.5
    delta: float = 0.1
    lr: float = 1.0
    alpha_values: tuple[float, ...] = (0.6, 0.7, 0.8, 0.9)  # config k has α = alpha_values[k % 4]

    @property
    def D(self) -> int:
        return self.d_x + self.d_y

    def training_tasks(self) -> list[tuple[int, int]]:
        """The cyclic set with U = 1: task j maps μ_j → +1, μ_{j+1 mod M1} → −1 ([L24] §5)."""
        return [(j, (j + 1) % self.M1) for j in range(self.M1)]

    def iclscale_values(self) -> dict:
        return {"d_x": self.d_x, "d_y": self.d_y, "M1": self.M1, "M2": self.M2, "l_tr": self.l,
                "batch_size": self.batch, "m": self.m, "m_a": self.m_a, "m_b": self.m_b, "beta": self.beta,
                "K": self.kappa_range, "delta": self.delta, "lr": self.lr}  # fmt: skip


SETTINGS = {"softmax_window": SoftmaxWindow(), "nonlinear_icl": NonlinearICL()}


def per_config_values(model: str, pack_size: int) -> list[float]:
    """The varied train param of configs 0 … pack_size − 1 (L for seed 004, α for nonlinear_icl)."""
    setting = SETTINGS[model]
    values = setting.L_values if model == "softmax_window" else setting.alpha_values
    return [values[k % len(values)] for k in range(pack_size)]


VARIED_PARAM = {"softmax_window": "L", "nonlinear_icl": "alpha"}


def limit_threads(threads: int) -> None:
    """Before torch or jax is imported: `threads` OpenMP/MKL threads, and for one thread XLA's CPU
    backend without its multi-threaded Eigen pool (the flags the issue names)."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(threads)
    if threads == 1:
        flags = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flags}".strip()

"""Study `softmax_window_oracle`: the optimal window scale without training noise (ours).

By [C24] Lemma B.5 every minimiser of the ICL loss on isotropic data has the form M* = w·I. This
study estimates ℒ(w) = E (h_SA(x_{n+1}) − f(x_{n+1}))² by Monte Carlo on a log-grid of w, with the
same tasks, covariates and noise for every w (common random numbers, so the curve is smooth in w),
and refines the grid minimiser by a parabola in log w. For linear attention ℒ(w) is quadratic in w
and its minimiser is exact.

Recorded per config: `w_star`, `oracle_loss` (ℒ at the best grid point), `w_star_at_grid_edge`,
and the theorem's regime conditions ([C24] Lemmas C.5, D.1, Thms E.1–E.2) as 0/1 flags.
"""

from __future__ import annotations

import math

import torch

from iclscale.papers.softmax_window.data import Prompts, sample_prompts
from iclscale.papers.softmax_window.declaration import SOFTMAX_WINDOW_ORACLE, mc_chunk_tasks
from iclscale.trainer import configclass
from iclscale.trainer.study import Study

# the `c` its functions take: made from the declared params (iclscale.trainer.configclass)
SoftmaxWindowOracleConfig = configclass.of(SOFTMAX_WINDOW_ORACLE)


class SoftmaxWindowOracle(Study):
    trainable = False

    def w_grid(self, c: SoftmaxWindowOracleConfig) -> torch.Tensor:
        return torch.logspace(math.log10(c.w_min), math.log10(c.w_max), c.w_points, dtype=torch.float64)

    def probes(self, net: None, c: SoftmaxWindowOracleConfig, final: bool) -> dict[str, torch.Tensor]:
        sums = self.loss_sums(c) / c.mc_tasks
        if c.attention == "linear":
            # ℒ(w) = E f² − 2w E[a f] + w² E[a²] with a = Σ_i y_i x_iᵀx ([C24] Remark 2.2, M = w·I)
            ff, af, aa = sums.unbind()
            w_star = af / aa
            metrics = {"w_star": w_star, "oracle_loss": ff - af**2 / aa, "w_star_at_grid_edge": torch.zeros_like(ff)}
        else:
            w_star, at_edge = refine_minimum(self.w_grid(c), sums)
            metrics = {"w_star": w_star, "oracle_loss": sums.min(), "w_star_at_grid_edge": at_edge}
            metrics.update(regime_flags(w_star, c))
        return {name: value.to(c.L.dtype) for name, value in metrics.items()}

    def monte_carlo_chunk(self, c: SoftmaxWindowOracleConfig, index: int, tasks: int) -> Prompts:
        """Chunk `index` of the Monte Carlo sample: `tasks` prompts of n points and one query (what
        `StudyInfo.eval_values` sizes)."""
        return sample_prompts(
            c.rng,
            "oracle",
            index,
            tasks=tasks,
            n=c.n,
            queries=1,
            d=c.d,
            covariates=c.covariates,
            task_class=c.task_class,
            L=c.L,
            sigma=c.sigma,
            nu=c.nu,
            constants={},  # the oracle's covariates need no per-trial draws
            hills_mode=c.hills_mode,
        )

    def loss_sums(self, c: SoftmaxWindowOracleConfig) -> torch.Tensor:
        """Softmax: Σ over tasks of the squared error at each grid w, (G,). Linear: the sums of f², a·f
        and a², (3,). Tasks come in chunks whose size depends only on (n, d), never on the pack size, so that a
        config's Monte-Carlo sample is the same in any pack."""
        chunk = mc_chunk_tasks({"mc_tasks": c.mc_tasks, "n": c.n, "d": c.d})
        softmax = c.attention == "softmax"
        grid = self.w_grid(c).to(torch.get_default_dtype())
        sums = torch.zeros(len(grid) if softmax else 3, dtype=torch.float64)
        for index, start in enumerate(range(0, c.mc_tasks, chunk)):
            p = self.monte_carlo_chunk(c, index, min(chunk, c.mc_tasks - start))
            similarity = torch.einsum("tid,td->ti", p.x_context, p.x_query[:, 0])  # x_iᵀ x
            target = p.f_query[:, 0]
            if softmax:
                errors = [((torch.softmax(w * similarity, -1) * p.y_context).sum(-1) - target) ** 2 for w in grid]
                sums = sums + torch.stack(errors).double().sum(-1)  # [C24] eq. ICL, one row per grid w
            else:
                a = (p.y_context * similarity).sum(-1).double()
                f = target.double()
                sums = sums + torch.stack([(f * f).sum(), (a * f).sum(), (a * a).sum()])
        return sums


def refine_minimum(grid: torch.Tensor, curve: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """argmin of `curve` over a log-spaced `grid`, refined by the vertex of the parabola through the
    minimum and its two neighbours in log w. Returns (w*, 1.0 where w* is a grid end)."""
    log_grid = grid.log()
    step = log_grid[1] - log_grid[0]
    best = curve.argmin()
    interior = (best > 0) & (best < len(grid) - 1)
    centre = best.clamp(1, len(grid) - 2)
    left, mid, right = (curve.gather(0, (centre + o).unsqueeze(0)).squeeze(0) for o in (-1, 0, 1))
    curvature = left - 2 * mid + right
    offset = torch.where(curvature > 0, 0.5 * step * (left - right) / curvature, 0.0).clamp(-step, step)
    log_w = torch.where(interior, log_grid.gather(0, centre.unsqueeze(0)).squeeze(0) + offset,
                        log_grid.gather(0, best.unsqueeze(0)).squeeze(0))  # fmt: skip
    return log_w.exp(), (~interior).double()


def regime_flags(w_star: torch.Tensor, c: SoftmaxWindowOracleConfig) -> dict[str, torch.Tensor]:
    """The conditions of [C24] Thm 3.4's proof (Lemmas C.5, D.1, Thms E.1–E.2), with w_KQ = w/2: the appendix writes the
    kernel as exp(−w_KQ‖x_i − x‖²), and on the sphere w·x_iᵀx = w − (w/2)‖x_i − x‖²."""
    d, n = c.d, c.n
    w_kq = w_star / 2
    L, sigma = c.L.double(), c.sigma.double()
    # n ≳ (L²/σ²)^{d/2} for ReLU (App E.1), (L²/σ²)^{(d+2)/2} for affine (App E.2)
    power = (d + 2) / 2 if c.task_class == "affine" else d / 2
    signal_to_noise = torch.where(sigma > 0, L**2 / sigma.clamp(min=1e-300) ** 2, torch.inf)
    return {
        "regime_window": (w_kq >= d + math.sqrt(d)).double(),  # w_KQ ≥ d + √d (Lemma C.5)
        "regime_noise_lemma": (w_kq <= (n / math.log(max(n, 2))) ** (2 / d)).double(),  # Lemma D.1
        "regime_context": (n >= signal_to_noise**power).double(),
    }

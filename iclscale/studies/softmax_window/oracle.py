"""Study `softmax_window_oracle`: the optimal window scale without training noise (spec §5.1(b)).

By [C24] Lemma B.5 every minimiser of the ICL loss on isotropic data has the form M* = w·I. This
study estimates ℒ(w) = E (h_SA(x_{n+1}) − f(x_{n+1}))² by Monte Carlo on a log-grid of w, with the
same tasks, covariates and noise for every w (common random numbers, so the curve is smooth in w),
and refines the grid minimiser by a parabola in log w. For linear attention ℒ(w) is quadratic in w
and its minimiser is exact.

Recorded per config: `w_star`, `oracle_loss` (ℒ at the best grid point), `w_star_at_grid_edge`,
and the theorem's regime conditions (spec §5.1) as 0/1 flags.
"""

from __future__ import annotations

import math

import torch

from iclscale.studies.softmax_window.data import sample_prompts
from iclscale.study import Pack, Study

ELEMENTS_PER_CONFIG = 2**20  # Monte-Carlo tasks are drawn in chunks of about this many floats per config
ELEMENTS_PER_BLOCK = 2**24  # configs are measured in blocks of at most this many floats at once


class SoftmaxWindowOracle(Study):
    trainable = False

    def w_grid(self, pack: Pack) -> torch.Tensor:
        s = pack.shape
        return torch.logspace(math.log10(s["w_min"]), math.log10(s["w_max"]), s["w_points"], dtype=torch.float64)

    def probes(self, pack: Pack, model: None) -> dict[str, torch.Tensor]:
        sums = self.loss_sums(pack)
        if pack.shape["attention"] == "linear":
            # ℒ(w) = E f² − 2w E[a f] + w² E[a²] with a = Σ_i y_i x_iᵀx ([C24] Remark 2.2, M = w·I)
            ff, af, aa = (sums / pack.shape["mc_tasks"]).unbind(dim=1)
            w_star = af / aa
            metrics = {"w_star": w_star, "oracle_loss": ff - af**2 / aa, "w_star_at_grid_edge": torch.zeros_like(ff)}
        else:
            curve = sums / pack.shape["mc_tasks"]
            w_star, at_edge = refine_minimum(self.w_grid(pack).to(curve.device), curve)
            metrics = {"w_star": w_star, "oracle_loss": curve.min(dim=1).values, "w_star_at_grid_edge": at_edge}
            metrics.update(regime_flags(w_star, pack))
        return {name: value.float() for name, value in metrics.items()}

    def loss_sums(self, pack: Pack) -> torch.Tensor:
        """Softmax: Σ over tasks of the squared error at each grid w, (K, G).
        Linear: the sums of f², a·f and a², (K, 3).

        Tasks come in chunks whose size depends only on (n, d), never on K, so that a config's
        Monte-Carlo sample is the same in any pack; configs are processed in blocks to bound memory."""
        per_task = (pack.shape["n"] + 1) * pack.shape["d"]
        chunk = max(1, ELEMENTS_PER_CONFIG // per_task)
        block = max(1, ELEMENTS_PER_BLOCK // (chunk * per_task))
        parts = [self._block_sums(pack, slice(start, start + block), chunk) for start in range(0, pack.K, block)]
        return torch.cat(parts)

    def _block_sums(self, pack: Pack, configs: slice, chunk: int) -> torch.Tensor:
        s = pack.shape
        rng = pack.rng.subset(configs)
        hp = {name: value[configs] for name, value in pack.hp.items()}
        grid = self.w_grid(pack).to(pack.device, torch.float32)
        softmax = s["attention"] == "softmax"
        sums = torch.zeros((rng.K, len(grid) if softmax else 3), dtype=torch.float64, device=pack.device)
        for index, start in enumerate(range(0, s["mc_tasks"], chunk)):
            p = sample_prompts(
                rng,
                "oracle",
                index,
                tasks=min(chunk, s["mc_tasks"] - start),
                n=s["n"],
                queries=1,
                d=s["d"],
                covariates=s["covariates"],
                task_class=s["task_class"],
                L=hp["L"],
                sigma=hp["sigma"],
                nu=hp["nu"],
                constants={},  # the oracle's covariates need no per-trial draws
                hills_mode=s["hills_mode"],
            )
            similarity = torch.einsum("ktid,ktd->kti", p.x_context, p.x_query[:, :, 0])  # x_iᵀ x
            target = p.f_query[:, :, 0]
            if softmax:
                for g, w in enumerate(grid):
                    prediction = (torch.softmax(w * similarity, dim=-1) * p.y_context).sum(-1)  # [C24] eq. ICL
                    sums[:, g] += ((prediction - target) ** 2).double().sum(-1)
            else:
                a = (p.y_context * similarity).sum(-1).double()
                f = target.double()
                sums += torch.stack([(f * f).sum(-1), (a * f).sum(-1), (a * a).sum(-1)], dim=1)
        return sums


def refine_minimum(grid: torch.Tensor, curve: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """argmin of each row of `curve` over a log-spaced `grid`, refined by the vertex of the parabola
    through the minimum and its two neighbours in log w. Returns (w*, 1.0 where w* is a grid end)."""
    log_grid = grid.log()
    step = log_grid[1] - log_grid[0]
    best = curve.argmin(dim=1)
    interior = (best > 0) & (best < len(grid) - 1)
    centre = best.clamp(1, len(grid) - 2)
    left, mid, right = (curve.gather(1, (centre + o).unsqueeze(1)).squeeze(1) for o in (-1, 0, 1))
    curvature = left - 2 * mid + right
    offset = torch.where(curvature > 0, 0.5 * step * (left - right) / curvature, 0.0).clamp(-step, step)
    log_w = torch.where(interior, log_grid[centre] + offset, log_grid[best])
    return log_w.exp(), (~interior).double()


def regime_flags(w_star: torch.Tensor, pack: Pack) -> dict[str, torch.Tensor]:
    """The conditions of [C24] Thm 3.4's proof (spec §5.1), with w_KQ = w/2: the appendix writes the
    kernel as exp(−w_KQ‖x_i − x‖²), and on the sphere w·x_iᵀx = w − (w/2)‖x_i − x‖²."""
    d, n = pack.shape["d"], pack.shape["n"]
    w_kq = w_star / 2
    L, sigma = pack.hp["L"].double(), pack.hp["sigma"].double()
    # n ≳ (L²/σ²)^{d/2} for ReLU (App E.1), (L²/σ²)^{(d+2)/2} for affine (App E.2)
    power = (d + 2) / 2 if pack.shape["task_class"] == "affine" else d / 2
    signal_to_noise = torch.where(sigma > 0, L**2 / sigma.clamp(min=1e-300) ** 2, torch.inf)
    return {
        "regime_window": (w_kq >= d + math.sqrt(d)).double(),  # w_KQ ≥ d + √d (Lemma C.5)
        "regime_noise_lemma": (w_kq <= (n / math.log(max(n, 2))) ** (2 / d)).double(),  # Lemma D.1
        "regime_context": (n >= signal_to_noise**power).double(),
    }

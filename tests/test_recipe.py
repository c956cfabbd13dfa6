"""Recipes (iclscale.trainer.recipe): the per-config optimizers and schedules against torch's own, vmapped over
configs."""

import pytest
import torch
from torch.func import grad, vmap

from iclscale.trainer import recipe


def _problem(seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(3, 3, generator=g), torch.randn(3, generator=g)


def _loss(w, A, b):
    return ((A @ w - b) ** 2).sum()


def _reference(optimizer, lr, schedule, decay, steps, problem):
    """torch.optim with torch's schedulers, stepped once per iteration."""
    w = torch.zeros(3, requires_grad=True)
    opt = torch.optim.Adam([w], lr=lr) if optimizer == "adam" else torch.optim.SGD([w], lr=lr)
    if schedule == "exponential":
        sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=decay)
    elif schedule == "cosine":
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    else:
        sched = torch.optim.lr_scheduler.ConstantLR(opt, factor=1.0)
    for _ in range(steps):
        opt.zero_grad()
        _loss(w, *problem).backward()
        opt.step()
        sched.step()
    return w.detach()


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
@pytest.mark.parametrize("schedule", ["constant", "exponential", "cosine"])
def test_vmapped_updates_match_torch_optimizers_and_schedulers(optimizer, schedule):
    problems = [_problem(s) for s in range(3)]
    A, b = torch.stack([p[0] for p in problems]), torch.stack([p[1] for p in problems])
    lrs, decays = torch.tensor([0.05, 0.02, 0.1]), torch.tensor([0.99, 0.95, 0.9])
    steps = 40
    params = {"w": torch.zeros(3, 3)}
    state = vmap(lambda p: recipe.initial_state(optimizer, p))(params)

    def one(params, state, A, b, lr, decay, t):
        grads = grad(lambda p: _loss(p["w"], A, b))(params)
        rate = recipe.learning_rate(schedule, lr, decay, t, steps)
        return recipe.update(optimizer, params, grads, state, rate, t)

    for t in range(steps):
        params, state = vmap(one, in_dims=(0, 0, 0, 0, 0, 0, None))(params, state, A, b, lrs, decays, torch.tensor(t))
    for k in range(3):
        expected = _reference(optimizer, lrs[k].item(), schedule, decays[k].item(), steps, problems[k])
        assert torch.allclose(params["w"][k], expected, atol=1e-5), (k, params["w"][k], expected)


def test_full_batch_gd_is_plain_gradient_descent():
    params, grads = {"p": torch.ones(2)}, {"p": torch.tensor([1.0, -2.0])}
    new, state = recipe.update("gd", params, grads, {}, torch.tensor(0.1), torch.tensor(0))
    assert torch.allclose(new["p"], torch.tensor([0.9, 1.2])) and state == {}


@pytest.mark.parametrize("schedule", ["constant", "exponential", "cosine"])
def test_elapsed_time_sums_the_rates_taken(schedule):
    """The gradient-flow time after k steps is Σ_{s<k} η_s: η·k for a constant rate."""
    lr, decay, total = torch.tensor([0.01, 0.03]), torch.tensor([0.9, 0.99]), 50
    for k in (0, 1, 7, 50):
        expected = torch.stack(
            [sum((recipe.learning_rate(schedule, lr, decay, torch.tensor(s), total) for s in range(k)), torch.zeros(2))]
        )[0]
        assert torch.allclose(recipe.elapsed_time(schedule, lr, decay, k, total), expected, rtol=1e-6)
    assert torch.allclose(recipe.elapsed_time("constant", lr, decay, 40, total), 40 * lr)

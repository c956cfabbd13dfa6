import torch

from iclscale.optim import StackedAdam, StackedSGD


def _problem(seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(3, 3, generator=g), torch.randn(3, generator=g)


def _loss(w, A, b):
    return ((A @ w - b) ** 2).sum()


def test_stacked_adam_matches_torch_adam_with_exponential_lr():
    problems = [_problem(s) for s in range(3)]
    lrs, decays = torch.tensor([0.1, 0.03, 0.2]), torch.tensor([0.99, 1.0, 0.9])
    stacked = torch.zeros(3, 3)
    opt = StackedAdam({"w": stacked}, lrs, decays)
    references = []
    for k in range(3):
        w = torch.zeros(3, requires_grad=True)
        ref_opt = torch.optim.Adam([w], lr=lrs[k].item())
        sched = torch.optim.lr_scheduler.ExponentialLR(ref_opt, gamma=decays[k].item())
        references.append((w, ref_opt, sched))
    for _ in range(50):
        grads = torch.stack([torch.func.grad(_loss)(stacked[k], *problems[k]) for k in range(3)])
        opt.step({"w": grads}, torch.ones(3, dtype=torch.bool))
        for k, (w, ref_opt, sched) in enumerate(references):
            ref_opt.zero_grad()
            _loss(w, *problems[k]).backward()
            ref_opt.step()
            sched.step()
    for k, (w, _, _) in enumerate(references):
        assert torch.allclose(stacked[k], w.detach(), atol=1e-5)


def test_inactive_configs_are_frozen():
    params = torch.ones(2, 4)
    opt = StackedAdam({"p": params}, torch.tensor([0.1, 0.1]))
    grads = torch.tensor([[1.0] * 4, [float("nan")] * 4])
    opt.step({"p": grads}, torch.tensor([True, False]))
    assert torch.all(params[1] == 1) and torch.all(params[0] < 1)
    assert torch.all(torch.isfinite(opt.m["p"])) and opt.steps_taken.tolist() == [1, 0]


def test_stacked_sgd_uses_each_configs_learning_rate():
    params = torch.zeros(2, 1)
    StackedSGD({"p": params}, torch.tensor([0.1, 1.0])).step({"p": torch.ones(2, 1)}, torch.ones(2, dtype=torch.bool))
    assert torch.allclose(params.flatten(), torch.tensor([-0.1, -1.0]))

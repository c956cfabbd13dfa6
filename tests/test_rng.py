import math

import pytest
import torch

from iclscale.rng import Streams


def test_uniform_moments_and_range():
    u = Streams([0, 1, 2]).uniform("u", 0, (200_000,))
    assert u.min() > 0 and u.max() < 1
    assert u.mean().item() == pytest.approx(0.5, abs=3e-3)
    assert u.var().item() == pytest.approx(1 / 12, abs=2e-3)


def test_normal_moments():
    z = Streams([5]).normal("z", 3, (400_000,)).double()
    assert z.mean().item() == pytest.approx(0.0, abs=0.01)
    assert z.var().item() == pytest.approx(1.0, abs=0.01)
    assert ((z > 1.96).double().mean().item()) == pytest.approx(0.025, abs=0.002)


def test_float64_uniform_is_in_open_interval():
    u = Streams([0]).uniform("u", 0, (100_000,), dtype=torch.float64)
    assert u.dtype == torch.float64 and u.min() > 0 and u.max() < 1


def test_sphere_points_have_unit_norm():
    x = Streams([0, 1]).sphere("x", 0, (1000,), 7)
    assert torch.allclose(x.norm(dim=-1), torch.ones(2, 1000), atol=1e-5)


def test_a_config_sees_the_same_numbers_whatever_its_pack():
    alone = Streams([42]).normal("noise", 17, (5, 3))
    packed = Streams([7, 42, 9]).normal("noise", 17, (5, 3))
    assert torch.equal(alone[0], packed[1])


def test_purposes_steps_and_seeds_give_different_numbers():
    s = Streams([0, 1])
    a = s.uniform("a", 0, (1000,))
    assert not torch.equal(a[0], a[1])
    assert not torch.equal(a, s.uniform("b", 0, (1000,)))
    assert not torch.equal(a, s.uniform("a", 1, (1000,)))
    assert torch.equal(a, s.uniform("a", 0, (1000,)))


def test_streams_are_uncorrelated():
    u = Streams(list(range(20))).uniform("u", 0, (20_000,)).double()
    corr = torch.corrcoef(u)
    off_diagonal = corr[~torch.eye(20, dtype=torch.bool)]
    assert off_diagonal.abs().max().item() < 5 / math.sqrt(20_000)
    lag_one = torch.corrcoef(torch.stack([u[0, :-1], u[0, 1:]]))[0, 1]
    assert abs(lag_one.item()) < 5 / math.sqrt(20_000)


def test_bad_seeds_are_refused():
    with pytest.raises(ValueError):
        Streams([-1])

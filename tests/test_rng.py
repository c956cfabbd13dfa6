import math

import pytest
import torch
from torch.func import vmap

from iclscale.trainer.rng import Stream


def test_uniform_moments_and_range():
    u = Stream.from_seeds([0, 1, 2]).uniform("u", 0, (200_000,))
    assert u.min() > 0 and u.max() < 1
    assert u.mean().item() == pytest.approx(0.5, abs=3e-3)
    assert u.var().item() == pytest.approx(1 / 12, abs=2e-3)


def test_normal_moments():
    z = Stream.from_seeds([5]).normal("z", 3, (400_000,)).double()
    assert z.mean().item() == pytest.approx(0.0, abs=0.01)
    assert z.var().item() == pytest.approx(1.0, abs=0.01)
    assert ((z > 1.96).double().mean().item()) == pytest.approx(0.025, abs=0.002)


def test_float64_uniform_is_in_open_interval():
    u = Stream.from_seeds([0]).uniform("u", 0, (100_000,), dtype=torch.float64)
    assert u.dtype == torch.float64 and u.min() > 0 and u.max() < 1


def test_sphere_points_have_unit_norm():
    x = Stream.from_seeds([0, 1]).sphere("x", 0, (1000,), 7)
    assert torch.allclose(x.norm(dim=-1), torch.ones(2, 1000), atol=1e-5)


def test_a_config_sees_the_same_numbers_whatever_its_pack():
    alone = Stream.from_seeds([42]).normal("noise", 17, (5, 3))
    packed = Stream.from_seeds([7, 42, 9]).normal("noise", 17, (5, 3))
    assert torch.equal(alone[0], packed[1])


def test_purposes_steps_and_seeds_give_different_numbers():
    s = Stream.from_seeds([0, 1])
    a = s.uniform("a", 0, (1000,))
    assert not torch.equal(a[0], a[1])
    assert not torch.equal(a, s.uniform("b", 0, (1000,)))
    assert not torch.equal(a, s.uniform("a", 1, (1000,)))
    assert torch.equal(a, s.uniform("a", 0, (1000,)))


def test_streams_are_uncorrelated():
    u = Stream.from_seeds(list(range(20))).uniform("u", 0, (20_000,)).double()
    corr = torch.corrcoef(u)
    off_diagonal = corr[~torch.eye(20, dtype=torch.bool)]
    assert off_diagonal.abs().max().item() < 5 / math.sqrt(20_000)
    lag_one = torch.corrcoef(torch.stack([u[0, :-1], u[0, 1:]]))[0, 1]
    assert abs(lag_one.item()) < 5 / math.sqrt(20_000)


def test_bad_seeds_are_refused():
    with pytest.raises(ValueError):
        Stream.from_seeds([-1])


def test_the_hash_is_lowbias32_on_32_bits():
    """Known values of Wellons' lowbias32 (a C reference computed with uint32_t arithmetic)."""
    from iclscale.trainer.rng import mix32

    x = torch.tensor([0, 1, 0xDEADBEEF, 0xFFFFFFFF], dtype=torch.int64)
    expected = [_lowbias32(int(v)) for v in x]
    assert mix32(x).tolist() == expected


def _lowbias32(x: int) -> int:
    m = 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & m
    x ^= x >> 15
    x = (x * 0x846CA68B) & m
    return x ^ (x >> 16)


def test_a_per_config_stream_under_vmap_sees_its_packs_numbers():
    seeds = [3, 1, 4, 1, 5]
    stacked = Stream.from_seeds(seeds)
    per_config = vmap(lambda key: Stream(key).normal("x", 7, (4, 3)))(stacked.base)
    assert torch.equal(per_config, stacked.normal("x", 7, (4, 3)))
    step = torch.tensor(7)  # a tensor step (as in a compiled training step) gives the same numbers
    assert torch.equal(vmap(lambda key: Stream(key).normal("x", step, (4, 3)))(stacked.base), per_config)


def test_compiled_draws_equal_eager_bit_for_bit_at_many_lengths():
    """Compiled hash code once gave other numbers than eager for some lengths (int32 overflow is undefined
    behaviour in generated C++): every uniform here must match exactly, in both float types. Normals go
    through log, cos and sin, whose compiled versions may differ in the last bit."""
    keys = Stream.from_seeds(list(range(6))).base
    lengths = [1, 3, 10, 40, 41, 240]

    def draws(key, step):
        rng = Stream(key)
        dtypes = (torch.float32, torch.float64)
        uniforms = [rng.uniform(f"u{n}", step, (n,), dtype) for n in lengths for dtype in dtypes]
        return uniforms, rng.normal("z", step, (41,), torch.float32)

    eager = vmap(draws, in_dims=(0, None))(keys, torch.tensor(5))
    compiled = torch.compile(vmap(draws, in_dims=(0, None)), dynamic=False)(keys, torch.tensor(5))
    for a, b in zip(eager[0], compiled[0], strict=True):
        assert a.dtype == b.dtype and torch.equal(a, b), (a.shape, a.dtype)
    torch.testing.assert_close(eager[1], compiled[1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("count", [1, 2, 3, 40, 241, 4097])
def test_eager_int32_route_gives_the_int64_bits(count):
    """Eager CPU draws hash in int32 (wrap-around multiplication); the numbers are the int64 route's, bit for bit."""
    from iclscale.trainer.rng import _MASK, _counters, mix32

    stream = Stream.from_seeds([0, 1, 2**31 - 1, 123456789])
    for purpose, step in [("train/x", 0), ("test", 7), ("noise", 2**20)]:
        key = stream.key(purpose, step)
        reference = mix32((key[..., None] + _counters(count, stream.device)).bitwise_and_(_MASK))
        assert torch.equal(stream.bits(purpose, step, count), reference)
        for dtype in (torch.float32, torch.float64):
            if dtype == torch.float64:
                expected = (reference.to(dtype) + 0.5) * 2.0**-32
            else:
                expected = ((reference >> 9).to(dtype) + 0.5) * 2.0**-23
            assert torch.equal(stream.uniform(purpose, step, (count,), dtype), expected)


@pytest.mark.parametrize("purpose", ["", "noise", "test/x", "α-task", "⊕ key", "task 🎲", "\x7f\x80\u07ff\u0800\uffff"])
def test_purpose_codes_are_zlib_crc32_of_the_utf8_bytes(purpose):
    import zlib

    from iclscale.trainer import rng

    assert rng._crc32(purpose) == zlib.crc32(purpose.encode())


def test_a_purpose_with_no_utf8_encoding_is_refused():
    from iclscale.trainer import rng

    with pytest.raises(ValueError, match="surrogate"):
        rng._crc32("a\ud800")


def test_a_draw_traces_as_one_graph():
    """dynamo (torch 2.11) could not iterate the bytes of a purpose: the break fell inside every vmapped step."""

    def draw(key):
        return vmap(lambda k: Stream(k).normal("noise", 3, (4,)))(key)

    keys = Stream.from_seeds([1, 2]).base
    compiled = torch.compile(draw, fullgraph=True, backend="eager")
    torch.testing.assert_close(compiled(keys), draw(keys))

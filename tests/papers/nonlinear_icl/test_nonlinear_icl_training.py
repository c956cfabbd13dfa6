"""Training and evaluating the seed-000 studies: packing, unseen-task evaluation, convergence, pruning, baselines."""

import numpy as np
import pytest
import torch

from iclscale.trainer.registry import study_info
from iclscale.trainer.study import Pack
from iclscale.trainer.training import train_pack

SMALL = {"steps": 20, "eval_prompts": 128, "probe_prompts": 16, "batch_size": 16}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """These models are tiny: one intra-op thread is faster, and on a busy machine two threads spin-wait on
    each other (a step measured ten times slower). Restored afterwards."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def nonlinear_icl():
    return study_info("nonlinear_icl")


def _resolve(info, variations, **fixed):
    resolved = [info.resolve({**fixed, **extra}, seed, "test") for seed, extra in enumerate(variations)]
    return [config for config, _ in resolved]


def _point(info, **values):
    return info.resolve(values, 0, "test")[1]


def _assert_close(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == pytest.approx(b[name], rel=2e-4, abs=2e-5, nan_ok=True), name


def test_packed_results_equal_one_at_a_time(nonlinear_icl):
    variations = [{"alpha": 0.5, "n_train_tasks": 4}, {"lr": 0.5, "beta": 2.0, "K": 0.3}, {"delta": 0.2, "U": 2}]
    configs = _resolve(nonlinear_icl, variations, **SMALL)
    points = [_point(nonlinear_icl, **SMALL), _point(nonlinear_icl, domain="ood", alpha_test=0.6, **SMALL)]
    packed = train_pack(nonlinear_icl, configs, points, 10)
    for k in (0, 2):
        alone = train_pack(nonlinear_icl, [configs[k]], points, 10)
        for point in points:
            _assert_close(packed.final_metrics(k, point), alone.final_metrics(0, point))
        packed_curve, alone_curve = packed.curve(k), alone.curve(0)
        assert [row[:2] for row in packed_curve] == [row[:2] for row in alone_curve]
        np.testing.assert_allclose([r[2] for r in packed_curve], [r[2] for r in alone_curve], rtol=2e-4, atol=2e-5)
    shuffled = train_pack(nonlinear_icl, configs[::-1], points[:1], 20)
    _assert_close(shuffled.final_metrics(2, points[0]), packed.final_metrics(0, points[0]))


def test_in_domain_error_uses_unseen_tasks_only(nonlinear_icl):
    configs = _resolve(
        nonlinear_icl, [{}, {"n_train_tasks": 30}, {"U": 4}, {"n_train_tasks": 4}], **{**SMALL, "steps": 0}
    )
    study = nonlinear_icl.load()
    pack = Pack.build(nonlinear_icl, configs)
    pack.const = pack.map(study.constants)
    train_member = pack.map(lambda c: study.tasks(c, "train").membership(6)).reshape(4, -1)
    point = dict(_point(nonlinear_icl, eval_prompts=600))
    has_tasks = pack.map(lambda c: study.test_domain(c, point).has_tasks)
    assert has_tasks.tolist() == [True, False, True, True]  # T_tr = T leaves no unseen task
    seen_tasks = []
    for chunk in range(3):
        prompts = pack.map(lambda c, chunk=chunk: study.test_chunk(c, point, 600, chunk))
        task = prompts.draw.task[..., 0] * 6 + prompts.draw.task[..., 1]
        assert not torch.any(train_member.gather(1, task)[has_tasks])  # never a training task
        seen_tasks.append(task)
    assert len(torch.unique(torch.cat(seen_tasks, 1)[0])) == 24  # all 24 unseen tasks of the cyclic U = 1 set
    assert len(torch.unique(torch.cat(seen_tasks, 1)[2])) == 6  # U = 4 leaves the 6 tasks (j, j − 1)
    result = train_pack(nonlinear_icl, configs, [tuple(point.items())], 10)
    final = [result.final_metrics(k, tuple(point.items())) for k in range(4)]
    assert np.isnan(final[1]["test_error"]) and not np.isnan(final[0]["test_error"])
    assert [f["condition_3_2"] for f in final] == [1.0, 1.0, 1.0, 0.0]  # 4 < M1 tasks cannot cover every μ_j
    assert [f["unseen_task_count"] for f in final] == [24, 0, 6, 26]


def test_short_training_reaches_low_unseen_task_error_at_the_defaults(nonlinear_icl):
    """[L24] §5 defaults (α = 0.8, l_tr = 20, β = 3) with η = 1, B = 64, δ = 0.1, m = 60: a numpy pilot of
    ours saw the unseen-task error reach 0 in about 100–150 iterations."""
    configs = _resolve(nonlinear_icl, [{}, {}], steps=150, probe_prompts=64)
    ood = _point(nonlinear_icl, domain="ood", eval_prompts=512)
    point = _point(nonlinear_icl, eval_prompts=512)
    result = train_pack(nonlinear_icl, configs, [point, ood], 150)
    for k in range(2):
        start = result.curve(k)
        initial = next(v for step, name, v, p in start if step == 0 and name == "test_error" and p == point)
        final = result.final_metrics(k, point)
        assert initial > 0.3 and final["test_error"] <= 0.02, (initial, final["test_error"])
        assert result.final_metrics(k, ood)["test_error"] <= 0.1  # S1 = 1.28 ≥ 1: out-of-domain too (Thm 3.4)
        assert final["id_attn_same"] > 0.8 > final["id_attn_same_uniform"]  # attention concentrates (Cor. 4.3)


def test_pruning_and_baselines_are_measured_at_the_final_record(nonlinear_icl):
    configs = _resolve(nonlinear_icl, [{}], steps=150, probe_prompts=16, m=60)  # R = 0.5 prunes 30 of 60 exactly
    common = {"eval_prompts": 256, "alpha_test": 0.6}
    points = {
        "plain": _point(nonlinear_icl, **common),
        "magnitude": _point(nonlinear_icl, prune_method="magnitude", prune_ratio=0.5, **common),
        "largest": _point(nonlinear_icl, prune_method="largest", prune_ratio=0.5, **common),
        "knn1": _point(nonlinear_icl, learner="knn1", baseline_prompts=40, alpha_test=1.0),
        "knn1_empty": _point(nonlinear_icl, learner="knn1", baseline_prompts=8, l_ts=0),
    }
    result = train_pack(nonlinear_icl, configs, list(points.values()), 50)
    final = {name: result.final_metrics(0, point) for name, point in points.items()}
    assert final["magnitude"]["pruned_fraction"] == 0.5
    assert final["largest"]["test_hinge"] > final["magnitude"]["test_hinge"] >= final["plain"]["test_hinge"] - 1e-6
    assert final["knn1"]["test_error"] < 0.05  # with α' = 1 a same-pattern demonstration is nearest
    assert final["knn1_empty"]["test_error"] == 0.5  # no demonstration: a tie
    steps_of = {name: {row[0] for row in result.curve(0) if row[3] == point} for name, point in points.items()}
    assert steps_of["plain"] == {0, 50, 100, 150}
    assert steps_of["magnitude"] == steps_of["knn1"] == {150}
    magnitudes = [final["plain"][f"neuron_magnitude_{i:03d}"] for i in range(60)]
    assert all(m > 0 for m in magnitudes)


def test_gpt2_trains_and_packs():
    info = study_info("nonlinear_icl_gpt2")
    small = {"steps": 10, "n_embd": 16, "l_tr": 6, "batch_size": 16, "lr": 3e-3, "eval_prompts": 64}
    configs = _resolve(info, [{}, {"alpha": 0.6}], **small)
    point = _point(info, l_ts=6, **small)
    packed = train_pack(info, configs, [point], 5)
    alone = train_pack(info, [configs[1]], [point], 5)
    _assert_close(packed.final_metrics(1, point), alone.final_metrics(0, point))
    assert packed.status == ["ok", "ok"]
    assert packed.final_metrics(0, point)["unseen_task_count"] == 6  # U = 4: 24 training tasks, 6 unseen


def _decisive_share(draw):
    contexts = draw.relevant[..., :-1]
    return ((contexts == draw.task[..., :1]) | (contexts == draw.task[..., 1:])).float().mean(dim=(1, 2))


def test_training_batches_use_alpha_and_test_prompts_use_alpha_prime(nonlinear_icl):
    configs = _resolve(nonlinear_icl, [{"alpha": 0.4}, {"alpha": 1.0}], batch_size=256)
    study = nonlinear_icl.load()
    pack = Pack.build(nonlinear_icl, configs)
    pack.const = pack.map(study.constants)
    train = pack.map(
        lambda c: study.prompts(c, study.domain(c, "train"), "train", 3, count=256, length=20, fraction=c.alpha)
    )
    assert torch.equal(train.tokens, pack.map(lambda c: study.batch(c, 3))[0])  # the batch of step 3 is this draw
    n = 256 * 20
    share = _decisive_share(train.draw)
    assert share[0].item() == pytest.approx(0.4, abs=5 * (0.4 * 0.6 / n) ** 0.5) and share[1].item() == 1.0
    for domain in ("id", "ood"):
        point = dict(_point(nonlinear_icl, domain=domain, alpha_test=0.6, eval_prompts=512))
        draws = [pack.map(lambda c, i=i, p=point: study.test_chunk(c, p, 512, i)).draw for i in range(2)]
        share = torch.stack([_decisive_share(d) for d in draws]).mean(0)  # two equal chunks
        assert torch.allclose(share, torch.tensor(0.6), atol=5 * (0.6 * 0.4 / (512 * 20)) ** 0.5), (domain, share)

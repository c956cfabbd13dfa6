"""Study feature_selector ([LW23], seed 001): initialisation, the label-block invariants, probes, task sets, OOD."""

import math

import pytest
import torch

from iclscale.papers.common.patterns import condition_3_2
from iclscale.papers.feature_selector import probes
from iclscale.trainer.registry import study_info
from iclscale.trainer.study import Net, Pack
from iclscale.trainer.training import train_pack

SMALL = {"steps": 20, "eval_prompts": 128, "probe_prompts": 32, "batch_size": 16, "m": 32}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny models: one intra-op thread is faster, and two spin-wait on each other on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def info():
    return study_info("feature_selector")


def _one(info, seed=0, **values):
    """One config's view and its initial parameters, through the pack as the trainer builds them."""
    config, point = info.resolve({**SMALL, **values}, seed, "test")
    pack = Pack.build(info, [config])
    study = info.load()
    pack.const = pack.map(study.constants)
    c = pack.view_of({k: v[0] for k, v in pack.hp.items()}, pack.rng.base[0], {k: v[0] for k, v in pack.const.items()})
    return study, c, dict(point)


def test_initialisation_follows_section_2(info):
    study, c, _ = _one(info, m=4000, delta=0.05, xi=0.2)
    params = study.init(c)
    D = 24
    expected_qk = torch.zeros(28, D)
    expected_qk[range(20), range(20)] = 0.05  # δ on the first d_X diagonal entries only
    assert torch.equal(params["W_Q"], expected_qk) and torch.equal(params["W_K"], expected_qk)
    assert torch.equal(params["W_V"], 0.05 * torch.eye(28, D))  # δ on every diagonal entry
    assert params["W_O"].std().item() == pytest.approx(0.2, rel=0.02)  # N(0, ξ²)
    assert params["a"].abs().unique().tolist() == pytest.approx([1 / 4000])
    assert (params["a"] > 0).float().mean().item() == pytest.approx(0.5, abs=0.03)


def test_training_keeps_the_label_block_invariants_and_the_fixed_a(info):
    config, point = info.resolve({**SMALL, "steps": 15}, 0, "test")
    trainer_result = train_pack(info, [config], [point], 15)
    final = trainer_result.final_metrics(0, point)
    assert final["wq_label_columns_norm"] == 0.0 and final["qk_rows_past_dx_norm"] == 0.0  # [LW23] Eq. 108, 113, 123
    assert final["wk_label_columns_norm"] > 0  # (3): W_K's label columns move
    from iclscale.trainer.training import PackTrainer

    trainer = PackTrainer(info, [config], [point], torch.device("cpu"))
    assert "a" in trainer.buffers and "a" not in trainer.params  # a is frozen ([LW23] §2)


def test_packed_results_equal_one_at_a_time(info):
    variations = [{"alpha": 0.8, "tau": 0.2}, {"lambda_star": 0.3, "xi": 0.3, "n_train_tasks": 2}, {"lr": 3.0}]
    fixed = {**SMALL, "d_x": 32, "steps": 10}
    configs = [info.resolve({**fixed, **v}, seed, "t")[0] for seed, v in enumerate(variations)]
    points = [info.resolve({**fixed, **p}, 0, "t")[1] for p in ({}, {"domain": "ood", "alpha_test": 0.7, "l_ts": 6})]
    packed = train_pack(info, configs, points, 5)
    for k in (0, 1):
        alone = train_pack(info, [configs[k]], points, 5)
        for point in points:
            a, b = packed.final_metrics(k, point), alone.final_metrics(0, point)
            assert a.keys() == b.keys()
            for name in a:
                assert a[name] == pytest.approx(b[name], rel=2e-4, abs=2e-5, nan_ok=True), name


def test_probes_at_initialisation(info):
    study, c, _ = _one(info, beta=2.0, delta=0.05)
    net = Net(study.module(c), study.init(c))
    found = study.probes(net, c, final=False)
    for name in ("wq_mu_norm", "wk_mu_norm", "wq_nu_norm", "wk_nu_norm"):
        assert found[name].item() == pytest.approx(0.05 * 2.0)  # δβ at init
    assert found["attn_same"].item() == pytest.approx(found["attn_same_uniform"].item(), abs=0.03)  # ≈ α/2
    assert found["in_regime"].item() == 0.0
    assert found["lucky_dWO_label"].item() == 0.0 and found["lucky_W_fraction"].item() > 0


def test_both_mlp_splits_add_up_to_the_margin(info):
    study, c, _ = _one(info, delta=0.3, xi=1.0)
    params = study.init(c)
    params["W_V"] = params["W_V"] + 0.2 * torch.randn(params["W_V"].shape, generator=torch.Generator().manual_seed(1))
    net = Net(study.module(c), params)
    prompts = study.prompts(c, study.domain(c, "id"), "probe", 0, count=64, length=20, fraction=c.alpha)
    margin = (prompts.z * net(prompts.tokens)).mean().item()
    split = probes.mlp_splits(params, prompts, c.d_x, False)
    assert (split["mlp_in_feature"] + split["mlp_in_label"]).item() == pytest.approx(margin, rel=1e-4, abs=1e-7)
    out = split["mlp_out_feature"] + split["mlp_out_label"] + split["mlp_out_rest"]
    assert out.item() == pytest.approx(margin, rel=1e-4, abs=1e-7)
    assert split["mlp_in_label"].item() != pytest.approx(split["mlp_out_label"].item())  # W_V mixes blocks


def test_attention_mass_selects_same_pattern_demonstrations_when_q_and_k_grow(info):
    values = {"tau": 0.0, "lambda_mode": "fixed", "lambda_star": 1.0, "kappa_mode": "one_minus_lambda"}
    study, c, _ = _one(info, **values)  # x = μ_j exactly: scores s²β² on 𝒩_*, 0 elsewhere
    domain = study.domain(c, "id")
    prompts = study.prompts(c, domain, "probe", 0, count=256, length=20, fraction=c.alpha)
    params = study.init(c)
    uniform = probes.attention_mass({**params, "W_Q": 0 * params["W_Q"]}, prompts, False)
    has = prompts.draw.same_as_query.any(-1)
    share = prompts.draw.same_as_query.float().mean(-1)
    assert uniform["attn_same"].item() == pytest.approx(share[has].mean().item(), rel=1e-5)
    assert uniform["attn_no_match"].item() == pytest.approx(1 - has.float().mean().item())
    sharp = probes.attention_mass({**params, "W_Q": 3000 * params["W_Q"]}, prompts, False)
    assert sharp["attn_same"].item() > 0.999 and sharp["in_regime"].item() == 1.0
    assert sharp["attn_partner"].item() < 1e-3 and sharp["attn_same_p05"].item() > 0.99


def test_task_sets_and_the_coverage_ablation(info):
    study, c, point = _one(info, n_train_tasks=2, M1=5, d_x=21)
    full, trained, left_out = (study.tasks(c, name) for name in ("all", "train", "left_out"))
    assert full.count.item() == 5 and trained.count.item() == 2 and left_out.count.item() == 3
    assert bool(condition_3_2(full, 5).holds) and not bool(condition_3_2(trained, 5).holds)  # Lemma 1
    assert torch.equal(trained.membership(5) | left_out.membership(5), full.membership(5))
    every = _one(info, task_set="all")[0].tasks(_one(info, task_set="all")[1], "all")
    assert every.count.item() == 12
    net = Net(study.module(c), study.init(c))
    none_left = _one(info)
    metrics = none_left[0].evaluate(Net(none_left[0].module(none_left[1]), none_left[0].init(none_left[1])),
                                    none_left[1], {**none_left[2], "domain": "id_left_out"}, True)  # fmt: skip
    assert math.isnan(metrics["test_error"].item())  # nothing left out
    assert not math.isnan(study.evaluate(net, c, {**point, "domain": "id_left_out"}, True)["test_error"].item())


@pytest.mark.parametrize(
    "relevant, label, l_ts, alpha_test, holds",
    [("cone", "same", 20, 0.6, 1.0), ("cone", "same", 3, 0.6, 0.0), ("cone", "same", 4, 0.5, 1.0),
     ("negative", "same", 20, 0.6, 0.0), ("fresh", "same", 20, 0.6, 0.0), ("cone", "swapped", 20, 0.6, 0.0)],
)  # fmt: skip
def test_ood_conditions_follow_theorem_2(info, relevant, label, l_ts, alpha_test, holds):
    values = {"domain": "ood", "d_x": 32, "ood_relevant": relevant, "ood_label": label, "l_ts": l_ts}
    study, c, point = _one(info, **values, alpha_test=alpha_test)
    metrics = study.evaluate(Net(study.module(c), study.init(c)), c, point, True)
    assert metrics["ood_conditions"].item() == holds  # l_ts ≥ 2/α′ (Eq. 64), μ′ in the cone, ±q (Thm 2)


def test_ood_domains_build_the_remark_1_variants(info):
    study, c, point = _one(info, domain="ood", d_x=32, ood_M1=3, ood_M2=8)
    relevant, irrelevant = (study.domain(c, "id").relevant, study.domain(c, "id").irrelevant)
    cone = study.domain(c, "ood", point)
    assert torch.all(cone.relevant @ relevant.T >= 0) and torch.all(cone.irrelevant @ relevant.T == 0)
    assert torch.all(cone.irrelevant @ irrelevant.T == 0)  # new ν′ on spare axes
    fresh = study.domain(c, "ood", {**point, "ood_relevant": "fresh", "ood_M2": 8, "d_x": 32})
    assert torch.all(fresh.relevant @ relevant.T == 0) and torch.all(fresh.relevant @ fresh.irrelevant.T == 0)
    in_nu = study.domain(c, "ood", {**point, "ood_relevant": "irrelevant"})
    assert torch.equal(in_nu.relevant, irrelevant[:3])
    orthogonal = study.domain(c, "ood", {**point, "ood_label": "orthogonal"})
    assert orthogonal.q @ cone.q == 0 and orthogonal.q.norm() == cone.q.norm() == c.beta
    assert torch.equal(study.domain(c, "ood", {**point, "ood_label": "swapped"}).q, -cone.q)
    train_nu = study.domain(c, "ood", {**point, "ood_irrelevant": "train"})
    assert torch.equal(train_nu.irrelevant, irrelevant)


def test_noise_reaches_the_study_prompts(info):
    study, c, _ = _one(info, tau=0.0)
    quiet = study.prompts(c, study.domain(c, "id"), "probe", 0, count=8, length=5, fraction=c.alpha)
    study, c, _ = _one(info, tau=0.3)
    noisy = study.prompts(c, study.domain(c, "id"), "probe", 0, count=8, length=5, fraction=c.alpha)
    change = (noisy.tokens - quiet.tokens)[..., :20].norm(dim=-1)
    assert 0 < change.max() <= 0.3 + 1e-6 and torch.equal(noisy.z, quiet.z)  # the same draw plus ‖n‖ ≤ τ


def test_the_defaults_train_into_the_selection_regime(info):
    """As in a numpy pilot of ours: zero error, A_* → 1, ‖W_Q μ‖ several times ‖W_Q ν‖ — at the default seed 0
    (with β = 2, η = 2.5 every one of 60 seeds reached error ≤ 0.01 by step 500;
    800 of the 2000 default steps keep this fast)."""
    config, point = info.resolve({"steps": 800, "eval_prompts": 512, "probe_prompts": 128}, 0, "test")
    final = train_pack(info, [config], [point], 400).final_metrics(0, point)
    assert final["test_error"] <= 0.01 and final["attn_same"] >= 0.9 and final["in_regime"] == 1.0
    assert final["wq_mu_norm"] > 4 * final["wq_nu_norm"]
    assert final["mlp_in_label"] > final["mlp_in_feature"]  # Prop. 2 on the input side


@pytest.mark.parametrize(
    "setting, message",
    [
        ("tau=-0.1", "tau must be a number in [0, inf), got -0.1"),
        ("lambda_star=0", "lambda_star must be a number in (0, 1], got 0"),
        ("lambda_star=1.5", "lambda_star must be a number in (0, 1], got 1.5"),
        ("domain=ood", "need 8 spare axes past M1 + M2 = 20, d_x = 20 has 0"),
        ("ood_M1=5", None),  # an OOD param alone is fine: the default domain is in-domain
    ],
)
def test_bad_values_end_with_one_line_and_exit_2_before_training(setting, message, monkeypatch, capsys):
    import iclscale.trainer.training
    from iclscale.cli import main

    def refuse(*args, **kwargs):
        raise AssertionError("trained")

    monkeypatch.setattr(iclscale.trainer.training, "train_pack", refuse)
    settings = ["--set", setting] if message else ["--set", setting, "--set", "domain=ood", "--set", "d_x=40"]
    code = main(["train", "feature_selector", *settings])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1
    assert (message or "builds M1′ = ood_M1 = 5 patterns from the 4 of M1") in lines[0]


def test_the_two_readings_of_theorem_2s_test_patterns(info):
    """§3.5: μ′, ν′ "form another orthonormal basis"; `cone` overlaps (μ′_1·μ′_2 = β²/2 at w = 1), `cone_orthonormal`
    is orthonormal; both lie in the non-negative cone of the μ (Thm 2) and satisfy its conditions."""
    study, c, point = _one(info, domain="ood", d_x=32, ood_M1=3, ood_M2=8)
    relevant = study.domain(c, "id").relevant
    cone = study.domain(c, "ood", point).relevant
    orthonormal = study.domain(c, "ood", {**point, "ood_relevant": "cone_orthonormal"}).relevant
    assert math.isclose(float(c.beta) ** 2 * float(cone[0] @ cone[1]), float(c.beta) ** 2 / 2, rel_tol=1e-6)
    assert torch.allclose(orthonormal @ orthonormal.T, torch.eye(3), atol=1e-6)
    assert torch.all(orthonormal @ relevant.T >= 0) and torch.all(cone @ relevant.T >= 0)
    for relevant_reading in ("cone", "cone_orthonormal"):
        values = {"domain": "ood", "d_x": 32, "ood_relevant": relevant_reading, "l_ts": 4, "alpha_test": 0.5}
        study, c, point = _one(info, **values)
        assert study.evaluate(Net(study.module(c), study.init(c)), c, point, True)["ood_conditions"].item() == 1.0


def test_a_third_of_theorem_2s_prompts_have_no_same_pattern_demonstration(info):
    """Why "zero error at l_ts ≥ 2/α′" (Thm 2) cannot hold in the paper's own model: at α′ = 0.5, l_ts = 4 = 2/α′ a
    demonstration shares the query's test-relevant pattern with probability α′/2, so (1 − α′/2)^4 = 0.316 of the
    prompts have none, whose query the demonstrations cannot decide. Counted on the study's own OOD prompts."""
    alpha, length, count = 0.5, 4, 20000
    study, c, point = _one(info, domain="ood", d_x=32, ood_relevant="cone_orthonormal", l_ts=length, alpha_test=alpha)
    domain = study.domain(c, "ood", point)
    prompts = study.prompts(c, domain, "test/ood", 0, count=count, length=length, fraction=torch.tensor(alpha))
    no_match = (~prompts.draw.same_as_query.any(-1)).double().mean().item()
    expected = (1 - alpha / 2) ** length
    assert abs(no_match - expected) < 4 * math.sqrt(expected * (1 - expected) / count)
    assert no_match > 0.3  # "a third": far above any error a trained model could reach on the rest

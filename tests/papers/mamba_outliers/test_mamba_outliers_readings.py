"""Seed 002's readings as params (the 3-layer LT's attention, the training tasks) and the laws of issue 23 (Table 1,
Lemmas 3–5, the test-outlier and prompt-length windows, Remark 4) on planted results: each law finds what was
planted and calls a planted violation inconsistent. Adding a reading must not change a stored config's run_id."""

import hashlib
import json

import pandas as pd
import pytest
import torch

from iclscale.analysis.laws import get_law
from iclscale.analysis.reader import Results, add_derived
from iclscale.analysis.verdict import CONSISTENT, INCONSISTENT, OUTSIDE
from iclscale.papers.mamba_outliers.model import Stack
from iclscale.sweeps.spec import load_sweep
from iclscale.trainer.registry import study_info
from iclscale.trainer.study import Pack

STUDY = "mamba_outliers"
EVAL_PARAMS = ("alpha", "label_mode", "kappa_a_test", "l_ts", "placement", "outlier_set", "outlier_sum")
TRAIN_PARAMS = (
    "model",
    "layers",
    "lr",
    "p_a",
    "l_tr",
    "M1",
    "V",
    "beta",
    "kappa_a",
    "train_tasks",
    "lt_attention",
    "delta",
    "steps",
    "batch_size",
)
BASE = {"layers": 1, "lr": 0.1, "p_a": 0.6, "l_tr": 20, "M1": 6, "V": 3, "beta": 3.0, "kappa_a": 2.0}
# what a planted run carries where a test leaves it out: a batch inside [LM25] Thms 1/3's (i), B ≥ B_M (constants 1),
# as a real store carries every param (the theorem laws' regimes read it)
INSIDE_THEOREM = {"batch_size": 200000}


@pytest.fixture(scope="module")
def info():
    return study_info(STUDY)


def results_of(rows: list[dict], curves: list[dict] = ()) -> Results:
    frame = pd.DataFrame(rows)
    runs = add_derived(frame.assign(**{k: v for k, v in INSIDE_THEOREM.items() if k not in frame}))
    params = {c: {"role": "eval" if c in EVAL_PARAMS else "train"} for c in (*TRAIN_PARAMS, *EVAL_PARAMS) if c in runs}
    columns = ["run_id", "sweep", "step", "metric", "value", "eval_key"]
    table = pd.DataFrame(list(curves)) if curves else pd.DataFrame([], columns=columns)
    return Results("synthetic", {"name": "synthetic", "study": STUDY, "laws": [], "params": params}, runs, table)


def verdicts(name: str, results: Results) -> list[str]:
    return [fit.verdict.verdict for fit in get_law(f"{STUDY}.{name}").evaluate(results)]


def row(run_id: str, seed: int, point: dict, **values) -> dict:
    identity = {"run_id": run_id, "sweep": "s", "study": STUDY, "seed": seed, "status": "ok"}
    return identity | {"eval_key": str(sorted(point.items()))} | BASE | point | values


# The readings as params ---------------------------------------------------------------------------------------------
def test_a_reading_at_its_default_leaves_the_run_id_of_configs_stored_before_it(info):
    config, _ = info.resolve({"layers": 3, "model": "lt"}, 0, "t")
    before = {k: v for k, v in config.as_dict().items() if k not in ("lt_attention", "train_tasks")}
    canonical = json.dumps({"study": STUDY, "params": before, "seed": 0}, sort_keys=True, separators=(",", ":"))
    assert config.run_id == hashlib.sha256(canonical.encode()).hexdigest()[:16]
    full, _ = info.resolve({"layers": 3, "model": "lt", "lt_attention": "full_mean"}, 0, "t")
    every_task, _ = info.resolve({"layers": 3, "model": "lt", "train_tasks": "all"}, 0, "t")
    assert len({config.run_id, full.run_id, every_task.run_id}) == 3
    # a sweep's configs (copied per seed) keep it too
    sweep = load_sweep("mamba_outliers_table1_placement")
    ids = {c.run_id for c in sweep.configs() if c["model"] == "lt" and c["lt_attention"] == "causal_mean"}
    assert info.resolve({"layers": 3, "model": "lt", "p_a": 0.4}, 0, "t")[0].run_id in ids


def test_full_attention_makes_the_lt_stack_order_invariant_and_the_causal_mean_does_not():
    g = torch.Generator().manual_seed(0)
    layers, d0, l = 3, 6, 9
    P = torch.randn(16, l + 1, d0, generator=g, dtype=torch.float64)
    P[..., -1, -1] = 0
    permuted = torch.cat([P[:, torch.randperm(l, generator=g)], P[:, -1:]], dim=1)  # shuffle the demonstrations
    params = {
        "W_B": torch.randn(layers, d0, d0, generator=g, dtype=torch.float64) * 0.5,
        "W_C": torch.randn(layers, d0, d0, generator=g, dtype=torch.float64) * 0.5,
    }
    out = {}
    for full in (False, True):
        model = Stack(layers, d0, d0, gated=False, residual=True, full=full)
        out[full] = [torch.func.functional_call(model, params, (x,)) for x in (P, permuted)]
    assert torch.allclose(out[True][0], out[True][1], atol=1e-10)
    assert not torch.allclose(out[False][0], out[False][1], atol=1e-3)


def test_the_training_batch_draws_the_task_set_of_the_reading(info):
    study = info.load()
    offsets = {}
    for reading in ("cyclic", "all"):
        config, _ = info.resolve({"train_tasks": reading, "batch_size": 600}, 0, "t")
        P = Pack.build(info, [config]).map(lambda c: study.batch(c, 0)[0])[0]
        pattern = P[..., :6].abs().argmax(-1)  # μ_j sits on axis j (β ≫ the irrelevant and outlier parts there)
        pairs = {tuple(sorted(set(p.tolist()))) for p in pattern}  # the two patterns a, b of each prompt's task
        offsets[reading] = {(pair[1] - pair[0]) % 6 for pair in pairs if len(pair) == 2}
    assert offsets["cyclic"] == {1, 5}  # (j, j + 1) and the wrap-around (1, M1)
    assert offsets["all"] == {1, 2, 3, 4, 5}


# Table 1 ------------------------------------------------------------------------------------------------------------
def table1_rows(model: str, accuracy: dict, attention: str = "causal_mean", mode: str = "flip") -> list[dict]:
    rows = []
    for seed in range(3):
        for placement, acc in accuracy.items():
            point = {"alpha": 0.5, "placement": placement, "label_mode": mode, "kappa_a_test": 2.0, "l_ts": 20}
            error = 1 - acc / 100 + 0.002 * seed
            rows.append(row(f"{model}-{attention}-{seed}", seed, point, model=model, layers=3, p_a=0.4,
                            lt_attention=attention, test_error=error))  # fmt: skip
    return rows


def test_table1_judges_mamba_order_lt_flatness_and_levels_per_reading():
    paper = {"farthest": 99.84, "random": 99.04, "closest": 73.28}
    flat = {"farthest": 79.1, "random": 79.2, "closest": 78.4}
    causal = {"farthest": 13.1, "random": 64.4, "closest": 85.2}
    results = results_of(
        table1_rows("mamba", paper) + table1_rows("lt", flat, "full_mean") + table1_rows("lt", causal, "causal_mean")
    )
    assert verdicts("table1_mamba_fq_above_r", results) == [CONSISTENT]
    assert verdicts("table1_mamba_r_above_cq", results) == [CONSISTENT]
    fits = get_law(f"{STUDY}.table1_lt_flat_across_placements").evaluate(results)
    assert {fit.group["lt_attention"]: fit.verdict.verdict for fit in fits} == {
        "causal_mean": INCONSISTENT,
        "full_mean": CONSISTENT,
    }
    assert verdicts("table1_mamba_levels", results) == [CONSISTENT] * 3
    levels = {
        (f.group["lt_attention"], f.group["placement"]): f.verdict.verdict
        for f in get_law(f"{STUDY}.table1_lt_levels").evaluate(results)
    }
    assert levels[("full_mean", "farthest")] == CONSISTENT and levels[("full_mean", "closest")] == CONSISTENT
    assert levels[("causal_mean", "farthest")] == INCONSISTENT
    reversed_order = results_of(table1_rows("mamba", {"farthest": 80.0, "random": 90.0, "closest": 95.0}))
    assert verdicts("table1_mamba_fq_above_r", reversed_order) == [INCONSISTENT]
    assert verdicts("table1_mamba_r_above_cq", reversed_order) == [INCONSISTENT]


# Lemmas 3–5 -----------------------------------------------------------------------------------------------------------
def test_the_gap2_law_holds_eq_25_to_a_share_of_the_diagonal_on_cyclic_tasks_only():
    def rows(gap2, tasks="cyclic"):
        return [
            row(f"m{tasks}{seed}", seed, {"alpha": 0.0}, model="mamba", train_tasks=tasks, W_B_offset0=0.7,
                W_B_offset2=gap2 * (1 + 0.01 * seed), W_C_offset0=0.7, W_C_offset2=gap2)
            for seed in range(3)
        ]  # fmt: skip

    assert verdicts("lemma3_gap2_W_B_does_not_move", results_of(rows(0.001))) == [CONSISTENT]
    assert verdicts("lemma3_gap2_W_B_does_not_move", results_of(rows(0.084))) == [INCONSISTENT]
    assert verdicts("lemma3_gap2_W_B_does_not_move", results_of(rows(0.084, "all"))) == []  # Eq. 25 says nothing
    # results stored before the reading existed ran on the cyclic tasks
    old = results_of([{k: v for k, v in r.items() if k != "train_tasks"} for r in rows(0.084)])
    assert verdicts("lemma3_gap2_W_C_does_not_move", old) == [INCONSISTENT]


def test_the_lemma_and_window_laws_set_aside_runs_outside_their_printed_conditions():
    # Lemma 3 asks B ≥ max{(1 − p_a)⁻¹M1, (1 − p_a)⁻²}·ln ε⁻¹ = 34.5 at p_a = 0.6, M1 = 6, ε = 0.1: B = 32 is outside
    def gap2(batch):
        point = {"alpha": 0.0}
        return results_of([row(f"m{seed}", seed, point, model="mamba", batch_size=batch, W_B_offset0=0.7,
                               W_B_offset2=0.084, steps=1000) for seed in range(3)])  # fmt: skip

    assert verdicts("lemma3_gap2_W_B_does_not_move", gap2(32)) == [OUTSIDE]
    assert verdicts("lemma3_gap2_W_B_does_not_move", gap2(128)) == [INCONSISTENT]
    # Thm 2 tests the model trained under Thm 1: B ≥ B_M = 231 at ε = 0.1, the error level the law reads
    inside = kappa_rows("mamba", lambda kappa: 0.001)
    assert verdicts("mamba_kappa_test_window", results_of(inside)) == [CONSISTENT]
    assert verdicts("mamba_kappa_test_window", results_of([r | {"batch_size": 64} for r in inside])) == [OUTSIDE]


def test_the_lemma_trends_read_the_direction_of_a_probe_along_training():
    steps = [0, 1, 2, 4, 8, 16, 32, 64]
    rows, curves = [], []
    for seed in range(3):
        run = f"m{seed}"
        rows.append(row(run, seed, {"alpha": 0.3}, model="mamba"))
        for step in steps:
            for metric, value in (("W_B_offset0", 0.2 + 0.01 * step), ("w_outlier", 0.1 + 0.01 * step)):
                curves.append({"run_id": run, "sweep": "s", "step": step, "metric": metric,
                               "value": value + 0.001 * seed, "eval_key": ""})  # fmt: skip
    results = results_of(rows, curves)
    assert verdicts("lemma3_W_B_diagonal_grows", results) == [CONSISTENT]
    assert verdicts("lemma4_gate_weight_on_outliers_falls", results) == [INCONSISTENT]  # it rose


# The windows ------------------------------------------------------------------------------------------------------
def kappa_rows(model: str, error_of, outlier_set="unseen", L=0.3) -> list[dict]:
    rows = []
    for seed in range(3):
        for kappa in (0.5, 1.0, 2.0, 16.0, 256.0, 4096.0):
            point = {"alpha": 0.3, "kappa_a_test": kappa, "outlier_set": outlier_set, "outlier_sum": L,
                     "l_ts": 20, "placement": "bernoulli", "label_mode": "flip"}  # fmt: skip
            value = error_of(kappa)
            rows.append(row(f"{model}{seed}", seed, point, model=model, test_error=value, error_trained=value))
    return rows


def test_the_kappa_windows_judge_only_inside_and_the_lt_window_is_l_tr_times_wider():
    # fails below κ_a and above 10²: outside Mamba's window [2, 100] (ε = 0.1), so consistent; the LT's reaches 2·10³
    def error(kappa):
        return 0.3 if kappa < 2 or kappa > 100 else 0.001

    mamba = results_of(kappa_rows("mamba", error))
    assert verdicts("mamba_kappa_test_window", mamba) == [CONSISTENT]
    fits = get_law(f"{STUDY}.mamba_kappa_test_window").evaluate(mamba)
    assert fits[0].n_excluded > 0  # the points outside are set aside, counted
    assert verdicts("lt_kappa_test_window", results_of(kappa_rows("lt", error))) == [INCONSISTENT]
    assert verdicts("mamba_arbitrary_outliers_sum_L", mamba) == []  # only the sum_L outliers
    sum_L = results_of(kappa_rows("mamba", lambda k: 0.2, "sum_L", 1.0))
    assert verdicts("mamba_arbitrary_outliers_sum_L", sum_L) == [INCONSISTENT]


def test_the_l_tr_window_sets_aside_prompts_too_short_for_theorem_1():
    rows = []
    for seed in range(3):
        for l_tr in (2, 3, 5, 10, 20, 40, 80):
            loss = 0.2 if l_tr < 5 else 0.001
            point = {"alpha": 0.0, "placement": "bernoulli"}
            rows.append(row(f"m{l_tr}-{seed}", seed, point, model="mamba", l_tr=l_tr, train_loss=loss))
    assert verdicts("mamba_l_tr_window", results_of(rows)) == [CONSISTENT]  # 2, 3 < 2.5·log 6 = 4.5; 80 > 60
    short = results_of([r for r in rows if r["l_tr"] < 5])
    assert verdicts("mamba_l_tr_window", short) == [OUTSIDE]


# Remark 4 ---------------------------------------------------------------------------------------------------------
SWEEP_P_A = (0.0, 0.2, 0.4, 0.6, 0.8)  # the levels of the sweep mamba_outliers_law_batch_lt_vs_mamba
# where B_M > B_T at ε = 0.01 with constants 1 (Mamba's own term dominates: the law's regime): κ_a = 0.04, β = 3
DOMINANT_P_A, DOMINANT = (0.92, 0.95, 0.97, 0.98), {"kappa_a": 0.04, "l_tr": 400}


def batch_rows(required, levels=DOMINANT_P_A, **fixed) -> list[dict]:
    """Both models on a batch grid around a planted smallest batch B*(model, p_a): hinge 0 from B* on, 0.5 below;
    each model at its own η, δ and budget; 4 p_a levels (the verdict rule needs 4 x values)."""
    rows = []
    for model, lr, delta in (("mamba", 0.1, 0.2), ("lt", 0.002, 0.02)):
        for p_a in levels:
            for seed in range(4):
                needed = max(2, round(required(model, p_a) * (1 + 0.05 * seed)))
                for batch in sorted({1, needed - 1, needed, 2 * needed}):
                    rows.append(row(f"{model}-{p_a}-{seed}-{batch}", seed, {"alpha": 0.0}, model=model, lr=lr,
                                    delta=delta, p_a=p_a, steps=round(40 / (1 - p_a)), batch_size=batch,
                                    hinge_trained=0.0 if batch >= needed else 0.5, **fixed))  # fmt: skip
    return rows


@pytest.mark.parametrize("lt_scale, expected", [(0.25, CONSISTENT), (4.0, INCONSISTENT)])
def test_remark_4_compares_the_two_models_smallest_batches_at_each_p_a(lt_scale, expected):
    def required(model, p_a):
        return 40 / (1 - p_a) * (lt_scale if model == "lt" else 1.0)

    results = results_of(batch_rows(required, **DOMINANT))
    assert verdicts("lt_batch_not_above_mamba", results) == [expected]


def test_remark_4_says_nothing_of_batches_where_the_two_bounds_are_equal():
    # at the sweep's values (κ_a = 2, β = 3, M1 = 6) B_M = B_T = ε⁻²·ln ε⁻¹ at ε = 0.01: the remark compares two
    # equal sufficient bounds there, so an LT needing 4× Mamba's smallest batch (L21's 2.75) is no evidence
    results = results_of(batch_rows(lambda model, p_a: 40 / (1 - p_a) * (4.0 if model == "lt" else 1.0), SWEEP_P_A))
    fits = get_law(f"{STUDY}.lt_batch_not_above_mamba").evaluate(results)
    assert [f.verdict.verdict for f in fits] == [OUTSIDE] and fits[0].c_star < 1e-3

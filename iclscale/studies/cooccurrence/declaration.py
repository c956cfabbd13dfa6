"""Params of the seed-003 study (torch-free). Paper: Yang, Kailkhura, Wang, Liang 2024, cited below as [Y24].

`cooccurrence` trains the one-layer transformer of [Y24] Eq. 1 (softmax attention W_K, W_Q, W_V and a
linear MLP aᵀW) by full-batch gradient descent on a fixed set of n sequences (Definition 2.1, App. A) to
tell whether the two target tokens μ1 and μ2 both occur, and records the quantities of the two-phase
analysis (§3–4, App. E–F) at log-spaced steps: attention scores, the MLP values G(μ), the per-type losses,
the gradient sums S_k and the gradient-flow time derivatives of the claims about rates.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from iclscale.params import Param, recipe_params
from iclscale.registry import StudyInfo

PAPER = (
    "Yang, Kailkhura, Wang, Liang. Training Dynamics of Transformers to Recognize Word Co-occurrence via "
    "Gradient Flow Analysis. NeurIPS 2024 (arXiv 2410.09605)"
)

SPECIAL_TOKENS = 3  # μ1, μ2 (the targets) and μ3 (the common token); μ4..μd are the random tokens R
INIT_PRESETS = ("theory", "kaiming_normal", "torch_default")
READOUTS = ("pm1_fixed", "init_fixed", "trainable")
TOKEN_MODES = ("iid", "distinct")


def type_counts(n: int) -> tuple[int, int, int, int]:
    """|I1|, |I2|, |I3|, |I4| = n/2, n/6, n/6, n/6 ([Y24] Assumption 2.3(i))."""
    return n // 2, n // 6, n // 6, n // 6


def random_slots(n: int, L: int) -> int:
    """Random-token occurrences in a training set: L−3 per type-1 sequence, L−2 for types 2 and 3, L−1 for
    type 4 ([Y24] Def. 2.1)."""
    n1, n2, n3, n4 = type_counts(n)
    return n1 * (L - 3) + (n2 + n3) * (L - 2) + n4 * (L - 1)


def _check_type_counts(values: Mapping[str, Any]) -> str | None:
    n = values["n"]
    if n % 6:
        return (
            f"n = {n} cannot hold the exact type counts n/2, n/6, n/6, n/6 of Assumption 2.3(i); "
            f"n must be a multiple of 6 (the paper: 60 = 30 + 10 + 10 + 10)"
        )
    if values["n_test"] % 6:
        return f"n_test = {values['n_test']} must be a multiple of 6 (exact type proportions 1/2, 1/6, 1/6, 1/6)"
    return None


def _check_vocabulary(values: Mapping[str, Any]) -> str | None:
    if values["tokens"] != "distinct":
        return None
    needed = SPECIAL_TOKENS + random_slots(values["n"], values["L"])
    if values["d"] < needed:
        return (
            f"tokens: distinct needs d ≥ 3 + n1(L−3) + (n2+n3)(L−2) + n4(L−1) = {needed} for n = {values['n']}, "
            f"L = {values['L']} (Assumption 2.3(ii): every random token once), got d = {values['d']}"
        )
    return None


def _dtype_param(recipe: tuple[Param, ...]) -> tuple[Param, ...]:
    """The recipe of App. A, whose float type the paper does not give."""
    meaning = (
        "float type end to end; float64 not from the paper (spec §4: attention-score changes of 1e-5–1e-6 "
        "in the theory regime are below float32's resolution of the scores)"
    )
    return tuple(dataclasses.replace(p, meaning=meaning) if p.name == "dtype" else p for p in recipe)


COOCCURRENCE = StudyInfo(
    name="cooccurrence",
    title="A one-layer transformer learns word co-occurrence by gradient flow in two phases",
    paper=PAPER,
    implementation="iclscale.studies.cooccurrence.study:Cooccurrence",
    checks=(_check_type_counts, _check_vocabulary),
    params=(
        Param(
            "d",
            int,
            64,
            "shape",
            "vocabulary size = token dimension d; tokens are the one-hot μ_i = e_i (App. A: 64)",
            low=4,
            high=65536,
            symbol="d",
        ),
        Param(
            "L",
            int,
            5,
            "shape",
            "tokens per sequence L (App. A: 5); L ≥ 3, since a type-1 sequence holds μ1, μ2 and μ3 (Def. 2.1)",
            low=3,
            high=1024,
            symbol="L",
        ),
        Param(
            "n",
            int,
            60,
            "shape",
            "training sequences n, a multiple of 6 for the exact type counts n/2, n/6, n/6, n/6 (App. A: 60 = "
            "30 + 10 + 10 + 10)",
            low=6,
            high=10**6,
            symbol="n",
        ),
        Param("m", int, 128, "shape", "width m of W_Q, W_K, W_V; scores scale 1/√m (App. A: 128)", low=1, high=65536),
        Param("m1", int, 256, "shape", "MLP neurons m1 (App. A: 256)", low=1, high=65536, symbol="m₁"),
        Param(
            "tokens",
            str,
            "iid",
            "shape",
            "random tokens: iid = uniform over R with repeats (Def. 2.1; App. A's d = 64 < nL forces it), "
            "distinct = every random token of the training set a different word (Assumption 2.3(ii))",
            choices=TOKEN_MODES,
        ),
        Param(
            "init",
            str,
            "torch_default",
            "shape",
            "initialisation preset: theory = N(0, s0²) for W_Q, W_K, W_V and N(0, s1²) for W with s0 = c0/√(Lm), "
            "s1 = c1/√m1 (§2.2, Condition 1); kaiming_normal = N(0, 2/fan_in); torch_default = nn.Linear's "
            "U(±1/√fan_in). App. A says only 'Kaiming'. The default torch_default is a 'Kaiming' reading whose "
            "runs show Fig. 1's phases on its epoch axis (T1 ≈ 1400–2000 of 30000 epochs, the type-2/3 losses "
            "peaking at ≈ 550 epochs; spec §9.2); theory meets all four of spec §6.3's criteria but ends Phase 1 "
            "after ≈ 80 epochs; kaiming_normal with a = ±1 after ≈ 15 (README). Not from the paper",
            choices=INIT_PRESETS,
        ),
        Param(
            "readout",
            str,
            "init_fixed",
            "shape",
            "MLP output weights a: pm1_fixed = a_j ~ U{±1}, fixed (the theory, §2.2); init_fixed = drawn by the "
            "init preset (±1 for theory), fixed; trainable = that draw, trained. The default init_fixed is "
            "not from the paper (App. A does not say)",
            choices=READOUTS,
        ),
        *_dtype_param(
            recipe_params(
                steps=30_000,
                lr=0.01,
                optimizer="gd",
                optimizers=("gd",),
                dtype="float64",
                source="App. A: full-batch gradient descent, learning rate 0.01, 30000 epochs",
            )
        ),
        Param(
            "c0",
            float,
            0.1,
            "train",
            "init theory: s0 = c0/√(Lm) (Condition 1 has s0 = 1/Θ̃(√(Lm)); c0 = 0.1, keeping |F(0)| ≈ c0·c1 "
            "≤ 0.01 as Lemma D.8 needs, is not from the paper)",
            low=0,
            low_open=True,
            symbol="c₀",
        ),
        Param(
            "c1",
            float,
            0.1,
            "train",
            "init theory: s1 = c1/√m1 (Condition 1 has s1 = 1/Θ̃(√m1); c1 = 0.1 not from the paper)",
            low=0,
            low_open=True,
            symbol="c₁",
        ),
        Param(
            "n_test",
            int,
            3000,
            "eval",
            "fresh test sequences from D (Def. 2.1, random tokens iid), exact type proportions; the paper "
            "reports no test set (3000 from spec §2.3, not from the paper)",
            low=6,
            high=10**6,
        ),
    ),
)

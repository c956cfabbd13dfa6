"""The two phases of [Y24] read off one run's curves, in gradient-flow time t = η·step (`gf_time`).

- T1, the end of Phase 1: the first recorded t with min_i y_iF_i > 0, every training sample correct (our
  reading; [Y24] Thm 3.1 and Def. E.2 end Phase 1 when all samples are correct).
- T_peak: the t at which a one-target-token loss (types 2 and 3) is largest ([Y24] Lemmas 4.2–4.3: it rises
  first, then falls; our reading of Lemma 4.3's T_0.5).
- T_attn: the first t at which max_ij |ΔA_ij| (μ1, μ2, μ3) reaches 5% of its largest value over the run (ours,
  not from the paper, nor is the 5%); the phases are separate when T_attn > T1.
- Figure 1's four criteria (ours, read off Fig. 1 and Thms 3.1–3.2), per run:
  (1) stillness: max over [0, T1] of max_ij |ΔA_ij| (μ1, μ2, μ3) is below 10% of its maximum over the run;
  (2) the type-2 and type-3 losses peak strictly inside (0, T1);
  (3) in Phase 2, ΔA12 and ΔA21 rise and ΔA31 and ΔA32 fall between consecutive records ([Y24] Thm 3.2(i));
  (4) in Phase 2 every per-type loss falls between consecutive records ([Y24] Thm 3.2, Fig. 1b).
  (3) and (4) are reported as the fraction of consecutive Phase-2 record pairs that move the right way; a
  criterion holds when that fraction is 1 (the paper's "increase"/"decrease" read as monotone). The 10% of (1)
  is not from the paper.

Pure pandas on a wide table (one row per record, one column per metric), so that tests can build the curves
by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SCORES = [f"A{i}{j}" for i in (1, 2, 3) for j in (1, 2, 3)]  # key i, query j: μ_iᵀ W_Kᵀ W_Q μ_j
RISING_SCORES = ("A12", "A21")  # [Y24] Thm 3.2(i): the target pair
FALLING_SCORES = ("A31", "A32")  # key μ3, query a target ([Y24] Thm 3.2(i): μ3ᵀW_KᵀW_Qμ1, μ3ᵀW_KᵀW_Qμ2)
TYPE_LOSSES = ("loss_type1", "loss_type2", "loss_type3", "loss_type4")
STILLNESS = 0.10  # criterion (1); not from the paper
ATTENTION_ONSET = 0.05  # the ε of T_attn(ε); not from the paper


def wide(curves: pd.DataFrame, run_id: str) -> pd.DataFrame:
    """One run's probe curves as one row per recorded step, sorted by step (eval metrics left out)."""
    own = curves[(curves["run_id"] == run_id) & curves["eval_key"].isna()]
    return own.pivot_table(index="step", columns="metric", values="value").sort_index()


def phase_boundary(run: pd.DataFrame) -> float:
    """T1: the first recorded gf_time with min_margin > 0; NaN if never (our reading of Thm 3.1's T1)."""
    correct = run["min_margin"] > 0
    return float(run.loc[correct, "gf_time"].iloc[0]) if correct.any() else float("nan")


def peak_time(run: pd.DataFrame, metric: str) -> float:
    """The gf_time at which a curve is largest (the first such record)."""
    return float(run["gf_time"].iloc[int(np.argmax(run[metric].to_numpy()))])


def score_change(run: pd.DataFrame) -> pd.DataFrame:
    """ΔA_ij(t) = A_ij(t) − A_ij(0) on μ1, μ2, μ3."""
    return run[SCORES] - run[SCORES].iloc[0]


def fraction_moving(values: pd.Series, rising: bool) -> float:
    """The fraction of consecutive records at which a curve moves the given way (NaN with < 2 records)."""
    steps = np.diff(values.to_numpy())
    if len(steps) == 0:
        return float("nan")
    return float(np.mean(steps > 0 if rising else steps < 0))


def figure1_criteria(run: pd.DataFrame) -> dict[str, float]:
    """Figure 1's criteria (module docstring) and the numbers behind them, for one run."""
    t = run["gf_time"]
    T1 = phase_boundary(run)
    out: dict[str, float] = {"T1": T1}
    for k in (2, 3):
        out[f"T_peak_type{k}"] = peak_time(run, f"loss_type{k}")
    change = score_change(run).abs().max(axis=1)
    out["T_attn"] = float(t[change >= ATTENTION_ONSET * change.max()].iloc[0]) if change.max() > 0 else np.nan
    if not np.isfinite(T1):
        return {**out, "phase1_score_share": float("nan")}
    out["attention_separation"] = out["T_attn"] / T1  # > 1: attention starts moving after Phase 1 (Thms 3.1–3.2)
    out["phase1_score_share"] = float(change[t <= T1].max() / change.max())
    out["still_in_phase1"] = float(out["phase1_score_share"] < STILLNESS)
    out["peaks_inside_phase1"] = float(all(0 < out[f"T_peak_type{k}"] < T1 for k in (2, 3)))
    phase2 = run[t >= T1]
    delta = score_change(run)[t >= T1]
    for name in RISING_SCORES:
        out[f"rising_{name}"] = fraction_moving(delta[name], rising=True)
    for name in FALLING_SCORES:
        out[f"falling_{name}"] = fraction_moving(delta[name], rising=False)
    for name in TYPE_LOSSES:
        out[f"falling_{name}"] = fraction_moving(phase2[name], rising=False)
    moves = [out[f"rising_{n}"] for n in RISING_SCORES] + [out[f"falling_{n}"] for n in FALLING_SCORES]
    out["scores_move_as_claimed"] = float(all(f == 1.0 for f in moves))
    out["losses_fall_in_phase2"] = float(all(out[f"falling_{n}"] == 1.0 for n in TYPE_LOSSES))
    return out


def run_summary(run: pd.DataFrame) -> dict[str, float | bool]:
    """One run's phases in a few numbers (for `iclscale train`): the loss at the start and the end, T1 and the
    step it was first recorded at, the peaks of the one-target-token losses and whether both come before T1
    (Fig. 1b, Lemmas 4.2–4.3), T_attn, and the share of the score change done by T1 (Fig. 1a)."""
    found = figure1_criteria(run)
    T1 = found["T1"]
    loss = run["loss"].to_numpy()
    step_of_T1 = run.index[run["gf_time"] == T1][0] if np.isfinite(T1) else None
    peaks = [found[f"T_peak_type{k}"] for k in (2, 3)]
    return {
        "loss_start": float(loss[0]),
        "loss_end": float(loss[-1]),
        "loss_falls": bool(loss[-1] < loss[0]),
        "T1": T1,
        "T1_step": None if step_of_T1 is None else int(step_of_T1),
        "T_peak_type2": peaks[0],
        "T_peak_type3": peaks[1],
        "peak_loss_type2": float(run["loss_type2"].max()),
        "peak_loss_type3": float(run["loss_type3"].max()),
        "one_target_losses_peak_before_T1": bool(np.isfinite(T1) and all(0 < p < T1 for p in peaks)),
        "T_attn": found["T_attn"],
        "phase1_score_share": found["phase1_score_share"],
    }

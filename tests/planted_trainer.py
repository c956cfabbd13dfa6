"""A stub trainer for threshold-search tests, named as such: `train_pack` replaced by one that trains nothing
and reports planted final metrics (0 where the planted criterion holds, 1 where it fails), so that a search's
answer is known exactly:
- `test_error`: planted on the train/shape axis l_tr (`planted_threshold`);
- `ts_error`: planted on the eval axis l_ts (`planted_ts`), measured again at any eval point through the
  trainer's refine hook, as `iclscale.trainer.training.train_pack` does after training;
- `weight_norm`: a probe (the same at every eval point).
The planted metrics are declared as a study declares its metrics (`PLANTED_METRICS`): a sweep's metric is checked
against the declarations. Each training is logged (one line per config) to count them; each refined evaluation
too, to another log."""

from __future__ import annotations

import math
import os
import time

import numpy as np

from iclscale.trainer.registry import Metric, StudyInfo
from iclscale.trainer.training import PackResult

PLANTED_METRICS = (
    Metric("ts_error", "planted: 0 where l_ts reaches the planted threshold of the eval axis, else 1"),
    Metric("weight_norm", "planted probe: 1 at every eval point"),
)


def planted_threshold(alpha: float, seed: int) -> int:
    """The smallest l_tr at which the planted error is 0: ⌈2/α⌉ + seed − 2 (a 1/α law with a seed offset)."""
    return math.ceil(2 / alpha - 1e-9) + seed - 2


def planted_ts(alpha_test: float, seed: int) -> int:
    """The smallest l_ts at which the planted `ts_error` is 0: ⌈4/α'⌉ + seed (a 1/α' law with a seed offset)."""
    return math.ceil(4 / alpha_test - 1e-9) + seed


def planted_error(config, point) -> float:
    if os.environ.get("PLANTED_WINDOW"):  # non-monotone: the error falls at the threshold and rises again at 9
        return 0.0 if planted_threshold(config["alpha"], config.seed) <= config["l_tr"] <= 8 else 1.0
    return 0.0 if config["l_tr"] >= planted_threshold(config["alpha"], config.seed) else 1.0


def planted_ts_error(config, point) -> float:
    values = dict(point)
    threshold = planted_ts(values["alpha_test"], config.seed)
    if os.environ.get("PLANTED_WINDOW"):  # non-monotone: long test prompts fail again from l_ts = 31
        return 0.0 if threshold <= values["l_ts"] <= 30 else 1.0
    return 0.0 if values["l_ts"] >= threshold else 1.0


def _measured(configs, point) -> dict[str, list[np.ndarray]]:
    return {
        "test_error": [np.array([planted_error(c, point) for c in configs])],
        "ts_error": [np.array([planted_ts_error(c, point) for c in configs])],
    }


def stub_train_pack(info, configs, eval_points, record, device="cpu", progress=None, refine=None, **_):
    """What `iclscale.trainer.training.train_pack` returns, with planted metrics and no training."""
    if os.environ.get("PLANTED_DELAY"):
        time.sleep(float(os.environ["PLANTED_DELAY"]))
    log = os.environ.get("PLANTED_LOG")
    if log and int(configs[0]["steps"]) > 0:  # not the 0-step pack that tells the eval-point metrics apart
        with open(log, "a") as handle:
            handle.writelines(f"{c.run_id}\n" for c in configs)
    steps = int(configs[0]["steps"])
    evals = {p: _measured(configs, p) for p in eval_points}
    probes = {"weight_norm": [np.ones(len(configs))]}
    result = PackResult(
        list(configs), list(eval_points), [steps], probes, evals, dict.fromkeys(eval_points), ["ok"] * len(configs),
        [None] * len(configs), device="cpu",
    )  # fmt: skip

    def evaluate(points) -> None:  # as PackTrainer.evaluate_final: the trained pack at more eval points
        for point in points:
            if point not in result.evals:
                result.eval_points.append(point)
                result.evals[point], result.eval_errors[point] = _measured(configs, point), None
        if os.environ.get("PLANTED_EVAL_LOG"):
            with open(os.environ["PLANTED_EVAL_LOG"], "a") as handle:
                handle.write(f"{len(points)}\n")

    if refine is not None:
        refine(result, evaluate)
    return result


def install(monkeypatch=None) -> None:
    """Replace the trainer (with pytest's monkeypatch, or for good in a subprocess)."""
    import iclscale.trainer.training

    declared = StudyInfo.metric

    def metric(info: StudyInfo, name: str) -> Metric | None:  # the study's declarations and the planted ones
        return declared(info, name) or next((m for m in PLANTED_METRICS if m.matches(name)), None)

    if monkeypatch is not None:
        monkeypatch.setattr(iclscale.trainer.training, "train_pack", stub_train_pack)
        monkeypatch.setattr(StudyInfo, "metric", metric)
    else:
        iclscale.trainer.training.train_pack = stub_train_pack
        StudyInfo.metric = metric

"""A stub trainer for threshold-search tests, named as such: `train_pack` replaced by one that trains nothing
and reports a planted final `test_error` (0 where the planted criterion holds, 1 where it fails), so that a
search's answer is known exactly. Each training is logged (one line per config) to count them."""

from __future__ import annotations

import math
import os
import time

import numpy as np

from iclscale.training import PackResult


def planted_threshold(alpha: float, seed: int) -> int:
    """The smallest l_tr at which the planted error is 0: ⌈2/α⌉ + seed − 2 (a 1/α law with a seed offset)."""
    return math.ceil(2 / alpha - 1e-9) + seed - 2


def planted_error(config, point) -> float:
    if os.environ.get("PLANTED_WINDOW"):  # non-monotone: the error falls at the threshold and rises again at 9
        return 0.0 if planted_threshold(config["alpha"], config.seed) <= config["l_tr"] <= 8 else 1.0
    return 0.0 if config["l_tr"] >= planted_threshold(config["alpha"], config.seed) else 1.0


def stub_train_pack(info, configs, eval_points, record, device="cpu", progress=None, **_):
    """What `iclscale.training.train_pack` returns, with planted metrics and no training."""
    if os.environ.get("PLANTED_DELAY"):
        time.sleep(float(os.environ["PLANTED_DELAY"]))
    log = os.environ.get("PLANTED_LOG")
    if log and int(configs[0]["steps"]) > 0:  # not the 0-step pack that checks the metric's name
        with open(log, "a") as handle:
            handle.writelines(f"{c.run_id}\n" for c in configs)
    steps = int(configs[0]["steps"])
    evals = {p: {"test_error": [np.array([planted_error(c, p) for c in configs])]} for p in eval_points}
    return PackResult(
        list(configs), list(eval_points), [steps], {}, evals, dict.fromkeys(eval_points), ["ok"] * len(configs),
        [None] * len(configs), device="cpu",
    )  # fmt: skip


def install(monkeypatch=None) -> None:
    """Replace the trainer (with pytest's monkeypatch, or for good in a subprocess)."""
    import iclscale.training

    if monkeypatch is not None:
        monkeypatch.setattr(iclscale.training, "train_pack", stub_train_pack)
    else:
        iclscale.training.train_pack = stub_train_pack

"""iclscale's packed trainer as a peer, through its Python API.

The configs are what a sweep would plan: `study_info(name).resolve(values, seed, where)` per config, the
benchmark setting plus the varied train param. Recording is made as cheap as the study allows (one test
task or prompt, one probe prompt: training does not read them) and, in the timed runs, happens only at
the start and the end.
"""

from __future__ import annotations

import numpy as np

from iclscale.trainer.params import Config, EvalPoint, RecordSchedule
from iclscale.trainer.registry import StudyInfo, study_info
from iclscale.trainer.training import train_pack

from .harness import Run
from .settings import SETTINGS, VARIED_PARAM, per_config_values

CHEAP_RECORDS = {"softmax_window": {"test_tasks": 1}, "nonlinear_icl": {"eval_prompts": 1, "probe_prompts": 1}}


def train(
    info: StudyInfo,
    configs: list[Config],
    point: EvalPoint,
    record_every: int,
    device: str,
    compile="auto",
    **options,
):
    """The one call into iclscale's trainer: its API changes here only. `compile`: auto (compile when the
    eager steps left would take over 10 s: what `iclscale train` and sweeps do), on or off. `options`: more
    of `train_pack`'s keywords (graph_steps, memory_limit)."""
    schedule = RecordSchedule(every=record_every)
    return train_pack(info, configs, [point], schedule, device=device, compile=compile, **options)


def pack_configs(model: str, pack_size: int, steps: int) -> tuple[StudyInfo, list[Config], EvalPoint]:
    """A pack of `pack_size` configs as a sweep plans them. Each distinct value of the varied param is resolved
    once and the configs differ from their template in the seed only (resolving a million configs one by one
    took minutes)."""
    info = study_info(model)
    values = {**SETTINGS[model].iclscale_values(), **CHEAP_RECORDS[model], "steps": steps}
    templates = {
        value: info.resolve({**values, VARIED_PARAM[model]: value}, 0, "benchmark")
        for value in dict.fromkeys(per_config_values(model, pack_size))
    }
    configs = [
        Config(info.name, templates[value][0].values, seed)
        for seed, value in enumerate(per_config_values(model, pack_size))
    ]
    return info, configs, next(iter(templates.values()))[1]


def prepare(
    model: str, pack_size: int, steps: int, record_every: int, device: str, compile: str = "auto", **options
) -> Run:
    """`options`: more of `train_pack`'s keywords (graph_steps, memory_limit)."""
    info, configs, point = pack_configs(model, pack_size, steps)

    def run() -> list[float]:
        result = train(info, configs, point, record_every, device, compile, **options)
        return [float(np.mean(loss)) for loss in result.probes["train_loss"][1:]]  # record 0 has no loss

    return run

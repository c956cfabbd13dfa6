"""Running packs: one pack in the current process (the unit of every executor), and the inline
executor that runs a whole plan that way. The Ray Tune executor is in `iclscale.sweeps.ray_executor`."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from iclscale.errors import UserError
from iclscale.sweeps.plan import PackPlan, Plan
from iclscale.sweeps.store import RUNS, Location, Provenance, eval_key, write_fragment
from iclscale.sweeps.store_fragments import fragment_problem
from iclscale.trainer.params import RecordSchedule
from iclscale.trainer.registry import StudyInfo, study_info

NO_CUDA_RUNTIME = "No CUDA runtime is found"


class _NoCudaRuntimeNotice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(NO_CUDA_RUNTIME)


def quiet_cuda_probe() -> None:
    """Drop torch's "No CUDA runtime is found, using CUDA_HOME=..." notice, and only it.

    torch's CUDA build (what `pip install torch` fetches from PyPI on Linux) logs it where a CUDA toolkit is
    installed but no GPU is, when compiling a step imports torch.utils.cpp_extension; through logging's
    last-resort handler it lands in the middle of the progress line, --quiet too. Training on the CPU is what
    was asked, so it says nothing to act on. Installed in every process that trains a pack (this module's
    import: inline, Ray workers, reproduce's children) and by `iclscale train`."""
    logger = logging.getLogger("torch.utils.cpp_extension")
    if not any(isinstance(f, _NoCudaRuntimeNotice) for f in logger.filters):
        logger.addFilter(_NoCudaRuntimeNotice())


quiet_cuda_probe()


@dataclass(frozen=True)
class SweepContext:
    """What every pack of a sweep needs besides its configs (small, so it travels to Ray workers)."""

    sweep: str
    study: str
    record: RecordSchedule
    out: str
    metrics: tuple[str, ...] = ()
    """Metric columns the store already has: every new fragment carries them too (null where it
    has no value), so that plain Parquet readers, which take one fragment's columns, see them all."""
    eval_search: Any = None
    """A threshold search over an eval axis (iclscale.sweeps.eval_refine.EvalSearch), run on each trained pack."""


def fragment_name(pack: PackPlan, failed: bool = False) -> str:
    return f"{'failed' if failed else 'pack'}-{pack.pack_id}"


def run_pack(
    context: SweepContext,
    pack: PackPlan,
    device: str = "auto",
    node: str | None = None,
    progress: Callable[..., None] | None = None,
) -> dict[str, int]:
    """Train one pack and commit its fragment. `progress(step, steps, compiling=False)`: the trainer's reports
    from inside the pack (iclscale.trainer.training.Progress). A retried trial whose fragment is already
    committed does nothing, so a pack is never stored twice (a pack retrying failed rows is trained
    again: its fragment may be the failed one, rewritten under the same name)."""
    from iclscale.sweeps.rows import pack_tables
    from iclscale.trainer.training import resolve_device, train_pack

    location = Location(context.out)
    info = study_info(context.study)
    if (
        not pack.retry
        and location.exists(RUNS, f"{fragment_name(pack)}.parquet")
        and not fragment_problem(location, fragment_name(pack), quiet=True)
    ):
        return {"configs": len(pack.configs), "skipped": 1}
    callback = (lambda step, steps, _result, **event: progress(step, steps, **event)) if progress else None
    search = context.eval_search
    refine = {"refine": search.refine} if search is not None else {}  # an eval axis searched on the trained pack
    record, where = context.record, resolve_device(device)
    result = train_pack(info, pack.configs, pack.eval_points, record, where, callback, **refine)
    if search is not None:
        from iclscale.sweeps.eval_refine import measured_pack

        pack = measured_pack(pack, result)
    provenance = vars(Provenance.here(result.device, node))
    runs, curves = pack_tables(info, context.sweep, pack, result, provenance, context.metrics)
    write_fragment(location, fragment_name(pack), runs, curves)
    return {
        "configs": len(pack.configs),
        "ok": result.status.count("ok"),
        "diverged": result.status.count("diverged"),
        "failed_points": sum(1 for e in (getattr(result, "eval_errors", None) or {}).values() if e is not None),
    }


def record_failure(context: SweepContext, pack: PackPlan, error: str) -> None:
    """Store a pack whose trial failed after its retries as `failed` rows (retried by the next run)."""
    from iclscale.sweeps.rows import failed_tables

    location = Location(context.out)
    info = study_info(context.study)
    runs, curves = failed_tables(info, context.sweep, pack, error, vars(Provenance.here("unknown", None)))
    write_fragment(location, fragment_name(pack, failed=True), runs, curves)


def run_inline(plan: Plan, context: SweepContext, device: str = "auto", progress=None) -> dict[str, Any]:
    """Run every pack in this process, one after another, feeding the overall progress line."""
    totals = {"packs": 0, "configs": 0, "ok": 0, "diverged": 0}
    for index, pack in enumerate(plan.packs):
        if progress is not None:
            progress.started(index)

        def advance(step: int, steps: int, compiling: bool = False, index=index) -> None:
            if progress is not None:
                progress.advanced(index, step, compiling)

        summary = run_pack(context, pack, device, progress=advance)
        if progress is not None:
            progress.finished(index)
        totals["packs"] += 1
        for key in ("configs", "ok", "diverged"):
            totals[key] += summary.get(key, 0)
    return totals


@contextlib.contextmanager
def single_run_output(out: str, run_id: str, study: str):
    """Claim `train --out DIR` before training: DIR must be a writable directory (or creatable), empty or
    holding this config's results; its writer lock is held until the result is written (iclscale.sweeps.lock)."""
    from iclscale.sweeps.lock import writer_lock
    from iclscale.sweeps.store_directory import check_results_directory, results_location

    location = results_location(out)
    check_results_directory(location, f"train-{run_id}", study)  # missing, empty, or this config's
    with writer_lock(location):
        yield


def write_single_run(out: str, info: StudyInfo, config, point, result, record: RecordSchedule) -> None:
    """Store one `iclscale train` result as a one-config sweep, so `iclscale report` reads it too."""
    try:
        _write_single_run(out, info, config, point, result, record)
    except OSError as error:
        raise UserError(f"--out {out}: cannot write ({error.strerror or type(error).__name__})") from None


def _write_single_run(out: str, info: StudyInfo, config, point, result, record: RecordSchedule) -> None:
    from iclscale.sweeps.plan import PackPlan
    from iclscale.sweeps.spec import parse_sweep
    from iclscale.sweeps.store_frozen import write_frozen_sweep

    name = f"train-{config.run_id}"
    raw = {
        "name": name,
        "study": info.name,
        "fixed": config.as_dict(),
        "seeds": [config.seed],
        "eval": {k: v for k, v in point},
        "record": record.as_dict(),
    }
    sweep = parse_sweep(raw, f"{out}/sweep.yaml")
    location = Location(out)
    write_frozen_sweep(location, sweep.resolved())
    key = eval_key(point)
    pack = PackPlan(f"train-{config.run_id}", [config], [point], {(config.run_id, key)}, {config.run_id})
    from iclscale.sweeps.rows import pack_tables

    runs, curves = pack_tables(info, name, pack, result, vars(Provenance.here(result.device)))
    write_fragment(location, fragment_name(pack), runs, curves)

"""Running packs: one pack in the current process (the unit of every executor), and the inline
executor that runs a whole plan that way. The Ray Tune executor is in `sweeps.ray_executor`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from iclscale.params import RecordSchedule
from iclscale.registry import StudyInfo, study_info
from sweeps.plan import PackPlan, Plan
from sweeps.store import (
    FAILED,
    KEY_COLUMNS,
    PROVENANCE_COLUMNS,
    RUNS,
    STATUS_COLUMNS,
    Location,
    Provenance,
    committed_fragments,
    eval_key,
    now,
    stored_keys,
    write_fragment,
)


@dataclass(frozen=True)
class SweepContext:
    """What every pack of a sweep needs besides its configs (small, so it travels to Ray workers)."""

    sweep: str
    study: str
    record: RecordSchedule
    out: str


def fragment_name(pack: PackPlan, failed: bool = False) -> str:
    return f"{'failed' if failed else 'pack'}-{pack.pack_id}"


def run_pack(
    context: SweepContext,
    pack: PackPlan,
    device: str = "auto",
    node: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Train one pack and commit its fragment. A retried trial whose fragment is already
    committed does nothing, so a pack is never stored twice."""
    from iclscale.training import resolve_device, train_pack

    location = Location(context.out)
    info = study_info(context.study)
    if location.exists(RUNS, f"{fragment_name(pack)}.parquet"):
        return {"configs": len(pack.configs), "skipped": 1}
    callback = (lambda step, steps, _result: progress(step, steps)) if progress else None
    result = train_pack(info, pack.configs, pack.eval_points, context.record, resolve_device(device), callback)
    provenance = Provenance.here(result.device, node)
    runs, curves = pack_rows(context, info, pack, result, provenance)
    write_fragment(location, fragment_name(pack), runs, curves)
    remove_superseded_failures(location)
    return {"configs": len(pack.configs), "ok": result.status.count("ok"), "diverged": result.status.count("diverged")}


def pack_rows(context: SweepContext, info: StudyInfo, pack: PackPlan, result, provenance: Provenance):
    """The runs rows (one per config and missing eval point) and curve rows of a trained pack."""
    reserved = {*KEY_COLUMNS, *STATUS_COLUMNS, *PROVENANCE_COLUMNS, *(p.name for p in info.params)}
    extra = {
        "pack_id": pack.pack_id,
        "pack_size": len(pack.configs),
        "wall_time_s": result.wall_time,
        **vars(provenance),
        "finished_at": now(),
    }
    runs, curves = [], []
    keys = {point: eval_key(point) for point in pack.eval_points}
    for k, config in enumerate(pack.configs):
        head = {"run_id": config.run_id, "sweep": context.sweep, "study": info.name, "seed": config.seed}
        for point, key in keys.items():
            if (config.run_id, key) not in pack.missing:
                continue
            metrics = result.final_metrics(k, point)
            clash = reserved & metrics.keys()
            if clash:
                raise RuntimeError(f"study {info.name} reports a metric named like a column: {sorted(clash)}")
            status = {"status": result.status[k], "error": None, "diverged_step": result.diverged_step[k]}
            runs.append({**head, "eval_key": key, **config.as_dict(), **dict(point), **status, **metrics, **extra})
        blank_point = {name: None for name in info.names("eval")}
        for step, metric, value, point in result.curve(k):
            if point is None and config.run_id not in pack.fresh:
                continue  # eval-independent curves are already stored from an earlier run
            if point is not None and (config.run_id, keys[point]) not in pack.missing:
                continue
            curves.append(
                {
                    "run_id": config.run_id,
                    "sweep": context.sweep,
                    "step": step,
                    "metric": metric,
                    "value": value,
                    "eval_key": None if point is None else keys[point],
                    **(blank_point if point is None else dict(point)),
                }
            )
    return runs, curves


def failed_rows(context: SweepContext, info: StudyInfo, pack: PackPlan, error: str, provenance: Provenance):
    extra = {
        "pack_id": pack.pack_id,
        "pack_size": len(pack.configs),
        "wall_time_s": None,
        **vars(provenance),
        "finished_at": now(),
    }
    rows = []
    for config in pack.configs:
        for point in pack.eval_points:
            key = eval_key(point)
            if (config.run_id, key) in pack.missing:
                rows.append(
                    {
                        "run_id": config.run_id,
                        "sweep": context.sweep,
                        "study": info.name,
                        "seed": config.seed,
                        "eval_key": key,
                        **config.as_dict(),
                        **dict(point),
                        "status": FAILED,
                        "error": error,
                        "diverged_step": None,
                        **extra,
                    }
                )
    return rows


def record_failure(context: SweepContext, pack: PackPlan, error: str) -> None:
    """Store a pack whose trial failed after its retries as `failed` rows (retried by the next run)."""
    location = Location(context.out)
    info = study_info(context.study)
    rows = failed_rows(context, info, pack, error, Provenance.here("unknown", None))
    write_fragment(location, fragment_name(pack, failed=True), rows, [])


def remove_superseded_failures(location: Location) -> None:
    """Delete failed fragments whose every row has since been stored by a successful pack."""
    failed = [f for f in committed_fragments(location) if f.startswith("failed-")]
    if not failed:
        return
    import pyarrow.parquet as pq

    keys = stored_keys(location)
    for fragment in failed:
        table = pq.read_table(
            location.path(RUNS, f"{fragment}.parquet"), filesystem=location.fs, columns=["run_id", "eval_key"]
        )
        rows = zip(table.column("run_id").to_pylist(), table.column("eval_key").to_pylist(), strict=True)
        if all(keys.get(row) not in (None, FAILED) for row in rows):
            location.delete(f"{RUNS}/{fragment}.parquet")
            location.delete(f"curves/{fragment}.parquet")


def run_inline(plan: Plan, context: SweepContext, device: str = "auto", show_progress: bool = True) -> dict[str, Any]:
    """Run every pack in this process, one after another, with a progress bar over config-steps."""
    from tqdm import tqdm

    totals = {"packs": 0, "configs": 0, "ok": 0, "diverged": 0}
    with tqdm(total=plan.model_steps, unit="config-step", disable=not show_progress, unit_scale=True) as bar:
        for pack in plan.packs:
            done = [0]

            def advance(step: int, steps: int, pack=pack, done=done) -> None:
                bar.update((step - done[0]) * len(pack.configs))
                done[0] = step

            summary = run_pack(context, pack, device, progress=advance)
            totals["packs"] += 1
            for key in ("configs", "ok", "diverged"):
                totals[key] += summary.get(key, 0)
    return totals


def write_single_run(out: str, info: StudyInfo, config, point, result, record: RecordSchedule) -> None:
    """Store one `iclscale train` result as a one-config sweep, so `iclscale report` reads it too."""
    from sweeps.plan import PackPlan
    from sweeps.spec import parse_sweep
    from sweeps.store import write_frozen_sweep

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
    context = SweepContext(name, info.name, record, location.uri)
    runs, curves = pack_rows(context, info, pack, result, Provenance.here(result.device))
    write_fragment(location, fragment_name(pack), runs, curves)

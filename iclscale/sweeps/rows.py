"""A pack's rows as Arrow tables, built column by column from the trainer's arrays.

Every fragment of a study has the same typed columns (`runs_schema`, `curves_schema`): keys,
each param typed from its declaration (int64, float64, string, bool), status, the step a config
diverged at (int64, null if it did not), provenance, then the metrics (float64). A diverged
config's final metrics are NaN (its curves keep the records before it diverged); an eval point
whose evaluation failed gives `failed` rows with the reason and no metrics; metrics a row does not
have are null. `compile_path` says which numeric path (compiled or eager steps) made a pack's values
(stores written before it have none: null). Columns are built from numpy index arrays and Arrow `take`,
never one Python dict per row: a pack of 4096 configs × 20 records × 10 metrics is about a million curve
rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from iclscale.sweeps.store import DIVERGED, FAILED, KEY_COLUMNS, PROVENANCE_COLUMNS, STATUS_COLUMNS, eval_key, now
from iclscale.trainer.registry import StudyInfo

ARROW_TYPES = {int: pa.int64(), float: pa.float64(), str: pa.string(), bool: pa.bool_()}
KEY_TYPES = {
    "run_id": pa.string(),
    "sweep": pa.string(),
    "study": pa.string(),
    "seed": pa.int64(),
    "eval_key": pa.string(),
}
STATUS_TYPES = {"status": pa.string(), "error": pa.string(), "diverged_step": pa.int64()}
PROVENANCE_TYPES = {
    "pack_id": pa.string(),
    "pack_size": pa.int64(),
    "wall_time_s": pa.float64(),
    "device": pa.string(),
    "compile_path": pa.string(),
    "node": pa.string(),
    "iclscale_version": pa.string(),
    "git_commit": pa.string(),
    "finished_at": pa.string(),
}
CURVE_HEAD = {
    "run_id": pa.string(),
    "sweep": pa.string(),
    "step": pa.int64(),
    "metric": pa.string(),
    "value": pa.float64(),
    "eval_key": pa.string(),
}
assert tuple(KEY_TYPES) == KEY_COLUMNS and tuple(STATUS_TYPES) == STATUS_COLUMNS
assert tuple(PROVENANCE_TYPES) == PROVENANCE_COLUMNS


def head_fields(info: StudyInfo) -> list[pa.Field]:
    """The columns every runs fragment of a study has, before its metrics."""
    params = [pa.field(p.name, ARROW_TYPES[p.type]) for p in info.params]
    return [*_fields(KEY_TYPES), *params, *_fields(STATUS_TYPES), *_fields(PROVENANCE_TYPES)]


def runs_schema(info: StudyInfo, metrics: Iterable[str]) -> pa.Schema:
    head = head_fields(info)
    taken = {f.name for f in head}
    return pa.schema([*head, *(pa.field(m, pa.float64()) for m in dict.fromkeys(metrics) if m not in taken)])


def curves_schema(info: StudyInfo) -> pa.Schema:
    evals = [pa.field(p.name, ARROW_TYPES[p.type]) for p in info.params if p.role == "eval"]
    return pa.schema([*_fields(CURVE_HEAD), *evals])


def _fields(types: dict[str, pa.DataType]) -> list[pa.Field]:
    return [pa.field(name, kind) for name, kind in types.items()]


def runs_table(
    info: StudyInfo,
    sweep: str,
    configs: Sequence[Any],
    points: Sequence[Any],
    rows: tuple[np.ndarray, np.ndarray],
    status: dict[str, Any],
    metrics: dict[str, tuple[np.ndarray, np.ndarray]],
    provenance: dict[str, Any],
    known_metrics: Iterable[str] = (),
) -> pa.Table:
    """Runs rows (config ks[i], eval point ps[i]) from per-config and per-point arrays.

    status: "status", "error" (object arrays, one per row) and "diverged_step" (per config, -1 for none);
    metrics: name -> (values per row, null mask per row); provenance: one value per column."""
    ks, ps = rows
    n = len(ks)
    schema = runs_schema(info, [*known_metrics, *metrics])
    columns: dict[str, pa.Array] = {
        "run_id": pa.array([c.run_id for c in configs], pa.string()).take(ks),
        "sweep": pa.repeat(pa.scalar(sweep, pa.string()), n),
        "study": pa.repeat(pa.scalar(info.name, pa.string()), n),
        "seed": pa.array(np.array([c.seed for c in configs], dtype=np.int64)[ks]),
        "eval_key": pa.array([eval_key(p) for p in points], pa.string()).take(ps),
        "status": pa.array(status["status"], pa.string()),
        "error": pa.array(status["error"], pa.string()),
    }
    diverged = status["diverged_step"][ks]
    columns["diverged_step"] = pa.array(diverged, pa.int64(), mask=diverged < 0)
    for p in info.params:
        kind = ARROW_TYPES[p.type]
        if p.role == "eval":
            columns[p.name] = pa.array([dict(point).get(p.name) for point in points], kind).take(ps)
        else:
            columns[p.name] = pa.array([c[p.name] for c in configs], kind).take(ks)
    for name, value in provenance.items():
        columns[name] = pa.repeat(pa.scalar(value, PROVENANCE_TYPES[name]), n)
    for name, (values, missing) in metrics.items():
        columns[name] = pa.array(values, pa.float64(), mask=missing)
    return _table(columns, schema, n)


def _table(columns: dict[str, pa.Array], schema: pa.Schema, n: int) -> pa.Table:
    arrays = [columns[f.name] if f.name in columns else pa.nulls(n, f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def pack_tables(
    info: StudyInfo, sweep: str, pack, result, provenance: dict[str, Any], known_metrics: Iterable[str] = ()
) -> tuple[pa.Table, pa.Table]:
    """The runs table (one row per config and missing eval point) and curves table of a trained pack."""
    configs, points = pack.configs, pack.eval_points
    pack_size = len(configs)
    keys = [eval_key(p) for p in points]
    wanted = np.array([[(c.run_id, key) in pack.missing for key in keys] for c in configs], dtype=bool)
    wanted = wanted.reshape(pack_size, -1)
    ks, ps = np.nonzero(wanted)  # config-major
    errors = getattr(result, "eval_errors", None) or {}  # eval points whose evaluation raised (trainer side)
    point_error = [errors.get(p) for p in points]
    config_status = np.array(result.status, dtype=object)
    diverged_step = np.array([-1 if s is None else s for s in result.diverged_step], dtype=np.int64)
    failed_point = np.array([e is not None for e in point_error], dtype=bool)
    status = np.where(failed_point[ps], FAILED, config_status[ks]).astype(object)
    error = np.array([point_error[p] for p in ps], dtype=object)
    diverged = np.array([s == DIVERGED for s in result.status], dtype=bool)

    final = _final_values(result, points, failed_point, diverged)
    metrics = {}
    for name, per_point in final.items():
        values = np.full(len(ks), np.nan)
        missing = np.ones(len(ks), dtype=bool)
        for p, array in per_point.items():
            rows = ps == p
            values[rows] = array[ks[rows]]
            missing[rows] = False
        metrics[name] = (values, missing)
    clash = set(metrics) & {f.name for f in head_fields(info)}
    if clash:
        raise RuntimeError(f"study {info.name} reports a metric named like a column: {sorted(clash)}")
    runs = runs_table(
        info,
        sweep,
        configs,
        points,
        (ks, ps),
        {"status": status, "error": error, "diverged_step": diverged_step},
        metrics,
        {
            "pack_id": pack.pack_id,
            "pack_size": pack_size,
            "wall_time_s": float(result.wall_time),
            "compile_path": numeric_path(result),
            **provenance,
            "finished_at": now(),
        },
        known_metrics,
    )
    fresh = np.array([c.run_id in pack.fresh for c in configs], dtype=bool)
    return runs, curves_table(info, sweep, configs, points, result, wanted, fresh, failed_point, diverged_step)


def numeric_path(result) -> str:
    """The numeric path a pack's steps took (`PackResult.compile_path`), stored with its rows: compiled and eager
    steps agree only within float tolerance. "loaded" is stored as "compiled": the same code, saved by an
    earlier process, so that a warm and a cold cache write the same rows."""
    path = getattr(result, "compile_path", "eager")
    return "compiled" if path == "loaded" else path


def _final_values(result, points, failed_point, diverged) -> dict[str, dict[int, np.ndarray]]:
    """metric -> eval point index -> (pack_size,) final values: the last record, NaN for diverged configs."""
    final: dict[str, dict[int, np.ndarray]] = {}
    for p, point in enumerate(points):
        if failed_point[p]:
            continue
        sources = {**result.probes, **result.evals.get(point, {})}
        for name, records in sources.items():
            values = np.array(records[-1], dtype=np.float64, copy=True)
            values[diverged] = np.nan
            final.setdefault(name, {})[p] = values
    return final


def curves_table(info, sweep, configs, points, result, wanted, fresh, failed_point, diverged_step) -> pa.Table:
    """Long rows (run_id, step, metric, value, eval key and params): probes once per fresh config,
    eval metrics per missing (config, point); only records before a config diverged, never NaN."""
    steps = np.asarray(result.record_steps, dtype=np.int64)
    before = (diverged_step[None, :] < 0) | (steps[:, None] < diverged_step[None, :])  # (records, pack_size)
    blocks: list[tuple[np.ndarray, np.ndarray, int, int, np.ndarray]] = []  # ks, rs, metric, point (-1), values
    names: list[str] = []

    def add(name: str, records, point: int, configs_wanted: np.ndarray) -> None:
        array = np.asarray(np.stack(records), dtype=np.float64)  # (records, pack_size)
        mask = before & configs_wanted[None, :] & ~np.isnan(array)
        ks, rs = np.nonzero(mask.T)
        if name not in names:
            names.append(name)
        blocks.append((ks, rs, names.index(name), point, array[rs, ks]))

    for name, records in result.probes.items():
        add(name, records, -1, fresh)
    for p, point in enumerate(points):
        if not failed_point[p]:
            for name, records in result.evals.get(point, {}).items():
                add(name, records, p, wanted[:, p])
    ks = np.concatenate([b[0] for b in blocks]) if blocks else np.zeros(0, np.int64)
    rs = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0, np.int64)
    metric = np.concatenate([np.full(len(b[0]), b[2]) for b in blocks]) if blocks else np.zeros(0, np.int64)
    point = np.concatenate([np.full(len(b[0]), b[3] + 1) for b in blocks]) if blocks else np.zeros(0, np.int64)
    value = np.concatenate([b[4] for b in blocks]) if blocks else np.zeros(0)
    n = len(ks)
    columns = {
        "run_id": pa.array([c.run_id for c in configs], pa.string()).take(ks),
        "sweep": pa.repeat(pa.scalar(sweep, pa.string()), n),
        "step": pa.array(steps[rs] if n else np.zeros(0, np.int64)),
        "metric": pa.array(names, pa.string()).take(metric),
        "value": pa.array(value, pa.float64()),
        "eval_key": pa.array([None, *(eval_key(p) for p in points)], pa.string()).take(point),
    }
    for p in info.params:
        if p.role == "eval":
            values = [None, *(dict(pt).get(p.name) for pt in points)]
            columns[p.name] = pa.array(values, ARROW_TYPES[p.type]).take(point)
    return _table(columns, curves_schema(info), n)


def failed_tables(
    info: StudyInfo, sweep: str, pack, error: str, provenance: dict[str, Any]
) -> tuple[pa.Table, pa.Table]:
    """A pack whose trial failed after its retries: `failed` rows for its missing (config, point) pairs."""
    keys = [eval_key(p) for p in pack.eval_points]
    pack_size = len(pack.configs)
    wanted = np.array([[(c.run_id, k) in pack.missing for k in keys] for c in pack.configs], dtype=bool)
    wanted = wanted.reshape(pack_size, -1)
    ks, ps = np.nonzero(wanted)
    n = len(ks)
    status = {
        "status": np.full(n, FAILED, dtype=object),
        "error": np.full(n, error, dtype=object),
        "diverged_step": np.full(pack_size, -1, dtype=np.int64),
    }
    extra = {"pack_id": pack.pack_id, "pack_size": pack_size, "wall_time_s": None, **provenance, "finished_at": now()}
    runs = runs_table(info, sweep, pack.configs, pack.eval_points, (ks, ps), status, {}, extra)
    return runs, curves_schema(info).empty_table()

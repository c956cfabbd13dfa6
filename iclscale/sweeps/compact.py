"""Keeping a results directory readable by anyone: run by `sweep run` (holding the writer lock)
before it plans and after its packs finish.

1. A damaged fragment (iclscale.sweeps.store_fragments.fragment_problem: its digest does not match, it is not a
   regular file, empty, truncated, without its key columns or its curves file, or holding rows of
   another pack) is moved aside, never deleted, to `DIR/quarantine/` with its digests, and named on
   one line; its configs are then missing and the run retrains them. In a checksummed store a fragment
   without its digest is damaged; only in a store written before checksums (iclscale.sweeps.store_frozen) is a
   fragment given a digest, once its run_ids match its rows' params (else it is moved aside).
2. One row per (config, eval point): a row superseded by another is removed from its fragment (a
   failed row by a later success or a later failure; a duplicate of a stored row, which only two
   writers without the lock can make, with its curves), rewriting the fragment atomically or
   removing it when nothing is left in it.
3. One column set in every fragment: a fragment lacking a metric column another has gets it (null),
   and every column has its declared type, because plain Parquet readers (pandas, duckdb) take
   the columns of one fragment for all.
4. Temp files left by a killed writer (`.name.<uuid>.tmp`) are removed.
"""

from __future__ import annotations

import os
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from iclscale.sweeps import store_fragments
from iclscale.sweeps.store import CURVES, DIGESTS, FAILED, RUNS, Location, digest_name, warn
from iclscale.sweeps.store_fragments import fragment_names, fragment_problem, unverified_fragments
from iclscale.trainer.registry import StudyInfo

QUARANTINE = "quarantine"


def compact(location: Location, info: StudyInfo) -> list[str]:
    """Repair what a crash, a disk or a concurrent writer left; returns the metric columns of the store."""
    if not location.exists(RUNS):
        return []
    _remove_temp_files(location)
    tables: dict[str, pa.Table] = {}
    # every fragment judged before any is adopted: a digest written by adoption must not make the store
    # look checksummed to the fragments judged after it
    problems = {name: fragment_problem(location, name, quiet=True) for name in fragment_names(location)}
    unverified = set(unverified_fragments(location))
    for name, problem in problems.items():
        table = None
        if problem is None:
            try:
                table = pq.read_table(location.path(RUNS, f"{name}.parquet"), filesystem=location.fs)
            except (pa.ArrowException, OSError) as error:
                problem = f"{RUNS}/{name}.parquet: {str(error).strip()[:200]}"
        if problem is None and name in unverified:
            problem = _adopt(location, info, name, table)
        if problem is not None:
            move_aside(location, name, problem)
        else:
            tables[name] = table
    _drop_superseded(location, tables)
    return _unify(location, info, tables)


def move_aside(location: Location, fragment: str, problem: str) -> None:
    """Move a fragment's files (whatever they are: a directory or a link is moved, never followed)
    and digests to quarantine/, under names that never overwrite an earlier quarantined one."""
    location.fs.create_dir(location.path(QUARANTINE), recursive=True)
    for folder in (RUNS, CURVES):
        for relative in (f"{folder}/{fragment}.parquet", digest_name(f"{folder}/{fragment}.parquet")):
            source = location.path(relative)
            present = os.path.lexists(source) if location.local else location.exists(relative)
            if not present:
                continue
            base = relative.replace("/", "-").removeprefix(f"{DIGESTS}-")
            target = location.path(QUARANTINE, base)
            if location.exists(QUARANTINE, base) or (location.local and os.path.lexists(target)):
                target = location.path(QUARANTINE, f"{time.time_ns()}-{base}")
            if location.local:
                os.rename(source, target)
            else:
                location.fs.move(source, target)
    print(
        f"iclscale: moved damaged fragment aside ({problem}) to {location.path(QUARANTINE)}; "
        "its configs will be retrained",
        flush=True,
    )


def _adopt(location: Location, info: StudyInfo, name: str, runs: pa.Table) -> str | None:
    """A fragment written before digests existed: its rows' run_ids recomputed from their params
    (a changed bit in a run_id or a param shows here); if they all match, its files get digests."""
    from iclscale.trainer.params import Config

    params = [p.name for p in info.params if p.role != "eval" and p.name in runs.column_names]
    columns = {c: runs.column(c).to_pylist() for c in ("run_id", "seed", *params)}
    for i, run_id in enumerate(columns["run_id"]):
        values = tuple((p, columns[p][i]) for p in params)
        try:
            expected = Config(info.name, values, columns["seed"][i]).run_id
        except (TypeError, ValueError):
            expected = None
        if expected != run_id:
            return f"{RUNS}/{name}.parquet: a row's run_id {str(run_id)[:20]!r} does not match its params"
    for folder in (RUNS, CURVES):
        relative = f"{folder}/{name}.parquet"
        if location.exists(relative):
            from iclscale.sweeps.store_fragments import sha256_of

            size = location.fs.get_file_info(location.path(relative)).size
            location.write_bytes(digest_name(relative), f"{sha256_of(location, relative)} {size}\n".encode())
    store_fragments._no_digest.discard((location.uri, name))
    return None


def _drop_superseded(location: Location, tables: dict[str, pa.Table]) -> None:
    """Keep one row per (run_id, eval_key): not failed over failed, then the latest, then the first fragment."""
    best: dict[tuple[str, str], tuple[tuple, str]] = {}
    for name, table in tables.items():
        finished = table.column("finished_at").to_pylist() if "finished_at" in table.column_names else None
        for i, (run_id, key, status) in enumerate(
            zip(*(table.column(c).to_pylist() for c in ("run_id", "eval_key", "status")), strict=True)
        ):
            rank = (status != FAILED, (finished[i] or "") if finished else "", name)
            if (run_id, key) not in best or rank[:2] > best[(run_id, key)][0][:2]:
                best[(run_id, key)] = (rank, name)
    for name, table in list(tables.items()):
        keys = zip(table.column("run_id").to_pylist(), table.column("eval_key").to_pylist(), strict=True)
        keep = [best[key][1] == name for key in keys]
        if all(keep):
            continue
        dropped = table.filter(pa.array([not k for k in keep]))
        kept = table.filter(pa.array(keep))
        _drop_curves(location, name, dropped, kept)
        if kept.num_rows:
            location.write_table(f"{RUNS}/{name}.parquet", kept)
            tables[name] = kept
        else:
            for relative in (f"{RUNS}/{name}.parquet", f"{CURVES}/{name}.parquet"):
                location.delete(relative)
                location.delete(digest_name(relative))
            del tables[name]


def _drop_curves(location: Location, name: str, dropped: pa.Table, kept: pa.Table) -> None:
    """Curves of removed ok rows go with them (failed rows have none): the eval curves of each
    removed (config, point), and a config's probe curves once none of its rows is left here."""
    columns = (dropped.column(c).to_pylist() for c in ("run_id", "eval_key", "status"))
    removed = [(r, k) for r, k, s in zip(*columns, strict=True) if s != FAILED]
    if not removed or not location.exists(CURVES, f"{name}.parquet"):
        return
    curves = pq.read_table(location.path(CURVES, f"{name}.parquet"), filesystem=location.fs)
    gone_points = pa.array([f"{r}\x00{k}" for r, k in removed])
    left = set(kept.column("run_id").to_pylist())
    gone_configs = pa.array(sorted({r for r, _ in removed} - left), pa.string())
    pair = pc.binary_join_element_wise(curves["run_id"], pc.fill_null(curves["eval_key"], ""), "\x00")
    drop = pc.or_(
        pc.fill_null(pc.is_in(pair, value_set=gone_points), False),
        pc.and_(pc.is_null(curves["eval_key"]), pc.is_in(curves["run_id"], value_set=gone_configs)),
    )
    location.write_table(f"{CURVES}/{name}.parquet", curves.filter(pc.invert(drop)))


def _unify(location: Location, info: StudyInfo, tables: dict[str, pa.Table]) -> list[str]:
    """Give every runs fragment the same columns with the declared types; returns the metric columns."""
    from iclscale.sweeps.rows import head_fields, runs_schema

    head = {f.name for f in head_fields(info)}
    metrics = list(dict.fromkeys(c for t in tables.values() for c in t.column_names if c not in head))
    schema = runs_schema(info, metrics)
    extra = [f for t in tables.values() for f in t.schema if f.name not in schema.names]  # columns of older versions
    schema = pa.schema([*schema, *dict((f.name, f) for f in extra).values()])
    for name, table in tables.items():
        if table.schema.equals(schema):
            continue
        try:
            arrays = [
                table.column(f.name).cast(f.type) if f.name in table.column_names else pa.nulls(table.num_rows, f.type)
                for f in schema
            ]
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
            warn(f"{RUNS}/{name}.parquet: a column cannot take its declared type ({str(error)[:120]}); left as is")
            continue
        location.write_table(f"{RUNS}/{name}.parquet", pa.Table.from_arrays(arrays, schema=schema))
    return metrics


def _remove_temp_files(location: Location) -> None:
    if not location.local:
        return
    for folder in (RUNS, CURVES, "", f"{DIGESTS}/{RUNS}", f"{DIGESTS}/{CURVES}"):
        directory = location.path(folder) if folder else location.root
        if os.path.isdir(directory):
            for entry in os.scandir(directory):
                if entry.name.startswith(".") and entry.name.endswith(".tmp"):
                    os.remove(entry.path)

"""Reading a store: its rows (each (run_id, eval_key) once), the keys it holds, and the whole of it as DataFrames.

Only sound fragments are read (`iclscale.sweeps.store_fragments`); a damaged or unreadable one is named on one
line and left out. Torch-free: the analysis package reads results through `read_store`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from iclscale.errors import UserError
from iclscale.sweeps.store import CURVE_COLUMNS, CURVES, FAILED, FROZEN_SWEEP, RUNS, Location, counted, first_line, warn
from iclscale.sweeps.store_fragments import (
    check_folders,
    committed_fragments,
    fragment_names,
    fragment_problem,
    warn_damaged,
)
from iclscale.sweeps.store_frozen import read_frozen_sweep


@dataclass
class StoreData:
    """What a results directory holds, as pandas DataFrames."""

    runs: Any  # pandas.DataFrame
    curves: Any  # pandas.DataFrame
    sweep: dict[str, Any]


def read_runs(location: Location, fragment: str, columns: list[str] | None = None) -> pa.Table | None:
    """A runs fragment's table (only the columns it has, of those asked), or None if it is unreadable."""
    path = location.path(RUNS, f"{fragment}.parquet")
    try:
        if columns is not None:
            present = set(pq.read_schema(path, filesystem=location.fs).names)
            columns = [c for c in columns if c in present]
        return pq.read_table(path, filesystem=location.fs, columns=columns)
    except (pa.ArrowException, OSError) as error:
        where = location.path(RUNS, f"{fragment}.parquet")
        warn(f"unreadable fragment {where}: {first_line(error)}; `sweep run` moves it aside")
        return None


def stored_keys(location: Location) -> dict[tuple[str, str], str]:
    """(run_id, eval_key) -> status of every committed row (a non-failed row wins over a failed one)."""
    keys: dict[tuple[str, str], str] = {}
    for fragment in committed_fragments(location):
        table = read_runs(location, fragment, ["run_id", "eval_key", "status"])
        if table is None:
            continue
        for run_id, key, status in zip(*(table.column(c).to_pylist() for c in table.column_names), strict=True):
            if keys.get((run_id, key)) in (None, FAILED):
                keys[(run_id, key)] = status
    return keys


def read_store(uri: str | os.PathLike, curves: bool = True) -> StoreData:
    """Read a results directory. Failed rows superseded by a later success are dropped, so each
    (run_id, eval_key) appears once. A missing directory, or one holding no runs, is a UserError."""
    import pandas as pd

    location = Location(uri)
    if not location.exists():
        raise UserError(f"results directory {location.uri!r} does not exist")
    check_folders(location)
    names = fragment_names(location)
    problems = {name: fragment_problem(location, name, quiet=True) for name in names}
    fragments = [name for name in names if problems[name] is None]
    if not fragments:  # one line that says what is there, not a warning per file and then "no runs"
        if not names:
            raise UserError(f"results directory {location.uri!r} holds no runs (no {RUNS}/*.parquet)")
        first = next(problem for problem in problems.values() if problem)
        what = "" if location.exists(FROZEN_SWEEP) else f" and no {FROZEN_SWEEP}: not a store iclscale wrote"
        raise UserError(
            f"results directory {location.uri!r} holds no sound runs: {counted(len(names), 'file', 'files')} in "
            f"{RUNS}/, none sound{what} (first: {first})"
        )
    for problem in filter(None, problems.values()):
        warn_damaged(location, problem)
    frames = [frame for frame in (_read(location, RUNS, f) for f in fragments) if frame is not None]
    if not frames:
        raise UserError(f"results directory {location.uri!r} holds no readable runs")
    runs = pd.concat(frames, ignore_index=True)
    runs = _drop_superseded_failures(runs)
    curve_frames = [_read(location, CURVES, f) for f in fragments if curves and location.exists(CURVES, f"{f}.parquet")]
    curve_frames = [frame for frame in curve_frames if frame is not None and len(frame)]
    curves_frame = (
        pd.concat(curve_frames, ignore_index=True)
        if curve_frames
        else pd.DataFrame({name: pd.Series(dtype="object") for name in CURVE_COLUMNS})
    )
    return StoreData(runs, curves_frame, read_frozen_sweep(location) or {})


def _read(location: Location, folder: str, fragment: str):
    try:
        return pq.read_table(location.path(folder, f"{fragment}.parquet"), filesystem=location.fs).to_pandas()
    except (pa.ArrowException, OSError) as error:
        warn(f"unreadable fragment {location.path(folder, fragment)}.parquet: {first_line(error)}; left out")
        return None


def _drop_superseded_failures(runs):
    import pandas as pd

    done = runs[runs["status"] != FAILED]
    stored = set(zip(done["run_id"], done["eval_key"], strict=True))
    failed = runs[runs["status"] == FAILED]
    still_failed = [(r, k) not in stored for r, k in zip(failed["run_id"], failed["eval_key"], strict=True)]
    failed = failed[still_failed].drop_duplicates(["run_id", "eval_key"], keep="last")
    return pd.concat([done, failed], ignore_index=True)

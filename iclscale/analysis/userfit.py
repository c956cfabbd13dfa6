"""`iclscale fit`: the verdict machinery for anyone's measurements.

A table (CSV or Parquet, at most MAX_FILE_BYTES on disk, checked before it is read) holds one row per
measurement: an x column, a y column, optionally a `seed` column (the trained model the measurement comes
from; without it every row is a model of its own) and optionally `censored` (true where y is only a lower
bound: a threshold never reached). Each file is judged on its own, by the same skeleton as a sweep's laws
(iclscale.analysis.evaluate: regime → estimate → evidence → band → form), against either

- a catalogue law (`iclscale fit LAW FILE...`): x is the law's x (or the param its x is computed from), y
  the column `value` unless --y names another; params the law's prediction reads (d, M1, …) come from
  columns that are constant in the file; or
- an ad hoc power law y ∝ x^P (`--x COL --y COL --exponent P [--tolerance T]`): the exponent judged against
  P ± T (T: iclscale.analysis.verdict's default for exponents unless given).

The interval is chosen as a sweep's is (iclscale.analysis.fits), from the design of the file, since a table
does not say whether a seed's rows share one trained model:
- every seed measured at every x level (as in a sweep over an eval-role x: one model per seed measured at
  every x): the t-interval of the per-seed fits (S − 1 df), which is valid whether or not a seed's rows share
  a model; `independent=True` (--independent) says each row is its own trained model (a train-role x), for
  the narrower OLS t-interval, which is too narrow where they do share one (benchmarks/calibration.py);
- otherwise (no seed column, or seeds measured at some x only) every row is taken as its own trained
  model: the OLS t-interval.
Rows the fit cannot use (x, y or seed missing or not finite; x or y ≤ 0 where the law takes its log) are
dropped, counted and named in the output, never silently; a file with no usable row, or with one x level,
stops the command (UserError). A law's regime flags (conditions on metrics a sweep records) cannot be read
from a plain table and are not applied; the line says so where a law has them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from iclscale.errors import UserError

SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
# Limits (this tool's choice): a table of measurements (one row per model and x) is kilobytes; the fits build
# dense (rows × x levels) and (rows × seeds) design matrices, so 10,000 rows at 200 x levels or seeds is 16 MB
# each. Checked before reading (size on disk; rows from the Parquet footer or the CSV's line count) and after.
MAX_FILE_BYTES = 20 * 10**6
MAX_ROWS = 10_000
MAX_LEVELS = 200  # distinct x values
MAX_SEEDS = 200
SHOWN_ROWS = 5  # row numbers named per reason a row was dropped; the rest are counted


@dataclass
class Dropped:
    """Rows left out of a file's fit, by reason: {reason: 1-based row numbers (the header not counted)}."""

    reasons: dict[str, list[int]]

    @property
    def count(self) -> int:
        return sum(len(rows) for rows in self.reasons.values())

    def describe(self) -> str:
        parts = []
        for reason, rows in self.reasons.items():
            shown = ", ".join(map(str, rows[:SHOWN_ROWS])) + (", …" if len(rows) > SHOWN_ROWS else "")
            parts.append(f"{len(rows)} with {reason} (row{'s' if len(rows) > 1 else ''} {shown})")
        return f"{self.count} row{'s' if self.count != 1 else ''} dropped: " + "; ".join(parts)


@dataclass
class Prepared:
    """A file's usable rows, what was dropped and how its seeds were measured (module docstring)."""

    path: str
    rows: Any  # DataFrame: the usable rows, with value, censored, left_censored and the law's x
    n_rows: int  # rows in the file
    dropped: Dropped
    paired: bool  # the per-seed interval: every seed measured at every x level
    design: str  # the design in words, for the output


@dataclass
class FileVerdict:
    path: str
    fit: Any  # iclscale.analysis.lawfit.LawFit
    notes: list[str]
    n_rows: int = 0
    dropped: Dropped | None = None
    design: str = ""

    def line(self) -> str:
        fit = self.fit
        theory = fit.prediction.primary.band.describe(tolerance=fit.tolerance) if fit.prediction else "—"
        estimate = f"{fit.statistic} {fit.estimate:.3g} [{fit.ci_low:.3g}, {fit.ci_high:.3g}]"
        notes = "".join(f" ({note})" for note in self._notes())
        return f"{self.path}: {estimate} vs {theory}: {fit.verdict.verdict} — {fit.verdict.reason}{notes}"

    def _notes(self) -> list[str]:
        dropped = [self.dropped.describe()] if self.dropped is not None and self.dropped.count else []
        return [*dropped, *([self.design] if self.design else []), *self.notes]

    def record(self) -> dict[str, Any]:
        """fits.csv's keys (iclscale.analysis.lawfit.LawFit.row), with the file, its rows, those dropped (by
        reason, with their row numbers) and the design; NaN as None (JSON has no NaN)."""
        dropped = self.dropped.reasons if self.dropped is not None else {}
        row = {
            "file": self.path,
            **self.fit.row(),
            "n_rows": self.n_rows,
            "n_dropped": sum(len(rows) for rows in dropped.values()),
            "dropped": dropped,
            "design": self.design,
            "notes": "; ".join(self._notes()),
        }
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}


def check_file(path: str) -> Path:
    """The file's format, existence and size, before anything reads it (a 1 GB file is refused at once)."""
    file = Path(path)
    if SUFFIXES.get(file.suffix.lower()) is None:
        raise UserError(f"{path}: expected a .csv or .parquet file")
    if not file.is_file():
        raise UserError(f"{path}: no such file")
    size = file.stat().st_size
    if size > MAX_FILE_BYTES:
        raise UserError(
            f"{path}: {size / 1e6:,.0f} MB on disk, more than the {MAX_FILE_BYTES / 1e6:.0f} MB `iclscale fit` "
            "reads (a table of measurements, one row per model and x, is far smaller: aggregate it first)"
        )
    return file


def _row_count(file: Path, kind: str) -> int:
    """Rows without reading the table: the Parquet footer, or the CSV's lines (the header not counted)."""
    if kind == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(file).metadata.num_rows
    lines, last = 0, b"\n"
    with file.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            lines, last = lines + chunk.count(b"\n"), chunk[-1:]
    return max(lines + (last != b"\n") - 1, 0)


def _too_many(path: str, count: int, what: str, limit: int) -> None:
    if count > limit:
        raise UserError(f"{path}: {count:,} {what}, more than the {limit:,} `iclscale fit` takes: aggregate first")


def read_table(path: str):
    """The file as a DataFrame; UserError for a missing, unreadable, empty or unknown-format file."""
    file = check_file(path)
    kind = SUFFIXES[file.suffix.lower()]
    import pandas as pd

    try:
        _too_many(path, _row_count(file, kind), "rows", MAX_ROWS)
        table = pd.read_csv(file) if kind == "csv" else pd.read_parquet(file)
    except UserError:
        raise
    except Exception as error:  # pandas raises many types for a malformed file; any of them is the user's file
        raise UserError(f"{path}: cannot read it as {kind}: {type(error).__name__}: {error}") from None
    if not len(table):
        raise UserError(f"{path}: no rows")
    _too_many(path, len(table), "rows", MAX_ROWS)  # a quoted field may hold line breaks
    return table


def ad_hoc_law(x: str, y: str, exponent: float, tolerance: float | None):
    """y ∝ x^exponent as a Law (judged against exponent ± tolerance)."""
    from iclscale.analysis.kinds import PowerLaw
    from iclscale.analysis.law import Hypothesis, Law, Prediction
    from iclscale.analysis.measures import FinalValue
    from iclscale.analysis.verdict import Band, VerdictRule

    if not math.isfinite(exponent):
        raise UserError(f"--exponent must be a finite number, got {exponent}")
    if tolerance is not None and not (math.isfinite(tolerance) and tolerance >= 0):
        raise UserError(f"--tolerance must be a number >= 0, got {tolerance}")
    hypothesis = Hypothesis(f"y ∝ x^{exponent:g}", Band.point(exponent), "given on the command line")
    return Law(
        name="ad hoc power law",
        study="",
        claim=f"{y} ∝ {x}^{exponent:g}",
        citation="given on the command line",
        conditions="none given",
        prediction_text=f"exponent {exponent:g}",
        measure=FinalValue(y),
        x=x,
        predict=lambda params: Prediction(hypothesis),
        kind=PowerLaw(threshold_factors=()),
        rule=VerdictRule(tolerance=tolerance),
    )


def fit_files(
    paths: list[str], law=None, x: str | None = None, y: str | None = None, independent: bool = False
) -> list[FileVerdict]:
    """Judge each file on its own. `law` a Law (catalogue or ad hoc); `x`/`y` override its columns;
    `independent`: every row is its own trained model (module docstring). Every file is read and checked before
    any is judged, so a bad one stops the command before it prints anything."""
    for path in paths:  # sizes first: no file is read while another is too big
        check_file(path)
    tables = [(path, read_table(path)) for path in paths]
    prepared = [prepare_table(path, table, law, x, y, independent) for path, table in tables]
    return [_judge(found, law, x or _x_column(law), y or "value") for found in prepared]


def judge_table(name: str, table, law, x: str | None = None, y: str | None = None, independent: bool = False):
    """One table (a DataFrame) judged as `iclscale fit` judges a file named `name` (benchmarks/calibration.py)."""
    return _judge(prepare_table(name, table, law, x, y, independent), law, x or _x_column(law), y or "value")


def prepare_table(path: str, table, law, x: str | None, y: str | None, independent: bool) -> Prepared:
    """The table's columns checked (UserError naming what is wrong), then its usable rows (`_prepare`)."""
    from iclscale.analysis.derived import add_derived

    x_column = x or _x_column(law)
    y_column = y or "value"
    have = set(table) | set(add_derived(table.head(1), law.study))  # a derived x from its params
    missing = [c for c in (x_column, y_column) if c not in have]
    if missing:
        raise UserError(f"{path}: no column {', '.join(map(repr, missing))}; it has {', '.join(map(str, table))}")
    for column in (x_column, y_column):
        if column in table and not _numeric(table[column]):
            raise UserError(f"{path}: column {column!r} is not numeric")
    if "censored" in table and not _boolean(table["censored"]):
        raise UserError(f"{path}: column 'censored' must hold true/false (or 1/0)")
    return _prepare(path, table, law, x_column, y_column, independent)


def _x_column(law) -> str:
    kind = law.kind
    return getattr(kind, "param", "") if getattr(kind, "transform", None) is not None else law.x


def _numeric(column) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _boolean(column) -> bool:
    import pandas as pd

    if pd.api.types.is_bool_dtype(column):
        return True
    values = set(column.dropna().astype(str).str.lower())
    return values <= {"true", "false", "1", "0", "1.0", "0.0"}


def _log_axes(kind) -> tuple[bool, bool]:
    """Whether the kind fits log x and log y (a power law; a curve fitted on log y)."""
    from iclscale.analysis.kinds import Curve

    return bool(kind.power_form), bool(kind.power_form or isinstance(kind, Curve))


def _prepare(path: str, table, law, x_column: str, y_column: str, independent: bool) -> Prepared:
    """The usable rows (the law's x computed, value and censored set), the dropped ones by reason, the design.
    UserError for a file with no usable row or a single x level."""
    import numpy as np

    from iclscale.analysis.derived import add_derived

    censored = table["censored"].astype(str).str.lower().isin(("true", "1", "1.0")) if "censored" in table else False
    rows = table.assign(value=table[y_column].astype(float), censored=censored, left_censored=False)
    rows = law.kind.prepare(law, rows)
    if law.x and law.x not in rows:
        rows = add_derived(rows, law.study)
    x_name = law.x or x_column
    x_values = rows[x_name].astype(float).to_numpy()
    log_x, log_y = _log_axes(law.kind)
    taken, dropped = _dropped_rows(rows, x_values, x_name, y_column, (log_x, log_y))
    # the design (which seed was measured at which x) is read off every row with an x, a y lost is no design change
    measured_at = rows[np.isfinite(x_values) & ((x_values > 0) if log_x else True)]
    rows = rows[~taken]
    _check_levels(path, rows, x_name, dropped)
    paired, design, rows = _design(rows, measured_at, x_name, independent)
    strata = "" if paired else rows[x_name].astype(str)
    rows = rows.assign(stratum=strata)
    return Prepared(path, rows.reset_index(drop=True), len(table), dropped, paired, design)


def _dropped_rows(rows, x_values, x_name: str, y_column: str, log_axes: tuple[bool, bool]):
    """(which rows are dropped, Dropped: the row numbers, from 1, under the first reason each fails); `log_axes`:
    whether x and y are fitted on a log scale (a value ≤ 0 is then dropped)."""
    import numpy as np

    log_x, log_y = log_axes
    y_values = rows["value"].to_numpy()
    tests = [
        (f"{x_name} missing or not finite", ~np.isfinite(x_values)),
        (f"{y_column} missing or not finite", ~np.isfinite(y_values)),
    ]
    if log_x:
        tests.append((f"{x_name} ≤ 0 (its log is taken)", np.isfinite(x_values) & (x_values <= 0)))
    if log_y:
        tests.append((f"{y_column} ≤ 0 (its log is taken)", np.isfinite(y_values) & (y_values <= 0)))
    if "seed" in rows:
        tests.append(("seed missing", rows["seed"].isna().to_numpy()))
    taken = np.zeros(len(rows), bool)
    reasons = {}
    for reason, bad in tests:  # each row counted once, under its first reason
        mine = bad & ~taken
        if mine.any():
            reasons[reason] = [int(i) + 1 for i in np.flatnonzero(mine)]
        taken |= mine
    return taken, Dropped(reasons)


def _check_levels(path: str, rows, x_name: str, dropped: Dropped) -> None:
    """The usable rows: some, at two or more x levels, under the caps on x levels and seeds."""
    import numpy as np

    if not len(rows):
        raise UserError(f"{path}: no usable rows: {dropped.describe()}")
    levels = np.unique(np.round(rows[x_name].astype(float).to_numpy(), 12))
    _too_many(path, len(levels), f"distinct {x_name} values", MAX_LEVELS)
    if "seed" in rows:
        _too_many(path, rows["seed"].nunique(), "seeds", MAX_SEEDS)
    if len(levels) < 2:
        after = f" ({dropped.describe()})" if dropped.count else ""
        raise UserError(
            f"{path}: one {x_name} level ({levels[0]:g}) among its usable rows{after}: a law over {x_name} needs "
            "the measure at two or more (four to be judged)"
        )


def _design(rows, measured_at, x_name: str, independent: bool):
    """(paired, the design in words, the rows, each given a seed of its own where the file has none): paired where
    every seed (two or more) was measured at every x of the design and --independent is not given."""
    import numpy as np

    if "seed" not in rows:
        design = "no seed column: each row taken as its own trained model, the OLS t-interval"
        return False, design, rows.assign(seed=np.arange(len(rows)))
    design_levels = measured_at[x_name].astype(float).round(12).nunique()
    every_x = measured_at.groupby("seed")[x_name].nunique() == design_levels
    paired = bool(every_x.all()) and len(every_x) >= 2 and not independent
    if paired:
        design = (
            f"each of the {len(every_x)} seeds measured at every {x_name}: the per-seed interval, valid whether "
            "or not a seed's rows share one trained model (--independent: each row its own model, the OLS "
            "interval)"
        )
    elif independent:
        design = "--independent: each row taken as its own trained model, the OLS t-interval"
    elif len(every_x) < 2:
        design = "one seed: the OLS t-interval over its rows"
    else:
        design = f"seeds not all measured at every {x_name}: each row taken as its own model, the OLS t-interval"
    return paired, design, rows


def _judge(prepared: Prepared, law, x_column: str, y_column: str) -> FileVerdict:
    import pandas as pd

    from iclscale.analysis.derived import add_derived
    from iclscale.analysis.evaluate import alternatives, decide
    from iclscale.analysis.law import MEASURED
    from iclscale.analysis.lawfit import Estimate, LawFit
    from iclscale.analysis.select import Group

    path, rows, notes = prepared.path, prepared.rows, []
    constant = {c: _plain(rows[c].iloc[0]) for c in rows if c not in ("seed", y_column) and rows[c].nunique() == 1}
    inside = pd.Series(True, index=rows.index)
    if law.regime is not None:  # its conditions on the params: the legacy predicate, explicit and hidden-constant ones
        try:
            inside = pd.Series(law.regime.on_params(add_derived(rows, law.study)), index=rows.index)
        except KeyError as error:
            raise UserError(f"{path}: law {law.name}'s conditions read column {error}, which the file lacks") from None
    if law.regime is not None and law.regime.flags:
        notes.append(f"the law's condition flags {', '.join(law.regime.flags)} are not read from a table")
    if law.regime is not None and law.regime.of_kind(MEASURED):
        notes.append("the law's conditions measured on the run are not read from a table")
    group = Group({}, constant, rows[inside], rows[~inside], 0, paired=prepared.paired)
    if hasattr(law.kind, "threshold_factors"):  # refitting at other thresholds needs a sweep's records
        law = replace(law, kind=replace(law.kind, threshold_factors=()))
    try:
        prediction = law.kind.predict(law, group)
    except KeyError as error:
        raise UserError(f"{path}: law {law.name} predicts from param {error}: give it as a constant column") from None
    estimate = law.kind.estimate(law, group, prediction, None, {})
    verdict = decide(law, group, prediction, estimate)
    fit = LawFit(
        **{f: getattr(estimate, f) for f in Estimate.__dataclass_fields__},
        law=law,
        group={},
        prediction=prediction,
        verdict=verdict,
        alternatives=alternatives(law, group, prediction, estimate),
        n_excluded=int((~inside).sum()),
        n_outside=int((~inside).sum()),
        x_title=x_column,
    )
    return FileVerdict(path, fit, notes, prepared.n_rows, prepared.dropped, prepared.design)


def _plain(value):
    return value.item() if hasattr(value, "item") else value

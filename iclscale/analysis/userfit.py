"""`iclscale fit`: the verdict machinery for anyone's measurements.

A table (CSV or Parquet) holds one row per measurement: an x column, a y column, a `seed` column (the
trained model the measurement comes from) and optionally `censored` (true where y is only a lower bound: a
threshold never reached). Each file is judged on its own, by the same skeleton as a sweep's laws
(iclscale.analysis.evaluate: regime → estimate → evidence → band → form), against either

- a catalogue law (`iclscale fit LAW FILE...`): x is the law's x (or the param its x is computed from), y
  the column `value` unless --y names another; params the law's prediction reads (d, M1, …) come from
  columns that are constant in the file; or
- an ad hoc power law y ∝ x^P (`--x COL --y COL --exponent P [--tolerance T]`): the exponent judged against
  P ± T (T: iclscale.analysis.verdict's default for exponents unless given).

Every point is taken as its own trained model at its x (a train-role x), so the intervals are the OLS
t-intervals of iclscale.analysis.fits. A law's regime flags (conditions on metrics a sweep records) cannot be read
from a plain table and are not applied; the line says so where a law has them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from iclscale.errors import UserError

SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


@dataclass
class FileVerdict:
    path: str
    fit: Any  # iclscale.analysis.lawfit.LawFit
    notes: list[str]

    def line(self) -> str:
        fit = self.fit
        theory = fit.prediction.primary.band.describe(tolerance=fit.tolerance) if fit.prediction else "—"
        estimate = f"{fit.statistic} {fit.estimate:.3g} [{fit.ci_low:.3g}, {fit.ci_high:.3g}]"
        notes = "".join(f" ({note})" for note in self.notes)
        return f"{self.path}: {estimate} vs {theory}: {fit.verdict.verdict} — {fit.verdict.reason}{notes}"

    def record(self) -> dict[str, Any]:
        """fits.csv's keys (iclscale.analysis.lawfit.LawFit.row), with the file and NaN as None (JSON has no NaN)."""
        row = {"file": self.path, **self.fit.row(), "notes": "; ".join(self.notes)}
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}


def read_table(path: str):
    """The file as a DataFrame; UserError for a missing, unreadable, empty or unknown-format file."""
    import pandas as pd

    file = Path(path)
    kind = SUFFIXES.get(file.suffix.lower())
    if kind is None:
        raise UserError(f"{path}: expected a .csv or .parquet file")
    if not file.is_file():
        raise UserError(f"{path}: no such file")
    try:
        table = pd.read_csv(file) if kind == "csv" else pd.read_parquet(file)
    except Exception as error:  # pandas raises many types for a malformed file; any of them is the user's file
        raise UserError(f"{path}: cannot read it as {kind}: {type(error).__name__}: {error}") from None
    if not len(table):
        raise UserError(f"{path}: no rows")
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


def fit_files(paths: list[str], law=None, x: str | None = None, y: str | None = None) -> list[FileVerdict]:
    """Judge each file on its own. `law` a Law (catalogue or ad hoc); `x`/`y` override its columns. Every file
    is read and checked before any is judged, so a bad one stops the command before it prints anything."""
    tables = [(path, read_table(path)) for path in paths]
    x_column = x or _x_column(law)
    y_column = y or "value"
    from iclscale.analysis.derived import add_derived

    for path, table in tables:
        have = set(table) | set(add_derived(table.head(1), law.study))  # a derived x from its params
        missing = [c for c in (x_column, y_column, "seed") if c not in have]
        if missing:
            raise UserError(f"{path}: no column {', '.join(map(repr, missing))}; it has {', '.join(map(str, table))}")
        for column in (x_column, y_column):
            if column in table and not _numeric(table[column]):
                raise UserError(f"{path}: column {column!r} is not numeric")
        if "censored" in table and not _boolean(table["censored"]):
            raise UserError(f"{path}: column 'censored' must hold true/false (or 1/0)")
    return [_judge(path, table, law, x_column, y_column) for path, table in tables]


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


def _judge(path: str, table, law, x_column: str, y_column: str) -> FileVerdict:
    import pandas as pd

    from iclscale.analysis.derived import add_derived
    from iclscale.analysis.evaluate import alternatives, decide
    from iclscale.analysis.law import MEASURED
    from iclscale.analysis.lawfit import Estimate, LawFit
    from iclscale.analysis.select import Group

    notes = []
    censored = table["censored"].astype(str).str.lower().isin(("true", "1", "1.0")) if "censored" in table else False
    rows = table.assign(value=table[y_column].astype(float), censored=censored, left_censored=False)
    rows = law.kind.prepare(law, rows)
    if law.x and law.x not in rows:
        rows = add_derived(rows, law.study)
    rows = rows.assign(stratum=rows[law.x].astype(str) if law.x else "")
    constant = {c: _plain(rows[c].iloc[0]) for c in table if c not in ("seed", y_column) and rows[c].nunique() == 1}
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
    group = Group({}, constant, rows[inside], rows[~inside], 0, paired=False)
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
    return FileVerdict(path, fit, notes)


def _plain(value):
    return value.item() if hasattr(value, "item") else value

"""A results directory as pandas DataFrames, with the variables that laws are stated in.

Reads through `iclscale.sweeps.store_read.read_store` (which raises `iclscale.errors.UserError` for a missing
directory or one without runs) and adds the study's derived variables (iclscale.analysis.derived) as columns of `runs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from iclscale.analysis.derived import add_derived, derived_variables
from iclscale.sweeps.store import KEY_COLUMNS as ID_COLUMNS
from iclscale.sweeps.store import PROVENANCE_COLUMNS, STATUS_COLUMNS


@dataclass
class Results:
    """One results directory: the frozen sweep, runs (with derived columns) and curves."""

    directory: str
    sweep: dict[str, Any]
    runs: Any  # pandas.DataFrame, one row per (config, eval point)
    curves: Any  # pandas.DataFrame, long: run_id, step, metric, value, eval_key, eval params
    thresholds: Any = None
    """pandas.DataFrame of DIR/thresholds.csv, one row per search of a threshold search (iclscale.sweeps.threshold),
    or None."""

    @property
    def study(self) -> str:
        if self.sweep.get("study"):
            return self.sweep["study"]
        return str(self.runs["study"].iloc[0])

    @property
    def name(self) -> str:
        return self.sweep.get("name") or str(self.runs["sweep"].iloc[0])

    def params(self, *roles: str) -> list[str]:
        """Param columns of the given roles (all roles when none given), as the frozen sweep lists them."""
        declared = self.sweep.get("params") or {}
        if not declared:  # an old store without the params block: every column that is not a metric
            return [c for c in self.runs.columns if c in self._non_metric_columns() and c not in _RESERVED]
        return [n for n, spec in declared.items() if (not roles or spec.get("role") in roles) and n in self.runs]

    def title(self, variable: str) -> str:
        """A chart axis title: the param's symbol and meaning where the frozen sweep's params block gives
        them (keys `symbol`, `meaning`), a derived variable's definition, else the column name."""
        derived = derived_variables(self._study_or_none()).get(variable)
        if derived is not None:
            return derived.meaning
        spec = (self.sweep.get("params") or {}).get(variable) or {}
        name, meaning = spec.get("symbol"), short_meaning(spec.get("meaning") or "")
        head = f"{name} ({variable})" if name and name != variable else variable
        return f"{head}: {meaning}" if meaning else head

    def grid_axes(self) -> list[str]:
        """Params that take more than one value in the sweep: grid axes, case keys, eval axes."""
        return [p for p in self.params() if self.runs[p].nunique(dropna=False) > 1]

    def metrics(self) -> list[str]:
        """Numeric final-metric columns of runs (neither params, ids, status, provenance nor derived)."""
        skip = set(self.params()) | set(_RESERVED) | set(derived_variables(self._study_or_none()))
        return [c for c in self.runs.columns if c not in skip and _numeric(self.runs[c])]

    def _study_or_none(self) -> str | None:
        return self.study if self.sweep.get("study") or ("study" in self.runs and len(self.runs)) else None

    def _non_metric_columns(self) -> set[str]:
        metrics = set(self.curves["metric"].unique()) if len(self.curves) else set()
        return {c for c in self.runs.columns if c not in metrics}


_RESERVED = (*ID_COLUMNS, *STATUS_COLUMNS, *PROVENANCE_COLUMNS)
TITLE_LENGTH = 60


def short_meaning(meaning: str) -> str:
    """A param's meaning without its citation (the part from " (" on), at most TITLE_LENGTH characters."""
    text = meaning.split(" ([")[0].split(" (")[0].strip()
    return text if len(text) <= TITLE_LENGTH else text[: TITLE_LENGTH - 1].rstrip() + "…"


def _numeric(column) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def load_results(directory: str) -> Results:
    """Read a results directory (UserError when it does not exist or holds no runs)."""
    from iclscale.sweeps.store_read import read_store

    data = read_store(directory)
    runs = add_derived(data.runs, (data.sweep or {}).get("study"))
    return Results(str(directory), data.sweep or {}, runs, data.curves, read_thresholds(directory))


def read_thresholds(directory: str):
    """DIR/thresholds.csv as a DataFrame (a threshold search's answers), or None when there is none."""
    import io

    import pandas as pd

    from iclscale.sweeps.store import Location

    location = Location(directory)
    if not location.exists("thresholds.csv"):
        return None
    return pd.read_csv(io.StringIO(location.read_text("thresholds.csv")), keep_default_na=False, na_values=[""])


def curves_with_params(results: Results, metric: str | None = None):
    """Curves joined with their config's params (one set per run_id), for grouping and faceting."""
    curves = results.curves if metric is None else results.curves[results.curves["metric"] == metric]
    config_params = [p for p in results.params("shape", "train") if p not in curves.columns]
    configs = results.runs.drop_duplicates("run_id")[["run_id", "seed", "status", *config_params]]
    return curves.merge(configs, on="run_id", how="inner")

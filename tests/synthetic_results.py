"""Results built from planted rows (no training), shared by the law tests that read them as a sweep would."""

import pandas as pd

from iclscale.analysis.reader import Results, add_derived

EMPTY_CURVES = pd.DataFrame({c: [] for c in ("run_id", "sweep", "step", "metric", "value", "eval_key")})


def results_of(study: str, rows: list[dict], curves: pd.DataFrame = EMPTY_CURVES, eval_params=()) -> Results:
    runs = add_derived(pd.DataFrame(rows))
    skip = {"run_id", "sweep", "study", "seed", "eval_key", "status", "error", "diverged_step", "Lambda"}
    params = {c: {"role": "eval" if c in eval_params else "train"} for c in runs.columns if c not in skip}
    params = {c: spec for c, spec in params.items() if not c.startswith(("w_star", "regime", "test_mse", "M_"))}
    return Results("synthetic", {"name": "synthetic", "study": study, "laws": [], "params": params}, runs, curves)

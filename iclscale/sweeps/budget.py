"""The budget rule, once: what `iclscale reproduce --budget quick` overrides in a catalogue sweep, and, read back
from a results directory's frozen sweep, whether its runs are the catalogue's as written ("full"), fewer seeds,
search trials, steps or test prompts than the file gives ("quick"), or something else ("custom").

Quick previews a paper in minutes: at most QUICK_SEEDS seeds (the file's first three: the fewest with which the
analysis still resamples seeds for its intervals, so quick intervals are of the same kind as full ones), at most
QUICK_TRIALS Optuna trials per search, a QUICK_STEPS_DIVISOR-th of each config's training steps (rounded up), and
at most QUICK_EVAL_PROMPTS test prompts per eval point where a file states more, through the sweeps' own overrides
(`seeds=3`, `search.trials=4`, `steps=...` or `cases=[...]`, `eval_prompts=256`: once training is a quarter as
long, LM25's and LW23's time is mostly their test sets, 1024–2048 prompts at each of up to 77 eval points); a sweep
file whose cost lies elsewhere adds its own (its `quick:` block, iclscale.sweeps.spec.Sweep.quick: `{mc_tasks: 256,
w_points: 31}` for C24's oracle, which trains nothing; `{n_test: 600, record: {log: 150}}` for Y24's Figure 1, whose
300 records of 3000 test sequences outweigh its quarter of training). A threshold search keeps its steps and its
test set, which are part of what it measures (the smallest batch that reaches a level *within* that budget); a
search that tunes the steps keeps them too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from iclscale.sweeps.spec import Sweep

QUICK, FULL, CUSTOM = "quick", "full", "custom"
BUDGETS = (QUICK, FULL)  # what `iclscale reproduce --budget` takes; custom is only ever read back
QUICK_SEEDS = 3  # the analysis resamples seeds only with 3 per x (iclscale.analysis.fits): fewer, other intervals
QUICK_TRIALS = 4
QUICK_STEPS_DIVISOR = 4  # with 3 seeds, what brings each paper's sweeps to minutes on 2 cores (docs/commands.md)
QUICK_EVAL_PROMPTS = 256  # test prompts per eval point: where LM25's and LW23's time goes once training is short
NEUTRAL_KEYS = {"pack_size", "cpu", "gpu", "resources.pack_size", "resources.cpu", "resources.gpu"}  # same results
QUICK_KEYS = ("seeds", "search.trials", "steps", "fixed.steps", "cases", "eval_prompts")  # what quick overrides


# Writing it: the overrides of --budget quick -------------------------------------------------------------
def quick_overrides(sweep: Sweep) -> list[str]:
    """The overrides of `--budget quick` for a catalogue sweep: at most QUICK_SEEDS seeds, QUICK_TRIALS search
    trials, the file's own `quick:` overrides, at most QUICK_EVAL_PROMPTS test prompts per eval point, and a
    QUICK_STEPS_DIVISOR-th of the steps (neither for a threshold search; no steps for a search over steps or a file
    whose `quick:` sets them). JSON is YAML's flow form: how a value is written into an override."""
    overrides = [*quick_seeds(sweep.seeds)]
    trials = (sweep.search or {}).get("trials")
    if trials and trials > QUICK_TRIALS:
        overrides.append(f"search.trials={QUICK_TRIALS}")
    overrides += [f"{key}={json.dumps(value)}" for key, value in sweep.quick.items()]
    if sweep.threshold is not None:
        return overrides
    prompts = stated_prompts(sweep.eval)
    if prompts and prompts > QUICK_EVAL_PROMPTS and "eval_prompts" not in sweep.quick:
        overrides.append(f"eval_prompts={QUICK_EVAL_PROMPTS}")
    if "steps" in ((sweep.search or {}).get("params") or {}) or "steps" in sweep.quick:
        return overrides
    return overrides + quick_steps_overrides(sweep.fixed, sweep.cases)


def quick_seeds(seeds: list[int]) -> list[str]:
    """At most QUICK_SEEDS seeds: a count where the file's seeds are 0, 1, … (as a count gives them), else its
    first ones."""
    if len(seeds) <= QUICK_SEEDS:
        return []
    if seeds == list(range(len(seeds))):
        return [f"seeds={QUICK_SEEDS}"]
    return [f"seeds=[{', '.join(map(str, seeds[:QUICK_SEEDS]))}]"]


def quick_steps_overrides(fixed: Mapping[str, Any], cases: list[dict[str, Any]]) -> list[str]:
    """A QUICK_STEPS_DIVISOR-th of the fixed steps and of each case's."""
    overrides = []
    if isinstance(fixed.get("steps"), int) and fixed["steps"] > 1:
        overrides.append(f"steps={quick_steps(fixed['steps'])}")
    if any(isinstance(c.get("steps"), int) and c["steps"] > 1 for c in cases):
        shortened = [{**c, "steps": quick_steps(c["steps"])} if "steps" in c else c for c in cases]
        overrides.append(f"cases={json.dumps(shortened)}")
    return overrides


def quick_steps(steps: int) -> int:
    return -(-steps // QUICK_STEPS_DIVISOR)


# Reading it back: a frozen sweep against its catalogue file ----------------------------------------------
def budget_of(frozen: Mapping[str, Any], file: Sweep | None) -> str:
    """full: the catalogue's sweep file as written; quick: fewer seeds, search trials, steps or test prompts than it
    gives, or its own `quick:` overrides (and nothing else changed); custom: not a catalogue sweep (`file` None: the
    caller finds it by the frozen sweep's name, iclscale.catalogue.sweep_named), or other overrides."""
    if file is None:
        return CUSTOM
    keys = {o.split("=")[0].strip() for o in frozen.get("overrides") or []} - NEUTRAL_KEYS
    if keys - {*QUICK_KEYS, *file.quick}:
        return CUSTOM
    resolved = file.resolved()
    pairs = zip(steps_of(frozen), steps_of(resolved), strict=False)
    steps = [(a, b) for a, b in pairs if a is not None and b is not None]
    if cases_but_steps(frozen) != cases_but_steps(resolved) or any(a > b for a, b in steps):
        return CUSTOM  # other cases, or longer training: not the catalogue's design
    fewer_prompts = "eval_prompts" in keys and "eval_prompts" not in file.quick
    if fewer_prompts and not _fewer(stated_prompts(frozen.get("eval")), stated_prompts(file.eval)):
        return CUSTOM  # fewer prompts than the file states is quick; as many or more, or where it states none, is not
    trials = (frozen.get("search") or {}).get("trials")
    fewer_trials = _fewer(trials, (file.search or {}).get("trials"))
    shortened = any(a < b for a, b in steps) or bool(keys & set(file.quick)) or fewer_prompts or fewer_trials
    return QUICK if shortened or seed_count(frozen.get("seeds", 1)) < len(file.seeds) else FULL


def _fewer(value: int | None, than: int | None) -> bool:
    return bool(value and than and value < than)


def steps_of(sweep: Mapping[str, Any]) -> list:
    """The steps a sweep mapping (a resolved sweep or its frozen copy) trains: its fixed steps and each case's."""
    fixed = sweep.get("fixed") if isinstance(sweep.get("fixed"), dict) else {}
    cases = sweep.get("cases") if isinstance(sweep.get("cases"), list) else []
    return [fixed.get("steps"), *(c.get("steps") for c in cases if isinstance(c, dict))]


def stated_prompts(eval_grid: Any) -> int | None:
    """The test prompts per eval point an eval grid states: one count (`eval_prompts: N`, resolved [N]), not a grid
    of them."""
    value = (eval_grid if isinstance(eval_grid, dict) else {}).get("eval_prompts")
    value = value[0] if isinstance(value, list) and len(value) == 1 else value
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cases_but_steps(sweep: Mapping[str, Any]) -> str:
    cases = sweep.get("cases") if isinstance(sweep.get("cases"), list) else []
    return json.dumps([{k: v for k, v in c.items() if k != "steps"} if isinstance(c, dict) else c for c in cases])


def seed_count(value: Any) -> int:
    return len(value) if isinstance(value, list) else int(value or 1)

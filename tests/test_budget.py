"""The budget rule (iclscale.sweeps.budget): what `--budget quick` overrides in a sweep, and, read back from a frozen
sweep, whether its runs are the catalogue's as written (full), shortened by the rule (quick) or other (custom)."""

from pathlib import Path

import pytest
from test_reproduce import tiny_sweep

from iclscale import reproduce
from iclscale.cli import main
from iclscale.sweeps.budget import (
    CUSTOM,
    FULL,
    QUICK,
    QUICK_EVAL_PROMPTS,
    QUICK_SEEDS,
    budget_of,
    quick_overrides,
)


def as_sweep(raw: dict):
    """The parts of a parsed sweep (iclscale.sweeps.spec.Sweep) the quick rule reads, from a sweep file's mapping
    (a count of seeds gives 0, 1, …; an eval value is listed), without a study to check them against."""
    from types import SimpleNamespace

    seeds = raw.get("seeds", 1)
    return SimpleNamespace(
        seeds=list(range(seeds)) if isinstance(seeds, int) else list(seeds),
        search=raw.get("search"),
        threshold=raw.get("threshold"),
        quick=dict(raw.get("quick") or {}),
        fixed=dict(raw.get("fixed") or {}),
        cases=list(raw.get("cases") or []),
        eval={k: v if isinstance(v, list) else [v] for k, v in (raw.get("eval") or {}).items()},
    )


def quick_of(raw: dict) -> list[str]:
    return quick_overrides(as_sweep(raw))


def test_the_quick_rule_shrinks_seeds_trials_and_steps():
    assert QUICK_SEEDS == 3  # the fewest seeds per x that the fits resample
    assert quick_of({"seeds": 5, "fixed": {"steps": 350}}) == ["seeds=3", "steps=88"]
    searched = {"seeds": [3, 7, 9, 11], "search": {"trials": 12, "params": {"lr": {"low": 0.1, "high": 1}}}}
    assert quick_of(searched) == ["seeds=[3, 7, 9]", "search.trials=4"]
    assert quick_of({"seeds": 3, "search": {"trials": 3}, "fixed": {"steps": 0}}) == []
    cases = {"cases": [{"lr": 0.1, "steps": 1000}, {"lr": 0.3}]}
    assert quick_of(cases) == ['cases=[{"lr": 0.1, "steps": 250}, {"lr": 0.3}]']
    # a threshold search's steps are part of what it measures; a search over steps tunes them itself
    assert quick_of({"seeds": 4, "fixed": {"steps": 96}, "threshold": {"axis": "batch_size"}}) == ["seeds=3"]
    tuned = {"fixed": {"steps": 500}, "search": {"trials": 10, "params": {"steps": {"choices": [500, 1000]}}}}
    assert quick_of(tuned) == ["search.trials=4"]
    # a file's own `quick:` overrides, where its cost lies elsewhere; one that sets the steps replaces the rule's
    assert quick_of({"fixed": {"steps": 500}, "quick": {"eval_prompts": 256}}) == [
        "eval_prompts=256",
        "steps=125",
    ]
    assert quick_of({"fixed": {"steps": 500}, "quick": {"steps": 100}}) == ["steps=100"]
    # at most QUICK_EVAL_PROMPTS test prompts where the file states more; a threshold search keeps its test set
    assert QUICK_EVAL_PROMPTS == 256
    assert quick_of({"fixed": {"steps": 8}, "eval": {"eval_prompts": 2048}}) == ["eval_prompts=256", "steps=2"]
    assert quick_of({"eval": {"eval_prompts": 256, "alpha": [0.1, 0.2]}}) == []
    assert quick_of({"seeds": 9, "threshold": {"axis": "B"}, "eval": {"eval_prompts": 2048}}) == ["seeds=3"]
    assert quick_of({"eval": {"eval_prompts": 2048}, "quick": {"eval_prompts": 512}}) == ["eval_prompts=512"]


def test_a_bad_quick_mapping_in_a_sweep_file_is_one_clear_line(tmp_path, capsys):
    path = Path(tiny_sweep(tmp_path, "tiny_bad", [0.5]))
    path.write_text(path.read_text(encoding="utf-8") + "quick: [eval_prompts]\n", encoding="utf-8")
    assert main(["sweep", "plan", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "quick: expected a mapping of overrides" in err


def test_every_catalogue_sweep_loads_at_the_quick_budget_and_is_marked_quick(tmp_path):
    from iclscale.analysis.ledger_reports import budget_of
    from iclscale.catalogue import sweeps

    for file in sweeps():
        path = file.path
        full, quick = (reproduce.plan_sweeps([str(path)], budget, tmp_path)[0] for budget in ("full", "quick"))
        assert quick.total <= full.total, file.name
        assert budget_of(full.sweep.resolved()) == FULL, file.name
        expected = QUICK if quick.sweep.resolved()["overrides"] else FULL  # a sweep quick leaves as it is: full
        assert budget_of(quick.sweep.resolved()) == expected, file.name


@pytest.fixture(scope="module")
def catalogue_file():
    """A catalogue sweep that states its test prompts and trains (steps), and its resolved mapping."""
    from iclscale.catalogue import sweeps

    file = next(s for s in sweeps() if s.eval.get("eval_prompts") == [1024] and s.fixed.get("steps") and
                len(s.seeds) > QUICK_SEEDS and s.threshold is None and not s.quick)  # fmt: skip
    return file, file.resolved()


def frozen_of(resolved: dict, overrides: list[str], **changed) -> dict:
    return {**resolved, **changed, "overrides": overrides}


def test_the_rule_read_back_tells_full_quick_and_custom(catalogue_file):
    file, resolved = catalogue_file
    steps = resolved["fixed"]["steps"]
    assert budget_of(frozen_of(resolved, []), file) == FULL
    assert budget_of(frozen_of(resolved, ["pack_size=4", "resources.cpu=2"]), file) == FULL  # same results
    assert budget_of(frozen_of(resolved, ["seeds=2"], seeds=[0, 1]), file) == QUICK
    shorter = {**resolved["fixed"], "steps": steps // 4}
    assert budget_of(frozen_of(resolved, [f"steps={steps // 4}"], fixed=shorter), file) == QUICK
    longer = {**resolved["fixed"], "steps": steps * 2}
    assert budget_of(frozen_of(resolved, [f"steps={steps * 2}"], fixed=longer), file) == CUSTOM  # not the design
    assert budget_of(frozen_of(resolved, ["eval_prompts=256"], eval={**resolved["eval"], "eval_prompts": [256]}),
                     file) == QUICK  # fmt: skip
    assert budget_of(frozen_of(resolved, ["eval_prompts=4096"], eval={**resolved["eval"], "eval_prompts": [4096]}),
                     file) == CUSTOM  # fmt: skip
    assert budget_of(frozen_of(resolved, ["lr=0.5"]), file) == CUSTOM  # another override
    assert budget_of(frozen_of(resolved, []), None) == CUSTOM  # no catalogue file of its name

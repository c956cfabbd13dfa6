"""Planning: a sweep's configs grouped into packs, minus whatever the store already holds."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from iclscale.sweeps.spec import Sweep
from iclscale.sweeps.store import FAILED, eval_key
from iclscale.trainer.params import Config, EvalPoint


@dataclass
class PackPlan:
    """One unit of work (a Ray Tune trial): configs with equal shape params, trained together."""

    pack_id: str
    configs: list[Config]
    eval_points: list[EvalPoint]
    missing: set[tuple[str, str]] = field(default_factory=set)
    """(run_id, eval_key) rows to write; a config already stored at some eval points writes only the rest."""
    fresh: set[str] = field(default_factory=set)
    """run_ids with nothing stored yet: their eval-independent curves are written too."""
    retry: bool = False
    """Some of its rows are stored as failed (`--retry-failed`): trained even where its fragment is committed."""

    @property
    def steps(self) -> int:
        return int(self.configs[0].as_dict().get("steps", 0))


@dataclass
class Plan:
    sweep: Sweep
    configs: list[Config]
    eval_points: list[EvalPoint]
    packs: list[PackPlan]
    stored: dict[str, int]
    """Configs already stored, by status: a config counts as stored once all its eval points are (`failed`: a
    config with a failed row, kept unless `--retry-failed`; `retried`: those of them planned again)."""

    @property
    def model_steps(self) -> int:
        """Config-steps still to train (a pack of P configs for T steps is P·T)."""
        return sum(len(p.configs) * p.steps for p in self.packs)

    @property
    def total_model_steps(self) -> int:
        return sum(int(c.as_dict().get("steps", 0)) for c in self.configs)


def make_plan(sweep: Sweep, stored: dict[tuple[str, str], str], slots: int = 1, retry_failed: bool = False) -> Plan:
    """The packs still to train. With pack_size auto, one pack per shape group, the largest split in halves
    until there are at least `slots` packs (one per worker that can run at once). A stored failure (a trial
    that failed after its retries, an eval point that cannot be computed) is a result like any other: it is
    trained again only with `retry_failed` (`sweep run --retry-failed`), not by every run."""
    return plan_configs(sweep, sweep.configs(), sweep.eval_points(), stored, slots, retry_failed)


def plan_configs(
    sweep: Sweep,
    configs: list[Config],
    points: list[EvalPoint],
    stored: dict[tuple[str, str], str],
    slots: int = 1,
    retry_failed: bool = False,
) -> Plan:
    """`make_plan` for any list of the sweep's configs (a threshold search plans each round's proposals)."""
    keys = [eval_key(p) for p in points]
    shape_names = sweep.study.names("shape")
    groups: dict[tuple, list[Config]] = defaultdict(list)
    counts = {"ok": 0, "diverged": 0, "failed": 0, "retried": 0}
    to_train = (None, FAILED) if retry_failed else (None,)
    missing_of: dict[str, set[tuple[str, str]]] = {}
    fresh: set[str] = set()
    for config in dict.fromkeys(configs):  # a config listed twice (e.g. overlapping cases) runs once
        statuses = [stored.get((config.run_id, k)) for k in keys]
        missing = {(config.run_id, k) for k, s in zip(keys, statuses, strict=True) if s in to_train}
        if all(s is None or s == FAILED for s in statuses):
            fresh.add(config.run_id)
        if FAILED in statuses:
            counts["failed"] += 1
        if not missing:
            if FAILED not in statuses:
                counts["diverged" if "diverged" in statuses else "ok"] += 1
            continue
        if retry_failed and FAILED in statuses:
            counts["retried"] += 1
        missing_of[config.run_id] = missing
        groups[config.shape_key(shape_names)].append(config)

    size = sweep.resources.pack_size
    if size == "auto":
        chunks = auto_packs(list(groups.values()), slots)
    else:
        chunks = [
            members[start : start + size] for members in groups.values() for start in range(0, len(members), size)
        ]
    packs = []
    for chunk in chunks:
        missing = set().union(*(missing_of[c.run_id] for c in chunk))
        fresh_here = {c.run_id for c in chunk} & fresh
        retry = any(stored.get(key) == FAILED for key in missing)
        packs.append(PackPlan(pack_id(sweep, chunk, keys, missing), chunk, points, missing, fresh_here, retry))
    return Plan(sweep, configs, points, packs, counts)


def auto_packs(groups: list[list[Config]], slots: int) -> list[list[Config]]:
    """Whole shape groups, the largest halved while there are fewer packs than slots (and it has 2+ configs)."""
    packs = [list(group) for group in groups]
    while len(packs) < slots:
        largest = max(range(len(packs)), key=lambda i: len(packs[i]), default=None)
        if largest is None or len(packs[largest]) < 2:
            break
        pack = packs.pop(largest)
        half = (len(pack) + 1) // 2
        packs[largest:largest] = [pack[:half], pack[half:]]
    return packs


def pack_id(sweep: Sweep, configs: list[Config], keys: list[str], missing: set[tuple[str, str]]) -> str:
    """A content hash of the pack and the rows it writes: the same work always gets the same id (and
    fragment name), and a retry of some of its rows (a failed eval point) gets another."""
    payload = json.dumps([sweep.study.name, sorted(c.run_id for c in configs), sorted(keys), sorted(missing)])
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def describe_plan(plan, out: str, earlier: dict | None = None) -> str:
    """The plan in five lines; with `earlier` (iclscale.sweeps.cost.earlier_runs), the time it is predicted to
    take beside its model-steps."""
    from iclscale.sweeps.cost import cost_text, predicted_seconds

    sweep = plan.sweep
    to_train = sum(len(p.configs) for p in plan.packs)
    cost = cost_text(predicted_seconds(sweep.name, sweep.study.name, plan.model_steps, to_train, earlier or {}))
    grid_points = len(plan.configs) // len(sweep.seeds)
    stored = plan.stored["ok"] + plan.stored["diverged"]
    to_run = sum(len(p.configs) for p in plan.packs)
    points = f"{len(plan.eval_points)} eval point" + ("" if len(plan.eval_points) == 1 else "s")
    sizes = Counter(len(p.configs) for p in plan.packs)
    size_text = ", ".join(f"{n}×{size}" for size, n in sorted(sizes.items(), reverse=True)) or "none"
    return "\n".join(
        [
            f"sweep {sweep.name} ({sweep.study.name}): {len(plan.configs)} configs = {grid_points} grid points × "
            f"{len(sweep.seeds)} seeds; {points} each",
            f"stored: {stored} configs ({plan.stored['ok']} ok, {plan.stored['diverged']} diverged); "
            f"to run: {to_run} configs{_failed_text(plan.stored)}",
            f"packs to run: {len(plan.packs)} (configs per pack: {size_text}; pack_size {sweep.resources.pack_size})",
            f"model-steps to train: {plan.model_steps:,} of {plan.total_model_steps:,}" + (f"; {cost}" if cost else ""),
            f"output: {out}",
        ]
    )


def _failed_text(counts: dict[str, int]) -> str:
    if counts["retried"]:
        return f" ({counts['retried']} retried after failing)"
    if counts["failed"]:
        return f"; failed: {counts['failed']} configs, kept (`sweep run --retry-failed` trains them again)"
    return ""

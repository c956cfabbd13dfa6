"""`iclscale sweep status`: a results directory's configs counted against its frozen sweep (ok, diverged, failed,
missing; a search's trials and a threshold search's progress), and its fragments verified."""

from __future__ import annotations

from collections import Counter
from typing import Any

from iclscale.errors import UserError


def status_counts(out: str) -> dict[str, Any]:
    """Per-config status against the frozen sweep: ok, diverged, failed, missing."""
    from iclscale.sweeps.spec import parse_frozen
    from iclscale.sweeps.store import FAILED, Location
    from iclscale.sweeps.store_fragments import check_folders
    from iclscale.sweeps.store_frozen import read_frozen_sweep
    from iclscale.sweeps.store_read import stored_keys

    location = Location(out)
    if not location.exists():
        raise UserError(f"results directory {out!r} does not exist")
    frozen = read_frozen_sweep(location)
    if frozen is None:
        raise UserError(f"{out!r} is not a results directory: it has no sweep.yaml")
    check_folders(location)
    sweep = parse_frozen(frozen, f"{out}/sweep.yaml")
    if sweep.search:
        from iclscale.sweeps.search_output import search_status

        return search_status(sweep, location)
    if sweep.threshold:
        from iclscale.sweeps.threshold import threshold_status

        return threshold_status(sweep, location)
    from iclscale.sweeps.store import eval_key

    keys = [eval_key(p) for p in sweep.eval_points()]
    stored = stored_keys(location)
    counts = Counter()
    for config in dict.fromkeys(sweep.configs()):
        statuses = [stored.get((config.run_id, k)) for k in keys]
        if any(s is None for s in statuses):
            counts["missing"] += 1
        elif FAILED in statuses:
            counts["failed"] += 1
        elif "diverged" in statuses:
            counts["diverged"] += 1
        else:
            counts["ok"] += 1
    return {
        "sweep": sweep.name,
        "configs": sum(counts.values()),
        **{s: counts[s] for s in ("ok", "diverged", "failed", "missing")},
    }


def format_counts(name: str, counts: dict[str, Any], out: str) -> str:
    if "progress" in counts:  # a threshold search: its searches' progress, not missing configs
        from iclscale.sweeps.threshold_table import progress_text

        return (
            f"{name}: {counts['configs']} configs stored: {counts['ok']} ok, {counts['diverged']} diverged, "
            f"{counts['failed']} failed; {progress_text(counts['progress'])}  ({out})\n{counts['search']}"
        )
    text = (
        f"{name}: {counts['configs']} configs: {counts['ok']} ok, {counts['diverged']} diverged, "
        f"{counts['failed']} failed, {counts['missing']} missing  ({out})"
    )
    return text + (f"\n{counts['search']}" if "search" in counts else "")


def verify_store(out: str) -> int:
    """Every fragment of a store checked (iclscale.sweeps.store_fragments.fragment_problem); 1 if any is damaged."""
    from iclscale.sweeps.store import Location
    from iclscale.sweeps.store_fragments import fragment_names, fragment_problem, unverified_fragments

    location = Location(out)
    names = fragment_names(location)
    damaged = [problem for name in names if (problem := fragment_problem(location, name, quiet=True))]
    for problem in damaged:
        print(f"damaged: {problem}")
    unverified = unverified_fragments(location)
    note = (
        f"; {len(unverified)} written before checksums (a store from before them: its sweep.yaml has no "
        "`checksums:` line; the next `sweep run` checks their run_ids and adds them)"
        if unverified
        else ""
    )
    print(f"verified {len(names)} fragments: {len(names) - len(damaged)} sound, {len(damaged)} damaged{note}")
    if damaged:
        print("`iclscale sweep run` on this sweep moves the damaged ones to quarantine/ and retrains their configs")
    return 1 if damaged else 0

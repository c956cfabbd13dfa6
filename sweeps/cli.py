"""`iclscale sweep plan|run|status`: plan a sweep file, run it (Ray Tune or inline), count results."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from typing import Any

from iclscale.errors import UserError


def add_commands(commands) -> None:
    sweep = commands.add_parser("sweep", help="plan, run and check sweeps")
    sub = sweep.add_subparsers(dest="sweep_command", required=True, metavar="SUBCOMMAND")

    plan = sub.add_parser("plan", help="expand a sweep file into configs and packs, without training")
    plan.add_argument("file")
    plan.add_argument("--out", metavar="DIR", help="results directory to compare with (default results/<name>)")
    plan.set_defaults(handler=cmd_plan)

    run = sub.add_parser("run", help="run a sweep; re-running resumes, training only what is not stored")
    run.add_argument("file")
    run.add_argument("--out", metavar="DIR", help="results directory or URI (default results/<name>)")
    run.add_argument(
        "--address",
        help="join a Ray cluster: auto, host:port or ray://host:port (default: start a local Ray instance on loopback)",
    )
    run.add_argument(
        "--executor",
        choices=("ray", "inline"),
        default="ray",
        help="ray (default) or inline (this process, for debugging)",
    )
    run.add_argument("--device", default="auto", help="auto (CUDA when a trial has a GPU), cpu or cuda")
    run.add_argument("--retries", type=int, default=2, help="retries of a failed trial before it is stored as failed")
    run.add_argument("--quiet", action="store_true", help="no progress output")
    run.set_defaults(handler=cmd_run)

    status = sub.add_parser("status", help="count ok / diverged / failed / missing configs of a results directory")
    status.add_argument("dir")
    status.set_defaults(handler=cmd_status)


def default_out(name: str) -> str:
    return os.path.join("results", name)


def _load(path: str):
    from sweeps.spec import load_sweep

    sweep = load_sweep(path)
    _check_laws(sweep)
    return sweep


def _check_laws(sweep) -> None:
    from analysis.laws import check_law_names

    check_law_names(sweep.laws, sweep.study.name, f"sweep file {sweep.path}: laws")


def cmd_plan(args: argparse.Namespace) -> None:
    from sweeps.plan import make_plan
    from sweeps.store import Location, stored_keys

    sweep = _load(args.file)
    location = Location(args.out or default_out(sweep.name))
    if sweep.search:
        from sweeps.search import describe_search, load_states

        print(describe_search(sweep, location.uri, load_states(sweep, location)))
        return
    plan = make_plan(sweep, stored_keys(location) if location.exists() else {})
    print(describe_plan(plan, location.uri))
    for i, pack in enumerate(plan.packs):
        shape = {n: pack.configs[0][n] for n in sweep.study.names("shape")}
        print(f"  pack {i:>3}  {pack.pack_id}  {len(pack.configs):>5} configs  {pack.steps:>7} steps  {shape}")


def describe_plan(plan, out: str) -> str:
    sweep = plan.sweep
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
            f"to run: {to_run} configs ({plan.stored['failed']} retried after failing)",
            f"packs to run: {len(plan.packs)} (configs per pack: {size_text}; pack_size {sweep.resources.pack_size})",
            f"model-steps to train: {plan.model_steps:,} of {plan.total_model_steps:,}",
            f"output: {out}",
        ]
    )


def cmd_run(args: argparse.Namespace) -> None:
    from sweeps.execute import SweepContext, run_inline
    from sweeps.plan import make_plan
    from sweeps.store import Location, read_frozen_sweep, stored_keys, write_frozen_sweep

    sweep = _load(args.file)
    if args.retries < 0:
        raise UserError(f"--retries must be 0 or more, got {args.retries}")
    if args.executor == "inline" and args.address:
        raise UserError("--address needs --executor ray")
    if args.executor == "inline":
        from iclscale.runtime import single_threaded_by_default

        single_threaded_by_default()
    out = args.out or default_out(sweep.name)
    location = Location(out)
    frozen = read_frozen_sweep(location) if location.exists() else None
    if frozen and frozen.get("study") != sweep.study.name:
        raise UserError(
            f"{out} holds results of study {frozen.get('study')!r}, not {sweep.study.name!r}; choose another --out"
        )
    if sweep.search:  # tune the searched params with Optuna instead of running a grid over them
        from sweeps.search import run_search

        run_search(sweep, location, args.executor, args.address, args.device, args.retries, args.quiet)
        print(format_counts(sweep.name, status_counts(location.uri), location.uri))
        return
    slots = 1
    if args.executor == "ray":  # Ray first: pack_size auto makes one pack per worker that can run at once
        from sweeps.ray_executor import start_ray, worker_slots

        start_ray(args.address, quiet=args.quiet)
        slots = worker_slots(sweep.resources)
    plan = make_plan(sweep, stored_keys(location) if location.exists() else {}, slots)
    if not args.quiet:
        print(describe_plan(plan, location.uri), flush=True)
    write_frozen_sweep(location, sweep.resolved())
    if not plan.packs:
        print(f"nothing to run: every config of {sweep.name} is stored in {location.uri}")
        return
    context = SweepContext(sweep.name, sweep.study.name, sweep.record, location.uri)
    if args.executor == "inline":
        run_inline(plan, context, args.device, show_progress=not args.quiet)
    else:
        from sweeps.ray_executor import run_on_ray

        if args.address and location.local and not args.quiet:
            print(
                f"note: every node of the cluster must see {location.uri} (a shared filesystem); "
                "otherwise write to object storage, e.g. --out s3://BUCKET/PREFIX"
            )

        totals = run_on_ray(plan, context, args.address, args.device, args.retries, verbose=0 if args.quiet else 1)
        if totals["nodes"] and not args.quiet:
            print(f"packs ran on nodes: {', '.join(totals['nodes'])}")
    counts = status_counts(location.uri)
    print(format_counts(sweep.name, counts, location.uri))


def status_counts(out: str) -> dict[str, Any]:
    """Per-config status against the frozen sweep: ok, diverged, failed, missing."""
    from sweeps.spec import parse_sweep
    from sweeps.store import FAILED, Location, read_frozen_sweep, stored_keys

    location = Location(out)
    if not location.exists():
        raise UserError(f"results directory {out!r} does not exist")
    frozen = read_frozen_sweep(location)
    if frozen is None:
        raise UserError(f"{out!r} is not a results directory: it has no sweep.yaml")
    frozen = {k: v for k, v in frozen.items() if k != "params"}
    sweep = parse_sweep(frozen, f"{out}/sweep.yaml")
    if sweep.search:
        from sweeps.search import search_status

        return search_status(sweep, location)
    from sweeps.store import eval_key

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
    text = (
        f"{name}: {counts['configs']} configs: {counts['ok']} ok, {counts['diverged']} diverged, "
        f"{counts['failed']} failed, {counts['missing']} missing  ({out})"
    )
    return text + (f"\n{counts['search']}" if "search" in counts else "")


def cmd_status(args: argparse.Namespace) -> None:
    counts = status_counts(args.dir)
    print(format_counts(counts["sweep"], counts, args.dir))

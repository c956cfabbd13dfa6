"""`iclscale sweep plan|run|status`: plan a sweep file, run it (Ray Tune or inline), count results; `iclscale stores
pack|unpack`: result stores as one archive."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from iclscale.errors import UserError

DASHBOARD_HELP = "serve Ray's dashboard (off otherwise) on loopback and print its address; needs ray[default]"


def add_commands(commands, check_laws: Callable[[Any], None] = lambda sweep: None) -> None:
    """The sweep commands; `check_laws(sweep)` refuses a sweep file's unknown laws (the law catalogue is the
    analysis side's, passed in by the composer, iclscale.cli)."""
    listing = commands.add_parser(
        "sweeps", help="list the catalogue's sweeps (every installed paper's), runnable by name"
    )
    listing.add_argument("--paper", help="only this paper's (its folder's or distribution's name)")
    listing.set_defaults(handler=cmd_sweeps)

    sweep = commands.add_parser("sweep", help="plan, run and check sweeps")
    sub = sweep.add_subparsers(dest="sweep_command", required=True, metavar="SUBCOMMAND")

    plan = sub.add_parser("plan", help="expand a sweep file into configs and packs, without training")
    _sweep_arguments(plan)
    plan.add_argument("--out", metavar="DIR", help="results directory to compare with (default results/<name>)")
    plan.set_defaults(handler=cmd_plan, check_laws=check_laws)

    run = sub.add_parser("run", help="run a sweep; re-running resumes, training only what is not stored")
    _sweep_arguments(run)
    run.add_argument("--out", metavar="DIR", help="results directory or URI (default results/<name>)")
    run.add_argument(
        "--address",
        help="join a Ray cluster: auto, host:port or ray://host:port (default: start a local Ray instance on loopback)",
    )
    run.add_argument(
        "--executor",
        choices=("ray", "inline"),
        default="ray",
        help="ray (default) or inline (this process, one pack after another: as fast or faster for a small sweep on "
        "one machine)",
    )
    run.add_argument("--device", default="auto", help="auto (CUDA when a trial has a GPU), cpu or cuda")
    run.add_argument("--retries", type=int, default=2, help="retries of a failed trial before it is stored as failed")
    run.add_argument("--quiet", action="store_true", help="print only the summary line")
    run.add_argument("--verbose", action="store_true", help="also show Ray Tune's trial tables and Ray's logs")
    run.add_argument("--dashboard", action="store_true", help=DASHBOARD_HELP)
    run.set_defaults(handler=cmd_run, check_laws=check_laws)

    status = sub.add_parser("status", help="count ok / diverged / failed / missing configs of a results directory")
    status.add_argument("dir")
    status.add_argument(
        "--verify",
        action="store_true",
        help="check every fragment against its checksum and name the damaged ones (exit 1 if any)",
    )
    status.set_defaults(handler=cmd_status)

    stores = commands.add_parser("stores", help="pack result stores into one archive and unpack it, reports left out")
    sub = stores.add_subparsers(dest="stores_command", required=True, metavar="SUBCOMMAND")
    pack = sub.add_parser("pack", help="pack every results directory of ROOT (but its report/) into one .tar.xz")
    pack.add_argument("root", metavar="ROOT", help="a results root (e.g. results/catalogue) or one results directory")
    pack.add_argument("--out", required=True, metavar="FILE", help="the archive to write (a new file outside ROOT)")
    pack.set_defaults(handler=cmd_stores_pack)
    unpack = sub.add_parser("unpack", help="restore an archive's result stores, checked against its manifest")
    unpack.add_argument("archive", metavar="FILE")
    unpack.add_argument("--out", required=True, metavar="ROOT", help="where to restore them (new, or the same stores)")
    unpack.set_defaults(handler=cmd_stores_unpack)


def _sweep_arguments(parser) -> None:
    from iclscale.sweeps.spec import Limits

    parser.add_argument("file")
    parser.add_argument(
        "overrides", nargs="*", metavar="KEY=VALUE", help="override the file: seeds=5 L=[0.1,1] fixed.d=3 pack_size=64"
    )
    parser.add_argument(
        "--max-configs", type=int, default=Limits.max_configs, metavar="N", help="refuse sweeps of more configs"
    )
    parser.add_argument(
        "--max-eval-points", type=int, default=Limits.max_eval_points, metavar="N", help="refuse larger eval grids"
    )
    parser.add_argument(
        "--max-records", type=int, default=Limits.max_records, metavar="N", help="refuse more records per run"
    )
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="train configs stored as failed again (by default a failure is kept as the sweep's result for them)",
    )


def default_out(name: str) -> str:
    return os.path.join("results", name)


def _load(args: argparse.Namespace):
    from iclscale.sweeps.spec import Limits, load_sweep

    caps = (
        ("--max-configs", args.max_configs),
        ("--max-eval-points", args.max_eval_points),
        ("--max-records", args.max_records),
    )
    for flag, value in caps:
        if value < 1:
            raise UserError(f"{flag} must be a positive integer, got {value}")
    sweep = load_sweep(args.file, args.overrides, Limits(args.max_configs, args.max_eval_points, args.max_records))
    args.check_laws(sweep)
    return sweep


def cmd_plan(args: argparse.Namespace) -> None:
    from iclscale.sweeps.plan import describe_plan, make_plan
    from iclscale.sweeps.run import check_before_work
    from iclscale.sweeps.store_directory import results_location
    from iclscale.sweeps.store_read import stored_keys

    sweep = _load(args)
    location = results_location(default_out(sweep.name) if args.out is None else args.out)
    check_before_work(sweep, location)  # what `run` refuses, plan refuses
    if sweep.search:
        from iclscale.sweeps.search_output import describe_search
        from iclscale.sweeps.search_trials import load_states

        print(describe_search(sweep, location.uri, load_states(sweep, location)))
        return
    if sweep.threshold:
        from iclscale.sweeps.threshold import describe_stored

        print(describe_stored(sweep, location))
        return
    plan = make_plan(sweep, stored_keys(location) if location.exists() else {}, retry_failed=args.retry_failed)
    from iclscale.sweeps.run import committed_runs

    print(describe_plan(plan, location.uri, committed_runs()))
    for i, pack in enumerate(plan.packs):
        shape = {n: pack.configs[0][n] for n in sweep.study.names("shape")}
        print(f"  pack {i:>3}  {pack.pack_id}  {len(pack.configs):>5} configs  {pack.steps:>7} steps  {shape}")


def cmd_run(args: argparse.Namespace) -> int:
    from iclscale.sweeps.run import run_sweep

    sweep = _load(args)
    if args.executor == "inline":
        from iclscale.trainer.runtime import single_threaded_by_default

        single_threaded_by_default()
    return run_sweep(sweep, args, default_out(sweep.name) if args.out is None else args.out)


def cmd_status(args: argparse.Namespace) -> int:
    from iclscale.sweeps.status import format_counts, status_counts, verify_store

    counts = status_counts(args.dir)
    print(format_counts(counts["sweep"], counts, args.dir))
    return verify_store(args.dir) if args.verify else 0


def cmd_stores_pack(args: argparse.Namespace) -> None:
    from iclscale.sweeps.archive import pack, summary

    print(summary(pack(args.root, args.out), args.out, args.root))


def cmd_stores_unpack(args: argparse.Namespace) -> None:
    from iclscale.sweeps.archive import summary, unpack

    print(summary(unpack(args.archive, args.out), args.archive, args.out))


def cmd_sweeps(args: argparse.Namespace) -> None:
    """One line per catalogue sweep: its name (what `iclscale sweep run NAME` takes), study, size, description."""
    from iclscale.errors import did_you_mean
    from iclscale.paper import papers, shown
    from iclscale.sweeps.spec import load_sweep

    chosen = [p for p in papers() if args.paper in (None, p.name)]
    if not chosen:
        names = [p.name for p in papers()]
        raise UserError(
            f"--paper: unknown paper {args.paper!r}{did_you_mean(args.paper, names)} (known: {', '.join(names)})"
        )
    from iclscale.sweeps.run import committed_runs

    earlier = committed_runs()
    for paper in chosen:
        files = paper.sweep_files()
        print(f"{paper.name}: {paper.citation} ({len(files)} sweeps in {shown(paper.sweeps)})")
        for path in files:
            sweep = load_sweep(path)
            print(f"  {path.stem:<44} {sweep.study.name:<22} {size_text(sweep, earlier)}")
            if sweep.description:
                print(f"  {'':<44} {sweep.description}")


def size_text(sweep, earlier: dict) -> str:
    """configs × steps of a sweep file, counted without training (a search's configs come from its trials), and
    for a grid the committed run can time (`earlier`, iclscale.sweeps.cost) its predicted wall time."""
    from iclscale.sweeps.cost import config_steps, cost_text, predicted_seconds, steps_text

    if sweep.search is not None:
        return f"search, {len(sweep.seeds)} seeds per trial"
    steps = config_steps(sweep)
    size = f"{len(steps):,} configs × {steps_text(steps)} steps"
    if sweep.threshold is not None:  # its work depends on what the search finds
        return size
    cost = cost_text(predicted_seconds(sweep.name, sweep.study.name, sum(steps), len(steps), earlier))
    return f"{size}; {cost}" if cost else size

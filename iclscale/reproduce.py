"""`iclscale reproduce PAPER... | --all`: run every catalogue sweep of the papers into one results root, then
write each sweep's report and the claims ledger (iclscale.analysis.ledger).

    iclscale reproduce C24 --out results/C24 --budget quick

The sweeps are the paper's catalogue sweep files (iclscale.catalogue) whose study is one of the paper's
studies (a paper may have several, e.g. a trained model and an oracle that measures its optimum without
training). Each runs through `iclscale.sweeps.run.run_sweep`, as `iclscale sweep run
FILE --out ROOT/<name> KEY=VALUE...` would, so the store's resume holds: re-running the same command trains
only what is missing, and Ctrl-C or a kill loses nothing finished. By default several sweeps run at a time, each
in its own process: inline, one per core; through Ray, `RAY_JOBS` sweeps as drivers of the one Ray instance this
command starts (or the cluster of --address), whose packs Ray spreads over its CPUs — the next sweep's packs keep
the cores busy while one sweep's last packs finish. They start longest first by the committed full run's times
(`iclscale.sweeps.schedule.by_measured_cost`: Monte Carlo sweeps counted, which model-steps miss), so that the last
to finish is not a long one started late; `--jobs 1` runs them in turn in this process, cheapest first, so that
results come early. One overall progress line and an ETA across sweeps (iclscale.sweeps.schedule: the estimate,
the order, the ETA).

Budgets. `full` is the catalogue as written. `quick` previews a paper in minutes by one stated rule
(iclscale.sweeps.budget, which the ledger reads back): at most 3 seeds, 4 search trials and 256 test prompts per
eval point, a quarter of the steps, and a sweep file's own `quick:` overrides where its cost lies elsewhere.
Grids and the laws are the catalogue's, but a quick verdict judges models trained a quarter as long on fewer test
prompts: a time T read where the catalogue trains longer is censored (so more "inconclusive"), a law read at the end
of training reads an earlier state, and an error rate has a standard error up to 1/(2·√256) ≈ 0.03 per config. The
ledger marks these verdicts "quick": a preview of what `full` judges, not a result to cite. A threshold search keeps
its steps and its test set, which are part of what it measures (the smallest batch that reaches a level *within* that
budget), and it is cheap; a search that tunes the steps keeps them too. Since their configs differ, a quick root and
a full root are separate folders: reproduce refuses to continue one budget's shortened runs with the other (give
another --out).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from iclscale.errors import UserError
from iclscale.sweeps.budget import BUDGETS, quick_overrides, steps_of
from iclscale.sweeps.schedule import Overall, Planned, by_measured_cost, estimate, si

EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # as `sweep run` exits on SIGTERM (iclscale.sweeps.run)
RAY_JOBS = 2  # sweeps at a time on one Ray instance: Ray already spreads each sweep's packs over every CPU


def add_command(commands) -> None:
    """`iclscale reproduce`: its arguments, handled by `reproduce`."""
    parser = commands.add_parser(
        "reproduce",
        help="run every catalogue sweep of the papers into one results root (resumable), then the reports and ledger",
        add_help=False,
    )
    parser.add_argument("-h", "--help", action=HelpWithPapers, help="show this help, with the catalogue's papers")
    parser.add_argument("papers", nargs="*", metavar="PAPER", help="a paper's tag (C24), seed (004) or study")
    parser.add_argument("--all", action="store_true", help="every paper of the catalogue")
    parser.add_argument("--out", metavar="ROOT", help="results root: ROOT/<sweep name> per sweep (default results)")
    parser.add_argument(
        "--budget",
        choices=BUDGETS,
        default="full",
        help="full: the catalogue as written; quick: at most 3 seeds, 4 search trials, 256 test prompts and a quarter "
        "of the steps per sweep (a preview; verdicts marked quick; its own --out)",
    )
    parser.add_argument("--executor", choices=("ray", "inline"), default="ray", help="as for sweep run")
    parser.add_argument("--address", help="join a Ray cluster: auto, host:port or ray://host:port")
    parser.add_argument("--dashboard", action="store_true", help="as for sweep run: serve Ray's dashboard, say where")
    parser.add_argument("--device", default="auto", help="auto (CUDA when a trial has a GPU), cpu or cuda")
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help=f"sweeps run at a time, one process each (default: inline one per core, Ray {RAY_JOBS} on its one "
        "instance); 1: in turn in this process, cheapest first",
    )
    parser.set_defaults(handler=reproduce)


class HelpWithPapers(argparse.Action):
    """-h for reproduce: the help ends with the papers it accepts, read from the catalogue when asked (reading it
    takes about a second, which no other command should pay)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from iclscale.paper import by_citation

        listed = "; ".join(f"{p.tag} (seed {p.seed}; studies {', '.join(p.studies)})" for p in by_citation())
        parser.epilog = f"PAPER is one of: {listed}."
        parser.print_help()
        parser.exit()


def plan_sweeps(paths: list[str], budget: str, root: Path) -> list[Planned]:
    """Load every sweep file with the budget's overrides and estimate its work; cheapest first."""
    from iclscale.sweeps.spec import load_sweep

    planned = []
    for path in paths:
        overrides = quick_overrides(load_sweep(path)) if budget == "quick" else []
        sweep = load_sweep(path, overrides)
        out = root / sweep.name
        check_same_steps(sweep, out, budget)
        total, left, configs = estimate(sweep, out)
        planned.append(Planned(path, sweep, out, total, left, tuple(overrides), configs))
    return sorted(planned, key=lambda p: (p.total, p.sweep.name))


def check_same_steps(sweep, out: Path, budget: str) -> None:
    """Refuse to add runs of other lengths to a results directory: a quick root and a full root are separate."""
    from iclscale.sweeps.store import Location
    from iclscale.sweeps.store_frozen import read_frozen_sweep

    location = Location(out)
    frozen = read_frozen_sweep(location) if location.exists() and (out / "sweep.yaml").is_file() else None
    if frozen and steps_of(frozen) != steps_of(sweep.resolved()):
        other = "full" if budget == "quick" else "quick"
        raise UserError(
            f"{out} holds runs of another length (steps {steps_of(frozen)}, not {steps_of(sweep.resolved())}: a "
            f"{other} run?); --budget {budget} trains its own configs: give another --out"
        )


def full_run_seconds() -> dict[str, float]:
    """Each catalogue sweep's training time in the committed full run (docs/results/claims.json), by sweep name;
    empty where the repository's docs are not installed. Read here, by the command, and passed to the schedule."""
    from iclscale.paper import REPOSITORY
    from iclscale.sweeps.cost import ledger_sweeps

    try:
        sweeps = ledger_sweeps(REPOSITORY / "docs" / "results" / "claims.json")
        return {s["sweep"]: float(s["train_time_s"]) for s in sweeps if s.get("train_time_s")}
    except (KeyError, TypeError, ValueError):
        return {}


def paper_sweep_files(paper_studies: set[str]) -> list[str]:
    """The catalogue's sweep files of these studies (iclscale.catalogue)."""
    from iclscale.catalogue import sweeps_of_studies

    return [sweep.path for sweep in sweeps_of_studies(paper_studies)]


def reproduce(args: argparse.Namespace) -> int:
    from iclscale.paper import by_citation, find_papers

    check_arguments(args)
    chosen = by_citation() if args.all else find_papers(args.papers)
    root = results_root(args.out)
    earlier = full_run_seconds()  # the committed full run's times: the order and the ETA take them as given
    planned, jobs = schedule(args, chosen, root, earlier)
    # each sweep prints as `sweep run` does: its plan, its progress (a heartbeat at least every 30 s in a log), its
    # counts; between sweeps, the overall line
    failed: list[str] = []
    code = run_all(planned, args, jobs, Overall(planned, jobs, earlier), root, chosen, failed)
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED):  # Ctrl-C or SIGTERM stops the whole reproduce
        return code
    from iclscale.analysis.ledger_files import write_ledger

    ledger = write_ledger([str(root)], root / "ledger")
    for paper in chosen:
        counts = ledger.counts[paper.citation]
        print(f"{paper.tag}: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n))
    print(f"wrote the reports under {root}/*/report and the ledger {ledger.index}")
    if failed:
        raise UserError(f"reproduce: {len(failed)} sweeps could not run: {', '.join(failed)} (messages above)")
    return 0


def check_arguments(args: argparse.Namespace) -> None:
    """One clear line for a choice of papers or of options that do not go together."""
    if args.all and args.papers:
        raise UserError(f"reproduce: --all and papers ({' '.join(args.papers)}): give one, not both")
    if not args.all and not args.papers:
        raise UserError("reproduce: name the papers (e.g. C24 L24; `iclscale laws` lists them) or give --all")
    if args.executor == "inline" and args.address:
        raise UserError("--address needs --executor ray")
    if args.executor == "inline" and args.dashboard:
        raise UserError("--dashboard needs --executor ray (an inline run starts no Ray)")
    if args.jobs is not None and args.jobs < 1:
        raise UserError(f"--jobs {args.jobs}: give a count of 1 or more (sweeps run at a time)")


def results_root(out: str | None) -> Path:
    if out is not None and not out.strip():
        raise UserError("--out: an empty value; give a results root (default results)")
    root = Path(out or "results")
    if root.exists() and not root.is_dir():
        raise UserError(f"--out {root}: a file, not a directory; choose another --out")
    return root


def schedule(args: argparse.Namespace, chosen: list, root: Path, earlier: dict[str, float]) -> tuple[list, int]:
    """The papers' sweeps planned at the budget, in the order they run, and how many run at a time; says so."""
    studies = {s for p in chosen for s in p.studies}
    planned = plan_sweeps(paper_sweep_files(studies), args.budget, root)
    jobs = args.jobs or ((os.cpu_count() or 1) if args.executor == "inline" else RAY_JOBS)
    planned = by_measured_cost(planned, earlier, longest=jobs > 1)
    tags = " ".join(p.tag for p in chosen)
    total = sum(p.total for p in planned)
    print(
        f"reproduce {tags} ({args.budget} budget): {len(planned)} sweeps into {root}, "
        f"{si(sum(p.left for p in planned))} of {si(total)} model-steps (estimated) to train{predicted(planned)}; "
        + (f"{jobs} at a time, longest first" if jobs > 1 else "one at a time, cheapest first")
        + (" (by the committed run's times)" if earlier else ""),
        flush=True,
    )
    return planned, jobs


def predicted(planned: list) -> str:
    """' (≈ 40 min …)' summed over the sweeps left, where the committed run times each one (iclscale.sweeps.cost);
    '' where it cannot time one of them (a sum with holes would read as a promise)."""
    from iclscale.sweeps.cost import cost_text, predicted_seconds
    from iclscale.sweeps.run import committed_runs

    earlier = committed_runs()
    left = [p for p in planned if p.pending]
    seconds = [predicted_seconds(p.sweep.name, p.sweep.study.name, p.left, p.configs_left or 0, earlier) for p in left]
    if not left or None in seconds:
        return ""
    return f" (training {cost_text(sum(seconds))}, one sweep at a time)"


def run_all(planned, args, jobs: int, progress: Overall, root: Path, chosen: list, failed: list[str]) -> int:
    """Run the sweeps (in turn, or `jobs` at a time in processes), log the invocation in the root however it ends,
    and shut down the Ray this process started. Returns 0, or the exit status that stopped it (130, 143)."""
    run_args = argparse.Namespace(
        executor=args.executor, address=args.address, device=args.device, retries=2, quiet=False, verbose=False,
        keep_ray=True, dashboard=args.dashboard,
    )  # fmt: skip
    if args.executor == "inline":
        from iclscale.trainer.runtime import single_threaded_by_default

        single_threaded_by_default()
    started, code = time.time(), 0
    try:
        if jobs > 1:
            if args.executor == "ray":  # one instance: each sweep's process joins it as a driver
                run_args.address, run_args.dashboard = shared_ray(args), False
            code = run_in_processes(planned, run_args, jobs, progress, root, failed)
        else:
            code = run_in_turn(planned, run_args, progress, failed)
        return code
    finally:
        log_invocation(root, chosen, args.budget, started, code, len(planned))
        ray = sys.modules.get("ray")
        if args.address is None and ray is not None and ray.is_initialized():
            ray.shutdown()


def shared_ray(args: argparse.Namespace) -> str:
    """The address of the Ray instance every sweep's process joins: the cluster of --address, or a local
    loopback-only instance started here once (its dashboard if asked), shut down when the reproduction ends."""
    from iclscale.sweeps.ray_executor import start_ray

    start_ray(args.address, quiet=True, dashboard=args.dashboard)
    import ray

    return ray.get_runtime_context().gcs_address


def run_in_turn(planned: list[Planned], run_args, progress: Overall, failed: list[str]) -> int:
    """Run the sweeps one after another in this process. Returns 0, or the exit status that stopped it (130, 143)."""
    from iclscale.sweeps.run import run_sweep

    for i, item in enumerate(planned):
        progress.show(i)
        try:
            code = run_sweep(item.sweep, run_args, str(item.out))
        except UserError as error:
            print(f"reproduce: sweep {item.sweep.name}: {error}", file=sys.stderr, flush=True)
            failed.append(item.sweep.name)
            code = 0
        if code not in (0, EXIT_INTERRUPTED, EXIT_TERMINATED):  # configs failed (named in its last line)
            failed.append(item.sweep.name)
        if code in (EXIT_INTERRUPTED, EXIT_TERMINATED):
            print(
                f"iclscale: reproduce interrupted at sweep {item.sweep.name} ({i}/{len(planned)} done); "
                "every finished pack is stored: run the same command to resume",
                file=sys.stderr,
            )
            return code
        progress.finished(item, time.monotonic() - progress.sweep_start)
    progress.show(len(planned))
    return 0


def log_invocation(root: Path, chosen: list, budget: str, started: float, code: int, sweeps: int) -> None:
    import datetime
    import json
    import os

    from iclscale.analysis.ledger_reports import REPRODUCE_LOG
    from iclscale.sweeps.store import git_commit

    ended = {0: "finished", EXIT_INTERRUPTED: "interrupted", EXIT_TERMINATED: "terminated"}.get(code, "failed")
    if sys.exc_info()[0] is not None:
        ended = "interrupted" if isinstance(sys.exc_info()[1], KeyboardInterrupt) else "failed"
    line = {
        "papers": [p.tag for p in chosen],
        "budget": budget,
        "started_at": datetime.datetime.fromtimestamp(started, datetime.UTC).isoformat(timespec="seconds"),
        "wall_s": round(time.time() - started, 1),
        "ended": ended,
        "sweeps": sweeps,
        "cpus": os.cpu_count(),
        "git_commit": git_commit(),
    }
    root.mkdir(parents=True, exist_ok=True)
    with open(root / REPRODUCE_LOG, "a", encoding="utf-8") as stream:
        stream.write(json.dumps(line) + "\n")


def run_in_processes(planned: list[Planned], run_args, jobs: int, progress: Overall, root: Path, failed: list[str]):
    """Run the sweeps `jobs` at a time, in their order, each in its own process (spawned: `sweep run` as a child,
    its output in ROOT/logs/<sweep>.log), so that a reproduction uses every core: most catalogue sweeps are one or
    two packs, which one process trains on one core inline, or which leave Ray's other CPUs idle. The store's
    resume is each sweep's own, so a stop loses nothing finished. Ctrl-C reaches the children with the terminal's
    signal; SIGTERM is passed on to them. Returns 0, or the exit status that stopped it (130, 143)."""
    import multiprocessing
    import signal

    context = multiprocessing.get_context("spawn")
    logs = root / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    waiting = [(i, item) for i, item in enumerate(planned)]
    running: dict = {}  # process -> (index, item, started)
    stopped = []

    def terminate(number, frame):  # pass `kill` on to the sweeps, which store what they finished and exit 143
        stopped.append(EXIT_TERMINATED)
        for process in running:
            process.terminate()

    previous = signal.signal(signal.SIGTERM, terminate)
    last_line = 0.0
    try:
        while waiting or running:
            while waiting and len(running) < jobs and not stopped:
                index, item = waiting.pop(0)
                running[_start_child(context, item, run_args, logs)] = (index, item, time.monotonic())
            if stopped:
                waiting.clear()  # the sweeps already running finish storing; none starts
            if (time.monotonic() - last_line >= 30 or not last_line) and not stopped:
                next_index = waiting[0][0] if waiting else len(planned)
                now = time.monotonic()
                progress.show(next_index, [(item, now - began) for _, item, began in running.values()])
                last_line = now
            for process in [p for p in running if not p.is_alive()]:
                _reaped(process, running.pop(process), logs, progress, failed, stopped)
                last_line = 0.0
            time.sleep(0.5)
    except KeyboardInterrupt:  # from a terminal the children had the same Ctrl-C; otherwise it is passed on
        stopped.append(EXIT_INTERRUPTED)
        _interrupt_children(list(running))
    finally:
        signal.signal(signal.SIGTERM, previous)
    if stopped:
        print(
            f"iclscale: reproduce interrupted ({progress.done}/{len(planned)} sweeps done); every finished pack is "
            f"stored: run the same command to resume (each sweep's output: {logs}/)",
            file=sys.stderr,
        )
        return stopped[0]
    progress.show(len(planned), [])
    return 0


def _start_child(context, item: Planned, run_args, logs: Path):
    """One sweep's process, started: `sweep run` with its output in ROOT/logs/<sweep>.log."""
    args = (item.path, item.overrides, str(item.out), vars(run_args), str(logs / f"{item.sweep.name}.log"))
    process = context.Process(target=_sweep_in_child, args=args, name=item.sweep.name)
    process.start()
    return process


def _reaped(process, started: tuple, logs: Path, progress: Overall, failed: list[str], stopped: list[int]) -> None:
    """A sweep's process has ended: stopped by a signal (the reproduce stops), finished (its summary line), or
    failed (named, counted done)."""
    _, item, began = started
    code = process.exitcode
    summary = _last_line(logs / f"{item.sweep.name}.log")
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED) or (code is not None and code < 0):
        stopped.append(EXIT_TERMINATED if code != EXIT_INTERRUPTED else EXIT_INTERRUPTED)
    elif code == 0:
        progress.finished(item, time.monotonic() - began)
        print(summary, flush=True)
    else:
        print(f"reproduce: sweep {item.sweep.name}: {summary}", file=sys.stderr, flush=True)
        failed.append(item.sweep.name)
        progress.done += 1


def _interrupt_children(processes: list) -> None:
    """After Ctrl-C: 5 s for the children to stop on the terminal's own signal, then SIGINT to those still running
    (a Ctrl-C not from a terminal reached only this process); each is joined."""
    import signal

    deadline = time.monotonic() + 5
    while any(p.is_alive() for p in processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    for process in processes:
        if process.is_alive():
            os.kill(process.pid, signal.SIGINT)
        process.join()


def _sweep_in_child(path: str, overrides: tuple[str, ...], out: str, run_args: dict, log: str) -> None:
    """One sweep, as `iclscale sweep run PATH --out OUT --executor E [--address A] OVERRIDES...` would, its output in
    LOG."""
    import argparse as _argparse

    with open(log, "a", encoding="utf-8") as stream:
        os.dup2(stream.fileno(), 1)
        os.dup2(stream.fileno(), 2)
        if run_args["executor"] == "inline":
            from iclscale.trainer.runtime import single_threaded_by_default

            single_threaded_by_default()
        from iclscale.sweeps.run import run_sweep
        from iclscale.sweeps.spec import load_sweep

        try:
            code = run_sweep(load_sweep(path, list(overrides)), _argparse.Namespace(**run_args), out)
        except UserError as error:
            print(f"iclscale: error: {error}", file=sys.stderr, flush=True)
            code = 2
        sys.stdout.flush()
        sys.stderr.flush()
    sys.exit(code)  # multiprocessing makes it the process's exit code


def _last_line(log: Path) -> str:
    try:
        lines = [line for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError:
        return "(no output)"
    return lines[-1] if lines else "(no output)"

"""`iclscale sweep run`, step by step. Nothing is written until every check has passed:

1. the sweep file and overrides (done by the caller), the flags, the results directory (not a file,
   its frozen sweep readable and of the same study);
2. Ray reached (or started) and the pack's resources checked against what it can ever offer;
3. the writer lock (iclscale.sweeps.lock), then the store repaired (iclscale.sweeps.compact) and the plan made;
4. the frozen sweep written, the packs run with one overall progress line, the store compacted.

Ctrl-C (or SIGTERM) stops at once: every committed pack stays, the count of stored configs is
printed with the advice to run the same command, exit 130 (143 for SIGTERM), within STOP_GRACE_S
seconds whatever the run is inside (StopDeadline). A disk that cannot be
written (full, read-only) ends with one line naming the path, exit 2. A sweep that leaves configs
failed (a trial that failed after its retries, an eval point that could not be computed) ends with one
line counting them, with the first reason, and exit 1: a failed sweep never looks like a finished one.
Failed configs are stored with their reasons and kept, not retrained by every run (a deterministic failure
would fail again): `--retry-failed` trains them again. Diverged configs are results, not failures.
"""

from __future__ import annotations

import argparse
import errno
import sys
from typing import Any

from iclscale.errors import UserError

EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, what a shell reports for a process SIGTERM ended
EXIT_FAILED = 1


class Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler's or `kill`'s stop), handled like Ctrl-C."""


WRITE_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT, errno.ENOTDIR, errno.EEXIST}


def run_sweep(sweep, args: argparse.Namespace, out: str) -> int:
    from iclscale.sweeps.store_directory import results_location

    _check_flags(args)
    location = results_location(out)
    check_before_work(sweep, location)
    import signal

    _signals_received.clear()
    _tally.clear()
    previous_int = signal.getsignal(signal.SIGINT)  # set to SIG_IGN on a stop, put back on return
    previous = signal.signal(signal.SIGTERM, _terminate)
    deadline = StopDeadline(lambda: interrupted_message(sweep, location, from_memory=True))
    try:
        if args.executor == "ray" and not sweep.search and _has_work(sweep, location, args):
            _connect(sweep, args)
        elif args.executor == "ray" and sweep.search and getattr(args, "dashboard", False):
            from iclscale.sweeps.ray_executor import start_ray  # the search's own start then finds it started

            start_ray(args.address, quiet=not args.verbose, dashboard=True)
        return _locked_run(sweep, args, location)
    except KeyboardInterrupt as stop:
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_IGN)  # a second signal must not cut the message short
        deadline.say(interrupted_message(sweep, location))
        terminated = isinstance(stop, Terminated) or _signals_received  # Tune re-raises a plain KeyboardInterrupt
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    except OSError as error:
        if error.errno in WRITE_ERRNOS or error.errno is None:
            raise UserError(f"cannot write to {error.filename or location.uri}: {error.strerror or error}") from None
        raise
    finally:
        ray = sys.modules.get("ray")
        keep = getattr(args, "keep_ray", False)  # `iclscale reproduce` runs many sweeps on one local instance
        if args.address is None and not keep and ray is not None and ray.is_initialized():
            ray.shutdown()  # the local instance this run started, its workers with it
        # put back what the caller had (a stop leaves both on SIG_IGN, Ray's init its own on SIGTERM): called in
        # process (reproduce, tests), a run must not leave Ctrl-C and `kill` ignored
        for number, handler in ((signal.SIGINT, previous_int), (signal.SIGTERM, previous)):
            if handler is not None:  # None: a handler not set from Python, which Python cannot put back
                signal.signal(number, handler)
        deadline.close()


_signals_received: list[int] = []
_tally: dict[str, Any] = {}  # what the stop line needs without reading the store: set once the run has planned
STOP_GRACE_S = 3.0  # after SIGTERM or Ctrl-C the process ends within this (and the time to print one line)


class StopDeadline:
    """SIGTERM and Ctrl-C end a run within STOP_GRACE_S whatever the main thread is doing.

    Python runs signal handlers in the main thread between bytecodes, so a run inside a long call (a kernel,
    a compile, a count of a large store on a loaded machine) would see the signal late. The C-level handler
    also writes the signal's number to a wakeup fd (signal.set_wakeup_fd); a thread waiting on it starts a
    clock, and if the main thread has not printed its stop line in time, it prints one counted in memory
    (the configs stored before this run plus those it finished) and ends the process with the signal's
    exit status. Everything committed stays committed: fragments are renamed into place whole."""

    def __init__(self, fallback) -> None:
        import os
        import signal
        import threading

        self.fallback, self.said, self.lock = fallback, threading.Event(), threading.Lock()
        self.ended = threading.Event()
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.write_fd, False)
        self.previous = signal.set_wakeup_fd(self.write_fd, warn_on_full_buffer=False)
        threading.Thread(target=self._watch, name="iclscale-stop-deadline", daemon=True).start()

    def say(self, line: str) -> None:
        with self.lock:
            if not self.said.is_set():
                self.said.set()
                print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        import os
        import signal

        self.ended.set()
        signal.set_wakeup_fd(self.previous)
        os.close(self.write_fd)  # the watching thread reads end-of-file and returns

    def _watch(self) -> None:
        import os
        import signal

        try:
            while (data := os.read(self.read_fd, 1)) and data[0] not in (signal.SIGINT, signal.SIGTERM):
                pass  # another signal with a Python handler (not ours to act on)
        finally:
            os.close(self.read_fd)
        if not data or self.ended.wait(STOP_GRACE_S):
            return
        try:
            line = self.fallback()
        except Exception:  # the line must be printed whatever is half-built in memory
            line = "iclscale: interrupted: run the same command to resume"
        self.say(line)
        os._exit(EXIT_TERMINATED if data[0] == signal.SIGTERM else EXIT_INTERRUPTED)


def _terminate(signum, frame) -> None:
    _signals_received.append(signum)
    raise Terminated()


def _has_work(sweep, location, args: argparse.Namespace) -> bool:
    """Whether the plan has packs to run, read-only (Ray is not started for nothing)."""
    from iclscale.sweeps.plan import make_plan
    from iclscale.sweeps.store_read import stored_keys

    if sweep.threshold:
        from iclscale.sweeps.threshold import has_open_search

        return has_open_search(sweep, location)
    stored = stored_keys(location) if location.exists() else {}
    return bool(make_plan(sweep, stored, retry_failed=retry_failed(args)).packs)


def _connect(sweep, args: argparse.Namespace) -> None:
    import signal

    from iclscale.sweeps.ray_executor import check_resources, start_ray

    start_ray(args.address, quiet=not args.verbose, dashboard=getattr(args, "dashboard", False))
    signal.signal(signal.SIGTERM, _terminate)  # Ray's driver installs its own (a crash-like stack dump)
    check_resources(sweep.resources, args.address)


def _slots(sweep, args: argparse.Namespace) -> int:
    """Packs the executor runs at once (pack_size auto makes at least this many): Ray's workers, or 1."""
    ray = sys.modules.get("ray")
    if args.executor != "ray" or ray is None or not ray.is_initialized():
        return 1
    from iclscale.sweeps.ray_executor import worker_slots

    return worker_slots(sweep.resources)


def _check_flags(args: argparse.Namespace) -> None:
    if args.retries < 0:
        raise UserError(f"--retries must be 0 or more, got {args.retries}")
    if args.executor == "inline" and args.address:
        raise UserError("--address needs --executor ray")
    if args.executor == "inline" and getattr(args, "dashboard", False):
        raise UserError("--dashboard needs --executor ray (an inline run starts no Ray)")
    if args.quiet and args.verbose:
        raise UserError("--quiet and --verbose contradict each other; give one")
    if args.device not in ("auto", "cpu", "cuda") and not (
        args.device.startswith("cuda:") and args.device[5:].isdigit()
    ):
        raise UserError(f"--device must be auto, cpu or cuda[:N], got {args.device[:60]!r}")
    if args.device.startswith("cuda") and (args.executor == "inline" or args.address is None):
        import torch  # this machine trains: it must have CUDA (a cluster's nodes are checked by Ray)

        if not torch.cuda.is_available():
            raise UserError(f"--device {args.device}: no CUDA device is available on this machine")


def check_before_work(sweep, location) -> None:
    """Every check of a sweep that needs no executor, run by `sweep plan` too, so that plan and run give
    the same verdict on every file: the results directory, a search's metric, a threshold's metric."""
    check_results_directory(location, sweep)
    if sweep.search:
        from iclscale.sweeps.metric_names import check_metric

        check_metric(sweep)
    if sweep.threshold:
        from iclscale.sweeps.threshold import check_threshold_metric

        check_threshold_metric(sweep)


def check_results_directory(location, sweep) -> None:
    """The results directory is missing, empty or this sweep's
    (iclscale.sweeps.store_directory.check_results_directory), and not the directory whose sweep.yaml is the sweep
    file itself (the frozen sweep would overwrite it)."""
    import os

    from iclscale.sweeps.store import FROZEN_SWEEP
    from iclscale.sweeps.store_directory import check_results_directory as check

    frozen = location.path(FROZEN_SWEEP)
    if location.local and os.path.exists(frozen) and os.path.samefile(frozen, sweep.path):
        raise UserError(
            f"--out {location.uri}: its {FROZEN_SWEEP} is the sweep file itself, which the run would overwrite "
            "with the frozen sweep; choose another --out (default results/<name>)"
        )
    check(location, sweep.name, sweep.study.name)


def committed_runs() -> dict:
    """The committed full run's timed sweeps (docs/results/claims.json; iclscale.sweeps.cost), to predict times."""
    from iclscale.paper import REPOSITORY
    from iclscale.sweeps.cost import earlier_runs

    return earlier_runs(REPOSITORY / "docs" / "results" / "claims.json")


def _locked_run(sweep, args: argparse.Namespace, location) -> int:
    from iclscale.sweeps.compact import compact
    from iclscale.sweeps.execute import SweepContext, run_inline
    from iclscale.sweeps.lock import writer_lock
    from iclscale.sweeps.plan import describe_plan, make_plan
    from iclscale.sweeps.progress import Progress
    from iclscale.sweeps.status import format_counts, status_counts
    from iclscale.sweeps.store_frozen import write_frozen_sweep
    from iclscale.sweeps.store_read import stored_keys

    with writer_lock(location):
        metrics = compact(location, sweep.study)
        if sweep.search:  # tune the searched params with Optuna instead of running a grid over them
            from iclscale.sweeps.search import run_search

            run_search(sweep, location, args.executor, args.address, args.device, args.retries, args.quiet)
            compact(location, sweep.study)
            print(format_counts(sweep.name, status_counts(location.uri), location.uri))
            return 0
        if sweep.threshold:  # bisection rounds, each planned and run like a sweep
            return _threshold_run(sweep, args, location, metrics)
        stored = stored_keys(location) if location.exists() else {}
        plan = make_plan(sweep, stored, _slots(sweep, args), retry_failed(args))
        if not args.quiet:
            print(describe_plan(plan, location.uri, committed_runs()), flush=True)
        write_frozen_sweep(location, sweep.resolved())
        if not plan.packs:
            kept = f" ({plan.stored['failed']} of them as failed)" if plan.stored["failed"] else ""
            print(f"nothing to run: every config of {sweep.name} is stored in {location.uri}{kept}")
            counts = status_counts(location.uri)
            print(format_counts(sweep.name, counts, location.uri))
            return failed_exit(location, counts)
        context = SweepContext(sweep.name, sweep.study.name, sweep.record, location.uri, tuple(metrics))
        progress = Progress(plan, enabled=not args.quiet)
        _tally.update(stored=plan.stored["ok"] + plan.stored["diverged"], total=len(dict.fromkeys(plan.configs)),
                      progress=progress)  # fmt: skip
        totals: dict[str, Any] = {}
        try:
            if args.executor == "inline":
                run_inline(plan, context, args.device, progress)
            else:
                totals = _run_ray(plan, context, args, location, progress)
        finally:
            progress.close()
        if totals.get("nodes") and not args.quiet:
            print(f"packs ran on nodes: {', '.join(totals['nodes'])}")
        compact(location, sweep.study)
    counts = status_counts(location.uri)
    print(format_counts(sweep.name, counts, location.uri))
    return failed_exit(location, counts)


def retry_failed(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "retry_failed", False))  # `iclscale reproduce` passes its own namespace


def failed_exit(location, counts: dict[str, Any]) -> int:
    """0, or EXIT_FAILED with one line on stderr when the store holds failed configs (a trial that failed after
    its retries, an eval point that could not be computed): a failed sweep never looks like a finished one, on
    the run that failed and on every later one, until `--retry-failed` trains them into results."""
    failed = counts.get("failed", 0)
    if not failed:
        return 0
    print(
        f"iclscale: error: {failed} of the {counts['configs']} configs failed (first: {first_failure(location)}); "
        "they are stored as failed with their reasons (the runs table's error column) and kept: "
        "`sweep run --retry-failed` trains them again",
        file=sys.stderr,
        flush=True,
    )
    return EXIT_FAILED


def first_failure(location) -> str:
    """The reason of the first failed row (fragments in name order, rows in order), shortened to one phrase."""
    from iclscale.errors import shorten
    from iclscale.sweeps.store import FAILED
    from iclscale.sweeps.store_fragments import committed_fragments
    from iclscale.sweeps.store_read import read_runs

    for fragment in committed_fragments(location):
        table = read_runs(location, fragment, ["status", "error"])
        if table is None or "error" not in table.column_names:
            continue
        for status, error in zip(table.column("status").to_pylist(), table.column("error").to_pylist(), strict=True):
            if status == FAILED:
                text = " ".join(str(error or "no reason recorded").split())
                return shorten(text, 160).strip("'\"")
    return "no reason recorded"


def _threshold_run(sweep, args: argparse.Namespace, location, metrics: list[str]) -> int:
    from iclscale.sweeps.compact import compact
    from iclscale.sweeps.execute import SweepContext, run_inline
    from iclscale.sweeps.progress import Progress
    from iclscale.sweeps.status import format_counts, status_counts
    from iclscale.sweeps.threshold import eval_search_of, run_threshold

    def run_plan(plan) -> None:
        context = SweepContext(sweep.name, sweep.study.name, sweep.record, location.uri, tuple(metrics),
                               eval_search_of(sweep))  # fmt: skip
        progress = Progress(plan, enabled=not args.quiet)
        try:
            if args.executor == "inline":
                run_inline(plan, context, args.device, progress)
            else:
                _run_ray(plan, context, args, location, progress)
        finally:
            progress.close()
        metrics[:] = compact(location, sweep.study)  # later rounds' fragments carry every metric column

    run_threshold(sweep, location, run_plan, _slots(sweep, args), args.quiet, retry_failed(args))
    compact(location, sweep.study)
    counts = status_counts(location.uri)
    print(format_counts(sweep.name, counts, location.uri))
    return failed_exit(location, counts)


def _run_ray(plan, context, args: argparse.Namespace, location, progress) -> dict[str, Any]:
    import ray

    from iclscale.sweeps.ray_executor import run_on_ray

    if not ray.is_initialized():  # work appeared between the read-only plan and the locked one
        _connect(plan.sweep, args)

    if args.address and location.local and not args.quiet:
        print(
            f"note: every node of the cluster must see {location.uri} (a shared filesystem); "
            "otherwise write to object storage, e.g. --out s3://BUCKET/PREFIX"
        )
    return run_on_ray(plan, context, args.address, args.device, args.retries, 2 if args.verbose else 0, progress)


def interrupted_message(sweep, location, from_memory: bool = False) -> str:
    """How much is stored after Ctrl-C, and how to go on: counted from the store, or (`from_memory`, when that
    takes too long) from what the run knew when it planned and the packs it finished since."""
    try:
        if from_memory:
            if not _tally:
                raise UserError("not planned yet")
            stored = _tally["stored"] + _tally["progress"].done
            total = _tally["total"]
        else:
            from iclscale.sweeps.status import status_counts

            counts = status_counts(location.uri)
            stored, total = counts["ok"] + counts["diverged"], counts["configs"]
        told = f"{stored} of {total} configs are stored in {location.uri}"
    except (UserError, OSError):
        told = (
            f"what is stored in {location.uri} stays (stopped before the run had counted it)"
            if from_memory
            else f"nothing is stored in {location.uri} yet"
        )
    return f"iclscale: interrupted: {told}; run the same command to resume"

"""The `iclscale` command: the one place that composes the trainer, sweeps and analysis.

Heavy imports (torch, ray, altair) happen inside the command that needs them. A mistake the user
can make ends with one line on stderr and exit status 2 (UserError), never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
from collections.abc import Sequence

from iclscale.errors import UserError

EXIT_USER_ERROR = 2


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `iclscale studies | head` ends quietly
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # `sweep run FILE --out DIR seeds=5`: overrides may follow the flags
        if not hasattr(args, "overrides") or any(item.startswith("-") or "=" not in item for item in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.overrides = [*args.overrides, *extra]
    from iclscale.sweeps.run import EXIT_TERMINATED, Terminated

    def terminate(number, frame):  # SIGTERM (a scheduler's or `kill`'s stop) stops any command as Ctrl-C does
        raise Terminated()

    import threading

    in_main_thread = threading.current_thread() is threading.main_thread()  # only there can a handler be set
    previous = signal.signal(signal.SIGTERM, terminate) if in_main_thread else None
    try:
        return args.handler(args) or 0
    except UserError as error:
        print(error_line(str(error)), file=sys.stderr)
        return EXIT_USER_ERROR
    except (MemoryError, RuntimeError) as error:  # sizes in range that do not fit this machine
        text = out_of_memory(error)
        if text is None:
            raise
        print(error_line(text), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt as stop:
        print(
            "iclscale: interrupted; nothing half-written is kept, and running the same command resumes", file=sys.stderr
        )
        return EXIT_TERMINATED if isinstance(stop, Terminated) else 130
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def out_of_memory(error: BaseException) -> str | None:
    """The one line for an allocation that failed (CPU or CUDA), with what was asked and what is free; None
    for any other error."""
    import re

    text = str(error)
    if not isinstance(error, MemoryError) and "can't allocate memory" not in text and "out of memory" not in text:
        return None
    asked = re.search(r"allocate (\d+(?:\.\d+)?) ?(bytes|[KMG]iB)", text)
    scale = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
    wanted = f"{float(asked.group(1)) * scale[asked.group(2)] / 1e9:.3g} GB" if asked else "memory"
    try:
        with open("/proc/meminfo") as meminfo:
            free = next(int(line.split()[1]) * 1024 for line in meminfo if line.startswith("MemAvailable:"))
        have = f"{free / 1e9:.3g} GB are available on this machine now"
    except (OSError, StopIteration, ValueError):
        have = "this machine has less"
    return (
        f"out of memory: an allocation of {wanted} failed and {have}; choose smaller shape params (or a smaller "
        "pack_size) or a machine with more memory"
    )


def one_line(message: str, limit: int = 480) -> str:
    """A message as one line of at most `limit` characters (messages quote values shortened
    already; this is the last guard against a newline or a huge value in one)."""
    text = " ".join(message.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


MAX_LINE = 500  # a refusal's whole line, prefix and suffix included


def error_line(message: str, suffix: str = "") -> str:
    """`iclscale: error: MESSAGE SUFFIX` on one line of at most MAX_LINE characters: the message is shortened,
    never the suffix (a help pointer), so that the cap holds for the line as printed."""
    prefix = "iclscale: error: "
    suffix = " ".join(suffix.splitlines())[: MAX_LINE // 2]
    return prefix + one_line(message, MAX_LINE - len(prefix) - len(suffix)) + suffix


class Parser(argparse.ArgumentParser):
    """argparse with its mistakes on one line (argparse prints the usage first), exit 2."""

    def error(self, message: str):
        print(error_line(message, f" (see {self.prog} --help)"), file=sys.stderr)
        sys.exit(EXIT_USER_ERROR)


def build_parser() -> argparse.ArgumentParser:
    from iclscale import __version__

    parser = Parser(prog="iclscale", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    studies = commands.add_parser("studies", help="list the studies and their params")
    studies.add_argument("name", nargs="?", help="show only this study")
    studies.set_defaults(handler=cmd_studies)

    train = commands.add_parser("train", help="train one config and print its final metrics (headline metrics first)")
    train.add_argument("study")
    train.add_argument(
        "overrides", nargs="*", metavar="NAME=VALUE", help="set a param, as `sweep run` takes it: L=2 steps=200"
    )
    train.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a param (repeatable); eval-role params choose the eval point",
    )
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--record-every", type=int, default=100, metavar="STEPS")
    train.add_argument("--device", default="auto", help="auto (CUDA when available), cpu or cuda")
    train.add_argument(
        "--compile",
        choices=("auto", "on", "off"),
        default="auto",
        help="compile the training step with torch.compile: auto (when the run is long enough to pay), on, off",
    )
    train.add_argument("--json", action="store_true", help="print one JSON object")
    train.add_argument("--all", action="store_true", help="list every metric (probe families are folded otherwise)")
    train.add_argument("--quiet", action="store_true", help="no progress line while training")
    train.add_argument("--out", metavar="DIR", help="also write a result store (runs and curves) to DIR")
    train.set_defaults(handler=cmd_train)

    add_sweep_commands(commands)
    add_reproduce_command(commands)
    add_analysis_commands(commands)
    described(parser)
    return parser


def described(parser: argparse.ArgumentParser) -> None:
    """Every subcommand's --help opens with the line the command list shows for it (argparse shows `help=` only
    in the list, `description=` only in the subcommand's own help)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for listed in action._choices_actions:
                sub = action.choices[listed.dest]
                if listed.help:
                    line = listed.help[0].upper() + listed.help[1:] + "."
                    # a description of its own (fit's synopsis and file format) follows the line
                    sub.description = line if sub.description is None else f"{line}\n\n{sub.description}"
                described(sub)


# studies --------------------------------------------------------------------------------------
def cmd_studies(args: argparse.Namespace) -> None:
    from iclscale.trainer.registry import all_studies, study_info

    infos = [study_info(args.name)] if args.name else list(all_studies())
    for info in infos:
        print(f"{info.name}: {info.title}\n  paper: {info.paper}")
        width = max(len(p.name) for p in info.params)
        for p in info.params:
            default = "null" if p.default is None else json.dumps(p.default)
            print(f"  {p.name:<{width}}  {p.role:<5}  default {default:<10}  {p.allowed()}")
            print(f"  {'':<{width}}  {p.meaning}")
        if args.name:
            print(metrics_text(info))
        else:
            print(
                f"  metrics: {len(info.metrics)} declared (iclscale studies {info.name} lists them with their meaning)"
            )
        print()


def metrics_text(info) -> str:
    """The study's final metrics with their meanings: headline ones first, `#` an index, `*` any name."""
    from iclscale.trainer.registry import COMMON_METRICS

    declared = sorted((*info.metrics, *COMMON_METRICS), key=lambda m: not m.headline)
    width = max(len(m.name) for m in declared)
    lines = ["  metrics (headline: the paper's headline results, printed first by `train`; # stands for an index):"]
    for m in declared:
        tags = " [headline]" if m.headline else ""
        tags += f" [regime flag: 0 means outside {m.regime}]" if m.regime else ""
        lines.append(f"  {m.name:<{width}}  {m.meaning}{tags}")
    return "\n".join(lines)


# train ----------------------------------------------------------------------------------------
def parse_sets(info, sets: Sequence[str], flag: str = "--set ") -> dict:
    """NAME=VALUE assignments (`--set L=2` or, as `sweep run` takes them, `L=2`), each param once."""
    values = {}
    for item in sets:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UserError(f"{flag}{item!r}: expected NAME=VALUE")
        if name in values:
            raise UserError(f"{flag}{name}: given twice")
        where = f"{flag}{name}"
        param = info.param(name, where)
        if "," in text and not text.strip().startswith("["):
            try:
                values[name] = param.parse(text, where)
            except UserError:
                raise UserError(
                    f"{where}={text.strip()}: a comma list is Hydra's multirun syntax; `train` trains one config, "
                    f"so give one value (a sweep takes the list form: iclscale sweep run FILE {name}=[{text.strip()}])"
                ) from None
            continue
        values[name] = param.parse(text, where)
    return values


def cmd_train(args: argparse.Namespace) -> None:
    from iclscale.sweeps.execute import quiet_cuda_probe
    from iclscale.trainer.runtime import single_threaded_by_default

    quiet_cuda_probe()
    single_threaded_by_default()
    from iclscale.trainer.registry import study_info

    info = study_info(args.study)
    values = _train_values(info, args)
    config, point = info.resolve(values, args.seed, "--set" if args.sets else "train")
    if args.record_every < 1:
        raise UserError(f"--record-every must be a positive integer, got {args.record_every}")
    device = _device(args.device)

    claim = contextlib.ExitStack()  # train --out: checked and locked before training, held until written
    if args.out is not None:  # `--out ""` is refused, not taken for "no --out"
        from iclscale.sweeps.execute import single_run_output

        claim.enter_context(single_run_output(args.out, config.run_id, info.name))
    result = _train_with_progress(info, config, point, args, device)
    failure = (getattr(result, "eval_errors", None) or {}).get(point)  # an eval value that cannot be computed
    if failure is not None:
        shown = ", ".join(f"{k}={v}" for k, v in point)
        raise UserError(f"--set: the trained model could not be evaluated at {shown}: {one_line(failure, 200)}")
    metrics = result.final_metrics(0, point)
    course = _run_summary(info.name, result)
    summary = {
        "study": info.name,
        "run_id": config.run_id,
        "seed": config.seed,
        "status": result.status[0],
        "params": config.as_dict(),
        "eval": dict(point),
        "wall_time_s": round(result.wall_time, 3),
        "device": result.device,
        **metrics,
        **({"course": course} if course else {}),
    }
    if args.out is not None:
        from iclscale.sweeps.execute import write_single_run
        from iclscale.trainer.params import RecordSchedule

        write_single_run(args.out, info, config, point, result, RecordSchedule(every=args.record_every))
        summary["out"] = args.out
    if args.json:
        print(json.dumps(_json_safe(summary)))
        return
    _print_trained(info, config, result, metrics, course, args)


def _train_values(info, args: argparse.Namespace) -> dict:
    """The params given to `train`, as --set NAME=VALUE and as plain NAME=VALUE overrides, each once."""
    values = parse_sets(info, args.sets)
    for name, value in parse_sets(info, args.overrides, "").items():
        if name in values:
            raise UserError(f"{name}: given both as --set and as {name}=…; give it once")
        values[name] = value
    return values


def _print_trained(info, config, result, metrics: dict, course: dict | None, args: argparse.Namespace) -> None:
    """`train`'s text output: the run's line, its final metrics, the course of training and where it was written."""
    print(
        f"{info.name}  run {config.run_id}  seed {config.seed}  {result.status[0]}  "
        f"{result.wall_time:.2f} s on {result.device}"
    )
    from iclscale.trainer.train_output import metric_lines

    print("\n".join(metric_lines(info, metrics, args.all)))
    if course:
        print("course of training:")
        for name, value in course.items():
            print(f"  {name:<32} {value}")
    if args.out is not None:
        print(f"wrote {args.out}")


def _train_with_progress(info, config, point, args: argparse.Namespace, device):
    """train_pack with a status line (iclscale.trainer.train_progress) and the measured rate memoised for next time."""
    from iclscale.trainer.train_progress import TrainProgress, memoise_rate, memoised_rate, rate_key
    from iclscale.trainer.training import train_pack

    params = config.as_dict()
    steps = int(params.get("steps") or 0)
    key = rate_key(info.name, {n: params[n] for n in info.names("shape")}, str(device))
    progress = TrainProgress(f"{info.name} {config.run_id}", steps, enabled=not args.quiet and steps > 0,
                             rate=memoised_rate(key))  # fmt: skip
    try:
        result = train_pack(info, [config], [point], args.record_every, device, progress=progress,
                            compile=args.compile)  # fmt: skip
    finally:
        progress.close()
    if steps and result.wall_time > 1.0:  # the rate after compiling (cached next time), where one was measured
        memoise_rate(key, progress.rate() or steps / result.wall_time)
    return result


def _run_summary(study: str, result) -> dict | None:
    """What the study's catalogue says about the run's course (iclscale.analysis.catalogue.run_summary), if anything."""
    from iclscale.analysis.catalogue import run_summary

    records = [(step, name, value) for step, name, value, point in result.curve(0) if point is None]
    return run_summary(study, records)


def _device(name: str):
    import torch

    if name not in ("auto", "cpu", "cuda") and not name.startswith("cuda:"):
        raise UserError(f"--device must be auto, cpu or cuda[:N], got {name!r}")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise UserError(f"--device {name}: no CUDA device is available on this machine")
    from iclscale.trainer.training import resolve_device

    return resolve_device(name)


def _json_safe(value):
    """JSON has no NaN or infinity: write them as null."""
    if isinstance(value, dict):
        return {key: _json_safe(v) for key, v in value.items()}
    if (isinstance(value, float) and value != value) or value in (float("inf"), float("-inf")):
        return None
    return value


# sweep, reproduce and analysis commands (filled by the sweeps and analysis packages) -----------
def add_sweep_commands(commands) -> None:
    from iclscale.sweeps.cli import add_commands

    add_commands(commands, check_laws=check_sweep_laws)


def check_sweep_laws(sweep) -> None:
    """A sweep file's `laws:` are laws of its study (iclscale.analysis.laws): sweeps cannot know the laws, the
    composer can."""
    if not sweep.laws:
        return  # the law catalogue (and pandas) is a second's import that a sweep without laws does not need
    from iclscale.analysis.laws import check_law_names

    check_law_names(sweep.laws, sweep.study.name, f"sweep file {sweep.path}: laws")


def add_reproduce_command(commands) -> None:
    from iclscale.reproduce import add_command

    add_command(commands)


def add_analysis_commands(commands) -> None:
    from iclscale.analysis.cli import add_commands

    add_commands(commands)


if __name__ == "__main__":
    sys.exit(main())

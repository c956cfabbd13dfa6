"""`iclscale report` and `iclscale laws`."""

from __future__ import annotations

import argparse


def add_commands(commands) -> None:
    report = commands.add_parser(
        "report", help="fit the sweep's laws; write index.html, fits.csv and chart PNGs (default DIR/report/)"
    )
    report.add_argument("dir", help="results directory of a sweep")
    report.add_argument("--out", metavar="OUT", help="where to write the report (default DIR/report)")
    report.set_defaults(handler=cmd_report)

    laws = commands.add_parser("laws", help="list the theory laws the report can fit")
    laws.add_argument("--study", help="only the laws about this study")
    laws.set_defaults(handler=cmd_laws)


def cmd_report(args: argparse.Namespace) -> None:
    from analysis.report import write_report

    report = write_report(args.dir, args.out)
    for fit in report.fits:
        estimate = f"{fit.statistic} {fit.estimate:.3g} [{fit.ci_low:.3g}, {fit.ci_high:.3g}]"
        print(f"{fit.law.name}  {fit.group_label}: {estimate}  {fit.verdict.verdict}")
    print(f"wrote {report.index} ({len(report.charts)} charts) and {report.fits_csv}")


def cmd_laws(args: argparse.Namespace) -> None:
    from analysis.laws import LAWS
    from usererror import UserError

    laws = [law for law in LAWS.values() if args.study in (None, law.study)]
    if args.study and not laws:
        studies = ", ".join(sorted({law.study for law in LAWS.values()}))
        raise UserError(f"--study {args.study}: no laws about this study; studies with laws: {studies}")
    print("\n\n".join(law.describe() for law in laws))

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

    ledger = commands.add_parser(
        "ledger", help="every claim of every paper judged on result roots: index.html, claims.json, claims.csv"
    )
    ledger.add_argument("roots", nargs="+", metavar="ROOT", help="results roots (ROOT/<sweep>/) or sweep directories")
    ledger.add_argument("--out", metavar="DIR", help="where to write the ledger (default ROOT/ledger of the first)")
    ledger.set_defaults(handler=cmd_ledger)

    laws = commands.add_parser("laws", help="list every claim of each paper and the theory laws that test it")
    laws.add_argument("--study", help="only the laws about this study")
    laws.set_defaults(handler=cmd_laws)


def cmd_report(args: argparse.Namespace) -> None:
    from analysis.page import VERDICT_TEXT
    from analysis.report import write_report

    report = write_report(args.dir, args.out)
    for fit in report.fits:
        estimate = f"{fit.statistic} {fit.estimate:.3g} [{fit.ci_low:.3g}, {fit.ci_high:.3g}]"
        verdict = VERDICT_TEXT.get(fit.verdict.verdict, fit.verdict.verdict)
        print(f"{fit.law.name}  {fit.group_label}: {estimate}  {verdict}")
    for note in report.notes:
        print(note)
    print(f"wrote {report.index} ({len(report.charts)} charts) and {report.fits_csv}")


def cmd_ledger(args: argparse.Namespace) -> None:
    from pathlib import Path

    from analysis.ledger import write_ledger

    ledger = write_ledger(args.roots, args.out or Path(args.roots[0]) / "ledger")
    for paper, counts in ledger.counts.items():
        print(f"{paper}: " + ", ".join(f"{n} {verdict}" for verdict, n in counts.items() if n))
    print(f"wrote {ledger.index}, claims.json and claims.csv ({len(ledger.claims)} claims)")


def cmd_laws(args: argparse.Namespace) -> None:
    from analysis.catalogue import PAPERS
    from analysis.laws import LAWS
    from usererror import UserError

    laws = [law for law in LAWS.values() if args.study in (None, law.study)]
    if args.study and not laws:
        studies = ", ".join(sorted({law.study for law in LAWS.values()}))
        raise UserError(f"--study {args.study}: no laws about this study; studies with laws: {studies}")
    shown = {law.name for law in laws}
    for paper, (_, package) in PAPERS.items():
        claims = [c for c in package.CLAIMS if shown & set(c.laws)]
        if claims:
            print(f"{paper}: {len(claims)} claims" + ("" if args.study else f" of {len(package.CLAIMS)}"))
            for claim in claims:
                print(f"  {claim.label:<4} {claim.source}: {claim.text}\n       laws: {', '.join(claim.laws)}")
            print()
    print("\n\n".join(law.describe() for law in laws))

"""`iclscale report` and `iclscale laws`."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

FIT_DESCRIPTION = "\n\n".join(
    textwrap.fill(paragraph, 100)
    for paragraph in (
        "iclscale fit LAW FILE...  or  iclscale fit --x COL --y COL --exponent P [--tolerance T] FILE...",
        "Each FILE (CSV or Parquet, at most 20 MB and 10,000 rows) holds one row per measurement: the x column, "
        "the y column, optionally `seed` (the trained model the row comes from; without it each row is a model of "
        "its own) and `censored` (true where y is only a bound). Where every seed is measured at every x, the "
        "interval is the per-seed t-interval (valid whether or not a seed's rows share a model); --independent "
        "says each row is its own trained model (the narrower OLS t-interval). Rows with a missing, infinite or "
        "(on log axes) non-positive x or y are dropped and named.",
        "Exit status: 0 when every file is consistent or inconclusive, 1 when any is inconsistent, 2 for bad "
        "input (a file with no usable row or a single x level included).",
    )
)


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
    ledger.add_argument(
        "--carry-from",
        metavar="CLAIMS_JSON",
        help="an earlier ledger's claims.json: a claim no root ran keeps its entry there, labelled as carried",
    )
    ledger.set_defaults(handler=cmd_ledger)

    laws = commands.add_parser("laws", help="list every claim of each paper and the theory laws that test it")
    laws.add_argument("--study", help="only the laws about this study")
    laws.add_argument(
        "--diagnoses",
        action="store_true",
        help="print only why claims do not reproduce: the counts per category and paper, and the per-claim lists "
        "(the markdown blocks README.md and each paper's README hold)",
    )
    laws.add_argument(
        "--verdicts",
        nargs="?",
        const="",
        metavar="LEDGER",
        help="print one line per claim with its latest verdict, the estimate it rests on and the start of its "
        "diagnosis, from a ledger (its folder or claims.json; default: the committed docs/results/claims.json)",
    )
    laws.set_defaults(handler=cmd_laws)

    fit = commands.add_parser(
        "fit",
        help="judge measurement tables (CSV/Parquet: x, y, optional seed and censored) against a law or y ∝ x^P",
        description=FIT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fit.add_argument("items", nargs="+", metavar="[LAW] FILE", help="a catalogue law (without --exponent), then files")
    fit.add_argument("--x", metavar="COL", help="the x column (default: the law's x)")
    fit.add_argument("--y", metavar="COL", help="the y column (default: value)")
    fit.add_argument("--exponent", type=float, metavar="P", help="judge y ∝ x^P instead of a catalogue law")
    fit.add_argument("--tolerance", type=float, metavar="T", help="with --exponent: the band P ± T (default 0.1)")
    fit.add_argument(
        "--independent",
        action="store_true",
        help="every row is its own trained model (a train-role x): the OLS t-interval even where seeds repeat at "
        "every x",
    )
    fit.add_argument("--json", action="store_true", help="one JSON object per file, with fits.csv's keys")
    fit.set_defaults(handler=cmd_fit)


def cmd_report(args: argparse.Namespace) -> None:
    from iclscale.analysis.report import write_report
    from iclscale.errors import UserError

    try:
        report = write_report(args.dir, args.out)
    except OSError as error:  # a full or read-only disk while writing the report
        where = error.filename or args.out or args.dir
        raise UserError(f"cannot write the report to {where}: {error.strerror or type(error).__name__}") from None
    for fit in report.fits:
        print(verdict_summary(fit))
    for note in report.notes:
        print(note)
    print(f"wrote {report.index} ({len(report.charts)} charts) and {report.fits_csv}")


EXIT_INCONSISTENT = 1  # `iclscale fit`: some file's verdict is inconsistent (2 stays bad input)


def cmd_fit(args: argparse.Namespace) -> int:
    import json

    from iclscale.analysis.userfit import ad_hoc_law, check_file, fit_files
    from iclscale.analysis.verdict import INCONSISTENT
    from iclscale.errors import UserError

    if args.exponent is not None:
        if not (args.x and args.y):
            raise UserError("--exponent needs --x COL and --y COL")
        files = args.items
    else:
        if args.tolerance is not None:
            raise UserError("--tolerance goes with --exponent (a catalogue law has its own)")
        if len(args.items) < 2:
            raise UserError("give a law and at least one FILE, or --x COL --y COL --exponent P FILE...")
        files = args.items[1:]
    for path in files:  # before the law's imports (pandas, the catalogue): a file too big is refused at once
        check_file(path)
    if args.exponent is not None:
        law = ad_hoc_law(args.x, args.y, args.exponent, args.tolerance)
    else:
        from iclscale.analysis.laws import get_law

        law = get_law(args.items[0])
    verdicts = fit_files(files, law, args.x, args.y, independent=args.independent)
    for verdict in verdicts:
        print(json.dumps(verdict.record(), ensure_ascii=False, default=str) if args.json else verdict.line())
    return EXIT_INCONSISTENT if any(v.fit.verdict.verdict == INCONSISTENT for v in verdicts) else 0


def cmd_ledger(args: argparse.Namespace) -> None:

    from iclscale.analysis.ledger_files import write_ledger

    ledger = write_ledger(args.roots, args.out or Path(args.roots[0]) / "ledger", args.carry_from)
    for paper, counts in ledger.counts.items():
        print(f"{paper}: " + ", ".join(f"{n} {verdict}" for verdict, n in counts.items() if n))
    print(f"wrote {ledger.index}, claims.json and claims.csv ({len(ledger.claims)} claims)")


def cmd_laws(args: argparse.Namespace) -> None:
    from iclscale.analysis.catalogue import PAPERS
    from iclscale.analysis.laws import LAWS, definition_sites
    from iclscale.errors import UserError

    if args.verdicts is not None:
        print_verdicts(args.verdicts)
        return
    if args.diagnoses:
        from iclscale.analysis.diagnoses import markdown

        print(markdown())
        return
    laws = [law for law in LAWS.values() if args.study in (None, law.study)]
    if args.study and not laws:
        studies = ", ".join(sorted({law.study for law in LAWS.values()}))
        raise UserError(f"--study {args.study}: no laws about this study; studies with laws: {studies}")
    shown = {law.name for law in laws}
    for paper, (studies, record) in PAPERS.items():
        claims = [c for c in record.claims if shown & set(c.laws)]
        untested = [c for c in record.claims if not c.laws] if args.study in (None, *studies) else []
        _print_claims(paper, claims, untested, "" if args.study else f" of {len(record.claims)}")
    files = sweep_files_by_law()
    sites = definition_sites(LAWS.values())
    print("\n\n".join(f"{law.describe()}\n  defined:    {sites[law.name]}\n{_files_line(law, files)}" for law in laws))
    if not args.study:
        from iclscale.analysis.diagnoses import counts_markdown

        print("\nWhy claims do not reproduce (diagnoses per category and paper):\n" + counts_markdown())


def _print_claims(paper: str, claims: list, untested: list, of_all: str) -> None:
    """`iclscale laws`: a paper's claims with the shown laws (each with its laws and diagnoses), then those no law
    tests, and a blank line after a paper with either; `of_all` follows the count (" of N" for the whole catalogue)."""
    if claims:
        print(f"{paper}: {len(claims)} claims with laws{of_all}")
        for claim in claims:
            print(f"  {claim.label:<4} {claim.source}: {claim.text}\n       laws: {', '.join(claim.laws)}")
            for diagnosis in claim.diagnoses:
                print(f"       does not reproduce — {diagnosis.describe()}")
    if untested:
        print(f"  claims without a law (not tested by this tool): {len(untested)}")
        for claim in untested:
            print(f"  {claim.label:<4} {claim.source}: {claim.text}")
    if claims or untested:
        print()


def print_verdicts(where: str) -> None:
    """`iclscale laws --verdicts [LEDGER]`: the ledger's date and commit, then one line per claim
    (iclscale.analysis.ledger_page.verdict_line)."""
    import json

    from iclscale.analysis.ledger_files import SCHEMA
    from iclscale.analysis.ledger_page import verdict_line
    from iclscale.errors import UserError
    from iclscale.paper import REPOSITORY

    path = Path(where) if where else REPOSITORY / "docs" / "results" / "claims.json"
    if path.is_dir():
        path = path / "claims.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("claims"), list):
            raise ValueError(f"not a claims ledger (schema {SCHEMA})")
        lines = [verdict_line(claim) for claim in data["claims"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        detail = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise UserError(f"--verdicts {path}: cannot read a claims ledger: {detail}") from None
    print(
        f"{path}: {len(lines)} claims, judged {data.get('generated_at')} at commit {str(data.get('git_commit'))[:12]}"
    )
    print("\n".join(lines))


def sweep_files_by_law() -> dict[str, list[str]]:
    """The catalogue's sweep files (every paper's) that name each law in their `laws:` list."""
    from iclscale.catalogue import files_by_law

    return files_by_law()


def _files_line(law, files: dict[str, list[str]]) -> str:
    named = files.get(law.name)
    if named:
        return f"  sweep files: {', '.join(named)}"
    return (
        f"  sweep files: none names it (a sweep of {law.study} whose laws: list is empty fits it when its data exist)"
    )


def verdict_summary(fit, limit: int = 110) -> str:
    """One terminal line per fit: the estimate (no `[nan, nan]`: what is missing is said), the verdict and, in a
    few words, the reason that decided it (the form that fits, the band the interval meets or misses, the regime).
    The whole reason is in fits.csv and the report."""
    import math

    from iclscale.analysis.page import VERDICT_TEXT, brief_reason, num

    if math.isnan(fit.estimate):
        estimate = f"no {fit.statistic or 'estimate'}"
    elif math.isnan(fit.ci_low) or math.isnan(fit.ci_high):
        estimate = f"{fit.statistic} {num(fit.estimate)} (no interval)"
    else:
        estimate = f"{fit.statistic} {num(fit.estimate)} [{num(fit.ci_low)}, {num(fit.ci_high)}]"
    verdict = VERDICT_TEXT.get(fit.verdict.verdict, fit.verdict.verdict)
    reason = brief_reason(fit.verdict.reason, limit, verdict)
    return f"{fit.law.name}  {fit.group_label}: {estimate}  {verdict}" + (f" — {reason}" if reason else "")

"""`iclscale report` and `iclscale laws`."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_commands(commands) -> None:
    report = commands.add_parser(
        "report", help="fit the sweep's laws; write index.html, fits.csv and chart PNGs (default DIR/report/)"
    )
    report.add_argument("dir", help="results directory of a sweep")
    report.add_argument("--out", metavar="OUT", help="where to write the report (default DIR/report)")
    report.set_defaults(handler=cmd_report)

    laws = commands.add_parser("laws", help="list every claim of each paper and the theory laws that test it")
    laws.add_argument("--study", help="only the laws about this study")
    laws.set_defaults(handler=cmd_laws)


def cmd_report(args: argparse.Namespace) -> None:
    from analysis.report import write_report

    report = write_report(args.dir, args.out)
    for fit in report.fits:
        print(verdict_summary(fit))
    for note in report.notes:
        print(note)
    print(f"wrote {report.index} ({len(report.charts)} charts) and {report.fits_csv}")


def cmd_laws(args: argparse.Namespace) -> None:
    from analysis.catalogue import PAPERS
    from analysis.laws import LAWS
    from usererror import UserError

    laws = [law for law in LAWS.values() if args.study in (None, law.study)]
    if args.study and not laws:
        studies = ", ".join(sorted({law.study for law in LAWS.values()}))
        raise UserError(f"--study {args.study}: no laws about this study; studies with laws: {studies}")
    shown = {law.name for law in laws}
    for paper, (studies, package) in PAPERS.items():
        claims = [c for c in package.CLAIMS if shown & set(c.laws)]
        untested = [c for c in package.CLAIMS if not c.laws] if args.study in (None, *studies) else []
        if claims:
            print(f"{paper}: {len(claims)} claims with laws" + ("" if args.study else f" of {len(package.CLAIMS)}"))
            for claim in claims:
                print(f"  {claim.label:<4} {claim.source}: {claim.text}\n       laws: {', '.join(claim.laws)}")
        if untested:
            print(f"  claims without a law (not tested by this tool): {len(untested)}")
            for claim in untested:
                print(f"  {claim.label:<4} {claim.source}: {claim.text}")
        if claims or untested:
            print()
    files = sweep_files_by_law()
    print("\n\n".join(law.describe() + "\n" + _files_line(law, files) for law in laws))


def sweep_files_by_law(folder: Path | None = None) -> dict[str, list[str]]:
    """The catalogue's sweep files (sweeps/*.yaml) that name each law in their `laws:` list."""
    import yaml

    folder = folder or Path(__file__).resolve().parents[1] / "sweeps"
    found: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            continue
        for name in raw.get("laws") or [] if isinstance(raw, dict) else []:
            found.setdefault(str(name), []).append(f"sweeps/{path.name}")
    return found


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

    from analysis.page import VERDICT_TEXT, brief_reason, num

    if math.isnan(fit.estimate):
        estimate = f"no {fit.statistic or 'estimate'}"
    elif math.isnan(fit.ci_low) or math.isnan(fit.ci_high):
        estimate = f"{fit.statistic} {num(fit.estimate)} (no interval)"
    else:
        estimate = f"{fit.statistic} {num(fit.estimate)} [{num(fit.ci_low)}, {num(fit.ci_high)}]"
    verdict = VERDICT_TEXT.get(fit.verdict.verdict, fit.verdict.verdict)
    reason = brief_reason(fit.verdict.reason, limit, verdict)
    return f"{fit.law.name}  {fit.group_label}: {estimate}  {verdict}" + (f" — {reason}" if reason else "")

"""Rewrite docs/laws-and-verdicts.md's statement of the verdict rule (between `<!-- verdict rule -->` markers) from
the constants the code applies: `python scripts/docs_verdict_rule.py` (tests/test_verdict_rule.py fails until the
docs hold what this writes)."""

from pathlib import Path

from iclscale.analysis.verdict import RULE_BEGIN, RULE_END, rule_markdown

DOCS = Path(__file__).resolve().parents[1] / "docs" / "laws-and-verdicts.md"


def main() -> None:
    text = DOCS.read_text()
    if RULE_BEGIN not in text or RULE_END not in text:
        raise SystemExit(f"{DOCS} has no {RULE_BEGIN} … {RULE_END} block: add the markers where the rule belongs")
    head, rest = text.split(RULE_BEGIN, 1)
    DOCS.write_text(f"{head}{RULE_BEGIN}\n{rule_markdown()}\n{RULE_END}{rest.split(RULE_END, 1)[1]}")


if __name__ == "__main__":
    main()

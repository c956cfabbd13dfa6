"""Rewrite the README's generated diagnosis blocks (between `<!-- diagnoses: NAME -->` markers) from the catalogue:
`python scripts/readme_diagnoses.py` (tests/test_diagnoses.py fails until the README holds what this writes)."""

from pathlib import Path

from iclscale.analysis.diagnoses import BEGIN, END, blocks

README = Path(__file__).resolve().parents[1] / "README.md"


def main() -> None:
    text = README.read_text()
    for name, block in blocks().items():
        begin, end = BEGIN.format(name), END.format(name)
        if begin not in text or end not in text:
            raise SystemExit(f"README.md has no {begin} … {end} block: add the markers where the list belongs")
        head, rest = text.split(begin, 1)
        text = f"{head}{begin}\n{block}\n{end}{rest.split(end, 1)[1]}"
    README.write_text(text)


if __name__ == "__main__":
    main()

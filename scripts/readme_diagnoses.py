"""Rewrite the generated diagnosis blocks (between `<!-- diagnoses: NAME -->` markers) from the catalogue: the counts
in README.md, each paper's list in iclscale/papers/<paper>/README.md: `python scripts/readme_diagnoses.py`
(tests/test_diagnoses.py fails until the READMEs hold what this writes)."""

from iclscale.analysis.diagnoses import BEGIN, END, blocks, readme_of


def main() -> None:
    for name, block in blocks().items():
        readme = readme_of(name)
        if readme is None:  # a paper installed from outside the repository
            continue
        text = readme.read_text()
        begin, end = BEGIN.format(name), END.format(name)
        if begin not in text or end not in text:
            raise SystemExit(f"{readme} has no {begin} … {end} block: add the markers where the list belongs")
        head, rest = text.split(begin, 1)
        readme.write_text(f"{head}{begin}\n{block}\n{end}{rest.split(end, 1)[1]}")


if __name__ == "__main__":
    main()

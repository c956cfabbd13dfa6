"""Rewrite the READMEs' generated blocks from the catalogue: the diagnosis blocks (between `<!-- diagnoses: NAME -->`
markers: the counts in README.md, each paper's list in iclscale/papers/<paper>/README.md) and each paper's table of
sweeps (`<!-- sweeps: NAME -->`, iclscale.analysis.sweep_tables): `python scripts/readme_diagnoses.py`
(tests/test_diagnoses.py and tests/test_sweep_tables.py fail until the READMEs hold what this writes)."""

from iclscale.analysis import diagnoses, sweep_tables


def write_block(name: str, block: str, begin: str, end: str) -> None:
    readme = diagnoses.readme_of(name)
    if readme is None:  # a paper installed from outside the repository
        return
    text = readme.read_text()
    if begin not in text or end not in text:
        raise SystemExit(f"{readme} has no {begin} … {end} block: add the markers where it belongs")
    head, rest = text.split(begin, 1)
    readme.write_text(f"{head}{begin}\n{block}\n{end}{rest.split(end, 1)[1]}")


def main() -> None:
    for name, block in diagnoses.blocks().items():
        write_block(name, block, diagnoses.BEGIN.format(name), diagnoses.END.format(name))
    for name, block in sweep_tables.blocks().items():
        write_block(name, block, sweep_tables.BEGIN.format(name), sweep_tables.END.format(name))


if __name__ == "__main__":
    main()

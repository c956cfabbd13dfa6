"""Each paper's table of sweeps in its README is generated (iclscale.analysis.sweep_tables): sizes counted from the
sweep files, training times read from the committed ledger, never typed by hand."""

import json

from iclscale.analysis import diagnoses, sweep_tables
from iclscale.catalogue import sweeps_of_paper
from iclscale.paper import papers


def test_each_papers_readme_holds_the_generated_table_of_its_sweeps():
    for name, table in sweep_tables.blocks().items():
        readme = diagnoses.readme_of(name)
        if readme is None:  # a paper installed from outside the repository
            continue
        text = readme.read_text()
        begin, end = sweep_tables.BEGIN.format(name), sweep_tables.END.format(name)
        assert begin in text and end in text, f"{readme} has no {begin} block"
        assert text.split(begin, 1)[1].split(end, 1)[0].strip("\n") == table, (
            f"{readme}: the sweep table differs from the catalogue: run `python scripts/readme_diagnoses.py`"
        )


def test_a_table_lists_every_sweep_file_with_its_size_and_the_committed_time():
    paper = next(p for p in papers() if p.seed == "003")
    committed = {s["sweep"]: s for s in json.loads(diagnoses.COMMITTED_LEDGER.read_text())["sweeps"]}
    rows = [line for line in sweep_tables.table(paper).splitlines() if line.startswith("| `")]
    sweeps = sweeps_of_paper(paper)
    assert [row.split("`")[1] for row in rows] == [s.name for s in sweeps]
    for row, sweep in zip(rows, sweeps, strict=True):
        configs = len(sweep.configs())
        assert f"| {configs:,} " in row, row  # counted from the file
        seconds = committed[sweep.name]["train_time_s"]
        assert row.endswith(f"| {sweep_tables.duration(seconds)} |"), row


def test_durations_and_sizes_read_as_a_reader_expects():
    assert sweep_tables.duration(None) == "not run"
    assert sweep_tables.duration(42.4) == "42 s"
    assert sweep_tables.duration(600) == "10.0 min"
    assert sweep_tables.duration(3 * 3600) == "3.0 h"

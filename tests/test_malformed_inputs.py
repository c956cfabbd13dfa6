"""Malformed sweep files and bad command-line values, generated: every one ends within seconds with
one line (no traceback, under 500 characters) and exit 2, and writes nothing.

The CLI's main() runs in-process (argparse mistakes exit through SystemExit(2)); a few cases run as
subprocesses to see the real stderr.
"""

from __future__ import annotations

import copy
import itertools
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from iclscale.cli import main

GOOD = {
    "name": "t",
    "study": "softmax_window",
    "fixed": {"d": 3, "steps": 20},
    "grid": {"L": [0.5, 1.0]},
    "seeds": 2,
    "eval": {"L_test": [None, 2.0]},
    "record_every": 10,
}
FIELDS = ["name", "study", "description", "fixed", "cases", "grid", "seeds", "eval", "record_every", "laws",
          "resources", "search"]  # fmt: skip
NESTED = ["fixed.L", "grid.L", "eval.L_test", "resources.cpu", "resources.pack_size", "search.metric",
          "search.params", "cases[0].L", "laws[0]"]  # fmt: skip


def _dump(raw) -> bytes:
    return yaml.safe_dump(raw, sort_keys=False, allow_unicode=True).encode()


def _laughs(levels: int = 9) -> str:
    """A billion-laughs value in flow style: its last item expands to 9**levels strings."""
    items = ["&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    items += [f"&l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "[" + ", ".join(items) + "]"


def _with_value(key: str, value_text: str) -> bytes:
    """GOOD with `key` (dotted, [0] for a list's first item) set to raw YAML text."""
    raw = copy.deepcopy(GOOD)
    marker = "VALUE_MARKER"
    parts = key.replace("[0]", ".0").split(".")
    if parts[0] in ("cases", "laws"):
        raw[parts[0]] = [{"sigma": 0.1}] if parts[0] == "cases" else ["x"]
    node = raw
    for part, after in itertools.pairwise(parts):
        node = node[int(part)] if part.isdigit() else node.setdefault(part, [] if after.isdigit() else {})
    last = parts[-1]
    if last.isdigit():
        node[int(last)] = marker
    else:
        node[last] = marker
    return _dump(raw).decode().replace(f"'{marker}'", value_text).replace(marker, value_text).encode()


def _cases() -> list[tuple[str, bytes]]:
    cases: list[tuple[str, bytes]] = []
    add = cases.append
    # billion laughs in every field and nested field
    for key in FIELDS + NESTED:
        add((f"laughs-{key}", _with_value(key, _laughs())))
    add(("laughs-merge", _with_value("fixed", "{<<: {a: " + _laughs() + "}, d: 3}")))
    add(("recursive-alias", b"name: &a [*a]\nstudy: softmax_window\n"))
    # not UTF-8, in every field
    for key in FIELDS:
        add((f"latin1-{key}", _with_value(key, "caf\xe9").decode().encode("latin-1")))
    add(("utf16", _dump(GOOD).decode().encode("utf-16")))
    add(("binary", bytes(range(256)) * 4))
    # nesting too deep
    for key in ["name", "fixed", "grid", "description", "search", "cases"]:
        add((f"deep-{key}", _with_value(key, "[" * 200 + "]" * 200)))
        add((f"deep-map-{key}", _with_value(key, "{a: " * 60 + "1" + "}" * 60)))
    # duplicate keys
    text = _dump(GOOD).decode()
    add(("dup-top", (text + "name: other\n").encode()))
    add(("dup-fixed", text.replace("fixed:\n", "fixed:\n  d: 4\n").encode()))
    add(("dup-grid", text.replace("grid:\n", "grid:\n  L: [3.0]\n").encode()))
    add(("dup-flow", b"name: t\nstudy: softmax_window\nresources: {cpu: 1, cpu: 2}\n"))
    add(("dup-case", b"name: t\nstudy: softmax_window\ncases: [{L: 1, L: 2}]\n"))
    # integers past float range, in every field
    for key in FIELDS + NESTED:
        add((f"bigint-{key}", _with_value(key, "9" * 400)))
    # names that are not a safe file name
    for i, name in enumerate(["a/b", "../up", "", ".hidden", "abc\n", "x" * 10000, "a b", "-dash", "nul\0x",
                              "tab\tx", "ü", "a:b", "*", 12, None, True, ["a"], {"a": 1}]):  # fmt: skip
        add((f"name-{i}", _dump({**GOOD, "name": name})))
    # resources that are not finite or not numbers
    for key in ("cpu", "gpu"):
        bad_amounts = [".nan", ".inf", "-.inf", "-1", "1e400", "'x'", "true", "[1]", "null", "9" * 330]
        for j, text_value in enumerate(bad_amounts):
            add((f"res-{key}-{j}", _with_value(f"resources.{key}", text_value)))
    for j, text_value in enumerate(["0", "-1", "1.5", "100000000", "'big'", ".nan"]):
        add((f"res-pack-{j}", _with_value("resources.pack_size", text_value)))
    add(("res-cpu-zero", _with_value("resources.cpu", "0")))
    add(("res-unknown", _dump({**GOOD, "resources": {"gpus": 1}})))
    # sizes past the caps
    add(("seeds-1e9", _dump({**GOOD, "seeds": 10**9})))
    add(("seeds-1e6", _dump({**GOOD, "seeds": 10**6})))
    add(("grid-product", _dump({**GOOD, "grid": {"L": [0.1 * i + 0.1 for i in range(100)],
                                                  "sigma": [0.01 * i for i in range(100)],
                                                  "lr": [0.001 * i + 0.001 for i in range(100)]}})))  # fmt: skip
    add(("grid-1e6", ("name: t\nstudy: softmax_window\ngrid:\n  L: [" + ", ".join(["1"] * 600000) + "]\n").encode()))
    add(("eval-product", _dump({**GOOD, "eval": {"L_test": [0.1 * i + 0.1 for i in range(200)],
                                                 "test_tasks": list(range(1, 200))}})))  # fmt: skip
    # YAML syntax
    for i, text_value in enumerate(["name: [unclosed\n", "a:\n\t- b\n", "name: 'x\n", "- a\nb: c\n", "{a: 1\n",
                                    "name: t\n  study: x\n", "a: !!python/object:os.system x\n", "a: \x07\n",
                                    "? [a]\n: 1\n", "&a\n", "*nope\n", "%YAML 9.9\n---\na: 1\n"]):  # fmt: skip
        add((f"syntax-{i}", text_value.encode()))
    # not a mapping
    for i, text_value in enumerate(["", "null\n", "- 1\n- 2\n", "42\n", "just text\n", "---\n...\n"]):
        add((f"not-mapping-{i}", text_value.encode()))
    # cases
    for i, value in enumerate([[None], [], [1], "x", [{}], [{"nope": 1}], [{"L_test": 1.0}]]):
        add((f"cases-{i}", _dump({**GOOD, "cases": value})))
    # every param: wrong type, out of range, unknown choice
    from iclscale.trainer.registry import study_info

    for p in study_info("softmax_window").params:
        block = "eval" if p.role == "eval" else "fixed"
        bad = {int: [2.5, "x", 10**12], float: ["x", -1e308 * 10 if p.low is not None else "y", {"a": 1}],
               str: [3, "nope", ["a"]], bool: ["yes-no", 2, None]}[p.type]  # fmt: skip
        for j, value in enumerate(bad):
            raw = copy.deepcopy(GOOD)
            raw.setdefault(block, {})
            if p.name in raw["grid"]:
                raw["grid"] = {}
            raw[block] = {**raw[block], p.name: value}
            add((f"param-{p.name}-{j}", _dump(raw)))
    # unknown keys, with and without a close match
    for i, key in enumerate(["seed", "grids", "colour", "recordevery", "Resources"]):
        add((f"unknown-key-{i}", _dump({**GOOD, key: 1})))
    # search blocks
    search = {"metric": "no_such_metric", "params": {"lr": {"low": 1e-3, "high": 1e-1}}, "trials": 2}
    add(("search-unknown-metric", _dump({**GOOD, "grid": {}, "search": search})))
    add(("search-bad-mode", _dump({**GOOD, "grid": {}, "search": {**search, "metric": "test_mse", "mode": "x"}})))
    return cases


CASES = _cases()


def test_the_suite_is_as_large_as_promised():
    assert len(CASES) >= 150, len(CASES)


def _call(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _assert_one_line_refusal(code: int, out: str, err: str, seconds: float) -> None:
    lines = err.strip().splitlines()
    assert code == 2, (code, out[-500:], err[-2000:])
    assert len(lines) == 1 and "Traceback" not in err, err[-2000:]
    assert lines[0].startswith("iclscale: error: ") and len(lines[0]) <= 500, lines[0][:600]
    assert seconds <= 10, seconds


@pytest.mark.parametrize("command", ["plan", "run"])
@pytest.mark.parametrize("label, data", CASES, ids=[label for label, _ in CASES])
def test_a_malformed_sweep_file_is_refused_in_one_line_and_nothing_is_written(tmp_path, capsys, command, label, data):
    path = tmp_path / "sweep.yaml"
    path.write_bytes(data)
    out = tmp_path / "results"
    argv = ["sweep", command, str(path), "--out", str(out)] + (["--executor", "inline"] if command == "run" else [])
    start = time.monotonic()
    code, stdout, err = _call(argv, capsys)
    _assert_one_line_refusal(code, stdout, err, time.monotonic() - start)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.yaml"]  # nothing written


def _bad_cli_values(tmp_path: Path) -> list[list[str]]:
    good = tmp_path / "good.yaml"
    good.write_bytes(_dump(GOOD))
    a_file = tmp_path / "a_file"
    a_file.write_text("not a directory")
    g = str(good)
    run = ["sweep", "run", g, "--executor", "inline"]
    values = [
        [*run, "--retries", "-1"],
        [*run, "--retries", "x"],
        ["sweep", "run", g, "--executor", "gpu"],
        [*run, "--device", "tpu"],
        [*run, "--device", "cuda:x"],
        [*run, "--device", "x" * 5000],
        [*run, "--max-configs", "0"],
        [*run, "--max-configs", "x"],
        [*run, "--max-eval-points", "-5"],
        [*run, "--out", str(a_file)],
        [*run, "--out", str(a_file / "below")],
        [*run, "--quiet", "--verbose"],
        [*run, "--address", "127.0.0.1:1"],
        ["sweep", "run", g, "--address", "nonsense"],
        ["sweep", "run", g, "--address", "host:99999"],
        ["sweep", "run", g, "--address", ":80"],
        ["sweep", "run", g, "--address", "127.0.0.1:1"],
        ["sweep", "run", g, "--address", "ray://127.0.0.1:1"],
        [*run, "--bogus"],
        ["sweep", "run"],
        ["sweep", "run", str(tmp_path)],
        ["sweep", "run", str(tmp_path / "no")],
        ["sweep", "plan", g, "--max-configs", "3"],
        ["sweep", "nope"],
        ["nope"],
        [],
        *(
            [*run, o]
            for o in [
                "=1",
                "L",
                "L=abc",
                "nope=1",
                "grid.L=[",
                "grid.L=[-1]",
                "seeds=0",
                "seeds=-1",
                "seeds=[1,1]",
                "name=a/b",
                "pack_size=0",
                "resources.cpu=.nan",
                "cpu=-1",
                "gpu=.inf",
                "sigma=[]",
                "L_test=abc",
                "fixed=[1]",
                "grid.L=*x",
                "seeds=" + "9" * 400,
                "d=2.5",
                "study=nope",
                "record_every=0",
                "grid.nope=[1]",
                "1abc=2",
                "name=" + "x" * 300,
                "grid.L=[1, 1]",
            ]
        ),
        ["train", "softmax_window", "--set", "L=abc"],
        ["train", "softmax_window", "--set", "nope=1"],
        ["train", "softmax_window", "--set", "L"],
        ["train", "softmax_window", "--set", "d=0"],
        ["train", "softmax_window", "--set", "L=1", "--set", "L=2"],
        ["train", "nope"],
        ["train", "softmax_window", "--seed", "x"],
        ["train", "softmax_window", "--seed", "-1"],
        ["train", "softmax_window", "--record-every", "0"],
        ["train", "softmax_window", "--device", "tpu"],
        ["train", "softmax_window", "--set", "task_class=relux"],
        ["train", "softmax_window", "--set", "L=1e400"],
        # values of 5,000 characters: the line is capped with its help pointer, not before it
        [*run, "--max-configs", "9" * 5000],
        ["sweep", "plan", g, "--max-records", "x" * 5000],
        ["train", "softmax_window", "--seed", "x" * 5000],
        ["train", "softmax_window", "--record-every", "9" * 5000],
        [*run, "L=" + "9" * 5000],
        # an override given twice (the last would win silently)
        [*run, "L=1", "L=2"],
        ["sweep", "plan", g, "seeds=1", "seeds=2"],
        ["sweep", "plan", g, "L=1", "grid.L=[1,2]"],
        ["sweep", "plan", g, "pack_size=2", "resources.pack_size=3"],
        ["train", "softmax_window", "L=1", "L=2"],
        # --out: an empty value, a non-empty unrelated folder, a file (plan too)
        [*run, "--out", ""],
        ["sweep", "plan", g, "--out", ""],
        ["train", "softmax_window", "--out", ""],
        [*run, "--out", str(tmp_path)],
        ["sweep", "plan", g, "--out", str(tmp_path)],
        ["train", "softmax_window", "steps=5", "--out", str(tmp_path)],
        ["sweep", "plan", g, "--out", str(a_file)],
        ["sweep", "status", str(tmp_path / "missing")],
        ["sweep", "status", str(a_file)],
        ["studies", "nope"],
        ["report", str(tmp_path / "missing")],
        ["laws", "--study", "nope"],
    ]
    return values


def test_bad_command_line_values_are_refused_in_one_line(tmp_path, capsys):
    values = _bad_cli_values(tmp_path)
    assert len(values) >= 50, len(values)
    for argv in values:
        before = sorted(p.name for p in tmp_path.iterdir())
        start = time.monotonic()
        code, out, err = _call(argv, capsys)
        try:
            _assert_one_line_refusal(code, out, err, time.monotonic() - start)
        except AssertionError as error:
            raise AssertionError(f"{argv[:8]}: {error}") from None
        assert sorted(p.name for p in tmp_path.iterdir()) == before, argv  # nothing written


@pytest.mark.parametrize("label", ["laughs-search.metric", "latin1-name", "bigint-grid.L", "deep-fixed"])
def test_the_real_command_prints_one_line_without_a_traceback(tmp_path, label):
    path = tmp_path / "sweep.yaml"
    path.write_bytes(dict(CASES)[label])
    done = subprocess.run([sys.executable, "-m", "iclscale.cli", "sweep", "run", str(path), "--out",
                           str(tmp_path / "r")], capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and len(done.stderr) < 500, done.stderr
    assert not (tmp_path / "r").exists()


# The corpus continued: refused files of the categories an attack found, and files that must be accepted
# (each accepted one is frozen as `run` would freeze it and read back). Expected outcome: REFUSED or ACCEPTED.
SEARCH = {"metric": "test_mse", "params": {"lr": {"low": 1e-3, "high": 1e-1}}, "trials": 2}
THRESHOLD = {"axis": "L", "range": [0.5, 4.0], "resolution": 0.5, "metric": "test_mse", "level": 0.1}
NUMERIC = ["fixed.L", "grid.L", "eval.L_test", "seeds", "record_every", "resources.cpu", "resources.gpu",
           "resources.pack_size", "cases[0].L", "fixed.d", "fixed.steps"]  # fmt: skip
TAGS = ["!!python/object/apply:os.system ['true']", "!!python/name:os.system", "!!binary aGVsbG8=",
        "!!timestamp 2001-12-14", "!!set {a, b}", "!custom x", "!!omap [a: 1]", "!!pairs [a: 1]"]  # fmt: skip


def _refused_more() -> list[tuple[str, bytes]]:
    cases: list[tuple[str, bytes]] = []
    add = cases.append
    for key in NUMERIC:  # nan and infinities in every numeric field
        for i, text in enumerate([".nan", ".inf", "-.inf", "1e400"]):
            add((f"nonfinite-{key}-{i}", _with_value(key, text)))
    for key in ("name", "fixed.L", "seeds", "description", "grid.L", "laws[0]", "eval.L_test", "record_every"):
        for i, tag in enumerate(TAGS):  # tags that build other types (or objects)
            add((f"tag-{key}-{i}", _with_value(key, tag)))
    wrong = {"name": [["a"], {"a": 1}, 1.5], "description": [[1], {"a": 1}, 3], "fixed": [[1], "x", 3],
             "grid": [[1], "x", {"L": 1.0}], "seeds": ["x", {"a": 1}, [], 0], "eval": [[1], "x"],
             "record_every": ["x", [1], 0, -3, 1.5], "laws": ["x", {"a": 1}, [1]], "resources": [[1], "x", 3],
             "search": [[1], "x", 3], "cases": [{"a": 1}, 3]}  # fmt: skip
    for key, values in wrong.items():  # wrong types in every field
        for i, value in enumerate(values):
            add((f"type-{key}-{i}", _dump({**GOOD, key: value})))
    add(("trials-1e9", _dump({**GOOD, "grid": {}, "search": {**SEARCH, "trials": 10**9}})))
    add(("trials-past-configs", _dump({**GOOD, "grid": {"L": [0.5 + i for i in range(500)]}, "seeds": 10,
                                      "search": {**SEARCH, "trials": 100}})))  # fmt: skip
    add(("record-log-1e9", _dump({**GOOD, "record_every": None, "record": {"log": 10**9}})))
    add(("record-every-1", _dump({**GOOD, "fixed": {"d": 3, "steps": 10**8}, "record_every": 1})))
    add(("record-every-hex-300", _with_value("record_every", "0x" + "f" * 300)))
    add(("seeds-hex-300", _with_value("seeds", "0x" + "f" * 300)))
    add(("laws-60000-aliases", ("laws: [&x a, " + ", ".join(["*x"] * 60000) + "]\n" + _dump(GOOD).decode()).encode()))
    add(("laws-twice", _dump({**GOOD, "laws": ["a", "a"]})))
    text = "x" * 200_000  # one 200 KB string aliased 4,000 times: 800 MB when expanded
    add(("string-aliased-4000", f"description: &s {text}\ncases: [{{sigma: 0.1, d: *s}}]\n"
         f"laws: [{', '.join(['*s'] * 4000)}]\nname: t\nstudy: softmax_window\n".encode()))  # fmt: skip
    add(("string-aliased-6", f"x: &s {'y' * 200_000}\n".encode() + b"description: [*s, *s, *s, *s, *s, *s]\n"))
    add(("grid-axis-100k", _dump({**GOOD, "grid": {"L": [0.001 * (i + 1) for i in range(100_001)]}})))
    add(("eval-11k", _dump({**GOOD, "eval": {"L_test": [0.01 * (i + 1) for i in range(10_001)]}})))
    # threshold blocks: what only the metric check (once run's alone) refuses
    add(("threshold-metric-nope", _dump({**GOOD, "grid": {}, "threshold": {**THRESHOLD, "metric": "nope"}})))
    add(("threshold-metric-close", _dump({**GOOD, "grid": {}, "threshold": {**THRESHOLD, "metric": "test_ms"}})))
    add(("threshold-axis-in-grid", _dump({**GOOD, "threshold": THRESHOLD})))
    add(("threshold-and-search", _dump({**GOOD, "grid": {}, "threshold": THRESHOLD, "search": SEARCH})))
    return cases


NO_EVERY = {k: v for k, v in GOOD.items() if k != "record_every"}
ALIASED_TAIL = b"name: t\nstudy: softmax_window\ncases: [{task_class: relu}]\n"


def _accepted() -> list[tuple[str, bytes]]:
    good = _dump(GOOD).decode()
    cases = [
        ("good", good.encode()),
        ("crlf", good.replace("\n", "\r\n").encode()),
        ("bom", b"\xef\xbb\xbf" + good.encode()),
        ("document-markers", ("---\n" + good + "...\n").encode()),
        ("comments", "# a sweep\n".join(good.splitlines(keepends=True)).encode()),
        ("flow", yaml.safe_dump(GOOD, default_flow_style=True).encode()),
        ("anchors", b"name: t\nstudy: softmax_window\ngrid: {L: &v [0.5, 1.0]}\neval: {L_test: *v}\nseeds: 2\n"),
        ("merge", b"name: t\nstudy: softmax_window\nbase: &b {d: 3, steps: 20}\n".replace(b"base", b"fixed")),
        ("merge-key", b"name: t\nstudy: softmax_window\nfixed: {<<: {d: 3}, steps: 20}\n"),
        ("hex-octal", b"name: t\nstudy: softmax_window\nseeds: 0x3\nrecord_every: 012\nfixed: {steps: 0b10100}\n"),
        ("tags", b"name: !!str t\nstudy: softmax_window\nfixed: {L: !!float 1}\nseeds: !!int 2\n"),
        ("unicode", _dump({**GOOD, "description": "σ-Lipschitz ✓ 日本語"})),
        ("record-log", _dump({**NO_EVERY, "record": {"log": 50}})),
        ("record-steps", _dump({**NO_EVERY, "record": {"steps": [0, 5, 10, 20]}})),
        ("record-every-big", _with_value("record_every", "0x" + "f" * 200)),
        ("seeds-list", _dump({**GOOD, "seeds": [0, 7, 2**31 - 1]})),
        ("cases", _dump({**GOOD, "grid": {}, "cases": [{"L": 0.5}, {"L": 2.0, "sigma": 0.1}]})),
        ("search", _dump({**GOOD, "grid": {}, "search": SEARCH})),
        ("threshold", _dump({**GOOD, "grid": {}, "threshold": THRESHOLD})),
        ("resources", _dump({**GOOD, "resources": {"cpu": 0.5, "gpu": 0, "pack_size": 7}})),
        ("laws", _dump({**GOOD, "laws": []})),
        ("long-description", _dump({**GOOD, "description": "a" * 500_000})),
        ("string-aliased-4", f"description: &s {'y' * 200_000}\n".encode() + ALIASED_TAIL),
        ("grid-1000", _dump({**GOOD, "grid": {"L": [0.01 * (i + 1) for i in range(1000)]}, "seeds": 1})),
        ("eval-1000", _dump({**GOOD, "eval": {"L_test": [0.01 * (i + 1) for i in range(1000)]}})),
        ("big-int-in-range", _with_value("seeds", "[" + str(2**31 - 1) + "]")),
    ]
    return cases


REFUSED = CASES + _refused_more()
ACCEPTED = _accepted()


def test_the_corpus_counts(capsys):
    """The corpus's size and expected outcomes (the counts are printed for the record)."""
    labels = [label for label, _ in REFUSED + ACCEPTED]
    assert len(labels) == len(set(labels)), "duplicate labels"
    assert len(REFUSED) >= 380 and len(ACCEPTED) >= 20
    with capsys.disabled():
        print(f"\ncorpus: {len(REFUSED) + len(ACCEPTED)} files, {len(REFUSED)} to refuse, {len(ACCEPTED)} to accept")


@pytest.mark.parametrize("label, data", _refused_more(), ids=[label for label, _ in _refused_more()])
def test_more_malformed_files_are_refused_in_one_line(tmp_path, capsys, label, data):
    path = tmp_path / "sweep.yaml"
    path.write_bytes(data)
    start = time.monotonic()
    code, stdout, err = _call(["sweep", "plan", str(path), "--out", str(tmp_path / "results")], capsys)
    _assert_one_line_refusal(code, stdout, err, time.monotonic() - start)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.yaml"]


@pytest.mark.parametrize("label, data", ACCEPTED, ids=[label for label, _ in ACCEPTED])
def test_every_accepted_file_is_frozen_and_read_back_unchanged(tmp_path, capsys, label, data):
    """What `run` freezes (Sweep.resolved, as iclscale.sweeps.store writes it) reads back through the frozen
    reader to the same sweep: an accepted file can never brick its results directory."""
    from iclscale.sweeps.spec import load_sweep, parse_frozen
    from iclscale.sweeps.store import Location
    from iclscale.sweeps.store_frozen import read_frozen_sweep, write_frozen_sweep

    path = tmp_path / "sweep.yaml"
    path.write_bytes(data)
    code, _, err = _call(["sweep", "plan", str(path), "--out", str(tmp_path / "results")], capsys)
    assert code == 0, err[-1000:]
    sweep = load_sweep(path)
    location = Location(tmp_path / "results")
    write_frozen_sweep(location, sweep.resolved())
    again = parse_frozen(read_frozen_sweep(location), "frozen")
    assert yaml.safe_dump(again.resolved()) == yaml.safe_dump(sweep.resolved())


SPECIAL = ["fifo", "/dev/zero", "/dev/urandom", "sparse-2GB", "directory", "link-to-dev-zero"]


@pytest.mark.parametrize("kind", SPECIAL)
def test_devices_fifos_and_huge_files_are_refused_before_reading(tmp_path, capsys, kind):
    import os

    path = {"/dev/zero": Path("/dev/zero"), "/dev/urandom": Path("/dev/urandom")}.get(kind, tmp_path / "sweep.yaml")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "sparse-2GB":
        with open(path, "wb") as handle:
            handle.truncate(2 * 10**9)
    elif kind == "directory":
        path.mkdir()
    elif kind == "link-to-dev-zero":
        path.symlink_to("/dev/zero")
    start = time.monotonic()
    code, stdout, err = _call(["sweep", "plan", str(path), "--out", str(tmp_path / "results")], capsys)
    _assert_one_line_refusal(code, stdout, err, time.monotonic() - start)
    assert time.monotonic() - start < 1, kind


class ReachedTheWriterLock(Exception):
    """`sweep run` got past every check to its first write (the writer lock): its verdict is "accepted"."""


def _verdict(argv: list[str], capsys) -> tuple[int | str, str]:
    try:
        code, _, err = _call(argv, capsys)
    except ReachedTheWriterLock:
        capsys.readouterr()
        return 0, ""
    lines = err.strip().splitlines()
    return code, lines[-1] if code else ""


@pytest.mark.parametrize("label, data", REFUSED + ACCEPTED, ids=[label for label, _ in REFUSED + ACCEPTED])
def test_plan_and_run_give_the_same_verdict_on_every_file(tmp_path, capsys, monkeypatch, label, data):
    """Every check `sweep run` makes before it writes, `sweep plan` makes too: the same exit status and the same
    line for every file of the corpus. Run stops at its writer lock (nothing trains, nothing is written)."""
    from iclscale.sweeps import lock

    def stop(location):
        raise ReachedTheWriterLock()

    monkeypatch.setattr(lock, "writer_lock", stop)
    path = tmp_path / "sweep.yaml"
    path.write_bytes(data)
    out = str(tmp_path / "results")
    planned = _verdict(["sweep", "plan", str(path), "--out", out], capsys)
    ran = _verdict(["sweep", "run", str(path), "--out", out, "--executor", "inline", "--quiet"], capsys)
    assert planned == ran, (planned, ran)
    assert planned[0] == (0 if label in dict(ACCEPTED) else 2), planned
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.yaml"]

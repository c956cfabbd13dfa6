"""Every fragment verified by its digest: a flipped bit anywhere in a runs or curves file is caught
by every command that reads the store, and the next run heals the store to exactly what an
undamaged one holds; fragments that are empty, not files, foreign or missing heal the same way."""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from iclscale.cli import main
from iclscale.sweeps import store, store_fragments, store_frozen
from iclscale.sweeps.store import Location
from iclscale.sweeps.store_fragments import fragment_problem

RAW = {
    "name": "sums",
    "study": "softmax_window",
    "fixed": {"d": 3, "n": 8, "steps": 20},
    "grid": {"L": [0.5, 2.0], "lr": [0.1, 1e30]},  # lr 1e30 diverges
    "seeds": 2,
    "eval": {"L_test": [None, 3.0]},
    "record_every": 10,
    "resources": {"pack_size": 3},
}
VARYING = ["wall_time_s", "finished_at"]  # provenance a retrained pack writes anew


def _run(where: Path) -> int:
    path = where / "sweep.yaml"
    path.write_text(yaml.safe_dump(RAW))
    return main(["sweep", "run", str(path), "--out", str(where / "out"), "--executor", "inline", "--quiet"])


def plain_read(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The store as pandas reads the folders, in a canonical order, without per-run provenance."""
    runs = pd.read_parquet(out / "runs").drop(columns=VARYING)
    runs = runs.sort_values(["run_id", "eval_key"], na_position="first").reset_index(drop=True)
    curves = pd.read_parquet(out / "curves")
    curves = curves.sort_values(["run_id", "eval_key", "metric", "step"], na_position="first").reset_index(drop=True)
    return runs, curves


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("pristine")
    assert _run(where) == 0
    return where


def _copy(pristine: Path, tmp_path: Path) -> Path:
    shutil.copytree(pristine, tmp_path / "w")
    return tmp_path / "w"


def _assert_healed(where: Path, pristine: Path, capsys) -> None:
    assert _run(where) == 0
    said = capsys.readouterr()
    assert "moved damaged fragment aside" in said.out and "Traceback" not in said.err
    for healed, clean in zip(plain_read(where / "out"), plain_read(pristine / "out"), strict=True):
        pd.testing.assert_frame_equal(healed, clean, check_exact=True)
    assert main(["sweep", "status", str(where / "out"), "--verify"]) == 0
    assert "8 configs: 4 ok, 4 diverged, 0 failed, 0 missing" in capsys.readouterr().out


def flip(path: Path, offset: int, bit: int) -> bytes:
    data = path.read_bytes()
    damaged = bytearray(data)
    damaged[offset] ^= 1 << bit
    path.write_bytes(bytes(damaged))
    return data


@pytest.mark.parametrize("folder", ["runs", "curves"])
def test_a_flipped_bit_anywhere_in_a_fragment_is_detected(pristine, tmp_path, folder):
    where = _copy(pristine, tmp_path)
    location = Location(where / "out")
    victim = sorted((where / "out" / folder).glob("pack-*.parquet"))[0]
    name = victim.name.removesuffix(".parquet")
    size = victim.stat().st_size
    offsets = sorted(set(random.Random(0).sample(range(size), min(size, 150))) | {0, 4, size - 8, size - 1})
    missed = []
    for offset in offsets:
        original = flip(victim, offset, offset % 8)
        store_fragments._checked.clear()
        if fragment_problem(location, name, quiet=True) is None:
            missed.append(offset)
        victim.write_bytes(original)
    store_fragments._checked.clear()
    assert fragment_problem(location, name, quiet=True) is None  # the restored file is sound again
    assert not missed, f"{len(missed)} of {len(offsets)} flips read as sound: {missed[:10]}"


@pytest.mark.parametrize("folder, where_in_file", [("runs", 0.5), ("runs", 0.97), ("curves", 0.5)])
def test_after_a_flip_status_names_it_and_the_next_run_heals_the_store_exactly(
    pristine, tmp_path, capsys, folder, where_in_file
):
    where = _copy(pristine, tmp_path)
    victim = sorted((where / "out" / folder).glob("pack-*.parquet"))[0]
    flip(victim, int(victim.stat().st_size * where_in_file), 3)
    capsys.readouterr()
    assert main(["sweep", "status", str(where / "out")]) == 0
    err = capsys.readouterr().err
    assert victim.name in err and "checksum mismatch" in err and len(err.strip().splitlines()) == 1
    assert main(["sweep", "status", str(where / "out"), "--verify"]) == 1
    assert "1 damaged" in capsys.readouterr().out
    _assert_healed(where, pristine, capsys)
    assert (where / "out" / "quarantine" / f"{folder}-{victim.name}").exists()


def _zero_rows(out: Path, name: str) -> None:
    table = pq.read_table(out / "runs" / f"{name}.parquet")
    store.Location(out).write_table(f"runs/{name}.parquet", table.slice(0, 0))  # even with a matching digest


def _directory(out: Path, name: str) -> None:
    path = out / "runs" / f"{name}.parquet"
    path.unlink()
    path.mkdir()


def _fifo(out: Path, name: str) -> None:
    path = out / "runs" / f"{name}.parquet"
    path.unlink()
    os.mkfifo(out / "fifo")
    path.symlink_to(out / "fifo")


def _dev_zero(out: Path, name: str) -> None:
    path = out / "runs" / f"{name}.parquet"
    path.unlink()
    path.symlink_to("/dev/zero")


def _foreign(out: Path, name: str) -> None:
    """Another pack's runs file (and its digest) under this pack's name."""
    other = next(p for p in sorted((out / "runs").glob("pack-*.parquet")) if p.stem != name)
    shutil.copy(other, out / "runs" / f"{name}.parquet")
    shutil.copy(out / "digests" / "runs" / f"{other.stem}.sha256", out / "digests" / "runs" / f"{name}.sha256")


def _no_curves(out: Path, name: str) -> None:
    (out / "curves" / f"{name}.parquet").unlink()


def as_before_checksums(out: Path) -> None:
    """Make a store look as stores were written before checksums: no digests/, no mark in sweep.yaml, nor in the
    fragments' footers."""
    shutil.rmtree(out / "digests")
    for path in [*(out / "runs").glob("*.parquet"), *(out / "curves").glob("*.parquet")]:
        table = pq.read_table(path)
        metadata = {k: v for k, v in table.schema.metadata.items() if k != store.DIGESTED_KEY}
        pq.write_table(table.replace_schema_metadata(metadata), path)
    frozen = yaml.safe_load((out / "sweep.yaml").read_text())
    assert frozen.pop("checksums") == "sha256"
    (out / "sweep.yaml").write_text(yaml.safe_dump(frozen, sort_keys=False))


def _legacy_with_a_changed_run_id(out: Path, name: str) -> None:
    """A store written before checksums, one of whose fragments has its first run_id changed."""
    path = out / "runs" / f"{name}.parquet"
    table = pq.read_table(path)
    ids = table.column("run_id").to_pylist()
    ids[0] = "0" * len(ids[0])
    pq.write_table(table.set_column(0, "run_id", pa.array(ids, pa.string())), path)
    as_before_checksums(out)


def _digest_deleted_and_a_byte_flipped(out: Path, name: str) -> None:
    victim = out / "runs" / f"{name}.parquet"
    flip(victim, victim.stat().st_size // 2, 3)
    (out / "digests" / "runs" / f"{name}.sha256").unlink()


def _digests_folder_deleted_and_a_byte_flipped(out: Path, name: str) -> None:
    victim = out / "curves" / f"{name}.parquet"
    flip(victim, victim.stat().st_size // 2, 5)
    shutil.rmtree(out / "digests")


def _digest_deleted_bytes_intact(out: Path, name: str) -> None:
    """Even sound bytes are not trusted without their digest: nothing vouches that they are the ones written."""
    (out / "digests" / "curves" / f"{name}.sha256").unlink()


DAMAGE = [_zero_rows, _directory, _fifo, _dev_zero, _foreign, _no_curves, _legacy_with_a_changed_run_id,
          _digest_deleted_and_a_byte_flipped, _digests_folder_deleted_and_a_byte_flipped,
          _digest_deleted_bytes_intact]  # fmt: skip


@pytest.mark.parametrize("damage", DAMAGE, ids=[d.__name__.strip("_") for d in DAMAGE])
def test_damaged_fragments_are_named_at_once_and_healed(pristine, tmp_path, capsys, damage):
    where = _copy(pristine, tmp_path)
    out = where / "out"
    name = sorted((out / "runs").glob("pack-*.parquet"))[0].stem
    damage(out, name)
    capsys.readouterr()
    start = time.monotonic()
    assert main(["sweep", "status", str(out)]) == 0
    err = capsys.readouterr().err
    assert time.monotonic() - start < 10
    fragments = len(list((out / "runs").glob("pack-*.parquet")))
    named = fragments if damage is _digests_folder_deleted_and_a_byte_flipped else 1  # every digest gone
    if damage is not _legacy_with_a_changed_run_id:  # read-only commands cannot afford to recompute run_ids
        assert name in err and len(err.strip().splitlines()) == named, err
    _assert_healed(where, pristine, capsys)


def test_a_store_written_before_checksums_is_adopted_without_retraining(pristine, tmp_path, capsys):
    where = _copy(pristine, tmp_path)
    out = where / "out"
    as_before_checksums(out)
    before = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    capsys.readouterr()
    assert main(["sweep", "status", str(out), "--verify"]) == 0  # it still reads, and says what it is
    said = capsys.readouterr()
    assert f"{len(before)} written before checksums" in said.out and not said.err, said
    assert _run(where) == 0
    assert "moved damaged" not in capsys.readouterr().out
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} == before
    assert len(list((out / "digests" / "runs").iterdir())) == len(before)
    assert yaml.safe_load((out / "sweep.yaml").read_text())["checksums"] == "sha256"  # checksummed from now on
    (out / "digests" / "runs" / f"{sorted(before)[0].removesuffix('.parquet')}.sha256").unlink()
    assert main(["sweep", "status", str(out), "--verify"]) == 1
    assert "no checksum" in capsys.readouterr().out


def test_a_fragment_that_says_it_had_a_digest_is_damaged_without_it_even_where_every_mark_is_gone(
    pristine, tmp_path, capsys
):
    where = _copy(pristine, tmp_path)
    out = where / "out"
    as_before_checksums(out)  # a store from before checksums ...
    shutil.copy(pristine / "out" / "runs" / (name := sorted(p.name for p in (out / "runs").iterdir())[0]),
                out / "runs" / name)  # ... holding one file written with a digest, its digest gone  # fmt: skip
    capsys.readouterr()
    assert main(["sweep", "status", str(out), "--verify"]) == 1
    assert f"damaged: runs/{name}: no checksum" in capsys.readouterr().out


def test_a_new_store_is_marked_checksummed(pristine):
    assert yaml.safe_load((pristine / "out" / "sweep.yaml").read_text())["checksums"] == "sha256"
    assert store_frozen.is_checksummed(Location(pristine / "out"))


@pytest.mark.parametrize("deleted", ["one digest", "digests/"])
def test_a_deleted_digest_and_a_flipped_byte_are_named_quarantined_and_retrained(pristine, tmp_path, capsys, deleted):
    where = _copy(pristine, tmp_path)
    out = where / "out"
    victim = sorted((out / "runs").glob("pack-*.parquet"))[0]
    flip(victim, victim.stat().st_size // 2, 1)
    if deleted == "digests/":
        shutil.rmtree(out / "digests")
    else:
        (out / "digests" / "runs" / f"{victim.stem}.sha256").unlink()
    capsys.readouterr()
    assert main(["sweep", "status", str(out), "--verify"]) == 1  # not "written before checksums", not exit 0
    said = capsys.readouterr().out
    assert f"damaged: runs/{victim.name}: no checksum" in said and "before checksums" not in said, said
    _assert_healed(where, pristine, capsys)  # named, moved aside and retrained: never given a fresh digest
    quarantined = (out / "quarantine" / f"runs-{victim.name}").read_bytes()
    assert quarantined != (pristine / "out" / "runs" / victim.name).read_bytes()  # the damaged bytes, kept

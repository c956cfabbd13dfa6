"""`iclscale stores pack|unpack` (iclscale.sweeps.archive): a results root's stores as one .tar.xz, so that `report`
and `ledger` re-make their pages from stores trained elsewhere; and every kind of bad archive refused, on one line,
before anything is written."""

import io
import json
import random
import tarfile
from pathlib import Path

import pandas as pd
import pytest
from small_demo import train_small_demo

from iclscale.cli import main
from iclscale.errors import UserError
from iclscale.sweeps.archive import MANIFEST, pack, unpack


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    """The demo sweep shrunk (as test_analysis_report trains it), with its report written."""
    folder = tmp_path_factory.mktemp("demo")
    store = train_small_demo(folder, folder / "root" / "demo_small")
    assert main(["report", str(store)]) == 0
    (folder / "root" / "reproduce.jsonl").write_text('{"papers": ["S"], "wall_s": 1.0}\n')
    (folder / "root" / "ledger").mkdir()  # not a results directory: left out
    return store


def store_files(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ROOT but reports and a run's lock: its bytes and mtime in nanoseconds."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and "report" not in p.relative_to(root).parts and p.name != ".writer.lock"
    }


def test_an_unpacked_root_reports_the_same_fits_as_the_original(demo_store, tmp_path, capsys):
    root = demo_store.parent
    archive, copy = tmp_path / "stores.tar.xz", tmp_path / "copy"
    assert main(["stores", "pack", str(root), "--out", str(archive)]) == 0
    packed = capsys.readouterr().out.strip().splitlines()
    assert len(packed) == 1 and packed[0].startswith("packed 1 results directory of "), packed
    assert main(["stores", "unpack", str(archive), "--out", str(copy)]) == 0
    assert "unpacked 1 results directory" in capsys.readouterr().out

    names = tarfile.open(archive).getnames()
    assert names[0] == MANIFEST and names[1:] == sorted(names[1:])
    assert not any("report" in name.split("/") or name.endswith(".writer.lock") for name in names), names
    assert store_files(copy) == store_files(root)  # the same bytes and mtimes, reproduce.jsonl included
    assert not (copy / "ledger").exists() and not (copy / "demo_small" / "report").exists()

    assert main(["report", str(copy / "demo_small")]) == 0
    original = pd.read_csv(demo_store / "report" / "fits.csv")
    remade = pd.read_csv(copy / "demo_small" / "report" / "fits.csv")
    assert len(original) > 0
    pd.testing.assert_frame_equal(remade, original)


@pytest.fixture
def small_root(tmp_path):
    """Two results directories of a few files each (no training): enough for the archive's own checks."""
    root = tmp_path / "root"
    for name in ("one", "two"):
        (root / name / "runs").mkdir(parents=True)
        (root / name / "sweep.yaml").write_text(f"name: {name}\nstudy: a_study\n")
        (root / name / "runs" / "pack-a.parquet").write_bytes(random.Random(name).randbytes(20_000))  # incompressible
        (root / name / "report").mkdir()
        (root / name / "report" / "index.html").write_text("<html>")
    (root / "reproduce.jsonl").write_text("{}\n")
    return root


def test_packing_the_same_stores_twice_gives_the_same_bytes(small_root, tmp_path):
    first, second = tmp_path / "a.tar.xz", tmp_path / "b.tar.xz"
    pack(small_root, first)
    pack(small_root, second)
    assert first.read_bytes() == second.read_bytes()


def test_a_flipped_byte_in_the_archive_is_refused_naming_the_member_and_nothing_is_written(small_root, tmp_path):
    archive = tmp_path / "stores.tar.xz"
    pack(small_root, archive)
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0x01
    archive.write_bytes(bytes(data))
    with pytest.raises(UserError) as refused:
        unpack(archive, tmp_path / "out")
    assert str(refused.value).startswith(f"{archive}: ")
    assert "one/runs/pack-a.parquet" in str(refused.value) or "two/runs/pack-a.parquet" in str(refused.value)
    assert not (tmp_path / "out").exists()

    data[40] ^= 0x01  # in the manifest's compressed bytes
    archive.write_bytes(bytes(data))
    with pytest.raises(UserError, match="damaged in its first member, the manifest"):
        unpack(archive, tmp_path / "out")


def rebuilt(archive: Path, out: Path, change) -> Path:
    """The archive's members written again, `change(info, data)` giving each one's header and bytes (None: drop)."""
    with tarfile.open(archive) as source, tarfile.open(out, "w:xz") as target:
        for info in source.getmembers():
            changed = change(info, source.extractfile(info).read())
            if changed is not None:
                target.addfile(changed[0], io.BytesIO(changed[1]))
    return out


def test_a_member_whose_bytes_differ_from_the_manifest_is_refused_naming_it(small_root, tmp_path):
    archive = tmp_path / "stores.tar.xz"
    pack(small_root, archive)

    def flip(info, data):
        return (info, data[:10] + bytes([data[10] ^ 1]) + data[11:]) if info.name == "two/runs/pack-a.parquet" \
            else (info, data)  # fmt: skip

    damaged = rebuilt(archive, tmp_path / "damaged.tar.xz", flip)
    with pytest.raises(UserError, match=r"two/runs/pack-a\.parquet: its bytes differ from the manifest"):
        unpack(damaged, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # one/ came before two/ in the archive, and was not written either

    missing = rebuilt(archive, tmp_path / "missing.tar.xz", lambda info, data: None if "one/" in info.name else
                      (info, data))  # fmt: skip
    with pytest.raises(UserError, match=r"one/runs/pack-a\.parquet: in the manifest but not in the archive"):
        unpack(missing, tmp_path / "out")


def hand_made(path: Path, members: list[tarfile.TarInfo], manifest_files=()) -> Path:
    """An archive with a valid manifest (listing manifest_files) followed by the given members."""
    manifest = json.dumps({"format": "iclscale-stores/1", "directories": ["x"], "files": list(manifest_files)})
    with tarfile.open(path, "w:xz") as tar:
        info = tarfile.TarInfo(MANIFEST)
        info.size = len(manifest)
        tar.addfile(info, io.BytesIO(manifest.encode()))
        for member in members:
            tar.addfile(member, io.BytesIO(b"x" * member.size) if member.isreg() else None)
    return path


def member(name: str, kind: bytes = tarfile.REGTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = 1 if kind == tarfile.REGTYPE else 0
    if kind == tarfile.SYMTYPE:
        info.linkname = "/etc/passwd"
    return info


@pytest.mark.parametrize(
    "bad, why",
    [
        (member("../evil"), "leaves the directory"),
        (member("x/../../evil"), "leaves the directory"),
        (member("/tmp/iclscale-test-evil"), "an absolute path"),
        (member("x/link", tarfile.SYMTYPE), "a symbolic link, not a plain file"),
        (member("x/device", tarfile.CHRTYPE), "a device or pipe, not a plain file"),
        (member("x/stray"), "not in the archive's manifest"),
    ],
)
def test_a_member_that_would_leave_the_root_or_is_not_a_plain_file_is_refused(tmp_path, bad, why):
    archive = hand_made(tmp_path / "bad.tar.xz", [bad])
    with pytest.raises(UserError) as refused:
        unpack(archive, tmp_path / "out" / "deep")
    assert why in str(refused.value) and bad.name in str(refused.value), refused.value
    assert not (tmp_path / "out").exists() and not (tmp_path / "evil").exists()
    assert not Path("/tmp/iclscale-test-evil").exists()


def test_a_manifest_entry_that_would_leave_the_root_is_refused(tmp_path):
    entry = {"path": "../evil", "size": 1, "sha256": "0" * 64, "mtime_ns": 0}
    archive = hand_made(tmp_path / "bad.tar.xz", [member("../evil")], [entry])
    with pytest.raises(UserError, match=r"manifest entry \.\./evil: an absolute path or one that leaves"):
        unpack(archive, tmp_path / "out")
    assert not (tmp_path / "evil").exists()


def test_unpacking_over_a_different_file_is_refused_and_over_the_same_files_writes_nothing(small_root, tmp_path):
    archive, out = tmp_path / "stores.tar.xz", tmp_path / "out"
    pack(small_root, archive)
    assert unpack(archive, out).written == 5
    again = unpack(archive, out)
    assert (again.written, again.already_there) == (0, 5)

    changed = out / "two" / "sweep.yaml"
    changed.write_text("name: two\nstudy: another\n")
    with pytest.raises(UserError, match=r"two/sweep\.yaml already holds a different file"):
        unpack(archive, out)
    assert changed.read_text() == "name: two\nstudy: another\n"

    changed.unlink()
    changed.mkdir()
    with pytest.raises(UserError, match=r"two/sweep\.yaml is not a plain file"):
        unpack(archive, out)


def test_a_file_that_is_not_an_archive_gets_one_line_and_exit_2(small_root, tmp_path, capsys):
    plain = tmp_path / "plain.tar.xz"
    with tarfile.open(plain, "w:xz") as tar:  # a tar.xz, but not of stores: no manifest first
        tar.add(small_root / "reproduce.jsonl", arcname="reproduce.jsonl")
    text = tmp_path / "notes.txt"
    text.write_text("not an archive\n")
    for bad in (text, plain):
        assert main(["stores", "unpack", str(bad), "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("iclscale: error: "), err
        assert f"{bad}: not an archive of iclscale stores" in err[0], err
    assert not (tmp_path / "out").exists()


def test_pack_refuses_an_out_inside_the_root_an_existing_out_and_a_root_without_stores(small_root, tmp_path, capsys):
    assert main(["stores", "pack", str(small_root), "--out", str(small_root / "stores.tar.xz")]) == 2
    assert "inside" in capsys.readouterr().err
    assert not (small_root / "stores.tar.xz").exists()

    existing = tmp_path / "old.tar.xz"
    existing.write_bytes(b"an older archive")
    assert main(["stores", "pack", str(small_root), "--out", str(existing)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert existing.read_bytes() == b"an older archive"

    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["stores", "pack", str(empty), "--out", str(tmp_path / "x.tar.xz")]) == 2
    assert "holds no results directory" in capsys.readouterr().err


def test_pack_refuses_a_symbolic_link_in_a_store(small_root, tmp_path):
    (small_root / "one" / "runs" / "pack-b.parquet").symlink_to(small_root / "two" / "runs" / "pack-a.parquet")
    with pytest.raises(UserError, match=r"pack-b\.parquet: a symbolic link, not a plain file"):
        pack(small_root, tmp_path / "stores.tar.xz")
    assert list(tmp_path.glob("*.tar.xz")) == [] and list(tmp_path.glob(".*.tmp")) == []

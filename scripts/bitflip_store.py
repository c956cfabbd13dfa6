"""Flip single bits of a runs and a curves fragment of a small store: count the flips a reader of the
store detects (all of them should be), then heal a sample by `sweep run` and compare a plain pandas read
of the healed store with the undamaged one.

    python scripts/bitflip_store.py [--heal N] [--every K]

Every K-th byte of each file (K=1: every byte), every bit of it, is flipped in turn.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_store_checksums import _run, flip, plain_read

from iclscale.sweeps import store_fragments
from iclscale.sweeps.store import Location
from iclscale.sweeps.store_fragments import fragment_problem


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--heal", type=int, default=20, help="flips healed by a full `sweep run` per file")
    parser.add_argument("--every", type=int, default=1, help="flip bits of every K-th byte")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bitflip-"))
    pristine = root / "pristine"
    pristine.mkdir()
    with contextlib.redirect_stdout(io.StringIO()):
        assert _run(pristine) == 0
    clean = plain_read(pristine / "out")
    for folder in ("runs", "curves"):
        work = root / folder
        shutil.copytree(pristine, work)
        victim = sorted((work / "out" / folder).glob("pack-*.parquet"))[0]
        name, size = victim.stem, victim.stat().st_size
        location = Location(work / "out")
        flips = missed = 0
        start = time.monotonic()
        for offset in range(0, size, args.every):
            for bit in range(8):
                original = flip(victim, offset, bit)
                store_fragments._checked.clear()
                flips += 1
                missed += fragment_problem(location, name, quiet=True) is None
                victim.write_bytes(original)
        detect_s = time.monotonic() - start
        healed = equal = 0
        for offset in random.Random(1).sample(range(size), min(args.heal, size)):
            shutil.rmtree(work)
            shutil.copytree(pristine, work)
            flip(victim, offset, offset % 8)
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                code = _run(work)
            healed += code == 0
            same = all(
                a.equals(b) and a.dtypes.equals(b.dtypes) for a, b in zip(plain_read(work / "out"), clean, strict=True)
            )
            equal += same
            if not same:
                pd.testing.assert_frame_equal(plain_read(work / "out")[0], clean[0])
        print(
            f"{folder} fragment of {size} bytes: {flips} single-bit flips, {flips - missed} detected, {missed} missed "
            f"({detect_s:.1f} s); {args.heal} flips then `sweep run`: {healed} exit 0, {equal} equal to the undamaged "
            "store under a plain pandas read"
        )
    shutil.rmtree(root)


if __name__ == "__main__":
    main()

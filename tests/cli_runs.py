"""The `iclscale` command run as a user runs it, in a subprocess: shared by the tests of what a researcher sees."""

import subprocess
import sys

ICLSCALE = [sys.executable, "-m", "iclscale.cli"]


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """`iclscale ARGS...`; a `train` runs eagerly (compiling would cost more than these tests' few steps)."""
    if args[0] == "train":
        args = (*args, "--compile", "off")
    return subprocess.run([*ICLSCALE, *args], capture_output=True, text=True, timeout=timeout)

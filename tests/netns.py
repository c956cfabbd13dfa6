"""Network namespaces for tests: private test hosts on this machine, cleaned up by pid.

Tests talk only to loopback or to hosts in namespaces they made themselves, never to the machine's
own external address.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import pytest


def ip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)


def require_namespaces() -> None:
    """Skip, with the reason, where network namespaces cannot be made."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if shutil.which("ip") is None:
        pytest.skip("network namespaces need `ip` (iproute2)")


def add_namespace(name: str, made: list[str]) -> None:
    out = ip("netns", "add", name)
    if out.returncode != 0:
        pytest.skip(f"cannot make a network namespace (`ip netns add` failed: {out.stderr.strip()})")
    made.append(name)


def run_ip_steps(steps: list[tuple[str, ...]]) -> None:
    for step in steps:
        out = ip(*step)
        if out.returncode != 0:
            pytest.fail(f"`ip {' '.join(step)}` failed: {out.stderr.strip()}")


def namespace_pids(namespace: str) -> list[int]:
    out = ip("netns", "pids", namespace)
    return [int(p) for p in out.stdout.split()] if out.returncode == 0 else []


def stop_namespace_processes(namespaces: list[str], grace_s: float = 3.0) -> None:
    """SIGTERM every process in the namespaces (only ours: nothing else lives there), then SIGKILL what is
    left (Ray's GCS and raylets do not exit on SIGTERM within seconds; a test cluster needs no drain)."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        pids = [pid for ns in namespaces for pid in namespace_pids(ns)]
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait_s
        while pids and time.monotonic() < deadline:
            time.sleep(0.2)
            pids = [pid for ns in namespaces for pid in namespace_pids(ns)]
        if not pids:
            return


def remove_namespaces(namespaces: list[str], links: tuple[str, ...] = ()) -> dict[str, list[int]]:
    """Stop their processes, delete them (and stray veth ends); returns pids that would not die."""
    stop_namespace_processes(namespaces)
    left = {ns: namespace_pids(ns) for ns in namespaces}
    for ns in namespaces:
        ip("netns", "delete", ns)
    for name in links:  # only there if a test failed between making a veth pair and moving it
        if ip("link", "show", name).returncode == 0:
            ip("link", "delete", name)
    return {ns: pids for ns, pids in left.items() if pids}

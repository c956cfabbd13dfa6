"""A real two-node Ray cluster on this machine: `iclscale sweep run FILE --address ADDR` spreads a sweep's
packs over both nodes, and every config is stored.

Network rule: the test talks only to hosts in network namespaces it makes itself, never to the machine's
own external address (which Ray binds by default). The head runs in one namespace, the worker in another,
joined by a veth pair with private test addresses; the sweep's driver runs in the head's namespace. Neither
namespace has a route anywhere else.

Authentication: Ray 2.60 enables token authentication by default only for clusters that ray.init() starts;
`ray start --head` turns it on when it finds a token (~/.ray/auth_token), but a worker's `ray start
--address` and a driver's `ray.init(address=host:port)` turn it on only when RAY_AUTH_MODE=token is in their
environment. So every Ray process here gets RAY_AUTH_MODE=token and RAY_AUTH_TOKEN_PATH pointing at a fresh
token of this test (never the user's ~/.ray/auth_token), and inherited RAY_* variables are dropped.

Cleanup, also when the test fails: every process in the two namespaces (Ray's daemons, workers, the driver)
is stopped by pid (`ip netns pids`), then the namespaces are deleted, which removes the veth pair.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from netns import add_namespace, ip, remove_namespaces, require_namespaces, run_ip_steps

pytestmark = [pytest.mark.netns, pytest.mark.ray]

HEAD_IP, WORKER_IP, PREFIX_LEN = "10.231.0.1", "10.231.0.2", 24
GCS_PORT = 6390
NODE_TIMEOUT_S = 60
SWEEP_TIMEOUT_S = 180

SWEEP = """\
name: two_node_cluster
study: softmax_window
description: tiny sweep for the two-node Ray cluster test
fixed: {d: 2, n: 20, task_class: affine, steps: 100, tasks_per_iter: 4, lr: 0.05}
grid:
  sigma: [0.5, 1.0]
seeds: 4
record_every: 50
resources: {cpu: 1, gpu: 0, pack_size: 2}
"""
CONFIGS, PACKS = 8, 4  # 2 sigmas × 4 seeds, pack_size 2

# Run in the head's namespace: connect, then wait until both nodes are alive (prints their addresses).
WAIT_FOR_NODES = textwrap.dedent(
    """
    import json, sys, time
    import ray
    address, timeout, want = sys.argv[1], float(sys.argv[2]), set(sys.argv[3:])
    ray.init(address=address, logging_level="ERROR", log_to_driver=False)
    deadline = time.monotonic() + timeout
    while True:
        alive = sorted(n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"])
        if want <= set(alive) or time.monotonic() > deadline:
            print(json.dumps(alive))
            sys.exit(0 if want <= set(alive) else 3)
        time.sleep(0.5)
    """
)


def _console_script(name: str) -> str:
    """A console script of this environment (ray, iclscale): beside the interpreter, else on PATH."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"the `{name}` command is not installed in this environment")
    return found


def _tail(text: str | bytes | None, lines: int = 40) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return "\n".join((text or "").splitlines()[-lines:])


@dataclass
class TwoNodeCluster:
    head_ns: str
    worker_ns: str
    address: str
    env: dict[str, str]
    ray_dirs: dict[str, Path]

    def run(self, namespace: str, args: list[str], timeout: float) -> subprocess.CompletedProcess:
        """Run a command inside a namespace with the cluster's environment (its own auth token)."""
        try:
            return subprocess.run(
                ["ip", "netns", "exec", namespace, *args],
                env=self.env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as error:
            pytest.fail(
                f"timed out after {timeout:.0f} s: {' '.join(args)}\n"
                f"--- output ---\n{_tail(error.stdout)}\n{_tail(error.stderr)}\n{self.logs_tail()}"
            )

    def logs_tail(self, lines: int = 25) -> str:
        """The end of each Ray node's logs, for failure messages."""
        parts = []
        for role, root in self.ray_dirs.items():
            logs = root / "session_latest" / "logs"
            if not logs.is_dir():
                parts.append(f"--- {role}: no Ray logs under {logs}")
                continue
            names = ["gcs_server.out", "gcs_server.err", "raylet.out", "raylet.err", "monitor.log"]
            for path in [logs / n for n in names] + sorted(logs.glob("worker-*.err"))[-2:]:
                if path.is_file() and path.stat().st_size:
                    text = path.read_text(errors="replace").splitlines()
                    kept = [line for line in text if line.strip() and not line.startswith(("[state-dump]", "\t"))]
                    parts.append(f"--- {role}: {path.name}\n" + _tail("\n".join(kept), lines))
        return "\n".join(parts)

    def check(self, proc: subprocess.CompletedProcess, what: str) -> str:
        if proc.returncode != 0:
            pytest.fail(
                f"{what} failed (exit {proc.returncode})\n--- stdout ---\n{_tail(proc.stdout)}\n"
                f"--- stderr ---\n{_tail(proc.stderr)}\n{self.logs_tail()}"
            )
        return proc.stdout


def _make_network(head_ns: str, worker_ns: str, veth: tuple[str, str], made: list[str]) -> None:
    """Two namespaces joined by a veth pair; skips the test where namespaces cannot be made."""
    for ns in (head_ns, worker_ns):
        add_namespace(ns, made)
    head_if, worker_if = veth
    out = ip("link", "add", head_if, "type", "veth", "peer", "name", worker_if)
    if out.returncode != 0:
        pytest.skip(f"cannot make a veth pair between test namespaces: {out.stderr.strip()}")
    steps = [
        ("link", "set", head_if, "netns", head_ns),
        ("link", "set", worker_if, "netns", worker_ns),
        ("-n", head_ns, "addr", "add", f"{HEAD_IP}/{PREFIX_LEN}", "dev", head_if),
        ("-n", worker_ns, "addr", "add", f"{WORKER_IP}/{PREFIX_LEN}", "dev", worker_if),
        ("-n", head_ns, "link", "set", "lo", "up"),
        ("-n", worker_ns, "link", "set", "lo", "up"),
        ("-n", head_ns, "link", "set", head_if, "up"),
        ("-n", worker_ns, "link", "set", worker_if, "up"),
    ]
    run_ip_steps(steps)


@pytest.fixture
def two_node_cluster() -> Iterator[TwoNodeCluster]:
    require_namespaces()
    tag = secrets.token_hex(4)
    head_ns, worker_ns = f"iclh-{tag}", f"iclw-{tag}"
    veth = (f"ivh{tag}", f"ivw{tag}")
    # A short root: Ray's AF_UNIX socket paths under the temp dir must stay below 108 bytes.
    root = Path(tempfile.mkdtemp(prefix=f"iclray-{tag}-", dir="/tmp"))
    made: list[str] = []
    try:
        _make_network(head_ns, worker_ns, veth, made)
        token = root / "auth_token"
        token.write_text(secrets.token_hex(32))
        token.chmod(0o600)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env.update(
            RAY_AUTH_MODE="token",
            RAY_AUTH_TOKEN_PATH=str(token),
            RAY_USAGE_STATS_ENABLED="0",
            PYTHONUNBUFFERED="1",
        )
        ray_dirs = {"head": root / "head", "worker": root / "worker"}
        cluster = TwoNodeCluster(head_ns, worker_ns, f"{HEAD_IP}:{GCS_PORT}", env, ray_dirs)
        ray = _console_script("ray")
        common = ["--num-cpus=1", "--num-gpus=0", "--disable-usage-stats"]
        head = [ray, "start", "--head", f"--node-ip-address={HEAD_IP}", f"--port={GCS_PORT}"]
        head += [f"--temp-dir={ray_dirs['head']}", "--include-dashboard=false", *common]
        cluster.check(cluster.run(head_ns, head, NODE_TIMEOUT_S), "`ray start --head` in the head namespace")
        worker = [ray, "start", f"--address={cluster.address}", f"--node-ip-address={WORKER_IP}"]
        worker += [f"--temp-dir={ray_dirs['worker']}", *common]
        cluster.check(cluster.run(worker_ns, worker, NODE_TIMEOUT_S), "`ray start --address` in the worker namespace")
        wait = [sys.executable, "-c", WAIT_FOR_NODES, cluster.address, str(NODE_TIMEOUT_S), HEAD_IP, WORKER_IP]
        cluster.check(cluster.run(head_ns, wait, NODE_TIMEOUT_S + 30), "waiting for both nodes to register")
        yield cluster
    finally:
        left = remove_namespaces(made, veth)
        shutil.rmtree(root, ignore_errors=True)
        assert not left, f"processes still running in the test namespaces: {left}"


def test_sweep_packs_run_on_both_nodes(two_node_cluster, tmp_path):
    from iclscale.sweeps.store_read import read_store

    cluster = two_node_cluster
    sweep_file, out = tmp_path / "two_node_cluster.yaml", tmp_path / "results"
    sweep_file.write_text(SWEEP)
    iclscale = _console_script("iclscale")

    run = [iclscale, "sweep", "run", str(sweep_file), "--address", cluster.address, "--out", str(out)]
    stdout = cluster.check(cluster.run(cluster.head_ns, run, SWEEP_TIMEOUT_S), "`iclscale sweep run --address`")

    runs = read_store(out, curves=False).runs
    assert len(runs) == CONFIGS and runs["pack_id"].nunique() == PACKS, runs[["run_id", "pack_id", "node"]]
    assert set(runs["status"]) == {"ok"}, runs[["run_id", "status", "error"]]
    nodes = set(runs["node"])
    assert nodes == {HEAD_IP, WORKER_IP}, f"packs ran on {sorted(nodes)}\n{_tail(stdout)}\n{cluster.logs_tail()}"

    status = cluster.check(cluster.run(cluster.head_ns, [iclscale, "sweep", "status", str(out)], 60), "sweep status")
    assert f"{CONFIGS} configs: {CONFIGS} ok, 0 diverged, 0 failed, 0 missing" in status, status

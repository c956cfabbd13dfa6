"""A local Ray instance started by the tool listens on loopback only.

On Linux Ray binds the machine's external address unless told otherwise, and its dashboard and job
API have no authentication. The test builds a stand-in for a real machine: a network namespace with
an "external" interface and a default route through it (to a second namespace, the "router"). Inside
it, the tool's `start_ray` must bind nothing but 127.0.0.1; plain `ray.init()` — the control that
shows the test can fail — takes the external address.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import tempfile
import textwrap

import pytest
from netns import add_namespace, ip, remove_namespaces, require_namespaces, run_ip_steps

pytestmark = [pytest.mark.netns, pytest.mark.ray]
EXTERNAL_IP, ROUTER_IP = "10.232.0.2", "10.232.0.1"

PROBE = textwrap.dedent(
    """
    import json, subprocess, sys
    if sys.argv[1] == "tool":
        from iclscale.sweeps.ray_executor import start_ray
        start_ray(None, quiet=True)
    else:
        import ray
        ray.init(address="local", include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    import ray
    listening = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True).stdout.split("\\n")
    addresses = sorted({line.split()[3].rsplit(":", 1)[0] for line in listening if line.strip()})
    print(json.dumps({"node_ip": ray.util.get_node_ip_address(), "listening": addresses}))
    ray.shutdown()
    """
)


@pytest.fixture
def machine_with_an_external_address():
    require_namespaces()
    tag = secrets.token_hex(4)
    host, router = f"iclm-{tag}", f"iclr-{tag}"
    veth = (f"ivm{tag}", f"ivr{tag}")
    made: list[str] = []
    try:
        add_namespace(host, made)
        add_namespace(router, made)
        if ip("link", "add", veth[0], "type", "veth", "peer", "name", veth[1]).returncode != 0:
            pytest.skip("cannot make a veth pair between test namespaces")
        run_ip_steps([
            ("link", "set", veth[0], "netns", host),
            ("link", "set", veth[1], "netns", router),
            ("-n", host, "addr", "add", f"{EXTERNAL_IP}/24", "dev", veth[0]),
            ("-n", router, "addr", "add", f"{ROUTER_IP}/24", "dev", veth[1]),
            ("-n", host, "link", "set", "lo", "up"),
            ("-n", host, "link", "set", veth[0], "up"),
            ("-n", router, "link", "set", veth[1], "up"),
            ("-n", host, "route", "add", "default", "via", ROUTER_IP),
        ])  # fmt: skip
        yield host
    finally:
        left = remove_namespaces(made, veth)
        assert not left, f"processes still running in the test namespaces: {left}"


def _probe(namespace: str, mode: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="iclray-", dir="/tmp") as ray_tmp:
        env = {"RAY_TMPDIR": ray_tmp, "RAY_USAGE_STATS_ENABLED": "0", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
        done = subprocess.run(["ip", "netns", "exec", namespace, sys.executable, "-c", PROBE, mode],
                              capture_output=True, text=True, timeout=180, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_tools_local_ray_binds_loopback_only(machine_with_an_external_address):
    control = _probe(machine_with_an_external_address, "plain")
    assert control["node_ip"] == EXTERNAL_IP  # Ray's default: the machine's external address
    tool = _probe(machine_with_an_external_address, "tool")
    assert tool["node_ip"] == "127.0.0.1"
    assert tool["listening"], "Ray opened no listening socket at all?"
    assert set(tool["listening"]) <= {"127.0.0.1", "[::1]", "[::ffff:127.0.0.1]"}, tool["listening"]  # loopback

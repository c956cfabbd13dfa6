"""cluster.yaml is a Ray cluster-launcher file that `ray up` accepts: the launcher's keys, a CPU head, an
autoscaling GPU worker type, iclscale installed on every node, token authentication, Ray started right.

Everything here is offline: the file is parsed, checked against the launcher's JSON schema (shipped in
ray/autoscaler/ray-schema.json) and run through the launcher's own config preparation, which fills in
the provider's defaults; nothing talks to a cloud."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

CLUSTER_YAML = Path(__file__).resolve().parent.parent / "cluster.yaml"
COMMAND_KEYS = (
    "initialization_commands",
    "setup_commands",
    "head_setup_commands",
    "worker_setup_commands",
    "head_start_ray_commands",
    "worker_start_ray_commands",
)


@pytest.fixture(scope="module")
def config() -> dict:
    raw = yaml.safe_load(CLUSTER_YAML.read_text())
    assert isinstance(raw, dict), "cluster.yaml must be a YAML mapping"
    return raw


def _node_types(config):
    return config["available_node_types"]


def _gpu_types(config):
    return {
        name: t
        for name, t in _node_types(config).items()
        if name != config["head_node_type"] and t["resources"].get("GPU", 0) >= 1
    }


def _ray_start(commands: list[str]) -> str:
    starts = [c for c in commands if "ray start" in c]
    assert len(starts) == 1, f"expected one `ray start` command, got {starts}"
    return " ".join(starts[0].split())


def test_top_level_keys_the_launcher_needs(config):
    assert isinstance(config["cluster_name"], str) and config["cluster_name"]
    assert config["provider"]["type"] == "aws"
    assert re.fullmatch(r"[a-z]{2}-[a-z]+-\d", config["provider"]["region"])
    assert config["auth"]["ssh_user"]
    assert isinstance(config["max_workers"], int) and config["max_workers"] >= 1
    for key in COMMAND_KEYS:  # every command list explicit: none of the provider's defaults leak in
        assert isinstance(config.get(key), list), f"{key} missing (the launcher would fill in its own defaults)"
        assert all(isinstance(c, str) and c.strip() for c in config[key]), key


def test_node_types_have_resources_and_node_config(config):
    types = _node_types(config)
    assert config["head_node_type"] in types
    for name, node_type in types.items():
        assert isinstance(node_type["resources"], dict), name
        assert node_type["node_config"]["InstanceType"], name
        assert node_type["node_config"]["ImageId"], name
    head = types[config["head_node_type"]]
    assert head["resources"].get("GPU", 0) == 0, "the head is a CPU node"
    assert sum(t.get("min_workers", 0) for t in types.values()) <= config["max_workers"]
    for name, node_type in types.items():
        assert node_type.get("max_workers", 0) <= config["max_workers"], name


def test_an_autoscaling_gpu_worker_type(config):
    gpu_types = _gpu_types(config)
    assert gpu_types, "no worker type with a GPU resource"
    for name, node_type in gpu_types.items():
        assert node_type["min_workers"] == 0, f"{name}: GPU workers start on demand (min_workers 0)"
        assert node_type["max_workers"] >= 1, name
        assert node_type["resources"]["CPU"] >= 1, name
        # Workers get no instance profile by default; without one they cannot write results to S3.
        assert node_type["node_config"].get("IamInstanceProfile"), f"{name}: needs an instance profile for S3"


def test_every_node_installs_iclscale_from_the_synced_checkout(config):
    mounts = config["file_mounts"]
    checkouts = [remote for remote, local in mounts.items() if local in (".", "./")]
    assert checkouts, "file_mounts must sync the repository (run `ray up` from its root)"
    for role in ("head", "worker"):
        commands = config["setup_commands"] + config[f"{role}_setup_commands"]  # what the launcher runs
        installs = [c for c in commands if "pip install" in c and any(f"-e {path}" in c for path in checkouts)]
        assert installs, f"{role} nodes never pip-install the synced checkout {checkouts}"
        torch = [c for c in commands if "pip install" in c and re.search(r"\storch(==|\s|$)", c)]
        assert torch, f"{role} nodes install no torch"
        cpu_wheels = any("download.pytorch.org/whl/cpu" in c for c in torch)
        assert cpu_wheels == (role == "head"), f"{role}: CPU torch on the head, CUDA torch on GPU workers"


def test_cluster_ray_version_matches_the_launcher():
    """`ray up` and the cluster must run the same Ray version."""
    ray = pytest.importorskip("ray")
    pins = set(re.findall(r"ray\[[a-z,]+\]==([0-9][0-9.]*)", CLUSTER_YAML.read_text()))
    assert pins == {ray.__version__}, f"cluster.yaml pins ray {pins}, this environment runs {ray.__version__}"


def test_ray_is_started_on_head_and_workers(config):
    head = _ray_start(config["head_start_ray_commands"])
    worker = _ray_start(config["worker_start_ray_commands"])
    assert "--head" in head
    assert "--autoscaling-config=~/ray_bootstrap_config.yaml" in head, "without it the head launches no workers"
    port = re.search(r"--port=(\d+)", head)
    assert port, head
    assert f"--address=$RAY_HEAD_IP:{port.group(1)}" in worker
    assert "--head" not in worker
    assert "dashboard-host" not in head, "the dashboard stays on the head's loopback (ray dashboard cluster.yaml)"


def test_token_authentication_on_every_node(config):
    token_mounts = [remote for remote, local in config["file_mounts"].items() if local == "~/.ray/auth_token"]
    assert token_mounts == ["/home/ubuntu/.ray/auth_token"], "ship the laptop's token to ~/.ray/auth_token"
    assert any("RAY_AUTH_MODE=token" in c for c in config["initialization_commands"])
    for key in ("head_start_ray_commands", "worker_start_ray_commands"):
        assert "RAY_AUTH_MODE=token" in _ray_start(config[key]), key


def test_notes_on_shared_results_storage():
    text = CLUSTER_YAML.read_text()
    assert "--out s3://" in text, "cluster.yaml should say where results go (an object store or shared path)"
    assert "--address auto" in text


def test_valid_against_the_launchers_json_schema(config):
    jsonschema = pytest.importorskip("jsonschema")
    autoscaler = pytest.importorskip("ray.autoscaler")
    schema_path = Path(autoscaler.__file__).parent / "ray-schema.json"
    if not schema_path.is_file():
        pytest.skip(f"this ray ships no launcher schema at {schema_path}")
    jsonschema.validate(config, json.loads(schema_path.read_text()))


def test_the_launcher_prepares_and_validates_it(config):
    """What `ray up` does before it contacts the cloud: fill in the provider's defaults, then validate."""
    util = pytest.importorskip("ray.autoscaler._private.util")
    prepared = util.prepare_config(json.loads(json.dumps(config)))
    util.validate_config(prepared)
    assert set(prepared["available_node_types"]) == set(config["available_node_types"])
    assert prepared["head_setup_commands"] == config["setup_commands"] + config["head_setup_commands"]
    assert prepared["worker_setup_commands"] == config["setup_commands"] + config["worker_setup_commands"]
    assert prepared["file_mounts"] == config["file_mounts"]

"""Results on an object store (an S3 API served on loopback by moto): the layout a cluster uses."""

import os

import pytest

from iclscale.cli import main
from iclscale.sweeps.store_read import read_store

moto_server = pytest.importorskip("moto.server")


@pytest.fixture
def bucket_uri(monkeypatch):
    import pyarrow.fs as pafs

    for key, value in {
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    options = f"endpoint_override={host}:{port}&scheme=http&region=us-east-1"
    pafs.S3FileSystem(endpoint_override=f"{host}:{port}", scheme="http", region="us-east-1",
                      allow_bucket_creation=True).create_dir("iclscale-results")  # fmt: skip
    yield lambda prefix: f"s3://iclscale-results/{prefix}?{options}"
    server.stop()


SWEEP = """\
name: s3_test
study: softmax_window
fixed: {d: 3, n: 8, steps: 20}
grid: {L: [0.5, 2.0]}
seeds: 2
record_every: 10
resources: {pack_size: 2}
"""


def test_a_sweep_writes_and_resumes_on_an_object_store(tmp_path, bucket_uri, capsys):
    sweep = tmp_path / "s3.yaml"
    sweep.write_text(SWEEP)
    uri = bucket_uri("s3_test")
    assert main(["sweep", "run", str(sweep), "--out", uri, "--executor", "inline", "--quiet"]) == 0
    assert "4 configs: 4 ok, 0 diverged, 0 failed, 0 missing" in capsys.readouterr().out
    data = read_store(uri)
    assert len(data.runs) == 4 and set(data.curves["run_id"]) == set(data.runs["run_id"])
    assert data.sweep["name"] == "s3_test"
    assert main(["sweep", "run", str(sweep), "--out", uri, "--executor", "inline"]) == 0
    assert "nothing to run" in capsys.readouterr().out
    assert not os.path.exists("s3:")  # nothing went to a local folder named like the URI

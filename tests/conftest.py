import os

import pytest
import torch

torch.set_num_threads(2)
# Eager training unless a test asks for the compiled step: "auto" would compile whenever the machine is slow
os.environ.setdefault("ICLSCALE_COMPILE", "off")
# A step that is not one graph would train eagerly with a warning; in the suite it fails the test
os.environ.setdefault("ICLSCALE_GRAPH_BREAKS", "error")


@pytest.fixture(scope="session", autouse=True)
def _compiled_functions_saved_per_session(tmp_path_factory):
    """Compiled steps are saved on disk across processes; the suite saves into its own directory."""
    from iclscale.trainer import precompiled

    previous, precompiled.ROOT = precompiled.ROOT, tmp_path_factory.mktemp("compiled")
    yield
    precompiled.ROOT = previous


@pytest.fixture(autouse=True)
def _footprints_cached_per_test(tmp_path, monkeypatch):
    """Memory footprints are cached on disk across processes; tests measure into their own file."""
    from iclscale.trainer import footprint

    monkeypatch.setattr(footprint, "CACHE_FILE", tmp_path / "footprints.json")
    monkeypatch.setattr(footprint, "_MEASURED", {})


@pytest.fixture
def softmax_window():
    from iclscale.trainer.registry import study_info

    return study_info("softmax_window")

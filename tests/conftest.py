import contextlib
import os
import signal

import pytest
import torch

torch.set_num_threads(2)
# Eager training unless a test asks for the compiled step: "auto" would compile whenever the machine is slow
os.environ.setdefault("ICLSCALE_COMPILE", "off")
# A step that is not one graph would train eagerly with a warning; in the suite it fails the test
os.environ.setdefault("ICLSCALE_GRAPH_BREAKS", "error")


SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE)


@contextlib.contextmanager
def signals_restored():
    """Signal handlers and the wakeup fd as they were before: a handler installed by a CLI command run in this
    process (run_sweep, Ray's driver, `main`'s SIGPIPE) would otherwise outlive its test, and a suite with SIGINT
    ignored or SIGTERM caught stops only on SIGKILL."""
    handlers = {number: signal.getsignal(number) for number in SIGNALS}
    wakeup_fd = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup_fd)
    try:
        yield
    finally:
        for number, handler in handlers.items():
            if handler is not None:  # None: not set from Python (nothing Python can put back)
                signal.signal(number, handler)
        signal.set_wakeup_fd(wakeup_fd)


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    with signals_restored():
        yield


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

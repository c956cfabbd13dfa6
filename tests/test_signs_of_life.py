"""What a researcher sees on a long run and after it: the status line and its heartbeat in a log, and, over every
study in the registry, every metric's meaning declared and a metric family matching its members only. A paper's own
metrics in `studies` and `train`'s output are tested in its folder (tests/papers/<paper>/test_<paper>_cli.py);
`key=value` for `train` and the hint for a Hydra comma list, with the command line (tests/test_cli.py)."""

import io
import re
import time

import pytest

from iclscale.paper import smoke_configs
from iclscale.trainer.registry import all_studies, study_info
from iclscale.trainer.statusline import StatusLine

STAMP = r"\d\d:\d\d:\d\dZ"


def test_a_log_gets_a_stamped_heartbeat_while_nothing_happens_and_a_last_line_at_the_end():
    stream = io.StringIO()  # not a terminal
    count = [0]
    status = StatusLine(lambda: f"working {count[0]}", stream, every=0.3)
    time.sleep(1.1)  # no event at all: only the heartbeat speaks
    count[0] = 7
    status.close()
    lines = stream.getvalue().splitlines()
    assert 2 <= len(lines) - 1 <= 5, lines  # about one heartbeat per 0.3 s, then the last line
    assert all(re.fullmatch(rf"working \d · {STAMP}", line) for line in lines), lines
    assert lines[-1].startswith("working 7")


def test_a_status_line_survives_pickling_as_a_closed_copy():  # Ray Tune pickles its callbacks
    import pickle

    from iclscale.sweeps.progress import Progress

    plan = type("Plan", (), {"packs": []})()
    stream = io.StringIO()
    progress = Progress(plan, stream=stream)
    copy = pickle.loads(pickle.dumps(progress))
    copy.status.update(milestone=True)
    copy.close()
    progress.close()
    assert copy.line().startswith("progress: 0/0 configs") and stream.getvalue().count("\n") == 1


def test_a_short_training_in_a_log_prints_no_status_line():
    from iclscale.trainer.train_progress import TrainProgress

    stream = io.StringIO()
    progress = TrainProgress("study run", 10, stream)
    progress(10, 10, None)
    progress.close()
    assert stream.getvalue() == ""


def test_milestones_in_a_log_are_spaced_by_the_heartbeat_interval():
    stream = io.StringIO()
    status = StatusLine(lambda: "step", stream, every=60)
    for _ in range(50):
        status.update(milestone=True)  # many events within a second: none printed before 60 s
    status.close()
    assert stream.getvalue().count("\n") == 1


SMOKE = smoke_configs()  # every study at a small size, from its paper's laws record
STUDIES = [info.name for info in all_studies()]


def test_the_metric_checks_cover_every_study_and_some_family():
    assert STUDIES and sorted(SMOKE) == STUDIES
    assert any("#" in metric.name for info in all_studies() for metric in info.metrics)


@pytest.mark.parametrize("name", STUDIES)
def test_every_final_metric_of_every_study_has_a_declared_meaning(name):
    from iclscale.trainer.training import train_pack

    for info in [study_info(name)]:
        # two steps whatever the role of `steps` (a shape param in one paper, whose default is 30,000 records)
        values = {**SMOKE[info.name].config, "steps": 2} if "steps" in info.names("train", "shape") else {}
        config, point = info.resolve(values, 0, "test")
        result = train_pack(info, [config], [point], 1, device="cpu", compile="off")
        undeclared = [n for n in result.final_metrics(0, point) if info.metric(n) is None]
        assert not undeclared, f"{info.name}: {undeclared}"
        assert any(m.headline for m in info.metrics), info.name


@pytest.mark.parametrize("name", STUDIES)
def test_a_metric_family_matches_its_members_only(name):
    """`#` in a declared name stands for an index: digits match it, letters do not (`x_#` leaves `x_median` to its
    own declaration), and a stack's layer 2 reports each metric again as `layer2_<name>`, "(layer 2)" in its
    meaning."""
    info = study_info(name)
    for metric in info.metrics:
        member = metric.name.replace("#", "007")
        assert info.metric(member).name == metric.name, member
        if "#" in metric.name:
            assert info.metric(metric.name.replace("#", "x")) is None, metric.name
        layered = info.metric(f"layer2_{member}")
        assert layered.name == f"layer2_{metric.name}" and "(layer 2)" in layered.meaning, member


def test_a_long_training_in_a_log_says_how_long_it_takes_and_shows_step_loss_rate_and_eta(tmp_path):
    from iclscale.trainer.train_progress import memoise_rate, memoised_rate

    rates = tmp_path / "rates.json"
    assert memoised_rate("k", rates) is None
    memoise_rate("k", 12.5, rates)
    assert memoised_rate("k", rates) == 12.5

    from iclscale.trainer.train_progress import TrainProgress

    stream = io.StringIO()
    progress = TrainProgress("study run", 10_000, stream, rate=10.0)  # 1000 s from the memoised rate
    progress(100, 10_000, None)
    progress.close()
    text = stream.getvalue()
    assert "study run: 10000 steps will take about 16:40 (from the rate" in text
    assert re.search(rf"study run: step 100/10000 · loss — · \S+ steps/s · elapsed 0:00 · ETA \S+ · {STAMP}", text)


def test_torchs_no_cuda_runtime_notice_stays_out_of_progress_output(caplog):
    """torch's CUDA build without a GPU logs this when a compile imports torch.utils.cpp_extension; in every
    process that trains a pack (iclscale.sweeps.execute) it is dropped, and only it."""
    import logging

    import iclscale.sweeps.execute  # noqa: F401  what a Ray worker or an inline run imports before training

    logger = logging.getLogger("torch.utils.cpp_extension")
    with caplog.at_level(logging.WARNING):
        logger.warning("No CUDA runtime is found, using CUDA_HOME='%s'", "/usr/local/cuda")
        logger.warning("Error checking compiler version for %s", "c++")
    assert [record.getMessage() for record in caplog.records] == ["Error checking compiler version for c++"]

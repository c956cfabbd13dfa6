import pytest
import torch

torch.set_num_threads(2)


@pytest.fixture
def softmax_window():
    from iclscale.registry import study_info

    return study_info("softmax_window")

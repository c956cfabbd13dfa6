import os

import pytest
import torch

torch.set_num_threads(2)
# Eager training unless a test asks for the compiled step: "auto" would compile whenever the machine is slow
os.environ.setdefault("ICLSCALE_COMPILE", "off")


@pytest.fixture
def softmax_window():
    from iclscale.registry import study_info

    return study_info("softmax_window")

"""The study `scalar_sgd`: its params and metrics (torch-free: `iclscale studies` and `sweep plan` read only
this; training loads the implementation named below)."""

from iclscale.trainer.params import Param, recipe_params
from iclscale.trainer.registry import Metric, StudyInfo

SCALAR_SGD = StudyInfo(
    name="scalar_sgd",
    title="SGD on a scalar linear regression: the excess risk is a fixed multiple of the noise σ²",
    paper="iclscale's worked example: y = a·x + σ·ε, ŷ = w·x trained by constant-step SGD",
    implementation="scalar_sgd.study:ScalarSGD",
    metrics=(
        Metric("excess_risk", "mean over the chains of (w − a)², the population loss above σ²", headline=True),
        Metric("w", "mean over the chains of the learned weight w (the teacher's is a)"),
    ),
    params=(
        Param("batch", int, 16, "shape", "examples per SGD step B", low=1, high=10**6, symbol="B"),
        Param("chains", int, 256, "shape", "independent runs per config, averaged by the metrics", low=1, high=10**6),
        *recipe_params(steps=300, lr=0.1, optimizer="sgd", source="the example's choice"),
        Param("a", float, 1.0, "train", "the teacher's slope a", symbol="a"),
        Param("sigma", float, 0.1, "train", "label-noise std σ", low=0, low_open=True, symbol="σ"),
    ),
)

DECLARATIONS = (SCALAR_SGD,)

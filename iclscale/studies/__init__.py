"""Every study's declaration, in one explicit list (no string registries that can disagree)."""

from iclscale.studies.cooccurrence.declaration import COOCCURRENCE
from iclscale.studies.feature_selector.declaration import FEATURE_SELECTOR
from iclscale.studies.mamba_outliers.declaration import MAMBA_OUTLIERS
from iclscale.studies.nonlinear_icl.declaration import NONLINEAR_ICL, NONLINEAR_ICL_GPT2
from iclscale.studies.softmax_window.declaration import SOFTMAX_WINDOW, SOFTMAX_WINDOW_ORACLE

DECLARATIONS = (
    SOFTMAX_WINDOW,
    SOFTMAX_WINDOW_ORACLE,
    NONLINEAR_ICL,
    NONLINEAR_ICL_GPT2,
    FEATURE_SELECTOR,
    MAMBA_OUTLIERS,
    COOCCURRENCE,
)

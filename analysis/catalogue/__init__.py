"""Every study's laws, in one explicit list (a new paper adds a module here and one line below)."""

from analysis.catalogue.nonlinear_icl import LAWS as NONLINEAR_ICL_LAWS
from analysis.catalogue.softmax_window import LAWS as SOFTMAX_WINDOW_LAWS

ALL_LAWS = (*SOFTMAX_WINDOW_LAWS, *NONLINEAR_ICL_LAWS)

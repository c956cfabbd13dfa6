"""Classical learners fit on each prompt's demonstrations ([L24] Fig. 4): logistic regression, SVM with a
Gaussian (RBF) or linear kernel, 1-NN and 3-NN.

Each learner takes the demonstrations (x_i, ±1) of one prompt as its training set and predicts the
query's label. Settings are not from the paper (Fig. 4 gives none): scikit-learn defaults (C = 1,
gamma = "scale"), features x_i ∈ R^{d_X} only, k-NN with k = min(k, l). A prompt whose demonstrations
all carry one label is predicted as that label; a prompt with no demonstration is a tie (half an error,
as for the transformer). One fit per prompt, so this runs in a Python loop, at the final record only.
"""

from __future__ import annotations

import numpy as np
import torch

from iclscale.papers.nonlinear_icl.declaration import CLASSICAL_LEARNERS


def make_learner(name: str, l: int):
    """A fresh scikit-learn classifier for a prompt with l demonstrations. (scikit-learn is imported here:
    only these final-record measurements need it, and it takes about a second to import.)"""
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC

    match name:
        case "logistic":
            return LogisticRegression()
        case "svm_rbf":
            return SVC(kernel="rbf")
        case "svm_linear":
            return SVC(kernel="linear")
        case "knn1":
            return KNeighborsClassifier(n_neighbors=1)
        case "knn3":
            return KNeighborsClassifier(n_neighbors=min(3, l))
    raise ValueError(f"unknown learner {name!r}; expected one of {', '.join(CLASSICAL_LEARNERS)}")


def predict_query(learner: str, x_context: np.ndarray, labels: np.ndarray, x_query: np.ndarray) -> float:
    """±1, or 0 for a tie: one prompt's demonstrations (l, d), labels (l,), query (d,)."""
    if len(labels) == 0:
        return 0.0
    if np.all(labels == labels[0]):
        return float(labels[0])
    model = make_learner(learner, len(labels))
    model.fit(x_context, labels)
    return float(model.predict(x_query[None, :])[0])


def classical_error(
    learner: str, x_context: torch.Tensor, labels: torch.Tensor, x_query: torch.Tensor, z: torch.Tensor
) -> torch.Tensor:
    """(pack_size,) classification error of `learner` over n prompts per config.

    x_context (pack_size, n, l, d), labels (pack_size, n, l) ±1, x_query (pack_size, n, d), z (pack_size, n) ±1."""
    if learner not in CLASSICAL_LEARNERS:
        raise ValueError(f"unknown learner {learner!r}; expected one of {', '.join(CLASSICAL_LEARNERS)}")
    X = x_context.detach().to("cpu", torch.float64).numpy()
    Y = labels.detach().to("cpu").numpy()
    Q = x_query.detach().to("cpu", torch.float64).numpy()
    Z = z.detach().to("cpu").numpy()
    pack_size, n = Z.shape
    margin = np.array(
        [[Z[k, i] * predict_query(learner, X[k, i], Y[k, i], Q[k, i]) for i in range(n)] for k in range(pack_size)]
    )
    error = (margin < 0) + 0.5 * (margin == 0)
    return torch.as_tensor(error.mean(axis=1), dtype=torch.float32, device=z.device)

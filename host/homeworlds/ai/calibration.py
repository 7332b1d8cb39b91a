"""Logistic regression and the scores of a probability forecast, in plain Python.

The win probability (``ai.analysis``) is a logistic model per game phase fitted on real
games (docs/analysis.md); these are the few lines of arithmetic behind it: a fit by
Newton's method with a small ridge penalty (a handful of features and tens of thousands of
positions: a few iterations of a 6x6 solve), and the Brier score and log loss it is
judged by. No numpy: the Pi install stays light.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Probabilities are kept this far from 0 and 1 in the log loss (a certain forecast that
#: turns out wrong would otherwise score infinity).
EPSILON = 1e-6


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def predict(weights: Sequence[float], row: Sequence[float]) -> float:
    """P(label 1) for one row of features (``weights[0]`` is the intercept)."""
    z = weights[0] + sum(w * x for w, x in zip(weights[1:], row, strict=True))
    return sigmoid(z)


def fit_logistic(rows: Sequence[Sequence[float]], labels: Sequence[int], *,
                 ridge: float = 1.0, iterations: int = 30) -> list[float]:
    """Weights (intercept first) maximising the log likelihood of ``labels`` (0/1) given
    ``rows``, less ``ridge``/2 times the squared weights (not the intercept).

    Newton's method: each step solves (X'WX + ridge I) d = X'(y - p) - ridge w."""
    if len(rows) != len(labels):
        raise ValueError(f"{len(rows)} rows but {len(labels)} labels")
    if not rows:
        raise ValueError("nothing to fit: no rows")
    d = len(rows[0]) + 1
    w = [0.0] * d
    for _ in range(iterations):
        grad = [0.0] * d
        hess = [[0.0] * d for _ in range(d)]
        for row, y in zip(rows, labels, strict=True):
            x = (1.0, *row)
            p = predict(w, row)
            r = y - p
            s = p * (1.0 - p)
            for i in range(d):
                xi = x[i]
                grad[i] += r * xi
                si = s * xi
                hrow = hess[i]
                for j in range(i + 1):
                    hrow[j] += si * x[j]
        for i in range(d):
            for j in range(i):
                hess[j][i] = hess[i][j]
            if i:
                hess[i][i] += ridge
                grad[i] -= ridge * w[i]
        step = _solve(hess, grad)
        w = [a + b for a, b in zip(w, step, strict=True)]
        if max(abs(b) for b in step) < 1e-9:
            break
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b (Gaussian elimination with partial pivoting; a is small)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-12:
            raise ValueError("the features are linearly dependent: no unique fit")
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            if f:
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def brier(probabilities: Sequence[float], labels: Sequence[int]) -> float:
    """Mean squared difference between forecast and outcome (0 is perfect; always 0.5 scores
    0.25)."""
    _check(probabilities, labels)
    return sum((p - y) ** 2 for p, y in zip(probabilities, labels, strict=True)) / len(labels)


def log_loss(probabilities: Sequence[float], labels: Sequence[int]) -> float:
    """Mean negative log likelihood in nats (always 0.5 scores ln 2 = 0.693)."""
    _check(probabilities, labels)
    total = 0.0
    for p, y in zip(probabilities, labels, strict=True):
        p = min(max(p, EPSILON), 1.0 - EPSILON)
        total -= math.log(p if y else 1.0 - p)
    return total / len(labels)


def _check(probabilities: Sequence[float], labels: Sequence[int]) -> None:
    if len(probabilities) != len(labels):
        raise ValueError(f"{len(probabilities)} forecasts but {len(labels)} outcomes")
    if not labels:
        raise ValueError("no forecasts to score")

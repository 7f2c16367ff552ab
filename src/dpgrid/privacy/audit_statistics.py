"""The attack statistics of the black-box audit (:mod:`dpgrid.privacy.blackbox_audit`), fitted by the auditor on
the first half of its samples, never read from the code under audit: a Fisher discriminant (the optimal direction
of a Gaussian mean shift), a Gaussian log-likelihood ratio with both means and covariances fitted (optimal for
Gaussian releases with label-dependent covariances), a naive-Bayes log-likelihood ratio for categorical releases,
and a Laplace log-likelihood ratio with fitted locations and scales."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

#: An attack statistic: releases (one per row) -> one score per release.
Statistic = Callable[[np.ndarray], np.ndarray]


def flat(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x.reshape(x.shape[0], -1)


def _ridge(cov: np.ndarray) -> np.ndarray:
    """``cov`` + 1e-9 of its mean variance on the diagonal; a zero covariance (releases without noise: every draw
    the same) gets the ridge of unit variance, so the statistics stay finite and separate the two constants."""
    d = cov.shape[0]
    trace = float(np.trace(cov))
    scale = trace / d if trace > 0 else 1.0
    return cov + 1e-9 * scale * np.eye(d)


def fisher_direction(train_a: np.ndarray, train_b: np.ndarray, shift: np.ndarray | None = None) -> np.ndarray:
    """S^{-1} (m_a - m_b), or S^{-1} ``shift`` when the mean difference is given (S: pooled sample covariance)."""
    a, b = flat(train_a), flat(train_b)
    pooled = _ridge(0.5 * (np.atleast_2d(np.cov(a, rowvar=False)) + np.atleast_2d(np.cov(b, rowvar=False))))
    diff = a.mean(0) - b.mean(0) if shift is None else np.ravel(shift).astype(float)
    return np.linalg.solve(pooled, diff)


def fisher_statistic(train_a: np.ndarray, train_b: np.ndarray) -> Statistic:
    """Fisher discriminant x -> x . S^{-1}(m_a - m_b), means and pooled covariance S from the training halves."""
    w = fisher_direction(train_a, train_b)
    return lambda x: flat(x) @ w


def gaussian_llr_statistic(train_a: np.ndarray, train_b: np.ndarray) -> Statistic:
    """Gaussian log-likelihood ratio log N(x; m_a, S_a) - log N(x; m_b, S_b), means and covariances fitted on the
    training halves (quadratic discriminant)."""
    a, b = flat(train_a), flat(train_b)
    d = a.shape[1]
    parts = []
    for s in (a, b):
        m = s.mean(0)
        c = _ridge(np.cov(s, rowvar=False).reshape(d, d))
        lc = np.linalg.cholesky(c)
        parts.append((m, lc, 2.0 * np.log(np.diag(lc)).sum()))

    def llr(x):
        x = flat(x)
        out = np.zeros(x.shape[0])
        for sign, (m, lc, logdet) in zip((1.0, -1.0), parts, strict=True):
            z = np.linalg.solve(lc, (x - m).T)
            out += sign * -0.5 * ((z**2).sum(0) + logdet)
        return out

    return llr


def categorical_llr_statistic(train_a: np.ndarray, train_b: np.ndarray) -> Statistic:
    """Naive-Bayes log-likelihood ratio of integer releases: per coordinate, the log ratio of the two training
    frequencies of the released value (add-one smoothing)."""
    a = np.asarray(train_a).reshape(len(train_a), -1).astype(np.int64)
    b = np.asarray(train_b).reshape(len(train_b), -1).astype(np.int64)
    lo = min(a.min(), b.min())
    k = int(max(a.max(), b.max()) - lo + 1)
    d = a.shape[1]

    def freq(s):
        f = np.ones((d, k))
        np.add.at(f, (np.broadcast_to(np.arange(d), s.shape), s - lo), 1.0)
        return np.log(f / f.sum(1, keepdims=True))

    table = freq(a) - freq(b)

    def llr(x):
        x = np.asarray(x).reshape(len(x), -1).astype(np.int64) - lo
        inside = (x >= 0) & (x < k)
        vals = table[np.broadcast_to(np.arange(d), x.shape), np.clip(x, 0, k - 1)]
        return np.where(inside, vals, 0.0).sum(1)

    return llr


def laplace_llr_statistic(train_a: np.ndarray, train_b: np.ndarray) -> Statistic:
    """Product-Laplace log-likelihood ratio: per coordinate, location (median) and scale (mean absolute deviation
    from it) fitted on each training half; sum over coordinates of log Lap(x; m_a, s_a) - log Lap(x; m_b, s_b)
    (the optimal test of independent Laplace noise around a shifted mean; coordinates the pair does not move add
    estimation noise only)."""
    parts = []
    for s in (flat(train_a), flat(train_b)):
        m = np.median(s, axis=0)
        parts.append((m, np.maximum(np.abs(s - m).mean(0), 1e-300)))

    def llr(x):
        x = flat(x)
        (ma, sa), (mb, sb) = parts
        return (np.log(sb / sa) - np.abs(x - ma) / sa + np.abs(x - mb) / sb).sum(1)

    return llr


#: Fitted statistics by name (see :func:`fit_statistics`).
FITTED = {
    "fisher": fisher_statistic,
    "gaussian_llr": gaussian_llr_statistic,
    "categorical_llr": categorical_llr_statistic,
    "laplace_llr": laplace_llr_statistic,
}


def fit_statistics(
    train_a: np.ndarray, train_b: np.ndarray, fitted: Sequence[str], fixed: dict[str, Statistic] | None = None
) -> dict[str, Statistic]:
    """The attack statistics: the named :data:`FITTED` ones fitted on the training halves, plus ``fixed`` ones."""
    out = {name: FITTED[name](train_a, train_b) for name in fitted}
    out.update(fixed or {})
    return out

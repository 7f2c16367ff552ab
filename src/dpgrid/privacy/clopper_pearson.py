"""Exact (Clopper-Pearson) confidence bounds on a binomial proportion, the bounds every sampling audit states.

Clopper and Pearson (1934): with k successes in n trials, the one-sided lower bound at confidence 1 - alpha is the
alpha quantile of Beta(k, n - k + 1) (0 at k = 0) and the upper bound the 1 - alpha quantile of Beta(k + 1, n - k)
(1 at k = n); the two-sided interval at level 1 - alpha takes both at alpha / 2.
"""

from __future__ import annotations

import numpy as np


def cp_lower(k, n, alpha: float):
    """One-sided Clopper-Pearson lower bound at confidence 1 - alpha: Beta^{-1}(alpha; k, n - k + 1), 0 at k = 0."""
    from scipy import stats

    k = np.asarray(k)
    with np.errstate(invalid="ignore"):
        return np.where(k > 0, stats.beta.ppf(alpha, np.maximum(k, 1), n - k + 1), 0.0)


def cp_upper(k, n, alpha: float):
    """One-sided Clopper-Pearson upper bound at confidence 1 - alpha: Beta^{-1}(1 - alpha; k + 1, n - k), 1 at k = n."""
    from scipy import stats

    k = np.asarray(k)
    with np.errstate(invalid="ignore"):
        return np.where(k < n, stats.beta.isf(alpha, k + 1, np.maximum(n - k, 1)), 1.0)


def clopper_pearson(counts, n: int, level: float = 0.999):
    """Two-sided Clopper-Pearson interval ``(lower, upper)`` at confidence ``level`` for ``counts`` successes in ``n``
    (vectorised): the one-sided bounds at alpha / 2 each, alpha = 1 - level."""
    alpha = 1.0 - level
    return cp_lower(counts, n, alpha / 2), cp_upper(counts, n, alpha / 2)

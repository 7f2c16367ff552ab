"""Modulo-K additive label mechanism (dpkmeans paper, eq. 19, Theorem 4).

Labels of the label-sensitive points L (computed by
:func:`dpgrid.mechanisms.kmeans_sensitivity.leave_one_out_analysis`) are published as
l_p (+)_K nu_p with nu_p i.i.d., Pr(nu = 0) = 1 - rho, Pr(nu = j) = rho/(K-1) for j != 0; the other
labels are published unchanged.  The accounting is in :mod:`dpgrid.privacy.label_modulo_delta`.

Scope (as in the paper): the set L is computed on X and used for both hypotheses X and X'; the
privacy loss compares the labels of the points common to X and X'.
"""

from __future__ import annotations

import numpy as np


def label_noise(size: int | tuple[int, ...], K: int, rho: float, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. draws of nu (an array of shape ``size``): 0 w.p. 1 - rho, each j in 1..K-1 w.p. rho/(K-1)."""
    if not 0 <= rho <= (K - 1) / K:
        raise ValueError(f"rho must lie in [0, (K-1)/K], got {rho!r}")
    nz = rng.random(size) < rho
    return np.where(nz, rng.integers(1, K, size=size), 0)


def modulo_label_mechanism(
    labels: np.ndarray, sensitive: np.ndarray, K: int, rho: float, rng: np.random.Generator
) -> np.ndarray:
    """Eq. (19): noisy labels (a new array); ``sensitive`` holds the indices of L."""
    labels = np.asarray(labels)
    if labels.size and (labels.min() < 0 or labels.max() >= K):
        raise ValueError(f"labels must lie in [0, {K}), got range [{labels.min()}, {labels.max()}]")
    out = labels.copy()
    sensitive = np.asarray(sensitive, dtype=int)
    out[sensitive] = (labels[sensitive] + label_noise(len(sensitive), K, rho, rng)) % K
    return out


def label_noise_log_pmf(nu: np.ndarray, K: int, rho: float) -> np.ndarray:
    """log f(nu) per coordinate (for audits: the exact log-likelihood of a noisy label vector)."""
    nu = np.asarray(nu) % K
    return np.where(nu == 0, np.log1p(-rho), np.log(rho / (K - 1)))

"""Distances between bus-voltage distributions under true and synthetic load profiles.

The paper (Ravi et al., IEEE TSG 2022, Figs. 12-13) compares the histograms of voltage magnitude
and angle only visually. Here the two samples (all buses x all hours of an OPF run) are compared by
the Wasserstein-1 distance (``scipy.stats.wasserstein_distance``) and the two-sample Kolmogorov-Smirnov
statistic (``scipy.stats.ks_2samp``), with a bootstrap interval that resamples buses: every load bus
carries one house, so a resampled set of buses (with all its hours, in both runs at once) is a
resampled set of house slots. The OPF itself is not rerun per resample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


def wasserstein1(a, b) -> float:
    """Wasserstein-1 distance between the empirical distributions of ``a`` and ``b``."""
    return float(stats.wasserstein_distance(np.ravel(a), np.ravel(b)))


def ks_statistic(a, b) -> float:
    """Two-sample Kolmogorov-Smirnov statistic sup_x |F_a(x) - F_b(x)|."""
    return float(stats.ks_2samp(np.ravel(a), np.ravel(b)).statistic)


def share_outside(v, low: float, high: float) -> float:
    """Fraction of values of ``v`` strictly outside ``[low, high]``."""
    v = np.ravel(v)
    if v.size == 0:
        return float("nan")
    return float(np.mean((v < low) | (v > high)))


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float


def bus_bootstrap(x, y, statistic, *, n_resamples: int, level: float, rng: np.random.Generator) -> Interval:
    """Percentile bootstrap interval of ``statistic(x, y)`` resampling rows (buses) of both arrays together.

    ``x`` and ``y`` are (n_bus, n_hour) arrays over the same buses; ``y`` may be ``None`` for a
    one-sample statistic ``statistic(x)``. Each resample draws ``n_bus`` bus indices with replacement
    and applies them to both arrays (a paired, cluster bootstrap: the hours of a bus stay together).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or (y is not None and np.shape(y) != x.shape):
        raise ValueError(f"bus_bootstrap: need two (bus, hour) arrays of the same shape, got {x.shape}, "
                         f"{None if y is None else np.shape(y)}")
    if not 0 < level < 1 or n_resamples < 1:
        raise ValueError(f"bus_bootstrap: level {level} must be in (0, 1), n_resamples {n_resamples} >= 1")
    args = (x,) if y is None else (x, np.asarray(y, dtype=float))
    est = statistic(*args)
    n = x.shape[0]
    reps = np.empty(n_resamples)
    for i in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        reps[i] = statistic(*(a[idx] for a in args))
    alpha = (1 - level) / 2
    lo, hi = np.quantile(reps, [alpha, 1 - alpha])
    return Interval(float(est), float(lo), float(hi))

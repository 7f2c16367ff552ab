"""Privacy loss of a Laplace-perturbed sum when one term is U(0, u) under a hidden state.

GhoddousiBoroujeni et al., *Privacy of Real-Time Pricing in Smart Grid*, Theorem 1 and 2.
The released rate is r_hat = beta + alpha (X_h + Z_-h) + Lap(b). Conditional on the other
households' consumption Z_-h, the two members of a discriminative pair (S_h = 0, S_h = 1) give
released-rate densities f_s = U(0, alpha u_h^{(s)}) * Lap(b) (shifted by a common constant), so
the privacy loss of household h at one step is L(r) = log f_1(r) / f_0(r). Theorem 1 bounds it by
alpha max(u^(0), u^(1)) / b, i.e. by eps when b = lambda / eps with lambda >= alpha u_h.
Theorem 2 adds the per-step budgets over T steps (eps T).

Also: a sample-based audit of the density ratio of two samplers (histogram with Clopper-Pearson
bounds and a sample-split hockey-stick test), used on the pricing mechanisms.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from statsmodels.stats.proportion import proportion_confint

__all__ = [
    "uniform_laplace_density",
    "uniform_laplace_log_density",
    "household_privacy_loss",
    "sup_household_privacy_loss",
    "sequential_epsilon",
    "DensityRatioAudit",
    "audit_density_ratio",
]


def uniform_laplace_log_density(r: np.ndarray, width: float, b: float) -> np.ndarray:
    """log density of U(0, width) + Laplace(0, b) at ``r`` (closed form of the convolution).

    f(r) = (1 - e^{-w/b}) e^{r/b} / (2w)            for r <= 0,
    f(r) = (1 - e^{-r/b}/2 - e^{-(w-r)/b}/2) / w     for 0 < r < w,
    f(r) = (1 - e^{-w/b}) e^{-(r-w)/b} / (2w)        for r >= w;
    written in log form so that the tails never underflow.
    """
    r = np.asarray(r, dtype=float)
    if width <= 0 or b <= 0:
        raise ValueError(f"need width > 0 and b > 0, got width={width!r}, b={b!r}")
    w = float(width)
    log_tail = np.log(-np.expm1(-w / b)) - np.log(2 * w)
    inside = np.clip(r, 0.0, w)
    with np.errstate(over="ignore"):
        mid = np.log1p(-0.5 * np.exp(-inside / b) - 0.5 * np.exp(-(w - inside) / b)) - np.log(w)
    return np.where(r <= 0, log_tail + r / b, np.where(r >= w, log_tail - (r - w) / b, mid))


def uniform_laplace_density(r: np.ndarray, width: float, b: float) -> np.ndarray:
    """Density of U(0, width) + Laplace(0, b)."""
    return np.exp(uniform_laplace_log_density(r, width, b))


def household_privacy_loss(r: np.ndarray, width_a: float, width_b: float, b: float) -> np.ndarray:
    """L(r) = log f_a(r) / f_b(r) for f_x = U(0, width_x) * Laplace(b) (one household, one step)."""
    return uniform_laplace_log_density(r, width_a, b) - uniform_laplace_log_density(r, width_b, b)


def sup_household_privacy_loss(width_a: float, width_b: float, b: float) -> float:
    """sup_r |L(r)|: the exact per-step epsilon spent on the pair (S_h = 0, S_h = 1).

    The log-ratio is monotone between its two tail limits,
    r -> -inf: log[w_b (1 - e^{-w_a/b})] - log[w_a (1 - e^{-w_b/b})],
    r -> +inf: log[w_b (e^{w_a/b} - 1)] - log[w_a (e^{w_b/b} - 1)];
    the grid maximum is included as a check on that monotonicity.
    """
    wa, wb = float(width_a), float(width_b)
    lo = np.log(wb * -np.expm1(-wa / b)) - np.log(wa * -np.expm1(-wb / b))
    hi = np.log(wb * np.expm1(wa / b)) - np.log(wa * np.expm1(wb / b))
    grid = np.linspace(-10 * b, max(wa, wb) + 10 * b, 4001)
    mid = np.abs(household_privacy_loss(grid, wa, wb, b)).max()
    return float(max(abs(lo), abs(hi), mid))


def sequential_epsilon(eps_per_step: float | np.ndarray, n_steps: int | None = None) -> float:
    """Theorem 2: T releases, each (eps, S_pairs^t, Q^t)-Blowfish private, are (eps T)-Blowfish private.

    Pass a scalar and ``n_steps`` or an array of per-step budgets (summed).
    """
    e = np.asarray(eps_per_step, dtype=float)
    if (e < 0).any():
        raise ValueError(f"per-step epsilon must be >= 0, got {eps_per_step!r}")
    if e.ndim == 0:
        if n_steps is None or n_steps < 0:
            raise ValueError("a scalar epsilon needs n_steps >= 0")
        return float(e) * int(n_steps)
    return float(e.sum())


@dataclass(frozen=True)
class DensityRatioAudit:
    """Result of :func:`audit_density_ratio`.

    max_log_ratio:        largest |log p_a(bin) / p_b(bin)| over bins with enough counts (point estimate)
    max_log_ratio_lower:  largest Clopper-Pearson lower confidence bound on |log ratio| (over those bins)
    hockey_stick:         estimate of P_a(R) - e^eps P_b(R) on the held-out half, R = bins with
                          estimated ratio > e^eps on the first half (0 if R is empty)
    hockey_stick_lower:   one-sided lower confidence bound of that difference (Hoeffding)
    violation:            hockey_stick_lower > 0, i.e. the samples prove a ratio above e^eps
    """

    max_log_ratio: float
    max_log_ratio_lower: float
    hockey_stick: float
    hockey_stick_lower: float
    violation: bool
    n_bins_used: int


def _cp_bounds(k: np.ndarray, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Clopper-Pearson interval at level 1 - alpha (statsmodels)."""
    lo, hi = proportion_confint(np.asarray(k), n, alpha=alpha, method="beta")
    return np.nan_to_num(np.asarray(lo, float), nan=0.0), np.nan_to_num(np.asarray(hi, float), nan=1.0)


def audit_density_ratio(sample_a: np.ndarray, sample_b: np.ndarray, eps: float, *, bins: int = 60,
                        min_count: int = 200, confidence: float = 0.99) -> DensityRatioAudit:
    """Audit Pr[M(D_a) in R] <= e^eps Pr[M(D_b) in R] (and symmetric) from samples of the two outputs.

    Bins span the central range of the pooled samples (plus two open tail bins). For each bin with
    at least ``min_count`` samples on both sides the ratio of bin probabilities is bounded with
    simultaneous Clopper-Pearson intervals (Bonferroni over bins). Separately, the samples are split
    in halves: the first half picks the set R of bins whose ratio exceeds e^eps (either direction),
    the second half estimates the hockey-stick divergence P_a(R) - e^eps P_b(R) with a Hoeffding lower
    bound at level ``confidence``; a positive lower bound is a proven violation of eps-DP (delta = 0).
    """
    a = np.asarray(sample_a, dtype=float)
    b = np.asarray(sample_b, dtype=float)
    pooled = np.concatenate([a, b])
    lo, hi = np.quantile(pooled, [0.001, 0.999])
    edges = np.concatenate([[-np.inf], np.linspace(lo, hi, bins + 1), [np.inf]])
    alpha = 1 - confidence

    def counts(x):
        return np.histogram(x, edges)[0]

    ka, kb = counts(a), counts(b)
    use = (ka >= min_count) & (kb >= min_count)
    n_use = int(use.sum())
    if n_use == 0:
        raise ValueError("audit: no bin has min_count samples on both sides; increase the sample size")
    pa, pb = ka / a.size, kb / b.size
    log_ratio = np.log(pa[use]) - np.log(pb[use])
    a_lo, a_hi = _cp_bounds(ka[use], a.size, alpha / n_use)
    b_lo, b_hi = _cp_bounds(kb[use], b.size, alpha / n_use)
    lower = np.maximum(np.log(np.maximum(a_lo, 1e-300)) - np.log(b_hi), np.log(np.maximum(b_lo, 1e-300)) - np.log(a_hi))

    # sample split: choose R on the first halves, test on the second halves (both directions)
    ha, hb = a.size // 2, b.size // 2
    ka1, kb1 = counts(a[:ha]), counts(b[:hb])
    ka2, kb2 = counts(a[ha:]), counts(b[hb:])
    best, best_lower = 0.0, -np.inf
    for (k1x, k1y, nx1, ny1, k2x, k2y, nx2, ny2) in (
            (ka1, kb1, ha, hb, ka2, kb2, a.size - ha, b.size - hb),
            (kb1, ka1, hb, ha, kb2, ka2, b.size - hb, a.size - ha)):
        r_set = k1x / nx1 > np.exp(eps) * k1y / ny1
        if not r_set.any():
            continue
        px, py = k2x[r_set].sum() / nx2, k2y[r_set].sum() / ny2
        est = px - np.exp(eps) * py
        # Hoeffding: each of the two proportions within sqrt(log(2/alpha) / (2 n)) with prob 1 - alpha/2
        slack = np.sqrt(np.log(4 / alpha) / (2 * nx2)) + np.exp(eps) * np.sqrt(np.log(4 / alpha) / (2 * ny2))
        if est - slack > best_lower:
            best, best_lower = est, est - slack
    if not np.isfinite(best_lower):
        best_lower = 0.0 - np.sqrt(np.log(4 / alpha) / (2 * (a.size - ha)))
    return DensityRatioAudit(float(np.abs(log_ratio).max()), float(lower.max()), float(best),
                             float(best_lower), bool(best_lower > 0), n_use)

"""Privacy loss of a Laplace-perturbed sum when one term is U(0, u) under a hidden state.

GhoddousiBoroujeni et al., *Privacy of Real-Time Pricing in Smart Grid*, Theorem 1 and 2.
The released rate is r_hat = beta + alpha (X_h + Z_-h) + Lap(b). Conditional on the other
households' consumption Z_-h, the two members of a discriminative pair (S_h = 0, S_h = 1) give
released-rate densities f_s = U(0, alpha u_h^{(s)}) * Lap(b) (shifted by a common constant), so
the privacy loss of household h at one step is L(r) = log f_1(r) / f_0(r). Theorem 1 bounds it by
alpha max(u^(0), u^(1)) / b, i.e. by eps when b = lambda / eps with lambda >= alpha u_h.
Theorem 2 adds the per-step budgets over T steps (eps T).

The sample-based audit of such mechanisms is :func:`dpgrid.privacy.audit.audit_density_ratio`.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "uniform_laplace_density",
    "uniform_laplace_log_density",
    "household_privacy_loss",
    "sup_household_privacy_loss",
    "sequential_epsilon",
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

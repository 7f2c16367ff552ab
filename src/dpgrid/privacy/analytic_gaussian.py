"""The Gaussian mechanism's exact (eps, delta) curves for a deterministic query with L2 sensitivity.

* :func:`analytic_gaussian_delta` - Balle and Wang (2018), *Improving the Gaussian Mechanism for
  Differential Privacy: Analytical Calibration and Optimal Denoising*, Theorem 8: the tight
  (hockey-stick) delta of ``N(f(x), sigma^2 I)`` with ``||f(x) - f(x')||_2 <= Delta``,

      delta(eps) = Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta).

* :func:`analytic_gaussian_sigma` - the smallest sigma with delta(eps) <= delta (root of the above).
* :func:`pdp_gaussian_delta` - the probabilistic-DP delta ``Pr(L > eps)`` of the same mechanism,
  ``Q((eps - D^2/2)/D)`` with ``D = Delta/sigma`` (classdp paper, eqs. 22-23); it is never smaller
  than the hockey-stick delta (PDP implies DP, classdp Theorem 1).
* :func:`classical_gaussian_sigma` - Dwork-Roth's ``Delta sqrt(2 ln(1.25/delta))/eps`` (eps < 1).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

__all__ = ["analytic_gaussian_delta", "analytic_gaussian_sigma", "pdp_gaussian_delta",
           "classical_gaussian_sigma"]


def _check_positive(name: str, value: float) -> None:
    if not (np.all(np.isfinite(value)) and np.all(np.asarray(value) > 0)):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")


def analytic_gaussian_delta(eps, sensitivity: float, sigma: float) -> np.ndarray:
    """Tight delta(eps) of the Gaussian mechanism (Balle and Wang 2018, Thm. 8), vectorised in eps.

    The second term is evaluated in log space (``exp(eps + log Phi(.))``) so large eps does not overflow.
    """
    _check_positive("sensitivity", sensitivity)
    _check_positive("sigma", sigma)
    eps = np.asarray(eps, dtype=float)
    if np.any(eps < 0):
        raise ValueError(f"eps must be >= 0, got {eps}")
    r = sensitivity / sigma
    t1 = special.ndtr(r / 2.0 - eps / r)
    t2 = np.exp(eps + special.log_ndtr(-r / 2.0 - eps / r))
    return np.clip(t1 - t2, 0.0, 1.0)


def analytic_gaussian_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """Smallest sigma with :func:`analytic_gaussian_delta` (eps) <= delta (root by Brent's method)."""
    _check_positive("eps", eps)
    _check_positive("sensitivity", sensitivity)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")

    def gap(log_sigma: float) -> float:
        return float(analytic_gaussian_delta(eps, sensitivity, math.exp(log_sigma))) - delta

    lo, hi = math.log(sensitivity) - 10.0, math.log(sensitivity) + 10.0
    while gap(lo) < 0:
        lo -= 10.0
    while gap(hi) > 0:
        hi += 10.0
    return math.exp(optimize.brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14))


def pdp_gaussian_delta(eps, sensitivity: float, sigma: float) -> np.ndarray:
    """PDP delta ``Pr(L > eps)`` of the Gaussian mechanism (classdp eq. 23): ``Q((eps - D^2/2)/D)``, D = Delta/sigma."""
    _check_positive("sensitivity", sensitivity)
    _check_positive("sigma", sigma)
    d = sensitivity / sigma
    return special.ndtr(-(np.asarray(eps, dtype=float) - 0.5 * d * d) / d)


def classical_gaussian_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """Dwork and Roth (2014), Thm. A.1: sigma = Delta sqrt(2 ln(1.25/delta)) / eps (stated for eps < 1)."""
    _check_positive("eps", eps)
    _check_positive("sensitivity", sensitivity)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / eps

"""Gaussian-mechanism noise calibrations used by SpDP and TrDP, and the exact privacy-loss tail.

Parker, Hale, Barooah, *Spectral Differential Privacy*:

- Proposition 1, eq. (2) (Le Ny & Pappas' trajectory-level Gaussian mechanism): i.i.d. noise with

      sigma >= B / (2 eps) * (A + sqrt(A^2 + 2 eps)),   A = Q^{-1}(delta);

- Proposition 2, eq. (7) (correlated Gaussian mechanism): covariance with

      lambda_min(Sigma) >= lambda_bar = B^2 / (-A + sqrt(A^2 + 2 eps))^2.

  The two are the same bound: sqrt(lambda_bar) equals the sigma of eq. (2), since
  (sqrt(A^2 + 2 eps) - A)(sqrt(A^2 + 2 eps) + A) = 2 eps.

- the classical calibration (Dwork & Roth 2014, Thm A.1; valid for eps < 1):
  sigma = B sqrt(2 ln(1.25 / delta)) / eps.

Both eq. (2) and eq. (7) come from bounding the privacy-loss tail: for a Gaussian mechanism whose
output mean moves by v between adjacent inputs, the privacy loss L is N(mu, 2 mu) with
mu = ||Sigma^{-1/2} v||^2 / 2 (Appendix A, eqs. 17-19), and the condition is
Pr(L > eps) = Q(eps / Delta - Delta / 2) <= delta with Delta = ||Sigma^{-1/2} v||_2.
:func:`privacy_loss_tail` evaluates that tail exactly; :func:`hockey_stick_delta` is the exact
(eps, delta) curve of the same mechanism (Balle & Wang 2018, Thm 8), tighter than the tail bound.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


class CalibrationError(ValueError):
    """Privacy parameters outside the calibration's domain."""


def _check(b: float, eps: float, delta: float, *, eps_max: float | None = None) -> None:
    if not (np.isfinite(b) and b > 0):
        raise CalibrationError(f"adjacency parameter B must be positive and finite, got {b!r}")
    if not (np.isfinite(eps) and eps > 0):
        raise CalibrationError(f"epsilon must be positive, got {eps!r}")
    if not (0 < delta < 1):
        raise CalibrationError(f"delta must lie in (0, 1), got {delta!r}")
    if eps_max is not None and eps >= eps_max:
        raise CalibrationError(f"this calibration needs epsilon < {eps_max}, got {eps!r}")


def q_inverse(delta: float) -> float:
    """``A = Q^{-1}(delta)``, Q the standard normal tail (Proposition 1)."""
    return float(stats.norm.isf(delta))


def proposition1_sigma(b: float, eps: float, delta: float) -> float:
    """Noise standard deviation of the TrDP Gaussian mechanism, Proposition 1 eq. (2) (with equality)."""
    _check(b, eps, delta)
    a = q_inverse(delta)
    return b / (2.0 * eps) * (a + math.sqrt(a * a + 2.0 * eps))


def proposition2_lambda_bar(b: float, eps: float, delta: float) -> float:
    """Lower bound ``lambda_bar`` on lambda_min(Sigma) of the correlated Gaussian mechanism, eq. (7)."""
    _check(b, eps, delta)
    a = q_inverse(delta)
    return b * b / (math.sqrt(a * a + 2.0 * eps) - a) ** 2


def classical_sigma(b: float, eps: float, delta: float) -> float:
    """Classical Gaussian-mechanism sigma = B sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth Thm A.1, eps < 1)."""
    _check(b, eps, delta, eps_max=1.0)
    return b * math.sqrt(2.0 * math.log(1.25 / delta)) / eps


def trajectory_sigma(b: float, eps: float, delta: float, calibration: str) -> float:
    """Sigma of the i.i.d. Gaussian mechanism by the named calibration (``proposition1`` or ``classical``)."""
    if calibration == "proposition1":
        return proposition1_sigma(b, eps, delta)
    if calibration == "classical":
        return classical_sigma(b, eps, delta)
    raise CalibrationError(f"unknown Gaussian calibration {calibration!r}; use 'proposition1' or 'classical'")


def privacy_loss_tail(eps: float, shift_norm: float) -> float:
    """Pr(L > eps) for a Gaussian mechanism with whitened mean shift ``Delta = ||Sigma^{-1/2} v||``.

    L ~ N(Delta^2 / 2, Delta^2) (Appendix A), so the tail is Q(eps / Delta - Delta / 2).
    """
    if shift_norm <= 0:
        return 0.0
    return float(stats.norm.sf(eps / shift_norm - shift_norm / 2.0))


def hockey_stick_delta(eps: float, shift_norm: float) -> float:
    """Exact delta(eps) of the Gaussian mechanism with whitened shift ``Delta`` (Balle & Wang 2018, Thm 8).

    delta = Phi(Delta/2 - eps/Delta) - e^eps Phi(-Delta/2 - eps/Delta) <= privacy_loss_tail(eps, Delta).
    The second term is evaluated as exp(eps + log Phi(.)) so that large eps (> 709) does not overflow.
    """
    if shift_norm <= 0:
        return 0.0
    d = shift_norm
    return float(stats.norm.cdf(d / 2 - eps / d) - math.exp(eps + stats.norm.logcdf(-d / 2 - eps / d)))

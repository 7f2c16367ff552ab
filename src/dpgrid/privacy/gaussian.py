"""The Gaussian mechanism's privacy accounting: every formula once, in log space where it matters.

A Gaussian mechanism whose output mean moves by ``v`` between neighbours, with noise covariance
``Sigma``, has privacy loss ``L ~ N(D^2/2, D^2)`` with the whitened sensitivity
``D = ||Sigma^{-1/2} v||`` (for i.i.d. noise ``D = Delta / sigma``). Everything here is a function
of ``D`` (or of the L2 sensitivity and sigma):

* :func:`shift_privacy_loss` - the privacy loss ``L = ln f(o | x) - ln f(o | x')`` at a noise draw, for
  audits of a mechanism's own sampler (``L ~ N(D^2/2, D^2)`` under x);
* :func:`pdp_delta` - the tail ``Pr(L > eps) = Q(eps/D - D/2)``: the (eps, delta)-probabilistic-DP
  delta (classdp eqs. 22-23; spdp Appendix A, eqs. 17-19; dpkmeans Definition 4 / eq. 9);
* :func:`pdp_sensitivity` - the largest ``D`` with ``pdp_delta(eps, D) <= delta``; the calibrations
  built on it: spdp Proposition 1 eq. (2) (``sigma = B / D``, :func:`pdp_sigma`), Proposition 2
  eq. (7) (``lambda_bar = (B / D)^2``) and dpkmeans' exact PDP calibration ``gamma_c = D^2``;
* :func:`hockey_stick_delta` - the tight (eps, delta)-DP curve of Balle and Wang (2018), Thm. 8,
  ``Phi(D/2 - eps/D) - e^eps Phi(-D/2 - eps/D)`` (never larger than :func:`pdp_delta`);
* :func:`analytic_sigma` - the smallest sigma whose hockey-stick delta is at most delta;
* :func:`classical_sigma` - Dwork and Roth (2014), Thm. A.1, ``Delta sqrt(2 ln(1.25/delta)) / eps``.

Cross-checked against Google's ``dp_accounting`` in tests/privacy/test_gaussian.py.

Named calibrations (:data:`CALIBRATIONS`, :func:`calibration`)
--------------------------------------------------------------
A calibration maps a privacy budget (eps, delta) to the noise of a Gaussian mechanism. Whatever its form, it is a
bound ``D`` on the whitened sensitivity ``||Sigma^{-1/2} v||`` (v: the largest move of the output mean between
neighbours, Sigma: the noise covariance); for i.i.d. noise with L2 sensitivity ``B`` it is ``sigma = B / D``.
Papers state one of the two forms: the spdp paper the noise std (Proposition 1, eq. (2)), the dpkmeans paper
the allowed squared Mahalanobis sensitivity ``gamma_c = D^2`` (eqs. (13), (15)). An entry keeps its formula in
the form its source states; the other form follows from ``sigma = B / D`` (:meth:`GaussianCalibration.sigma`,
:meth:`GaussianCalibration.squared_sensitivity`). The names are the configuration values the schemas accept
(``spdp.trdp.calibration``, ``dpkmeans.centroid_noise.calibration``) and the candidate formulas of the spdp
calibration sweep (:mod:`dpgrid.papers.spdp.calibration_sweep`); two names of one formula are aliases.

========================  =====================================================  ==========================
name (aliases)            formula                                                 source
========================  =====================================================  ==========================
``proposition1``          ``Pr(L > eps) <= delta``, L ~ N(D^2/2, D^2): sigma =    spdp Prop. 1 eq. (2);
(``exact_pdp``)           :func:`~dpgrid.privacy.gaussian.pdp_sigma`, D =        dpkmeans Def. 4 / eq. (9)
                          :func:`~dpgrid.privacy.gaussian.pdp_sensitivity`
``classical``             ``sigma = B sqrt(2 ln(1.25/delta)) / eps``, eps < 1     Dwork & Roth 2014, Thm A.1
``paper_eq13``            ``D^2 = eps^2 / (2 ln(2/delta))``, stated for eps < 1   dpkmeans eq. (13), Thm 2
(``classical_ln2``)
``analytic``              smallest sigma with the hockey-stick delta <= delta     Balle & Wang 2018, Alg. 1
``quantile``              ``sigma = B Q^{-1}(delta) / eps``                        a reading of spdp Table III
========================  =====================================================  ==========================

The PDP calibration keeps both of its closed forms (pdp_sigma for sigma, pdp_sensitivity for D): each is the
form the spdp resp. dpkmeans results were computed with, and deriving one from the other moves those results in
the last bits (up to 1e-15 relative). Every other entry has one formula.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


class CalibrationError(ValueError):
    """Privacy parameters outside a calibration's domain."""


def _check_budget(eps: float, delta: float, *, eps_max: float | None = None) -> None:
    if not (np.isfinite(eps) and eps > 0):
        raise CalibrationError(f"epsilon must be positive and finite, got {eps!r}")
    if not 0 < delta < 1:
        raise CalibrationError(f"delta must lie in (0, 1), got {delta!r}")
    if eps_max is not None and eps >= eps_max:
        raise CalibrationError(f"this calibration needs epsilon < {eps_max}, got {eps!r}")


def _check_positive(name: str, value) -> None:
    if not (np.all(np.isfinite(value)) and np.all(np.asarray(value) > 0)):
        raise CalibrationError(f"{name} must be positive and finite, got {value!r}")


def shift_privacy_loss(noise, shift, cov, precision_scale: float = 1.0):
    """Privacy loss of a Gaussian release at noise draws: ``L = ln N(o; m, S) - ln N(o; m - v, S)`` at ``o = m + noise``.

    ``S = cov / precision_scale`` and ``v = shift``: ``L = g v' cov^{-1} noise + g v' cov^{-1} v / 2``
    (g = ``precision_scale``), distributed as N(D^2/2, D^2) under m with the whitened sensitivity
    ``D^2 = g v' cov^{-1} v`` (so ``Pr(L > eps)`` is :func:`pdp_delta`). ``noise``: one draw or rows of draws.
    """
    w = np.linalg.solve(cov, shift)
    return precision_scale * (noise @ w) + 0.5 * precision_scale * float(shift @ w)


def pdp_delta(eps, sensitivity):
    """``Pr(L > eps) = Q(eps/D - D/2)`` for whitened sensitivity ``D`` (vectorised; 0 where ``D <= 0``)."""
    from scipy import special

    d = np.asarray(sensitivity, dtype=float)
    e = np.asarray(eps, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = special.ndtr(d / 2.0 - e / d)  # Q(e/d - d/2) = Phi(d/2 - e/d)
    out = np.where(d > 0, out, 0.0)
    return float(out) if out.ndim == 0 else out


def pdp_sensitivity(eps: float, delta: float) -> float:
    """Largest whitened sensitivity ``D`` with ``Q(eps/D - D/2) <= delta``: ``D = z + sqrt(z^2 + 2 eps)``,
    ``z = Phi^{-1}(delta)``."""
    from scipy import special

    _check_budget(eps, delta)
    z = special.ndtri(delta)
    return z + math.sqrt(z * z + 2.0 * eps)


def pdp_epsilon(delta, sensitivity):
    """The smallest eps with ``Q(eps/D - D/2) <= delta`` (inverse of :func:`pdp_delta` in eps; vectorised).

    ``eps = D^2/2 - D Phi^{-1}(delta)``, clipped at 0 (for a small D every eps >= 0 has a tail <= delta);
    an infinite D (a shift the noise does not hide) gives an infinite eps.
    """
    from scipy import special

    d = np.asarray(sensitivity, dtype=float)
    q = np.asarray(delta, dtype=float)
    if np.any((q <= 0) | (q >= 1)):
        raise CalibrationError(f"need 0 < delta < 1, got {delta!r}")
    with np.errstate(invalid="ignore"):
        eps = np.where(np.isinf(d), np.inf, d * d / 2.0 - d * special.ndtri(q))
    return np.maximum(eps, 0.0)


def pdp_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """Smallest i.i.d. noise std with ``Pr(L > eps) <= delta`` for L2 sensitivity ``Delta``: spdp Proposition 1,
    eq. (2), ``sigma = Delta / (2 eps) (A + sqrt(A^2 + 2 eps))``, ``A = Q^{-1}(delta)`` (= Delta / :func:`pdp_sensitivity`)."""
    from scipy import special

    _check_budget(eps, delta)
    _check_positive("sensitivity", sensitivity)
    a = float(-special.ndtri(delta))
    return sensitivity / (2.0 * eps) * (a + math.sqrt(a * a + 2.0 * eps))


def hockey_stick_delta(eps, sensitivity):
    """Tight delta(eps) of the Gaussian mechanism with whitened sensitivity ``D`` (Balle and Wang 2018, Thm. 8).

    The second term is evaluated in log space (``exp(eps + log Phi(.))``), so large eps does not
    overflow. Vectorised in eps and D; 0 where ``D <= 0``.
    """
    from scipy import special

    d = np.asarray(sensitivity, dtype=float)
    e = np.asarray(eps, dtype=float)
    if np.any(e < 0):
        raise CalibrationError(f"eps must be >= 0, got {eps!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = special.ndtr(d / 2.0 - e / d)
        t2 = np.exp(e + special.log_ndtr(-d / 2.0 - e / d))
        out = np.clip(t1 - t2, 0.0, 1.0)
    out = np.where(d > 0, out, 0.0)
    return float(out) if out.ndim == 0 else out


def hockey_stick_epsilon(delta: float, sensitivity: float) -> float:
    """Smallest eps >= 0 with ``hockey_stick_delta(eps, sensitivity) <= delta`` (the inverse of
    :func:`hockey_stick_delta` in eps, which decreases in eps; Brent's method to 1e-10)."""
    from scipy import optimize

    if not 0.0 < delta < 1.0:
        raise CalibrationError(f"need 0 < delta < 1, got {delta!r}")
    if hockey_stick_delta(0.0, sensitivity) <= delta:
        return 0.0
    hi = 1.0
    while hockey_stick_delta(hi, sensitivity) > delta:
        hi *= 2.0
        if hi > 1e6:
            raise CalibrationError(f"no eps <= 1e6 reaches delta {delta!r} for sensitivity {sensitivity!r}")
    return float(optimize.brentq(lambda e: hockey_stick_delta(e, sensitivity) - delta, 0.0, hi, xtol=1e-10, rtol=1e-12))


def analytic_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """Smallest sigma with ``hockey_stick_delta(eps, sensitivity / sigma) <= delta`` (Balle and Wang 2018,
    Algorithm 1; root of the monotone delta(sigma) by Brent's method in log sigma, to 1e-14)."""
    from scipy import optimize

    _check_budget(eps, delta)
    _check_positive("sensitivity", sensitivity)

    def gap(log_sigma: float) -> float:
        return hockey_stick_delta(eps, sensitivity / math.exp(log_sigma)) - delta

    lo, hi = math.log(sensitivity) - 10.0, math.log(sensitivity) + 10.0
    while gap(lo) < 0:
        lo -= 10.0
    while gap(hi) > 0:
        hi += 10.0
    sigma = math.exp(optimize.brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14))
    while hockey_stick_delta(eps, sensitivity / sigma) > delta:  # the root may sit a rounding error short
        sigma *= 1.0 + 1e-12
    return sigma


def classical_sigma(eps: float, delta: float, sensitivity: float, *, eps_max: float | None = 1.0) -> float:
    """Dwork and Roth (2014), Thm. A.1: ``sigma = Delta sqrt(2 ln(1.25/delta)) / eps``, stated for eps < 1
    (``eps_max=None`` evaluates the formula beyond its validity, for calibration sweeps)."""
    _check_budget(eps, delta, eps_max=eps_max)
    _check_positive("sensitivity", sensitivity)
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / eps


# --------------------------------------------------------------------------------------------
# the registry of named calibrations


@dataclass(frozen=True)
class GaussianCalibration:
    """One named calibration. ``sigma_formula(eps, delta, B)`` and/or ``d2_formula(eps, delta)`` (at least one)
    are its closed forms; ``eps_max`` the eps below which its source states it (None: every eps > 0)."""

    name: str
    source: str
    sigma_formula: Callable[[float, float, float], float] | None = None
    d2_formula: Callable[[float, float], float] | None = None
    eps_max: float | None = None
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.sigma_formula is None and self.d2_formula is None:
            raise ValueError(f"calibration {self.name!r} needs a sigma or a squared-sensitivity formula")

    def _check(self, eps: float, delta: float, within_domain: bool) -> None:
        _check_budget(eps, delta, eps_max=self.eps_max if within_domain else None)

    def sigma(self, eps: float, delta: float, sensitivity: float, *, within_domain: bool = True) -> float:
        """Noise std of the i.i.d. Gaussian mechanism with L2 ``sensitivity`` B at (eps, delta).

        ``within_domain=False`` evaluates the formula beyond the eps its source states (calibration sweeps)."""
        self._check(eps, delta, within_domain)
        _check_positive("sensitivity", sensitivity)
        if self.sigma_formula is not None:
            return self.sigma_formula(eps, delta, sensitivity)
        return sensitivity / math.sqrt(self.d2_formula(eps, delta))

    def squared_sensitivity(self, eps: float, delta: float, *, within_domain: bool = True) -> float:
        """The largest squared whitened sensitivity ``D^2 = v' Sigma^{-1} v`` allowed at (eps, delta)
        (dpkmeans' gamma_c); ``within_domain`` as in :meth:`sigma`."""
        self._check(eps, delta, within_domain)
        if self.d2_formula is not None:
            return self.d2_formula(eps, delta)
        return (1.0 / self.sigma_formula(eps, delta, 1.0)) ** 2


def _pdp_d2(eps: float, delta: float) -> float:
    d = pdp_sensitivity(eps, delta)
    return d * d


def _eq13_d2(eps: float, delta: float) -> float:
    return eps**2 / (2.0 * math.log(2.0 / delta))


def _classical_sigma(eps: float, delta: float, sensitivity: float) -> float:
    return classical_sigma(eps, delta, sensitivity, eps_max=None)  # the domain is checked by the entry


def _quantile_sigma(eps: float, delta: float, sensitivity: float) -> float:
    from scipy import stats

    return sensitivity * float(stats.norm.isf(delta)) / eps


_ENTRIES = (
    GaussianCalibration(
        "proposition1",
        "spdp Proposition 1, eq. (2); dpkmeans Definition 4 / eq. (9): Pr(L > eps) <= delta",
        sigma_formula=pdp_sigma,
        d2_formula=_pdp_d2,
        aliases=("exact_pdp",),
    ),
    GaussianCalibration(
        "classical", "Dwork & Roth (2014), Thm A.1: sigma = B sqrt(2 ln(1.25/delta)) / eps", _classical_sigma, None, 1.0
    ),
    GaussianCalibration(
        "paper_eq13",
        "dpkmeans eq. (13) (Theorem 2): gamma_c = eps^2 / (2 ln(2/delta))",
        d2_formula=_eq13_d2,
        eps_max=1.0,
        aliases=("classical_ln2",),
    ),
    GaussianCalibration("analytic", "Balle & Wang (2018), Algorithm 1: exact (eps, delta)-DP", analytic_sigma),
    GaussianCalibration("quantile", "sigma = B Q^{-1}(delta) / eps (a reading of spdp Table III)", _quantile_sigma),
)

#: every accepted name (aliases included) -> its calibration
CALIBRATIONS: dict[str, GaussianCalibration] = {n: c for c in _ENTRIES for n in (c.name, *c.aliases)}


def calibration_names() -> tuple[str, ...]:
    """Every accepted name, aliases included."""
    return tuple(CALIBRATIONS)


def calibration(name: str) -> GaussianCalibration:
    """The calibration called ``name``; :class:`~dpgrid.privacy.gaussian.CalibrationError` naming it otherwise."""
    try:
        return CALIBRATIONS[name]
    except (KeyError, TypeError):
        raise CalibrationError(
            f"unknown Gaussian calibration {name!r}; use one of {', '.join(calibration_names())}"
        ) from None

"""Named calibrations of the Gaussian mechanism: one registry, each formula written once.

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

from dpgrid.privacy.gaussian import (
    CalibrationError,
    _check_budget,
    _check_positive,
    analytic_sigma,
    classical_sigma,
    pdp_sensitivity,
    pdp_sigma,
)

__all__ = ["GaussianCalibration", "CALIBRATIONS", "calibration", "calibration_names"]


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

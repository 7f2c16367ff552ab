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
    """
    if shift_norm <= 0:
        return 0.0
    d = shift_norm
    return float(stats.norm.cdf(d / 2 - eps / d) - math.exp(eps) * stats.norm.cdf(-d / 2 - eps / d))


# --------------------------------------------------------------------------- formula sweep (Table III)

#: Gaussian-mechanism calibrations that a paper may have used for sigma (per unit sensitivity B):
#: ``classical`` B sqrt(2 ln(1.25/delta))/eps; ``classical_ln2`` B sqrt(2 ln(2/delta))/eps (a common variant);
#: ``proposition1`` eq. (2); ``analytic`` Balle & Wang's exact calibration; ``quantile`` B Q^{-1}(delta)/eps.
SIGMA_FORMULAS = ("classical", "classical_ln2", "proposition1", "analytic", "quantile")


def sigma_formula(name: str, b: float, eps: float, delta: float) -> float:
    """sigma of the i.i.d. Gaussian mechanism with L2 sensitivity ``b`` by the named calibration.

    ``classical`` is applied without its eps < 1 restriction here (the sweep also tries eps > 1).
    """
    _check(b, eps, delta)
    if name == "classical":
        return b * math.sqrt(2.0 * math.log(1.25 / delta)) / eps
    if name == "classical_ln2":
        return b * math.sqrt(2.0 * math.log(2.0 / delta)) / eps
    if name == "proposition1":
        return proposition1_sigma(b, eps, delta)
    if name == "analytic":
        from dpgrid.privacy.analytic_gaussian import analytic_gaussian_sigma

        return analytic_gaussian_sigma(eps, delta, b)
    if name == "quantile":
        return b * q_inverse(delta) / eps
    raise CalibrationError(f"unknown calibration {name!r}; use one of {SIGMA_FORMULAS}")


def printed_interval(value: float, decimals: int) -> tuple[float, float]:
    """The interval of true values that print as ``value`` when rounded to ``decimals`` decimals."""
    h = 0.5 * 10.0 ** (-decimals)
    return value - h, value + h


def sample_std_probability(sigma: float, n: int, lo: float, hi: float) -> float:
    """Pr(lo <= s < hi) for the sample standard deviation s of n i.i.d. N(mu, sigma^2) values (ddof = 1).

    (n - 1) s^2 / sigma^2 ~ chi^2_{n-1}; the printed noise std of Table III is such an s.
    """
    if n < 2 or sigma <= 0 or hi <= lo:
        raise CalibrationError(f"need n >= 2, sigma > 0, lo < hi; got n={n}, sigma={sigma}, ({lo}, {hi})")
    c = stats.chi2(n - 1)
    return float(c.cdf((n - 1) * (hi / sigma) ** 2) - c.cdf((n - 1) * (max(lo, 0.0) / sigma) ** 2))


def formula_sweep(b_values: dict, printed: dict, *, eps_values, delta_values, formulas=SIGMA_FORMULAS,
                  sample_sizes=()) -> list[dict]:
    """Which (formula, eps, delta) gives sigma values that print as the paper's digits.

    ``b_values``: {series: B}; ``printed``: {series: (value, decimals)} in the same unit as B. For every
    combination, each series gets sigma, whether sigma itself rounds to the printed value (``*_rounds``),
    and for each n in ``sample_sizes`` the probability that the *sample* std of n noise values prints as
    the paper's digits (``*_p_n{n}``); ``joint_rounds`` / ``joint_p_n{n}`` combine the series.
    """
    rows = []
    for name in formulas:
        for eps in eps_values:
            for delta in delta_values:
                row = {"formula": name, "eps": float(eps), "delta": float(delta), "joint_rounds": True}
                joint = dict.fromkeys(sample_sizes, 1.0)
                for series, b in b_values.items():
                    value, dec = printed[series]
                    lo, hi = printed_interval(value, dec)
                    s = sigma_formula(name, b, eps, delta)
                    row[f"{series}_sigma"] = s
                    row[f"{series}_rounds"] = bool(lo <= s < hi)
                    row["joint_rounds"] &= row[f"{series}_rounds"]
                    for n in sample_sizes:
                        p = sample_std_probability(s, n, lo, hi)
                        row[f"{series}_p_n{n}"] = p
                        joint[n] *= p
                for n in sample_sizes:
                    row[f"joint_p_n{n}"] = joint[n]
                rows.append(row)
    return rows


# --------------------------------------------------------------------------- exact delta of a calibration

def exact_delta_row(mechanism: str, calibration: str, eps: float, calibrated_delta: float,
                    shift_norm: float) -> dict:
    """The exact (eps, delta) of a calibrated Gaussian mechanism beside the delta it was calibrated for.

    ``shift_norm`` is the worst-case whitened sensitivity Delta = max ||Sigma^{-1/2} v|| over adjacent
    pairs (B / sigma for i.i.d. noise, B / sqrt(lambda_min(Sigma)) for correlated noise). Returns the
    exact hockey-stick delta (Balle & Wang 2018, Thm 8: the smallest delta for which the mechanism is
    (eps, delta)-DP) and the privacy-loss tail Pr(L > eps) (the criterion of Propositions 1-2).
    """
    hs = hockey_stick_delta(eps, shift_norm)
    tail = privacy_loss_tail(eps, shift_norm)
    return {"mechanism": mechanism, "calibration": calibration, "epsilon": float(eps),
            "calibrated_delta": float(calibrated_delta), "shift_norm": float(shift_norm),
            "privacy_loss_tail": tail, "exact_delta": hs, "exact_over_calibrated": hs / calibrated_delta,
            "method": "closed form, Balle & Wang (2018) Thm 8"}

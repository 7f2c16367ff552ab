"""Which Gaussian calibration did a paper use? Candidate sigma formulas, a sweep over them, and the exact
(eps, delta) of a calibrated mechanism beside the delta it was calibrated for.

spdp (Parker, Hale, Barooah), Table III prints TrDP noise levels 0.92 kW (B = 0.2 kW) and 0.18 MW
(B = 39 kW) at eps = ln 2, delta = 0.01 (Table I). :func:`formula_sweep` evaluates every candidate
formula of :data:`SIGMA_FORMULAS` over eps and delta values and says which print the paper's digits;
:func:`exact_delta_row` puts the tight hockey-stick delta (:func:`dpgrid.privacy.gaussian.hockey_stick_delta`)
beside the delta a calibration targets. The formulas themselves are the calibration registry
:data:`dpgrid.privacy.gaussian.CALIBRATIONS`.
"""

from __future__ import annotations

import math

from dpgrid.privacy.gaussian import CalibrationError, hockey_stick_delta, pdp_delta
from dpgrid.privacy.gaussian import calibration as gaussian_calibration

#: Gaussian-mechanism calibrations that a paper may have used for sigma (names in
#: :data:`dpgrid.privacy.gaussian.CALIBRATIONS`):
#: ``classical`` B sqrt(2 ln(1.25/delta))/eps; ``classical_ln2`` B sqrt(2 ln(2/delta))/eps (a common variant; the
#: dpkmeans paper's eq. (13)); ``proposition1`` eq. (2) (the PDP calibration); ``analytic`` Balle & Wang's exact
#: calibration; ``quantile`` B Q^{-1}(delta)/eps.
SIGMA_FORMULAS = ("classical", "classical_ln2", "proposition1", "analytic", "quantile")


def sigma_formula(name: str, b: float, eps: float, delta: float) -> float:
    """sigma of the i.i.d. Gaussian mechanism with L2 sensitivity ``b`` by the named calibration
    (:data:`dpgrid.privacy.gaussian.CALIBRATIONS`), evaluated also beyond the eps its source states (the sweep tries
    eps > 1)."""
    if not (math.isfinite(b) and b > 0):
        raise CalibrationError(f"adjacency parameter B must be positive and finite, got {b!r}")
    return gaussian_calibration(name).sigma(eps, delta, b, within_domain=False)


def printed_interval(value: float, decimals: int) -> tuple[float, float]:
    """The interval of true values that print as ``value`` when rounded to ``decimals`` decimals."""
    h = 0.5 * 10.0 ** (-decimals)
    return value - h, value + h


def sample_std_probability(sigma: float, n: int, lo: float, hi: float) -> float:
    """Pr(lo <= s < hi) for the sample standard deviation s of n i.i.d. N(mu, sigma^2) values (ddof = 1).

    (n - 1) s^2 / sigma^2 ~ chi^2_{n-1}; the printed noise std of Table III is such an s.
    """
    from scipy import stats

    if n < 2 or sigma <= 0 or hi <= lo:
        raise CalibrationError(f"need n >= 2, sigma > 0, lo < hi; got n={n}, sigma={sigma}, ({lo}, {hi})")
    c = stats.chi2(n - 1)
    return float(c.cdf((n - 1) * (hi / sigma) ** 2) - c.cdf((n - 1) * (max(lo, 0.0) / sigma) ** 2))


def formula_sweep(
    b_values: dict, printed: dict, *, eps_values, delta_values, formulas=SIGMA_FORMULAS, sample_sizes=()
) -> list[dict]:
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


def exact_delta_row(mechanism: str, calibration: str, eps: float, calibrated_delta: float, shift_norm: float) -> dict:
    """The exact (eps, delta) of a calibrated Gaussian mechanism beside the delta it was calibrated for.

    ``shift_norm`` is the worst-case whitened sensitivity Delta = max ||Sigma^{-1/2} v|| over adjacent
    pairs (B / sigma for i.i.d. noise, B / sqrt(lambda_min(Sigma)) for correlated noise). Returns the
    exact hockey-stick delta (Balle & Wang 2018, Thm 8: the smallest delta for which the mechanism is
    (eps, delta)-DP) and the privacy-loss tail Pr(L > eps) (the criterion of Propositions 1-2).
    """
    hs = hockey_stick_delta(eps, shift_norm)
    tail = pdp_delta(eps, shift_norm)
    return {
        "mechanism": mechanism,
        "calibration": calibration,
        "epsilon": float(eps),
        "calibrated_delta": float(calibrated_delta),
        "shift_norm": float(shift_norm),
        "privacy_loss_tail": tail,
        "exact_delta": hs,
        "exact_over_calibrated": hs / calibrated_delta,
        "method": "closed form, Balle & Wang (2018) Thm 8",
    }

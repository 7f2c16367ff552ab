"""dpgrid.privacy.gaussian: the Gaussian mechanism's accounting, checked against closed forms, Monte Carlo
and Google's dp_accounting."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.privacy.gaussian import (
    CalibrationError,
    analytic_sigma,
    classical_sigma,
    hockey_stick_delta,
    pdp_delta,
    pdp_sensitivity,
    pdp_sigma,
)


@settings(max_examples=60, deadline=None)
@given(eps=st.floats(0.01, 50.0), log_delta=st.floats(-12.0, -0.5))
def test_pdp_calibration_inverts_the_tail(eps, log_delta):
    """pdp_sensitivity is the root of Q(eps/D - D/2) = delta; pdp_sigma = Delta / D (spdp eq. 2)."""
    delta = 10.0**log_delta
    d = pdp_sensitivity(eps, delta)
    assert d > 0
    assert pdp_delta(eps, d) == pytest.approx(delta, rel=1e-9)
    assert pdp_delta(eps, 1.001 * d) > delta > pdp_delta(eps, 0.999 * d)  # the largest such D
    assert pdp_sigma(eps, delta, 3.0) == pytest.approx(3.0 / d, rel=1e-12)


def test_pdp_tail_matches_monte_carlo_of_the_privacy_loss():
    """L = log N(y; v, s^2) - log N(y; 0, s^2) for y ~ N(v, s^2): Pr(L > eps) = Q(eps/D - D/2), D = v/s."""
    rng = np.random.default_rng(11)
    v, s, eps, n = 1.3, 0.8, 0.7, 400_000
    y = v + s * rng.standard_normal(n)
    loss = ((y) ** 2 - (y - v) ** 2) / (2 * s * s)
    emp = float(np.mean(loss > eps))
    exact = pdp_delta(eps, v / s)
    assert abs(emp - exact) < 5 * math.sqrt(exact * (1 - exact) / n)


def test_hockey_stick_matches_dp_accounting_and_is_below_the_tail():
    from dp_accounting.pld import privacy_loss_mechanism

    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 5.0])
    for sens, sigma in [(1.0, 1.0), (2.0, 0.7), (0.3, 1.9)]:
        ref = privacy_loss_mechanism.GaussianPrivacyLoss(standard_deviation=sigma, sensitivity=sens)
        theirs = np.asarray(ref.get_delta_for_epsilon(list(eps)))
        ours = hockey_stick_delta(eps, sens / sigma)
        np.testing.assert_allclose(ours, theirs, atol=1e-9, rtol=1e-7)
        assert np.all(ours <= pdp_delta(eps, sens / sigma) + 1e-15)  # PDP implies DP (classdp Thm 1)
    # log space: no overflow where e^eps alone would (eps = 800)
    assert hockey_stick_delta(800.0, 5.0) == 0.0
    assert hockey_stick_delta(1.0, 0.0) == 0.0 and pdp_delta(1.0, 0.0) == 0.0


def test_analytic_sigma_is_the_smallest_safe_sigma():
    for eps, delta, sens in [(1.0, 1e-5, 1.0), (5.0, 1e-3, 0.7), (0.3, 0.05, 2.0)]:
        s = analytic_sigma(eps, delta, sens)
        assert hockey_stick_delta(eps, sens / s) <= delta  # safe side of the root
        assert hockey_stick_delta(eps, sens / (s * (1 - 1e-6))) > delta  # and the smallest such sigma
        assert s < pdp_sigma(eps, delta, sens)  # the tail criterion is looser


def test_classical_sigma_formula_and_domain():
    assert classical_sigma(0.5, 1e-5, 2.0) == pytest.approx(2.0 * math.sqrt(2 * math.log(1.25e5)) / 0.5)
    with pytest.raises(CalibrationError, match="epsilon < 1"):
        classical_sigma(1.5, 1e-5, 1.0)
    assert classical_sigma(1.5, 1e-5, 1.0, eps_max=None) == pytest.approx(math.sqrt(2 * math.log(1.25e5)) / 1.5)
    with pytest.raises(CalibrationError, match="delta"):
        pdp_sigma(1.0, 1.5, 1.0)
    with pytest.raises(CalibrationError, match="sensitivity"):
        analytic_sigma(1.0, 0.01, -1.0)


def test_shift_privacy_loss_is_the_log_density_ratio_and_normal_in_the_whitened_sensitivity():
    """shift_privacy_loss = ln N(o; m, cov/g) - ln N(o; m - v, cov/g) at o = m + noise (scipy's densities), and its
    law under m is N(D^2/2, D^2), D^2 = g v' cov^{-1} v (so its tail is pdp_delta)."""
    from scipy import stats

    from dpgrid.privacy.gaussian import shift_privacy_loss

    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 3))
    cov, v, m, g = a @ a.T + 0.5 * np.eye(3), np.array([0.4, -0.2, 0.7]), np.array([1.0, 2.0, -1.0]), 2.5
    noise = rng.multivariate_normal(np.zeros(3), cov / g, size=200_000)
    loss = shift_privacy_loss(noise, v, cov, g)
    o = m + noise[:50]
    direct = stats.multivariate_normal(m, cov / g).logpdf(o) - stats.multivariate_normal(m - v, cov / g).logpdf(o)
    np.testing.assert_allclose(loss[:50], direct, rtol=1e-9, atol=1e-12)
    d2 = g * float(v @ np.linalg.solve(cov, v))
    assert abs(loss.mean() - d2 / 2) < 5 * math.sqrt(d2 / loss.size)
    assert loss.var() == pytest.approx(d2, rel=0.02)
    eps = 0.3
    exact = pdp_delta(eps, math.sqrt(d2))
    assert abs(float(np.mean(loss > eps)) - exact) < 5 * math.sqrt(exact * (1 - exact) / loss.size)

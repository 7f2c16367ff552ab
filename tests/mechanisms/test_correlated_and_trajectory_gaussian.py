"""Privacy audits and calibration arithmetic of the SpDP / TrDP Gaussian mechanisms.

Parker, Hale, Barooah: Proposition 1 (eq. 2), Proposition 2 (eq. 7), Appendix A (privacy-loss tail).
Each audit samples the mechanism, computes the privacy loss L with scipy's densities (independently
of the mechanism's own algebra), and compares Pr(L > eps) and the hockey-stick divergence with the
claimed delta using exact binomial (Clopper-Pearson) confidence bounds.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpgrid.mechanisms.correlated_gaussian import (
    CorrelatedGaussianError,
    CorrelatedGaussianMechanism,
    correlation_matrix,
    proposition2_lambda_bar,
)
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism, trajectory_sigma
from dpgrid.privacy.gaussian import CalibrationError, hockey_stick_delta
from dpgrid.privacy.gaussian import pdp_delta as privacy_loss_tail


def proposition1_sigma(b, eps, delta):
    return trajectory_sigma(b, eps, delta, "proposition1")


def classical_sigma(b, eps, delta):
    return trajectory_sigma(b, eps, delta, "classical")


EPS, DELTA = math.log(2), 0.01


def _ci(k, n, level=0.999):
    r = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return r.low, r.high


# ------------------------------------------------------------------ calibration arithmetic


def test_eq7_is_the_square_of_eq2():
    for b in (0.12, 0.2, 39.0):
        assert math.sqrt(proposition2_lambda_bar(b, EPS, DELTA)) == pytest.approx(
            proposition1_sigma(b, EPS, DELTA), rel=1e-12
        )


def test_proposition1_sigma_makes_the_loss_tail_exactly_delta():
    """Appendix A: Pr(L > eps) = Q(eps/Delta - Delta/2) with Delta = B/sigma; eq. (2) solves it for delta."""
    for eps, delta in [(EPS, DELTA), (0.1, 1e-5), (2.0, 0.3)]:
        s = proposition1_sigma(1.0, eps, delta)
        assert privacy_loss_tail(eps, 1.0 / s) == pytest.approx(delta, rel=1e-9)


def test_classical_calibration_values_and_domain():
    # Table III arithmetic: B = 0.2 kW and 39 kW at eps = ln 2, delta = 0.01
    assert classical_sigma(0.2, EPS, DELTA) == pytest.approx(0.2 * math.sqrt(2 * math.log(125)) / math.log(2))
    assert classical_sigma(0.2, EPS, DELTA) == pytest.approx(0.8967, abs=1e-4)
    assert proposition1_sigma(0.2, EPS, DELTA) == pytest.approx(0.7118, abs=1e-4)
    # the classical sigma is valid but looser than eq. (2) here
    assert privacy_loss_tail(EPS, 1.0 / classical_sigma(1.0, EPS, DELTA)) < DELTA
    with pytest.raises(CalibrationError, match="epsilon < 1"):
        classical_sigma(1.0, 1.5, DELTA)
    with pytest.raises(CalibrationError, match="delta"):
        proposition1_sigma(1.0, EPS, 1.5)


def test_hockey_stick_delta_matches_dp_accounting_and_is_below_the_tail():
    pld_mod = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    for sigma in (0.8, 3.0):
        pld = pld_mod.from_gaussian_mechanism(sigma, sensitivity=1.0, value_discretization_interval=1e-4)
        for eps in (0.1, EPS, 1.5):
            exact = hockey_stick_delta(eps, 1.0 / sigma)
            assert exact == pytest.approx(pld.get_delta_for_epsilon(eps), rel=1e-2, abs=1e-7)
            assert exact <= privacy_loss_tail(eps, 1.0 / sigma)


# ------------------------------------------------------------------ correlated mechanism (Prop. 2)


@pytest.mark.parametrize("structure", ["ar1", "equicorrelated"])
def test_covariance_meets_eq7_exactly(structure):
    m = CorrelatedGaussianMechanism(289, 0.12, EPS, DELTA, beta=0.5, structure=structure)
    lam = np.linalg.eigvalsh(m.cov)
    assert lam[0] >= m.lambda_bar * (1 - 1e-12)
    assert lam[0] == pytest.approx(m.lambda_bar, rel=1e-9)
    assert m.satisfies_proposition2
    c = m.cov / m.cov[0, 0]
    # the requested degree of correlation: lag-1 correlation beta
    assert c[0, 1] == pytest.approx(0.5) and np.allclose(np.diag(c), 1.0)
    if structure == "equicorrelated":  # closed form lambda_min = (1 - beta) * diag
        assert m.cov[0, 0] == pytest.approx(m.lambda_bar / 0.5)


def test_beta_zero_is_iid_with_variance_lambda_bar():
    m = CorrelatedGaussianMechanism(10, 1.0, EPS, DELTA, beta=0.0)
    assert np.allclose(m.cov, m.lambda_bar * np.eye(10))
    with pytest.raises(CorrelatedGaussianError, match="beta"):
        correlation_matrix(5, 1.0, "ar1")


def test_sampled_noise_has_the_stated_covariance():
    m = CorrelatedGaussianMechanism(16, 1.0, EPS, DELTA, beta=0.5)
    eta = m.sample_noise(np.random.default_rng(4), 100_000)
    assert np.allclose(np.cov(eta.T), m.cov, atol=0.03 * m.cov[0, 0])


def _audit(logpdf_x, logpdf_y, samples, eps):
    loss = logpdf_x(samples) - logpdf_y(samples)
    n = loss.size
    k_tail = int(np.sum(loss > eps))
    hockey = np.maximum(0.0, 1.0 - np.exp(eps - loss))  # E_P[(1 - e^{eps - L})^+] = delta(eps)
    return k_tail, n, hockey


def _corr_audit(scale, rng, n=200_000):
    m = CorrelatedGaussianMechanism(48, 0.12, EPS, DELTA, beta=0.5, structure="ar1", lambda_scale=scale)
    x = np.abs(rng.normal(0.5, 0.2, m.size))
    dirs = [m.worst_case_shift()] + [rng.standard_normal(m.size) for _ in range(3)]
    out = []
    for v in dirs:
        v = m.b * v / np.linalg.norm(v)  # an adjacent pair at distance exactly B
        y = x - v
        samples = x + m.sample_noise(rng, n)
        px = stats.multivariate_normal(x, m.cov)
        py = stats.multivariate_normal(y, m.cov)
        out.append((_audit(px.logpdf, py.logpdf, samples, EPS), m.whitened_shift_norm(v)))
    return m, out


def test_correlated_mechanism_audit_privacy_loss_tail_within_delta():
    m, res = _corr_audit(1.0, np.random.default_rng(5))
    for (k, n, hockey), shift in res:
        lo, hi = _ci(k, n)
        assert lo <= DELTA  # no evidence that Pr(L > eps) > delta
        assert lo <= privacy_loss_tail(EPS, shift) <= hi  # and the sample agrees with the closed form
        se = hockey.std(ddof=1) / math.sqrt(n)
        assert hockey.mean() <= DELTA + 4 * se
    (k, n, _), shift = res[0]  # worst-case pair: the bound is attained
    assert shift == pytest.approx(m.b / math.sqrt(m.lambda_bar), rel=1e-9)
    assert privacy_loss_tail(EPS, shift) == pytest.approx(DELTA, rel=1e-9)


def test_correlated_mechanism_below_eq7_violates_delta():
    """Tightness: with lambda_min = 0.8 lambda_bar the worst-case pair has Pr(L > eps) > delta."""
    _, res = _corr_audit(0.8, np.random.default_rng(6))
    (k, n, _), _ = res[0]
    lo, _ = _ci(k, n)
    assert lo > DELTA


# ------------------------------------------------------------------ trajectory mechanism (Prop. 1)


def _trdp_audit(scale, calibration, rng, n=200_000, k=48):
    m = TrajectoryGaussianMechanism(0.2, EPS, DELTA, calibration=calibration, sigma_scale=scale)
    x = np.abs(rng.normal(1.7, 1.0, k))
    v = rng.standard_normal(k)
    y = x - m.b * v / np.linalg.norm(v)
    samples = m.release(np.broadcast_to(x, (n, k)), rng)

    def lp(mu):
        return lambda s: stats.norm.logpdf(s, loc=mu, scale=m.sigma).sum(axis=1)

    return m, _audit(lp(x), lp(y), samples, EPS)


def test_trajectory_mechanism_audit_within_delta():
    m, (kk, n, hockey) = _trdp_audit(1.0, "proposition1", np.random.default_rng(7))
    lo, hi = _ci(kk, n)
    assert lo <= DELTA <= hi  # eq. (2) holds with equality: the tail is delta
    assert hockey.mean() <= DELTA + 4 * hockey.std(ddof=1) / math.sqrt(n)
    assert hockey.mean() == pytest.approx(hockey_stick_delta(EPS, m.b / m.sigma), rel=0.1)


def test_trajectory_mechanism_below_eq2_violates_delta():
    _, (kk, n, _) = _trdp_audit(0.8, "proposition1", np.random.default_rng(8))
    assert _ci(kk, n)[0] > DELTA


def test_trajectory_mechanism_classical_calibration_within_delta():
    _, (kk, n, _) = _trdp_audit(1.0, "classical", np.random.default_rng(9))
    assert _ci(kk, n)[1] < DELTA  # classical sigma is larger: the tail is clearly below delta

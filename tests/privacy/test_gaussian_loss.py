"""Gaussian privacy-loss accounting (classdp Prop. 1, Cor. 1, Lemma 1) and the analytic Gaussian delta."""

import math

import numpy as np
import pytest
from scipy import stats

from dpgrid.privacy.clopper_pearson import clopper_pearson as binomial_interval
from dpgrid.privacy.gaussian import analytic_sigma, hockey_stick_delta, pdp_delta
from dpgrid.privacy.gaussian_loss import (
    GaussianPrivacyLoss,
    chernoff_bound,
    chernoff_bound_at,
    chernoff_bound_grid,
    delta_exact,
    delta_monte_carlo,
    delta_sup_over_edges,
    log_likelihood_ratio,
    privacy_loss,
)
from dpgrid.privacy.gaussian_loss.closed_form import delta_closed_form

EPS = np.linspace(-0.5, 3.0, 15)


def _random_pair(rng, k, shift=0.4, df_extra=3):
    a = stats.wishart(df=k + df_extra, scale=np.eye(k) / (k + df_extra)).rvs(random_state=rng)
    b = stats.wishart(df=k + df_extra, scale=np.eye(k) / (k + df_extra)).rvs(random_state=rng)
    mu = rng.standard_normal(k)
    return mu, np.atleast_2d(a), mu + shift * rng.standard_normal(k), np.atleast_2d(b)


def _gauss_kl(m0, s0, m1, s1):
    k = m0.size
    s1i = np.linalg.inv(s1)
    d = m1 - m0
    return 0.5 * (np.trace(s1i @ s0) + d @ s1i @ d - k + np.linalg.slogdet(s1)[1] - np.linalg.slogdet(s0)[1])


def test_exact_matches_closed_form_for_equal_covariances():
    rng = np.random.default_rng(0)
    for k in (1, 2, 12):
        mu, cov, mu2, _ = _random_pair(rng, k)
        loss = privacy_loss(mu, cov, mu2, cov)
        np.testing.assert_allclose(delta_exact(loss, EPS), delta_closed_form(loss, EPS), atol=1e-9, rtol=0)


@pytest.mark.parametrize("k", [1, 2, 3, 12])
@pytest.mark.parametrize("g", [2.5, 0.4])
def test_exact_matches_noncentral_chi_square(k, g):
    # Gamma = g I: L = c + a sum (xi_j + b_j/(2a))^2 - sum b_j^2/(4a), a scaled noncentral chi-square
    rng = np.random.default_rng(k)
    loss = GaussianPrivacyLoss(np.full(k, g), rng.standard_normal(k))
    a = loss.a[0]
    lam = np.sum((loss.b / (2 * a)) ** 2)
    const = loss.c - np.sum(loss.b**2 / (4 * a))
    z = (EPS - const) / a
    ref = stats.ncx2.sf(z, k, lam) if a > 0 else stats.ncx2.cdf(z, k, lam)
    np.testing.assert_allclose(delta_exact(loss, EPS), ref, atol=1e-8, rtol=0)


def test_loss_mean_is_kl_divergence():
    rng = np.random.default_rng(1)
    for k in (2, 12):
        m0, s0, m1, s1 = _random_pair(rng, k)
        assert privacy_loss(m0, s0, m1, s1).mean == pytest.approx(_gauss_kl(m0, s0, m1, s1), rel=1e-9)


@pytest.mark.parametrize("k", [2, 12])
def test_exact_matches_monte_carlo_of_direct_likelihood_ratio(k):
    """Sample q ~ N(mu_X, Sigma_X), L from the two densities (scipy), compare with the exact tail.

    Per-comparison 99.9 % Clopper-Pearson intervals; 36 comparisons, so the family-wise false-alarm
    probability of a correct implementation is at most 3.6 % (the seed is fixed).
    """
    rng = np.random.default_rng(100 + k)
    n = 200_000
    for _ in range(3):
        m0, s0, m1, s1 = _random_pair(rng, k, shift=0.3)
        loss = privacy_loss(m0, s0, m1, s1)
        q = rng.multivariate_normal(m0, s0, size=n)
        llr = np.sort(log_likelihood_ratio(q, m0, s0, m1, s1))
        # eps fixed before looking at the sample (quantiles of the sample would bias the counts)
        eps = loss.mean + np.sqrt(loss.var) * np.array([-1.5, -0.8, 0.0, 0.8, 1.5, 2.5])
        counts = n - np.searchsorted(llr, eps, side="right")
        lo, hi = binomial_interval(counts, n, 0.999)
        exact = delta_exact(loss, eps)
        assert np.all((exact >= lo) & (exact <= hi)), (exact, lo, hi)
        # and the xi-representation sampler (eq. 29) agrees with the direct one
        d_mc, c_mc = delta_monte_carlo(loss, eps, n, rng)
        lo2, hi2 = binomial_interval(c_mc, n, 0.999)
        assert np.all((exact >= lo2) & (exact <= hi2))


def test_chernoff_bound_dominates_exact():
    rng = np.random.default_rng(2)
    eps = np.linspace(0.0, 4.0, 21)
    for k in (1, 2, 5, 12):
        for _ in range(3):
            loss = privacy_loss(*_random_pair(rng, k))
            exact = delta_exact(loss, eps)
            cb = chernoff_bound(loss, eps)
            assert np.all(cb >= exact - 1e-9)
            assert np.all(chernoff_bound_grid(loss, eps) >= cb - 1e-9)  # the optimum is below any grid point
            s = max(1.0, loss.gamma.max()) * 1.5 + 0.5
            assert np.all(np.minimum(1, chernoff_bound_at(loss, eps, s)) >= cb - 1e-12)
    with pytest.raises(ValueError):
        chernoff_bound_at(GaussianPrivacyLoss(np.array([3.0]), np.array([0.1])), [1.0], 2.0)


def test_chernoff_bound_at_equals_markov_with_mgf():
    loss = GaussianPrivacyLoss(np.array([2.0, 0.5, 1.3]), np.array([0.3, -0.2, 0.7]))
    s = 3.0
    theta = 1.0 / (s - 1.0)
    eps = np.array([0.5, 1.5])
    np.testing.assert_allclose(
        chernoff_bound_at(loss, eps, s), np.exp(loss.log_mgf(np.array(theta)) - theta * eps), rtol=1e-12
    )


def test_pdp_delta_dominates_analytic_gaussian_for_white_noise_mean_shift():
    """White noise, deterministic shift: the PDP tail >= the tight hockey-stick delta (Balle-Wang)."""
    k, sigma = 3, 0.8
    shift = np.array([0.5, -0.3, 0.2])
    sens = np.linalg.norm(shift)
    loss = privacy_loss(np.zeros(k), sigma**2 * np.eye(k), shift, sigma**2 * np.eye(k))
    eps = np.linspace(0.05, 3.0, 30)
    pdp = delta_exact(loss, eps)
    np.testing.assert_allclose(pdp, pdp_delta(eps, sens / sigma), atol=1e-9)
    hs = hockey_stick_delta(eps, sens / sigma)
    assert np.all(pdp >= hs) and np.all(pdp - hs > 1e-6)


def test_analytic_gaussian_matches_dp_accounting():
    from dp_accounting.pld import privacy_loss_mechanism

    eps = np.array([0.1, 0.5, 1.0, 2.0, 5.0])
    for sens, sigma in [(1.0, 1.0), (2.0, 0.7), (0.3, 1.9)]:
        ref = privacy_loss_mechanism.GaussianPrivacyLoss(standard_deviation=sigma, sensitivity=sens)
        theirs = np.asarray(ref.get_delta_for_epsilon(list(eps)))
        np.testing.assert_allclose(hockey_stick_delta(eps, sens / sigma), theirs, atol=1e-9, rtol=1e-7)
    sig = analytic_sigma(1.0, 1e-5, 1.0)
    assert float(hockey_stick_delta(1.0, 1.0 / sig)) == pytest.approx(1e-5, rel=1e-8)


def test_sup_over_edges_pruning_does_not_change_result():
    rng = np.random.default_rng(3)
    n, k = 5, 3
    means = rng.standard_normal((n, k)) * 0.5
    covs = np.array([stats.wishart(df=k + 2, scale=np.eye(k) / (k + 2)).rvs(random_state=rng) for _ in range(n)])
    edges = np.array([(i, j) for i in range(n) for j in range(n) if i != j])
    eps = np.linspace(0.1, 2.0, 8)
    a = delta_sup_over_edges(means, covs, edges, eps, prune=True)
    b = delta_sup_over_edges(means, covs, edges, eps, prune=False)
    np.testing.assert_allclose(a.delta, b.delta, atol=0)
    direct = np.max([delta_exact(privacy_loss(means[i], covs[i], means[j], covs[j]), eps) for i, j in edges], axis=0)
    np.testing.assert_allclose(a.delta, direct, atol=0)
    assert b.n_exact == len(edges)


def test_identical_distributions_give_zero_delta():
    cov = np.array([[1.0, 0.2], [0.2, 0.5]])
    loss = privacy_loss(np.zeros(2), cov, np.zeros(2), cov)
    assert np.all(delta_exact(loss, [0.0, 0.5]) == 0.0)


def test_bad_covariance_is_rejected():
    with pytest.raises(ValueError, match="positive definite"):
        privacy_loss(np.zeros(2), np.diag([1.0, -1.0]), np.zeros(2), np.eye(2))


def test_surrogate_is_eq46_in_precisions_and_corollary3_uses_half_of_it():
    """nu^T Gamma nu - ln|Gamma| (eq. 41, from the whitened pair) equals eq. (46) computed directly from the
    precisions, v^T A_X' v - ln|A_X'| + ln|A_X| with v = mu_X' - mu_X; Delta_G (eq. 37) is half its max."""
    from dpgrid.privacy.gaussian_loss import corollary3_trend, gaussian_sensitivity, privacy_loss

    rng = np.random.default_rng(41)
    losses, direct = [], []
    for _ in range(5):
        k = 3
        m = rng.normal(size=(k, k))
        cov_x, cov_xp = m @ m.T + 0.5 * np.eye(k), np.diag(rng.uniform(0.5, 2.0, k))
        mu_x, mu_xp = rng.normal(size=k), rng.normal(size=k)
        a_x, a_xp = np.linalg.inv(cov_x), np.linalg.inv(cov_xp)
        v = mu_xp - mu_x
        g = v @ a_xp @ v - np.linalg.slogdet(a_xp)[1] + np.linalg.slogdet(a_x)[1]
        losses.append(privacy_loss(mu_x, cov_x, mu_xp, cov_xp))
        direct.append(g)
        assert losses[-1].surrogate == pytest.approx(g, rel=1e-10, abs=1e-12)
    dg = gaussian_sensitivity(losses)
    assert dg == pytest.approx(0.5 * max(direct), rel=1e-10)
    # eq. (38): exp((Delta_G - eps)/s) is 1 at eps = Delta_G and falls by e per s of eps
    t = corollary3_trend(dg, [dg, dg + 2.0], s=2.0)
    np.testing.assert_allclose(t, [1.0, math.exp(-1.0)], rtol=1e-12)

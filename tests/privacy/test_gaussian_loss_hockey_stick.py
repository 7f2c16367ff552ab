"""Hockey-stick delta of class-based Gaussian releases (dpgrid.privacy.gaussian_loss.hockey_stick_*): closed form
(Balle-Wang) for equal covariances, Monte Carlo audit for unequal ones, PDP >= DP, sup over edges."""

import numpy as np
import pytest
from scipy import stats

from dpgrid.mechanisms.gaussian_class import complete_edges_within_groups
from dpgrid.privacy.gaussian import hockey_stick_delta
from dpgrid.privacy.gaussian_loss import hockey_stick_pair, hockey_stick_sup_over_edges, log_likelihood_ratio

EPS = np.array([0.0, 0.1, 0.5, 1.0, 2.0])


def _spd(rng, k, shift=0.5):
    a = rng.normal(size=(k, k))
    return a @ a.T + shift * np.eye(k)


def test_equal_covariances_match_balle_wang():
    rng = np.random.default_rng(0)
    k = 5
    s = _spd(rng, k)
    mu = rng.normal(size=k)
    hs, pdp = hockey_stick_pair(np.zeros(k), s, mu, s, EPS)
    d = float(np.sqrt(mu @ np.linalg.solve(s, mu)))
    np.testing.assert_allclose(hs, hockey_stick_delta(EPS, d), atol=1e-7)
    assert np.all(hs <= pdp + 1e-9)


def test_unequal_covariances_monte_carlo_audit():
    """E_X[(1 - e^{eps - L})_+] sampled with scipy's densities; 99.9 % normal interval (values in [0, 1])."""
    rng = np.random.default_rng(1)
    k = 4
    s1, s2 = _spd(rng, k, 1.0), _spd(rng, k, 0.3)
    mu1, mu2 = np.zeros(k), 0.7 * rng.normal(size=k)
    hs, pdp = hockey_stick_pair(mu1, s1, mu2, s2, EPS)
    n = 200_000
    q = rng.multivariate_normal(mu1, s1, size=n)
    lr = log_likelihood_ratio(q, mu1, s1, mu2, s2)
    z = stats.norm.ppf(0.9995)
    for e, h, p in zip(EPS, hs, pdp):
        x = np.maximum(0.0, 1.0 - np.exp(e - lr))
        half = z * x.std(ddof=1) / np.sqrt(n)
        assert abs(x.mean() - h) <= half + 1e-6, (e, x.mean(), h, half)
        assert h <= p + 1e-9


def test_identical_distributions_have_zero_delta():
    rng = np.random.default_rng(2)
    s = _spd(rng, 3)
    hs, pdp = hockey_stick_pair(np.ones(3), s, np.ones(3), s, EPS)
    np.testing.assert_allclose(hs, 0.0, atol=1e-9)


def test_sup_over_edges_equals_pairwise_max():
    rng = np.random.default_rng(3)
    n, k = 5, 6
    means = 0.6 * rng.normal(size=(n, k))
    covs = np.array([_spd(rng, k, 0.5) for _ in range(n)])
    edges = complete_edges_within_groups([0, 0, 0, 1, 1])
    sup = hockey_stick_sup_over_edges(means, covs, edges, EPS)
    pairs = np.array([hockey_stick_pair(means[i], covs[i], means[j], covs[j], EPS) for i, j in edges])
    np.testing.assert_allclose(sup.delta_hs, pairs[:, 0].max(axis=0), atol=1e-12)
    np.testing.assert_allclose(sup.delta_pdp, pairs[:, 1].max(axis=0), atol=1e-12)
    assert np.all(sup.delta_hs <= sup.delta_pdp + 1e-9)
    with pytest.raises(ValueError, match="eps"):
        hockey_stick_pair(means[0], covs[0], means[1], covs[1], [-0.1])

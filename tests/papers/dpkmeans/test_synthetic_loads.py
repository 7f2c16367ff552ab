"""Wishart covariance mechanism, log-normal model and Algorithm 2 (dpkmeans paper, Sec. IV)."""

import numpy as np
import pytest
from scipy import stats

from dpgrid.mechanisms.wishart_covariance import (
    analyze_gauss_second_moment,
    nearest_psd,
    wishart_delta,
    wishart_privacy_loss,
    wishart_scale,
    wishart_second_moment,
)
from dpgrid.models.lognormal import bic_table, log_transform, sample_shifted_lognormal
from dpgrid.papers.dpkmeans.synthetic_loads import (
    dp_lognormal_models,
    group_means,
    log_mean_shifts,
    synthesize_profiles,
)
from dpgrid.privacy.gaussian import analytic_sigma, hockey_stick_delta


def test_wishart_privacy_audit_finds_the_support_leak():
    # Jiang et al. claim (eps, 0)-DP.  Audit on the replace-one pair x = 0, x' = e1: the privacy loss is
    # finite (<= eps/3) or infinite; Pr(infinite) must match wishart_delta = 1 - exp(-eps/3).
    rng = np.random.default_rng(0)
    d, n, eps, N = 3, 8, 1.0, 6000
    Y = rng.uniform(0, 0.3, (n, d))
    Y2 = Y.copy()
    Y[0], Y2[0] = 0.0, [1.0, 0.0, 0.0]
    A, A2 = Y.T @ Y / n, Y2.T @ Y2 / n
    c = wishart_scale(n, d, eps, 1.0)
    W = stats.wishart(df=d + 1, scale=c * np.eye(d)).rvs(size=N, random_state=rng)
    L = wishart_privacy_loss(A + W, A, A2, c)
    finite = np.isfinite(L)
    assert np.max(L[finite]) <= eps / 3 + 1e-9
    k = int((~finite).sum())
    lo, hi = stats.beta.ppf(5e-4, k, N - k + 1), stats.beta.ppf(1 - 5e-4, k + 1, N - k)
    assert lo <= wishart_delta(eps) <= hi
    assert wishart_delta(30.0) > 0.9999


def test_analytic_gaussian_calibration_matches_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution as pld

    for eps, delta in [(1.0, 1e-5), (5.0, 1e-3)]:
        s = analytic_sigma(eps, delta, 0.7)
        assert hockey_stick_delta(eps, 0.7 / s) <= delta
        got = pld.from_gaussian_mechanism(
            standard_deviation=s, sensitivity=0.7, value_discretization_interval=1e-4
        ).get_delta_for_epsilon(eps)
        assert got == pytest.approx(delta, rel=0.02)
    rng = np.random.default_rng(9)
    Y = rng.uniform(0, 0.2, (100, 3))
    M = analyze_gauss_second_moment(Y, 5.0, 1e-3, 1.0, rng)
    np.testing.assert_allclose(M, M.T)


def test_wishart_release_is_unbiased_up_to_known_offset():
    rng = np.random.default_rng(1)
    Y = rng.uniform(0, 0.2, (200, 3))
    c = wishart_scale(200, 3, 5.0, 1.0)
    M = np.mean([wishart_second_moment(Y, 5.0, 1.0, rng) for _ in range(400)], axis=0)
    np.testing.assert_allclose(M - Y.T @ Y / 200, 4 * c * np.eye(3), atol=6 * c)


def test_nearest_psd_floor():
    S = np.array([[1.0, 2.0], [2.0, 1.0]])
    w = np.linalg.eigvalsh(nearest_psd(S, 1e-3))
    assert w.min() == pytest.approx(1e-3)


def test_bic_prefers_the_generating_family():
    rng = np.random.default_rng(2)
    x = stats.lognorm(0.8, scale=1.5).rvs(3000, random_state=rng)
    t = bic_table(x)
    assert t.loc[t["bic"].idxmin(), "distribution"] == "lognorm"
    y = stats.weibull_min(3.0, scale=2.0).rvs(3000, random_state=rng)
    t = bic_table(y)
    assert t.loc[t["bic"].idxmin(), "distribution"] == "weibull_min"


def test_log_mean_shifts_closed_form():
    rng = np.random.default_rng(3)
    Y = rng.normal(size=(30, 2))
    g = np.repeat([0, 1, 2], 10)
    s = log_mean_shifts(Y, g, 3)
    mu = group_means(Y, g, 3)
    for p in (0, 15, 29):
        keep = np.arange(30) != p
        np.testing.assert_allclose(s[p], (mu - group_means(Y[keep], g[keep], 3)).ravel(), atol=1e-12)


def test_algorithm2_recovers_lognormal_parameters_with_large_budget():
    rng = np.random.default_rng(4)
    alpha, d = 15.0, 4
    mus = [np.log(alpha + np.array([0.5, 1.0, 2.0, 1.0])), np.log(alpha + np.array([3.0, 1.0, 0.5, 0.5]))]
    cov = 0.002 * (0.5 * np.eye(d) + 0.5)
    X = np.vstack([sample_shifted_lognormal(m, cov, alpha, 400, rng) for m in mus])
    g = np.repeat([0, 1], 400)
    models, info = dp_lognormal_models(
        X,
        g,
        2,
        alpha=alpha,
        eps_c=1e6,
        delta_c=0.01,
        eps_w=1e6,
        calibration="exact_pdp",
        row_bound=1.0,
        cov_floor=1e-8,
        rng=rng,
    )
    for m, mu in zip(models, mus):
        np.testing.assert_allclose(m.mu, mu, atol=0.01)
        np.testing.assert_allclose(m.cov, cov, atol=6e-4)
    S = synthesize_profiles(models, [500, 500], alpha, rng)
    assert S[0].shape == (500, d)
    np.testing.assert_allclose(S[0].mean(0), X[:400].mean(0), rtol=0.1)
    with pytest.raises(ValueError, match="alpha"):
        log_transform(np.array([[-20.0]]), alpha)

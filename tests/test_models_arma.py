"""ARMA forecast distribution (classdp eq. 57) against statsmodels' Kalman forecast, the
impulse-response formula and simulation; fitting and the failure rule."""

import numpy as np
import pytest

from dpgrid.models.arma import (ArmaFit, fit_arma, forecast_covariance_impulse, forecast_distribution,
                                seasonal_log_mean, simulate_arma)

AR = np.array([0.6, -0.2, 0.1])
MA = np.array([0.4, 0.15])


def _fit(ar=AR, ma=MA, s2=0.3):
    return ArmaFit(np.asarray(ar, float), np.asarray(ma, float), s2, (len(ar), len(ma)), True, True, True, "ok")


def test_forecast_matches_statsmodels_kalman_forecast():
    from statsmodels.tsa.arima.model import ARIMA

    fit = _fit()
    rng = np.random.default_rng(1)
    y = simulate_arma(fit, 400, rng)[0]
    mean, cov = forecast_distribution(fit, y, 12)
    res = ARIMA(y, order=(3, 0, 2), trend="n").filter(np.r_[AR, MA, fit.sigma2])
    fc = res.get_forecast(12)
    np.testing.assert_allclose(mean, fc.predicted_mean, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(np.diag(cov), fc.var_pred_mean, rtol=1e-7)


def test_forecast_covariance_matches_impulse_response_for_long_history():
    fit = _fit()
    y = simulate_arma(fit, 600, np.random.default_rng(2))[0]
    _, cov = forecast_distribution(fit, y, 12)
    np.testing.assert_allclose(cov, forecast_covariance_impulse(fit, 12), rtol=1e-8, atol=1e-10)


def test_forecast_distribution_matches_simulation():
    fit = _fit()
    rng = np.random.default_rng(3)
    K, T, N = 60, 6, 4000
    sims = simulate_arma(fit, K + T, rng, n_series=N)
    errs = np.empty((N, T))
    for i in range(N):
        m, cov = forecast_distribution(fit, sims[i, :K], T)
        errs[i] = sims[i, K:] - m
    emp = np.cov(errs.T)
    # the forecast is unbiased and its error covariance is Sigma_X (eq. 57)
    assert np.all(np.abs(errs.mean(0)) < 4 * np.sqrt(np.diag(cov) / N))
    assert np.linalg.norm(emp - cov) / np.linalg.norm(cov) < 0.08


def test_fit_arma_recovers_parameters():
    true = _fit(ar=[0.7], ma=[0.3], s2=0.5)
    y = simulate_arma(true, 3000, np.random.default_rng(4))[0]
    fit = fit_arma(y, (1, 1), maxiter=100)
    assert fit.status in ("ok", "retried") and fit.stationary and fit.invertible
    assert abs(fit.ar[0] - 0.7) < 0.06 and abs(fit.ma[0] - 0.3) < 0.08
    assert abs(fit.sigma2 - 0.5) < 0.05


@pytest.mark.parametrize("rule,status", [("exclude", "excluded"), ("fallback", "fallback_order"),
                                         ("keep", "nonconverged_kept")])
def test_nonconverged_rule_is_applied(rule, status):
    y = simulate_arma(_fit(), 400, np.random.default_rng(5))[0]
    fit = fit_arma(y, (3, 2), maxiter=1, retry_maxiter=1, nonconverged_rule=rule, fallback_order=(1, 0))
    assert fit.status == status
    if status == "fallback_order":
        assert fit.order == (1, 0)


def test_seasonal_log_mean():
    period = 4
    x = np.tile(np.array([1.0, 2.0, 3.0, 4.0]), 3)[:, None] + np.r_[np.zeros(4), np.ones(4), 2 * np.ones(4)][:, None]
    np.testing.assert_allclose(seasonal_log_mean(x, period)[:, 0], [2.0, 3.0, 4.0, 5.0])
    with pytest.raises(ValueError):
        seasonal_log_mean(x[:3], period)

"""ARMA forecast distribution (classdp eq. 57) against statsmodels' Kalman forecast, the
impulse-response formula and simulation; fitting and the failure rule."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.models.arma import (
    ArmaFit,
    forecast_covariance_impulse,
    forecast_distribution,
    seasonal_log_mean,
    simulate_arma,
)
from dpgrid.models.arma_fit import fit_arma
from tests.helpers.repo import FIXTURES, REPO

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


@pytest.mark.parametrize("method", ["exact_ls", "statespace"])
def test_fit_arma_recovers_parameters(method):
    true = _fit(ar=[0.7], ma=[0.3], s2=0.5)
    y = simulate_arma(true, 3000, np.random.default_rng(4))[0]
    fit = fit_arma(y, (1, 1), maxiter=100, method=method)
    assert fit.status in ("ok", "retried") and fit.stationary and fit.invertible and fit.method == method
    assert abs(fit.ar[0] - 0.7) < 0.06 and abs(fit.ma[0] - 0.3) < 0.08
    assert abs(fit.sigma2 - 0.5) < 0.05


@pytest.mark.parametrize("method", ["exact_ls", "statespace"])
@pytest.mark.parametrize(
    "rule,status", [("exclude", "excluded"), ("fallback", "fallback_order"), ("keep", "nonconverged_kept")]
)
def test_nonconverged_rule_is_applied(rule, status, method):
    y = simulate_arma(_fit(), 400, np.random.default_rng(5))[0]
    fit = fit_arma(y, (3, 2), maxiter=1, retry_maxiter=1, nonconverged_rule=rule, fallback_order=(1, 0), method=method)
    assert fit.status == status
    if status == "fallback_order":
        assert fit.order == (1, 0) and fit.reason.startswith("fallback ARMA(1,0) after ARMA(3,2) not converged")
    else:
        assert fit.order == (3, 2) and not fit.converged
        assert ("evaluation limit" if method == "exact_ls" else "iteration limit") in fit.reason


def test_seasonal_log_mean():
    period = 4
    x = np.tile(np.array([1.0, 2.0, 3.0, 4.0]), 3)[:, None] + np.r_[np.zeros(4), np.ones(4), 2 * np.ones(4)][:, None]
    np.testing.assert_allclose(seasonal_log_mean(x, period)[:, 0], [2.0, 3.0, 4.0, 5.0])
    with pytest.raises(ValueError):
        seasonal_log_mean(x[:3], period)


# --- a real household series on which the former fit stopped at the iteration limit ----------------------------------
# tests/fixtures/arma_household_R0001.npy: x = log p - weekly seasonal mean (eq. 61) of household R0001 of the default
# data (config/config.yaml: seed, data.experiments.classdp_forecast), the 1440 training samples before the forecast
# origin, exactly as forecast_arma_job passes them to fit_arma (regenerate: README of tests/fixtures).

HOUSEHOLD = FIXTURES / "arma_household_R0001.npy"


@pytest.fixture(scope="module")
def household():
    y = np.load(HOUSEHOLD)
    assert y.shape == (1440,) and np.all(np.isfinite(y))
    return y


@pytest.fixture(scope="module")
def household_fit(household):
    return fit_arma(household, (6, 5))


@pytest.fixture(scope="module")
def household_fit_css(household):
    """The fit from the css start alone: a local maximum with every root at |z| >= 1.08 (the default fit's has an
    MA root near the margin, where recovering the shocks by inverting the MA filter takes ~1e4 samples)."""
    return fit_arma(household, (6, 5), start="css")


@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.ConvergenceWarning")
def test_household_fit_converges_where_the_statespace_fit_hit_the_limit(household, household_fit):
    from statsmodels.tsa.arima.model import ARIMA

    old = fit_arma(household, (6, 5), method="statespace", maxiter=50, retry_maxiter=0)
    assert old.status == "nonconverged_kept" and not old.converged and "iteration limit" in old.reason
    fit = household_fit
    assert fit.status in ("ok", "retried") and fit.converged and fit.method == "exact_ls" and fit.order == (6, 5)
    assert fit.reason.startswith("converged") and fit.iterations < 1000
    assert fit.grad_max < 1e-2  # per observation, PACF coordinates (a ridge: 1.4e-3; the css maximum: 1e-7)
    assert fit.llf >= old.llf
    # the css start alone stops at a lower local maximum; the Hannan-Rissanen start's attempt passes it
    css = fit_arma(household, (6, 5), start="css")
    assert css.converged and css.llf < fit.llf - 0.5
    assert set(fit.start_llfs) == {"css", "hannan_rissanen"} and max(fit.start_llfs.values()) <= fit.llf
    # fit.llf is the exact Gaussian likelihood (dense Toeplitz Cholesky) at the fitted parameters
    params = np.r_[fit.ar, fit.ma, fit.sigma2]
    assert fit.llf == pytest.approx(_dense_llf(household, *np.split(params, [6, 11])), abs=1e-8)
    # an independent optimiser (statsmodels' L-BFGS on its Kalman-filter likelihood) finds no higher exact
    # likelihood: started at our solution it makes no progress, and given 1000 iterations from its own start it
    # converges to the css start's lower maximum
    model = ARIMA(household, order=(6, 0, 5), trend="n")
    res = model.fit(start_params=params, method_kwargs={"maxiter": 200}, cov_type="none")
    assert _exact_llf(household, res.params) <= fit.llf + 1e-6
    res = model.fit(method_kwargs={"maxiter": 1000}, cov_type="none")
    assert res.mle_retvals["converged"] and res.mle_retvals["iterations"] > 50
    assert _exact_llf(household, res.params) == pytest.approx(css.llf, abs=1e-2)
    # and no small perturbation of (ar, ma, sigma2) raises the likelihood: a local maximum
    rng = np.random.default_rng(11)
    for _ in range(20):
        d = rng.standard_normal(params.size)
        d *= 1e-3 / np.linalg.norm(d)
        assert _exact_llf(household, params + d) <= fit.llf + 1e-6
        assert _exact_llf(household, params - d) <= fit.llf + 1e-6


def _quick_household(meter_id):
    """The training series x (eq. 61) of one household of the quick configuration (config/config.yaml with
    config/quick.yaml over it), as forecast_arma_job builds it: regenerated from the configured seed."""

    from dpgrid.core.config import load_config
    from dpgrid.core.seeds import job_rng
    from dpgrid.data.sources import load_experiment_data
    from dpgrid.papers.classdp.household_forecast import ForecastSettings, forecast_origin, log_load, seasonal_residual

    root = REPO
    cfg = load_config([root / "config" / f for f in ("config.yaml", "quick.yaml")])
    fc = cfg["classdp"]["forecast"]
    name = fc["data_source"]
    md = load_experiment_data(cfg["data"]["experiments"][name], job_rng(cfg["seed"], "data", name), name=name)
    wide = md.wide()
    s = ForecastSettings.from_config(fc)
    spd = 96
    log_p, _ = log_load(wide.to_numpy(dtype=float), s.log_floor_kw)
    o = forecast_origin(log_p.shape[0], spd, s)
    x, _ = seasonal_residual(log_p, o, s.seasonal_period_days * spd)
    return x[o - s.train_samples : o, list(wide.columns).index(meter_id)], s


def test_second_start_escapes_the_local_maximum_of_quick_household_R0004():
    """Issue 30.4: from the css start alone, exact_ls stops at a local maximum of R0004's likelihood (quick
    configuration), below the point statsmodels' ARIMA MLE reaches (+0.2345, inside the PACF box and the root
    margin); with the Hannan-Rissanen start as well, the fit reaches a higher maximum than both."""
    from statsmodels.tsa.arima_process import ArmaProcess

    y, s = _quick_household("R0004")
    kw = s.arma_kwargs
    order = kw.pop("order")
    css = fit_arma(y, order, **dict(kw, start="css"))
    fit = fit_arma(y, order, **kw)
    assert tuple(kw["start"]) == ("css", "hannan_rissanen")
    assert css.converged and fit.converged
    assert fit.llf > css.llf + 0.2345  # at least statsmodels' better point
    assert fit.llf == pytest.approx(_dense_llf(y, fit.ar, fit.ma, fit.sigma2), abs=1e-8)
    proc = ArmaProcess(fit.ar_poly, fit.ma_poly)
    assert np.min(np.abs(np.r_[proc.arroots, proc.maroots])) >= 1.0 + kw["root_margin"] - 1e-9
    assert "start hannan_rissanen kept" in fit.reason


def _exact_llf(y, params, p=6):
    """statsmodels' innovations-algorithm likelihood at (ar, ma, sigma2) = params."""
    from statsmodels.tsa.innovations.arma_innovations import arma_loglike

    return arma_loglike(y, ar_params=params[:p], ma_params=params[p:-1], sigma2=params[-1])


def _dense_llf(y, ar, ma, sigma2):
    """Exact Gaussian log-likelihood of a zero-mean ARMA by a dense Cholesky factor of the Toeplitz covariance
    (scipy.linalg; O(n^3), independent of the innovations algorithm and of the Kalman filter)."""
    from scipy import linalg
    from statsmodels.tsa.arima_process import arma_acovf

    n = y.size
    gamma = arma_acovf(np.r_[1.0, -np.asarray(ar)], np.r_[1.0, np.asarray(ma)], nobs=n, sigma2=sigma2)
    chol = linalg.cholesky(linalg.toeplitz(gamma), lower=True)
    z = linalg.solve_triangular(chol, y, lower=True)
    return -0.5 * (n * np.log(2 * np.pi) + 2.0 * np.sum(np.log(np.diag(chol))) + z @ z)


@pytest.mark.parametrize("method", ["exact_ls", "statespace"])
@pytest.mark.parametrize("order", [(6, 5), (2, 1), (0, 0)])
def test_reported_llf_is_the_exact_likelihood(household, method, order):
    """ArmaFit.llf equals the dense-Cholesky likelihood to 1e-8, and at an exact_ls fit it is the maximised
    concentrated likelihood -n/2 (log(2 pi s2) + 1) - 1/2 sum log v_t (s2 = the fit's sigma2)."""
    from statsmodels.tsa.innovations.arma_innovations import arma_innovations

    y = household[:600]
    fit = fit_arma(y, order, method=method, maxiter=None if method == "exact_ls" else 60, retry_maxiter=0)
    assert fit.llf == pytest.approx(_dense_llf(y, fit.ar, fit.ma, fit.sigma2), abs=1e-8, rel=0)
    if method == "exact_ls":
        _, v = arma_innovations(y, ar_params=fit.ar, ma_params=fit.ma, sigma2=1.0)
        conc = -0.5 * y.size * (np.log(2 * np.pi * fit.sigma2) + 1.0) - 0.5 * np.sum(np.log(v))
        assert fit.llf == pytest.approx(conc, abs=1e-8, rel=0)


def test_household_fit_is_stationary_and_invertible_as_reported(household_fit):
    from statsmodels.tsa.arima_process import ArmaProcess

    fit = household_fit
    proc = ArmaProcess(fit.ar_poly, fit.ma_poly)
    assert fit.stationary == bool(proc.isstationary) is True
    assert fit.invertible == bool(proc.isinvertible) is True
    assert np.min(np.abs(proc.arroots)) > 1.0 and np.min(np.abs(proc.maroots)) > 1.0
    # the reason reports the smallest root moduli
    assert f"min |AR root| {np.min(np.abs(proc.arroots)):.5f}" in fit.reason
    assert f"min |MA root| {np.min(np.abs(proc.maroots)):.5f}" in fit.reason


def test_pacf_bound_is_respected_and_reported(household):
    from statsmodels.tsa.arima.model import ARIMA

    fit = fit_arma(household, (6, 5), pacf_bound=0.5, root_margin=0.0)
    model = ARIMA(household, order=(6, 0, 5), trend="n", concentrate_scale=True)
    u = model.untransform_params(np.r_[fit.ar, fit.ma])
    r = u / np.sqrt(1.0 + u * u)  # statsmodels' partial autocorrelations of the fit
    assert np.all(np.abs(r) <= 0.5 + 1e-9)
    assert np.any(np.abs(r) >= 0.5 - 1e-6)  # the unconstrained optimum lies outside: the bound is active
    assert "PACF coordinate(s) at the bound +-0.5" in fit.reason
    assert fit.converged and fit.llf < fit_arma(household, (6, 5)).llf


def test_root_margin_keeps_every_root_outside_the_enlarged_circle(household, household_fit_css):
    from statsmodels.tsa.arima_process import ArmaProcess

    household_fit = household_fit_css
    assert np.min(np.abs(ArmaProcess(household_fit.ar_poly, household_fit.ma_poly).arroots)) < 1.1
    fit = fit_arma(household, (6, 5), root_margin=0.1, start="css")
    proc = ArmaProcess(fit.ar_poly, fit.ma_poly)
    roots = np.abs(np.r_[proc.arroots, proc.maroots])
    assert np.all(roots >= 1.1 - 1e-9)
    assert np.min(roots) < 1.1 + 1e-3  # the unconstrained optimum has an AR root at 1.083: active
    assert fit.converged and fit.llf < household_fit.llf


def test_household_forecast_matches_simulation_of_the_fitted_model(household, household_fit_css):
    """Simulate the fitted ARMA forward from the observed past (shocks recovered by inverting the MA filter)
    and compare the 12-step mean and covariance with eq. (57) within Monte Carlo error."""
    from scipy.signal import lfilter, lfiltic

    fit, y, H, N = household_fit_css, household, 12, 40000
    mean, cov = forecast_distribution(fit, y, H)
    a, b = fit.ar_poly, fit.ma_poly
    e_past = lfilter(a, b, y)  # e = phi(B)/theta(B) x (invertible: start-up error ~ 1.09^-t)
    zi = lfiltic(b, a, y[::-1], e_past[::-1])
    rng = np.random.default_rng(12)
    e = rng.standard_normal((N, H)) * np.sqrt(fit.sigma2)
    sims, _ = lfilter(b, a, e, axis=1, zi=np.repeat(zi[None, :], N, axis=0))
    se_mean = np.sqrt(np.diag(cov) / N)
    assert np.all(np.abs(sims.mean(0) - mean) < 4.5 * se_mean)
    emp = np.cov(sims.T)
    d = np.sqrt(np.diag(cov))
    se_cov = np.sqrt((np.outer(d, d) ** 2 + cov**2) / N)  # s.e. of a Gaussian sample covariance entry
    assert np.all(np.abs(emp - cov) < 5 * se_cov)
    # the check has power: the forecast ignoring the observed past (mean 0) is far outside the error bars
    assert np.max(np.abs(mean) / se_mean) > 20


@pytest.mark.parametrize("retry_optimizer", ["dogbox", "trf"])  # other method from the start / continue
def test_exact_ls_retry_reaches_the_same_optimum(retry_optimizer):
    y = simulate_arma(_fit(), 600, np.random.default_rng(6))[0]
    direct = fit_arma(y, (3, 2), start="css")
    retried = fit_arma(y, (3, 2), maxiter=3, retry_maxiter=2000, retry_optimizer=retry_optimizer, start="css")
    assert direct.status == "ok" and retried.status == "retried" and retried.converged
    assert retried.iterations > 3 and retried.reason.startswith("converged (")  # the highest converged attempt
    assert retried.llf == pytest.approx(direct.llf, abs=1e-4)


@pytest.mark.parametrize("seed", range(3))
def test_projected_lm_reaches_the_optimum_of_trf(seed):
    """The two bounded least-squares methods solve one problem: on a well-identified ARMA(2,1) their optima agree."""
    y = simulate_arma(_fit(ar=[0.5, -0.3], ma=[0.4], s2=1.0), 800, np.random.default_rng(40 + seed))[0]
    trf = fit_arma(y, (2, 1), start="css")
    lm = fit_arma(y, (2, 1), start="css", optimizer="projected_lm")
    assert trf.converged and lm.converged and lm.reason.startswith("converged (projected_lm)")
    assert lm.llf == pytest.approx(trf.llf, abs=1e-6)
    np.testing.assert_allclose(np.r_[lm.ar, lm.ma], np.r_[trf.ar, trf.ma], atol=1e-3)


def test_more_starts_never_lower_the_best_first_attempt(household):
    """Every start of a subset is also tried with the superset, so the best first attempt can only rise; the
    derived starts (best so far scaled towards zero) come after the others and every start's likelihood is reported."""
    starts = ("css", "hannan_rissanen", "innovations_mle", "zeros", "best_x0.8", "best_x0.5")
    sub = fit_arma(household, (6, 5), start=starts[:2], optimizer="projected_lm")
    full = fit_arma(household, (6, 5), start=starts, optimizer="projected_lm")
    assert set(full.start_llfs) == set(starts)
    assert max(full.start_llfs.values()) >= max(sub.start_llfs.values()) - 1e-9
    for s in starts[:2]:
        assert full.start_llfs[s] == pytest.approx(sub.start_llfs[s], abs=1e-9)
    assert full.llf == pytest.approx(_dense_llf(household, full.ar, full.ma, full.sigma2), abs=1e-8)


@pytest.mark.parametrize(
    "kw",
    [
        {"method": "mle"},
        {"optimizer": "lm"},
        {"retry_optimizer": "lm"},
        {"start": "ones"},
        {"start": ("css", "css")},
        {"start": ()},
        {"start": ("css", "ones")},
        {"start": ("best_x0.5", "css")},
        {"pacf_bound": 1.0},
        {"root_margin": -0.1},
        {"tol": 0.0},
    ],
)
def test_fit_arma_rejects_bad_options(kw):
    y = simulate_arma(_fit(), 200, np.random.default_rng(7))[0]
    with pytest.raises(ValueError, match=next(iter(kw))):
        fit_arma(y, (1, 1), **kw)


# --- the compiled exact-likelihood residuals of exact_ls ----------------------------------------------------------


def _reference_residuals(y, p, q, r, shrink):
    """The residuals from statsmodels' public calls: transform_params (PACF -> coefficients) and arma_innovations."""
    from statsmodels.tsa.arima.model import ARIMA
    from statsmodels.tsa.innovations.arma_innovations import arma_innovations

    model = ARIMA(y, order=(p, 0, q), trend="n", concentrate_scale=True)
    c = np.asarray(model.transform_params(r / np.sqrt(1.0 - r * r)), dtype=float) * shrink
    e, v = arma_innovations(y, ar_params=c[:p], ma_params=c[p:], sigma2=1.0)
    e, v = np.asarray(e, dtype=float).ravel(), np.asarray(v, dtype=float).ravel()
    return c, e / np.sqrt(v) * np.exp(0.5 * np.mean(np.log(v)))


@pytest.mark.parametrize("order", [(6, 5), (2, 1), (1, 0), (3, 6), (0, 2)])
def test_compiled_residuals_equal_statsmodels_innovations(household, order):
    """The kernel's coefficients and residuals equal statsmodels' (innovations algorithm) to rounding, one point at
    a time and in one batch (the rows are independent: the batch gives every row bit for bit as alone)."""
    from dpgrid.models.arma import _exact_residuals, _pacf_coefficients

    p, q = order
    y = household
    rng = np.random.default_rng(21)
    shrink = np.r_[1.0001 ** -np.arange(1.0, p + 1), 1.0001 ** -np.arange(1.0, q + 1)]
    pts = rng.uniform(-0.95, 0.95, (24, p + q))
    pts[::4, 0] = 0.999  # a coordinate at the box bound, and exact zeros (statsmodels' zero start values)
    pts[1::4, -1] = 0.0
    batch = np.empty((pts.shape[0], y.size))
    _exact_residuals(y, pts, p, shrink, batch)
    for b, r in enumerate(pts):
        c0, ref = _reference_residuals(y, p, q, r, shrink)
        np.testing.assert_allclose(_pacf_coefficients(r, p, shrink), c0, rtol=1e-13, atol=1e-15)
        one = np.empty((1, y.size))
        _exact_residuals(y, r[None, :], p, shrink, one)
        assert one.tobytes() == batch[b : b + 1].tobytes()
        assert np.max(np.abs(one[0] - ref)) <= 1e-9 * np.max(np.abs(ref))
    # a point that is not stationary after the scaling (shrink > 1 pushes a root inside) gives the failure value
    bad = np.empty((1, y.size))
    _exact_residuals(y, np.full((1, p + q), 0.999), p, np.full(p + q, 1.5), bad)
    assert p == 0 or np.all(bad == 1e8)


def test_batched_jacobian_equals_scipy_forward_differences(household):
    """The Jacobian exact_ls passes to least_squares (all 1 + p + q points in one batch) is scipy's own 2-point
    approximation (``approx_derivative`` of the residuals, same steps, also at the box bound) to rounding."""
    from scipy.optimize._numdiff import approx_derivative

    from dpgrid.models.arma import _exact_residuals
    from dpgrid.models.arma_attempts import _forward_difference_points

    p, q, y = 6, 5, household[:500]
    shrink = np.r_[1.0001 ** -np.arange(1.0, p + 1), 1.0001 ** -np.arange(1.0, q + 1)]

    def residuals(r):
        out = np.empty((1, y.size))
        _exact_residuals(y, r[None, :], p, shrink, out)
        return out[0]

    rng = np.random.default_rng(23)
    for x in (rng.uniform(-0.9, 0.9, p + q), np.r_[0.999, -0.999, rng.uniform(-0.5, 0.5, p + q - 2)]):
        pts, h = _forward_difference_points(x, -0.999, 0.999)
        out = np.empty((pts.shape[0] + 1, y.size))
        _exact_residuals(y, np.vstack([x, pts]), p, shrink, out)
        jac = ((out[1:] - out[0]) / h[:, None]).T
        ref = approx_derivative(residuals, x, method="2-point", bounds=(-0.999, 0.999))
        np.testing.assert_allclose(jac, ref, rtol=1e-12, atol=1e-12 * np.max(np.abs(ref)))


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    starts=st.lists(
        st.sampled_from(("css", "hannan_rissanen", "zeros", "best_x0.8")), min_size=1, max_size=4, unique=True
    ).filter(lambda s: s[0] != "best_x0.8"),
)
def test_the_fit_records_the_start_it_continued_and_the_spread_of_the_starts(seed, starts):
    """``start`` is the start whose first attempt has the highest likelihood (the one the fit continued), and
    ``start_spread`` the range of the first attempts' likelihoods; one start: that start and no spread."""
    rng = np.random.default_rng(seed)
    y = simulate_arma(_fit(ar=[0.6, -0.2], ma=[0.3], s2=1.0), 300, rng)[0]
    fit = fit_arma(y, (2, 1), start=tuple(starts))
    if len(starts) == 1:
        assert fit.start == starts[0] and fit.start_spread == 0.0
    else:
        llfs = fit.start_llfs
        assert set(llfs) == set(starts) and fit.start in starts
        assert llfs[fit.start] == max(llfs.values()) and fit.llf >= llfs[fit.start]
        assert (
            fit.start_spread == pytest.approx(max(llfs.values()) - min(llfs.values()), abs=0) and fit.start_spread >= 0
        )


def test_a_fallback_fit_records_its_start_and_a_statespace_fit_none(household):
    """A model replaced by the fallback order records the start method of the fallback's attempt; statsmodels'
    state-space fit chooses its own start, so it records none."""
    fb = fit_arma(household, (6, 5), start=("zeros", "css"), nonconverged_rule="fallback", maxiter=2, retry_maxiter=0)
    assert fb.status == "fallback_order" and fb.order == (2, 1) and fb.start == "zeros" and fb.start_spread == 0.0
    ss = fit_arma(household[:400], (1, 1), method="statespace")
    assert ss.start == "" and ss.start_spread == 0.0


def test_an_innovations_mle_start_that_fails_falls_back_to_start_params(household, monkeypatch):
    """statsmodels' innovations_mle can raise (its BFGS steps outside the stationary region on some households): the
    start then is statsmodels' start_params, with a note, as for an estimate that is not stationary."""
    from statsmodels.tsa.arima.model import ARIMA

    fit = ARIMA.fit

    def failing(self, *args, method=None, **kw):
        if method == "innovations_mle":
            raise ValueError(
                "The model's autoregressive parameters (ar) indicate that the process\n is non-stationary."
            )
        return fit(self, *args, method=method, **kw)

    monkeypatch.setattr(ARIMA, "fit", failing)
    y = household[:600]
    got = fit_arma(y, (2, 1), start="innovations_mle")
    css = fit_arma(y, (2, 1), start="css")
    assert any(m.startswith("start: innovations_mle failed (The model's autoregressive") for m in got.messages)
    assert got.llf == css.llf and np.array_equal(np.r_[got.ar, got.ma], np.r_[css.ar, css.ma])

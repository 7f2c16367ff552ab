"""ARMA models for load forecasting: log-domain seasonal decomposition, fitting, and the Gaussian
forecast distribution of eq. (57).

classdp paper (Ramakrishna et al.), Sec. V: ``x[k] = log p[k] - mu[k]`` (eq. 61) with mu the
seasonal mean of the log load; x is modelled as a zero-mean stationary ARMA process (eq. 59)

    x[k] = sum_i phi_i x[k-i] + e[k] + sum_j theta_j e[k-j],   e ~ N(0, sigma^2)

(statsmodels' sign convention; the paper's a_i are -phi_i). The query is the T-step forecast
``E[x^f | x^o]`` and its class-conditional distribution is ``N(mu_X, Sigma_X)`` with (eq. 57)

    mu_X    = Sigma^fo (Sigma^o)^{-1} x^o,
    Sigma_X = Sigma^f - Sigma^fo (Sigma^o)^{-1} Sigma^of,

where the blocks are Toeplitz in the model's autocovariance (eq. 60: the autocorrelation of the
impulse response). Fitting uses statsmodels (state-space MLE); the autocovariance and impulse
response come from ``statsmodels.tsa.arima_process``; the Toeplitz systems are solved by
Levinson recursion (``scipy.linalg.solve_toeplitz``).
"""

from __future__ import annotations

import logging
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg

LOG = logging.getLogger(__name__)

__all__ = [
    "NONCONVERGED_RULES",
    "ArmaFit",
    "fit_arma",
    "arma_autocovariance",
    "arma_impulse_response",
    "forecast_distribution",
    "forecast_covariance_impulse",
    "seasonal_log_mean",
    "simulate_arma",
]

#: What to do with a fit whose optimiser did not converge (after one retry with more iterations):
#: ``keep``: use the last iterate (stationarity and invertibility are enforced by the
#: parameterisation, so it is a valid model) and flag it; ``fallback``: refit with the fallback
#: order; ``exclude``: leave the household out of the experiment (listed in the results).
NONCONVERGED_RULES = ("keep", "fallback", "exclude")


@dataclass
class ArmaFit:
    """A fitted zero-mean ARMA(p, q) model and how the fit went."""

    ar: np.ndarray                 # phi_1..phi_p  (x[k] = sum phi_i x[k-i] + ...)
    ma: np.ndarray                 # theta_1..theta_q
    sigma2: float
    order: tuple
    converged: bool
    stationary: bool
    invertible: bool
    status: str                    # ok | retried | nonconverged_kept | fallback_order | excluded
    llf: float = float("nan")
    messages: list = field(default_factory=list)

    @property
    def ar_poly(self) -> np.ndarray:
        """[1, -phi_1, ..., -phi_p] (statsmodels' lag-polynomial convention)."""
        return np.r_[1.0, -self.ar]

    @property
    def ma_poly(self) -> np.ndarray:
        return np.r_[1.0, self.ma]

    @property
    def usable(self) -> bool:
        return self.status != "excluded"


def _roots_ok(poly: np.ndarray, margin: float = 1e-6) -> bool:
    """All roots of the lag polynomial outside the unit circle (stationary / invertible)."""
    if poly.size <= 1 or np.allclose(poly[1:], 0.0):
        return True
    roots = np.roots(poly[::-1])
    return bool(np.all(np.abs(roots) > 1.0 + margin))


def _fit_once(y: np.ndarray, p: int, q: int, maxiter: int):
    from statsmodels.tools.sm_exceptions import ConvergenceWarning
    from statsmodels.tsa.arima.model import ARIMA

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ARIMA(y, order=(p, 0, q), trend="n")
        res = model.fit(method_kwargs={"maxiter": int(maxiter)}, cov_type="none")
    msgs = sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught})
    converged = bool(res.mle_retvals.get("converged", False)) and not any(
        issubclass(w.category, ConvergenceWarning) for w in caught)
    params = dict(zip(res.param_names, np.asarray(res.params)))
    ar = np.array([params[f"ar.L{i}"] for i in range(1, p + 1)])
    ma = np.array([params[f"ma.L{j}"] for j in range(1, q + 1)])
    return ar, ma, float(params["sigma2"]), converged, float(res.llf), msgs


def fit_arma(y: np.ndarray, order: tuple = (6, 5), *, maxiter: int = 50, retry_maxiter: int = 200,
             nonconverged_rule: str = "keep", fallback_order: tuple = (2, 1), name: str = "series") -> ArmaFit:
    """Fit a zero-mean ARMA(p, q) by exact Gaussian MLE (statsmodels ARIMA, state space).

    Rule for failures (documented in docs/classdp.md): stationarity and invertibility are enforced
    by statsmodels' parameter transformation and re-checked on the roots. If the optimiser does not
    converge in ``maxiter`` iterations it is restarted with ``retry_maxiter``; if it still does not
    converge, ``nonconverged_rule`` decides (:data:`NONCONVERGED_RULES`). A model whose roots fail
    the check is never used: it is refitted with ``fallback_order`` or excluded.
    """
    if nonconverged_rule not in NONCONVERGED_RULES:
        raise ValueError(f"nonconverged_rule must be one of {NONCONVERGED_RULES}, got {nonconverged_rule!r}")
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or not np.all(np.isfinite(y)):
        raise ValueError(f"{name}: ARMA training series must be a finite 1-D array")
    p, q = int(order[0]), int(order[1])
    if y.size < 10 * (p + q + 1):
        raise ValueError(f"{name}: {y.size} samples are too few for ARMA({p},{q})")
    ar, ma, s2, conv, llf, msgs = _fit_once(y, p, q, maxiter)
    status = "ok"
    if not conv and retry_maxiter > maxiter:
        ar, ma, s2, conv, llf, msgs2 = _fit_once(y, p, q, retry_maxiter)
        msgs = msgs + msgs2
        status = "retried" if conv else "nonconverged"
    stat, inv = _roots_ok(np.r_[1.0, -ar]), _roots_ok(np.r_[1.0, ma])
    fit = ArmaFit(ar, ma, s2, (p, q), conv, stat, inv, status, llf, msgs)
    bad_roots = not (stat and inv) or not (s2 > 0 and math.isfinite(s2))
    if (not conv and nonconverged_rule == "keep") and not bad_roots:
        fit.status = "nonconverged_kept"
        return fit
    if conv and not bad_roots:
        return fit
    if nonconverged_rule == "exclude" and not bad_roots:
        fit.status = "excluded"
        return fit
    # fallback order (bad roots, or rule == fallback)
    fp, fq = int(fallback_order[0]), int(fallback_order[1])
    ar2, ma2, s22, conv2, llf2, msgs3 = _fit_once(y, fp, fq, retry_maxiter)
    st2, in2 = _roots_ok(np.r_[1.0, -ar2]), _roots_ok(np.r_[1.0, ma2])
    fb = ArmaFit(ar2, ma2, s22, (fp, fq), conv2, st2, in2, "fallback_order", llf2, msgs + msgs3)
    if not (st2 and in2 and s22 > 0):
        fb.status = "excluded"
    LOG.info("%s: ARMA(%d,%d) %s -> fallback ARMA(%d,%d) status %s", name, p, q,
             "bad roots" if bad_roots else "not converged", fp, fq, fb.status)
    return fb


def arma_autocovariance(fit: ArmaFit, nlags: int) -> np.ndarray:
    """Autocovariance gamma(0..nlags-1) of the fitted process (eq. 60), statsmodels ``arma_acovf``."""
    from statsmodels.tsa.arima_process import arma_acovf

    return np.asarray(arma_acovf(fit.ar_poly, fit.ma_poly, nobs=int(nlags), sigma2=fit.sigma2), dtype=float)


def arma_impulse_response(fit: ArmaFit, n: int) -> np.ndarray:
    """Impulse response psi_0..psi_{n-1} of the ARMA filter (MA(inf) weights, statsmodels ``arma2ma``)."""
    from statsmodels.tsa.arima_process import arma2ma

    return np.asarray(arma2ma(fit.ar_poly, fit.ma_poly, lags=int(n)), dtype=float)


def forecast_distribution(fit: ArmaFit, x_obs: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of x^f given x^o (eq. 57) for the fitted ARMA, from its autocovariance.

    ``x_obs`` are the K conditioning samples (oldest first); the Toeplitz system Sigma^o is solved
    by Levinson recursion for the K x (1 + steps) right-hand sides at once.
    """
    x_obs = np.asarray(x_obs, dtype=float)
    K = x_obs.size
    if K < 1 or steps < 1:
        raise ValueError(f"need K >= 1 observed samples and steps >= 1, got K={K}, steps={steps}")
    acov = arma_autocovariance(fit, K + steps)
    # Sigma^{of}[i, j] = gamma(K + j - i): covariance of observed sample i with future sample j
    i = np.arange(K)[:, None]
    j = np.arange(steps)[None, :]
    cross = acov[K + j - i]
    rhs = np.column_stack([x_obs, cross])
    sol = linalg.solve_toeplitz(acov[:K], rhs, check_finite=False)
    mean = cross.T @ sol[:, 0]
    fut = linalg.toeplitz(acov[:steps])
    cov = fut - cross.T @ sol[:, 1:]
    cov = 0.5 * (cov + cov.T)
    return mean, cov


def forecast_covariance_impulse(fit: ArmaFit, steps: int) -> np.ndarray:
    """Forecast-error covariance given the infinite past: sigma^2 sum_l psi_l psi_{l+|i-j|} (l <= min(i,j))."""
    psi = arma_impulse_response(fit, steps)
    lower = linalg.toeplitz(psi, np.zeros(steps))   # lower[i, l] = psi_{i-l}
    return fit.sigma2 * lower @ lower.T


def seasonal_log_mean(log_p: np.ndarray, period: int) -> np.ndarray:
    """Seasonal mean mu[s] of eq. (61): the average of log p over all samples at season position s.

    ``log_p`` is (samples, series) starting at season position 0; returns (period, series).
    Positions never observed raise an error.
    """
    log_p = np.asarray(log_p, dtype=float)
    if log_p.ndim == 1:
        log_p = log_p[:, None]
    n = log_p.shape[0]
    if n < period:
        raise ValueError(f"seasonal mean needs at least one full period ({period} samples), got {n}")
    pos = np.arange(n) % period
    sums = np.zeros((period, log_p.shape[1]))
    np.add.at(sums, pos, log_p)
    counts = np.bincount(pos, minlength=period)[:, None]
    return sums / counts


def simulate_arma(fit: ArmaFit, n: int, rng: np.random.Generator, *, n_series: int = 1, burn: int = 500) -> np.ndarray:
    """Simulate (n_series, n) samples of the fitted process (scipy ``lfilter`` on white noise)."""
    from scipy.signal import lfilter

    e = rng.standard_normal((n_series, n + burn)) * math.sqrt(fit.sigma2)
    return lfilter(fit.ma_poly, fit.ar_poly, e, axis=1)[:, burn:]

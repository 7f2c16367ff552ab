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
impulse response). The autocovariance and impulse response come from
``statsmodels.tsa.arima_process``; the Toeplitz systems are solved by Levinson recursion
(``scipy.linalg.solve_toeplitz``).

The exact Gaussian likelihood of eq. (59) is here too, as the innovations algorithm (Brockwell & Davis
Sec. 5.2-5.3): :func:`_exact_llf` (statsmodels) and the compiled residuals of the concentrated likelihood in
partial-autocorrelation coordinates (:func:`_pacf_coefficients`, :func:`_exact_residuals`). The estimator that
maximises it (``exact_ls``: two start values, retries) is :mod:`dpgrid.models.arma_fit`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba
import numpy as np
from scipy import linalg

__all__ = [
    "ArmaFit",
    "arma_autocovariance",
    "arma_impulse_response",
    "forecast_covariance_impulse",
    "forecast_distribution",
    "seasonal_log_mean",
    "simulate_arma",
]


@dataclass
class ArmaFit:
    """A fitted zero-mean ARMA(p, q) model and how the fit went."""

    ar: np.ndarray  # phi_1..phi_p  (x[k] = sum phi_i x[k-i] + ...)
    ma: np.ndarray  # theta_1..theta_q
    sigma2: float
    order: tuple
    converged: bool
    stationary: bool
    invertible: bool
    status: str  # ok | retried | nonconverged_kept | fallback_order | excluded
    llf: float = float("nan")
    messages: list = field(default_factory=list)
    method: str = ""
    iterations: int = 0  # optimiser iterations (statespace) / function evaluations (exact_ls)
    grad_max: float = float("nan")  # max |projected gradient| of the mean log-likelihood (exact_ls: PACF coords)
    reason: str = ""  # why the fit stopped, in words (fits table)
    start_llfs: dict = field(default_factory=dict)  # exact_ls: log-likelihood after the first attempt, per start
    start: str = ""  # exact_ls: the start method whose first attempt the fit continued (fallback order: its start)

    @property
    def ar_poly(self) -> np.ndarray:
        """[1, -phi_1, ..., -phi_p] (statsmodels' lag-polynomial convention)."""
        return np.r_[1.0, -self.ar]

    @property
    def ma_poly(self) -> np.ndarray:
        return np.r_[1.0, self.ma]

    @property
    def start_spread(self) -> float:
        """Highest minus lowest first-attempt log-likelihood over the starts (0 with one start): how far apart the
        local maxima that the starts reach lie (a spread above 0 is a likelihood with several maxima)."""
        llfs = list(self.start_llfs.values())
        return float(max(llfs) - min(llfs)) if llfs else 0.0

    @property
    def usable(self) -> bool:
        return self.status != "excluded"


def _exact_llf(y: np.ndarray, ar: np.ndarray, ma: np.ndarray, sigma2: float) -> float:
    """Exact Gaussian log-likelihood of the zero-mean ARMA (the fits table's ``llf``).

    The innovations algorithm (Brockwell & Davis Sec. 5.2.7; statsmodels ``arma_loglike``): the decomposition of the
    likelihood into one-step prediction errors e_t with variances sigma^2 v_t,
    ``log L = -1/2 sum_t (log(2 pi sigma^2 v_t) + e_t^2 / (sigma^2 v_t))``. At an exact_ls fit (sigma2 = the
    concentrated S/n) it is the maximum that ``exact_ls`` reaches. statsmodels' Kalman filter (``ARIMA.loglike``),
    used for this column before, switches to a steady-state gain once the state covariance has converged to its
    tolerance and differs from the exact value by up to 1.3e-4 on the household fits.
    """
    from statsmodels.tsa.innovations.arma_innovations import arma_loglike

    return float(arma_loglike(np.ascontiguousarray(y, dtype=float), ar_params=ar, ma_params=ma, sigma2=float(sigma2)))


@numba.njit(cache=True)
def _pacf_coefficients(point: np.ndarray, p: int, shrink: np.ndarray) -> np.ndarray:
    """AR and MA coefficients (phi_1..phi_p, theta_1..theta_q) from PACF coordinates, scaled by ``shrink``.

    Monahan (1984)'s Levinson-type recursion ``y[k, i] = y[k-1, i] + r_k y[k-1, k-i-1]``, ``y[k, k] = r_k``, as
    statsmodels' ``constrain_stationary_univariate`` (AR block -y[p-1], MA block y[q-1]; statsmodels maps the
    unbounded u to r = u / sqrt(1 + u^2) first, which this works in directly).
    """
    k_all = point.size
    c = np.empty(k_all)
    work = np.empty(k_all)
    for lo, hi, sign in ((0, p, -1.0), (p, k_all, 1.0)):
        for k in range(hi - lo):
            rk = point[lo + k]
            for i in range(k):
                work[i] = c[lo + i] + rk * c[lo + k - i - 1]
            for i in range(k):
                c[lo + i] = work[i]
            c[lo + k] = rk
        for i in range(hi - lo):
            c[lo + i] = sign * c[lo + i] * shrink[lo + i]
    return c


@numba.njit(cache=True)
def _exact_residuals(y: np.ndarray, points: np.ndarray, p: int, shrink: np.ndarray, out: np.ndarray) -> None:
    """``out[b]``: the exact-likelihood residuals ``e_t / sqrt(v_t) * (prod v)^(1/2n)`` (module docstring) of the
    ARMA(p, q) at the PACF point ``points[b]``, for every row b at once; rows whose variances v_t are not all positive
    get 1e8.

    The innovations algorithm of Brockwell & Davis (Sec. 5.3, eqs. 5.3.5-5.3.9) with sigma^2 = 1: the autocovariance
    gamma(0..m) (m = max(p, q)) from the linear system of their eq. 3.3.8, gamma(m+1..2m) by eq. 3.3.9, the
    covariances kappa(i, j) of the transformed process W (X for t <= m, phi(B) X after), the recursion for
    theta_{t,j} and v_t (theta_{t,j} = 0 for j > q once t >= m), and the one-step predictions. The rows are
    independent and run in lock-step (the batch index innermost), so that the 1 + p + q points of a
    forward-difference Jacobian cost about three evaluations of one point.
    """
    n = y.size
    nb, k_all = points.shape
    q = k_all - p
    m = max(p, q)
    c = np.empty((k_all, nb))
    for b in range(nb):
        c[:, b] = _pacf_coefficients(points[b], p, shrink)
    phi, theta = c[:p], c[p:]
    g = np.zeros((2 * m + 1, nb))  # gamma(0..2m)
    cma = np.zeros((q + 1, nb))  # autocovariance of the MA(q) part: sum_r theta_r theta_{r+h}, theta_0 = 1
    psi = np.zeros(q + 1)
    a = np.zeros((m + 1, m + 1))
    rhs = np.zeros(m + 1)
    for b in range(nb):
        psi[:] = 0.0  # impulse response psi_0..psi_q
        psi[0] = 1.0
        for j in range(1, q + 1):
            s = theta[j - 1, b]
            for i in range(1, min(j, p) + 1):
                s += phi[i - 1, b] * psi[j - i]
            psi[j] = s
        a[:, :] = 0.0  # eq. 3.3.8: gamma(k) - sum_i phi_i gamma(|k - i|) = sum_{j=k}^q theta_j psi_{j-k}
        for k in range(m + 1):
            a[k, k] += 1.0
            for i in range(1, p + 1):
                a[k, abs(k - i)] -= phi[i - 1, b]
            s = 0.0
            for j in range(k, q + 1):
                s += (1.0 if j == 0 else theta[j - 1, b]) * psi[j - k]
            rhs[k] = s
        g[: m + 1, b] = np.linalg.solve(a, rhs)
        for k in range(m + 1, 2 * m + 1):  # eq. 3.3.9
            s = 0.0
            for i in range(1, p + 1):
                s += phi[i - 1, b] * g[k - i, b]
            g[k, b] = s
        for h in range(q + 1):
            s = theta[h - 1, b] if h > 0 else 1.0
            for r in range(1, q - h + 1):
                s += theta[r - 1, b] * theta[r + h - 1, b]
            cma[h, b] = s
    th = np.zeros((n, max(m, 1), nb))  # th[t, j-1] = theta_{t,j}
    v = np.empty((n, nb))
    vinv = np.empty((n, nb))
    e = np.empty((n, nb))
    acc = np.empty(nb)
    ok = np.ones(nb, dtype=np.bool_)
    for t in range(n):  # t = number of past observations
        lags = t if t < m else q
        for k in range(t - lags, t):  # theta_{t, t-k} (eq. 5.2.16 with kappa(t+1, k+1))
            h = t - k
            if t + 1 <= m:
                for b in range(nb):
                    acc[b] = g[h, b]
            elif k + 1 > m:
                for b in range(nb):
                    acc[b] = cma[h, b]
            elif t + 1 <= 2 * m:
                for b in range(nb):
                    s = g[h, b]
                    for r in range(1, p + 1):
                        s -= phi[r - 1, b] * g[abs(r - h), b]
                    acc[b] = s
            else:
                acc[:] = 0.0
            j0 = max(0, k - (k if k < m else q), t - lags)
            for j in range(j0, k):
                for b in range(nb):
                    acc[b] -= th[k, k - j - 1, b] * th[t, t - j - 1, b] * v[j, b]
            for b in range(nb):
                th[t, h - 1, b] = acc[b] * vinv[k, b]
        for b in range(nb):
            acc[b] = g[0, b] if t + 1 <= m else cma[0, b]
        for j in range(t - lags, t):
            for b in range(nb):
                x = th[t, t - j - 1, b]
                acc[b] -= x * x * v[j, b]
        for b in range(nb):
            vb = acc[b]
            if not vb > 0.0:
                ok[b] = False
                vb = 1.0
            v[t, b] = vb
            vinv[t, b] = 1.0 / vb
        for b in range(nb):  # one-step prediction error (eq. 5.3.9)
            acc[b] = y[t]
        if t >= m:
            for i in range(1, p + 1):
                for b in range(nb):
                    acc[b] -= phi[i - 1, b] * y[t - i]
        for j in range(1, lags + 1):
            for b in range(nb):
                acc[b] -= th[t, j - 1, b] * e[t - j, b]
        for b in range(nb):
            e[t, b] = acc[b]
    for b in range(nb):
        slog = 0.0
        for t in range(n):
            if not (math.isfinite(e[t, b]) and math.isfinite(v[t, b])):
                ok[b] = False
            slog += math.log(v[t, b])
        if not ok[b]:
            out[b, :] = 1e8
            continue
        scale = math.exp(0.5 * slog / n)
        for t in range(n):
            out[b, t] = e[t, b] / math.sqrt(v[t, b]) * scale


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
    lower = linalg.toeplitz(psi, np.zeros(steps))  # lower[i, l] = psi_{i-l}
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

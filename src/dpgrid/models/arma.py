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

Fitting (:func:`fit_arma`) maximises the exact Gaussian likelihood of eq. (59). Two methods:

* ``exact_ls`` (default): the exact likelihood, concentrated in sigma^2, written as a sum of squares
  (Ansley 1979, Biometrika 66: 59-65): with the innovations e_t and their relative variances v_t
  from the innovations algorithm (statsmodels ``arma_innovations``),
  ``-2 log L_c = n log(S(beta)/n) + const``, ``S = (prod_t v_t)^(1/n) sum_t e_t^2 / v_t``, so the
  MLE is the nonlinear least-squares problem ``min S`` over the scaled residuals
  ``e_t / sqrt(v_t) * (prod v)^(1/2n)``. It is solved by scipy's bounded trust-region
  least-squares solver (``least_squares``, ``trf`` or ``dogbox``, Gauss-Newton curvature) in the
  partial-autocorrelation (PACF) coordinates of statsmodels' stationarity/invertibility
  transformation (Monahan 1984: AR and MA polynomials are stationary/invertible iff every PACF
  coordinate lies in (-1, 1)), box-bounded to ``[-pacf_bound, pacf_bound]``; the coefficients are
  then scaled, ``c_i = c'_i / rho^i`` with ``rho = 1 + root_margin``, so that every root has
  ``|z| >= rho`` (the PACF box alone does not keep roots off the unit circle: without the margin
  2 of 100 household fits ended with an MA root within 1e-6 of it). The residuals come from a compiled
  (numba) innovations algorithm (:func:`_exact_residuals`, Brockwell & Davis Sec. 5.3; equal to statsmodels'
  ``arma_innovations`` to ~1e-10 relative), which evaluates the 1 + p + q points of scipy's forward-difference
  Jacobian in one batch. Start values: statsmodels' SARIMAX ``start_params`` (conditional least squares) and
  Hannan-Rissanen, one first attempt from each, the higher likelihood kept (a global safeguard against the
  local maxima of the over-parameterised likelihood).
* ``statespace``: the former method, statsmodels ``ARIMA.fit`` (Kalman-filter likelihood, L-BFGS
  with forward-difference gradients in the unbounded transformed coordinates), kept for comparison.

Why the ``statespace`` fits of ARMA(6,5) stop at the iteration limit on household data (measured on
the default data, docs/classdp.md): the model is over-parameterised for these series, so the
likelihood has long flat ridges (and several local maxima) along which an AR root and an MA root
nearly cancel (in 97 of 100 fits an AR root lies within 0.05 of an MA root), and the ridges run
towards the unit circle, where the unbounded coordinates u = r / sqrt(1 - r^2) of the PACF r
diverge and the likelihood is flat in u. L-BFGS with forward-difference gradients (step 1e-5)
crawls along them: after 50 iterations it is 0.1-2 log-likelihood units below where it stops when
continued (after 93-128 iterations, on its relative-reduction test, with the gradient still
large). statsmodels 0.15's analytic/complex-step score cannot be used instead:
``MLEModel.score(..., transformed=False)`` multiplies by the Jacobian of the transformation instead
of its transpose, which is wrong for the non-diagonal AR/MA transformation. Gauss-Newton curvature
in the bounded PACF coordinates follows the ridges in a few dozen steps (median 58 evaluations); the
two trust-region methods get stuck on different households' ridges, hence the retry chain of
:func:`fit_arma`.
"""

from __future__ import annotations

import logging
import math
import warnings
from dataclasses import dataclass, field

import numba
import numpy as np
from scipy import linalg

LOG = logging.getLogger(__name__)


__all__ = [
    "FIT_METHODS",
    "LS_OPTIMIZERS",
    "NONCONVERGED_RULES",
    "START_METHODS",
    "ArmaFit",
    "arma_autocovariance",
    "arma_impulse_response",
    "fit_arma",
    "forecast_covariance_impulse",
    "forecast_distribution",
    "seasonal_log_mean",
    "simulate_arma",
]

#: What to do with a fit whose optimiser did not converge (after one retry with more iterations):
#: ``keep``: use the last iterate (stationarity and invertibility are enforced by the
#: parameterisation, so it is a valid model) and flag it; ``fallback``: refit with the fallback
#: order; ``exclude``: leave the household out of the experiment (listed in the results).
NONCONVERGED_RULES = ("keep", "fallback", "exclude")

#: Fitting methods of :func:`fit_arma` (module docstring).
FIT_METHODS = ("exact_ls", "statespace")
#: scipy ``least_squares`` methods with bounds, for ``method="exact_ls"``.
LS_OPTIMIZERS = ("dogbox", "trf")
#: Start values for ``method="exact_ls"``: statsmodels' SARIMAX ``start_params`` or Hannan-Rissanen.
START_METHODS = ("css", "hannan_rissanen")
#: Per-method defaults of ``maxiter`` / ``retry_maxiter`` (statespace: L-BFGS iterations;
#: exact_ls: least-squares function evaluations, Jacobian evaluations not counted).
DEFAULT_MAXITER = {"exact_ls": (300, 1000), "statespace": (50, 200)}


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


@dataclass
class _Attempt:
    """One optimiser run: parameters, outcome, and the state to continue from (exact_ls: PACF coordinates)."""

    ar: np.ndarray
    ma: np.ndarray
    sigma2: float
    converged: bool
    llf: float
    messages: list
    iterations: int
    grad_max: float
    reason: str
    state: np.ndarray | None = None


def _warning_messages(caught) -> list:
    return sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught})


def _root_note(ar: np.ndarray, ma: np.ndarray) -> str:
    """Smallest root moduli and the closest AR/MA root pair (a near-cancelling pair flattens the likelihood)."""
    ra = np.roots(np.r_[1.0, -ar][::-1]) if ar.size else np.zeros(0)
    rm = np.roots(np.r_[1.0, ma][::-1]) if ma.size else np.zeros(0)
    parts = []
    if ra.size:
        parts.append(f"min |AR root| {np.abs(ra).min():.5f}")
    if rm.size:
        parts.append(f"min |MA root| {np.abs(rm).min():.5f}")
    if ra.size and rm.size:
        d = np.abs(ra[:, None] - rm[None, :])
        i, j = np.unravel_index(np.argmin(d), d.shape)
        parts.append(f"closest AR/MA root pair |z| {abs(ra[i]):.5f}/{abs(rm[j]):.5f}, {d[i, j]:.1e} apart")
    return "; ".join(parts)


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


def _statespace_attempt(y: np.ndarray, p: int, q: int, maxiter: int) -> _Attempt:
    """statsmodels ``ARIMA.fit`` (state space, L-BFGS with forward-difference gradients); the former method."""
    from statsmodels.tools.sm_exceptions import ConvergenceWarning
    from statsmodels.tsa.arima.model import ARIMA

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ARIMA(y, order=(p, 0, q), trend="n")
        res = model.fit(method_kwargs={"maxiter": int(maxiter)}, cov_type="none")
    msgs = _warning_messages(caught)
    rv = res.mle_retvals or {}
    converged = bool(rv.get("converged", False)) and not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    params = dict(zip(res.param_names, np.asarray(res.params)))
    ar = np.array([params[f"ar.L{i}"] for i in range(1, p + 1)])
    ma = np.array([params[f"ma.L{j}"] for j in range(1, q + 1)])
    its = int(rv.get("iterations", 0))
    gmax = float(np.max(np.abs(rv["gopt"]))) if "gopt" in rv and np.size(rv["gopt"]) else float("nan")
    head = (
        f"converged: statsmodels L-BFGS after {its} iterations"
        if converged
        else f"iteration limit: statsmodels L-BFGS stopped at maxiter={int(maxiter)}"
    )
    reason = f"{head}; gradient {gmax:.1e}; {_root_note(ar, ma)}"
    s2 = float(params["sigma2"])
    return _Attempt(ar, ma, s2, converged, _exact_llf(y, ar, ma, s2), msgs, its, gmax, reason)


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


def _forward_difference_points(x: np.ndarray, lb: float, ub: float) -> tuple[np.ndarray, np.ndarray]:
    """The points of scipy's ``2-point`` Jacobian (``approx_derivative``): step sqrt(eps) max(1, |x_k|) in the
    direction of sign(x_k) (+ at 0), reversed where it would leave the box; returns (points, actual steps)."""
    h = np.sqrt(np.finfo(float).eps) * np.where(x >= 0, 1.0, -1.0) * np.maximum(1.0, np.abs(x))
    h = np.where((x + h > ub) | (x + h < lb), -h, h)
    pts = np.repeat(x[None, :], x.size, axis=0)
    pts[np.arange(x.size), np.arange(x.size)] += h
    return pts, np.diagonal(pts) - x


def _central_difference_points(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points of a central-difference gradient with statsmodels ``approx_fprime``'s step eps^(1/3) max(|x|, 0.1)."""
    h = np.finfo(float).eps ** (1.0 / 3.0) * np.maximum(np.abs(x), 0.1)
    eye = np.diag(h)
    return np.vstack([x + eye, x - eye]), h


def _exact_ls_start(y: np.ndarray, p: int, q: int, start: str, bound: float) -> tuple[np.ndarray, list]:
    """Start values in PACF coordinates: statsmodels' SARIMAX start_params or Hannan-Rissanen (with the warnings
    statsmodels gave, as messages)."""
    from statsmodels.tsa.arima.model import ARIMA

    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ARIMA(y, order=(p, 0, q), trend="n", concentrate_scale=True)
        c0 = np.asarray(model.start_params, dtype=float)
        if start == "hannan_rissanen":
            from statsmodels.tsa.arima.estimators.hannan_rissanen import hannan_rissanen

            hr = hannan_rissanen(y, ar_order=p, ma_order=q, demean=False)[0]
            if hr.is_stationary and hr.is_invertible:
                c0 = np.r_[hr.ar_params, hr.ma_params]
            else:
                notes.append("start: Hannan-Rissanen estimate not stationary/invertible, used statsmodels start_params")
        u0 = np.asarray(model.untransform_params(c0), dtype=float)
    return np.clip(u0 / np.sqrt(1.0 + u0 * u0), -bound, bound), notes + _warning_messages(caught)


def _exact_ls_attempt(
    y: np.ndarray,
    p: int,
    q: int,
    max_nfev: int,
    *,
    optimizer: str,
    pacf_bound: float,
    root_margin: float,
    tol: float,
    start: str,
    r0: np.ndarray | None = None,
) -> _Attempt:
    """Exact concentrated Gaussian MLE as nonlinear least squares in bounded PACF coordinates (module docstring)."""
    from scipy.optimize import least_squares
    from statsmodels.tsa.innovations.arma_innovations import arma_innovations

    n = y.size
    if p + q == 0:
        s2 = float(np.mean(y * y))
        ar = ma = np.zeros(0)
        return _Attempt(ar, ma, s2, True, _exact_llf(y, ar, ma, s2), [], 0, 0.0, "white noise: closed form")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        notes = []
        if r0 is None:
            r0, notes = _exact_ls_start(y, p, q, start, pacf_bound)
        # polynomial coefficients c_i = c'_i / rho^i have roots rho * (roots of c') : all |root| >= rho
        rho = 1.0 + root_margin
        shrink = np.r_[rho ** -np.arange(1.0, p + 1), rho ** -np.arange(1.0, q + 1)]
        yc = np.ascontiguousarray(y, dtype=float)

        def batch(points: np.ndarray) -> np.ndarray:
            out = np.empty((points.shape[0], n))
            _exact_residuals(yc, np.ascontiguousarray(points), p, shrink, out)
            return out

        def residuals(r):
            return batch(r[None, :])[0]

        def jacobian(r):  # scipy's 2-point differences, all columns in one batch
            pts, h = _forward_difference_points(r, -pacf_bound, pacf_bound)
            res = batch(np.vstack([r[None, :], pts]))
            return ((res[1:] - res[0]) / h[:, None]).T

        res = least_squares(
            residuals,
            r0,
            jac=jacobian,
            bounds=(-pacf_bound, pacf_bound),
            method=optimizer,
            ftol=tol,
            xtol=tol,
            gtol=tol,
            max_nfev=int(max_nfev),
        )
        # gradient of the concentrated log-likelihood per observation, -1/2 (log 2 pi + 1 + log mean(res^2))
        pts, h = _central_difference_points(res.x)
        mean_llf = -0.5 * (math.log(2 * math.pi) + 1.0 + np.log(np.mean(batch(pts) ** 2, axis=1)))
        g = (mean_llf[: res.x.size] - mean_llf[res.x.size :]) / (2.0 * h)
        c = _pacf_coefficients(np.asarray(res.x, dtype=float), p, shrink)
        e, v = arma_innovations(yc, ar_params=c[:p], ma_params=c[p:], sigma2=1.0)
        s2 = float(np.mean(np.asarray(e) ** 2 / np.asarray(v)))
    active = np.asarray(res.active_mask)
    g = np.where(active > 0, np.minimum(g, 0.0), np.where(active < 0, np.maximum(g, 0.0), g))
    gmax = float(np.max(np.abs(g)))
    ar, ma = c[:p], c[p:]
    converged = bool(res.status > 0)
    msg = str(res.message).replace("`", "").rstrip(".")
    head = (
        f"converged ({optimizer}): {msg} after {res.nfev} evaluations"
        if converged
        else f"evaluation limit: {optimizer} stopped after {res.nfev} evaluations (max {int(max_nfev)})"
    )
    reason = f"{head}; projected gradient {gmax:.1e}; {_root_note(ar, ma)}"
    if np.any(active != 0):
        reason += f"; {int(np.sum(active != 0))} PACF coordinate(s) at the bound +-{pacf_bound:g}"
    return _Attempt(
        ar,
        ma,
        s2,
        converged,
        _exact_llf(y, ar, ma, s2),
        notes + _warning_messages(caught),
        int(res.nfev),
        gmax,
        reason,
        state=np.asarray(res.x, dtype=float),
    )


def fit_arma(
    y: np.ndarray,
    order: tuple = (6, 5),
    *,
    maxiter: int | None = None,
    retry_maxiter: int | None = None,
    nonconverged_rule: str = "keep",
    fallback_order: tuple = (2, 1),
    name: str = "series",
    method: str = "exact_ls",
    optimizer: str = "trf",
    retry_optimizer: str = "dogbox",
    start: str | tuple = ("css", "hannan_rissanen"),
    pacf_bound: float = 0.999,
    root_margin: float = 1e-4,
    tol: float = 1e-10,
) -> ArmaFit:
    """Fit a zero-mean ARMA(p, q) (eq. 59) by exact Gaussian maximum likelihood.

    ``method`` (:data:`FIT_METHODS`, module docstring): ``exact_ls`` (default) solves the exact
    concentrated likelihood as a bounded nonlinear least-squares problem in PACF coordinates with
    scipy ``least_squares`` (``optimizer``: :data:`LS_OPTIMIZERS`; start values ``start``:
    :data:`START_METHODS`; PACF box ``[-pacf_bound, pacf_bound]``; every AR and MA root at least
    ``1 + root_margin`` in modulus; ``tol`` = scipy's ftol, xtol and
    gtol; ``maxiter`` = function evaluations, Jacobian evaluations not counted); converged = scipy
    stopped on a tolerance test, not on the evaluation limit. ``statespace`` is the former
    statsmodels ``ARIMA.fit`` (``maxiter`` = L-BFGS iterations). ``maxiter``/``retry_maxiter``
    default per method (:data:`DEFAULT_MAXITER`).

    Rule for failures (documented in docs/classdp.md): stationarity and invertibility are enforced
    by the parameterisation and re-checked on the roots. If the optimiser does not converge in
    ``maxiter`` and ``retry_maxiter > maxiter``, it is retried with a budget of ``retry_maxiter``
    per retry: statespace restarts (the first converged retry is kept, or the attempt with the highest
    likelihood if none converged); exact_ls restarts ``optimizer`` from its last iterate (a fresh trust
    region) and, if that does not converge either, runs ``retry_optimizer`` from where that stopped (the two
    trust-region methods get stuck on ridges of different households); each retry starts from the best
    point so far, and the attempt with the highest likelihood is kept. Global safeguard: ``start`` may list several start
    methods (default both, :data:`START_METHODS`); exact_ls makes one first attempt from each and keeps the
    one with the highest exact likelihood (the retries continue from it; ``ArmaFit.start_llfs`` and the
    reason give every start's first-attempt likelihood). The likelihood of ARMA(6,5) on household data has
    several local maxima: on household R0004 of the quick configuration the css start stops at one 0.70 below
    the Hannan-Rissanen start's. If it still does not converge,
    ``nonconverged_rule`` decides (:data:`NONCONVERGED_RULES`). A model whose roots fail the check
    is never used: it is refitted with ``fallback_order`` or excluded. ``ArmaFit.reason`` says in
    words why the fit stopped (optimiser message, gradient, root moduli, closest AR/MA root pair).
    """
    if nonconverged_rule not in NONCONVERGED_RULES:
        raise ValueError(f"nonconverged_rule must be one of {NONCONVERGED_RULES}, got {nonconverged_rule!r}")
    if method not in FIT_METHODS:
        raise ValueError(f"method must be one of {FIT_METHODS}, got {method!r}")
    if optimizer not in LS_OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {LS_OPTIMIZERS}, got {optimizer!r}")
    if retry_optimizer not in LS_OPTIMIZERS:
        raise ValueError(f"retry_optimizer must be one of {LS_OPTIMIZERS}, got {retry_optimizer!r}")
    starts = (start,) if isinstance(start, str) else tuple(start)
    if not starts or len(set(starts)) != len(starts) or any(s not in START_METHODS for s in starts):
        raise ValueError(f"start must be one of {START_METHODS} or a list of distinct ones, got {start!r}")
    if not 0.0 < pacf_bound <= 0.99999:  # the central-difference gradient check steps 6e-6 beyond the bound
        raise ValueError(f"pacf_bound must lie in (0, 0.99999], got {pacf_bound!r}")
    if not 0.0 <= root_margin < 1.0:
        raise ValueError(f"root_margin must lie in [0, 1), got {root_margin!r}")
    if not tol > 0.0:
        raise ValueError(f"tol must be positive, got {tol!r}")
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or not np.all(np.isfinite(y)):
        raise ValueError(f"{name}: ARMA training series must be a finite 1-D array")
    p, q = int(order[0]), int(order[1])
    if y.size < 10 * (p + q + 1):
        raise ValueError(f"{name}: {y.size} samples are too few for ARMA({p},{q})")
    d_max, d_retry = DEFAULT_MAXITER[method]
    maxiter = d_max if maxiter is None else int(maxiter)
    retry_maxiter = d_retry if retry_maxiter is None else int(retry_maxiter)

    def attempt(pp: int, qq: int, budget: int, opt: str = optimizer, state=None, start=starts[0]) -> _Attempt:
        if method == "statespace":
            return _statespace_attempt(y, pp, qq, budget)
        return _exact_ls_attempt(
            y,
            pp,
            qq,
            budget,
            optimizer=opt,
            pacf_bound=pacf_bound,
            root_margin=root_margin,
            tol=tol,
            start=start,
            r0=state,
        )

    # exact_ls: one first attempt per distinct start point, the highest likelihood kept (and retried if it did not
    # converge); a start method whose estimate is unusable falls back to css: the same point is not run twice
    start_used, start_note, start_llfs = starts[0], "", {}
    if method == "exact_ls" and len(starts) > 1 and p + q > 0:
        points = {s: _exact_ls_start(y, p, q, s, pacf_bound)[0] for s in starts}
        firsts: dict = {}
        for s in starts:
            same = [u for u in firsts if points[u].tobytes() == points[s].tobytes()]
            firsts[s] = firsts[same[0]] if same else attempt(p, q, maxiter, start=s)
        start_used = max(starts, key=lambda s: firsts[s].llf)
        a = firsts[start_used]
        start_llfs = {s: firsts[s].llf for s in starts}
        others = ", ".join(f"{s} {start_llfs[s] - a.llf:+.4f}" for s in starts if s != start_used)
        start_note = f"; start {start_used} kept (log-likelihood of the other starts' first attempts: {others})"
        distinct = list({id(t): t for t in firsts.values()}.values())
        a.iterations = sum(t.iterations for t in distinct)
        a.messages = sorted(set().union(*(t.messages for t in distinct)))
    else:
        a = attempt(p, q, maxiter)
    status = "ok"
    if not a.converged and retry_maxiter > maxiter:
        if method == "statespace":  # statsmodels restarts from its start values
            tries = [attempt(p, q, retry_maxiter)]
            done = [t for t in tries if t.converged]
            best = done[0] if done else max([a, *tries], key=lambda t: t.llf)
        else:  # continue from the best point: least squares never lowers the likelihood it starts from
            tries = [attempt(p, q, retry_maxiter, state=a.state)]  # the first method, a fresh trust region
            if not tries[-1].converged and retry_optimizer != optimizer:  # then the other method
                tries.append(attempt(p, q, retry_maxiter, opt=retry_optimizer, state=tries[-1].state))
            best = max([a, *tries], key=lambda t: (t.llf, t.converged))
        total = a.iterations + sum(t.iterations for t in tries) if method == "exact_ls" else tries[-1].iterations
        msgs = sorted(set(a.messages).union(*(t.messages for t in tries)))
        if not best.converged:
            best.reason += f" ({len(tries)} retries also stopped at their limits)"
        best.iterations, best.messages = total, msgs
        a = best
        status = "retried" if a.converged else "nonconverged"
    stat, inv = _roots_ok(np.r_[1.0, -a.ar]), _roots_ok(np.r_[1.0, a.ma])
    fit = ArmaFit(
        a.ar,
        a.ma,
        a.sigma2,
        (p, q),
        a.converged,
        stat,
        inv,
        status,
        a.llf,
        a.messages,
        method,
        a.iterations,
        a.grad_max,
        a.reason + start_note,
        start_llfs,
    )
    bad_roots = not (stat and inv) or not (a.sigma2 > 0 and math.isfinite(a.sigma2))
    if (not a.converged and nonconverged_rule == "keep") and not bad_roots:
        fit.status = "nonconverged_kept"
        return fit
    if a.converged and not bad_roots:
        return fit
    if nonconverged_rule == "exclude" and not bad_roots:
        fit.status = "excluded"
        return fit
    # fallback order (bad roots, or rule == fallback)
    fp, fq = int(fallback_order[0]), int(fallback_order[1])
    fa = attempt(fp, fq, max(maxiter, retry_maxiter))
    st2, in2 = _roots_ok(np.r_[1.0, -fa.ar]), _roots_ok(np.r_[1.0, fa.ma])
    why = "bad roots" if bad_roots else "not converged"
    fb = ArmaFit(
        fa.ar,
        fa.ma,
        fa.sigma2,
        (fp, fq),
        fa.converged,
        st2,
        in2,
        "fallback_order",
        fa.llf,
        sorted(set(a.messages + fa.messages)),
        method,
        fa.iterations,
        fa.grad_max,
        f"fallback ARMA({fp},{fq}) after ARMA({p},{q}) {why} ({a.reason}); fallback: {fa.reason}",
    )
    if not (st2 and in2 and fa.sigma2 > 0):
        fb.status = "excluded"
    LOG.info("%s: ARMA(%d,%d) %s -> fallback ARMA(%d,%d) status %s", name, p, q, why, fp, fq, fb.status)
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

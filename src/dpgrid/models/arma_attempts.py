"""One optimiser run ("attempt") of an ARMA fit, for each method of :func:`dpgrid.models.arma_fit.fit_arma`: the exact
concentrated likelihood as bounded least squares in PACF coordinates from a start point (``exact_ls``: its start
values, its finite-difference points at the PACF box, the root checks), and statsmodels' state-space MLE
(``statespace``). :func:`~dpgrid.models.arma_fit.fit_arma` chooses the starts, retries and the fallback order."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from dpgrid.models.arma import _exact_llf, _exact_residuals, _pacf_coefficients
from dpgrid.models.bounded_lm import projected_levenberg_marquardt


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


def _statespace_attempt(y: np.ndarray, p: int, q: int, maxiter: int) -> _Attempt:
    """statsmodels ``ARIMA.fit`` (state space, L-BFGS with forward-difference gradients), for comparison."""
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
    """Start values in PACF coordinates (:data:`dpgrid.models.arma_fit.START_METHODS` without the ``best_x`` ones), with the warnings
    statsmodels gave, as messages: statsmodels' SARIMAX ``start_params`` (css), Hannan-Rissanen, statsmodels'
    ``innovations_mle`` estimate (L-BFGS on the innovations likelihood from its own start), or zeros (white noise).
    An estimate that is not stationary and invertible falls back to ``start_params``, with a note."""
    from statsmodels.tsa.arima.model import ARIMA

    if start == "zeros":
        return np.zeros(p + q), []
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
        elif start == "innovations_mle":
            try:
                par = np.asarray(ARIMA(y, order=(p, 0, q), trend="n").fit(method="innovations_mle").params, dtype=float)
            except (ValueError, np.linalg.LinAlgError) as exc:  # its optimiser stepped outside the stationary region
                notes.append(
                    f"start: innovations_mle failed ({str(exc).splitlines()[0]}), used statsmodels start_params"
                )
            else:
                if _roots_ok(np.r_[1.0, -par[:p]]) and _roots_ok(np.r_[1.0, par[p : p + q]]):
                    c0 = par[: p + q]
                else:
                    notes.append(
                        "start: innovations_mle estimate not stationary/invertible, used statsmodels start_params"
                    )
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
    start_notes: tuple = (),
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
        notes = list(start_notes)
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

        if optimizer == "projected_lm":
            res = projected_levenberg_marquardt(
                residuals, jacobian, r0, -pacf_bound, pacf_bound, ftol=tol, xtol=tol, gtol=tol, max_nfev=int(max_nfev)
            )
        else:
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

"""Box-constrained nonlinear least squares by a projected Levenberg-Marquardt method.

``min_x 1/2 ||r(x)||^2`` subject to ``lb <= x <= ub``, for small parameter vectors (the ARMA fits of
:mod:`dpgrid.models.arma_fit`: 1 + p + q <= a few dozen) and long residual vectors. Each iteration forms
``g = J^T r`` and ``A = J^T J``, fixes the coordinates that sit on a bound with the gradient pointing out of the box
(the active set), and solves ``(A_FF + lam D_FF) s_F = -g_F`` on the free ones, with Marquardt's scaling
``D = diag(A)`` kept at its running maximum (More 1978, "The Levenberg-Marquardt algorithm: implementation and
theory", Sec. 6); the step is projected onto the box, and accepted when the actual reduction of the cost is a fair
share of the reduction the Gauss-Newton model predicts for the projected step. ``lam`` follows Nielsen's update
(Nielsen 1999, IMM-REP-1999-05: ``lam * max(1/3, 1 - (2 rho - 1)^3)`` on success, doubling factors on failure).
A projected Levenberg-Marquardt method of this kind converges locally like Gauss-Newton under the usual
error-bound conditions (Kanzow, Yamashita & Fukushima 2004, J. Comput. Appl. Math. 172: 375-397).

Stopping tests are scipy ``least_squares``'s (``ftol``: relative reduction of the cost below ``ftol`` on a step
whose ratio exceeds 1/4; ``xtol``: ``||s|| < xtol (xtol + ||x||)``; ``gtol``: the projected gradient's max-norm
below ``gtol``), with ``max_nfev`` counting evaluations of ``fun`` (Jacobian evaluations not counted). The
linear algebra per iteration is ``k x k`` (scipy's ``trf`` takes an SVD of the ``m x k`` Jacobian instead), which is
what makes it cheap when ``m >> k``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["BoxLeastSquaresResult", "projected_levenberg_marquardt"]

MESSAGES = {
    0: "The maximum number of function evaluations is exceeded",
    1: "gtol termination condition is satisfied",
    2: "ftol termination condition is satisfied",
    3: "xtol termination condition is satisfied",
}


@dataclass(frozen=True)
class BoxLeastSquaresResult:
    """Outcome of :func:`projected_levenberg_marquardt` (field names as scipy's ``OptimizeResult``)."""

    x: np.ndarray
    cost: float
    nfev: int
    njev: int
    status: int
    active_mask: np.ndarray

    @property
    def message(self) -> str:
        return MESSAGES[self.status]


def _active(x: np.ndarray, g: np.ndarray, lb: float, ub: float) -> np.ndarray:
    """-1 / +1 where x sits on the lower / upper bound and the cost decreases outwards (the step would leave)."""
    return np.where((x <= lb) & (g > 0), -1, np.where((x >= ub) & (g < 0), 1, 0))


def projected_levenberg_marquardt(
    fun: Callable[[np.ndarray], np.ndarray],
    jac: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray,
    lb: float,
    ub: float,
    *,
    ftol: float = 1e-8,
    xtol: float = 1e-8,
    gtol: float = 1e-8,
    max_nfev: int = 1000,
) -> BoxLeastSquaresResult:
    """Minimise ``1/2 ||fun(x)||^2`` over the box ``[lb, ub]^k`` from ``x0`` (clipped into the box).

    ``fun(x)`` returns the residual vector (length m), ``jac(x)`` its ``m x k`` Jacobian. The cost never increases
    from one accepted iterate to the next, and every iterate lies in the box.
    """
    if not lb < ub:
        raise ValueError(f"the box needs lb < ub, got [{lb}, {ub}]")
    x = np.clip(np.asarray(x0, dtype=float), lb, ub)
    r = np.asarray(fun(x), dtype=float)
    nfev, njev = 1, 0
    cost = 0.5 * float(r @ r)
    lam, nu, scale = -1.0, 2.0, None
    status = 0
    J = None
    while True:
        if J is None:
            J = np.asarray(jac(x), dtype=float)
            njev += 1
            A, g = J.T @ J, J.T @ r
            d2 = np.diag(A).copy()
            scale = d2 if scale is None else np.maximum(scale, d2)
            scale = np.where(scale > 0, scale, 1.0)
            if lam < 0:
                lam = 1e-3 * float(np.max(np.diag(A), initial=1.0))
        active = _active(x, g, lb, ub)
        free = active == 0
        if float(np.max(np.abs(np.where(free, g, 0.0)), initial=0.0)) < gtol:
            status = 1
            break
        if nfev >= max_nfev:
            break
        s = np.zeros_like(x)
        if np.any(free):
            m = A[np.ix_(free, free)] + lam * np.diag(scale[free])
            try:
                s[free] = -np.linalg.solve(m, g[free])
            except np.linalg.LinAlgError:
                lam, nu = lam * nu, 2.0 * nu
                continue
        x_new = np.clip(x + s, lb, ub)
        s = x_new - x
        predicted = -(float(g @ s) + 0.5 * float(s @ A @ s))
        step_small = float(np.linalg.norm(s)) < xtol * (xtol + float(np.linalg.norm(x)))
        r_new = np.asarray(fun(x_new), dtype=float)
        nfev += 1
        cost_new = 0.5 * float(r_new @ r_new)
        ratio = (cost - cost_new) / predicted if predicted > 0 and np.isfinite(cost_new) else -1.0
        if ratio > 1e-4:
            reduction = cost - cost_new
            x, r, cost, J = x_new, r_new, cost_new, None
            lam *= max(1.0 / 3.0, 1.0 - (2.0 * ratio - 1.0) ** 3)
            nu = 2.0
            if reduction < ftol * cost_new and ratio > 0.25:
                status = 2
                break
            if step_small:
                status = 3
                break
        else:
            lam, nu = lam * nu, 2.0 * nu
            if step_small:
                status = 3
                break
    if J is None:  # the last accepted step ended the loop: the active set at the final point
        J = np.asarray(jac(x), dtype=float)
        njev += 1
        g = J.T @ r
    return BoxLeastSquaresResult(x, cost, nfev, njev, status, _active(x, g, lb, ub))

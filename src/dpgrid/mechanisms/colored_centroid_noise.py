"""Colored and white Gaussian noise for K-means centroids.

dpkmeans paper (Ravi, Scaglione et al., IEEE TSG 2022), Sec. III-A:

* white Gaussian mechanism, eq. (10)-(11) / Theorem 2: c~ = c + eta, eta ~ N(0, sigma^2 I);
* colored Gaussian mechanism, eq. (12): c~ = c + eta, eta ~ N(0, Gamma^{-1}) (Gamma is a
  *precision* matrix; Algorithm 1 line 4 writes N(0, Gamma), a typo), with Gamma the solution of
  eq. (15):

      min_Gamma tr(Gamma^{-1})  s.t.  u_p^T Gamma u_p <= gamma_c  for every removal p,

  u_p = c(X) - c(X \\ p) (see :mod:`dpgrid.mechanisms.kmeans_sensitivity`).

Solver.  The Lagrange dual of eq. (15) is max_{lambda >= 0} 2 tr(R_lambda^{1/2}) - gamma_c 1'lambda
with R_lambda = sum_p lambda_p u_p u_p' (eq. 17), and Gamma* = R_{lambda*}^{-1/2} (eq. 16).
Maximising over the scale of lambda reduces it to maximising the concave, degree-1/2 homogeneous
f(w) = tr(R_w^{1/2}) over the simplex, for which the multiplicative (Titterington-type) update
w_p <- w_p * u_p' R_w^{-1/2} u_p / f(w) keeps w on the simplex.  At every iterate the primal point
Gamma = R_w^{-1/2} * gamma_c / max_p(u_p' R_w^{-1/2} u_p) is feasible and its objective divided by
the dual value is max_p(u_p' R_w^{-1/2} u_p) / f(w) >= 1 (the equivalence theorem); iterations
stop when this certified optimality gap is below ``tol``.

The problem is solved in the span of the shifts (coordinates from an SVD): the noise covariance is
zero orthogonal to every u_p, where no leave-one-out neighbour moves the centroids (the guarantee
is the paper's, for the neighbours X \\ p of the given X).

Lemma 2's closed form (eq. 16-18) is provided as :func:`lemma2_closed_form`.  Its assumptions
(C_XX' full row rank with the K smallest columns active) make M square only when Kd = K (d = 1);
even then eq. (18) as printed (M_ij = [C*]_ij^2) is not dimensionally consistent (see
workflow/papers/dpkmeans/dpkmeans.md), so every design -- closed form or solver -- goes through
:func:`verify_and_scale`, which checks every leave-one-out constraint and scales the precision
down until all hold, logging the violation.

Calibration of gamma_c.  ``paper_eq13``: gamma_c = eps^2 / (2 log(2/delta)) (eq. 13), the bound of
Theorem 2, which is only valid for eps < 1.  ``exact_pdp``: the largest Mahalanobis sensitivity
Delta with Pr(L > eps) = Phi(Delta/2 - eps/Delta) <= delta, i.e. the exact (eps, delta)-PDP
condition of Definition 4 (eq. 9) for a Gaussian mechanism, gamma_c = Delta^2 with
Delta = z + sqrt(z^2 + 2 eps), z = Phi^{-1}(delta).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np

from dpgrid.privacy.gaussian import calibration as gaussian_calibration
from dpgrid.privacy.gaussian import pdp_delta, pdp_epsilon

LOG = logging.getLogger(__name__)


def gamma_c(eps: float, delta: float, calibration: str = "exact_pdp") -> float:
    """Allowed squared Mahalanobis sensitivity gamma_c for an (eps, delta) budget: the named calibration of
    :data:`dpgrid.privacy.gaussian.CALIBRATIONS` (see module doc); ``paper_eq13`` is evaluated at every eps
    (the paper uses it beyond its eps < 1)."""
    return gaussian_calibration(calibration).squared_sensitivity(eps, delta, within_domain=False)


def eq13_delta(eps, mahalanobis_sensitivity):
    """The delta that eq. (13) assigns to a sensitivity: delta = 2 exp(-eps^2 / (2 Delta^2))."""
    D = np.asarray(mahalanobis_sensitivity, dtype=float)
    return np.minimum(1.0, 2.0 * np.exp(-(np.asarray(eps, dtype=float) ** 2) / (2.0 * D * D)))


@dataclass
class CentroidNoiseDesign:
    """A Gaussian centroid-noise design normalised to gamma_c = 1.

    ``basis`` (n x r, orthonormal columns) spans the shifts; ``cov_unit`` (r x r) is the noise
    covariance in that basis for gamma_c = 1.  For a budget with gamma_c the covariance is
    basis @ cov_unit @ basis.T / gamma_c.
    """

    basis: np.ndarray
    cov_unit: np.ndarray
    method: str
    primal_unit: float  # tr(cov_unit): expected squared noise norm at gamma_c = 1
    dual_unit: float = float("nan")  # dual lower bound on the optimum (solver only)
    n_iter: int = 0
    scale_applied: float = 1.0  # factor by which verify_and_scale multiplied the covariance

    @property
    def dim(self) -> int:
        return self.basis.shape[0]

    @property
    def gap(self) -> float:
        return self.primal_unit / self.dual_unit - 1.0 if np.isfinite(self.dual_unit) else float("nan")

    def covariance(self, gamma: float) -> np.ndarray:
        return self.basis @ self.cov_unit @ self.basis.T / gamma

    def trace(self, gamma: float) -> float:
        return float(np.trace(self.cov_unit)) / gamma

    def scaled(self, factor: float) -> CentroidNoiseDesign:
        """The design for shifts scaled by ``factor``: eq. (15) is homogeneous (u -> f u maps a feasible
        precision Gamma to Gamma / f^2 with the same objective ratio), so the covariance scales by f^2."""
        if not (math.isfinite(factor) and factor > 0):
            raise ValueError(f"scale factor must be positive and finite, got {factor!r}")
        f2 = factor * factor
        return CentroidNoiseDesign(
            self.basis,
            self.cov_unit * f2,
            self.method,
            self.primal_unit * f2,
            self.dual_unit * f2,
            self.n_iter,
            self.scale_applied,
        )

    def precision_unit(self) -> np.ndarray:
        return np.linalg.inv(self.cov_unit)

    def mahalanobis_sq(self, shifts: np.ndarray, gamma: float = 1.0) -> np.ndarray:
        """u_p' Gamma u_p for every row of ``shifts`` (Gamma = gamma * precision in the span).

        Shifts with a component outside the span get +inf (the design cannot hide them).
        """
        V = shifts @ self.basis
        resid = np.linalg.norm(shifts - V @ self.basis.T, axis=1)
        scale = np.maximum(np.linalg.norm(shifts, axis=1), 1e-300)
        q = gamma * np.einsum("ij,jk,ik->i", V, self.precision_unit(), V)
        return np.where(resid / scale > 1e-8, np.inf, q)

    def sample(self, rng: np.random.Generator, gamma: float, size: int | None = None) -> np.ndarray:
        """Noise vectors eta ~ N(0, covariance(gamma)) (shape (n,) or (size, n))."""
        w, V = np.linalg.eigh(self.cov_unit)
        A = V * np.sqrt(np.maximum(w, 0.0))
        m = 1 if size is None else size
        z = rng.standard_normal((m, A.shape[1]))
        eta = (z @ A.T) @ self.basis.T / math.sqrt(gamma)
        return eta[0] if size is None else eta


def _span(shifts: np.ndarray, rtol: float = 1e-10):
    U = np.asarray(shifts, dtype=float)
    norms = np.linalg.norm(U, axis=1)
    keep = norms > rtol * max(norms.max(), 1e-300)
    _, s, Vt = np.linalg.svd(U[keep], full_matrices=False)
    r = int((s > rtol * s[0]).sum())
    return Vt[:r].T, keep


def white_noise_design(shifts: np.ndarray) -> CentroidNoiseDesign:
    """Theorem 2: isotropic noise; at gamma_c = 1, sigma^2 = Delta_c^2 (full space)."""
    U = np.asarray(shifts, dtype=float)
    n = U.shape[1]
    dc2 = float((U**2).sum(1).max())
    return CentroidNoiseDesign(np.eye(n), dc2 * np.eye(n), "white", primal_unit=dc2 * n)


@dataclass(frozen=True)
class _SupportGroup:
    """Shifts that are non-zero on the same columns: their coordinates there (rows x cols) and row indices."""

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray


def _support_groups(U: np.ndarray, max_groups: int = 256) -> list[_SupportGroup]:
    """Group the rows of ``U`` by their non-zero columns (the block-sparse structure of the leave-one-out shifts).

    A removal that relabels no other point moves one centroid only, so its shift is non-zero in one block of d
    coordinates (:mod:`dpgrid.mechanisms.kmeans_sensitivity`); removals that relabel points touch a few blocks.
    Supports wider than half the columns, and the smallest groups beyond ``max_groups``, are kept dense (all
    columns) so the number of groups stays bounded.
    """
    m, n = U.shape
    mask = U != 0.0
    patterns, inverse = np.unique(mask, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    sizes = np.bincount(inverse, minlength=len(patterns))
    order = np.argsort(-sizes, kind="stable")
    sparse, dense_rows = [], []
    for rank, g in enumerate(order):
        rows = np.flatnonzero(inverse == g)
        cols = np.flatnonzero(patterns[g])
        if len(cols) > n // 2 or rank >= max_groups - 1:
            dense_rows.append(rows)
        elif len(cols):
            sparse.append(_SupportGroup(rows, cols, np.ascontiguousarray(U[np.ix_(rows, cols)])))
    if dense_rows:
        rows = np.sort(np.concatenate(dense_rows))
        sparse.append(_SupportGroup(rows, np.arange(n), np.ascontiguousarray(U[rows])))
    return sparse


def optimal_colored_design(shifts: np.ndarray, *, tol: float = 1e-3, max_iter: int = 20000) -> CentroidNoiseDesign:
    """Solve eq. (15) through its dual (see module doc); the result is verified and feasible.

    Block-sparse accumulation: R_w = sum_p w_p u_p u_p' and the values u_p' R_w^{-1/2} u_p are
    accumulated over groups of shifts with the same non-zero columns (:func:`_support_groups`; a shift of a
    removal that relabels nothing is non-zero in one centroid's d coordinates), so an iteration costs
    O(P d^2 + (K d)^3) instead of O(P (K d)^2). The iteration is the same as in the span coordinates Q of the
    shifts (R in the span = Q' R_w Q); only the order of the floating-point sums differs.
    """
    U = np.asarray(shifts, dtype=float)
    Q, keep = _span(U)
    Ua = U[keep]
    groups = _support_groups(Ua)
    m, n = Ua.shape
    # start from w ~ ||u||^2 (the optimum when the shifts are mutually orthogonal)
    w = (Ua**2).sum(1)
    w /= w.sum()
    dvals = np.empty(m)
    it = 0
    ratio = np.inf
    for it in range(1, max_iter + 1):  # noqa: B007 (the count is reported after the loop)
        Rfull = np.zeros((n, n))
        for g in groups:
            Rfull[np.ix_(g.cols, g.cols)] += (g.values * w[g.rows, None]).T @ g.values
        R = Q.T @ Rfull @ Q
        s, E = np.linalg.eigh(R)
        # relative eigenvalue floor: keeps R^{-1/2} finite; feasibility is re-verified exactly below
        s = np.maximum(s, s.max() * 1e-14)
        f = float(np.sqrt(s).sum())
        G = Q @ (E * s**-0.25)
        S = G @ G.T  # Q R^{-1/2} Q' in the original coordinates
        for g in groups:
            dvals[g.rows] = ((g.values @ S[np.ix_(g.cols, g.cols)]) * g.values).sum(1)  # u' R^{-1/2} u
        ratio = float(dvals.max() / f)
        if ratio - 1.0 < tol:
            break
        w = w * dvals / f
        w /= w.sum()
    else:
        LOG.warning("colored-noise solver stopped at max_iter=%d with optimality gap %.3g", max_iter, ratio - 1)
    # Primal: Gamma = R^{-1/2} / max(dvals)  (feasible with gamma_c = 1); covariance = its inverse.
    cov = (E * (np.sqrt(s) * dvals.max())) @ E.T
    design = CentroidNoiseDesign(Q, cov, "colored_dual", primal_unit=float(np.trace(cov)), dual_unit=f * f, n_iter=it)
    return verify_and_scale(design, shifts)


def lemma2_closed_form(active_shifts: np.ndarray, gamma: float = 1.0) -> np.ndarray:
    """Eq. (16)-(18) literally: Gamma* = R_{lambda*}^{-1/2}, lambda_i = v_i^{-2}, v = gamma M^{-1} 1,
    M_ij = [C*]_ij^2, with C* (n x n) the active shifts as columns.  Returns the precision Gamma.

    Only defined when the active set is square and M is invertible (the lemma's assumptions);
    the result must be passed through :func:`verify_and_scale` (or checked) before use.
    """
    Cs = np.asarray(active_shifts, dtype=float).T  # columns = shifts
    if Cs.shape[0] != Cs.shape[1]:
        raise ValueError(f"Lemma 2 needs as many active shifts as dimensions, got C* of shape {Cs.shape}")
    M = Cs**2
    v = gamma * np.linalg.solve(M, np.ones(M.shape[0]))
    if np.any(v <= 0):
        raise ValueError("Lemma 2: v = gamma M^{-1} 1 has non-positive entries; its assumptions fail here")
    lam = v**-2.0
    R = (Cs * lam) @ Cs.T
    s, E = np.linalg.eigh(R)
    if s.min() <= 0:
        raise ValueError("Lemma 2: R_lambda is singular")
    return (E * s**-0.5) @ E.T


def design_from_precision(precision: np.ndarray, method: str) -> CentroidNoiseDesign:
    n = precision.shape[0]
    cov = np.linalg.inv(precision)
    return CentroidNoiseDesign(np.eye(n), cov, method, primal_unit=float(np.trace(cov)))


def svd_sampled_covariance(cov: np.ndarray) -> np.ndarray:
    """The covariance of the draws numpy's ``multivariate_normal`` makes from ``cov`` (``RandomState`` and
    ``Generator(method="svd")``): it factors cov = U diag(s) V by an SVD and draws z diag(sqrt s) V, so the
    draws have covariance V' diag(s) V -- ``cov`` itself when it is positive semi-definite, |cov| (negative
    round-off eigenvalues made positive) for a symmetric ``cov`` that is not.  Use it to account for noise
    another implementation drew with numpy from a covariance it computed."""
    C = np.asarray(cov, dtype=float)
    _, s, vt = np.linalg.svd(C)
    return (vt.T * s) @ vt


def design_from_covariance(
    cov: np.ndarray, shifts: np.ndarray, method: str, *, rtol: float = 1e-12
) -> CentroidNoiseDesign:
    """Any Gaussian centroid noise N(0, ``cov``) (Kd x Kd, e.g. another implementation's), seen in the span of the shifts.

    The returned design has ``basis`` @ ``cov_unit`` = the covariance of the noise projected onto the span of the
    leave-one-out shifts (eigenvectors of Q' cov Q, Q from an SVD of the shifts); ``primal_unit`` is tr(cov) of
    the full noise.  Projecting the released centroids onto that span is post-processing, so
    ``mahalanobis_sq(shifts, 1.0)`` is a *lower bound* on u_p' cov^+ u_p, the squared Mahalanobis sensitivity of
    the full mechanism (eq. 14) -- and equal to it when the range of ``cov`` lies in the span (the colored
    design) or ``cov`` is isotropic (white noise).  Directions of the span whose projected variance is below
    ``rtol`` times the largest are treated as noise-free: a shift with a component there gets +inf.
    """
    C = np.asarray(cov, dtype=float)
    U = np.asarray(shifts, dtype=float)
    if C.ndim != 2 or C.shape != (U.shape[1], U.shape[1]):
        raise ValueError(f"{method}: covariance of shape {C.shape} for shifts of dimension {U.shape[1]}")
    if not np.all(np.isfinite(C)):
        raise ValueError(f"{method}: covariance has non-finite entries")
    Q, _ = _span(U)
    S = Q.T @ C @ Q
    w, E = np.linalg.eigh(0.5 * (S + S.T))
    keep = w > rtol * max(float(w.max()), 0.0)
    if not keep.any():
        raise ValueError(f"{method}: the covariance has no variance in the span of the leave-one-out shifts")
    return CentroidNoiseDesign(Q @ E[:, keep], np.diag(w[keep]), method, primal_unit=float(np.trace(C)))


def eq15_feasibility(q: np.ndarray, gamma: float, eps: float, delta: float, *, rtol: float = 1e-9) -> dict:
    """How a noise design meets eq. (15) and what it guarantees at a stated budget.

    ``q`` are the values u_p' Gamma u_p of the noise actually applied (one per leave-one-out shift, e.g.
    :meth:`CentroidNoiseDesign.mahalanobis_sq` of the design at its gamma), ``gamma`` the gamma_c the
    constraints are checked against.  Returns the number of shifts and of violated constraints
    (u' Gamma u > gamma (1 + rtol)), ``max_ratio`` = max_p u_p' Gamma u_p / gamma, the Mahalanobis
    sensitivity Delta = sqrt(max_p u_p' Gamma u_p), the exact tail ``exact_delta`` = Pr(L > eps) of the worst
    pair at ``eps`` (:func:`dpgrid.privacy.gaussian.pdp_delta`) and ``eps_at_delta``, the smallest eps with
    Pr(L > eps) <= ``delta`` (:func:`dpgrid.privacy.gaussian.pdp_epsilon`).
    """
    q = np.asarray(q, dtype=float)
    if q.ndim != 1 or not len(q) or np.any(q < 0) or np.any(np.isnan(q)):
        raise ValueError(f"need a non-empty vector of u'Gamma u >= 0, got {q!r}")
    if not gamma > 0:
        raise ValueError(f"need gamma > 0, got {gamma!r}")
    qmax = float(q.max())
    D = math.sqrt(qmax)
    return {
        "n_shifts": len(q),
        "n_violated": int((q > gamma * (1.0 + rtol)).sum()),
        "max_ratio": qmax / gamma,
        "mahalanobis_sensitivity": D,
        "exact_delta": float(pdp_delta(eps, D)) if np.isfinite(D) else 1.0,
        "eps_at_delta": float(pdp_epsilon(delta, D)),
    }


def verify_and_scale(design: CentroidNoiseDesign, shifts: np.ndarray, *, rtol: float = 1e-9) -> CentroidNoiseDesign:
    """Check u_p' Gamma u_p <= 1 (gamma_c = 1) for *every* leave-one-out shift; scale if violated.

    If the largest value m exceeds 1, the covariance is multiplied by m (the precision divided by
    m) so that every constraint holds, and the violation is logged.  Raises if some shift lies
    outside the span of the design (no finite scaling can hide it).
    """
    q = design.mahalanobis_sq(np.asarray(shifts, dtype=float), 1.0)
    mx = float(q.max())
    if not np.isfinite(mx):
        raise ValueError("noise design has zero variance along a leave-one-out shift; it cannot be made DP")
    if mx > 1.0 + rtol:
        LOG.warning(
            "%s design violates %d of %d leave-one-out constraints (max u'Gamma u = %.6g gamma_c); "
            "covariance scaled by %.6g",
            design.method,
            int((q > 1 + rtol).sum()),
            len(q),
            mx,
            mx,
        )
        design.cov_unit = design.cov_unit * mx
        design.primal_unit = float(np.trace(design.cov_unit))
        design.scale_applied *= mx
    return design

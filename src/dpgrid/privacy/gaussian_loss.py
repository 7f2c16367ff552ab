"""The privacy-loss random variable of Gaussian queries and its tail delta(eps).

Ramakrishna, Scaglione, Wu, Ravi, Peisert, *Differential Privacy for Class-based Data: A Practical
Gaussian Mechanism* (classdp), Sec. IV.

For a label pair (X, X') with released answers ``q ~ N(mu_X, Sigma_X)`` under X and
``N(mu_X', Sigma_X')`` under X', the privacy loss (eq. 4) is ``L = ln f(q|X) / f(q|X')``.
Proposition 1 (eqs. 28-31) writes it, under X, as a quadratic form of a standard normal vector:

    L = -1/2 ln|Gamma| + 1/2 xi^T (Gamma - I) xi - nu^T Gamma xi + 1/2 nu^T Gamma nu,   xi ~ N(0, I),

with ``U Gamma U^T = Sigma_X^{1/2} Sigma_X'^{-1} Sigma_X^{1/2}`` (eq. 31) and
``nu = U^T Sigma_X^{-1/2} (mu_X' - mu_X)`` (eq. 30). Since Gamma is diagonal, L is a sum of
independent terms ``a_j xi_j^2 + b_j xi_j`` plus a constant (a generalised chi-square variable)
with ``a_j = (gamma_j - 1)/2``, ``b_j = -gamma_j nu_j``.

The PDP delta of the pair at eps is ``Pr(L > eps)`` under X (Definition 1 after eq. 7); the
mechanism's delta is its supremum over the directed edges of the neighbourhood graph.

Evaluators
----------
* :func:`delta_exact` - numerical inversion of the characteristic function (Gil-Pelaez /
  Imhof 1961): ``Pr(Z > x) = 1/2 + 1/pi int_0^inf Im[e^{-iux} phi(u)] / u du``. Primary method: a
  vectorised composite Gauss-Legendre rule on ``[0, T]`` (all eps at once) and, where the
  characteristic function decays slowly (few quadratic terms), the oscillatory tail ``[T, inf)``
  with QUADPACK's Fourier-integral routine (QAWF, ``scipy.integrate.quad(weight='cos'/'sin')``);
  T from an explicit bound on the tail of ``|phi(u)|/u``. Fallback (when the primary plan exceeds
  the work cap or its error estimate exceeds tol: nearly equal covariances, nearly degenerate L,
  quadratic terms of very different sizes): Chernoff screening of far eps, Corollary 1 when L is
  Gaussian, panels up to a T from the complete tail bound :func:`_cf_tail_bound`, QUADPACK QAWO
  blocks and QAWF beyond. Both report an error estimate per eps, to which the effects of the rounding in
  :func:`privacy_loss` and of zeroing tiny quadratic terms are added (:func:`_perturbation_error`); above tol
  :class:`DeltaAccuracyError` is raised (or, non-strict, the estimate is returned: :func:`delta_exact_with_error`).
  Every choice (standardisation, panels, method) is made per eps: the value at an eps does not depend on the
  other eps of the call.
* :func:`delta_monte_carlo` - sampling xi.
* :func:`delta_closed_form` - Corollary 1 (eq. 33), equal covariances.
* :func:`chernoff_bound` - Lemma 1 (eq. 34), minimised over s; :func:`chernoff_bound_at` for a
  given s; :func:`gaussian_sensitivity` and :func:`corollary3_trend` (eqs. 37-38).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpgrid.privacy.gaussian import pdp_delta

__all__ = [
    "GaussianPrivacyLoss",
    "privacy_loss",
    "log_likelihood_ratio",
    "delta_exact",
    "delta_exact_with_error",
    "DeltaAccuracyError",
    "delta_monte_carlo",
    "delta_closed_form",
    "chernoff_bound",
    "chernoff_bound_at",
    "chernoff_bound_grid",
    "gaussian_sensitivity",
    "corollary3_trend",
    "EdgeTailCache",
    "hockey_stick_upper_bound",
    "EdgeDelta",
    "delta_sup_over_edges",
    "hockey_stick_pair",
    "HockeyStickSup",
    "hockey_stick_sup_over_edges",
]

# Gauss-Legendre nodes on [0, 1] for the panels of the inversion integral.
_GL_N = 16
_GL_X, _GL_W = np.polynomial.legendre.leggauss(_GL_N)
_GL_X = 0.5 * (_GL_X + 1.0)
_GL_W = 0.5 * _GL_W
#: |a_j| (standardised) below which a quadratic term is treated as linear: it moves L by less
#: than 1e-10 xi^2, far below the 1e-6 accuracy target.
_A_TINY = 1e-10
#: work cap of :func:`delta_exact`: Gauss-Legendre points of the fallback per eps; the primary method is used
#: for an eps only when its points x max(k, _MIN_COLUMNS) are at most this.
_MAX_POINTS = 2**22
#: the primary method's work per eps is charged at least this many columns (the old cap charged max(k, number
#: of eps), 12 eps on the classdp grids): for k = 1, 2 it would otherwise take up to 2^21 points per eps (seconds
#: per eps for the nearly degenerate pairs that the fallback screens or inverts in milliseconds)
_MIN_COLUMNS = 16
#: complex numbers per chunk of the fallback's panel sums (16 MiB).
_CHUNK = 2**20
#: unit roundoff of float64
_U = 2.0**-53
#: the coupling bounds of :func:`_perturbation_error` give up events of probability e^{-_COUPLING_X} (4e-18)
_COUPLING_X = 40.0


def _ROUNDING_UNITS(k: int) -> float:  # noqa: N802 - a constant of the rounding model, as a function of k
    """Units of roundoff per condition number in :func:`privacy_loss`'s backward error: 2(k + 1)."""
    return 2.0 * (k + 1)


@dataclass(frozen=True)
class GaussianPrivacyLoss:
    """``L = const + sum_j a_j xi_j^2 + b_j xi_j`` with xi ~ N(0, I): Proposition 1, eq. (29).

    ``gamma`` are the eigenvalues of eq. (31) (descending) and ``nu`` the vector of eq. (30).
    """

    gamma: np.ndarray
    nu: np.ndarray
    #: backward errors of the computation of (gamma, nu) from a pair (:func:`privacy_loss`): the values are exact
    #: for the pair N(mu_X, Sigma_X^{1/2}(I + F)Sigma_X^{1/2}) vs N(mu_X' + e, Sigma_X'^{1/2}(I + F')Sigma_X'^{1/2})
    #: with ||F|| <= eta_x, ||F'|| <= eta_xp, ||Sigma_X'^{-1/2} e|| <= mean_rounding. 0 (default): (gamma, nu) are
    #: exact, as when given directly. :func:`delta_exact_with_error` adds their effect to its error estimate.
    eta_x: float = 0.0
    eta_xp: float = 0.0
    mean_rounding: float = 0.0

    def __post_init__(self) -> None:
        g = np.asarray(self.gamma, dtype=float)
        n = np.asarray(self.nu, dtype=float)
        if g.ndim != 1 or n.shape != g.shape:
            raise ValueError(f"gamma and nu must be vectors of one length, got {g.shape} and {n.shape}")
        if not (np.all(np.isfinite(g)) and np.all(g > 0) and np.all(np.isfinite(n))):
            raise ValueError(f"gamma must be positive and finite and nu finite; gamma={g}, nu={n}")
        for name in ("eta_x", "eta_xp", "mean_rounding"):
            v = getattr(self, name)
            if not (v >= 0.0):
                raise ValueError(f"GaussianPrivacyLoss.{name} must be >= 0, got {v!r}")
        object.__setattr__(self, "gamma", g)
        object.__setattr__(self, "nu", n)

    @property
    def k(self) -> int:
        return self.gamma.size

    @property
    def a(self) -> np.ndarray:
        """Coefficients of xi_j^2: (gamma_j - 1)/2."""
        return 0.5 * (self.gamma - 1.0)

    @property
    def b(self) -> np.ndarray:
        """Coefficients of xi_j: -gamma_j nu_j."""
        return -self.gamma * self.nu

    @property
    def c(self) -> float:
        """Constant: -1/2 ln|Gamma| + 1/2 nu^T Gamma nu."""
        return float(-0.5 * np.sum(np.log(self.gamma)) + 0.5 * np.sum(self.gamma * self.nu**2))

    @property
    def mean(self) -> float:
        """E[L] under X = KL(f_X || f_X')."""
        return self.c + float(np.sum(self.a))

    @property
    def var(self) -> float:
        return float(np.sum(2.0 * self.a**2 + self.b**2))

    @property
    def surrogate(self) -> float:
        """nu^T Gamma nu - ln|Gamma|, the surrogate metric of eq. (41) (twice the Gaussian sensitivity term)."""
        return float(np.sum(self.gamma * self.nu**2) - np.sum(np.log(self.gamma)))

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` draws of L under X (via xi, eq. 29)."""
        xi = rng.standard_normal((n, self.k))
        return self.c + xi**2 @ self.a + xi @ self.b

    def log_mgf(self, theta: np.ndarray) -> np.ndarray:
        """ln E[exp(theta L)] for theta with 1 - 2 theta a_j > 0 (inf elsewhere)."""
        theta = np.asarray(theta, dtype=float)
        d = 1.0 - 2.0 * theta[..., None] * self.a
        with np.errstate(divide="ignore", invalid="ignore"):
            val = (
                theta * self.c
                - 0.5 * np.sum(np.log(d), axis=-1)
                + np.sum(theta[..., None] ** 2 * self.b**2 / (2.0 * d), axis=-1)
            )
        return np.where(np.all(d > 0, axis=-1), val, np.inf)


def _sym(a: np.ndarray) -> np.ndarray:
    return 0.5 * (a + a.T)


def privacy_loss(mu_x: np.ndarray, cov_x: np.ndarray, mu_xp: np.ndarray, cov_xp: np.ndarray) -> GaussianPrivacyLoss:
    """The privacy loss L_{XX'} of Proposition 1 (eqs. 28-31) for N(mu_x, cov_x) vs N(mu_xp, cov_xp).

    Any square root of Sigma_X gives the same distribution of L; a Cholesky factor R (R R^T =
    Sigma_X) is used: eq. (31) becomes the eigen-decomposition of R^T Sigma_X'^{-1} R.
    """
    from scipy import linalg

    mu_x, mu_xp = np.asarray(mu_x, float), np.asarray(mu_xp, float)
    cov_x, cov_xp = _sym(np.asarray(cov_x, float)), _sym(np.asarray(cov_xp, float))
    k = mu_x.size
    if mu_xp.shape != (k,) or cov_x.shape != (k, k) or cov_xp.shape != (k, k):
        raise ValueError(f"inconsistent shapes: mu {mu_x.shape}, {mu_xp.shape}; cov {cov_x.shape}, {cov_xp.shape}")
    try:
        r = linalg.cholesky(cov_x, lower=True)
        rp = linalg.cholesky(cov_xp, lower=True)
    except linalg.LinAlgError as exc:
        raise ValueError(f"covariances must be positive definite: {exc}") from None
    w = linalg.solve_triangular(rp, r, lower=True)  # W = Rp^{-1} R, W^T W = R^T Sigma_X'^{-1} R
    # eq. (31) from the SVD W = P diag(s) V^T: Gamma = diag(s^2), U = V. Unlike eigh(W^T W) it keeps the small
    # gamma to relative accuracy ~ u sqrt(cond(M)) instead of u cond(M) (no squaring of W)
    _, sv, vt = linalg.svd(w)
    gamma, u = sv**2, vt.T  # descending
    d = mu_xp - mu_x
    m = linalg.solve_triangular(r, d, lower=True)
    nu = u.T @ m
    # rounding (first-order backward errors, Higham 2002 Thms 8.5 and 10.3; SVD: W + dW with |dW| ~ k u |W|):
    # Cholesky and the triangular solves perturb Sigma_X, Sigma_X' by a relative k u cond(.); the SVD's dW is
    # R's perturbation Rp dW, relative g = k u sqrt(cond(M)), which also moves m = R^{-1} d by g |m|
    lam = linalg.eigvalsh(cov_x)
    lamp = linalg.eigvalsh(cov_xp)
    units = _ROUNDING_UNITS(k) * _U
    g = units * math.sqrt(_cond(gamma))
    eta_x = units * _cond(lam) + 2.0 * g + g * g
    eta_xp = units * _cond(lamp)
    mean_rounding = _U * float(np.linalg.norm(d)) / math.sqrt(max(float(lamp.min()), _U * float(lamp.max())))
    mean_rounding += g / max(1.0 - g, 1e-300) * math.sqrt(float(gamma.max())) * float(np.linalg.norm(m))
    return GaussianPrivacyLoss(gamma, nu, eta_x, eta_xp, mean_rounding)


def _cond(lam: np.ndarray) -> float:
    """Condition number of a positive definite matrix from its (computed) eigenvalues; the smallest is taken
    at least k u times the largest (its own absolute rounding error)."""
    hi = float(np.max(lam))
    return hi / max(float(np.min(lam)), lam.size * _U * hi)


def log_likelihood_ratio(q: np.ndarray, mu_x, cov_x, mu_xp, cov_xp) -> np.ndarray:
    """``ln f(q|X) - ln f(q|X')`` (eq. 4) straight from the two Gaussian densities (rows of ``q``).

    Independent of Proposition 1 (scipy's multivariate normal log-density), for audits.
    """
    from scipy import stats

    return stats.multivariate_normal(mu_x, cov_x).logpdf(q) - stats.multivariate_normal(mu_xp, cov_xp).logpdf(q)


# --------------------------------------------------------------------------------------------
# exact tail by characteristic-function inversion


def _standardised(loss: GaussianPrivacyLoss):
    """(a, b, c, mean, sd) of Z = (L - mean)/sd, with negligible a_j set to 0."""
    mean, sd = loss.mean, math.sqrt(loss.var)
    a, b = loss.a / sd, loss.b / sd
    zeroed = np.abs(a) < _A_TINY
    # a zeroed term a_j xi_j^2 is replaced by its mean a_j (so E[Z] stays 0); the rest of it, a_j (xi_j^2 - 1), is
    # bounded in the error (:func:`_perturbation_error`)
    c = (loss.c - mean) / sd + float(np.sum(a[zeroed]))
    a = np.where(zeroed, 0.0, a)
    return a, b, c, mean, sd


def _log_cf(u: np.ndarray, a: np.ndarray, b: np.ndarray, c: float) -> np.ndarray:
    """ln E[exp(i u Z)] for Z = c + sum a_j xi_j^2 + b_j xi_j (principal branch is continuous)."""
    z = 1.0 - 2j * u[:, None] * a[None, :]
    return 1j * u * c + np.sum(-0.5 * np.log(z) - (b**2)[None, :] * u[:, None] ** 2 / (2.0 * z), axis=1)


def _abs_tail_bound(T: float, a: np.ndarray, b: np.ndarray) -> float:
    """Upper bound on int_T^inf |phi(u)|/u du (the truncation error of the inversion times pi).

    |phi(u)| = prod_j (1 + 4 a_j^2 u^2)^{-1/4} exp(-sum_j b_j^2 u^2 / (2 (1 + 4 a_j^2 u^2))); the
    exponential is increasing in u's denominator so it is bounded by its value at T, and each factor
    by (2|a_j| u)^{-1/2} for j in S = {j : 2|a_j| T >= 1} (by 1 otherwise).
    """
    gauss = float(np.sum(b**2 * T**2 / (2.0 * (1.0 + 4.0 * a**2 * T**2))))
    sel = 2.0 * np.abs(a) * T >= 1.0
    r = int(np.count_nonzero(sel))
    if r == 0:
        lin = float(np.sum(b[a == 0] ** 2))
        if lin > 0.0:  # pure Gaussian decay from the linear terms
            return math.exp(-lin * T**2 / 2.0) / (lin * T**2)
        return math.inf
    log_c = -0.5 * float(np.sum(np.log(2.0 * np.abs(a[sel]))))
    return math.exp(log_c - gauss - 0.5 * r * math.log(T) + math.log(2.0 / r))


class DeltaAccuracyError(ArithmeticError):
    """:func:`delta_exact` could not bring its error estimate below ``tol`` within its work cap.

    ``delta`` holds the best values found, ``error`` their error estimates (one per eps), ``tol``
    the requested tolerance; a caller that accepts them anyway should record ``error``.
    """

    def __init__(self, message: str, delta: np.ndarray, error: np.ndarray, tol: float):
        super().__init__(message)
        self.delta = delta
        self.error = error
        self.tol = tol


def delta_exact(
    loss: GaussianPrivacyLoss,
    eps: Sequence[float] | float,
    *,
    tol: float = 1e-8,
    t_cap: float = 256.0,
    t_max: float = 8192.0,
    return_error: bool = False,
    max_points: int = _MAX_POINTS,
    strict: bool = True,
):
    """``Pr(L > eps)`` under X, exactly (to ``tol``), for every value of ``eps`` (vectorised).

    Gil-Pelaez inversion of the characteristic function of the generalised chi-square variable
    L (classdp eq. 29; Imhof 1961), by one of two methods:

    * primary (:func:`_primary_plan`, :func:`_primary_eval`): the integral over ``[0, T]`` by
      composite 16-point Gauss-Legendre panels fine enough for the oscillation at that eps (their number
      a power of two, :func:`_panel_count`; the eps sharing a panel count in one matrix product);
      T is the smallest power of two for which the bound :func:`_abs_tail_bound`
      on the discarded tail is below ``tol``. If that needs ``T > t_cap`` (one or two quadratic
      terms, no mean shift), the tail beyond the point where every quadratic term is asymptotic is
      integrated per eps with QUADPACK QAWF after splitting off its asymptotic linear phase.
      Used for an eps when its quadrature points times max(k, 16) are at most ``max_points`` and its bound can
      reach ``tol`` (well-conditioned pairs: everything the classdp pipeline evaluates except pairs with
      quadratic terms of very different sizes);
    * fallback (:func:`_fallback_eval`) for the other eps, or where the primary error estimate exceeds
      ``tol``: Chernoff screening of the eps far in either tail (rigorous 0 or 1), Corollary 1's
      closed form when L is Gaussian, and for the rest panels up to T0 with the complete tail bound
      :func:`_cf_tail_bound` (Gaussian decay of the linear terms included: nearly equal covariances
      with a mean shift end at T0 ~ 8), the remaining range per eps with QUADPACK QAWO blocks
      (terms not yet asymptotic kept in the slowly varying amplitude: ill-conditioned pairs) and
      QAWF beyond the point where all terms are asymptotic. Work is capped by ``max_points``.

    Returns the probabilities (clipped to [0, 1]) and, with ``return_error``, the largest error
    estimate over eps: bounds for the truncation and screening parts, QUADPACK's estimates for the
    oscillatory tails (the Gauss-Legendre panels see at most 1.5 rad of phase, a valid bound on its
    derivative, and of log-amplitude change each, where the 16-point rule's error is negligible), plus
    :func:`_perturbation_error`: the zeroed tiny quadratic terms (|a_j| < 1e-10 of sd(L), replaced by their
    means) and, for a ``loss`` from :func:`privacy_loss`, the rounding of its Cholesky factors, triangular
    solves and SVD (backward errors ~ 2(k + 1) u times the condition numbers of Sigma_X, Sigma_X' and
    sqrt(cond M), carried by the loss). Those are coupling bounds: worst case over perturbations of the stated
    size, so for ill-conditioned pairs (cond ~ 1e5 and more) they can exceed ``tol`` although the values agree
    with higher-precision references far better. A (gamma, nu) given directly is taken as exact.

    With ``strict`` (default) an error estimate above ``tol`` raises :class:`DeltaAccuracyError`;
    with ``strict=False`` the values are returned anyway and the caller must use ``return_error``
    (or :func:`delta_exact_with_error`) and record the estimate.
    """
    p, err, _ = delta_exact_with_error(
        loss, eps, tol=tol, t_cap=t_cap, t_max=t_max, max_points=max_points, strict=strict
    )
    return (p, float(np.max(err))) if return_error else p


def delta_exact_with_error(
    loss: GaussianPrivacyLoss,
    eps,
    *,
    tol: float = 1e-8,
    t_cap: float = 256.0,
    t_max: float = 8192.0,
    max_points: int = _MAX_POINTS,
    strict: bool = False,
):
    """:func:`delta_exact` returning ``(delta, error, method)``: per-eps error estimates and the method used.

    ``method`` is ``'constant'`` (identical distributions), ``'fallback'`` if the fallback evaluated at least one
    eps, else ``'primary'``. Not strict by default: the caller inspects ``error`` against ``tol``. The value and
    the error at each eps are those of a call with that eps alone (up to the order of floating-point summation).
    """
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    if not (tol > 0 and math.isfinite(tol)):
        raise ValueError(f"delta_exact: tol must be positive and finite, got {tol!r}")
    if math.sqrt(loss.var) <= 1e-13 * (1.0 + abs(loss.c)):  # identical distributions: L is constant
        out = (loss.mean > eps_arr + 1e-12 * (1.0 + np.abs(eps_arr))).astype(float)
        # the exact L is within the rounding deviation of this constant (outside an event of prob. e^{-X})
        spread = _rounding_dev(loss, _COUPLING_X) + math.sqrt(loss.var) * 1e3
        near = np.abs(eps_arr - loss.mean) <= spread + 1e-12 * (1.0 + np.abs(eps_arr))
        err = np.where(near, 1.0, math.exp(-_COUPLING_X) if spread > 0.0 else 0.0)
        return out, err, "constant"
    # half of tol for the quadrature, the rest for the rounding and zeroing terms
    p, err, fell_back, std_of = _evaluate(loss, eps_arr, 0.5 * tol, t_cap, t_max, max_points)
    err = err + _perturbation_error(loss, eps_arr, std_of, 0.5 * tol, t_cap, t_max, max_points)
    return _finish(p, err, "fallback" if np.any(fell_back) else "primary", loss, eps_arr, tol, strict)


def _evaluate(loss: GaussianPrivacyLoss, eps_arr: np.ndarray, tol, t_cap, t_max, max_points):
    """Pr(Z' > x) per eps with its quadrature/truncation error: (p, err, fell_back, std_of).

    Every choice is made per eps from that eps alone (grid independence): the standardisation (the plain one,
    or the cancellation-free E[L] of :func:`_standardised_accurate` where they differ by more than 1e-3 tol),
    the primary method's panel count (a power of two, from the phase speed at that eps), whether the primary
    method is within the work cap and meets ``tol``, and the fallback's plan. eps with the same plan are
    evaluated together (one matrix product). ``std_of`` maps each eps to the standardisation used
    (0 plain, 1 accurate); the fallback always uses the accurate one.
    """
    plain = _standardised(loss)
    acc = _standardised_accurate(loss)
    x_plain = (eps_arr - plain[3]) / plain[4]
    x_acc = (eps_arr - acc[3]) / acc[4]
    use_acc = np.maximum(abs(acc[2] - plain[2]), np.abs(x_acc - x_plain)) > 1e-3 * tol
    p = np.full(eps_arr.shape, np.nan)
    err = np.full(eps_arr.shape, math.inf)
    for flag, (a, b, c, _mean, _sd) in ((False, plain), (True, acc)):
        sel = np.flatnonzero(use_acc == flag)
        if sel.size == 0:
            continue
        x = (x_acc if flag else x_plain)[sel]
        T, need_tail, n_base = _primary_plan(a, b, c, tol, t_cap, t_max)
        if not (need_tail or _abs_tail_bound(T, a, b) <= tol * math.pi):
            continue
        n_panels = _panel_count(T, n_base, x, c)
        for n in np.unique(n_panels):
            grp = n_panels == n
            if _GL_N * int(n) * max(loss.k, _MIN_COLUMNS) > max_points:
                continue
            p[sel[grp]], err[sel[grp]] = _primary_eval(a, b, c, x[grp], T, need_tail, int(n))
    fell_back = ~(err <= tol)
    if np.any(fell_back):
        pf, ef = _fallback_eval(loss, eps_arr[fell_back], tol, max_points)
        prim_p, prim_e = p[fell_back], err[fell_back]
        better = ~(ef > prim_e)  # the primary's values stay where both miss tol and the primary less so
        p[fell_back] = np.where(better, pf, prim_p)
        err[fell_back] = np.where(better, ef, prim_e)
        use_acc = use_acc.copy()
        idx = np.flatnonzero(fell_back)
        use_acc[idx[better]] = True
        fell_back[idx[~better]] = False
    return p, err, fell_back, use_acc.astype(int)


def _density_bound(a: np.ndarray, b: np.ndarray) -> float:
    """An upper bound on the density of ``Z = c + sum_j a_j xi_j^2 + b_j xi_j`` (inf if none applies).

    The density of a sum of independent terms is at most that of any sub-sum, and at most
    ``(1/pi) int_0^inf |phi(u)| du``: the linear terms alone, N(0, B), give ``1/sqrt(2 pi B)``; two quadratic
    terms of one sign ``1/(2 sqrt(a_i a_j))`` (an ellipse's area grows at rate pi/sqrt(a_i a_j), the 2-D normal
    density is <= 1/(2 pi)); the r >= 3 largest |a_j| (``|phi| <= (1 + 4 a_(r)^2 u^2)^{-r/4}``)
    ``Gamma(r/4 - 1/2) / (4 sqrt(pi) |a_(r)| Gamma(r/4))``.
    """
    from scipy import special

    out = [math.inf]
    lin = float(np.sum(b[a == 0] ** 2))
    if lin > 0.0:
        out.append(1.0 / math.sqrt(2.0 * math.pi * lin))
    for side in (np.sort(a[a > 0])[::-1], np.sort(-a[a < 0])[::-1]):
        if side.size >= 2:
            out.append(0.5 / math.sqrt(side[0] * side[1]))
    absa = np.sort(np.abs(a[a != 0]))[::-1]
    r = np.arange(3, min(absa.size, 16) + 1)
    if r.size:
        vals = special.gamma(r / 4 - 0.5) / (4.0 * math.sqrt(math.pi) * absa[r - 1] * special.gamma(r / 4))
        out.append(float(np.min(vals)))
    return min(out)


def _density_bound_unzeroed(a0: np.ndarray, b: np.ndarray, zeroed: np.ndarray) -> float:
    """:func:`_density_bound` of Z with the tiny quadratic terms ``zeroed`` kept (coefficients ``a0``).

    Besides the generic bounds: for u <= V = 1/(2 max|a_j|, j zeroed) each zeroed factor of |phi| is at most
    ``exp(-b_j^2 u^2 / 4)`` and beyond V at most ``exp(-b_j^2 V^2 / 4)``, so with B = (linear b^2) + (zeroed
    b^2)/2 the density is at most ``1/sqrt(2 pi B) + (1/pi) e^{-B V^2/2} int_V^inf prod_j (2|a_j| u)^{-1/2} du``.
    """
    out = _density_bound(a0, b)
    if not np.any(zeroed):
        return out
    big = float(np.sum(b[a0 == 0] ** 2)) + 0.5 * float(np.sum(b[zeroed] ** 2))
    absa = np.abs(a0[a0 != 0])
    r = absa.size
    if big > 0.0 and r >= 3:
        v = 0.5 / float(np.max(np.abs(a0[zeroed])))
        log_tail = (
            -0.5 * big * v * v
            - 0.5 * float(np.sum(np.log(2.0 * absa)))
            + (1.0 - 0.5 * r) * math.log(v)
            - math.log(0.5 * r - 1.0)
        )
        out = min(out, 1.0 / math.sqrt(2.0 * math.pi * big) + math.exp(min(log_tail, 700.0)) / math.pi)
    return out


def _zeroing_smooth_bound(a_z: np.ndarray, b_z: np.ndarray) -> float:
    """Bound on ``|Pr(Z > x) - Pr(Z' > x)|`` (every x) when Z' has the terms ``a_j xi_j^2`` (|a_j| tiny) of Z
    replaced by their means a_j; from the characteristic functions (Gil-Pelaez):
    ``<= (1/pi) int_0^inf |phi_Z'(u)| |R(u) - 1| / u du`` with ``R = phi_Z / phi_Z'`` =
    ``prod_j (1 - 2iua_j)^{-1/2} e^{-iua_j} exp(-i a_j b_j^2 u^3 / (1 - 2iua_j))``, so for ``2u|a_j| <= 1/2``
    ``|ln R| <= rho(u) = alpha u^2 + beta u^3`` (alpha = 2 sum a_j^2, beta = sum |a_j| b_j^2) and
    ``|R - 1| <= rho e^rho``. With ``|phi_Z'| <= e^{-B u^2/2}`` (B = sum b_j^2 of these terms) and rho <= B u^2/4
    up to U: ``int_0^U <= 2 alpha/B + 2 sqrt(pi) beta / B^{3/2}``; beyond U both characteristic functions are
    bounded by their Gaussian factors (at most ``e^{-0.4 B U^2}`` for Z) and algebraic decay. inf if B <= 4 alpha.
    """
    from scipy import special

    big = float(np.sum(b_z**2))
    alpha = 2.0 * float(np.sum(a_z**2))
    beta = float(np.sum(np.abs(a_z) * b_z**2))
    amax = float(np.max(np.abs(a_z)))
    if not big > 4.0 * alpha:
        return math.inf
    U = 0.25 / amax
    if beta > 0.0:
        U = min(U, (0.25 * big - alpha) / beta)
    low = 2.0 * alpha / big + 2.0 * math.sqrt(math.pi) * beta / big**1.5
    z = 0.5 * big * U * U
    tail_zp = 0.5 * float(special.exp1(z)) if z < 700.0 else 0.0
    tail_z = 2.0 / math.sqrt(2.0 * amax * U) * math.exp(-min(0.4 * big * U * U, 745.0))
    return (low + tail_zp + tail_z) / math.pi


def _window_bound(a: np.ndarray, b: np.ndarray, s: float) -> float:
    """Upper bound on ``sup_x Pr(|Z - x| <= s)`` for ``Z = c + sum_j a_j xi_j^2 + b_j xi_j``.

    Levy's inversion: ``Pr(x - s < Z < x + s) = (1/pi) int_0^inf Re[e^{-iux} phi(u)] 2 sin(us)/u du``, so it is at
    most ``(2/pi) int_0^inf |phi(u)| min(s, 1/u) du``. ``|phi(u)| = prod_j (1 + 4 a_j^2 u^2)^{-1/4}
    exp(-b_j^2 u^2 / (2 (1 + 4 a_j^2 u^2)))`` is non-increasing in u, so the integrand is too and its left
    Riemann sum on a grid (0, 1e-3, then ratio 1.02) is an upper bound; beyond the grid's end U >= 1/s the rest
    is at most ``int_U^inf |phi|/u du`` (:func:`_cf_tail_bound`). Finite whenever some a_j or b_j is nonzero
    (a single quadratic term gives ~ sqrt(s), a linear part ~ s).
    """
    if s <= 0.0:
        return 0.0
    if not (np.any(a) or np.any(b)):
        return 1.0
    end = max(1.0 / s, 8.0)
    while _cf_tail_bound(end, a, b) > 1e-6 * s and end < 1e12:
        end *= 4.0
    u = np.concatenate([[0.0], np.geomspace(1e-3, end, max(2, int(math.log(end / 1e-3) / math.log(1.02)) + 1))])
    z = 4.0 * (u[:, None] * a[None, :]) ** 2
    log_abs = np.sum(-0.25 * np.log1p(z) - (b**2)[None, :] * u[:, None] ** 2 / (2.0 * (1.0 + z)), axis=1)
    with np.errstate(divide="ignore"):
        h = np.exp(log_abs) * np.minimum(s, 1.0 / u)
    total = float(np.sum(h[:-1] * np.diff(u))) + _cf_tail_bound(end, a, b)
    return min(1.0, 2.0 / math.pi * total)


def _tail_one(a: float, b: float, y: np.ndarray) -> np.ndarray:
    """``Pr(a xi^2 + b xi > y)``, xi ~ N(0, 1), in closed form (stable roots of a t^2 + b t - y)."""
    from scipy import special

    y = np.atleast_1d(np.asarray(y, dtype=float))
    if a == 0.0:
        return special.ndtr(-y / abs(b)) if b != 0.0 else (y < 0).astype(float)
    disc = b * b + 4.0 * a * y
    out = np.full(y.shape, 1.0 if a > 0 else 0.0)
    ok = disc > 0
    sq = np.sqrt(disc[ok])
    q = -0.5 * (b + math.copysign(1.0, b) * sq) if b != 0.0 else -0.5 * sq
    r1, r2 = q / a, -y[ok] / q
    lo, hi = np.minimum(r1, r2), np.maximum(r1, r2)
    inside = special.ndtr(hi) - special.ndtr(lo)
    out[ok] = 1.0 - inside if a > 0 else inside
    return out


def _weighted_chi2_dev(w: np.ndarray, x: float) -> float:
    """t with ``Pr(|sum_j w_j (xi_j^2 - 1)| > t) <= 4 e^{-x}`` (Laurent and Massart 2000, Lemma 1, applied to the
    positive and the negative weights: each part exceeds ``2 |w|_2 sqrt(x) + 2 |w|_inf x`` with probability
    at most 2 e^{-x})."""
    t = 0.0
    for part in (w[w > 0], -w[w < 0]):
        if part.size:
            t += 2.0 * float(np.linalg.norm(part)) * math.sqrt(x) + 2.0 * float(np.max(part)) * x
    return t


def _rounding_dev(loss: GaussianPrivacyLoss, x: float) -> float:
    """t (in units of L) with ``|L - L~| <= t`` outside an event of probability e^{-x}, where L is the privacy
    loss of the exact pair and L~ that of the pair for which the computed (gamma, nu) are exact
    (``loss.eta_x``, ``loss.eta_xp``, ``loss.mean_rounding``), coupled through the same standard normal z.

    With q = mu + Sigma^{1/2} z, Sigma~ = Sigma^{1/2}(I + F)Sigma^{1/2}, Sigma~' = Sigma'^{1/2}(I + F')Sigma'^{1/2}
    and v = Sigma'^{-1/2}(Sigma^{1/2} z - d): ``2(L~ - L) = -ln|I + F| + ln|I + F'| + |H(v + dv)|^2 - |v|^2``,
    H = (I + F')^{-1/2}, ``dv = Sigma'^{-1/2}(Sigma^{1/2}((I + F)^{1/2} - I) z - e)``. So
    ``2|L~ - L| <= k(eta/(1 - eta) + eta'/(1 - eta')) + eta'/(1 - eta') (V + r)^2 + 2 V r + r^2`` with
    ``|v| <= V = sqrt(g) |z| + sqrt(nu^T Gamma nu)``, ``|dv| <= r = sqrt(g) eta |z| + mean_rounding``,
    g = gamma_max, and ``|z|^2 <= k + 2 sqrt(k x) + 2 x`` (Laurent and Massart 2000).
    """
    e1, e2 = loss.eta_x, loss.eta_xp
    if e1 == 0.0 and e2 == 0.0 and loss.mean_rounding == 0.0:
        return 0.0
    if e1 >= 0.5 or e2 >= 0.5:
        return math.inf
    k = loss.k
    infl = (1.0 + e1) / (1.0 - e2)  # the exact gamma are within this factor of the computed ones
    g = float(loss.gamma.max()) * infl
    m = math.sqrt(float(np.sum(loss.gamma * loss.nu**2)) * infl)
    zb = math.sqrt(k + 2.0 * math.sqrt(k * x) + 2.0 * x)
    v = math.sqrt(g) * zb + m
    r = math.sqrt(g) * e1 * zb + loss.mean_rounding
    f2 = e2 / (1.0 - e2)
    return 0.5 * (k * (e1 / (1.0 - e1) + f2) + f2 * (v + r) ** 2 + 2.0 * v * r + r * r)


def _perturbation_error(loss, eps_arr, std_of, tol, t_cap, t_max, max_points) -> np.ndarray:
    """Per-eps bound on ``|Pr(L > eps) - Pr(Z' > x)|`` beyond the quadrature error of Pr(Z' > x), where L is the
    privacy loss of the exact pair and Z' the standardised variable that is inverted:

    * rounding in :func:`privacy_loss` (``loss.eta_x`` etc.): with the coupling of :func:`_rounding_dev`,
      ``|Pr(L > eps) - Pr(L~ > eps)| <= Pr(|L - L~| > t) + Pr(|L~ - eps| <= t)``;
    * zeroing the quadratic terms below ``_A_TINY`` (replaced by their means): :func:`_zeroing_smooth_bound`,
      or the coupling ``Pr(|W| > t_z) + Pr(|Z' - x| <= t_z)`` with W their remainder (:func:`_weighted_chi2_dev`).

    ``Pr(|Y - x| <= t)`` is at most 2 t times a density bound (:func:`_density_bound`); where that is not small
    enough (no bounded density: one or two quadratic terms), it is ``Pr(Z' > x - s) - Pr(Z' > x + s)`` plus their
    error estimates, evaluated (s = t + t_z). Everything depends on the eps itself only.
    """
    X = _COUPLING_X
    p_out = math.exp(-X)
    out = np.zeros(eps_arr.shape)
    t_round = _rounding_dev(loss, X)
    for flag, std in ((0, _standardised), (1, _standardised_accurate)):
        sel = np.flatnonzero(std_of == flag)
        if sel.size == 0:
            continue
        a, b, c, mean, sd = std(loss)
        a0 = loss.a / sd
        zeroed = (a == 0) & (a0 != 0)
        x = (eps_arr[sel] - mean) / sd
        t_r = t_round / sd
        t_z = _weighted_chi2_dev(a0[zeroed], X) if np.any(zeroed) else 0.0
        s = t_r + t_z
        # Pr(|Z~ - x| <= t_r) and Pr(|Z' - x| <= s), first from density bounds (cheap), where not small enough
        # from Chernoff bounds on both sides (far eps) and the window bound (exact for k = 1)
        dens = _density_bound(a, b)
        e_round = np.zeros(sel.size)
        e_zero = np.zeros(sel.size)
        if t_r > 0.0:  # Z~ with the tiny terms: its own bound or via Z'
            own = 2.0 * t_r * _density_bound_unzeroed(a0, b, zeroed)
            e_round[:] = p_out + min(own, (4.0 * p_out if t_z > 0 else 0.0) + 2.0 * s * dens)
        if t_z > 0.0:
            e_zero[:] = min(_zeroing_smooth_bound(a0[zeroed], b[zeroed]), 4.0 * p_out + 2.0 * t_z * dens)
        need = ~(e_round + e_zero <= 0.125 * tol)
        if np.any(need):
            xs = x[need]
            up, low = _chernoff_tails(a, b, c, xs - s)[0], _chernoff_tails(a, b, c, xs + s)[1]
            near = np.minimum(np.minimum(up, low), _window_bound(a, b, s))
            if a.size == 1:
                near = np.minimum(near, _tail_one(a[0], b[0], xs - s - c) - _tail_one(a[0], b[0], xs + s - c) + 1e-15)
            if t_r > 0.0:
                own_w = _window_bound(a0, b, t_r)
                e_round[need] = np.minimum(
                    e_round[need], p_out + np.minimum(own_w, (4.0 * p_out if t_z > 0 else 0.0) + near)
                )
            if t_z > 0.0:
                e_zero[need] = np.minimum(e_zero[need], 4.0 * p_out + near)
        need = ~(e_round + e_zero <= 0.125 * tol)
        if np.any(need):  # evaluate Pr(|Z' - x| <= s) itself
            e_sel = eps_arr[sel[need]]
            shifted = np.concatenate([e_sel - s * sd, e_sel + s * sd])
            pl, el, _, _ = _evaluate(loss, shifted, tol, t_cap, t_max, max_points)
            n = e_sel.size
            loc = np.maximum(pl[:n] - pl[n:], 0.0) + el[:n] + el[n:] + 2e-3 * tol
            if t_r > 0.0:
                e_round[need] = np.minimum(e_round[need], 5.0 * p_out + loc)
            if t_z > 0.0:
                e_zero[need] = np.minimum(e_zero[need], 4.0 * p_out + loc)
        out[sel] = e_round + e_zero
    return out


def _finish(p, err, method, loss, eps_arr, tol, strict):
    if strict and not np.all(err <= tol):
        bad = ~(err <= tol)
        raise DeltaAccuracyError(
            f"delta_exact ({method}): error estimate {np.max(err):.3g} > tol {tol:g} at eps "
            f"{eps_arr[bad].tolist()} for k = {loss.k}, gamma in [{loss.gamma.min():.6g}, {loss.gamma.max():.6g}], "
            f"|nu| = {np.linalg.norm(loss.nu):.6g} (work cap reached; pass strict=False to accept and record the "
            f"error estimate)",
            p,
            err,
            tol,
        )
    return p, err, method


def _primary_plan(a, b, c, tol, t_cap, t_max):
    """T, whether the QAWF tail is needed, and the eps-free part of the phase speed of the primary method
    (none of them depends on eps)."""
    T = 8.0
    while _abs_tail_bound(T, a, b) > tol * math.pi and T < t_cap:
        T *= 2.0
    need_tail = _abs_tail_bound(T, a, b) > tol * math.pi
    if need_tail:
        anz = np.abs(a[a != 0])
        # QAWF needs the asymptotic regime u >> 1/|2 a_j| (slowly varying amplitude and phase)
        t_asym = 64.0 / (2.0 * anz.min()) if anz.size else math.inf
        if t_asym <= t_max:
            T = max(T, 2.0 ** math.ceil(math.log2(t_asym)))
        else:  # keep doubling; no asymptotic tail available
            while _abs_tail_bound(T, a, b) > tol * math.pi and T < t_max:
                T *= 2.0
            need_tail = False
    base = float(np.sum(np.abs(a))) + float(np.sum(b**2 * np.minimum(T, 1.0 / (2 * np.abs(a) + 1e-300))))
    return T, need_tail, base


def _panel_count(T: float, base_speed: float, x: np.ndarray, c: float) -> np.ndarray:
    """Panels on [0, T] per eps: the phase of e^{-iux} phi(u) turns at most |x - c| + base_speed per unit u
    (|d/du arg| bound); panels of at most 1.5 rad and width <= 1, their number rounded up to a power of two
    (so eps with similar speeds share one plan, and each eps's plan depends on that eps only)."""
    speed = np.abs(x - c) + base_speed
    h = np.minimum(1.0, 1.5 / np.maximum(speed, 1e-12))
    n = np.maximum(1.0, np.ceil(T / h))
    return (2.0 ** np.ceil(np.log2(n))).astype(np.int64)


def _primary_eval(a, b, c, x, T, need_tail, n_panels):
    """The primary method on ``n_panels`` panels of [0, T]: (probabilities, per-eps error estimates)."""

    edges = np.linspace(0.0, T, n_panels + 1)
    widths = np.diff(edges)
    u = (edges[:-1, None] + widths[:, None] * _GL_X[None, :]).ravel()
    w = (widths[:, None] * _GL_W[None, :]).ravel()
    # Im[e^{-iux} phi(u)] / u for every (u, x): chunk over u to bound memory (the log c.f. in sub-chunks
    # of _CHUNK / k points: element by element the same numbers as one call on all of u)
    total = np.zeros_like(x)
    chunk = max(1, 2_000_000 // max(x.size, 1))
    sub = max(1, _CHUNK // max(a.size, 1))
    for s in range(0, u.size, chunk):
        uu, ww = u[s : s + chunk], w[s : s + chunk]
        ll = np.concatenate([_log_cf(uu[t : t + sub], a, b, c) for t in range(0, uu.size, sub)])
        vals = np.imag(np.exp(ll[:, None] - 1j * uu[:, None] * x[None, :])) / uu[:, None]
        total += ww @ vals
    err = np.full(x.shape, _abs_tail_bound(T, a, b) / math.pi)
    if need_tail:
        tail, err = _oscillatory_tail(T, x, a, b, c)
        total += tail
    p = 0.5 + total / math.pi
    p = np.clip(p, 0.0, 1.0)
    return p, err


def _oscillatory_tail(T: float, x: np.ndarray, a: np.ndarray, b: np.ndarray, c: float):
    """int_T^inf sin(theta(u)) / (u rho(u)) du per x, with QUADPACK QAWF.

    theta(u) = Im ln phi(u) - u x = theta_r(u) - omega u with omega = x - c + sum_j b_j^2/(4 a_j)
    (a_j != 0) the asymptotic phase speed; theta_r and rho vary slowly for u >> 1/|a_j|, so
    sin(theta) = sin(theta_r) cos(omega u) - cos(theta_r) sin(omega u) is a Fourier integral.
    """
    from scipy import integrate

    nz = a != 0
    shift = float(np.sum(b[nz] ** 2 / (4.0 * a[nz])))

    def slow_parts(s: float, T0: float):
        u = T0 + s
        lcf = _log_cf(np.array([u]), a, b, c)[0]
        th_r = lcf.imag + (shift - c) * u  # theta(u) + omega u, slowly varying
        return th_r, math.exp(lcf.real) / u

    def amp_sin(s: float, T0: float) -> float:
        th, amp = slow_parts(s, T0)
        return math.sin(th) * amp

    def amp_shift(s: float, T0: float, omega: float, fn) -> float:
        th, amp = slow_parts(s, T0)
        return fn(th - omega * T0) * amp

    out = np.empty_like(x)
    errs = np.empty_like(x)
    for i, xi in enumerate(x):
        omega = xi - c + shift
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", integrate.IntegrationWarning)
            if abs(omega) < 1e-9:
                v, e = integrate.quad(lambda s: amp_sin(s, T), 0.0, np.inf, limit=500)
            else:
                # sin(th_r(u) - omega T - omega s) = sin(p0) cos(|w| s) -+ cos(p0) sin(|w| s)
                w_ = abs(omega)
                sg = 1.0 if omega > 0 else -1.0
                f1 = lambda s_, o=omega: amp_shift(s_, T, o, math.sin)  # noqa: E731
                f2 = lambda s_, o=omega: amp_shift(s_, T, o, math.cos)  # noqa: E731
                i1, e1 = integrate.quad(f1, 0.0, np.inf, weight="cos", wvar=w_, limlst=100)
                i2, e2 = integrate.quad(f2, 0.0, np.inf, weight="sin", wvar=w_, limlst=100)
                v, e = i1 - sg * i2, e1 + e2
        out[i] = v
        # QUADPACK flagged this eps's tail: its estimate is not reliable
        errs[i] = math.inf if any(issubclass(m.category, integrate.IntegrationWarning) for m in caught) else e
    return out, errs / math.pi


# --------------------------------------------------------------------------------------------
# fallback evaluator: near-equal covariances, nearly degenerate L, quadratic terms of many scales


def _x_minus_log1p(d: np.ndarray) -> np.ndarray:
    """``d - ln(1 + d)`` without cancellation for small |d| (power series below 0.05)."""
    d = np.asarray(d, dtype=float)
    small = np.abs(d) < 0.05
    ds = np.where(small, d, 0.0)
    series = np.zeros_like(d)
    term = ds * ds
    for n in range(2, 16):
        series += (1.0 if n % 2 == 0 else -1.0) * term / n
        term = term * ds
    dl = np.where(small, 0.0, d)
    return np.where(small, series, dl - np.log1p(dl))


def _standardised_accurate(loss: GaussianPrivacyLoss):
    """(a, b, c, mean, sd) of Z = (L - mean)/sd like :func:`_standardised`, with E[L] = KL computed
    as 1/2 sum (d_j - ln(1 + d_j)) + 1/2 nu^T Gamma nu, d = gamma - 1 (no cancellation when Gamma ~ I)."""
    g, nu = loss.gamma, loss.nu
    d = g - 1.0
    a_raw, b_raw = 0.5 * d, -g * nu
    sd = math.sqrt(float(np.sum(2.0 * a_raw**2 + b_raw**2)))
    mean = 0.5 * float(np.sum(_x_minus_log1p(d))) + 0.5 * float(np.sum(g * nu**2))
    a, b = a_raw / sd, b_raw / sd
    a = np.where(np.abs(a) < _A_TINY, 0.0, a)
    c = -float(np.sum(a))  # (c_L - E[L]) / sd = -sum_j a_j, zeroed terms replaced by their means a_j
    return a, b, c, mean, sd


def _kgf(theta: np.ndarray, a: np.ndarray, b: np.ndarray, c: float) -> np.ndarray:
    """ln E[e^{theta Z}] (cumulant generating function) for 1 - 2 theta a_j > 0."""
    d = 1.0 - 2.0 * theta[:, None] * a[None, :]
    return theta * c - 0.5 * np.sum(np.log(d), axis=1) + np.sum(theta[:, None] ** 2 * b**2 / (2.0 * d), axis=1)


def _chernoff_tails(a: np.ndarray, b: np.ndarray, c: float, x: np.ndarray):
    """Chernoff bounds ``(up, low)`` with ``Pr(Z > x) <= up`` and ``Pr(Z <= x) <= low`` (Markov's
    inequality on e^{theta Z}, theta > 0 resp. < 0; classdp Lemma 1 is the theta > 0 case), each
    minimised over a fixed grid of theta, so each is a valid bound."""
    frac = np.concatenate([np.geomspace(1e-6, 0.5, 64), 1.0 - np.geomspace(0.5, 1e-12, 64)[1:]])

    def grid(lim: float) -> np.ndarray:
        return lim * frac if math.isfinite(lim) else np.geomspace(1e-6, 1e6, 128)

    apos, aneg = a[a > 0], a[a < 0]
    t_up = grid(0.5 / float(apos.max()) if apos.size else math.inf)
    t_lo = -grid(0.5 / float(-aneg.min()) if aneg.size else math.inf)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        up = np.exp(np.min(_kgf(t_up, a, b, c)[:, None] - t_up[:, None] * x[None, :], axis=0))
        low = np.exp(np.min(_kgf(t_lo, a, b, c)[:, None] - t_lo[:, None] * x[None, :], axis=0))
    return np.minimum(np.nan_to_num(up, nan=1.0), 1.0), np.minimum(np.nan_to_num(low, nan=1.0), 1.0)


def _cf_tail_bound(T: float, a: np.ndarray, b: np.ndarray) -> float:
    """Rigorous upper bound on ``int_T^inf |phi(u)|/u du`` for T > 0, every term included.

    ``|phi(u)| = prod_j (1 + 4 a_j^2 u^2)^{-1/4} exp(-b_j^2 u^2 / (2 (1 + 4 a_j^2 u^2)))``. Each
    exponential factor increases towards its limit in u, so for u >= T it is at most its value at T
    (for a_j = 0 it is exactly exp(-b_j^2 u^2 / 2) and stays in the integral); each algebraic factor is
    at most min(1, (s_j/u)^{1/2}), s_j = 1/(2|a_j|). Two bounds, the smaller returned:
    (i) exp(-G(T)) int_T^inf u^{-1} prod_j min(1, (s_j/u)^{1/2}) du, integrated exactly piecewise between
    the sorted s_j (power laws; finite when some a_j != 0); (ii) when some a_j = 0 with b_j != 0
    (beta0 = sum of their b_j^2): the algebraic part at T times int_T^inf e^{-beta0 u^2/2}/u du =
    E1(beta0 T^2/2)/2. Unlike :func:`_abs_tail_bound` it never ignores the decay contributed by the
    linear (mean-difference) terms, which is what makes nearly equal covariances cheap.
    """
    from scipy import special

    lin = a == 0
    beta0 = float(np.sum(b[lin] ** 2))
    an, bn = np.abs(a[~lin]), b[~lin]
    g_nonlin = float(np.sum(bn**2 * T**2 / (2.0 * (1.0 + 4.0 * an**2 * T**2))))
    logs = []
    if an.size:
        s = np.sort(0.5 / an)
        m = int(np.count_nonzero(s <= T))
        log_c = 0.5 * float(np.sum(np.log(s[:m])))
        lo, total = T, 0.0
        for nxt in list(s[m:]) + [math.inf]:
            if m == 0:
                total += math.log(nxt / lo)
            else:  # int_lo^hi C u^{-1-m/2} du, with C lo^{-m/2} <= 1
                ratio = 0.0 if math.isinf(nxt) else (lo / nxt) ** (0.5 * m)
                total += math.exp(log_c - 0.5 * m * math.log(lo)) * (1.0 - ratio) * 2.0 / m
            if math.isfinite(nxt):
                log_c += 0.5 * math.log(nxt)
                m += 1
                lo = nxt
        logs.append(math.log(total) - g_nonlin - 0.5 * beta0 * T**2 if total > 0 else -math.inf)
    if beta0 > 0.0:
        z = 0.5 * beta0 * T**2
        log_e1 = math.log(special.exp1(z)) if z < 500.0 else -z - math.log(z)  # E1(z) < e^{-z}/z
        log_alg = -0.25 * float(np.sum(np.log1p(4.0 * an**2 * T**2)))
        logs.append(log_alg - g_nonlin + log_e1 - math.log(2.0))
    return math.exp(min(logs)) if logs else math.inf


def _panel_points(T: float, x: float, a: np.ndarray, b: np.ndarray, c: float):
    """(panel width, number of Gauss-Legendre points) on [0, T] for one eps, as in :func:`_panel_count`."""
    base = float(np.sum(np.abs(a))) + float(np.sum(b**2 * np.minimum(T, 1.0 / (2 * np.abs(a) + 1e-300))))
    n = int(_panel_count(T, base, np.array([x]), c)[0])
    return T / n, _GL_N * n


def _panels(T: float, h: float, x: np.ndarray, a: np.ndarray, b: np.ndarray, c: float) -> np.ndarray:
    """int_0^T Im[e^{-iux} phi(u)]/u du for every x, composite Gauss-Legendre, generated in chunks
    (memory bounded by ``_CHUNK`` complex numbers whatever the number of panels)."""
    n_panels = max(1, math.ceil(T / h))
    width = T / n_panels
    per = max(1, _CHUNK // (_GL_N * max(x.size, a.size, 1)))
    total = np.zeros_like(x)
    for p0 in range(0, n_panels, per):
        left = width * np.arange(p0, min(p0 + per, n_panels), dtype=float)
        u = (left[:, None] + width * _GL_X[None, :]).ravel()
        w = np.tile(width * _GL_W, left.size)
        lcf = _log_cf(u, a, b, c)
        total += w @ (np.imag(np.exp(lcf[:, None] - 1j * u[:, None] * x[None, :])) / u[:, None])
    return total


def _quad(f, lo, hi, epsabs, **kw):
    """scipy quad (QUADPACK) returning (value, error estimate); the estimate is inf when QUADPACK reports
    a failure other than round-off (ier = 2, whose estimate is kept; for QAWF: cycles with ier 0 or 2)."""
    from scipy import integrate

    out = integrate.quad(f, lo, hi, epsabs=epsabs, epsrel=0.0, full_output=1, **kw)
    val, err = float(out[0]), float(out[1])
    if len(out) > 3:  # QUADPACK's message: ier != 0
        msg = str(out[3])
        if msg.startswith("Bad integrand behavior occurs within one or more of the cycles"):
            info = out[2]
            cycles = np.asarray(info["ierlst"])[: int(info["lst"])]
            if not np.all(np.isin(cycles, (0, 2))):
                err = math.inf
        elif not msg.startswith("The occurrence of roundoff error"):
            err = math.inf
    return val, err


def _fourier(f_sin, f_cos, lo: float, hi: float, omega: float, epsabs: float):
    """int_lo^hi sin(theta_r(u) - omega u) amp(u) du from f_sin = amp sin(theta_r), f_cos = amp cos(theta_r):
    QAWO (finite hi) or QAWF (hi = inf) with weights cos/sin(|omega| u). Returns (value, error estimate)."""
    if omega == 0.0:
        return _quad(f_sin, lo, hi, epsabs, limit=200)
    w, sg = abs(omega), (1.0 if omega > 0 else -1.0)
    kw = {"limlst": 100} if math.isinf(hi) else {"limit": 200}
    i1, e1 = _quad(f_sin, lo, hi, 0.5 * epsabs, weight="cos", wvar=w, **kw)
    i2, e2 = _quad(f_cos, lo, hi, 0.5 * epsabs, weight="sin", wvar=w, **kw)
    return i1 - sg * i2, e1 + e2


def _slow_parts(a: np.ndarray, b: np.ndarray, asym: np.ndarray):
    """f_sin, f_cos of :func:`_fourier` for e^{-iux} phi(u) / u: theta = theta_r - omega u with
    omega = x - c + sum_{j in asym} b_j^2/(4 a_j). theta_r = sum_j atan(2 a_j u)/2 + sum_{j in asym}
    b_j^2 u / (4 a_j (1 + 4 a_j^2 u^2)) - sum_{j not in asym} b_j^2 a_j u^3 / (1 + 4 a_j^2 u^2) (the first
    form is the exact remainder of the asymptotic linear phase, free of cancellation)."""
    nz = a != 0
    terms = [(float(aj), float(bj) ** 2, bool(asym[j])) for j, (aj, bj) in enumerate(zip(a, b)) if aj != 0]
    b_lin2 = float(np.sum(b[~nz] ** 2))

    def slow(u: float):  # scalar Python arithmetic: QUADPACK calls it point by point
        ph, logamp = 0.0, -0.5 * b_lin2 * u * u
        for aj, b2, is_asym in terms:
            t = 2.0 * aj * u
            q = 1.0 + t * t
            bq = b2 * u / q
            ph += 0.5 * math.atan(t) + (bq / (4.0 * aj) if is_asym else -bq * aj * u * u)
            logamp += -0.25 * math.log1p(t * t) - 0.5 * bq * u
        return ph, math.exp(logamp) / u

    def f_sin(u: float) -> float:
        th, amp = slow(u)
        return math.sin(th) * amp

    def f_cos(u: float) -> float:
        th, amp = slow(u)
        return math.cos(th) * amp

    return f_sin, f_cos


def _fallback_eval(loss: GaussianPrivacyLoss, eps_arr: np.ndarray, tol: float, max_points: int):
    """Fallback of :func:`delta_exact`: (probabilities, per-eps error estimates).

    1. Standardise with an accurate E[L] (:func:`_standardised_accurate`). If every quadratic term
       is negligible, Z = c + N(0, 1) exactly and Pr(Z > x) = Q(x - c) (classdp Corollary 1,
       eq. 33; the PDP tail of the analytic Gaussian mechanism).
    2. eps whose Chernoff bound (:func:`_chernoff_tails`) on the upper resp. lower tail is at most
       tol/4 get delta = 0 resp. 1 with that bound as error: this covers nearly degenerate L
       (equal means, nearly equal covariances: eps - E[L] is 1e10 standard deviations away).
    3. The remaining eps: panels on [0, T0], T0 the smallest power of two >= 8 at which the complete
       bound :func:`_cf_tail_bound` is below pi tol/4, or otherwise at which every quadratic term with
       s_j = 1/(2|a_j|) <= 16 is asymptotic (u >= 64 s_j), within ``max_points``. Beyond T0:
       QAWO (``quad(weight='cos'/'sin')`` on finite blocks [T0 16^i, T0 16^(i+1)]) with the linear
       phase of the asymptotic terms split off and the others' phases in the amplitude, up to the
       first U = T0 16^m at which the bound is met (truncation) or every term is asymptotic, then
       QAWF from U with the full asymptotic phase split off (remainder in cancellation-free form,
       :func:`_slow_parts`). QUADPACK failures other than round-off make the estimate infinite.
    """
    from scipy import special

    a, b, c, mean, sd = _standardised_accurate(loss)
    x = (eps_arr - mean) / sd
    p = np.empty_like(x)
    err = np.zeros_like(x)
    if not np.any(a):  # Z = c + N(0, sum b_j^2) (the zeroed terms' rest is bounded by _perturbation_error)
        return special.ndtr((c - x) / math.sqrt(float(np.sum(b**2)))), np.full(x.shape, 1e-15)
    up, low = _chernoff_tails(a, b, c, x)
    hi_dead, lo_dead = up <= 0.25 * tol, low <= 0.25 * tol
    p[hi_dead], err[hi_dead] = 0.0, up[hi_dead]
    rest = lo_dead & ~hi_dead
    p[rest], err[rest] = 1.0, low[rest]
    live = ~(hi_dead | lo_dead)
    if np.any(live):
        p[live], err[live] = _invert_live(a, b, c, x[live], tol, max_points)
    return p, err


def _invert_live(a, b, c, x, tol, max_points):
    """Panels and QUADPACK for the eps not screened by the fallback; each eps's plan (T, panel width) is made
    from that eps alone, eps with the same plan are evaluated together."""
    budget = 0.25 * math.pi * tol  # truncation (bound) and quadrature (estimates) each
    nz = a != 0
    scale = 0.5 / np.abs(a[nz])  # s_j: term j is asymptotic for u >> s_j
    big = scale[scale <= 16.0]
    t_big = 64.0 * float(big.max()) if big.size else 8.0
    bound = {}

    def tail_bound(T):
        if T not in bound:
            bound[T] = _cf_tail_bound(T, a, b)
        return bound[T]

    plans = []
    for xi in x:
        T = 8.0
        h, npts = _panel_points(T, xi, a, b, c)
        if npts > max_points:
            plans.append(None)
            continue
        while tail_bound(T) > budget and (T < t_big or tail_bound(2.0 * T) < 0.1 * tail_bound(T)):
            h2, n2 = _panel_points(2.0 * T, xi, a, b, c)
            if n2 > max_points:
                break
            T, h = 2.0 * T, h2
        plans.append((T, h))
    p = np.full(x.shape, np.nan)
    err = np.full(x.shape, math.inf)
    for plan in dict.fromkeys(q for q in plans if q is not None):
        grp = np.array([q == plan for q in plans])
        p[grp], err[grp] = _invert_planned(a, b, c, x[grp], plan[0], plan[1], budget)
    return p, err


def _invert_planned(a, b, c, x, T, h, budget):
    nz = a != 0
    scale = 0.5 / np.abs(a[nz])
    total = _panels(T, h, x, a, b, c)
    err = np.zeros_like(x)
    bound = _cf_tail_bound(T, a, b)
    if bound <= budget:
        return np.clip(0.5 + total / math.pi, 0.0, 1.0), np.full(x.shape, bound / math.pi)
    # tail beyond T in blocks [lo, 16 lo]: the terms asymptotic on a block (64 s_j <= lo) give its linear
    # phase, the others stay in the slowly varying part; QAWF from U where all are asymptotic
    t_all = 2.0 ** math.ceil(math.log2(64.0 * float(scale.max())))
    U = T
    while U < t_all and _cf_tail_bound(U, a, b) > budget:
        U *= 16.0
    U = min(U, max(t_all, T))
    trunc = _cf_tail_bound(U, a, b)
    need_inf = trunc > budget
    blocks = []
    lo = T
    while lo < U:
        asym = np.zeros(a.shape, dtype=bool)
        asym[nz] = 64.0 * scale <= lo
        shift = float(np.sum(b[asym] ** 2 / (4.0 * a[asym])))
        blocks.append((lo, min(16.0 * lo, U), _slow_parts(a, b, asym), shift))
        lo = 16.0 * lo
    if need_inf:
        blocks.append((U, math.inf, _slow_parts(a, b, nz), float(np.sum(b[nz] ** 2 / (4.0 * a[nz])))))
        trunc = 0.0
    epsabs = budget / max(len(blocks), 1)
    tail = np.zeros_like(x)
    for i, xi in enumerate(x):
        for lo_, hi_, parts, shift in blocks:
            v, e = _fourier(*parts, lo_, hi_, xi - c + shift, epsabs)
            tail[i] += v
            err[i] += e
    p = np.clip(0.5 + (total + tail) / math.pi, 0.0, 1.0)
    return p, (err + trunc) / math.pi


# --------------------------------------------------------------------------------------------
# Monte Carlo, closed form, bounds


def delta_monte_carlo(loss: GaussianPrivacyLoss, eps, n: int, rng: np.random.Generator, *, batch: int = 1_000_000):
    """Monte Carlo estimate of ``Pr(L > eps)`` from ``n`` draws of xi; returns (delta, exceed_counts)."""
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    counts = np.zeros(eps_arr.size, dtype=np.int64)
    done = 0
    while done < n:
        m = min(batch, n - done)
        draws = np.sort(loss.sample(m, rng))
        counts += m - np.searchsorted(draws, eps_arr, side="right")
        done += m
    return counts / n, counts


def delta_closed_form(loss: GaussianPrivacyLoss, eps, *, rtol: float = 1e-10):
    """Corollary 1, eq. (33): ``Q((eps - |mu|^2/2) / |mu|)`` when Sigma_X = Sigma_X' (Gamma = I).

    L is then N(m^2/2, m^2) with the whitened sensitivity m = |nu|: the tail is
    :func:`dpgrid.privacy.gaussian.pdp_delta` (``Q(eps/m - m/2)``, the same expression).
    """
    if not np.allclose(loss.gamma, 1.0, rtol=0.0, atol=rtol):
        raise ValueError(f"closed form needs equal covariances (Gamma = I); gamma = {loss.gamma}")
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    m = float(np.linalg.norm(loss.nu))
    if m == 0.0:  # L = 0: Pr(0 > eps)
        return (eps_arr < 0).astype(float)
    return pdp_delta(eps_arr, m)


def chernoff_bound_at(loss: GaussianPrivacyLoss, eps, s: float):
    """Lemma 1, eq. (34), at a given ``s > max(1, gamma_1)`` (not clipped to 1)."""
    g = loss.gamma
    if not s > max(1.0, float(g.max())):
        raise ValueError(f"Lemma 1 needs s > max(1, gamma_1) = {max(1.0, float(g.max()))}, got s = {s}")
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    k = loss.k
    log_b = (
        0.5 * k * math.log(s - 1.0)
        - np.sum(np.log(g)) / (2.0 * (s - 1.0))
        - 0.5 * np.sum(np.log(s - g))
        - eps_arr / (s - 1.0)
        + s / (2.0 * (s - 1.0)) * np.sum(loss.nu**2 * g / (s - g))
    )
    return np.exp(log_b)


def _theta_max(loss: GaussianPrivacyLoss) -> float:
    amax = float(loss.a.max())
    return 1.0 / (2.0 * amax) if amax > 0 else math.inf


def chernoff_bound_grid(loss: GaussianPrivacyLoss, eps, n_theta: int = 96) -> np.ndarray:
    """Lemma 1 minimised over a fixed grid of theta = 1/(s-1) (vectorised; a valid upper bound)."""
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    tmax = _theta_max(loss)
    hi = 0.999 * tmax if math.isfinite(tmax) else 1e4
    theta = np.geomspace(min(1e-4, hi / 10), hi, n_theta)
    lm = loss.log_mgf(theta)
    logb = lm[:, None] - theta[:, None] * eps_arr[None, :]
    return np.minimum(1.0, np.exp(np.min(logb, axis=0)))


def chernoff_bound(loss: GaussianPrivacyLoss, eps) -> np.ndarray:
    """Lemma 1, eq. (34), minimised over s > max(1, gamma_1), clipped to 1.

    With theta = 1/(s-1) the bound is ``exp(ln E[e^{theta L}] - theta eps)`` (Markov on e^{theta L});
    its logarithm is convex in theta, minimised by a bounded scalar search per eps.
    """
    from scipy import optimize

    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    tmax = _theta_max(loss)
    hi = (1.0 - 1e-9) * tmax if math.isfinite(tmax) else 1e6
    out = np.empty_like(eps_arr)
    grid = np.geomspace(min(1e-6, hi / 10), hi, 200)
    lm = loss.log_mgf(grid)
    for i, e in enumerate(eps_arr):
        vals = lm - grid * e
        j = int(np.argmin(vals))
        lo_t, hi_t = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
        best = vals[j]
        if hi_t > lo_t:
            res = optimize.minimize_scalar(
                lambda t, e=e: float(loss.log_mgf(np.array(t)) - t * e),
                bounds=(lo_t, hi_t),
                method="bounded",
                options={"xatol": 1e-10 * hi_t},
            )
            best = min(best, float(res.fun))
        out[i] = min(1.0, math.exp(best))
    return out


def gaussian_sensitivity(losses: Sequence[GaussianPrivacyLoss]) -> float:
    """Delta_G of eq. (37): sup over pairs of 1/2 nu^T Gamma nu - 1/2 ln|Gamma|."""
    return max(0.5 * loss.surrogate for loss in losses)


def corollary3_trend(delta_g: float, eps, s: float) -> np.ndarray:
    """Eq. (38): exp((Delta_G - eps)/s). The paper calls it a trend (from Corollary 2, s >> gamma_1),
    not a rigorous bound; :func:`chernoff_bound` is the rigorous one."""
    return np.exp((delta_g - np.atleast_1d(np.asarray(eps, dtype=float))) / s)


# --------------------------------------------------------------------------------------------
# supremum over the edges of a neighbourhood graph


class EdgeTailCache:
    """Memo of one release's privacy losses and exact tails, shared by the sup-over-edges evaluators.

    The release is N(means[i], covs[i]) for label i. :meth:`loss` is :func:`privacy_loss` of the
    directed edge (i, j) (Proposition 1, eqs. 28-31), computed once; :meth:`tail` is
    :func:`delta_exact_with_error` of that loss at an eps array (default settings), computed once per
    (edge, eps array, tol). Both are the same functions on the same arguments as an uncached call, so the
    numbers are bit for bit those of an uncached call (the cache only avoids recomputation).

    :meth:`upper` turns the cached tails into upper bounds on the *true* ``Pr(L_ij > eps)`` at any eps: the
    tail is non-increasing in eps, so ``d(eps') + err(eps')`` of any cached eps' <= eps bounds it
    (``err`` is the evaluator's error estimate). :func:`delta_sup_over_edges` and
    :func:`hockey_stick_sup_over_edges` use them to skip edges that provably cannot change their sup.
    """

    def __init__(self, means: np.ndarray, covs: np.ndarray):
        self.means = np.array(means, dtype=float)
        self.covs = np.array(covs, dtype=float)
        self._loss: dict[tuple[int, int], GaussianPrivacyLoss] = {}
        self._tail: dict[tuple, tuple[np.ndarray, np.ndarray, str]] = {}
        self._known: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray]]] = {}

    def check(self, means, covs, caller: str) -> EdgeTailCache:
        """``self`` if it belongs to the release (means, covs); ValueError otherwise."""
        if not (
            np.array_equal(self.means, np.asarray(means, float)) and np.array_equal(self.covs, np.asarray(covs, float))
        ):
            raise ValueError(f"{caller}: the EdgeTailCache was built for a different release (means / covs differ)")
        return self

    def loss(self, i: int, j: int) -> GaussianPrivacyLoss:
        key = (int(i), int(j))
        if key not in self._loss:
            self._loss[key] = privacy_loss(self.means[key[0]], self.covs[key[0]], self.means[key[1]], self.covs[key[1]])
        return self._loss[key]

    def tail(self, i: int, j: int, eps: np.ndarray, tol: float):
        """``delta_exact_with_error(loss(i, j), eps, tol=tol)`` (not strict): (delta, error, method)."""
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        key = (int(i), int(j), eps.tobytes(), float(tol))
        if key not in self._tail:
            d, err, how = delta_exact_with_error(self.loss(i, j), eps, tol=tol)
            self._tail[key] = (d, err, how)
            self._known.setdefault((int(i), int(j)), []).append((eps.copy(), np.asarray(d) + np.asarray(err)))
        return self._tail[key]

    def strict_tail(self, i: int, j: int, eps: np.ndarray, tol: float):
        """(delta, error) as :func:`delta_exact` with ``strict=True`` computes and raises them (same values)."""
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        d, err, how = self.tail(i, j, eps, tol)
        _finish(d, err, how, self.loss(i, j), eps, tol, True)  # raises DeltaAccuracyError as delta_exact would
        return d, err

    def upper(self, i: int, j: int, eps: np.ndarray) -> np.ndarray:
        """Upper bounds on the true ``Pr(L_ij > eps)`` from the cached tails of edge (i, j) (1 where none applies)."""
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        known = self._known.get((int(i), int(j)))
        if not known:
            return np.ones_like(eps)
        e_c = np.concatenate([k[0] for k in known])
        u_c = np.concatenate([k[1] for k in known])
        with np.errstate(invalid="ignore"):
            vals = np.where(e_c[None, :] <= eps[:, None], u_c[None, :], np.inf)
        out = np.min(vals, axis=1)
        return np.minimum(1.0, np.where(np.isnan(out), 1.0, out))


def _hockey_stick_weights(eps: np.ndarray) -> np.ndarray:
    """Matrix W with ``W @ u >= delta_HS(eps)`` for every u with ``u_i >= Pr(L > eps_i)`` (see
    :func:`hockey_stick_upper_bound`); rows and columns in the order of ``eps``."""
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    order = np.argsort(eps, kind="stable")
    es = eps[order]
    nxt = np.append(es[1:], np.inf)
    m, i = np.meshgrid(np.arange(es.size), np.arange(es.size), indexing="ij")
    w_sorted = np.where(i >= m, np.exp(es[m] - es[i]) - np.exp(es[m] - nxt[i]), 0.0)
    w = np.zeros_like(w_sorted)
    w[np.ix_(order, order)] = w_sorted
    return w


def hockey_stick_upper_bound(eps, pdp_upper) -> np.ndarray:
    """Upper bound on the hockey-stick delta of a pair at each ``eps`` >= 0 from upper bounds ``pdp_upper`` on its
    PDP delta ``Pr_X(L > eps)`` at the same eps (classdp Definition 1; Theorem 1's DP notion).

    ``delta_HS(eps) = E_X[(1 - e^{eps - L})_+] = int_eps^inf e^{eps - t} Pr_X(L > t) dt`` (Fubini on
    ``(1 - e^{eps - L})_+ = int_eps^inf e^{eps - t} 1{L > t} dt``), and ``Pr_X(L > t)`` is non-increasing in t, so
    on the sorted grid ``delta_HS(e_m) <= sum_{i >= m} u_i (e^{e_m - e_i} - e^{e_m - e_{i+1}})`` (e_{n+1} = inf): an
    upper Riemann sum. Also ``delta_HS <= Pr_X(L > eps)``; the smaller of the two is returned.
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    u = np.minimum(1.0, np.asarray(pdp_upper, dtype=float))
    if np.any(eps < 0):
        raise ValueError(f"hockey_stick_upper_bound: eps must be >= 0, got {eps}")
    return np.minimum(_hockey_stick_weights(eps) @ u, u)


@dataclass
class EdgeDelta:
    """delta(eps) = sup over directed edges (i, j) of Pr(L_ij > eps) under i.

    ``error`` (exact method) bounds ``|delta - exact sup|`` per eps by the largest error estimate of the
    edges evaluated (a pruned edge's Chernoff bound is below the computed sup, so it adds nothing); NaN for
    ``method='monte_carlo'``. ``within_tol`` says whether every estimate met ``tol``: a caller that runs
    with ``on_inaccurate='flag'`` should record ``error`` (or at least ``within_tol``) next to ``delta``.
    """

    eps: np.ndarray
    delta: np.ndarray
    worst_edge: np.ndarray  # (n_eps, 2) edge attaining the sup at each eps
    n_edges: int
    n_exact: int  # edges not excluded by the Chernoff bound (exact delta evaluated or bounded by cached exact tails)
    error: np.ndarray | None = None  # (n_eps,) error bound of delta (see above)
    tol: float = math.nan  # the requested tolerance
    n_fallback: int = 0  # edges evaluated by delta_exact's fallback method
    n_bounded: int = 0  # of the n_exact edges, those skipped because cached exact tails bound them below the sup

    @property
    def within_tol(self) -> bool:
        return self.error is not None and bool(np.all(self.error <= self.tol))


def delta_sup_over_edges(
    means: np.ndarray,
    covs: np.ndarray,
    edges: np.ndarray,
    eps,
    *,
    method: str = "exact",
    prune: bool = True,
    tol: float = 1e-8,
    mc_samples: int = 0,
    rng: np.random.Generator | None = None,
    on_inaccurate: str = "raise",
    cache: EdgeTailCache | None = None,
) -> EdgeDelta:
    """delta(eps) of a mechanism releasing N(means[i], covs[i]) for label i: sup over ``edges``.

    With ``method='exact'`` and ``prune``, edges are visited in decreasing order of the surrogate
    metric (eq. 41); an edge whose Lemma-1 Chernoff bound (grid-minimised, a valid upper bound)
    does not exceed the running supremum at any eps cannot change the result and is skipped
    (``n_exact`` counts the others). ``method='monte_carlo'`` uses ``mc_samples`` draws per edge from ``rng``.

    ``cache`` (an :class:`EdgeTailCache` of this release, e.g. shared with :func:`hockey_stick_sup_over_edges`
    and an audit at other eps) supplies the privacy losses and exact tails already computed. With ``prune``
    and ``on_inaccurate='raise'``, an edge whose cached tails bound its true delta by ``u`` with
    ``u + 2 tol <= `` the running sup at every eps is not re-evaluated (``n_bounded``): its exact value, within
    ``tol`` of the truth (else it would raise), could not exceed the running sup, so delta and worst_edge are
    those of the evaluation of every edge. Without a cache the edges are evaluated as before.

    Each exact edge comes from :func:`delta_exact_with_error`. When an edge's error estimate exceeds
    ``tol`` (work cap reached), ``on_inaccurate='raise'`` (default) raises :class:`DeltaAccuracyError`
    naming the edge; ``'flag'`` keeps the values and reports the error in ``EdgeDelta.error`` /
    ``within_tol``.
    """
    if on_inaccurate not in ("raise", "flag"):
        raise ValueError(f"delta_sup_over_edges: on_inaccurate must be 'raise' or 'flag', got {on_inaccurate!r}")
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    edges = np.asarray(edges, dtype=int).reshape(-1, 2)
    if edges.size == 0:
        raise ValueError("delta_sup_over_edges: the neighbourhood graph has no edges")
    cache = EdgeTailCache(means, covs) if cache is None else cache.check(means, covs, "delta_sup_over_edges")
    losses = [cache.loss(i, j) for i, j in edges]
    order = np.argsort([-loss.surrogate for loss in losses], kind="stable")
    best = np.full(eps_arr.size, -1.0)
    arg = np.zeros((eps_arr.size, 2), dtype=int)
    error = np.zeros(eps_arr.size) if method == "exact" else np.full(eps_arr.size, np.nan)
    n_exact = n_fallback = n_bounded = 0
    use_bounds = method == "exact" and prune and on_inaccurate == "raise"
    for e in order:
        loss = losses[e]
        i, j = edges[e]
        if method == "exact":
            if prune and n_exact > 0 and np.all(chernoff_bound_grid(loss, eps_arr) <= best):
                continue
            if use_bounds and n_exact > 0 and np.all(cache.upper(i, j, eps_arr) + 2.0 * tol <= best):
                n_exact += 1
                n_bounded += 1
                continue
            d, d_err, how = cache.tail(i, j, eps_arr, tol)
            if on_inaccurate == "raise" and not np.all(d_err <= tol):
                raise DeltaAccuracyError(
                    f"delta_sup_over_edges: edge ({i}, {j}): error estimate {np.max(d_err):.3g} > tol {tol:g} at eps "
                    f"{eps_arr[~(d_err <= tol)].tolist()} (k = {loss.k}, gamma in [{loss.gamma.min():.6g}, "
                    f"{loss.gamma.max():.6g}]); pass on_inaccurate='flag' to keep the values and record EdgeDelta.error",
                    d,
                    d_err,
                    tol,
                )
            error = np.maximum(error, d_err)
            n_fallback += how == "fallback"
        elif method == "monte_carlo":
            if rng is None or mc_samples <= 0:
                raise ValueError("monte_carlo needs rng and mc_samples > 0")
            d, _ = delta_monte_carlo(loss, eps_arr, mc_samples, rng)
        else:
            raise ValueError(f"unknown method {method!r}; use 'exact' or 'monte_carlo'")
        n_exact += 1
        upd = d > best
        best = np.where(upd, d, best)
        arg[upd] = edges[e]
    return EdgeDelta(eps_arr, best, arg, len(edges), n_exact, error, float(tol), n_fallback, n_bounded)


# --------------------------------------------------------------------------------------------
# exact (hockey-stick) delta of the same release, beside the PDP delta


def hockey_stick_pair(mu_x, cov_x, mu_xp, cov_xp, eps, *, tol: float = 1e-8) -> tuple[np.ndarray, np.ndarray]:
    """(hockey-stick delta, PDP delta) of releasing N(mu_x, cov_x) under X vs N(mu_xp, cov_xp) under X', per eps >= 0.

    classdp calibrates for *probabilistic* DP, ``Pr_X(L_XX' > eps) <= delta`` (Definition 1 after eq. 7);
    Theorem 1 says PDP implies (eps, delta)-DP between neighbouring labels. The tight delta of that DP
    notion for the same release is the hockey-stick divergence

        delta_HS(eps) = E_X[(1 - e^{eps - L_XX'})_+] = Pr_X(L_XX' > eps) - e^eps Pr_X'(L_XX' > eps),

    and under X' the same log-likelihood ratio is ``L_XX' = -L_X'X`` with L_X'X distributed under X'
    as Proposition 1's generalised chi-square of the reversed pair, so
    ``Pr_X'(L_XX' > eps) = 1 - Pr_X'(L_X'X > -eps)``. Both tails come from :func:`delta_exact`
    (absolute error ``tol`` each, so delta_HS is within ``(1 + e^eps) tol``); delta_HS <= delta_PDP.
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    if np.any(eps < 0):
        raise ValueError(f"hockey_stick_pair: eps must be >= 0, got {eps}")
    fwd = privacy_loss(mu_x, cov_x, mu_xp, cov_xp)  # L_XX' under X
    rev = privacy_loss(mu_xp, cov_xp, mu_x, cov_x)  # L_X'X under X'
    pdp = delta_exact(fwd, eps, tol=tol)
    under_xp = 1.0 - delta_exact(rev, -eps, tol=tol)  # Pr_X'(L_XX' > eps)
    hs = np.clip(pdp - np.exp(eps) * under_xp, 0.0, 1.0)
    return hs, pdp


@dataclass
class HockeyStickSup:
    """sup over directed edges of the hockey-stick and of the PDP delta, with the worst edges."""

    eps: np.ndarray
    delta_hs: np.ndarray
    delta_pdp: np.ndarray
    worst_edge_hs: np.ndarray  # (n_eps, 2)
    worst_edge_pdp: np.ndarray  # (n_eps, 2)
    n_edges: int
    n_exact: int


def hockey_stick_sup_over_edges(
    means, covs, edges, eps, *, tol: float = 1e-8, cache: EdgeTailCache | None = None
) -> HockeyStickSup:
    """Both deltas (:func:`hockey_stick_pair`) of the release N(means[i], covs[i]) over all ``edges``.

    An edge whose Lemma-1 Chernoff bound (an upper bound on its PDP delta, hence on its hockey stick)
    is below both running suprema at every eps cannot change either and is skipped. For the others the
    PDP delta is evaluated (or taken from ``cache``, an :class:`EdgeTailCache` of this release shared with
    :func:`delta_sup_over_edges`: the same numbers); the reverse tail that the hockey stick needs is evaluated
    only where :func:`hockey_stick_upper_bound` (from the PDP values and their error estimates, plus the
    ``(1 + e^eps) tol`` the two computed tails may err by, plus ``tol``) exceeds the running hockey-stick sup at
    some eps: elsewhere the computed hockey stick of :func:`hockey_stick_pair` could not exceed it, so the
    suprema and worst edges are those of evaluating every pair with :func:`hockey_stick_pair`.
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    edges = np.asarray(edges, dtype=int).reshape(-1, 2)
    if edges.size == 0:
        raise ValueError("hockey_stick_sup_over_edges: the neighbourhood graph has no edges")
    if np.any(eps < 0):
        raise ValueError(f"hockey_stick_pair: eps must be >= 0, got {eps}")
    cache = EdgeTailCache(means, covs) if cache is None else cache.check(means, covs, "hockey_stick_sup_over_edges")
    losses = [cache.loss(i, j) for i, j in edges]
    order = np.argsort([-loss.surrogate for loss in losses], kind="stable")
    best_hs = np.full(eps.size, -1.0)
    best_pdp = np.full(eps.size, -1.0)
    arg_hs = np.zeros((eps.size, 2), dtype=int)
    arg_pdp = np.zeros((eps.size, 2), dtype=int)
    weights = _hockey_stick_weights(eps)
    slack = (1.0 + np.exp(eps)) * tol + tol
    n_exact = 0
    for e in order:
        if n_exact and np.all(chernoff_bound_grid(losses[e], eps) <= np.minimum(best_hs, best_pdp)):
            continue
        i, j = edges[e]
        pdp, pdp_err = cache.strict_tail(i, j, eps, tol)  # = delta_exact(L_ij, eps) of hockey_stick_pair
        n_exact += 1
        u = np.minimum(1.0, pdp + pdp_err)
        if not np.all(np.minimum(weights @ u, u) + slack <= best_hs):
            # as hockey_stick_pair: Pr_X'(L_XX' > eps) = 1 - Pr_X'(L_X'X > -eps)
            under_xp = 1.0 - delta_exact(cache.loss(j, i), -eps, tol=tol)
            hs = np.clip(pdp - np.exp(eps) * under_xp, 0.0, 1.0)
            up = hs > best_hs
            best_hs, arg_hs[up] = np.where(up, hs, best_hs), edges[e]
        up = pdp > best_pdp
        best_pdp, arg_pdp[up] = np.where(up, pdp, best_pdp), edges[e]
    return HockeyStickSup(eps, best_hs, best_pdp, arg_hs, arg_pdp, len(edges), n_exact)

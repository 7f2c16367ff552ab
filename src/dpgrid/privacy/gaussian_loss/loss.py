"""The privacy-loss random variable of a pair of Gaussian releases (classdp Proposition 1, eqs. 28-31), its Monte
Carlo tail, and the Chernoff bounds (Lemma 1, eq. 34) with eqs. (37)-(38).

Ramakrishna, Scaglione, Wu, Ravi, Peisert, *Differential Privacy for Class-based Data: A Practical Gaussian
Mechanism* (classdp), Sec. IV; see :mod:`dpgrid.privacy.gaussian_loss`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: unit roundoff of float64
_U = 2.0**-53
#: significand bits of :func:`privacy_loss_extended` (those of IEEE quadruple precision)
_EXTENDED_BITS = 113


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

    mu_x, cov_x, mu_xp, cov_xp = _checked_pair(mu_x, cov_x, mu_xp, cov_xp)
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
    # the SVD's dW is R's perturbation Rp dW (see _backward_errors)
    lam = linalg.eigvalsh(cov_x)
    lamp = linalg.eigvalsh(cov_xp)
    eta_x, eta_xp, mean_rounding = _backward_errors(
        _U, gamma, lam, lamp, float(np.linalg.norm(d)), float(np.linalg.norm(m))
    )
    return GaussianPrivacyLoss(gamma, nu, eta_x, eta_xp, mean_rounding)


def _backward_errors(unit: float, gamma, lam, lamp, d_norm: float, m_norm: float) -> tuple[float, float, float]:
    """(eta_x, eta_xp, mean_rounding) of :func:`privacy_loss`'s steps at unit roundoff ``unit``: Cholesky and the
    triangular solves perturb Sigma_X, Sigma_X' by a relative 2(k + 1) unit cond(.), the SVD by g = 2(k + 1) unit
    sqrt(cond(M)), which also moves m = R^{-1} d by g |m|; ``lam``, ``lamp`` the eigenvalues of Sigma_X, Sigma_X',
    ``d_norm`` = |mu_X' - mu_X|, ``m_norm`` = |m|."""
    units = _ROUNDING_UNITS(gamma.size) * unit
    g = units * math.sqrt(_cond(gamma, unit))
    eta_x = units * _cond(lam, unit) + 2.0 * g + g * g
    eta_xp = units * _cond(lamp, unit)
    mean_rounding = unit * d_norm / math.sqrt(max(float(lamp.min()), unit * float(lamp.max())))
    mean_rounding += g / max(1.0 - g, 1e-300) * math.sqrt(float(gamma.max())) * m_norm
    return eta_x, eta_xp, mean_rounding


def _checked_pair(mu_x, cov_x, mu_xp, cov_xp):
    """The pair as float arrays (covariances symmetrised); ValueError on inconsistent shapes."""
    mu_x, mu_xp = np.asarray(mu_x, float), np.asarray(mu_xp, float)
    cov_x, cov_xp = _sym(np.asarray(cov_x, float)), _sym(np.asarray(cov_xp, float))
    k = mu_x.size
    if mu_xp.shape != (k,) or cov_x.shape != (k, k) or cov_xp.shape != (k, k):
        raise ValueError(f"inconsistent shapes: mu {mu_x.shape}, {mu_xp.shape}; cov {cov_x.shape}, {cov_xp.shape}")
    return mu_x, cov_x, mu_xp, cov_xp


def privacy_loss_extended(mu_x, cov_x, mu_xp, cov_xp) -> GaussianPrivacyLoss:
    """:func:`privacy_loss` computed with 113-bit significands (mpmath), rounded to float64 at the end.

    The same steps as :func:`privacy_loss` (Cholesky factors R, Rp; W = Rp^{-1} R; its SVD, eq. 31;
    m = R^{-1} d, eq. 30) at unit roundoff u_e = 2^-113, so their backward errors (the same model, 2(k + 1) u_e times
    the condition numbers, here from eigenvalues computed at u_e) are about 2^-60 of the float64 ones. The final
    rounding of gamma and nu to float64 is exact for a nearby pair as well: gamma_j (1 + delta_j), |delta_j| <= u,
    are the eigenvalues of eq. (31) for Sigma_X replaced by R V (I + diag(delta)) V^T R^T (||F|| <= u, independent of
    any condition number), which scales nu by (1 + delta)^{-1/2}; with nu's own rounding, nu moves by at most
    2 u |nu|, a mean shift of at most 2 u sqrt(gamma_max) |nu| in Sigma_X'^{-1/2} units. For ill-conditioned pairs
    (cond Sigma ~ 1e6) that leaves a rounding part of :func:`~dpgrid.privacy.gaussian_loss.delta_exact_with_error`'s
    error estimate orders of magnitude below the float64 one. Cost O(k^3) in Python arithmetic (about 1 s at k = 24),
    so :class:`~dpgrid.privacy.gaussian_loss.EdgeTailCache` uses it only where the float64 loss misses the tolerance.
    """
    import mpmath

    mu_x, cov_x, mu_xp, cov_xp = _checked_pair(mu_x, cov_x, mu_xp, cov_xp)
    k = mu_x.size
    ctx = mpmath.MPContext()
    ctx.prec = _EXTENDED_BITS
    big_x, big_xp = ctx.matrix(cov_x.tolist()), ctx.matrix(cov_xp.tolist())
    try:
        r, rp = ctx.cholesky(big_x), ctx.cholesky(big_xp)
    except ValueError as exc:
        raise ValueError(f"covariances must be positive definite: {exc}") from None
    w = ctx.matrix(k, k)
    for j in range(k):
        col = _forward_substitution(ctx, rp, [r[i, j] for i in range(k)])
        for i in range(k):
            w[i, j] = col[i]
    _, sv, vt = ctx.svd_r(w)  # w = U diag(sv) vt
    d_e = [ctx.mpf(b) - ctx.mpf(a) for a, b in zip(mu_x.tolist(), mu_xp.tolist(), strict=True)]
    m_e = ctx.matrix(_forward_substitution(ctx, r, d_e))
    nu_e = vt * m_e
    order = sorted(range(k), key=lambda j: -sv[j])  # descending, as privacy_loss
    gamma = np.array([float(sv[j] ** 2) for j in order])
    nu = np.array([float(nu_e[j]) for j in order])
    lam = np.array([float(x) for x in ctx.eigsy(big_x, eigvals_only=True)])
    lamp = np.array([float(x) for x in ctx.eigsy(big_xp, eigvals_only=True)])
    # the backward errors of the 113-bit steps (the model of privacy_loss at u_e) ...
    eta_e, eta_xp, mean_e = _backward_errors(
        2.0**-_EXTENDED_BITS, gamma, lam, lamp, float(ctx.norm(ctx.matrix(d_e))), float(ctx.norm(m_e))
    )
    # ... composed with the rounding of gamma and nu to float64
    eta_x = (1.0 + eta_e) * (1.0 + 2.0 * _U) - 1.0
    mean_rounding = mean_e + 2.0 * _U * math.sqrt(float(gamma.max()) * (1.0 + 2.0 * _U)) * float(np.linalg.norm(nu))
    return GaussianPrivacyLoss(gamma, nu, eta_x, eta_xp, mean_rounding)


def _forward_substitution(ctx, lower, rhs: list) -> list:
    """x with ``lower @ x = rhs`` for a lower triangular mpmath matrix, in ``ctx``'s precision."""
    x: list = []
    for i, b in enumerate(rhs):
        x.append((b - ctx.fsum(lower[i, j] * x[j] for j in range(i))) / lower[i, i])
    return x


def _cond(lam: np.ndarray, unit: float = _U) -> float:
    """Condition number of a positive definite matrix from its (computed) eigenvalues; the smallest is taken
    at least k ``unit`` times the largest (its own absolute rounding error)."""
    hi = float(np.max(lam))
    return hi / max(float(np.min(lam)), lam.size * unit * hi)


def log_likelihood_ratio(q: np.ndarray, mu_x, cov_x, mu_xp, cov_xp) -> np.ndarray:
    """``ln f(q|X) - ln f(q|X')`` (eq. 4) straight from the two Gaussian densities (rows of ``q``).

    Independent of Proposition 1 (scipy's multivariate normal log-density), for audits.
    """
    from scipy import stats

    return stats.multivariate_normal(mu_x, cov_x).logpdf(q) - stats.multivariate_normal(mu_xp, cov_xp).logpdf(q)


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

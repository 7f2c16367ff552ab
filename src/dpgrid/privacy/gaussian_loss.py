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
  Imhof 1961): ``Pr(Z > x) = 1/2 + 1/pi int_0^inf Im[e^{-iux} phi(u)] / u du``, evaluated with a
  vectorised composite Gauss-Legendre rule on ``[0, T]`` (all eps at once) and, where the
  characteristic function decays slowly (few quadratic terms), the oscillatory tail ``[T, inf)``
  with QUADPACK's Fourier-integral routine (QAWF, ``scipy.integrate.quad(weight='cos'/'sin')``).
  The truncation point T comes from an explicit bound on the tail of ``|phi(u)|/u``.
* :func:`delta_monte_carlo` - sampling xi.
* :func:`delta_closed_form` - Corollary 1 (eq. 33), equal covariances.
* :func:`chernoff_bound` - Lemma 1 (eq. 34), minimised over s; :func:`chernoff_bound_at` for a
  given s; :func:`gaussian_sensitivity` and :func:`corollary3_trend` (eqs. 37-38).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import integrate, linalg, optimize, special, stats

__all__ = [
    "GaussianPrivacyLoss",
    "privacy_loss",
    "log_likelihood_ratio",
    "delta_exact",
    "delta_monte_carlo",
    "delta_closed_form",
    "chernoff_bound",
    "chernoff_bound_at",
    "chernoff_bound_grid",
    "gaussian_sensitivity",
    "corollary3_trend",
    "EdgeDelta",
    "delta_sup_over_edges",
]

# Gauss-Legendre nodes on [0, 1] for the panels of the inversion integral.
_GL_N = 16
_GL_X, _GL_W = np.polynomial.legendre.leggauss(_GL_N)
_GL_X = 0.5 * (_GL_X + 1.0)
_GL_W = 0.5 * _GL_W
#: |a_j| (standardised) below which a quadratic term is treated as linear: it moves L by less
#: than 1e-10 xi^2, far below the 1e-6 accuracy target.
_A_TINY = 1e-10


@dataclass(frozen=True)
class GaussianPrivacyLoss:
    """``L = const + sum_j a_j xi_j^2 + b_j xi_j`` with xi ~ N(0, I): Proposition 1, eq. (29).

    ``gamma`` are the eigenvalues of eq. (31) (descending) and ``nu`` the vector of eq. (30).
    """

    gamma: np.ndarray
    nu: np.ndarray

    def __post_init__(self) -> None:
        g = np.asarray(self.gamma, dtype=float)
        n = np.asarray(self.nu, dtype=float)
        if g.ndim != 1 or n.shape != g.shape:
            raise ValueError(f"gamma and nu must be vectors of one length, got {g.shape} and {n.shape}")
        if not (np.all(np.isfinite(g)) and np.all(g > 0) and np.all(np.isfinite(n))):
            raise ValueError(f"gamma must be positive and finite and nu finite; gamma={g}, nu={n}")
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
            val = (theta * self.c - 0.5 * np.sum(np.log(d), axis=-1)
                   + np.sum(theta[..., None] ** 2 * self.b**2 / (2.0 * d), axis=-1))
        return np.where(np.all(d > 0, axis=-1), val, np.inf)


def _sym(a: np.ndarray) -> np.ndarray:
    return 0.5 * (a + a.T)


def privacy_loss(mu_x: np.ndarray, cov_x: np.ndarray, mu_xp: np.ndarray, cov_xp: np.ndarray) -> GaussianPrivacyLoss:
    """The privacy loss L_{XX'} of Proposition 1 (eqs. 28-31) for N(mu_x, cov_x) vs N(mu_xp, cov_xp).

    Any square root of Sigma_X gives the same distribution of L; a Cholesky factor R (R R^T =
    Sigma_X) is used: eq. (31) becomes the eigen-decomposition of R^T Sigma_X'^{-1} R.
    """
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
    w = linalg.solve_triangular(rp, r, lower=True)          # Rp^{-1} R
    m = _sym(w.T @ w)                                         # R^T Sigma_X'^{-1} R
    gamma, u = linalg.eigh(m)
    order = np.argsort(gamma)[::-1]
    gamma, u = gamma[order], u[:, order]
    nu = u.T @ linalg.solve_triangular(r, mu_xp - mu_x, lower=True)
    return GaussianPrivacyLoss(gamma, nu)


def log_likelihood_ratio(q: np.ndarray, mu_x, cov_x, mu_xp, cov_xp) -> np.ndarray:
    """``ln f(q|X) - ln f(q|X')`` (eq. 4) straight from the two Gaussian densities (rows of ``q``).

    Independent of Proposition 1 (scipy's multivariate normal log-density), for audits.
    """
    return (stats.multivariate_normal(mu_x, cov_x).logpdf(q)
            - stats.multivariate_normal(mu_xp, cov_xp).logpdf(q))


# --------------------------------------------------------------------------------------------
# exact tail by characteristic-function inversion


def _standardised(loss: GaussianPrivacyLoss):
    """(a, b, c, mean, sd) of Z = (L - mean)/sd, with negligible a_j set to 0."""
    mean, sd = loss.mean, math.sqrt(loss.var)
    a, b = loss.a / sd, loss.b / sd
    a = np.where(np.abs(a) < _A_TINY, 0.0, a)
    c = (loss.c - mean) / sd
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


def delta_exact(loss: GaussianPrivacyLoss, eps: Sequence[float] | float, *, tol: float = 1e-8,
                t_cap: float = 256.0, t_max: float = 8192.0, return_error: bool = False):
    """``Pr(L > eps)`` under X, exactly (to ``tol``), for every value of ``eps`` (vectorised).

    Gil-Pelaez inversion of the characteristic function of the generalised chi-square variable
    L (Imhof 1961): the integral over ``[0, T]`` by composite 16-point Gauss-Legendre panels fine
    enough for the fastest oscillation, all eps in one matrix product; T is the smallest power of
    two for which the bound :func:`_abs_tail_bound` on the discarded tail is below ``tol``. If that
    needs ``T > t_cap`` (L with one or two quadratic terms and no mean shift), the tail beyond
    ``t_cap`` is integrated per eps with QUADPACK QAWF (``quad(weight='cos'/'sin')``) after
    splitting off its asymptotic linear phase.

    Returns the probabilities (clipped to [0, 1]) and, with ``return_error``, an error bound.
    """
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    if math.sqrt(loss.var) <= 1e-13 * (1.0 + abs(loss.c)):   # identical distributions: L is constant
        out = (loss.mean > eps_arr + 1e-12 * (1.0 + np.abs(eps_arr))).astype(float)
        return (out, 0.0) if return_error else out
    a, b, c, mean, sd = _standardised(loss)
    x = (eps_arr - mean) / sd
    # truncation point: bound on the discarded tail below tol, or QAWF for the tail beyond T
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
        else:                                   # keep doubling; no asymptotic tail available
            while _abs_tail_bound(T, a, b) > tol * math.pi and T < t_max:
                T *= 2.0
            need_tail = False
    # panel width: fastest phase speed of e^{-iux} phi(u) on [0, T] (|d/du arg| bound)
    speed = np.max(np.abs(x - c)) + np.sum(np.abs(a)) + float(np.sum(b**2 * np.minimum(T, 1.0 / (2 * np.abs(a) + 1e-300))))
    h = min(1.0, 1.5 / max(speed, 1e-12))
    n_panels = max(1, int(math.ceil(T / h)))
    edges = np.linspace(0.0, T, n_panels + 1)
    widths = np.diff(edges)
    u = (edges[:-1, None] + widths[:, None] * _GL_X[None, :]).ravel()
    w = (widths[:, None] * _GL_W[None, :]).ravel()
    lcf = _log_cf(u, a, b, c)
    # Im[e^{-iux} phi(u)] / u for every (u, x): chunk over u to bound memory
    total = np.zeros_like(x)
    chunk = max(1, 2_000_000 // max(x.size, 1))
    for s in range(0, u.size, chunk):
        uu, ll, ww = u[s:s + chunk], lcf[s:s + chunk], w[s:s + chunk]
        vals = np.imag(np.exp(ll[:, None] - 1j * uu[:, None] * x[None, :])) / uu[:, None]
        total += ww @ vals
    err = _abs_tail_bound(T, a, b) / math.pi
    if need_tail:
        tail, err = _oscillatory_tail(T, x, a, b, c)
        total += tail
    p = 0.5 + total / math.pi
    p = np.clip(p, 0.0, 1.0)
    return (p, err) if return_error else p


def _oscillatory_tail(T: float, x: np.ndarray, a: np.ndarray, b: np.ndarray, c: float):
    """int_T^inf sin(theta(u)) / (u rho(u)) du per x, with QUADPACK QAWF.

    theta(u) = Im ln phi(u) - u x = theta_r(u) - omega u with omega = x - c + sum_j b_j^2/(4 a_j)
    (a_j != 0) the asymptotic phase speed; theta_r and rho vary slowly for u >> 1/|a_j|, so
    sin(theta) = sin(theta_r) cos(omega u) - cos(theta_r) sin(omega u) is a Fourier integral.
    """
    nz = a != 0
    shift = float(np.sum(b[nz] ** 2 / (4.0 * a[nz])))

    def slow_parts(s: float, T0: float):
        u = T0 + s
        lcf = _log_cf(np.array([u]), a, b, c)[0]
        th_r = lcf.imag + (shift - c) * u            # theta(u) + omega u, slowly varying
        return th_r, math.exp(lcf.real) / u

    def amp_sin(s: float, T0: float) -> float:
        th, amp = slow_parts(s, T0)
        return math.sin(th) * amp

    def amp_shift(s: float, T0: float, omega: float, fn) -> float:
        th, amp = slow_parts(s, T0)
        return fn(th - omega * T0) * amp

    out = np.empty_like(x)
    errs = []
    for i, xi in enumerate(x):
        omega = xi - c + shift
        if abs(omega) < 1e-9:
            v, e = integrate.quad(lambda s: amp_sin(s, T), 0.0, np.inf, limit=500)
            out[i] = v
            errs.append(e)
            continue
        # sin(th_r(u) - omega T - omega s) = sin(p0) cos(|w| s) -+ cos(p0) sin(|w| s)
        w_ = abs(omega)
        sg = 1.0 if omega > 0 else -1.0
        f1 = lambda s_, o=omega: amp_shift(s_, T, o, math.sin)   # noqa: E731
        f2 = lambda s_, o=omega: amp_shift(s_, T, o, math.cos)   # noqa: E731
        i1, e1 = integrate.quad(f1, 0.0, np.inf, weight="cos", wvar=w_, limlst=100)
        i2, e2 = integrate.quad(f2, 0.0, np.inf, weight="sin", wvar=w_, limlst=100)
        out[i] = i1 - sg * i2
        errs.append(e1 + e2)
    return out, (max(errs) / math.pi if errs else 0.0)


# --------------------------------------------------------------------------------------------
# Monte Carlo, closed form, bounds


def delta_monte_carlo(loss: GaussianPrivacyLoss, eps, n: int, rng: np.random.Generator,
                      *, batch: int = 1_000_000):
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
    """Corollary 1, eq. (33): ``Q((eps - |mu|^2/2) / |mu|)`` when Sigma_X = Sigma_X' (Gamma = I)."""
    if not np.allclose(loss.gamma, 1.0, rtol=0.0, atol=rtol):
        raise ValueError(f"closed form needs equal covariances (Gamma = I); gamma = {loss.gamma}")
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    m = float(np.linalg.norm(loss.nu))
    if m == 0.0:
        return (eps_arr < 0).astype(float)
    return special.ndtr(-(eps_arr - 0.5 * m**2) / m)


def chernoff_bound_at(loss: GaussianPrivacyLoss, eps, s: float):
    """Lemma 1, eq. (34), at a given ``s > max(1, gamma_1)`` (not clipped to 1)."""
    g = loss.gamma
    if not s > max(1.0, float(g.max())):
        raise ValueError(f"Lemma 1 needs s > max(1, gamma_1) = {max(1.0, float(g.max()))}, got s = {s}")
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    k = loss.k
    log_b = (0.5 * k * math.log(s - 1.0) - np.sum(np.log(g)) / (2.0 * (s - 1.0))
             - 0.5 * np.sum(np.log(s - g)) - eps_arr / (s - 1.0)
             + s / (2.0 * (s - 1.0)) * np.sum(loss.nu**2 * g / (s - g)))
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
            res = optimize.minimize_scalar(lambda t: float(loss.log_mgf(np.array(t)) - t * e),
                                           bounds=(lo_t, hi_t), method="bounded", options={"xatol": 1e-10 * hi_t})
            best = min(best, float(res.fun))
        out[i] = min(1.0, math.exp(best))
    return out


def gaussian_sensitivity(losses: Sequence[GaussianPrivacyLoss]) -> float:
    """Delta_G of eq. (37): sup over pairs of 1/2 nu^T Gamma nu - 1/2 ln|Gamma|."""
    return max(0.5 * l.surrogate for l in losses)


def corollary3_trend(delta_g: float, eps, s: float) -> np.ndarray:
    """Eq. (38): exp((Delta_G - eps)/s). The paper calls it a trend (from Corollary 2, s >> gamma_1),
    not a rigorous bound; :func:`chernoff_bound` is the rigorous one."""
    return np.exp((delta_g - np.atleast_1d(np.asarray(eps, dtype=float))) / s)


# --------------------------------------------------------------------------------------------
# supremum over the edges of a neighbourhood graph


@dataclass
class EdgeDelta:
    """delta(eps) = sup over directed edges (i, j) of Pr(L_ij > eps) under i."""

    eps: np.ndarray
    delta: np.ndarray
    worst_edge: np.ndarray        # (n_eps, 2) edge attaining the sup at each eps
    n_edges: int
    n_exact: int                  # edges evaluated exactly (others pruned by the Chernoff bound)


def delta_sup_over_edges(means: np.ndarray, covs: np.ndarray, edges: np.ndarray, eps,
                         *, method: str = "exact", prune: bool = True, tol: float = 1e-8,
                         mc_samples: int = 0, rng: np.random.Generator | None = None) -> EdgeDelta:
    """delta(eps) of a mechanism releasing N(means[i], covs[i]) for label i: sup over ``edges``.

    With ``method='exact'`` and ``prune``, edges are visited in decreasing order of the surrogate
    metric (eq. 41); an edge whose Lemma-1 Chernoff bound (grid-minimised, a valid upper bound)
    does not exceed the running supremum at any eps cannot change the result and is skipped.
    ``method='monte_carlo'`` uses ``mc_samples`` draws per edge from ``rng``.
    """
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    edges = np.asarray(edges, dtype=int).reshape(-1, 2)
    if edges.size == 0:
        raise ValueError("delta_sup_over_edges: the neighbourhood graph has no edges")
    losses = [privacy_loss(means[i], covs[i], means[j], covs[j]) for i, j in edges]
    order = np.argsort([-l.surrogate for l in losses], kind="stable")
    best = np.full(eps_arr.size, -1.0)
    arg = np.zeros((eps_arr.size, 2), dtype=int)
    n_exact = 0
    for e in order:
        loss = losses[e]
        if method == "exact":
            if prune and n_exact > 0 and np.all(chernoff_bound_grid(loss, eps_arr) <= best):
                continue
            d = delta_exact(loss, eps_arr, tol=tol)
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
    return EdgeDelta(eps_arr, best, arg, len(edges), n_exact)

"""delta_l of the modulo-K label mechanism (dpkmeans paper, Theorem 4 and Appendix A).

The mechanism (eq. 19) adds i.i.d. noise nu_p in [K] (mod K) to the labels of the points in L,
with Pr(nu = 0) = 1 - rho and Pr(nu = j) = rho / (K - 1) for j != 0.  For neighbours whose label
vectors differ in D = ||1_XX'||_0 positions, the privacy loss is

    L = (M_0 - M_c) * log((1 - rho)(K - 1) / rho),

with (M_0, M_c, D - M_0 - M_c) multinomial(D; 1 - rho, rho/(K-1), rho(K-2)/(K-1)) (eq. 23).
delta_l = Pr(L >= eps_l) (eq. 21/24/25) is evaluated here in log space (log-multinomial pmf and
log-sum-exp), which is stable for large D and for K = 2 (where the third category is empty).

``strict=True`` gives Pr(L > eps_l), Definition 4 (eq. 9) exactly; ``strict=False`` gives the
appendix's Pr(L >= eps_l) (eq. 21), which is what Theorem 4's formula sums.  They differ only when
eps_l / log((1-rho)(K-1)/rho) is an integer.
"""

from __future__ import annotations

import math

import numpy as np


def _check(K: int, rho: float) -> None:
    if int(K) != K or K < 2:
        raise ValueError(f"number of clusters K must be an integer >= 2, got {K!r}")
    if not 0 < rho < (K - 1) / K:
        raise ValueError(f"rho must lie in (0, (K-1)/K) = (0, {(K - 1) / K:.4g}), got {rho!r}")


def loss_unit(rho: float, K: int) -> float:
    """log((1 - rho)(K - 1)/rho): the privacy loss of one more zero-noise coordinate."""
    _check(K, rho)
    return math.log((1.0 - rho) * (K - 1) / rho)


def log_trinomial_pmf(D: int, rho: float, K: int) -> np.ndarray:
    """log Pr(M_0 = m0, M_c = mc) on the grid (D+1) x (D+1) (eq. 23); -inf outside the simplex."""
    from scipy.special import gammaln

    m0 = np.arange(D + 1)[:, None]
    mc = np.arange(D + 1)[None, :]
    rest = D - m0 - mc
    valid = rest >= 0
    restc = np.where(valid, rest, 0)
    out = gammaln(D + 1) - gammaln(m0 + 1) - gammaln(mc + 1) - gammaln(restc + 1)
    out = out + m0 * math.log1p(-rho) + mc * math.log(rho / (K - 1))
    if K > 2:
        out = out + restc * math.log(rho * (K - 2) / (K - 1))
    else:
        valid = valid & (rest == 0)
    return np.where(valid, out, -np.inf)


def label_delta(eps: float, rho: float, K: int, D: int, *, strict: bool = True) -> float:
    """delta_l(eps_l) of Theorem 4 for label sensitivity D = Delta_1 (see module doc)."""
    from scipy.special import logsumexp

    _check(K, rho)
    if eps < 0:
        raise ValueError(f"eps_l must be >= 0, got {eps!r}")
    D = int(D)
    if D == 0:
        return 0.0
    ell = eps / loss_unit(rho, K)
    lp = log_trinomial_pmf(D, rho, K)
    diff = np.arange(D + 1)[:, None] - np.arange(D + 1)[None, :]
    mask = diff > ell if strict else diff >= ell - 1e-12
    if not mask.any():
        return 0.0
    return float(min(1.0, math.exp(logsumexp(lp[mask]))))


def theorem4_formula(eps: float, rho: float, K: int, D: int) -> float:
    """Theorem 4's printed double sum (eq. 25), term by term in floating point, K >= 3.

    For cross-checking :func:`label_delta` (strict=False) at small D only; it overflows for large D.
    """
    _check(K, rho)
    if K < 3:
        raise ValueError("the printed formula divides by (K - 2); use label_delta for K = 2")
    ell = math.ceil(eps / loss_unit(rho, K) - 1e-12)
    if ell > D:
        return 0.0
    a = (K - 1) * (1 - rho) / rho
    total = 0.0
    for mc in range(D + 1):
        for m0 in range(ell + mc, D + 1):
            if m0 + mc > D:
                continue
            total += (
                a**m0
                * (K - 2.0) ** (-(m0 + mc))
                / (math.factorial(m0) * math.factorial(mc) * math.factorial(D - m0 - mc))
            )
    return math.factorial(D) * (rho * (K - 2) / (K - 1)) ** D * total


def rho_pure(eps: float, K: int, D: int) -> float:
    """Smallest rho with delta_l = 0 (strict PDP): D * log((1-rho)(K-1)/rho) = eps."""
    if D == 0:
        raise ValueError("Delta_1 = 0: no label is sensitive, no label noise is needed")
    return (K - 1) / (K - 1 + math.exp(eps / D))


def rho_for_delta(eps: float, delta: float, K: int, D: int, *, strict: bool = True, tol: float = 1e-10) -> float:
    """Smallest noise level rho with label_delta(eps, rho) <= delta (bisection; verified).

    delta = 0 gives :func:`rho_pure`.  The returned rho always satisfies the target.
    """
    if D == 0:
        return 0.0
    hi = _feasible_rho_pure(eps, K, D, max(delta, 0.0), strict)
    if delta <= 0:
        return hi
    lo = 1e-15
    if label_delta(eps, lo, K, D, strict=strict) <= delta:
        return lo
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        if label_delta(eps, mid, K, D, strict=strict) <= delta:
            hi = mid
        else:
            lo = mid
    if label_delta(eps, hi, K, D, strict=strict) > delta:
        raise RuntimeError("rho_for_delta: bisection ended at an infeasible rho (delta not monotone in rho?)")
    return hi


def _feasible_rho_pure(eps: float, K: int, D: int, delta: float, strict: bool) -> float:
    """:func:`rho_pure`, raised by a few ulps if rounding leaves eps / loss_unit just below D.

    At rho_pure the largest privacy loss equals eps exactly, so the closed form can land one
    rounding step on the wrong side (e.g. eps / loss_unit = 3.9999999999999996 for D = 4), where
    the strict tail is not 0 yet; the next representable rhos above it are feasible.
    """
    hi = rho_pure(eps, K, D)
    for _ in range(64):
        if label_delta(eps, hi, K, D, strict=strict) <= delta:
            return hi
        hi = math.nextafter(hi, 1.0)
    raise RuntimeError(
        f"rho_for_delta: no feasible rho within 64 ulps above rho_pure = {rho_pure(eps, K, D)!r} "
        f"(eps={eps}, K={K}, D={D}, delta={delta})"
    )


def expected_label_errors(rho: float, n_sensitive: int) -> float:
    """E ||1_L(X) - 1~_L(X)||_0 = |L| rho (Sec. III-B-2)."""
    return rho * n_sensitive

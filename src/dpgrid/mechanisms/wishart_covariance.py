"""Wishart mechanism for a differentially private second-moment matrix.

Jiang, Xie, Zhang, "Wishart Mechanism for Differentially Private Principal Components Analysis",
AAAI 2016 (ref. [33] of the dpkmeans paper, used in its Algorithm 2 line 6).  For rows with
||y_i||_2 <= B, A = (1/n) Y'Y is released as A + W with W ~ Wishart_d(d + 1, C), C = 3 B^2/(2 n eps) I
(Jiang et al.'s theorem, stated for B = 1; rescaling the rows by 1/B gives the B^2 factor).
Rows with a larger norm are clipped to B (clipping is part of the mechanism and is logged).
The draw uses scipy.stats.wishart.

Accounting.  Jiang et al. claim (eps, 0)-DP for neighbours that replace one row.  Their density-ratio
bound ignores the *support*: the output O = A + W is PD-shifted from A, and O - A' need not be PD.
With df = d + 1 the Wishart log-density is -tr(M)/(2c) + const on PD matrices, so the privacy loss
of a pair is either tr(A - A')/(2c) <= eps/3 or +infinity (O impossible under A').  For the
replace-one pair x = 0, x' = B e (rows in the ball include 0), O - A' = W - x'x''/n fails to be PD iff
(e' W~^{-1} e)^{-1} <= 2 eps / 3 with W~ ~ Wishart_d(d+1, I), and (e' W~^{-1} e)^{-1} ~ chi^2_2, so

    delta_W(eps) = 1 - exp(-eps / 3)    (for every eps' >= eps/3: Pr(L > eps') = delta_W)

(:func:`wishart_delta`; checked by the Monte Carlo audit in the tests).  At eps = 30 this is
1 - e^{-10}: the mechanism as published protects essentially nothing.  :func:`analyze_gauss_second_moment`
is a sound alternative (symmetric Gaussian noise, Dwork et al. 2014 "Analyze Gauss", calibrated
exactly with the analytic Gaussian mechanism of Balle and Wang 2018).
"""

from __future__ import annotations

import logging

import numpy as np

from dpgrid.privacy.gaussian import analytic_sigma

LOG = logging.getLogger(__name__)


def clip_rows(Y: np.ndarray, bound: float) -> np.ndarray:
    n = np.linalg.norm(Y, axis=1)
    f = np.minimum(1.0, bound / np.maximum(n, 1e-300))
    if (f < 1).any():
        LOG.info("Wishart mechanism: clipped %d of %d rows to norm %.4g", int((f < 1).sum()), len(f), bound)
    return Y * f[:, None]


def wishart_scale(n: int, d: int, eps: float, bound: float) -> float:
    """Scalar c of C = c I: 3 B^2 / (2 n eps)."""
    if eps <= 0 or n < 1 or bound <= 0:
        raise ValueError(f"Wishart mechanism needs eps > 0, n >= 1, bound > 0; got {eps!r}, {n!r}, {bound!r}")
    return 3.0 * bound**2 / (2.0 * n * eps)


def wishart_second_moment(Y: np.ndarray, eps: float, bound: float, rng: np.random.Generator) -> np.ndarray:
    """(eps, 0)-DP release of (1/n) Y'Y (rows clipped to norm ``bound``)."""
    from scipy.stats import wishart

    Y = clip_rows(np.asarray(Y, dtype=float), bound)
    n, d = Y.shape
    c = wishart_scale(n, d, eps, bound)
    W = wishart(df=d + 1, scale=c * np.eye(d)).rvs(random_state=rng)
    W = np.atleast_2d(W)
    return Y.T @ Y / n + W


def wishart_delta(eps: float) -> float:
    """delta of the Jiang et al. Wishart mechanism with df = d + 1 (see module doc): 1 - exp(-eps/3)."""
    if eps <= 0:
        raise ValueError(f"eps must be > 0, got {eps!r}")
    return float(-np.expm1(-eps / 3.0))


def analyze_gauss_second_moment(
    Y: np.ndarray, eps: float, delta: float, bound: float, rng: np.random.Generator
) -> np.ndarray:
    """(eps, delta)-DP release of (1/n) Y'Y: symmetric i.i.d. Gaussian noise on the upper triangle.

    Replace-one sensitivity ||x x' - y y'||_F / n <= sqrt(2) B^2 / n; sigma from the analytic
    Gaussian mechanism.
    """
    Y = clip_rows(np.asarray(Y, dtype=float), bound)
    n, d = Y.shape
    sigma = analytic_sigma(eps, delta, np.sqrt(2.0) * bound**2 / n)
    E = np.triu(rng.normal(0.0, sigma, (d, d)))
    E = E + np.triu(E, 1).T
    return Y.T @ Y / n + E


def wishart_privacy_loss(out: np.ndarray, A: np.ndarray, A2: np.ndarray, c: float) -> np.ndarray:
    """log f(out | A) - log f(out | A') for the Wishart mechanism (for audits); +inf if out - A' is not PD."""
    from scipy.stats import wishart

    d = A.shape[0]
    dist = wishart(df=d + 1, scale=c * np.eye(d))
    out = np.asarray(out)
    res = []
    for o in out.reshape(-1, d, d):
        try:
            np.linalg.cholesky(o - A2)
            l2 = dist.logpdf(o - A2)
        except np.linalg.LinAlgError:
            res.append(np.inf)
            continue
        res.append(dist.logpdf(o - A) - l2)
    return np.array(res)


def nearest_psd(S: np.ndarray, floor: float) -> np.ndarray:
    """Symmetrise and clip eigenvalues at ``floor`` (post-processing, no privacy cost)."""
    S = 0.5 * (S + S.T)
    w, V = np.linalg.eigh(S)
    return (V * np.maximum(w, floor)) @ V.T

"""Model-based audit of a probabilistic-DP (PDP) delta for releases whose output law is Gaussian.

A PDP claim bounds delta_PDP(eps) = Pr_{M(D)}[L > eps], L = ln f_D(M(D)) / f_D'(M(D)) the privacy loss of the
release (classdp Definition 1). It is never smaller than the hockey-stick delta that
:mod:`dpgrid.privacy.blackbox_audit` bounds, so a mechanism can break a PDP claim while every hockey-stick bound
stays below it (e.g. classdp noise with its correlations dropped). This module bounds delta_PDP itself, under a
*model*: the releases of M(D) and M(D') are Gaussian (classdp: the class data plus Gaussian noise, label-dependent
covariances). Only samples of the two releases are used; nothing of the mechanism (sensitivity, noise design,
densities, accounting) is read.

1. **Fit**: mean and covariance of each sample (:func:`fit_gaussian`).
2. **Gaussianity check** (:func:`whitened_normality_p`): each sample whitened by its own fit, the D'Agostino-Pearson
   K^2 test on every whitened marginal, the smallest p-value times the number of marginals (Bonferroni). Below
   ``min_normal_p`` the model is rejected and no bound is given (the row then rests on the hockey-stick bound).
3. **Point estimate**: delta_PDP of the fitted pair by Monte Carlo: the fraction of ``draws`` normals, drawn as the
   fitted M(D), whose loss under the two fitted Gaussian densities exceeds eps (:func:`_mc_delta`, written out here).
   No privacy-loss code of the project is used (its exact evaluator, :mod:`dpgrid.privacy.gaussian_loss`, also
   computes the claims the audit checks, so an error there would move claim and estimate together).
4. **Lower confidence bound** by a *parametric* bootstrap (:func:`pdp_lower_bound`): under the fitted model the
   sample mean and covariance have the exact laws N(m, S/n) and Wishart(n - 1, S/(n - 1)) (Bartlett), so each of
   ``bootstrap`` replicates redraws both fits without redrawing releases; its delta_PDP is the fraction of ``draws``
   common random normals (one set for every replicate and the fitted pair, so the replicates differ by the
   parameters only) whose loss exceeds eps. With the replicates' mean bias b and standard deviation s,

       delta_lb = delta_hat - b - t_{B-1}(level) sqrt(s^2 + delta_hat (1 - delta_hat) / draws)

   (bias-corrected normal bootstrap interval, one-sided; the Student quantile accounts for the B replicates'
   estimate of s; the binomial term is the Monte Carlo error of delta_hat itself, which the replicates, sharing its
   normals, do not see). Approximate: valid as n grows with the Gaussian model, not a finite-sample guarantee like the
   Clopper-Pearson bounds of :mod:`~dpgrid.privacy.blackbox_audit`. Where the bootstrap bias exceeds its standard
   deviation (a non-regular case: two nearly identical laws, whose fitted loss is estimation noise of spread
   comparable to eps, so the plug-in delta is biased upwards by more than the bootstrap sees) no bound is given
   at that eps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Label of the method in audit rows.
METHOD = "model-based PDP (Gaussian fit, parametric bootstrap)"


def fit_gaussian(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sample mean and (unbiased) sample covariance of the rows of ``x``."""
    x = np.asarray(x, dtype=float).reshape(len(x), -1)
    return x.mean(0), np.atleast_2d(np.cov(x, rowvar=False))


def whitened_normality_p(x: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> float:
    """Bonferroni p-value of 'every whitened marginal is normal': D'Agostino-Pearson K^2 on each coordinate of
    L^{-1}(x - mean) (L L^T = cov), min p times the dimension (capped at 1)."""
    from scipy import stats

    x = np.asarray(x, dtype=float).reshape(len(x), -1)
    z = np.linalg.solve(np.linalg.cholesky(cov), (x - mean).T)
    p = stats.normaltest(z, axis=1).pvalue
    return float(min(1.0, np.min(p) * z.shape[0]))


def _bartlett(chol: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Cholesky factor of a draw of the sample covariance of n normal rows with covariance chol chol^T."""
    k = chol.shape[0]
    a = np.tril(rng.standard_normal((k, k)), -1)
    a[np.diag_indices(k)] = np.sqrt(rng.chisquare(n - 1 - np.arange(k)))
    return chol @ a / math.sqrt(n - 1)


def _mc_delta(z, half_sq, m_a, r_a, m_b, r_b, eps: np.ndarray) -> np.ndarray:
    """Fraction of x = m_a + r_a z with ln N(x; m_a, r_a) - ln N(x; m_b, r_b) > eps (common normals z)."""
    from scipy import linalg

    t = linalg.solve_triangular(r_b, np.column_stack([r_a, m_a - m_b]), lower=True)
    # r_b^{-1} (x - m_b); einsum, not BLAS: a multithreaded BLAS would spin its threads on these small products
    w = np.einsum("ij,jn->in", t[:, :-1], z) + t[:, -1:]
    loss = 0.5 * np.einsum("ij,ij->j", w, w) - half_sq + np.log(np.diag(r_b)).sum() - np.log(np.diag(r_a)).sum()
    return (loss[:, None] > eps).mean(0)


@dataclass(frozen=True)
class PdpBound:
    """Model-based PDP audit of one pair at one or more eps."""

    eps: np.ndarray
    delta_estimate: np.ndarray  # delta_PDP of the fitted pair (Monte Carlo, ``draws`` normals)
    delta_lower_bound: np.ndarray  # nan when the Gaussian model is rejected or the bias exceeds the sd (per eps)
    bias: np.ndarray
    sd: np.ndarray
    normal_p: float  # Bonferroni p-value of the whitened-marginal normality tests (both samples)
    samples: int
    bootstrap: int

    min_normal_p: float = 1e-3

    @property
    def gaussian_ok(self) -> bool:
        """The Gaussian model is not rejected by the normality check."""
        return self.normal_p >= self.min_normal_p


def pdp_lower_bound(
    a: np.ndarray,
    b: np.ndarray,
    eps: Sequence[float] | float,
    *,
    level: float,
    rng: np.random.Generator,
    bootstrap: int = 50,
    draws: int = 40_000,
    min_normal_p: float = 1e-3,
) -> PdpBound:
    """Lower confidence bound (approximately at ``level``, per eps) on Pr_{M(D)}[L > eps] from samples ``a`` of M(D)
    and ``b`` of M(D'), under the model that both are Gaussian (module docstring). ``bootstrap`` >= 2 parametric
    replicates, ``draws`` common normals per replicate. If the normality p-value is below ``min_normal_p`` the
    bound is nan (model rejected); at an eps where the bootstrap bias exceeds its sd, nan as well (non-regular)."""
    from scipy import stats

    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    if bootstrap < 2:
        raise ValueError(f"bootstrap must be >= 2, got {bootstrap}")
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    a = np.asarray(a, dtype=float).reshape(len(a), -1)
    b = np.asarray(b, dtype=float).reshape(len(b), -1)
    n_a, n_b = len(a), len(b)
    k = a.shape[1]
    if min(n_a, n_b) <= k + 1:
        raise ValueError(f"need more than {k + 1} samples per neighbour, got {min(n_a, n_b)}")
    (m_a, s_a), (m_b, s_b) = fit_gaussian(a), fit_gaussian(b)
    normal_p = min(1.0, 2.0 * min(whitened_normality_p(a, m_a, s_a), whitened_normality_p(b, m_b, s_b)))
    r_a, r_b = np.linalg.cholesky(s_a), np.linalg.cholesky(s_b)
    z = rng.standard_normal((k, draws))
    half_sq = 0.5 * (z**2).sum(0)
    hat = _mc_delta(z, half_sq, m_a, r_a, m_b, r_b, eps_arr)
    nan = np.full(eps_arr.shape, np.nan)
    if normal_p < min_normal_p:
        return PdpBound(eps_arr, hat, nan, nan, nan, normal_p, min(n_a, n_b), bootstrap, min_normal_p)
    reps = np.empty((bootstrap, eps_arr.size))
    for i in range(bootstrap):
        ma = m_a + r_a @ rng.standard_normal(k) / math.sqrt(n_a)
        mb = m_b + r_b @ rng.standard_normal(k) / math.sqrt(n_b)
        reps[i] = _mc_delta(z, half_sq, ma, _bartlett(r_a, n_a, rng), mb, _bartlett(r_b, n_b, rng), eps_arr)
    bias = reps.mean(0) - hat
    sd = reps.std(0, ddof=1)
    spread = np.sqrt(sd**2 + hat * (1.0 - hat) / draws)
    lb = np.clip(hat - bias - stats.t.isf(1.0 - level, bootstrap - 1) * spread, 0.0, 1.0)
    # a bias above the spread marks the non-regular case (near-identical pair, eps inside the fitted loss's
    # estimation noise): the plug-in bias is then larger than the bootstrap sees, and no bound is given; nor
    # where no replicate moves (sd 0: the common draws do not resolve the tail)
    lb = np.where((np.abs(bias) <= sd) & (sd > 0), lb, np.nan)
    return PdpBound(eps_arr, hat, lb, bias, sd, normal_p, min(n_a, n_b), bootstrap, min_normal_p)

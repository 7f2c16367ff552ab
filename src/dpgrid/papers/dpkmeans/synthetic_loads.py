"""Differentially private synthetic daily load profiles (dpkmeans paper, Sec. IV, Algorithm 2).

For each cluster k (grouping g of the houses, here the published DP labels):

    Y_k = log(X_k + alpha)                                    (line 4)
    mu_k = mean(Y_k) + eta_k                                  (line 5, colored Gaussian mechanism)
    Sigma_k = DP covariance (Wishart mechanism)               (line 6, see below)
    X~ = exp(N(mu_k, Sigma_k)) - alpha                        (lines 7-8)

Line 6 prints the second moment X_k X_k'/|c_k| where a covariance is meant.  We release the DP
second moment of Z = Y - log(alpha) (a public reference, so rows are small and non-negative) with
the Wishart mechanism and form Sigma_k = M_k - (mu_k - ref)(mu_k - ref)' from the DP quantities,
then clip eigenvalues at ``cov_floor`` (post-processing).  The Wishart noise has mean (d+1) c I;
``debias_wishart`` subtracts it (post-processing, c is public) before the eigenvalue clipping.

DP means.  The leave-one-out shifts of the log-domain cluster means are computed exactly for the
grouping: removing p moves mean g_p, and the points whose K-means label changes on that removal
(from :class:`~dpgrid.mechanisms.kmeans_sensitivity.LeaveOneOutAnalysis`) move between groups by
the same modular offset.  Eq. (15) is solved on those shifts (one joint mechanism for all means).

Accounting: means (eps_c, delta_c); covariances (eps_w, delta_w) per cluster, parallel over disjoint
clusters (replace-one neighbours, n_k treated as public); total by Lemma 1.  For the paper's
Wishart mechanism delta_w = 1 - exp(-eps_w/3) (:func:`~dpgrid.mechanisms.wishart_covariance.wishart_delta`,
not the 0 Jiang et al. claim); ``cov_mechanism="analyze_gauss"`` uses the exactly calibrated
Gaussian alternative at a chosen delta_w.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpgrid.mechanisms.colored_centroid_noise import gamma_c, optimal_colored_design
from dpgrid.mechanisms.wishart_covariance import (
    analyze_gauss_second_moment,
    nearest_psd,
    wishart_delta,
    wishart_scale,
    wishart_second_moment,
)
from dpgrid.models.lognormal import log_transform, sample_shifted_lognormal

LOG = logging.getLogger(__name__)


@dataclass
class ClusterLogNormal:
    mu: np.ndarray
    cov: np.ndarray
    n: int


def group_means(Y: np.ndarray, g: np.ndarray, K: int) -> np.ndarray:
    counts = np.bincount(g, minlength=K)
    if (counts == 0).any():
        raise ValueError(f"empty group(s) {np.flatnonzero(counts == 0).tolist()}")
    S = np.zeros((K, Y.shape[1]))
    np.add.at(S, g, Y)
    return S / counts[:, None]


def log_mean_shifts(Y: np.ndarray, g: np.ndarray, K: int, loo=None, kmeans_labels=None) -> np.ndarray:
    """Leave-one-out shifts (P, K*d) of the group means of Y (see module doc)."""
    P, d = Y.shape
    mu = group_means(Y, g, K)
    counts = np.bincount(g, minlength=K)
    shifts = np.zeros((P, K * d))
    for p in range(P):
        k = g[p]
        if loo is not None and len(loo.changed[p]):
            keep = np.ones(P, dtype=bool)
            keep[p] = False
            g2 = g.copy()
            q, new = loo.changed[p], loo.changed_to[p]
            g2[q] = (g[q] + new - kmeans_labels[q]) % K
            shifts[p] = (mu - group_means(Y[keep], g2[keep], K)).ravel()
        else:
            if counts[k] <= 1:
                raise ValueError(f"group {k} has a single member; its mean has unbounded sensitivity")
            shifts[p, k * d : (k + 1) * d] = (Y[p] - mu[k]) / (counts[k] - 1)
    return shifts


def dp_lognormal_models(
    X: np.ndarray,
    g: np.ndarray,
    K: int,
    *,
    alpha: float,
    eps_c: float,
    delta_c: float,
    eps_w: float,
    calibration: str,
    row_bound: float,
    cov_floor: float,
    rng: np.random.Generator,
    loo=None,
    kmeans_labels=None,
    cov_mechanism: str = "wishart",
    delta_w: float | None = None,
    debias_wishart: bool = False,
    mean_design=None,
):
    """Algorithm 2 lines 2-6: DP log-normal parameters per group; returns (models, info dict).

    ``mean_design`` (optional) is the colored design of the log-mean shifts for these data and ``alpha``
    (:func:`log_mean_design`), to reuse it across settings; the draws are the same either way.
    ``cov_mechanism="nonprivate"`` is a reference without privacy for the covariances: each group's sample
    covariance of log(x + alpha), no noise (the means stay DP); it measures what the log-normal model gives
    apart from the covariance noise (delta_w = 1: no guarantee).
    """
    Y = log_transform(X, alpha)
    ref = math.log(alpha)
    mu = group_means(Y, g, K)
    shifts = log_mean_shifts(Y, g, K, loo, kmeans_labels)
    design = mean_design if mean_design is not None else optimal_colored_design(shifts)
    gam = gamma_c(eps_c, delta_c, calibration)
    eta = design.sample(rng, gam).reshape(K, -1)
    mu_dp = mu + eta
    models = []
    for k in range(K):
        Z = Y[g == k] - ref
        if cov_mechanism == "wishart":
            M = wishart_second_moment(Z, eps_w, row_bound, rng)
            if debias_wishart:  # subtract E[W] = (d + 1) c I (public): post-processing
                d = Z.shape[1]
                M = M - (d + 1) * wishart_scale(len(Z), d, eps_w, row_bound) * np.eye(d)
        elif cov_mechanism == "nonprivate":
            models.append(
                ClusterLogNormal(
                    mu_dp[k], nearest_psd(np.cov(Z, rowvar=False, bias=True), cov_floor), int((g == k).sum())
                )
            )
            continue
        elif cov_mechanism == "analyze_gauss":
            if delta_w is None:
                raise ValueError("cov_mechanism 'analyze_gauss' needs delta_w")
            M = analyze_gauss_second_moment(Z, eps_w, delta_w, row_bound, rng)
        else:
            raise ValueError(f"cov_mechanism must be 'wishart', 'analyze_gauss' or 'nonprivate', got {cov_mechanism!r}")
        m = mu_dp[k] - ref
        cov = nearest_psd(M - np.outer(m, m), cov_floor)
        models.append(ClusterLogNormal(mu_dp[k], cov, int((g == k).sum())))
    info = {
        "log_mean_sensitivity": float(np.sqrt((shifts**2).sum(1).max())),
        "noise_trace": design.trace(gam),
        "solver_gap": design.gap,
        "cov_mechanism": cov_mechanism,
        "eps_w": eps_w if cov_mechanism != "nonprivate" else math.inf,
        "delta_w": {"wishart": wishart_delta(eps_w), "nonprivate": 1.0}.get(cov_mechanism, delta_w),
    }
    info["eps_total"] = eps_c + info["eps_w"]
    info["delta_total"] = min(1.0, delta_c + info["delta_w"])
    return models, info


def log_mean_design(X: np.ndarray, g: np.ndarray, K: int, alpha: float, loo=None, kmeans_labels=None):
    """The colored design (eq. 15) of the leave-one-out shifts of the log-domain group means (Alg. 2 line 5)."""
    return optimal_colored_design(log_mean_shifts(log_transform(X, alpha), g, K, loo, kmeans_labels))


def synthesize_profiles(models, n_per_cluster, alpha: float, rng: np.random.Generator):
    """Algorithm 2 lines 7-8: ``n_per_cluster[k]`` profiles per cluster; returns list of arrays."""
    return [sample_shifted_lognormal(m.mu, m.cov, alpha, int(n), rng) for m, n in zip(models, n_per_cluster)]


def band_table(X: np.ndarray, g: np.ndarray, samples, lo: float, hi: float) -> pd.DataFrame:
    """Fig. 11 bands: per group and hour, the true data's empirical [lo, hi] quantiles and those of the
    synthetic ``samples[k]`` (profiles drawn from group k's model), their overlap and the negative shares.

    ``coverage`` = |true band intersect synthetic band| / |true band| (1 if the true band is a point
    inside the synthetic one), ``iou`` = intersection over union, ``width_ratio`` = synthetic band width
    over true band width; ``neg_true`` / ``neg_synthetic`` = fraction of values below zero.
    """
    rows = []
    for k, S in enumerate(samples):
        Xt = X[g == k]
        for h in range(X.shape[1]):
            tl, th = np.quantile(Xt[:, h], [lo, hi]) if len(Xt) else (np.nan, np.nan)
            sl, sh = np.quantile(S[:, h], [lo, hi])
            inter = max(0.0, min(th, sh) - max(tl, sl))
            union = max(th, sh) - min(tl, sl)
            rows.append(
                {
                    "cluster": k,
                    "hour": h,
                    "n_true": len(Xt),
                    "true_mean": Xt[:, h].mean() if len(Xt) else np.nan,
                    "true_lo": tl,
                    "true_hi": th,
                    "synthetic_mean": S[:, h].mean(),
                    "synthetic_lo": sl,
                    "synthetic_hi": sh,
                    "coverage": inter / (th - tl) if th > tl else float(sl <= tl and th <= sh),
                    "iou": inter / union if union > 0 else 1.0,
                    "width_ratio": (sh - sl) / (th - tl) if th > tl else np.inf,
                    "neg_true": float((Xt[:, h] < 0).mean()) if len(Xt) else np.nan,
                    "neg_synthetic": float((S[:, h] < 0).mean()),
                }
            )
    return pd.DataFrame(rows)


def band_summary(bands: pd.DataFrame) -> dict:
    """Means over groups and hours of :func:`band_table` (the Fig. 11 numbers of the claims table).

    ``neg_*`` are weighted by the group sizes of the true data (the synthetic release has as many
    profiles per group as the data), i.e. the expected share of negative values of a release.
    """
    w = bands["n_true"].to_numpy(float)
    avg = (lambda c: float(np.average(bands[c], weights=w))) if w.sum() else (lambda c: float("nan"))
    return {
        "mean_coverage": float(bands["coverage"].mean()),
        "mean_iou": float(bands["iou"].mean()),
        "median_width_ratio": float(bands["width_ratio"].median()),
        "neg_true": avg("neg_true"),
        "neg_synthetic": avg("neg_synthetic"),
    }

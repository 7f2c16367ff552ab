"""Clustering loss and DP accuracy loss of a (noisy) K-means release.

dpkmeans paper (Ravi, Scaglione et al., IEEE TSG 2022), Definitions 1-2 (eqs. 5, 6): clustering loss
r(X, q) and DP accuracy loss r_bar = (r(X, q~) - r(X, q)) / r(X, q).

Expected loss.  With labels fixed and eta_k ~ N(0, Sigma_kk), E[r(X, q~)] - r(X, q) =
sum_k (n_k / P) tr(Sigma_kk) (the cross term has zero mean).  The paper's derivation writes
||eta||^2 (all K blocks, unweighted), which is the objective of eq. (15); the weighted form is
the exact expectation and is what we report.  With label noise of level rho on L, each p in L moves
to each other cluster j with probability rho/(K-1); that term is added exactly.
"""

from __future__ import annotations

import numpy as np


def clustering_loss(X: np.ndarray, centroids: np.ndarray, labels: np.ndarray) -> float:
    """Eq. (5): (1/P) sum_p ||x_p - c_{l_p}||^2."""
    X = np.asarray(X, dtype=float)
    return float(((X - np.asarray(centroids)[np.asarray(labels)]) ** 2).sum(1).mean())


def dp_accuracy_loss(X, true_centroids, true_labels, noisy_centroids, noisy_labels) -> float:
    """Eq. (6): (r(X, q~) - r(X, q)) / r(X, q)."""
    r0 = clustering_loss(X, true_centroids, true_labels)
    return (clustering_loss(X, noisy_centroids, noisy_labels) - r0) / r0


def expected_dp_accuracy_loss(
    X, centroids, labels, noise_cov: np.ndarray | None, sensitive: np.ndarray | None = None, rho: float = 0.0
) -> float:
    """E[r_bar] for centroid noise with covariance ``noise_cov`` (Kd x Kd) and label noise rho on L."""
    X = np.asarray(X, dtype=float)
    C = np.asarray(centroids, dtype=float)
    labels = np.asarray(labels)
    K, d = C.shape
    P = X.shape[0]
    r0 = clustering_loss(X, C, labels)
    tr_k = np.zeros(K)
    if noise_cov is not None:
        diag = np.diag(noise_cov).reshape(K, d)
        tr_k = diag.sum(1)
    counts = np.bincount(labels, minlength=K)
    extra = float((counts * tr_k).sum()) / P
    if sensitive is not None and len(sensitive) and rho > 0:
        s = np.asarray(sensitive, dtype=int)
        D = ((X[s, None, :] - C[None, :, :]) ** 2).sum(2) + tr_k[None, :]  # (|L|, K)
        own = D[np.arange(len(s)), labels[s]]
        other_mean = (D.sum(1) - own) / (K - 1)
        extra += rho * float((other_mean - own).sum()) / P
    return extra / r0


def centroid_error(true_centroids, centroids) -> float:
    """Root mean square over the K clusters of ||c~_k - c_k||_2 (kW), after matching the clusters.

    Released centroids carry no cluster identity (another implementation may order them differently), so
    the clusters are matched by the assignment of least total squared distance (scipy's Hungarian
    ``linear_sum_assignment``).  For Gaussian noise eta on fixed clusters, E[error^2] = tr(Sigma_eta) / K.
    """
    from scipy.optimize import linear_sum_assignment

    C = np.asarray(true_centroids, dtype=float)
    Cn = np.asarray(centroids, dtype=float)
    if C.shape != Cn.shape or C.ndim != 2:
        raise ValueError(f"need two (K x d) arrays of the same shape, got {C.shape} and {Cn.shape}")
    cost = ((C[:, None, :] - Cn[None, :, :]) ** 2).sum(2)
    r, c = linear_sum_assignment(cost)
    return float(np.sqrt(cost[r, c].mean()))

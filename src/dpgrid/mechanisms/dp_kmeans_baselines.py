"""Baseline differentially private K-means algorithms compared in Fig. 9 (centre) of the dpkmeans paper.

Re-implemented from the published descriptions (no third-party code); every detail the
descriptions leave open is a documented parameter (workflow/papers/dpkmeans/dpkmeans.md, config ``dpkmeans.baselines``).
All three are pure eps-DP with the Laplace mechanism (:mod:`dpgrid.mechanisms.laplace`); data are clipped to the public box
[0, B]^d (B = ``bound``), which fixes the sensitivities: a cluster count changes by 1 and a
cluster sum by at most ||x||_1 <= d B when one point is added or removed.

* :func:`dplloyd_step` -- one noisy Lloyd iteration (Blum et al. 2005 "SuLQ" k-means, the building
  block of Yu et al. and Ni et al.): noisy counts and noisy sums per cluster.
* :func:`yu_outlier_eliminated_kmeans` -- Yu, Luo, Chen, Ding, "Outlier-eliminated k-means clustering
  algorithm based on differential privacy preservation", Applied Intelligence 45 (2016): outliers
  removed by a k-nearest-neighbour density rule (k = 20), initial centres chosen among high-density
  points far from each other, then noisy Lloyd iterations with an adaptively (geometrically)
  decreasing per-iteration budget.  The outlier removal and the density-based initialisation use
  the raw data and, as in the description, are not charged to the budget (this favours the
  baseline).
* :func:`balcan_high_dim_kmeans` -- Balcan, Dick, Liang, Mou, Zhang, "Differentially private
  clustering in high-dimensional Euclidean spaces", ICML 2017: Johnson-Lindenstrauss projection
  to p dimensions, a private candidate set from noisy counts of a random-shifted hierarchical grid,
  private local search (exponential mechanism over single swaps, utility = -k-means cost,
  sensitivity = squared diameter), then private recovery of the centres in the original space by
  noisy means of the induced clusters.  Budget split in three equal parts.
* :func:`ni_cluster_merging_kmeans` -- Ni, Qiao, Chen, Zhang, Zhong, "Utility-efficient
  differentially private K-means clustering based on cluster merging", Neurocomputing 424 (2021):
  the data are split at random into m disjoint subsets; each runs the adaptive DP Lloyd with the
  full budget (parallel composition), giving K' = m K noisy centres with noisy counts, which are
  merged into K by repeatedly merging the closest pair (count-weighted average) -- post-processing.

Each returns the noisy centroids (K x d); the analyst's labels are the nearest noisy centroids.
"""

from __future__ import annotations

import numpy as np

from dpgrid.mechanisms.kmeans_sensitivity import _sq_dists
from dpgrid.mechanisms.laplace import laplace_release


def _check(eps: float, bound: float) -> None:
    if not eps > 0 or not bound > 0:
        raise ValueError(f"need eps > 0 and bound > 0, got eps={eps!r}, bound={bound!r}")


def dplloyd_step(
    X: np.ndarray,
    C: np.ndarray,
    eps: float,
    bound: float,
    rng: np.random.Generator,
    count_share: float = 0.5,
    return_counts: bool = False,
    draws: int | None = None,
):
    """One eps-DP Lloyd iteration on data clipped to [0, bound]^d.

    ``draws``: that many independent releases of the step at once, stacked on a leading axis (the privacy audit's
    sampler). One release (``draws=None``) runs the same computation with a leading axis of length 1, dropped on
    return: the same noise calls on arrays of the same number of dimensions, the same draws from ``rng``."""
    P, d = X.shape
    K = C.shape[0]
    m = 1 if draws is None else int(draws)
    if m < 1:
        raise ValueError(f"dplloyd_step: draws must be >= 1, got {draws!r}")
    labels = np.argmin(_sq_dists(X, C), axis=1)
    counts = np.bincount(labels, minlength=K).astype(float)
    sums = np.zeros((K, d))
    np.add.at(sums, labels, X)
    e_n, e_s = eps * count_share, eps * (1 - count_share)
    n_noisy = laplace_release(np.broadcast_to(counts, (m, K)), 1.0, e_n, rng)  # a count changes by 1
    s_noisy = laplace_release(np.broadcast_to(sums, (m, K, d)), d * bound, e_s, rng)  # a sum by ||x||_1 <= d B
    newC = np.clip(s_noisy / np.maximum(n_noisy, 1.0)[..., None], 0.0, bound)
    # A cluster with a noisy count below 1 keeps its previous centre (post-processing).
    newC = np.where((n_noisy < 1.0)[..., None], C, newC)
    if draws is None:
        newC, n_noisy = newC[0], n_noisy[0]
    return (newC, n_noisy) if return_counts else newC


def adaptive_budgets(eps: float, n_iter: int) -> np.ndarray:
    """eps/2, eps/4, ..., and the remainder to the last iteration (sums to eps)."""
    b = eps * 0.5 ** np.arange(1, n_iter + 1)
    b[-1] = eps - b[:-1].sum()
    return b


def knn_scores(X: np.ndarray, k: int) -> np.ndarray:
    """Mean distance of each point to its k nearest neighbours (scikit-learn NearestNeighbors).

    scikit-learn chooses brute force for these d = 25 profiles: exact, quadratic in time, memory bounded
    (its pairwise-distance reduction works on 256 x 256 tiles and keeps k neighbours per point). A tree
    search was measured and not taken (benchmarks/bench_knn.py, benchmarks/scale.md): at 141 600 profiles a
    KD-tree is slower (62 s against 45 s CPU), and even with the distances to the tree's candidates recomputed
    by this brute-force code a few scores change in their last bits (42 of 141 600, relative 7e-15: the BLAS
    dot products depend on their position in the tile), so results would no longer be bit for bit these.
    """
    from sklearn.neighbors import NearestNeighbors

    k = min(k, len(X) - 1)
    dist, _ = NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X)
    return dist[:, 1:].mean(1)


def knn_outliers(X: np.ndarray, k: int = 20, factor: float = 3.0, *, scores: np.ndarray | None = None) -> np.ndarray:
    """Boolean mask of outliers: log k-NN score above Q3 + factor * IQR of all log scores.

    The 20-nearest-neighbour heuristic the dpkmeans paper attributes to Yu et al.; the threshold
    (a Tukey fence on the logarithm of the mean k-NN distance, scale free) is our documented choice.
    ``scores``: ``knn_scores(X, k)`` if already computed (the k-NN search is the cost of the rule).
    """
    s = np.log(np.maximum(knn_scores(X, k) if scores is None else scores, 1e-300))
    q1, q3 = np.percentile(s, [25, 75])
    return s > q3 + factor * (q3 - q1)


def knn_fence_factors(X: np.ndarray, k: int = 20, *, scores: np.ndarray | None = None) -> np.ndarray:
    """Per point, the largest Tukey factor at which :func:`knn_outliers` still flags it.

    ``(s - Q3) / IQR`` of the log k-NN scores s, so that ``knn_outliers(X, k, f)`` is ``factors > f``
    (IQR > 0).  The range of factors for which the rule flags exactly a given set of points
    follows (:func:`exact_fence_range`); the dpkmeans experiment reports it for the commercial meters.
    ``scores``: ``knn_scores(X, k)`` if already computed.
    """
    s = np.log(np.maximum(knn_scores(X, k) if scores is None else scores, 1e-300))
    q1, q3 = np.percentile(s, [25, 75])
    if not q3 > q1:
        raise ValueError(f"the log {k}-NN scores have zero interquartile range; the Tukey fence is undefined")
    return (s - q3) / (q3 - q1)


def exact_fence_range(factors: np.ndarray, target: np.ndarray) -> tuple[float, float]:
    """Factors f with ``factors > f`` equal to ``target``: the interval [lo, hi) (empty if lo >= hi).

    lo = the largest factor of a point outside ``target`` (-inf if none), hi = the smallest of a
    point in ``target`` (+inf if none).
    """
    factors, target = np.asarray(factors, dtype=float), np.asarray(target, dtype=bool)
    lo = float(factors[~target].max()) if (~target).any() else -np.inf
    hi = float(factors[target].min()) if target.any() else np.inf
    return lo, hi


def density_initial_centres(X: np.ndarray, K: int, k: int = 20) -> np.ndarray:
    """Yu et al.-style initialisation: densest point first, then maximise density x distance."""
    dens = 1.0 / np.maximum(knn_scores(X, k), 1e-12)
    chosen = [int(np.argmax(dens))]
    dmin = ((X - X[chosen[0]]) ** 2).sum(1)
    for _ in range(1, K):
        j = int(np.argmax(dens * np.sqrt(dmin)))
        chosen.append(j)
        dmin = np.minimum(dmin, ((X - X[j]) ** 2).sum(1))
    return X[chosen].copy()


def yu_outlier_eliminated_kmeans(
    X: np.ndarray,
    K: int,
    eps: float,
    bound: float,
    rng: np.random.Generator,
    *,
    n_iter: int = 5,
    n_neighbors: int = 20,
    outlier_factor: float = 3.0,
    count_share: float = 0.5,
) -> np.ndarray:
    _check(eps, bound)
    Xc = np.clip(X, 0.0, bound)
    Xin = Xc[~knn_outliers(Xc, n_neighbors, outlier_factor)]
    C = density_initial_centres(Xin, K, n_neighbors)
    for e in adaptive_budgets(eps, n_iter):
        C = dplloyd_step(Xin, C, e, bound, rng, count_share)
    return C


def ni_cluster_merging_kmeans(
    X: np.ndarray,
    K: int,
    eps: float,
    bound: float,
    rng: np.random.Generator,
    *,
    n_subsets: int = 4,
    n_iter: int = 5,
    count_share: float = 0.5,
) -> np.ndarray:
    _check(eps, bound)
    Xc = np.clip(X, 0.0, bound)
    part = rng.permutation(len(Xc)) % n_subsets
    cents, weights = [], []
    for s in range(n_subsets):
        Xs = Xc[part == s]
        # data-independent initialisation: K points uniform in the public box
        C = rng.uniform(0.0, bound, (K, Xc.shape[1]))
        counts = None
        for e in adaptive_budgets(eps, n_iter):
            C, counts = dplloyd_step(Xs, C, e, bound, rng, count_share, return_counts=True)
        cents.append(C)
        weights.append(np.maximum(counts, 1.0))
    C = np.vstack(cents)
    w = np.concatenate(weights)
    while len(C) > K:
        D = _sq_dists(C, C)
        np.fill_diagonal(D, np.inf)
        i, j = np.unravel_index(np.argmin(D), D.shape)
        merged = (w[i] * C[i] + w[j] * C[j]) / (w[i] + w[j])
        keep = [t for t in range(len(C)) if t not in (i, j)]
        C = np.vstack([C[keep], merged])
        w = np.concatenate([w[keep], [w[i] + w[j]]])
    return np.clip(C, 0.0, bound)


def balcan_high_dim_kmeans(
    X: np.ndarray,
    K: int,
    eps: float,
    bound: float,
    rng: np.random.Generator,
    *,
    proj_dim: int = 8,
    grid_levels: int = 4,
    n_swaps: int = 5,
    max_candidates: int = 200,
    count_share: float = 0.5,
) -> np.ndarray:
    _check(eps, bound)
    Xc = np.clip(X, 0.0, bound)
    P, d = Xc.shape
    e_cand, e_ls, e_rec = eps / 3, eps / 3, eps / 3
    # 1. Johnson-Lindenstrauss projection (data independent)
    G = rng.standard_normal((d, proj_dim)) / np.sqrt(proj_dim)
    Y = Xc @ G
    radius = np.sqrt(d) * bound * np.sqrt(d / proj_dim) * 1.5  # public bound on projected norms (w.h.p.)
    Y = Y * np.minimum(1.0, radius / np.maximum(np.linalg.norm(Y, axis=1), 1e-300))[:, None]
    # 2. candidate centres: noisy counts of a random-shifted grid hierarchy over [-radius, radius]^p
    cands = []
    e_level = e_cand / grid_levels
    thresh = 2.0 * np.log(max(P, 2)) / e_level
    for lev in range(1, grid_levels + 1):
        side = 2 * radius / 2**lev
        shift = rng.uniform(0, side, proj_dim)
        cells = np.floor((Y + radius + shift) / side).astype(np.int64)
        uniq, inv = np.unique(cells, axis=0, return_inverse=True)
        cnt = laplace_release(np.bincount(inv.ravel(), minlength=len(uniq)), 1.0, e_level, rng)
        # Only occupied cells are listed; the threshold keeps the release of their centres private
        # in the usual stability-based sense (a documented simplification).
        for c in uniq[cnt > thresh]:
            cands.append((c + 0.5) * side - radius - shift)
    if len(cands) < K:
        cands += list(rng.uniform(-radius / 4, radius / 4, (K - len(cands), proj_dim)))
    cands = np.array(cands)
    if len(cands) > max_candidates:
        cands = cands[rng.choice(len(cands), max_candidates, replace=False)]
    # 3. private local search with the exponential mechanism (utility -cost, sensitivity (2 radius)^2)
    Dc = _sq_dists(Y, cands)  # (P, m)
    cur = list(rng.choice(len(cands), K, replace=False))
    sens = (2 * radius) ** 2
    e_swap = e_ls / n_swaps
    for _ in range(n_swaps):
        options, costs = [], []
        for i in range(K):
            rest = [cur[t] for t in range(K) if t != i]
            base = Dc[:, rest].min(1) if rest else np.full(P, np.inf)
            cost = np.minimum(base[:, None], Dc).sum(0)  # adding candidate z in place of cur[i]
            for z in range(len(cands)):
                options.append((i, z))
            costs.append(cost)
        costs = np.concatenate(costs)
        logits = -e_swap * costs / (2 * sens)
        pr = np.exp(logits - logits.max())
        pick = rng.choice(len(options), p=pr / pr.sum())
        i, z = options[pick]
        cur[i] = z
    # 4. recover centres in the original space: noisy means of the induced clusters
    lab = np.argmin(Dc[:, cur], axis=1)
    counts = np.bincount(lab, minlength=K).astype(float)
    sums = np.zeros((K, d))
    np.add.at(sums, lab, Xc)
    n_noisy = laplace_release(counts, 1.0, e_rec * count_share, rng)
    s_noisy = laplace_release(sums, d * bound, e_rec * (1 - count_share), rng)
    return np.clip(s_noisy / np.maximum(n_noisy, 1.0)[:, None], 0.0, bound)


BASELINES = {
    "yu2016": yu_outlier_eliminated_kmeans,
    "balcan2017": balcan_high_dim_kmeans,
    "ni2021": ni_cluster_merging_kmeans,
}


def nearest_labels(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    return np.argmin(_sq_dists(np.asarray(X, dtype=float), C), axis=1)

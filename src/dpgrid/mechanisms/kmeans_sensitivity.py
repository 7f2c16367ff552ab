"""Exact leave-one-out sensitivity analysis of a K-means solution.

Ravi, Scaglione et al., "Differentially Private K-means Clustering Applied to Meter Data Analysis
and Synthesis", IEEE TSG 2022 (the *dpkmeans* paper), Sec. III.  For a dataset X (P x d) and a
converged K-means solution q(X) = {c(X), l(X)}, the neighbours are X' = X \\ {x_p}, p in [P].
For every p this module computes the K-means solution of X' *re-converged from the current
solution* (Lloyd iterations started from the current labels with point p removed; not a restart),
and from it

* the centroid shifts u_p = c(X) - c(X \\ {x_p}) in R^{Kd} (the columns of C_{XX'} of Lemma 2),
* the centroid sensitivity Delta_c = max_p ||u_p||_2 (eq. 14 with Gamma = I),
* for every p the set of *other* points whose label changes; their union is the set L of
  label-sensitive points (Sec. III-B-1), and Delta_1 = max_p (number of changed labels) is the
  label-query sensitivity of Theorem 4.

Speed: removing x_p from cluster k moves only c_k, to c'_k = (n_k c_k - x_p) / (n_k - 1).  One
Lloyd step from the current labels therefore only needs the distances of all points to c'_k;
these are computed for all p of a cluster with one matrix product.  If no label changes, c' is
already a fixed point (the exact leave-one-out solution).  Only the removals that change some
label are re-converged with full Lloyd iterations.

Empty clusters: when x_p is alone in its cluster, the cluster empties; it is re-seeded (as
scikit-learn's Lloyd does) at the point farthest from its assigned centroid.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class KMeansSolution:
    """A Lloyd fixed point: labels are nearest-centroid, centroids are cluster means."""

    centroids: np.ndarray  # (K, d)
    labels: np.ndarray  # (P,) int
    n_iter: int = 0

    @property
    def k(self) -> int:
        return self.centroids.shape[0]

    def counts(self) -> np.ndarray:
        return np.bincount(self.labels, minlength=self.k)


def _sq_dists(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances (P x K), clipped at 0."""
    d = (X * X).sum(1)[:, None] - 2.0 * X @ C.T + (C * C).sum(1)[None, :]
    return np.maximum(d, 0.0)


def _relocate_empty(X: np.ndarray, C: np.ndarray, labels: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Re-seed empty clusters at the points farthest from their centroids (deterministic)."""
    C = C.copy()
    dist = ((X - C[labels]) ** 2).sum(1)
    order = np.argsort(-dist, kind="stable")
    for j, k in enumerate(np.flatnonzero(empty)):
        C[k] = X[order[j]]
    return C


def lloyd_fixed_point(
    X: np.ndarray, centroids: np.ndarray, *, max_iter: int = 300, labels: np.ndarray | None = None
) -> KMeansSolution:
    """Run Lloyd's algorithm from ``centroids`` (or from ``labels``) until the labels stop changing.

    The result is an exact fixed point: ``labels`` = nearest centroid (lowest index on ties) and
    ``centroids`` = the means of the clusters.  Raises ``RuntimeError`` if ``max_iter`` is reached.
    """
    X = np.asarray(X, dtype=float)
    C = np.array(centroids, dtype=float, copy=True)
    K = C.shape[0]
    if labels is None:
        labels = np.argmin(_sq_dists(X, C), axis=1)
    for it in range(1, max_iter + 1):
        counts = np.bincount(labels, minlength=K)
        sums = np.zeros_like(C)
        np.add.at(sums, labels, X)
        nonempty = counts > 0
        C[nonempty] = sums[nonempty] / counts[nonempty, None]
        if not nonempty.all():
            C = _relocate_empty(X, C, labels, ~nonempty)
        new = np.argmin(_sq_dists(X, C), axis=1)
        if np.array_equal(new, labels) and nonempty.all():
            return KMeansSolution(C, labels, it)
        labels = new
    raise RuntimeError(f"Lloyd iterations did not converge in {max_iter} iterations")


def fit_kmeans(
    X: np.ndarray, k: int, rng: np.random.Generator, *, n_init: int = 10, max_iter: int = 300
) -> KMeansSolution:
    """K-means (eq. 3) with scikit-learn's k-means++ / Lloyd, polished to an exact Lloyd fixed point.

    Cluster indices are then ordered by decreasing cluster size (ties: by first coordinate sum),
    so that "cluster 0" is the largest cluster in every run.
    """
    from sklearn.cluster import KMeans

    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < k:
        raise ValueError(f"need a (P x d) array with P >= K={k}, got shape {X.shape}")
    seed = int(rng.integers(0, 2**31 - 1))
    km = KMeans(n_clusters=k, n_init=n_init, max_iter=max_iter, random_state=seed, tol=0.0)
    km.fit(X)
    sol = lloyd_fixed_point(X, km.cluster_centers_, max_iter=max_iter)
    counts = sol.counts()
    order = np.lexsort((sol.centroids.sum(1), -counts))
    remap = np.empty(k, dtype=int)
    remap[order] = np.arange(k)
    return KMeansSolution(sol.centroids[order], remap[sol.labels], sol.n_iter)


@dataclass
class LeaveOneOutAnalysis:
    """Result of :func:`leave_one_out_analysis` (all indices refer to rows of X)."""

    shifts: np.ndarray  # (P, K*d): c(X) - c(X \ p), cluster-major flattening
    changed: list  # changed[p]: indices q != p whose label differs in the solution of X \ p
    relabelled: np.ndarray  # (P,) bool: removal of p changed some label (slow path used)
    n_iter: np.ndarray  # (P,) Lloyd iterations used (1 on the fast path)
    k: int
    d: int
    changed_to: list = field(default_factory=list)  # new labels of changed[p]

    @property
    def centroid_sensitivity(self) -> float:
        """Delta_c = max_p ||c(X) - c(X \\ p)||_2 (eq. 14 with Gamma = I)."""
        return float(np.sqrt((self.shifts**2).sum(1).max()))

    @property
    def shift_norms(self) -> np.ndarray:
        return np.sqrt((self.shifts**2).sum(1))

    @property
    def label_sensitive(self) -> np.ndarray:
        """The set L: every point whose label changes when some other point is removed."""
        if not self.changed:
            return np.zeros(0, dtype=int)
        allc = [c for c in self.changed if len(c)]
        return np.unique(np.concatenate(allc)) if allc else np.zeros(0, dtype=int)

    @property
    def label_sensitivity(self) -> int:
        """Delta_1 = max_p ||1_L(X \\ p) - 1_L(X)||_0 (Theorem 4): most labels changed by one removal."""
        return int(max((len(c) for c in self.changed), default=0))


def _cluster_sum(X: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Sum of ``X[rows]`` accumulated sequentially in row order from 0.0.

    Bit-identical to the cluster's row of ``np.add.at(sums, labels, X)`` in :func:`lloyd_fixed_point` (which
    adds the rows one by one in index order): numpy reduces a C-ordered (m, d) array over axis 0 row by row
    (pairwise summation is used only along the fast axis, numpy.sum docs), and ``initial=0.0`` makes the
    first addition 0.0 + x_1 as in ``add.at`` (tests/mechanisms/test_kmeans_sensitivity.py checks this).
    """
    return np.add.reduce(np.ascontiguousarray(X[rows]), axis=0, initial=0.0)


def _margins(Dc: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per point, sqrt distance to the nearest other centroid minus sqrt distance to its own (>= 0)."""
    R = np.sqrt(Dc)
    own = R[np.arange(len(labels)), labels]
    R = R.copy()
    R[np.arange(len(labels)), labels] = np.inf
    return R.min(1) - own


def _reconverge_without(
    X: np.ndarray,
    p: int,
    C: np.ndarray,
    labels: np.ndarray,
    counts: np.ndarray,
    sums: np.ndarray,
    by_margin: np.ndarray,
    sorted_margin: np.ndarray,
    slack: float,
    max_iter: int,
):
    """``lloyd_fixed_point(X \\ p, C, labels=labels \\ p)`` touching only what can change.

    Leave-one-out from the cluster sums: the state of an iteration is the set of points whose label
    differs from the original one (``moved``: point -> new label, p -> -1); the centroid of a cluster whose
    member set differs is its original sum ``sums`` minus the points that left plus those that joined, divided
    by its new count (O(moved x d), not a re-sum of its members), the other centroids keep the original
    ``sums / counts``. Only the points that can change label are re-assigned: if every centroid moved by at
    most delta from ``C``, a point whose margin (distance to its second-nearest minus to its nearest original
    centroid) exceeds 2 delta keeps its original label (triangle inequality); the points within reach are a
    prefix of ``by_margin`` (the points in increasing margin, ``sorted_margin`` their margins). So a removal
    costs O(moved + points within reach), not O(P). Returns ``(centroids, moved, n_iter)``, or ``None`` if a
    cluster empties (the caller then runs the full Lloyd, whose re-seeding looks at every point).
    """
    moved = {p: -1}
    base = sums / counts[:, None]
    for it in range(1, max_iter + 1):
        cnt = counts.copy()
        out_of: dict[int, list[int]] = {}
        into: dict[int, list[int]] = {}
        for q in sorted(moved):
            out_of.setdefault(int(labels[q]), []).append(q)
            if moved[q] >= 0:
                into.setdefault(moved[q], []).append(q)
        touched = sorted(set(out_of) | set(into))
        for j, qs in out_of.items():
            cnt[j] -= len(qs)
        for j, qs in into.items():
            cnt[j] += len(qs)
        if (cnt[touched] <= 0).any():
            return None
        Ct = base.copy()
        for j in touched:
            total = sums[j].copy()
            if j in out_of:
                total -= X[out_of[j]].sum(0)
            if j in into:
                total += X[into[j]].sum(0)
            Ct[j] = total / cnt[j]
        delta = float(np.sqrt(((Ct - C) ** 2).sum(1)).max())
        cand = by_margin[: np.searchsorted(sorted_margin, 2.0 * delta + slack, side="right")]
        cand = cand[cand != p]
        new_lab = np.argmin(_sq_dists(X[cand], Ct), axis=1)
        diff = new_lab != labels[cand]
        new = {int(q): int(v) for q, v in zip(cand[diff], new_lab[diff])}
        new[p] = -1
        if new == moved:
            return Ct, moved, it
        moved = new
    raise RuntimeError(f"Lloyd iterations did not converge in {max_iter} iterations")


def leave_one_out_analysis(
    X: np.ndarray, solution: KMeansSolution, *, max_iter: int = 300, chunk: int = 512
) -> LeaveOneOutAnalysis:
    """Exact leave-one-out re-convergence of ``solution`` for every point of ``X`` (see module doc).

    Cost: removing x_p from cluster k moves c_k by r_p = ||c_k - x_p|| / (n_k - 1), so only points
    whose margin between c_k and their nearest other centroid is at most r_p can change label (triangle
    inequality, with a floating-point slack); the label test is evaluated for those points only. The
    removals that do change a label are re-converged by :func:`_reconverge_without`, which likewise
    re-assigns only the points within reach of the moved centroids and updates the centroids from the cluster
    sums, so the whole analysis grows about linearly with P. Labels and changed sets are those of the
    all-points computation (``naive_leave_one_out``), the shifts equal its shifts up to the rounding of the
    cluster-sum updates (tests/mechanisms/test_kmeans_sensitivity.py).
    """
    X = np.asarray(X, dtype=float)
    P, d = X.shape
    C, labels = solution.centroids, solution.labels
    K = C.shape[0]
    Dc = _sq_dists(X, C)  # (P, K)
    check = np.argmin(Dc, axis=1)
    if not np.array_equal(check, labels):
        raise ValueError(
            "solution is not a Lloyd fixed point (labels are not nearest-centroid); "
            "polish it with lloyd_fixed_point first"
        )
    counts = np.bincount(labels, minlength=K)
    sqn = (X * X).sum(1)
    # floating-point slack of the distance bounds (errors of the expanded ||x||^2 - 2 x.c + ||c||^2 form are
    # ~1e-16 scale^2, i.e. at most ~1e-8 scale after the square root)
    slack = 1e-6 * (float(np.sqrt(sqn.max())) + float(np.sqrt((C * C).sum(1).max())))
    shifts = np.zeros((P, K * d))
    changed: list = [np.zeros(0, dtype=int)] * P
    changed_to: list = [np.zeros(0, dtype=int)] * P
    relabelled = np.zeros(P, dtype=bool)
    n_iter = np.ones(P, dtype=int)
    slow: list[int] = []
    R = np.sqrt(Dc)
    for k in range(K):
        members = np.flatnonzero(labels == k)
        n = counts[k]
        if n <= 1:
            slow.extend(members.tolist())
            continue
        other = np.delete(Dc, k, axis=1)
        best_other = other.min(1)  # distance of every q to its nearest centroid j != k
        # index of that centroid in the original numbering (lowest index on ties)
        oth_idx = np.delete(np.arange(K), k)[np.argmin(other, axis=1)]
        own = labels == k
        # points that the move of c_k by r can relabel: | ||q - c_k|| - ||q - c_other|| | <= r
        mk = np.abs(R[:, k] - np.sqrt(best_other))
        r = np.sqrt(((X[members] - C[k]) ** 2).sum(1)) / (n - 1)
        members = members[np.argsort(-r, kind="stable")]  # chunks of similar reach
        r = np.sort(r)[::-1]
        for s in range(0, len(members), chunk):
            ps = members[s : s + chunk]
            cand = np.flatnonzero(mk <= r[s] + slack)
            Cp = (n * C[k][None, :] - X[ps]) / (n - 1)  # (m, d) new centroid k per removal
            Dk = np.maximum(sqn[None, cand] - 2.0 * Cp @ X[cand].T + (Cp * Cp).sum(1)[:, None], 0.0)  # (m, |cand|)
            # New nearest centroid for q: k if Dk < best_other, or on a tie if k < oth_idx.
            bo, oi = best_other[cand], oth_idx[cand]
            to_k = (Dk < bo[None, :]) | ((Dk == bo[None, :]) & (k < oi)[None, :])
            flip = np.where(own[cand][None, :], ~to_k, to_k)
            pos = np.searchsorted(cand, ps)
            inside = (pos < len(cand)) & (cand[np.minimum(pos, len(cand) - 1)] == ps) if len(cand) else pos < 0
            flip[np.flatnonzero(inside), pos[inside]] = False  # the removed point itself
            has = flip.any(1)
            for j, p in enumerate(ps):
                if has[j]:
                    slow.append(int(p))
                else:
                    shifts[p, k * d : (k + 1) * d] = C[k] - Cp[j]
    sums = np.zeros_like(C)
    for j in range(K):
        sums[j] = _cluster_sum(X, np.flatnonzero(labels == j))
    margin = _margins(Dc, labels)
    by_margin = np.argsort(margin, kind="stable")
    sorted_margin = margin[by_margin]
    for p in sorted(slow):
        res = (
            _reconverge_without(X, p, C, labels, counts, sums, by_margin, sorted_margin, slack, max_iter)
            if counts[labels[p]] > 1
            else None
        )
        if res is None:  # a cluster empties: the full Lloyd (re-seeding at the farthest point)
            keep = np.ones(P, dtype=bool)
            keep[p] = False
            sol = lloyd_fixed_point(X[keep], C, labels=labels[keep], max_iter=max_iter)
            Cs, lab_r, it = sol.centroids, sol.labels, sol.n_iter
            idx = np.flatnonzero(keep)
            diff = lab_r != labels[keep]
            q, to = idx[diff], lab_r[diff]
        else:
            Cs, moved, it = res
            q = np.array(sorted(k for k in moved if k != p), dtype=int)
            to = np.array([moved[k] for k in q], dtype=int)
        shifts[p] = (C - Cs).ravel()
        changed[p] = q
        changed_to[p] = to
        relabelled[p] = bool(len(q))
        n_iter[p] = it
        if counts[labels[p]] <= 1:
            LOG.warning(
                "removing point %d empties cluster %d; the cluster was re-seeded at the farthest point", p, labels[p]
            )
    return LeaveOneOutAnalysis(shifts, changed, relabelled, n_iter, K, d, changed_to)


def naive_leave_one_out(X: np.ndarray, solution: KMeansSolution, *, max_iter: int = 300) -> np.ndarray:
    """Reference implementation: full Lloyd re-convergence for every removal (no fast path).

    Returns the (P, K*d) shifts; used by the tests to check :func:`leave_one_out_analysis`.
    """
    X = np.asarray(X, dtype=float)
    P = X.shape[0]
    out = np.zeros((P, solution.centroids.size))
    for p in range(P):
        keep = np.ones(P, dtype=bool)
        keep[p] = False
        sol = lloyd_fixed_point(X[keep], solution.centroids, labels=solution.labels[keep], max_iter=max_iter)
        out[p] = (solution.centroids - sol.centroids).ravel()
    return out


def refit_leave_one_out(
    X: np.ndarray, solution: KMeansSolution, rng: np.random.Generator, *, n_init: int = 10, indices=None
) -> np.ndarray:
    """Naive baseline for the benchmark: a full K-means *restart* on every subset X \\ p.

    Restarted clusters are matched to the original ones by the Hungarian algorithm on centroid
    distances (scipy.optimize.linear_sum_assignment).  Returns the shifts for ``indices``.
    """
    from scipy.optimize import linear_sum_assignment

    X = np.asarray(X, dtype=float)
    P = X.shape[0]
    K = solution.k
    indices = range(P) if indices is None else indices
    rows = []
    for p in indices:
        keep = np.ones(P, dtype=bool)
        keep[p] = False
        sol = fit_kmeans(X[keep], K, rng, n_init=n_init)
        cost = _sq_dists(solution.centroids, sol.centroids)
        r, c = linear_sum_assignment(cost)
        rows.append((solution.centroids[r] - sol.centroids[c]).ravel())
    return np.array(rows)

"""Leave-one-out K-means analysis (dpkmeans paper, eq. 14, set L, Delta_1)."""

import numpy as np
import pytest

from dpgrid.mechanisms.kmeans_sensitivity import (
    KMeansSolution,
    fit_kmeans,
    leave_one_out_analysis,
    lloyd_fixed_point,
    naive_leave_one_out,
)


def _mixture(rng, n_per=30, spread=1.5, K=4):
    mu = rng.normal(0, spread, (K, 2))
    return np.vstack([rng.normal(m, 1.0, (n_per, 2)) for m in mu])


def test_fast_loo_matches_full_reconvergence_including_relabelled_points():
    rng = np.random.default_rng(7)
    X = _mixture(rng)
    sol = fit_kmeans(X, 4, rng, n_init=4)
    loo = leave_one_out_analysis(X, sol)
    ref = naive_leave_one_out(X, sol)
    assert loo.relabelled.sum() > 0, "test data must exercise the slow (relabelling) path"
    np.testing.assert_allclose(loo.shifts, ref, atol=1e-12)


def test_shift_closed_form_and_sets():
    rng = np.random.default_rng(8)
    X = _mixture(rng)
    sol = fit_kmeans(X, 4, rng, n_init=4)
    loo = leave_one_out_analysis(X, sol)
    counts = sol.counts()
    d = X.shape[1]
    # brute force labels of every X \ p, to rebuild L and Delta_1 independently
    L, D1 = set(), 0
    for p in range(len(X)):
        keep = np.arange(len(X)) != p
        s = lloyd_fixed_point(X[keep], sol.centroids, labels=sol.labels[keep])
        ch = np.flatnonzero(keep)[s.labels != sol.labels[keep]]
        L |= set(ch.tolist())
        D1 = max(D1, len(ch))
        assert set(ch.tolist()) == set(loo.changed[p].tolist())
        if not len(ch):
            k = sol.labels[p]
            expect = np.zeros(loo.shifts.shape[1])
            expect[k * d : (k + 1) * d] = (X[p] - sol.centroids[k]) / (counts[k] - 1)
            np.testing.assert_allclose(loo.shifts[p], expect, atol=1e-12)
    assert set(loo.label_sensitive.tolist()) == L
    assert loo.label_sensitivity == D1
    assert loo.centroid_sensitivity == pytest.approx(np.linalg.norm(loo.shifts, axis=1).max())


def test_fit_kmeans_returns_exact_fixed_point_sorted_by_size():
    rng = np.random.default_rng(5)
    X = _mixture(rng)
    sol = fit_kmeans(X, 4, rng, n_init=2)
    again = lloyd_fixed_point(X, sol.centroids)
    np.testing.assert_array_equal(again.labels, sol.labels)
    assert np.all(np.diff(sol.counts()) <= 0)


def test_rejects_non_fixed_point():
    rng = np.random.default_rng(6)
    X = _mixture(rng)
    bad = KMeansSolution(X[:4].copy(), np.zeros(len(X), dtype=int))
    with pytest.raises(ValueError, match="fixed point"):
        leave_one_out_analysis(X, bad)


def test_outlier_drives_sensitivity():
    rng = np.random.default_rng(7)
    X = _mixture(rng)
    sol = fit_kmeans(X, 4, rng, n_init=4)
    base = leave_one_out_analysis(X, sol).centroid_sensitivity
    Xo = np.vstack([X, [[60.0, 60.0], [40.0, 80.0]]])
    solo = fit_kmeans(Xo, 4, rng, n_init=4)
    assert leave_one_out_analysis(Xo, solo).centroid_sensitivity > 5 * base


def test_cluster_sum_is_add_at_bit_for_bit():
    # the restricted re-convergence recomputes cluster sums; they must be the very numbers np.add.at gives
    from dpgrid.mechanisms.kmeans_sensitivity import _cluster_sum

    rng = np.random.default_rng(3)
    X = rng.lognormal(0.0, 2.0, (5000, 7)) * rng.choice([1e-6, 1.0, 1e6], (5000, 1))  # order-sensitive sums
    X[0, 2] = -0.0
    rows = np.sort(rng.choice(5000, 3000, replace=False))
    acc = np.zeros((1, 7))
    np.add.at(acc, np.zeros(len(rows), dtype=int), X[rows])
    assert _cluster_sum(X, rows).tobytes() == acc[0].tobytes()
    assert X[rows].sum(0, dtype=np.float64).tobytes() != np.sort(X[rows], 0).sum(0).tobytes()  # order matters here


@pytest.mark.parametrize("seed", [11, 12])
def test_restricted_loo_equals_brute_force_on_a_larger_set(seed):
    """Only points near a boundary are tested for a label change: on 1500 points (most removals far from
    any boundary) the relabelling removals, their changed points and new labels, iteration counts and
    shifts are those of a full Lloyd re-convergence of every X \\ p (labels exactly; shifts up to the rounding of
    the cluster-sum updates, which replace the full re-sum of a touched cluster: issue 27)."""
    rng = np.random.default_rng(seed)
    mu = rng.normal(0, 2.0, (5, 3))
    X = np.vstack([rng.normal(m, 1.0, (300, 3)) for m in mu])
    sol = fit_kmeans(X, 5, rng, n_init=2)
    loo = leave_one_out_analysis(X, sol, chunk=100)
    n_slow = 0
    for p in range(len(X)):
        keep = np.arange(len(X)) != p
        s = lloyd_fixed_point(X[keep], sol.centroids, labels=sol.labels[keep])
        diff = s.labels != sol.labels[keep]
        ch = np.flatnonzero(keep)[diff]
        assert loo.relabelled[p] == bool(len(ch))
        np.testing.assert_array_equal(loo.changed[p], ch)
        if len(ch):
            n_slow += 1
            np.testing.assert_array_equal(loo.changed_to[p], s.labels[diff])
            assert loo.n_iter[p] == s.n_iter
            np.testing.assert_allclose(loo.shifts[p], (sol.centroids - s.centroids).ravel(), rtol=0, atol=1e-13)
    assert 0 < n_slow < len(X) // 2


def test_loo_with_a_singleton_cluster_reseeds_like_lloyd():
    # removing the only member of a cluster empties it: the full Lloyd (re-seeding) path
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(0, 1, (40, 2)), rng.normal(8, 1, (40, 2)), [[40.0, 40.0]]])
    sol = fit_kmeans(X, 3, rng, n_init=3)
    assert min(sol.counts().tolist()) == 1
    loo = leave_one_out_analysis(X, sol)
    ref = naive_leave_one_out(X, sol)
    p = int(np.flatnonzero(sol.counts()[sol.labels] == 1)[0])
    assert loo.shifts[p].tobytes() == ref[p].tobytes()
    for q in np.flatnonzero(loo.relabelled):
        assert loo.shifts[q].tobytes() == ref[q].tobytes()

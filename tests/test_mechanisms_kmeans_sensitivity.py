"""Leave-one-out K-means analysis (dpkmeans paper, eq. 14, set L, Delta_1)."""
import numpy as np
import pytest

from dpgrid.mechanisms.kmeans_sensitivity import (
    fit_kmeans, leave_one_out_analysis, lloyd_fixed_point, naive_leave_one_out, KMeansSolution)


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
            expect[k * d:(k + 1) * d] = (X[p] - sol.centroids[k]) / (counts[k] - 1)
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

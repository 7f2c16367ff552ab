"""Baseline DP K-means (Yu 2016, Balcan 2017, Ni 2021) and the shared noisy Lloyd step."""

import numpy as np
import pytest
from scipy import stats

from dpgrid.mechanisms.dp_kmeans_baselines import (
    BASELINES,
    adaptive_budgets,
    dplloyd_step,
    knn_outliers,
    nearest_labels,
)
from dpgrid.mechanisms.kmeans_loss import clustering_loss
from dpgrid.mechanisms.kmeans_sensitivity import fit_kmeans


def _data(rng):
    mu = rng.uniform(0.5, 4.5, (4, 5))
    return np.vstack([np.clip(rng.normal(m, 0.3, (80, 5)), 0, 5) for m in mu])


def test_dplloyd_step_is_exact_lloyd_at_huge_eps():
    rng = np.random.default_rng(0)
    X = _data(rng)
    C0 = X[:4].copy()
    C1 = dplloyd_step(X, C0, 1e12, 5.0, rng)
    lab = nearest_labels(X, C0)
    exact = np.array([X[lab == k].mean(0) for k in range(4)])
    np.testing.assert_allclose(C1, exact, atol=1e-6)


@pytest.mark.parametrize("eps", [0.02, 1.0])
def test_dplloyd_step_draws_is_the_same_computation(eps):
    """``draws=None`` is the first release of ``draws=1`` bit for bit (small eps: clusters keep their centre);
    ``draws=m`` stacks m releases whose counts and sums carry Laplace noise of the step's scales (1 and d B over
    eps / 2) and whose centroids are the clipped noisy sums over the noisy counts."""
    rng = np.random.default_rng(2)
    X = _data(rng)
    C = X[:4].copy()
    one = dplloyd_step(X, C, eps, 5.0, np.random.default_rng(3), return_counts=True)
    batch = dplloyd_step(X, C, eps, 5.0, np.random.default_rng(3), return_counts=True, draws=1)
    assert one[0].shape == (4, 5) and one[1].shape == (4,)
    np.testing.assert_array_equal(one[0], batch[0][0])
    np.testing.assert_array_equal(one[1], batch[1][0])
    m = 40_000
    cents, counts = dplloyd_step(X, C, eps, 5.0, np.random.default_rng(4), return_counts=True, draws=m)
    assert cents.shape == (m, 4, 5) and counts.shape == (m, 4)
    lab = nearest_labels(X, C)
    exact = np.bincount(lab, minlength=4).astype(float)
    noise = counts - exact
    np.testing.assert_allclose(np.median(noise, 0), 0.0, atol=0.05 / eps)
    np.testing.assert_allclose(np.abs(noise).mean(0), 1 / (eps / 2), rtol=0.03)
    assert all(stats.kstest(noise[:, k] * eps / 2, "laplace").pvalue > 1e-4 for k in range(4))
    kept = counts < 1.0
    assert (cents[kept] == np.broadcast_to(C, cents.shape)[kept]).all()
    assert ((cents >= 0.0) & (cents <= 5.0)).all()
    with pytest.raises(ValueError):
        dplloyd_step(X, C, eps, 5.0, rng, draws=0)


def test_dplloyd_step_privacy_audit():
    # Outputs (noisy counts + sums) for neighbours X, X + {x0} (x0 at the box corner); the Laplace
    # privacy loss computed from the densities must never exceed eps.
    rng = np.random.default_rng(1)
    X = _data(rng)[:60]
    C = X[:3].copy()
    x0 = np.full(5, 5.0)
    eps, d, B = 0.7, 5, 5.0
    lab = nearest_labels(X, C)
    k0 = nearest_labels(x0[None], C)[0]
    n1 = np.bincount(lab, minlength=3).astype(float)
    s1 = np.zeros((3, d))
    np.add.at(s1, lab, X)
    n2, s2 = n1.copy(), s1.copy()
    n2[k0] += 1
    s2[k0] += x0
    bn, bs = 1 / (eps / 2), d * B / (eps / 2)
    out_n = n1 + rng.laplace(0, bn, (20000, 3))
    out_s = s1 + rng.laplace(0, bs, (20000, 3, d))
    L = (
        stats.laplace.logpdf(out_n, n1, bn).sum(1)
        + stats.laplace.logpdf(out_s, s1, bs).sum((1, 2))
        - stats.laplace.logpdf(out_n, n2, bn).sum(1)
        - stats.laplace.logpdf(out_s, s2, bs).sum((1, 2))
    )
    assert L.max() <= eps + 1e-9
    assert L.max() > 0.5 * eps


def test_adaptive_budgets_sum_to_eps():
    b = adaptive_budgets(2.0, 5)
    assert b.sum() == pytest.approx(2.0) and np.all(b > 0)


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_baselines_shape_box_and_utility_grows_with_eps(name):
    rng = np.random.default_rng(2)
    X = _data(rng)
    sol = fit_kmeans(X, 4, rng, n_init=3)
    r0 = clustering_loss(X, sol.centroids, sol.labels)

    def loss(eps, reps=6):
        v = []
        for _ in range(reps):
            C = BASELINES[name](X, 4, eps, 5.0, rng)
            assert C.shape == (4, 5) and C.min() >= 0 and C.max() <= 5
            v.append((clustering_loss(X, C, nearest_labels(X, C)) - r0) / r0)
        return np.mean(v)

    assert loss(1e5) < loss(0.05)
    assert loss(1e5) >= -1e-9


def test_knn_outliers_flags_far_points():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 1, (300, 3)), [[30, 30, 30], [-25, 40, 0]]])
    m = knn_outliers(X, 20, 3.0)
    assert m[-2:].all() and m[:-2].mean() < 0.05

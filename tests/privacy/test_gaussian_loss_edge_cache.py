"""Shared per-release tails (dpgrid.privacy.gaussian_loss.EdgeTailCache) and the pruning they allow in
delta_sup_over_edges / hockey_stick_sup_over_edges: the pruned suprema and worst edges equal those of evaluating
every edge (brute force), and the bounds used for pruning are upper bounds (hypothesis property tests against
closed forms)."""

import numpy as np
import pytest
from scipy import stats

from dpgrid.privacy import gaussian_loss as gl
from dpgrid.privacy.gaussian import hockey_stick_delta
from dpgrid.privacy.gaussian_loss import (
    EdgeTailCache,
    delta_exact,
    delta_sup_over_edges,
    hockey_stick_pair,
    hockey_stick_sup_over_edges,
    hockey_stick_upper_bound,
    privacy_loss,
)
from dpgrid.privacy.gaussian_loss.closed_form import delta_closed_form

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

GRID = np.round(np.linspace(0.1, 1.0, 10), 12)


def _model(seed, n=5, k=6, scale=0.6):
    rng = np.random.default_rng(seed)
    means = rng.standard_normal((n, k)) * scale
    covs = np.array([stats.wishart(df=k + 2, scale=np.eye(k) / (k + 2)).rvs(random_state=rng) for _ in range(n)])
    covs = covs + 0.2 * np.eye(k)  # well conditioned: the primary evaluator, fast
    edges = np.array([(i, j) for i in range(n) for j in range(n) if i != j])
    return means, covs, edges


def _adversarial():
    """Exact ties (label 1 is a copy of label 0: equal deltas on several edges, tie-breaking by order) and
    near ties (label 2 differs from label 0 by 1e-9 in the mean) next to two distinct labels."""
    means, covs, _ = _model(7, n=3)
    means = np.vstack([means[0], means[0], means[0] + 1e-9, means[1], means[2]])
    covs = np.stack([covs[0], covs[0], covs[0], covs[1], covs[2]])
    edges = np.array([(i, j) for i in range(5) for j in range(5) if i != j])
    return means, covs, edges


def _brute_hockey_stick(means, covs, edges, eps):
    """Every edge with hockey_stick_pair, in the sup's visiting order (surrogate, descending), strict updates."""
    losses = [privacy_loss(means[i], covs[i], means[j], covs[j]) for i, j in edges]
    order = np.argsort([-loss.surrogate for loss in losses], kind="stable")
    best_hs, best_pdp = np.full(eps.size, -1.0), np.full(eps.size, -1.0)
    arg_hs, arg_pdp = np.zeros((eps.size, 2), int), np.zeros((eps.size, 2), int)
    for e in order:
        i, j = edges[e]
        hs, pdp = hockey_stick_pair(means[i], covs[i], means[j], covs[j], eps)
        up = hs > best_hs
        best_hs, arg_hs[up] = np.where(up, hs, best_hs), edges[e]
        up = pdp > best_pdp
        best_pdp, arg_pdp[up] = np.where(up, pdp, best_pdp), edges[e]
    return best_hs, best_pdp, arg_hs, arg_pdp


@pytest.mark.parametrize("case", ["random0", "random1", "adversarial"])
def test_shared_cache_sup_equals_brute_force(case):
    """The job's sequence (curve, hockey stick, audit at grid and off-grid eps) with one cache gives the numbers and
    worst edges of evaluating every edge without cache or pruning; the audit is pruned by the cached tails."""
    means, covs, edges = _adversarial() if case == "adversarial" else _model(int(case[-1]))
    cache = EdgeTailCache(means, covs)
    curve = delta_sup_over_edges(means, covs, edges, GRID, cache=cache)
    ref = delta_sup_over_edges(means, covs, edges, GRID, prune=False)
    assert np.array_equal(curve.delta, ref.delta) and np.array_equal(curve.worst_edge, ref.worst_edge)
    hs = hockey_stick_sup_over_edges(means, covs, edges, GRID, cache=cache)
    b_hs, b_pdp, a_hs, a_pdp = _brute_hockey_stick(means, covs, edges, GRID)
    assert np.array_equal(hs.delta_hs, b_hs) and np.array_equal(hs.worst_edge_hs, a_hs)
    assert np.array_equal(hs.delta_pdp, b_pdp) and np.array_equal(hs.worst_edge_pdp, a_pdp)
    assert np.array_equal(hs.delta_pdp, curve.delta)
    for audit_eps in ([0.1, 0.5, 1.0], [0.13, 0.77, 1.5]):
        audit = delta_sup_over_edges(means, covs, edges, audit_eps, cache=cache)
        brute = delta_sup_over_edges(means, covs, edges, audit_eps, prune=False)
        assert np.array_equal(audit.delta, brute.delta) and np.array_equal(audit.worst_edge, brute.worst_edge)
        assert audit.n_bounded > 0  # the cached tails did prune
        assert audit.n_exact == delta_sup_over_edges(means, covs, edges, audit_eps).n_exact  # same Chernoff screening


def test_hockey_stick_sup_skips_reverse_tails(monkeypatch):
    """The reverse tail is evaluated for fewer edges than the graph has, and the sup is unchanged (above)."""
    means, covs, edges = _model(0, n=6)
    calls = []
    real = EdgeTailCache.strict_tail

    def counted(self, i, j, eps, tol):
        if np.all(np.asarray(eps) <= 0) and np.any(np.asarray(eps) < 0):  # a reverse tail, at -eps
            calls.append((i, j))
        return real(self, i, j, eps, tol)

    monkeypatch.setattr(EdgeTailCache, "strict_tail", counted)
    hockey_stick_sup_over_edges(means, covs, edges, GRID)
    assert 0 < len(calls) < len(edges)


def test_cache_is_bitwise_the_uncached_evaluator_and_checks_its_release():
    means, covs, edges = _model(2)
    cache = EdgeTailCache(means, covs)
    i, j = edges[3]
    d, err, how = cache.tail(i, j, GRID, 1e-8)
    d2, err2, how2 = gl.delta_exact_with_error(privacy_loss(means[i], covs[i], means[j], covs[j]), GRID, tol=1e-8)
    assert np.array_equal(d, d2) and np.array_equal(err, err2) and how == how2
    assert cache.tail(i, j, GRID, 1e-8)[0] is d  # memoised
    with pytest.raises(ValueError, match="different release"):
        delta_sup_over_edges(means, covs * 1.01, edges, GRID, cache=cache)


@settings(max_examples=25, deadline=None)
@given(
    d=st.floats(0.05, 4.0),
    eps=st.lists(st.floats(0.0, 3.0), min_size=1, max_size=8),
)
def test_hockey_stick_bound_is_above_the_closed_form(d, eps):
    """Equal covariances: PDP delta Q((eps - d^2/2)/d) (Corollary 1) and hockey stick (Balle-Wang) in closed form;
    the bound from the exact PDP values is >= the exact hockey stick at every eps (any grid, unsorted, duplicates)."""
    eps = np.asarray(eps)
    loss = gl.GaussianPrivacyLoss(np.ones(1), np.array([d]))
    pdp = delta_closed_form(loss, eps)
    hs = hockey_stick_delta(eps, d)
    assert np.all(hockey_stick_upper_bound(eps, pdp) >= hs - 1e-12)
    assert np.all(hockey_stick_upper_bound(eps, pdp) <= pdp + 1e-15)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 3))
def test_hockey_stick_bound_and_cached_upper_bound_unequal_covariances(seed, k):
    """Unequal covariances: the bound from the (exact, tol 1e-8) PDP tail is >= hockey_stick_pair, and the cache's
    upper bound at off-grid eps is >= the exact tail there (monotonicity of Pr(L > eps))."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=(k, k)), rng.normal(size=(k, k))
    s1, s2 = a @ a.T + 0.5 * np.eye(k), b @ b.T + 0.5 * np.eye(k)
    mu = 0.5 * rng.normal(size=k)
    hs, pdp = hockey_stick_pair(np.zeros(k), s1, mu, s2, GRID)
    assert np.all(hockey_stick_upper_bound(GRID, pdp + 1e-8) >= hs - 3e-8)
    cache = EdgeTailCache(np.stack([np.zeros(k), mu]), np.stack([s1, s2]))
    cache.tail(0, 1, GRID, 1e-8)
    off = np.sort(rng.uniform(0.0, 1.5, size=6))
    exact = delta_exact(cache.loss(0, 1), off)
    up = cache.upper(0, 1, off)
    assert np.all(up >= exact - 1e-8)
    assert np.all(up[off < GRID[0]] == 1.0)

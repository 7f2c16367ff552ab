"""The proposed class-based Gaussian mechanism (classdp Algorithm 1, eq. 50) and its baselines."""

import numpy as np
import pytest
from scipy import special, stats

from dpgrid.mechanisms.gaussian_class import (
    ClassGaussianModel,
    bayes_classifier_accuracy,
    complete_edges_within_groups,
    gaussian_class_mechanism,
    no_noise_mechanism,
    noise_trace,
    release,
    white_noise_mechanism,
)
from dpgrid.privacy.clopper_pearson import clopper_pearson as binomial_interval
from dpgrid.privacy.gaussian_loss import delta_exact, delta_sup_over_edges, log_likelihood_ratio, privacy_loss


def _synthetic(rng, n=4, k=2, groups=None):
    means = np.outer(np.arange(n), rng.standard_normal(k)) * 0.8
    covs = np.array(
        [stats.wishart(df=k, scale=np.eye(k)).rvs(random_state=rng).reshape(k, k) + 1e-3 * np.eye(k) for _ in range(n)]
    )
    return ClassGaussianModel(means, covs, complete_edges_within_groups(groups or [0] * n))


@pytest.mark.parametrize("seed,n,k,groups", [(0, 4, 2, None), (1, 6, 3, [0, 0, 0, 1, 1, 1]), (2, 5, 4, None)])
def test_algorithm1_cost_never_increases_and_decreases(seed, n, k, groups):
    model = _synthetic(np.random.default_rng(seed), n, k, groups)
    res = gaussian_class_mechanism(model, 1.0, trace_rule="total", max_iter=400)
    assert len(res.j_history) == len(model.components())
    for hist in res.j_history:
        h = np.asarray(hist)
        assert np.all(np.diff(h) <= 1e-12 * np.maximum(1.0, np.abs(h[:-1])))
        assert h[-1] < h[0]


@pytest.mark.parametrize("rule", ["total", "per_entry"])
def test_noise_spends_the_same_budget(rule):
    model = _synthetic(np.random.default_rng(3), 4, 3)
    rho = 0.7
    tr = noise_trace(rho, model.k, rule)
    assert tr == pytest.approx(rho if rule == "total" else rho * model.k)
    for mech in (
        gaussian_class_mechanism(model, rho, trace_rule=rule, max_iter=200),
        white_noise_mechanism(model, rho, rule),
    ):
        for cov in mech.noise_covs:
            assert np.trace(cov) == pytest.approx(tr, rel=1e-10)
            assert np.linalg.eigvalsh(cov).min() >= -1e-12
    assert np.all(no_noise_mechanism(model).noise_covs == 0)
    with pytest.raises(ValueError):
        noise_trace(1.0, 3, "per_sample")


@pytest.mark.parametrize("name", ["proposed", "white", "no_noise"])
def test_empirical_privacy_audit(name):
    """Sample the mechanism (q, then q + eta), estimate Pr(L > eps) from the two released densities
    (scipy), compare with the exact delta of the worst edge with a 99.9 % Clopper-Pearson interval."""
    rng = np.random.default_rng(4)
    model = _synthetic(rng, 4, 2)
    mech = {
        "proposed": lambda: gaussian_class_mechanism(model, 1.5, trace_rule="total"),
        "white": lambda: white_noise_mechanism(model, 1.5, "total"),
        "no_noise": lambda: no_noise_mechanism(model),
    }[name]()
    released = model.with_noise(mech.noise_covs)
    eps = np.array([0.25, 0.75, 1.5])
    sup = delta_sup_over_edges(released.means, released.covs, released.edges, eps)
    n = 100_000
    for e_idx, (i, j) in enumerate(sup.worst_edge):
        q = rng.multivariate_normal(model.means[i], model.covs[i], size=n)
        qt = release(q, mech.noise_covs[i], rng)
        llr = log_likelihood_ratio(qt, released.means[i], released.covs[i], released.means[j], released.covs[j])
        count = int(np.sum(llr > eps[e_idx]))
        lo, hi = binomial_interval(count, n, 0.999)
        assert lo <= sup.delta[e_idx] <= hi, (name, eps[e_idx], count / n, sup.delta[e_idx])


def test_release_has_requested_covariance():
    rng = np.random.default_rng(5)
    cov = np.array([[0.5, 0.2], [0.2, 0.3]])
    draws = release(np.zeros((50_000, 2)), cov, rng)
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.01)


def test_bayes_classifier_matches_two_class_closed_form():
    """Two labels, equal covariances: the Bayes accuracy is Phi(d/2) with d the Mahalanobis distance."""
    cov = np.array([[1.0, 0.3], [0.3, 0.6]])
    means = np.array([[0.0, 0.0], [1.0, 0.5]])
    model = ClassGaussianModel(means, np.stack([cov, cov]), [(0, 1), (1, 0)])
    noise = np.stack([0.2 * np.eye(2)] * 2)
    tot = cov + noise[0]
    d = np.sqrt((means[1] - means[0]) @ np.linalg.solve(tot, means[1] - means[0]))
    out = bayes_classifier_accuracy(model, noise, 40_000, np.random.default_rng(6))
    p = special.ndtr(d / 2)
    assert abs(out["accuracy"] - p) < 4 * np.sqrt(p * (1 - p) / out["trials"])
    assert out["chance"] == 0.5


def test_proposed_beats_white_on_paper_like_synthetic_example():
    """Sec. VI-A setting: four classes on a line, Wishart(I, 2) covariances, all neighbours."""
    rng = np.random.default_rng(7)
    model = _synthetic(rng, 4, 2)
    eps = np.array([0.2, 0.6, 1.2])
    for rho in (0.5, 2.0):
        p = gaussian_class_mechanism(model, rho, trace_rule="total")
        w = white_noise_mechanism(model, rho, "total")
        dp = delta_sup_over_edges(model.means, model.covs + p.noise_covs, model.edges, eps).delta
        dw = delta_sup_over_edges(model.means, model.covs + w.noise_covs, model.edges, eps).delta
        d0 = delta_sup_over_edges(model.means, model.covs, model.edges, eps).delta
        assert np.all(dp <= dw + 1e-9) and np.all(dw <= d0 + 1e-9)


def test_model_validation_names_the_problem():
    cov = np.eye(2)
    with pytest.raises(ValueError, match="undirected"):
        ClassGaussianModel(np.zeros((2, 2)), np.stack([cov, cov]), [(0, 1)])
    with pytest.raises(ValueError, match="positive definite"):
        ClassGaussianModel(np.zeros((2, 2)), np.stack([cov, -cov]), [(0, 1), (1, 0)])


def test_single_pair_delta_matches_privacy_loss_of_released_model():
    rng = np.random.default_rng(8)
    model = _synthetic(rng, 3, 2)
    w = white_noise_mechanism(model, 1.0, "total")
    rel = model.with_noise(w.noise_covs)
    eps = np.array([0.5])
    sup = delta_sup_over_edges(rel.means, rel.covs, rel.edges, eps)
    i, j = sup.worst_edge[0]
    assert sup.delta[0] == pytest.approx(
        delta_exact(privacy_loss(rel.means[i], rel.covs[i], rel.means[j], rel.covs[j]), eps)[0]
    )

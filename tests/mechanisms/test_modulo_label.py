"""Modulo-K label mechanism (eq. 19), Theorem 4's delta_l, composition and the DP accuracy loss."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpgrid.mechanisms.kmeans_loss import clustering_loss, dp_accuracy_loss, expected_dp_accuracy_loss
from dpgrid.mechanisms.modulo_label import label_noise_log_pmf, modulo_label_mechanism
from dpgrid.privacy.composition import compose_sequential
from dpgrid.privacy.label_modulo_delta import label_delta, rho_for_delta, rho_pure, theorem4_formula


def _brute_force_delta(eps, rho, K, D, strict):
    """Enumerate every noise vector on the D differing labels; privacy loss from the pmfs directly."""
    b = np.ones(D, dtype=int)  # l - l' on the differing coordinates (any non-zero offsets give the same law)
    total = 0.0
    for nu in itertools.product(range(K), repeat=D):
        nu = np.array(nu)
        logp = label_noise_log_pmf(nu, K, rho).sum()
        L = logp - label_noise_log_pmf(nu + b, K, rho).sum()
        if (L > eps + 1e-12) if strict else (L >= eps - 1e-12):
            total += math.exp(logp)
    return total


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("D", [1, 2, 4])
@pytest.mark.parametrize("strict", [True, False])
def test_delta_matches_brute_force_enumeration(K, D, strict):
    for rho in (0.05, 0.2, 0.4):
        unit = math.log((1 - rho) * (K - 1) / rho)
        for eps in (0.0, 0.5 * unit, unit, 1.5 * unit, 2 * unit, D * unit + 0.1):
            assert label_delta(eps, rho, K, D, strict=strict) == pytest.approx(
                _brute_force_delta(eps, rho, K, D, strict), abs=1e-12
            )


def test_printed_theorem4_formula_agrees_for_k_at_least_3():
    for K, D, rho, eps in [(3, 3, 0.1, 1.0), (6, 5, 0.2, 2.0), (4, 6, 0.3, 0.7)]:
        assert theorem4_formula(eps, rho, K, D) == pytest.approx(label_delta(eps, rho, K, D, strict=False), rel=1e-10)


def test_large_sensitivity_is_stable():
    v = label_delta(20.0, 0.3, 6, 800)
    assert 0.0 <= v <= 1.0 and math.isfinite(v)
    # monotone in D (eq. 24 grows with ||1_xx'||_0)
    assert label_delta(5.0, 0.3, 6, 40) >= label_delta(5.0, 0.3, 6, 20)


def test_pure_rho_and_rho_for_delta():
    K, D, eps = 6, 7, 30.0
    r = rho_pure(eps, K, D)
    assert label_delta(eps, r, K, D) == 0.0
    assert label_delta(eps, r * 0.999, K, D) > 0.0
    r2 = rho_for_delta(eps, 1e-3, K, D)
    assert label_delta(eps, r2, K, D) <= 1e-3
    assert label_delta(eps, r2 * 0.999, K, D) > 1e-3
    assert r2 <= r  # delta_l jumps (integer thresholds): here the pure-DP rho is already needed


def test_rho_for_delta_when_rho_pure_rounds_to_the_infeasible_side():
    # eps / loss_unit(rho_pure) = 3.9999999999999996 < D = 4 here: the closed form is one rounding
    # step too low, the strict tail is not 0 there; the next representable rho above it is feasible.
    eps, K, D = 1.8389830508474576, 3, 4
    r = rho_pure(eps, K, D)
    assert label_delta(eps, r, K, D) > 0.0
    for delta in (0.0, 1e-3, 0.1):
        got = rho_for_delta(eps, delta, K, D)
        assert label_delta(eps, got, K, D) <= delta
        assert got <= math.nextafter(r, 1.0) * (1 + 1e-12)
    assert rho_for_delta(eps, 0.1, K, D) < r  # delta_l = 0.1 needs less noise than pure DP


def test_monte_carlo_audit_of_label_mechanism():
    rng = np.random.default_rng(0)
    K, D, rho, eps, n = 4, 6, 0.25, 3.0, 20000
    labels = rng.integers(0, K, 30)
    sens = np.arange(10)
    other = labels.copy()
    other[sens[:D]] = (labels[sens[:D]] + rng.integers(1, K, D)) % K  # neighbour: D labels differ
    L = np.empty(n)
    for i in range(n):
        out = modulo_label_mechanism(labels, sens, K, rho, rng)
        L[i] = (
            label_noise_log_pmf(out[sens] - labels[sens], K, rho).sum()
            - label_noise_log_pmf(out[sens] - other[sens], K, rho).sum()
        )
    k = int((L > eps).sum())
    lo, hi = stats.beta.ppf(5e-4, k, n - k + 1), stats.beta.ppf(1 - 5e-4, k + 1, n - k)
    assert lo <= label_delta(eps, rho, K, D) <= hi


def test_mechanism_touches_only_L_at_rate_rho():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 6, 5000)
    sens = np.arange(0, 5000, 2)
    out = modulo_label_mechanism(labels, sens, 6, 0.3, rng)
    np.testing.assert_array_equal(out[1::2], labels[1::2])
    assert abs((out[sens] != labels[sens]).mean() - 0.3) < 0.03


def test_composition_and_expected_accuracy_loss():
    assert compose_sequential([(30, 0.2), (30, 0.0)]) == (60, 0.2)
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3)) + np.repeat(np.eye(3) * 4, 100, axis=0)
    labels = np.repeat(np.arange(3), 100)
    C = np.array([X[labels == k].mean(0) for k in range(3)])
    cov = np.diag(rng.uniform(0.01, 0.2, 9))
    sens = np.arange(0, 300, 7)
    rho = 0.2
    exp = expected_dp_accuracy_loss(X, C, labels, cov, sens, rho)
    vals = []
    for _ in range(3000):
        Cn = C + rng.multivariate_normal(np.zeros(9), cov).reshape(3, 3)
        ln = modulo_label_mechanism(labels, sens, 3, rho, rng)
        vals.append(dp_accuracy_loss(X, C, labels, Cn, ln))
    vals = np.array(vals)
    assert abs(vals.mean() - exp) < 4 * vals.std() / math.sqrt(len(vals))
    assert clustering_loss(X, C, labels) > 0


def test_expected_label_errors_is_the_mean_number_of_changed_sensitive_labels():
    """Theorem 4's E ||1_L(X) - 1~_L(X)||_0 = |L| rho against a Monte Carlo of eq. (19) (Clopper-Pearson, 99.9 %)."""
    from dpgrid.privacy.clopper_pearson import clopper_pearson
    from dpgrid.privacy.label_modulo_delta import expected_label_errors

    rng = np.random.default_rng(19)
    K, rho, n, reps = 6, 0.3, 40, 500
    labels = rng.integers(0, K, 100)
    sensitive = np.arange(n)
    changed = sum(int((modulo_label_mechanism(labels, sensitive, K, rho, rng) != labels).sum()) for _ in range(reps))
    lo, hi = clopper_pearson(changed, n * reps, 0.999)
    assert lo * n <= expected_label_errors(rho, n) <= hi * n
    # labels outside L never change
    assert (modulo_label_mechanism(labels, sensitive, K, rho, rng)[n:] == labels[n:]).all()

"""Algorithm 1 and the naive Laplace baseline (dpgrid.mechanisms.blowfish_pricing)."""

import itertools

import numpy as np
import pytest

from dpgrid.mechanisms import blowfish_pricing as bp


def test_optimal_rate_is_eq1():
    x = np.array([[0.1, 0.2, 0.3], [0.0, 0.5, 0.25]])
    np.testing.assert_allclose(bp.optimal_rates(x, 2.0, 62.5), [63.7, 64.0])
    with pytest.raises(ValueError, match="alpha"):
        bp.optimal_rates(x, 0.0, 62.5)


def _joint_kappa_brute_force(support_t):
    """Algorithm 1 lines 5-7 literally: enumerate mu^t (joint states with non-zero prior), nu^t, kappa^t."""
    n = support_t.shape[0]
    mu = [m for m in itertools.product([0, 1], repeat=n) if all(support_t[h, m[h]] for h in range(n))]
    kappa = set()
    for a, b in itertools.combinations(mu, 2):
        diff = [h for h in range(n) if a[h] != b[h]]
        if len(diff) == 1:
            kappa.add(diff[0])
    return kappa


def test_protected_set_equals_enumeration_of_blowfish_neighbours():
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = 5
        sup = np.zeros((1, n, 2), dtype=bool)
        for h in range(n):
            sup[0, h] = [[True, False], [False, True], [True, True]][rng.integers(3)]
        kappa = bp.blowfish_protected_households(sup)[0]
        assert set(np.flatnonzero(kappa)) == _joint_kappa_brute_force(sup[0])


def test_noise_parameter_is_alpha_max_bound_over_kappa_and_max_over_models():
    sup = np.array(
        [[[True, True], [True, False], [True, True]], [[False, True], [True, False], [False, True]]]
    )  # (T=2, N=3, 2)
    u = np.array([0.4, 0.9, 0.7])
    lam, kappa = bp.blowfish_noise_parameter(sup, u, alpha=2.0)
    np.testing.assert_allclose(lam, [2 * 0.7, 0.0])  # household 1 is certain at t=0; nobody uncertain at t=1
    assert kappa.tolist() == [[True, False, True], [False, False, False]]
    other = sup.copy()
    other[1, 1] = True  # a second model where household 1 is uncertain at t=1
    lam2, _ = bp.blowfish_noise_parameter([sup, other], u, alpha=2.0)
    np.testing.assert_allclose(lam2, [1.4, 1.8])  # Algorithm 1 line 10: max over models
    naive = bp.naive_noise_parameter(2, 2.0, 1.0)
    assert (lam2 <= naive).all()


def test_naive_parameter_is_blowfish_without_certain_households():
    """Sec. IV-B's naive mechanism is Algorithm 1 with no zero-prior state: every household uncertain at every
    step, so lambda^t = alpha max_h u_h = alpha u_max."""
    rng = np.random.default_rng(3)
    u = rng.uniform(0.1, 2.0, 7)
    every = np.ones((5, 7, 2), dtype=bool)
    lam, kappa = bp.blowfish_noise_parameter(every, u, alpha=0.3)
    assert kappa.all()
    np.testing.assert_allclose(bp.naive_noise_parameter(5, 0.3, u.max()), lam, rtol=0, atol=0)


def test_inconsistent_support_is_rejected():
    with pytest.raises(ValueError, match="no occupancy state"):
        bp.blowfish_protected_households(np.zeros((1, 2, 2), dtype=bool))


def test_released_noise_is_laplace_with_scale_lambda_over_eps():
    rng = np.random.default_rng(1)
    r = np.full(400_000, 100.0)
    out = bp.release_rates(r, 1.5, 0.5, rng)
    noise = out - r
    b = 1.5 / 0.5
    assert abs(np.mean(np.abs(noise)) - b) < 0.02  # E|Lap(b)| = b
    assert abs(np.var(noise) - 2 * b**2) < 0.15  # Var = 2 b^2
    assert np.all(bp.release_rates(r[:10], 0.0, 0.5, rng) == r[:10])  # lambda = 0: exact release


def test_rmsre_formulas():
    r = np.array([100.0, 200.0, 50.0, 80.0])
    rh = r * (1 + np.array([0.01, -0.02, 0.0, 0.03]))
    e2 = 0.01**2 + 0.02**2 + 0.03**2
    assert bp.rmsre_printed(rh, r) == pytest.approx(np.sqrt(e2) / 4)
    assert bp.rms_relative_error(rh, r) == pytest.approx(np.sqrt(e2 / 4))
    assert bp.rms_relative_error(rh, r) == pytest.approx(2 * bp.rmsre_printed(rh, r))  # sqrt(T) factor


def test_expected_rmsre_matches_monte_carlo():
    rng = np.random.default_rng(2)
    r = np.linspace(150, 300, 96)
    lam = np.where(np.arange(96) < 20, 0.0, 0.95)
    exp = bp.expected_rmsre_printed(lam, 0.5, r)
    sims = [np.sum(((bp.release_rates(r, lam, 0.5, rng) - r) / r) ** 2) for _ in range(4000)]
    assert np.sqrt(np.mean(sims)) / 96 == pytest.approx(exp, rel=0.02)

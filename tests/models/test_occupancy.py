"""Household occupancy chains (dpgrid.models.occupancy): GhoddousiBoroujeni et al., Sec. II-B, IV-A."""

import itertools

import numpy as np
import pytest

from dpgrid.models import occupancy as occ

PERIODS = [
    occ.DailyPeriod("morning", 7, 8, 0.05, 0.98),
    occ.DailyPeriod("noon", 8, 16, 0.95, 0.05),
    occ.DailyPeriod("evening", 16, 23, 0.05, 0.99),
    occ.DailyPeriod("night", 23, 7, 0.995, 0.01),
]


def population(n=50, sd=0.005, clipping=None, mode="cyclostationary", p0=0.5, seed=0, steps=96):
    return occ.draw_population(
        PERIODS,
        n,
        steps,
        basis="per_period",
        perturbation_sd=sd,
        clipping=occ.ClippingRule() if clipping is None else clipping,
        initial_mode=mode,
        initial_occupied_probability=p0,
        u_max_unoccupied=0.5,
        u_max_occupied=1.0,
        bound_coupling="independent",
        rng=np.random.default_rng(seed),
    )


def test_step_periods_match_the_paper_hours():
    sp = occ.step_periods(PERIODS, 96)
    counts = np.bincount(sp, minlength=4)
    assert counts.tolist() == [4, 32, 28, 32]  # 7-8, 8-16, 16-23, 23-7 in 15-minute steps
    assert sp[0] == 3 and sp[27] == 3 and sp[28] == 0 and sp[32] == 1 and sp[64] == 2 and sp[92] == 3


def test_periods_must_cover_the_day_without_overlap():
    with pytest.raises(ValueError, match="cover hour"):
        occ.step_periods(PERIODS[:3], 96)
    with pytest.raises(ValueError, match="overlaps"):
        occ.step_periods(PERIODS + [occ.DailyPeriod("x", 10, 11, 0.1, 0.1)], 96)


def test_per_period_probability_compounds_to_the_period_probability():
    p = occ.per_step_probability(0.98, 4, "per_period")
    assert 1 - (1 - p) ** 4 == pytest.approx(0.98, abs=1e-12)
    assert occ.per_step_probability(0.3, 7, "per_step") == pytest.approx(0.3)
    with pytest.raises(ValueError, match="probability_basis"):
        occ.per_step_probability(0.3, 7, "hourly")


def test_clipping_rules_decide_exact_zeros():
    p = np.array([-0.01, 0.0, 0.003, 0.5, 0.998, 1.02])
    assert occ.ClippingRule("threshold", 0.0).apply(p).tolist() == [0.0, 0.0, 0.003, 0.5, 0.998, 1.0]
    assert occ.ClippingRule("threshold", 0.005).apply(p).tolist() == [0.0, 0.0, 0.0, 0.5, 1.0, 1.0]
    floored = occ.ClippingRule("floor", 0.001).apply(p)
    assert floored.min() == 0.001 and floored.max() == 0.999
    with pytest.raises(ValueError, match="clipping.mode"):
        occ.ClippingRule("round", 0.0)


def test_perturbed_matrices_are_stochastic_and_clipping_controls_zeros():
    base = occ.base_transition_matrices(PERIODS, 96, "per_period")
    rng = np.random.default_rng(1)
    t = occ.perturb_transition_matrices(base, 2000, 0.005, occ.ClippingRule("threshold", 0.0), rng)
    assert t.shape == (2000, 4, 2, 2)
    np.testing.assert_allclose(t.sum(axis=-1), 1.0, atol=1e-12)
    assert (t >= 0).all()
    # night get-up per step is 1 - 0.99^(1/32) = 3.1e-4; with sd 0.005 about half the draws are negative -> 0
    frac_zero = np.mean(t[:, 3, 0, 1] == 0)
    assert 0.4 < frac_zero < 0.6
    t_floor = occ.perturb_transition_matrices(base, 2000, 0.005, occ.ClippingRule("floor", 1e-6), rng)
    assert (t_floor > 0).all()
    # unperturbed: exactly the base matrices
    t0 = occ.perturb_transition_matrices(base, 3, 0.0, occ.ClippingRule(), rng)
    np.testing.assert_allclose(t0, np.broadcast_to(base, t0.shape))


def test_cyclostationary_initial_law_is_invariant_over_a_day():
    pop = population(n=20)
    q = occ.prior_occupied_probability(pop)
    # one more transition (into step 0 of the next day) returns the law of step 0
    nxt = occ.predict_occupied_probability(q[-1], pop.transitions[:, pop.step_period[0]])
    np.testing.assert_allclose(nxt, pop.initial, atol=1e-12)


def test_simulated_occupancy_matches_the_model_marginals():
    pop = population(n=4000, seed=2)
    s = occ.simulate_occupancy(pop, np.random.default_rng(3))
    q = occ.prior_occupied_probability(pop)
    # binomial sd at n=4000 is <= 0.008; 5 sd over 96 steps
    assert np.abs(s.mean(axis=1) - q.mean(axis=1)).max() < 0.04


def test_consumption_is_uniform_with_the_state_bound():
    pop = population(n=3000, seed=4)
    rng = np.random.default_rng(5)
    s = occ.simulate_occupancy(pop, rng)
    x = occ.simulate_consumption(pop, s, rng)
    u = np.where(s == 1, pop.bounds[None, :, 1], pop.bounds[None, :, 0])
    assert (x >= 0).all() and (x <= u).all()
    ratio = x / u
    assert abs(ratio.mean() - 0.5) < 0.01 and abs(ratio.var() - 1 / 12) < 0.005
    assert pop.bounds[:, 0].max() <= 0.5 and pop.bounds[:, 1].max() <= 1.0
    np.testing.assert_array_equal(pop.sensitivity, pop.bounds.max(axis=1))


def _toy_population(transitions, initial, steps=6):
    n = transitions.shape[0]
    return occ.HouseholdPopulation(
        transitions[:, None], np.zeros(steps, dtype=np.int64), np.asarray(initial, float), np.tile([0.3, 0.8], (n, 1))
    )


def test_prior_support_propagates_the_zero_pattern():
    a = np.array(
        [
            [[1.0, 0.0], [0.2, 0.8]],  # 0 absorbing, started in 0: always certain
            [[1.0, 0.0], [0.2, 0.8]],  # started uncertain: both states stay possible
            [[0.0, 1.0], [1.0, 0.0]],  # deterministic alternation from a certain start
            [[0.5, 0.5], [0.0, 1.0]],  # 1 absorbing, started in 0: becomes uncertain
        ]
    )
    pop = _toy_population(a, [0.0, 0.5, 1.0, 0.0])
    sup = occ.prior_support(pop)
    q = occ.prior_occupied_probability(pop)
    # cross-check with the exactly propagated prior: a state is supported iff its probability is non-zero
    np.testing.assert_array_equal(sup[:, :, 1], q > 0)
    np.testing.assert_array_equal(sup[:, :, 0], q < 1)
    assert sup[:, 0].tolist() == [[True, False]] * 6
    assert sup[:, 2, 1].tolist() == [True, False, True, False, True, False]
    assert sup[:, 3].all(axis=1).tolist() == [False] + [True] * 5


def test_forward_filter_matches_brute_force_path_enumeration():
    rng = np.random.default_rng(7)
    steps = 5
    a = rng.dirichlet([1, 1], size=(2, 2))
    pop = _toy_population(a, [0.3, 0.9], steps)
    loglik = rng.normal(size=(steps, 2))  # log l1 - log l0 per step and household
    post = occ.forward_filter_two_state(pop, loglik)
    for h in range(2):
        for t in range(steps):
            num = den = 0.0
            for path in itertools.product([0, 1], repeat=t + 1):
                p = pop.initial[h] if path[0] else 1 - pop.initial[h]
                for i in range(1, t + 1):
                    p *= a[h, path[i - 1], path[i]]
                p *= np.exp(sum(loglik[i, h] * path[i] for i in range(t + 1)))  # l0 normalised to 1
                den += p
                num += p * path[t]
            assert post[t, h] == pytest.approx(num / den, rel=1e-10)


def test_adversary_learns_nothing_from_pure_noise_and_keeps_certainties():
    pop = population(n=30, seed=8, mode="fixed", p0=0.0, clipping=occ.ClippingRule("threshold", 0.05))
    q = occ.prior_occupied_probability(pop)
    rates = np.full(pop.n_steps, 70.0)
    post = occ.adversary_occupancy_posterior(pop, rates, np.full(pop.n_steps, 1e9), 1.0, 62.5)
    np.testing.assert_allclose(post, q, atol=1e-9)
    sup = occ.prior_support(pop)
    certain = ~sup.all(axis=2)
    np.testing.assert_array_equal(post[certain], q[certain])  # zero-prior states stay impossible (eq. 3)


def test_adversary_beats_the_prior_on_a_small_exact_release():
    pop = population(n=5, seed=9)
    rng = np.random.default_rng(10)
    gains = []
    for _ in range(20):
        s = occ.simulate_occupancy(pop, rng)
        x = occ.simulate_consumption(pop, s, rng)
        post = occ.adversary_occupancy_posterior(pop, x.sum(axis=1) + 62.5, np.zeros(pop.n_steps), 1.0, 62.5)
        gains.append(
            occ.guess_metrics(s, occ.prior_occupied_probability(pop))["logloss_bits"]
            - occ.guess_metrics(s, post)["logloss_bits"]
        )
    assert np.mean(gains) > 0.05  # bits per household-step learned from the exact aggregate of 5 homes


def test_consumption_moments_match_monte_carlo():
    rng = np.random.default_rng(11)
    bounds = np.array([[0.2, 0.9], [0.45, 0.3]])
    p = np.array([0.3, 0.8])
    mean, var = occ._consumption_moments(bounds, p)
    s = rng.random((200_000, 2)) < p
    x = rng.random((200_000, 2)) * np.where(s, bounds[:, 1], bounds[:, 0])
    np.testing.assert_allclose(mean, x.mean(axis=0), atol=3e-3)
    np.testing.assert_allclose(var, x.var(axis=0), atol=3e-3)


def test_population_rejects_bad_input():
    with pytest.raises(ValueError, match="initial_distribution.mode"):
        population(mode="uniform")
    with pytest.raises(ValueError, match="p_leave"):
        occ.DailyPeriod("x", 0, 24, 1.5, 0.1)
    with pytest.raises(ValueError, match="row-stochastic"):
        _toy_population(np.array([[[0.5, 0.6], [0.5, 0.5]]]), [0.5])


def test_mean_field_adversary_agrees_with_the_joint_filter():
    pop = population(n=8, seed=12)
    rng = np.random.default_rng(13)
    s = occ.simulate_occupancy(pop, rng)
    r = occ.simulate_consumption(pop, s, rng).sum(axis=1) + 62.5
    for b, tol in ((0.0, 0.05), (2.0, 0.005)):
        released = r + b * rng.laplace(size=pop.n_steps)
        mf = occ.adversary_occupancy_posterior(pop, released, np.full(pop.n_steps, b), 1.0, 62.5)
        joint = occ.adversary_joint_posterior(pop, released, np.full(pop.n_steps, b), 1.0, 62.5)
        assert np.abs(mf - joint).mean() < tol


def test_joint_filter_reduces_to_the_household_filter_for_one_household():
    pop = population(n=1, seed=14)
    rng = np.random.default_rng(15)
    released = 62.5 + rng.random(pop.n_steps)
    b = np.full(pop.n_steps, 0.7)
    joint = occ.adversary_joint_posterior(pop, released, b, 1.0, 62.5)
    # N = 1: both are the exact two-state recursion with the same Gaussian likelihood
    mf = occ.adversary_occupancy_posterior(pop, released, b, 1.0, 62.5)
    np.testing.assert_allclose(joint, mf, atol=1e-9)
    with pytest.raises(ValueError, match="refused"):
        occ.adversary_joint_posterior(population(n=20), released, b, 1.0, 62.5)

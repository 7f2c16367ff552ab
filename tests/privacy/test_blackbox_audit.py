"""The black-box audit (dpgrid.privacy.blackbox_audit): Clopper-Pearson bounds against scipy's beta quantiles, and
closed-form Gaussian / Laplace mechanisms whose true delta(eps) is known: a correctly calibrated sampler holds, the
same sampler with too little noise is violated, and the lower bound never exceeds the true delta."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from dpgrid.privacy import blackbox_audit as ba
from dpgrid.privacy.audit_statistics import laplace_llr_statistic


def gauss_delta(eps, mu):
    """Tight delta(eps) of N(0, 1) vs N(mu, 1) (Balle & Wang 2018, Thm 8)."""
    return stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu)


def gauss_mu(eps, delta):
    return optimize.brentq(lambda m: gauss_delta(eps, m) - delta, 1e-6, 50.0)


def laplace_delta(eps, eps_true):
    """Tight delta(eps) of Lap(0, b) vs Lap(Delta, b), Delta / b = eps_true."""
    return max(0.0, 1.0 - math.exp((eps - eps_true) / 2))


def gaussian_pair(mu, dim=3, scale=1.0):
    """The pair N(0, I) vs N(mu e1, I) in ``dim`` dimensions with noise multiplied by ``scale``."""

    def a(rng, n):
        return scale * rng.standard_normal((n, dim))

    def b(rng, n):
        x = scale * rng.standard_normal((n, dim))
        x[:, 0] += mu
        return x

    return a, b


@settings(max_examples=6, deadline=None)
@given(eps=st.floats(0.2, 2.0), delta=st.floats(0.005, 0.1), dim=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_calibrated_gaussian_holds_and_half_noise_is_violated(eps, delta, dim, seed):
    """N(0, I) vs N(mu e1, I) with mu calibrated to the claimed (eps, delta): holds; noise x0.5: violated."""
    rng = np.random.default_rng(seed)
    mu = gauss_mu(eps, delta)
    ok = ba.audit_pair(*gaussian_pair(mu, dim), eps, samples=20_000, level=0.999, rng=rng)
    assert ok.delta_lower_bound <= delta
    assert ba.verdict(ok.delta_lower_bound, delta) == ba.HOLDS
    bad = ba.audit_pair(*gaussian_pair(mu, dim, 0.5), eps, samples=20_000, level=0.999, rng=rng)
    assert gauss_delta(eps, 2 * mu) >= 2 * delta  # the mutant's true delta
    assert bad.delta_lower_bound > delta
    assert ba.verdict(bad.delta_lower_bound, delta) == ba.VIOLATED


@pytest.mark.parametrize(("eps", "claim", "n"), [(0.5, 0.01, 100_000), (5.0, 0.01, 40_000), (30.0, 0.2, 40_000)])
def test_twice_the_claimed_gaussian_delta_is_detected(eps, claim, n):
    """The documented power of the Gaussian projection bound (docs/privacy_audits.md): in 20 dimensions, ``n``
    draws per neighbour hold at the claim and detect a true delta of 2x the claim."""
    rng = np.random.default_rng(3)
    kw = {"samples": n, "level": 0.9999, "rng": rng, "fitted": ("fisher",), "gaussian": True}
    assert ba.audit_pair(*gaussian_pair(gauss_mu(eps, claim), 20), eps, **kw).delta_lower_bound <= claim
    assert ba.audit_pair(*gaussian_pair(gauss_mu(eps, 2 * claim), 20), eps, **kw).delta_lower_bound > claim


@settings(max_examples=30, deadline=None)
@given(eps=st.floats(0.05, 40.0), mu=st.floats(0.05, 20.0))
def test_gaussian_shift_delta_is_the_closed_form(eps, mu):
    assert ba.gaussian_shift_delta(eps, mu) == pytest.approx(max(0.0, gauss_delta(eps, mu)), abs=1e-12)


@settings(max_examples=10, deadline=None)
@given(eps=st.floats(0.1, 30.0), mu=st.floats(0.2, 10.0), seed=st.integers(0, 2**32 - 1))
def test_gaussian_projection_bound_is_below_the_true_delta(eps, mu, seed):
    res = ba.audit_pair(
        *gaussian_pair(mu, 5), eps, samples=4000, level=0.999, rng=np.random.default_rng(seed), gaussian=True
    )
    assert res.delta_lower_bound <= gauss_delta(eps, mu) + 1e-12


@settings(max_examples=5, deadline=None)
@given(eps=st.floats(0.2, 1.5), seed=st.integers(0, 2**32 - 1))
def test_laplace_pure_dp_holds_and_125_percent_eps_is_violated(eps, seed):
    """Lap(1/eps) on a sensitivity-1 count is eps-DP (delta 0): holds; Lap(0.8/eps) (true eps 1.25 eps): violated."""
    rng = np.random.default_rng(seed)

    def pair(b):
        return (lambda r, n: r.laplace(0.0, b, (n, 1))), (lambda r, n: 1.0 + r.laplace(0.0, b, (n, 1)))

    ok = ba.audit_pair(*pair(1 / eps), eps, samples=100_000, level=0.999, rng=rng)
    assert ok.delta_lower_bound <= 0.0
    assert laplace_delta(eps, 1.25 * eps) > 0
    bad = ba.audit_pair(*pair(0.8 / eps), eps, samples=100_000, level=0.999, rng=rng)
    assert bad.delta_lower_bound > 0.0
    assert bad.delta_lower_bound <= laplace_delta(eps, 1.25 * eps)


@settings(max_examples=10, deadline=None)
@given(eps=st.floats(0.1, 2.0), mu=st.floats(0.2, 4.0), seed=st.integers(0, 2**32 - 1))
def test_lower_bound_is_below_the_true_delta(eps, mu, seed):
    """Soundness: the bound never exceeds the tight delta of the pair (at level 0.999 a failure is a bug)."""
    res = ba.audit_pair(*gaussian_pair(mu, 2), eps, samples=10_000, level=0.999, rng=np.random.default_rng(seed))
    assert res.delta_lower_bound <= gauss_delta(eps, mu) + 1e-12


def test_covariance_difference_is_found_by_the_likelihood_ratio():
    """Equal means, different covariances (classdp's releases): the fitted Gaussian likelihood ratio finds it, the
    Fisher direction cannot."""
    rng = np.random.default_rng(7)

    def a(r, n):
        return r.standard_normal((n, 4))

    def b(r, n):
        return r.standard_normal((n, 4)) * np.array([3.0, 1, 1, 1])

    res = ba.audit_pair(a, b, 0.5, samples=20_000, level=0.999, rng=rng)
    assert res.delta_lower_bound > 0.1 and res.attack.statistic == "gaussian_llr"


def test_categorical_releases():
    """Randomised response on 5 bits: flip probability 1/(1+e^eps') gives eps'-DP per bit; the claim eps on one bit
    holds at eps' = eps and is violated at eps' = 1.5 eps."""
    eps = 1.0

    def pair(e):
        p = 1 / (1 + math.exp(e))

        def a(r, n):
            return (r.random((n, 5)) < p).astype(int)

        def b(r, n):
            x = (r.random((n, 5)) < p).astype(int)
            x[:, 0] = 1 - x[:, 0]
            return x

        return a, b

    rng = np.random.default_rng(1)
    ok = ba.audit_pair(*pair(eps), eps, samples=20_000, level=0.999, rng=rng, fitted=("categorical_llr",))
    assert ok.delta_lower_bound <= 0
    bad = ba.audit_pair(*pair(1.5 * eps), eps, samples=20_000, level=0.999, rng=rng, fitted=("categorical_llr",))
    assert bad.delta_lower_bound > 0


def test_search_finds_the_worst_pair_among_candidates():
    """Of 6 candidate pairs only one has too little noise: the search picks it and the final test violates."""
    eps, delta = 0.5, 0.01
    mu = gauss_mu(eps, delta)
    cands = [ba.Candidate(f"c{i}", *gaussian_pair(mu, 2, 0.5 if i == 4 else 1.0)) for i in range(6)]
    res = ba.search_and_audit(cands, eps, pilot_samples=4000, samples=40_000, level=0.999, rng=np.random.default_rng(0))
    assert res.chosen == "c4" and res.searched == 6 and res.pair.delta_lower_bound > delta


def test_hill_climb_finds_the_maximum():
    rng = np.random.default_rng(0)
    x, s, used = ba.hill_climb(
        lambda v: -float(((v - 3.0) ** 2).sum()),
        [np.zeros(2), np.ones(2)],
        lambda v, r, step: v + step * r.standard_normal(v.shape),
        budget=400,
        rng=rng,
        step=1.0,
    )
    assert used == 400 and np.allclose(x, 3.0, atol=0.2)


def test_verdicts_and_bad_input():
    assert ba.verdict(0.02, 0.01) == ba.VIOLATED
    assert ba.verdict(0.02, 0.01, paper_claim_wrong=True) == ba.VIOLATED_PAPER
    assert ba.verdict(0.01, 0.01) == ba.HOLDS
    with pytest.raises(ValueError, match="level"):
        ba.audit_samples(np.zeros((10, 1)), np.zeros((10, 1)), 1.0, 1.0)
    with pytest.raises(ValueError, match="at least 4"):
        ba.audit_samples(np.zeros((3, 1)), np.zeros((3, 1)), 1.0, 0.9)


def test_proposition2_slack_stated_in_the_docs():
    """docs/privacy_audits.md: at spdp's (log 2, 0.01), Proposition 2's noise gives a true hockey-stick delta of
    about 1e-3; 0.7x that noise is still (log 2, 0.01)-DP, 0.5x is about 4x the claim."""
    from dpgrid.mechanisms.correlated_gaussian import proposition2_lambda_bar

    eps, delta, b = math.log(2), 0.01, 1.0
    mu = b / math.sqrt(proposition2_lambda_bar(b, eps, delta))
    assert 5e-4 < ba.gaussian_shift_delta(eps, mu) < 2e-3
    assert ba.gaussian_shift_delta(eps, mu / 0.7) < delta
    assert 3 * delta < ba.gaussian_shift_delta(eps, mu / 0.5) < 6 * delta


@settings(max_examples=10, deadline=None)
@given(
    d=st.integers(1, 6),
    ratio=st.floats(0.3, 2.0),
    scale=st.floats(0.5, 3.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_laplace_llr_ranks_like_the_true_likelihood_ratio(d, ratio, scale, seed):
    """Fitted on independent Laplace noise around two means (shifted by ``ratio`` scales in one coordinate), the
    statistic follows on fresh releases the exact log likelihood ratio sum_j (|x_j - b_j| - |x_j - a_j|) / scale
    does (correlation > 0.95). Below a shift of about 0.3 scales the fitting noise of the unmoved coordinates
    dominates (d = 4, 0.08 scales: 0.94)."""
    shift = ratio * scale
    rng = np.random.default_rng(seed)
    a_mean, b_mean = np.zeros(d), np.r_[shift, np.zeros(d - 1)]
    a = a_mean + rng.laplace(0.0, scale, (20000, d))
    b = b_mean + rng.laplace(0.0, scale, (20000, d))
    stat = laplace_llr_statistic(a, b)
    x = np.vstack([a_mean + rng.laplace(0.0, scale, (3000, d)), b_mean + rng.laplace(0.0, scale, (3000, d))])
    exact = (np.abs(x - b_mean) - np.abs(x - a_mean)).sum(1) / scale
    assert np.corrcoef(stat(x), exact)[0, 1] > 0.95

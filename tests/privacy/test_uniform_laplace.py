"""Privacy of the pricing mechanisms: exact loss (Theorem 1), Theorem 2 total, empirical audits."""

import numpy as np
import pytest
from scipy import integrate

from dpgrid.mechanisms import blowfish_pricing as bp
from dpgrid.models import occupancy as occ
from dpgrid.privacy import uniform_laplace as ul
from dpgrid.privacy.audit import audit_density_ratio

EPS = 0.5


def test_uniform_laplace_density_integrates_to_one_and_matches_convolution():
    w, b = 0.8, 0.6
    total, _ = integrate.quad(
        lambda r: ul.uniform_laplace_density(np.array([r]), w, b)[0], -40, 40, points=[0, w], limit=200
    )
    assert total == pytest.approx(1.0, abs=1e-8)
    r = np.array([-3.0, 0.1, 0.5, 2.7])
    direct = [integrate.quad(lambda x, ri=ri: np.exp(-abs(ri - x) / b) / (2 * b) / w, 0, w)[0] for ri in r]
    np.testing.assert_allclose(ul.uniform_laplace_density(r, w, b), direct, rtol=1e-9)
    # far tails stay finite and exact (log form)
    lo = ul.uniform_laplace_log_density(np.array([-500.0]), w, b)[0]
    assert lo == pytest.approx(np.log(-np.expm1(-w / b) / (2 * w)) - 500 / b, rel=1e-9)


def test_sup_loss_respects_theorem1_bound_and_is_attained_by_point_masses():
    rng = np.random.default_rng(0)
    for _ in range(20):
        u0, u1 = rng.uniform(0.01, 0.5), rng.uniform(0.01, 1.0)
        lam = max(u0, u1)  # Algorithm 1 with alpha = 1
        sup = ul.sup_household_privacy_loss(u1, u0, lam / EPS)
        assert sup <= EPS + 1e-12
        grid = np.linspace(-30, 30, 20001)
        assert np.abs(ul.household_privacy_loss(grid, u1, u0, lam / EPS)).max() <= sup + 1e-12
    # a too-small lambda breaks the bound for some pair
    assert ul.sup_household_privacy_loss(1.0, 0.01, 0.25 / EPS) > EPS


def test_sequential_epsilon_theorem2():
    assert ul.sequential_epsilon(0.5, 96) == 48.0
    assert ul.sequential_epsilon(np.array([0.5, 0.0, 0.25])) == 0.75
    with pytest.raises(ValueError):
        ul.sequential_epsilon(-0.1, 3)


def _worst_pair_samples(lam_used, u, n, rng, z_rest=150.0):
    x1 = bp.release_rates(np.full(n, 62.5 + z_rest + u), lam_used, EPS, rng)
    x0 = bp.release_rates(np.full(n, 62.5 + z_rest), lam_used, EPS, rng)
    return x1, x0


def test_audit_passes_calibrated_mechanism_and_flags_an_undercalibrated_one():
    rng = np.random.default_rng(1)
    u = 0.93
    ok = audit_density_ratio(*_worst_pair_samples(u, u, 200_000, rng), EPS)
    assert not ok.violation and ok.hockey_stick_lower <= 0
    assert ok.max_log_ratio_lower <= EPS
    assert ok.max_log_ratio > 0.8 * EPS  # the worst-case pair is tight: the audit has power near eps
    bad = audit_density_ratio(*_worst_pair_samples(0.5 * u, u, 200_000, rng), EPS)
    assert bad.violation and bad.max_log_ratio_lower > EPS


def test_privacy_loss_tail_of_the_model_pair_is_zero_beyond_eps():
    """Pr[L > eps] = 0 for the Algorithm 1 release of a household in kappa (delta = 0), sampled."""
    pop = occ.draw_population(
        [occ.DailyPeriod("all", 0, 24, 0.1, 0.1)],
        200,
        8,
        basis="per_step",
        perturbation_sd=0.0,
        clipping=occ.ClippingRule(),
        initial_mode="fixed",
        initial_occupied_probability=0.5,
        u_max_unoccupied=0.5,
        u_max_occupied=1.0,
        bound_coupling="independent",
        rng=np.random.default_rng(2),
    )
    lam, kappa = bp.blowfish_noise_parameter(occ.prior_support(pop), pop.sensitivity, 1.0)
    rng = np.random.default_rng(3)
    h = int(np.argmax(np.where(kappa[3], pop.sensitivity, -1)))
    u0, u1 = pop.bounds[h]
    b = lam[3] / EPS
    for s, u in ((1, u1), (0, u0)):
        r = bp.release_rates(rng.random(100_000) * u, lam[3], EPS, rng)
        loss = ul.household_privacy_loss(r, u1, u0, b) * (1 if s == 1 else -1)
        assert np.mean(loss > EPS) == 0.0
        # the conjugate direction too
        assert np.mean(-loss > EPS) == 0.0

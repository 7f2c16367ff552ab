"""Colored / white Gaussian centroid noise (dpkmeans paper eq. 10-18) and its privacy audit."""

import logging
import math

import numpy as np
import pytest
from scipy import optimize, stats

from dpgrid.mechanisms.colored_centroid_noise import (
    _span,
    _support_groups,
    design_from_precision,
    eq13_delta,
    gamma_c,
    lemma2_closed_form,
    optimal_colored_design,
    verify_and_scale,
    white_noise_design,
)
from dpgrid.privacy.gaussian import pdp_delta


def _clopper_pearson(k, n, alpha=1e-3):
    lo = stats.beta.ppf(alpha / 2, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - alpha / 2, k + 1, n - k) if k < n else 1.0
    return lo, hi


def test_axis_aligned_shifts_have_closed_form_optimum():
    # shifts along coordinate axes: optimum Gamma_ii = 1 / max a_i^2, tr(Gamma^-1) = sum max a_i^2
    rng = np.random.default_rng(0)
    a = rng.uniform(0.1, 3.0, (40, 3))
    shifts = np.zeros((120, 3))
    for i in range(3):
        shifts[i * 40 : (i + 1) * 40, i] = a[:, i] * rng.choice([-1, 1], 40)
    dsg = optimal_colored_design(shifts, tol=1e-6)
    expect = (a**2).max(0).sum()
    assert dsg.primal_unit == pytest.approx(expect, rel=1e-5)
    assert dsg.primal_unit >= dsg.dual_unit * (1 - 1e-12)  # weak duality


def test_general_2d_optimum_matches_direct_primal_solver():
    rng = np.random.default_rng(1)
    shifts = rng.normal(size=(25, 2)) * [2.0, 0.5] @ np.array([[1.0, 0.6], [0.0, 1.0]])
    dsg = optimal_colored_design(shifts, tol=1e-7)

    def unpack(z):
        Lc = np.array([[math.exp(z[0]), 0.0], [z[1], math.exp(z[2])]])
        return Lc @ Lc.T  # precision Gamma

    cons = {"type": "ineq", "fun": lambda z: 1.0 - np.einsum("ij,jk,ik->i", shifts, unpack(z), shifts)}
    best = min(
        (
            optimize.minimize(
                lambda z: np.trace(np.linalg.inv(unpack(z))),
                z0,
                constraints=[cons],
                method="SLSQP",
                options={"ftol": 1e-12, "maxiter": 500},
            )
            for z0 in ([0, 0, 0], [-1, 0.3, 0.5], [1, -0.5, -1])
        ),
        key=lambda r: r.fun if r.success else np.inf,
    )
    assert dsg.primal_unit == pytest.approx(best.fun, rel=1e-4)


def test_every_constraint_holds_and_colored_beats_white():
    rng = np.random.default_rng(2)
    shifts = rng.normal(size=(300, 6)) * np.array([3, 1, 0.3, 0.3, 0.1, 0.05])
    dsg = optimal_colored_design(shifts)
    q = dsg.mahalanobis_sq(shifts)
    assert q.max() <= 1 + 1e-9
    white = white_noise_design(shifts)
    assert white.mahalanobis_sq(shifts).max() == pytest.approx(1.0)
    assert dsg.primal_unit < white.primal_unit
    assert dsg.gap < 1.1e-3


def test_rank_deficient_shifts_get_noise_only_in_their_span():
    rng = np.random.default_rng(3)
    shifts = np.zeros((50, 4))
    shifts[:, :2] = rng.normal(size=(50, 2))
    dsg = optimal_colored_design(shifts)
    cov = dsg.covariance(1.0)
    assert np.abs(cov[2:, :]).max() < 1e-12
    assert dsg.mahalanobis_sq(np.array([[0, 0, 1.0, 0]]))[0] == np.inf


def test_lemma2_literal_form_is_verified_and_scaled(caplog):
    # d = 1 per centroid, K = 3: Lemma 2's setting (C* square).  With shifts < 1, eq. (18) as printed
    # violates the constraints (it is not dimensionally consistent); verify_and_scale must fix it.
    shifts = np.diag([0.2, 0.5, 0.8])
    G = lemma2_closed_form(shifts, 1.0)
    q = np.einsum("ij,jk,ik->i", shifts, G, shifts)
    assert q.max() > 1.0
    with caplog.at_level(logging.WARNING):
        dsg = verify_and_scale(design_from_precision(G, "lemma2"), shifts)
    assert "violates" in caplog.text
    assert dsg.mahalanobis_sq(shifts).max() <= 1 + 1e-9
    opt = optimal_colored_design(shifts, tol=1e-8)
    assert opt.primal_unit == pytest.approx(0.04 + 0.25 + 0.64, rel=1e-6)
    assert dsg.primal_unit >= opt.primal_unit * (1 - 1e-9)


@pytest.mark.parametrize("eps,delta", [(0.5, 1e-3), (1.0, 0.01), (30.0, 0.2)])
def test_calibrations_invert_their_delta(eps, delta):
    g = gamma_c(eps, delta, "exact_pdp")
    assert pdp_delta(eps, math.sqrt(g)) == pytest.approx(delta, rel=1e-9)
    g13 = gamma_c(eps, delta, "paper_eq13")
    assert eq13_delta(eps, math.sqrt(g13)) == pytest.approx(delta, rel=1e-9)


def test_pdp_tail_bounds_the_hockey_stick_delta_of_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution as pld

    for sens in (0.3, 1.0, 3.0):
        d = pld.from_gaussian_mechanism(standard_deviation=1.0, sensitivity=sens, value_discretization_interval=1e-4)
        for eps in (0.1, 1.0, 3.0):
            hs = d.get_delta_for_epsilon(eps)
            bw = stats.norm.cdf(sens / 2 - eps / sens) - math.exp(eps) * stats.norm.cdf(-sens / 2 - eps / sens)
            assert hs == pytest.approx(bw, abs=2e-4)
            assert hs <= pdp_delta(eps, sens) + 1e-6


def _empirical_tail(shifts, dsg, gam, eps, n, rng):
    """Privacy loss of the worst pair from densities (scipy multivariate normal), sampled under X."""
    cov = dsg.covariance(gam)
    u = shifts[np.argmax(dsg.mahalanobis_sq(shifts))]
    c = np.zeros(shifts.shape[1])
    out = c + dsg.sample(rng, gam, n)
    mvn = stats.multivariate_normal(mean=c, cov=cov)
    L = mvn.logpdf(out) - stats.multivariate_normal(mean=c - u, cov=cov).logpdf(out)
    return int((L > eps).sum())


def test_privacy_audit_colored_mechanism_exact_calibration():
    rng = np.random.default_rng(4)
    shifts = rng.normal(size=(200, 3)) * [1.0, 0.4, 0.1]
    dsg = optimal_colored_design(shifts)
    eps, delta, n = 1.0, 0.05, 40000
    k = _empirical_tail(shifts, dsg, gamma_c(eps, delta, "exact_pdp"), eps, n, rng)
    lo, hi = _clopper_pearson(k, n)
    assert lo <= delta <= hi


def test_privacy_audit_shows_eq13_calibration_fails_for_large_eps():
    # eq. (13) (Theorem 2's bound) is only valid for eps < 1: at the paper's Fig. 8 budget (30, 0.2)
    # the privacy-loss tail is far above the claimed delta.
    rng = np.random.default_rng(5)
    shifts = rng.normal(size=(200, 3))
    dsg = optimal_colored_design(shifts)
    eps, delta, n = 30.0, 0.2, 20000
    k = _empirical_tail(shifts, dsg, gamma_c(eps, delta, "paper_eq13"), eps, n, rng)
    lo, _ = _clopper_pearson(k, n)
    assert lo > 0.9  # Pr(L > 30) is essentially 1, not 0.2


def _dense_dual_iteration(shifts, tol):
    """The eq. (15) dual iteration with dense accumulation in the span coordinates (the solver before issue 27)."""
    Q, keep = _span(shifts)
    V = shifts[keep] @ Q
    w = (V**2).sum(1)
    w /= w.sum()
    for it in range(1, 20001):  # noqa: B007 (the count is returned)
        s, E = np.linalg.eigh((V * w[:, None]).T @ V)
        s = np.maximum(s, s.max() * 1e-14)
        f = np.sqrt(s).sum()
        B = V @ E * s**-0.25
        dvals = (B * B).sum(1)
        if dvals.max() / f - 1.0 < tol:
            break
        w = w * dvals / f
        w /= w.sum()
    return Q @ ((E * (np.sqrt(s) * dvals.max())) @ E.T) @ Q.T, it


def _block_sparse_shifts(rng, K=4, d=3, n_per=40, n_multi=12):
    """Leave-one-out-like shifts: most rows non-zero in one centroid block of d, a few in two or three blocks."""
    rows = []
    for k in range(K):
        for _ in range(n_per):
            u = np.zeros(K * d)
            u[k * d : (k + 1) * d] = rng.normal(0, 1.0 + k, d)
            rows.append(u)
    for _ in range(n_multi):
        u = np.zeros(K * d)
        for k in rng.choice(K, size=int(rng.integers(2, 4)), replace=False):
            u[k * d : (k + 1) * d] = rng.normal(0, 3.0, d)
        rows.append(u)
    return np.array(rows)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_block_sparse_solver_matches_dense_iteration(seed):
    """Block-sparse accumulation (issue 27) runs the same iteration as the dense one: same iteration count and
    the same covariance up to rounding; every row of the shifts is covered by exactly one support group."""
    rng = np.random.default_rng(seed)
    U = _block_sparse_shifts(rng)
    groups = _support_groups(U)
    covered = np.sort(np.concatenate([g.rows for g in groups]))
    np.testing.assert_array_equal(covered, np.arange(len(U)))
    for g in groups:
        rest = np.setdiff1d(np.arange(U.shape[1]), g.cols)
        assert np.all(U[np.ix_(g.rows, rest)] == 0.0)
        np.testing.assert_array_equal(U[np.ix_(g.rows, g.cols)], g.values)
    assert len(groups) > 4  # the single-block groups and the multi-block ones
    design = optimal_colored_design(U, tol=1e-6)
    ref_cov, ref_iter = _dense_dual_iteration(U, 1e-6)
    assert design.n_iter == ref_iter
    np.testing.assert_allclose(design.covariance(1.0), ref_cov, rtol=1e-9, atol=1e-12 * np.abs(ref_cov).max())
    assert design.mahalanobis_sq(U).max() <= 1.0 + 1e-9


def test_block_sparse_solver_rank_deficient_block():
    """A centroid block that no shift reaches stays noise-free (the span), as with dense accumulation."""
    rng = np.random.default_rng(3)
    U = _block_sparse_shifts(rng, n_multi=0)
    U[:, 0:3] = 0.0  # block 0 never moves
    design = optimal_colored_design(U, tol=1e-6)
    ref_cov, _ = _dense_dual_iteration(U, 1e-6)
    np.testing.assert_allclose(design.covariance(1.0), ref_cov, rtol=1e-9, atol=1e-12 * np.abs(ref_cov).max())
    assert np.abs(design.covariance(1.0)[:3, :]).max() < 1e-12 * np.abs(ref_cov).max()

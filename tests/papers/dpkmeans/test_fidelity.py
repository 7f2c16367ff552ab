"""dpkmeans fidelity tools: scaled designs (paper-parameter variants), exact hockey-stick delta, the k-NN fence,
Fig. 11 band statistics, the Fig. 11 sweep and the non-private covariance reference."""

import math

import numpy as np
import pytest

from dpgrid.mechanisms.colored_centroid_noise import gamma_c, optimal_colored_design, white_noise_design
from dpgrid.mechanisms.dp_kmeans_baselines import exact_fence_range, knn_fence_factors, knn_outliers
from dpgrid.papers.dpkmeans.fidelity import (
    exact_delta_rows,
    paper_variant_rows,
    setting_label,
    synthetic_sweep_settings,
)
from dpgrid.papers.dpkmeans.synthetic_loads import band_summary, band_table, dp_lognormal_models, log_mean_design
from dpgrid.privacy.gaussian import CalibrationError, hockey_stick_delta, hockey_stick_epsilon


def _shifts(rng, n=40, dim=6):
    return rng.normal(size=(n, dim)) * np.array([3.0, 1.0, 0.5, 0.2, 2.0, 0.1])[:dim]


def test_scaled_design_is_the_design_of_the_scaled_shifts():
    """Eq. (15) is homogeneous: the optimum for f u is f^2 times the optimum for u (checked by re-solving)."""
    U = _shifts(np.random.default_rng(0))
    d1 = optimal_colored_design(U, tol=1e-6)
    f = 18.4
    d2 = optimal_colored_design(f * U, tol=1e-6)
    s = d1.scaled(f)
    assert s.primal_unit == pytest.approx(d2.primal_unit, rel=3e-6)
    np.testing.assert_allclose(s.covariance(1.0), d2.covariance(1.0), rtol=1e-3, atol=1e-6 * f * f)
    # the scaled shifts meet the constraints of the scaled design exactly as the originals meet d1's
    np.testing.assert_allclose(s.mahalanobis_sq(f * U), d1.mahalanobis_sq(U), rtol=1e-9)
    w = white_noise_design(U)
    assert w.scaled(f).trace(2.0) == pytest.approx(white_noise_design(f * U).trace(2.0))


def test_paper_variant_rows_scale_the_noise_by_the_sensitivity_ratio():
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(6, 1, (30, 2))]
    C = np.array([X[:30].mean(0), X[30:].mean(0)])
    lab = np.r_[np.zeros(30, int), np.ones(30, int)]
    U = _shifts(rng, 60, 4)
    dsg = optimal_colored_design(U)
    ours = float(np.linalg.norm(U, axis=1).max())
    rows = paper_variant_rows(
        X,
        C,
        lab,
        dsg,
        U,
        dataset="t",
        delta_c_ours=ours,
        delta_c_paper=2 * ours,
        budgets=[("fig8", 30.0, 0.2, 0.0), ("fig9", 1.0, 0.01, 0.0)],
        calibration="exact_pdp",
    )
    by = {(r["variant"], r["method"], r["figure"]): r for r in rows}
    for m in ("colored", "white"):
        for fig in ("fig8", "fig9"):
            assert by[("paper", m, fig)]["noise_trace"] == pytest.approx(4 * by[("ours", m, fig)]["noise_trace"])
            # without label noise the expected loss is linear in the noise covariance
            assert by[("paper", m, fig)]["expected_loss"] == pytest.approx(4 * by[("ours", m, fig)]["expected_loss"])
    assert by[("ours", "colored", "fig9")]["noise_trace"] == pytest.approx(dsg.trace(gamma_c(1.0, 0.01)))


def test_exact_delta_rows_pdp_matches_the_budget_and_bounds_the_hockey_stick():
    rows = exact_delta_rows([("a", 30.0, 0.2), ("b", 1.0, 0.01), ("c", 5.0, 0.05)])
    for r in rows:
        if r["calibration"] == "exact_pdp":
            assert r["pdp_delta"] == pytest.approx(r["delta_budget"], rel=1e-9)
        assert 0 <= r["hockey_stick_delta"] <= r["pdp_delta"] + 1e-15
        assert hockey_stick_delta(r["eps_hockey_stick_at_budget_delta"], r["mahalanobis_shift"]) == pytest.approx(
            r["delta_budget"], rel=1e-6, abs=1e-12
        )
        assert r["eps_hockey_stick_at_budget_delta"] <= r["eps"] + 1e-9 or r["calibration"] == "paper_eq13"


def test_hockey_stick_delta_matches_a_monte_carlo_of_the_privacy_loss():
    """delta(eps) = E[(1 - e^(eps - L))_+] with L ~ N(D^2/2, D^2) (Balle & Wang 2018, Thm 5): an independent
    estimate."""
    rng = np.random.default_rng(5)
    for eps, D in ((30.0, math.sqrt(gamma_c(30.0, 0.2))), (1.0, math.sqrt(gamma_c(1.0, 0.01)))):
        L = rng.normal(D * D / 2, D, 2_000_000)
        v = np.maximum(0.0, 1.0 - np.exp(eps - L))
        est, se = v.mean(), v.std() / math.sqrt(len(v))
        assert abs(est - hockey_stick_delta(eps, D)) < 5 * se
    # a shift small enough that delta(0) = 2 Phi(D/2) - 1 is below the target needs no eps at all
    assert hockey_stick_epsilon(0.5, 0.1) == 0.0
    with pytest.raises(CalibrationError, match="0 < delta < 1"):
        hockey_stick_epsilon(1.0, 1.0)
    # large eps: no overflow, and the curve keeps decreasing to 0
    assert 0.0 <= hockey_stick_delta(800.0, 40.0) <= hockey_stick_delta(700.0, 40.0)


def test_knn_fence_factors_reproduce_the_rule_and_the_exact_range():
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal(0, 1, (200, 5)), rng.normal(0, 1, (3, 5)) + 25.0, rng.normal(0, 1, (1, 5)) + 4.0]
    fac = knn_fence_factors(X, 20)
    for f in (0.5, 1.0, 3.0, 6.0, 20.0):
        np.testing.assert_array_equal(fac > f, knn_outliers(X, 20, f))
    target = np.zeros(len(X), bool)
    target[200:203] = True
    lo, hi = exact_fence_range(fac, target)
    assert lo < hi
    for f in (lo + 1e-9, 0.5 * (lo + hi), hi - 1e-9):
        np.testing.assert_array_equal(knn_outliers(X, 20, f), target)
    assert not np.array_equal(knn_outliers(X, 20, hi + 1e-9), target)
    assert not np.array_equal(knn_outliers(X, 20, lo - 1e-9), target)


def test_band_table_closed_forms():
    """Identical bands: IoU = coverage = width ratio = 1; a band shifted by half its width: IoU 1/3, coverage 1/2."""
    rng = np.random.default_rng(3)
    X = rng.uniform(0.0, 1.0, (20000, 2))
    g = np.zeros(len(X), int)
    same = band_table(X, g, [X.copy()], 0.05, 0.95)
    assert np.allclose(same[["iou", "coverage", "width_ratio"]].to_numpy(), 1.0)
    shifted = band_table(X, g, [X + 0.45], 0.05, 0.95)
    np.testing.assert_allclose(shifted["iou"], 1 / 3, atol=0.01)
    np.testing.assert_allclose(shifted["coverage"], 0.5, atol=0.01)
    neg = band_table(X, g, [X - 0.5], 0.05, 0.95)
    np.testing.assert_allclose(neg["neg_synthetic"], 0.5, atol=0.02)
    s = band_summary(neg)
    assert s["neg_true"] == 0.0 and s["neg_synthetic"] == pytest.approx(0.5, abs=0.02)


def _groups(rng, n=(300, 200)):
    X = np.vstack([rng.lognormal(np.log(m), 0.3, (k, 25)) for m, k in zip((0.8, 2.0), n)])
    g = np.repeat(np.arange(len(n)), n)
    return X, g


def test_nonprivate_reference_uses_the_sample_covariance_and_reused_design_gives_identical_draws():
    rng = np.random.default_rng(4)
    X, g = _groups(rng)
    kw = dict(alpha=15.0, eps_c=30.0, delta_c=0.2, eps_w=30.0, calibration="exact_pdp", row_bound=1.0, cov_floor=1e-9)
    m, info = dp_lognormal_models(X, g, 2, rng=np.random.default_rng(0), cov_mechanism="nonprivate", **kw)
    Y = np.log(X + 15.0)
    for k in range(2):
        np.testing.assert_allclose(m[k].cov, np.cov(Y[g == k], rowvar=False, bias=True), atol=1e-9)
    assert info["delta_w"] == 1.0 and math.isinf(info["eps_total"])
    a, _ = dp_lognormal_models(X, g, 2, rng=np.random.default_rng(9), **kw)
    b, _ = dp_lognormal_models(X, g, 2, rng=np.random.default_rng(9), mean_design=log_mean_design(X, g, 2, 15.0), **kw)
    for ma, mb in zip(a, b):
        np.testing.assert_array_equal(ma.mu, mb.mu)
        np.testing.assert_array_equal(ma.cov, mb.cov)


def test_sweep_settings_cover_every_axis_with_unique_labels_and_dp_accounting():
    base = {"row_bound": 1.0, "alpha": 15.0, "eps_w": 30.0}
    sweep = {"eps_w": [1.0, 30.0, 1000.0], "delta_w": [1e-5, 0.01], "row_bound": [0.5, 1.0], "alpha": [5.0, 15.0]}
    s = synthetic_sweep_settings(base, sweep)
    labels = [setting_label(x) for x in s]
    assert len(set(labels)) == len(labels)
    assert {x["axis"] for x in s} == {"reference", "eps_w", "row_bound", "alpha"}
    # every mechanism at every eps_w: Wishart debiased and not, Analyze Gauss per delta_w
    assert sum(x["axis"] == "eps_w" for x in s) == 3 * (2 + 2)
    assert all(math.isfinite(x["eps_w"]) for x in s if x["cov_mechanism"] != "nonprivate")

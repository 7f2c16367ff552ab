"""SpDP Algorithm 1 (positive filter) and Algorithm 2 (streaming release), on simulated AR processes."""

import math

import numpy as np
import pytest
from scipy import signal

from dpgrid.mechanisms.correlated_gaussian import CorrelatedGaussianMechanism
from dpgrid.mechanisms.spectral import (
    SpectralMechanismError,
    apply_positive_filter,
    design_reduction_filter,
    design_streaming_release,
    positive_filter_coefficients,
    reduction_filter_sos,
    release_metrics,
    spdp_mechanism,
)
from dpgrid.models.psd import PSDEstimator, filter_power_response, sos_power_response
from dpgrid.models.spectral_factor import power_response_on_grid

EST = PSDEstimator(n_points=64, fs_per_hour=12.0)
AR = (1.0, [1.0, -1.2, 0.4])  # AR(2) with poles 0.6 +- 0.2j: a low-frequency "load-like" process


def _ar_psd(est=EST, scale=1.0):
    return scale * filter_power_response([AR[0]], AR[1], est.omega) / est.fs_per_hour


def _ar(n, rng, scale=1.0):
    return math.sqrt(scale) * signal.lfilter([AR[0]], AR[1], rng.standard_normal(n + 500))[500:]


# ------------------------------------------------------------------ Algorithm 1


def test_positive_filter_is_eq10_with_dc_gain_kp_and_keeps_positivity():
    b, a = positive_filter_coefficients(0.39, 0.8)
    _, h = signal.freqz(b, a, worN=[0.0])
    assert abs(h[0]) == pytest.approx(0.8)  # eq. (10): DC gain K_p
    imp = signal.lfilter(b, a, np.r_[1.0, np.zeros(30)])
    assert np.all(imp >= 0)  # a positive system
    rng = np.random.default_rng(0)
    y = np.maximum(rng.normal(0, 1, 289), 0)  # clipped, many exact zeros
    out = apply_positive_filter(y, 0.39, 0.8)
    assert np.all(out >= 0)
    assert np.all(apply_positive_filter(np.ones(100), 0.39, 0.8) == pytest.approx(0.8))  # cascade DC gain K_p
    # zero phase: a symmetric input gives a symmetric output (a causal pass would shift it)
    bump = np.exp(-0.5 * ((np.arange(201) - 100) / 5.0) ** 2)
    sm = apply_positive_filter(bump, 0.39, 0.8)
    assert np.argmax(sm) == 100
    with pytest.raises(SpectralMechanismError):
        apply_positive_filter(np.array([1.0, -0.1, 2.0]), 0.39, 0.8)


def test_spdp_mechanism_output_is_a_valid_psd_and_noise_has_stated_scale():
    phi = _ar_psd()
    mech = CorrelatedGaussianMechanism(phi.size, 0.05, math.log(2), 0.01, beta=0.5)
    rng = np.random.default_rng(1)
    rel = spdp_mechanism(phi, mech, omega_n=0.39, gain=0.8, rng=rng)
    assert np.all(rel.phi_tilde >= 0) and np.all(rel.phi_clipped == np.maximum(rel.phi_noisy, 0))
    # the noise is eta = phi_noisy - phi with the mechanism's covariance: check its size over draws
    etas = np.array([spdp_mechanism(phi, mech, omega_n=0.39, gain=0.8, rng=rng).phi_noisy - phi for _ in range(400)])
    assert etas.std() == pytest.approx(mech.marginal_std, rel=0.1)


# ------------------------------------------------------------------ Algorithm 2


def _design(phi, phi_tilde, **kw):
    args = dict(cutoff_per_hour=0.72, gain=0.8, order=2, shrink=0.8, min_cutoff_per_hour=0.01, gamma_floor=1e-3)
    args.update(kw)
    return design_streaming_release(phi, phi_tilde, EST, mean=0.0, **args)


def test_reduction_filter_is_adapted_until_gamma_positive():
    phi = _ar_psd()
    phi_tilde = 0.3 * phi + 0.01 * phi.max()  # much less power than 0.8^2 phi at low frequency: infeasible at start
    red = design_reduction_filter(
        phi,
        phi_tilde,
        EST,
        cutoff_per_hour=2.0,
        gain=0.8,
        order=2,
        shrink=0.8,
        min_cutoff_per_hour=0.05,
        gamma_floor=1e-3,
    )
    assert len(red.steps) > 1 and red.steps[0]["n_bins_not_positive"] > 0
    assert np.all(red.gamma > 1e-3 * phi_tilde)
    f2 = sos_power_response(red.sos, EST.omega)
    assert np.allclose(red.gamma, phi_tilde - f2 * phi)  # eq. (11)
    assert red.gain < 0.8  # DC bin needed the gain reduced as well


def test_spectral_factor_matches_gamma_on_grid():
    phi = _ar_psd()
    design = _design(phi, 1.2 * phi + 0.05 * phi.mean())
    got = power_response_on_grid(design.h, EST.n_points) / EST.fs_per_hour
    assert np.max(np.abs(got / design.reduction.gamma - 1)) < 1e-6


def test_released_psd_matches_phi_tilde_within_confidence_band():
    """Proposition 3: the PSD of a long released sequence is phi_tilde (x with known PSD phi)."""
    rng = np.random.default_rng(2)
    phi = _ar_psd()
    omega = EST.omega
    phi_tilde = 0.9 * phi + 0.3 * phi.mean() * (1.0 + 0.5 * np.cos(3 * omega))  # a smooth private PSD
    design = _design(phi, phi_tilde)
    assert np.allclose(design.expected_psd(phi, EST), phi_tilde, rtol=1e-6)
    x = _ar(300_000, rng)
    xr = design.new_stream(rng).push(x)[1000:]
    p = EST.estimate(xr)
    lo, hi = EST.confidence_band(phi_tilde, xr.size, level=0.999)
    inside = (p >= lo) & (p <= hi)
    assert inside.mean() >= 0.95
    assert EST.variance_from_psd(phi_tilde) == pytest.approx(np.var(xr), rel=0.03)
    # a wrong factor (|H|^2 = f_s gamma forgotten) would be far outside the band
    assert np.mean(np.abs(p / phi_tilde - 1)) < 0.03


def test_released_psd_matches_rough_phi_tilde_on_average():
    """With a rough (clipped-noise) phi_tilde the estimator's window smooths across neighbouring bins;
    averaged over 5 bins the released PSD still matches phi_tilde."""
    rng = np.random.default_rng(12)
    phi = _ar_psd()
    phi_tilde = (
        apply_positive_filter(np.maximum(phi + rng.normal(0, 0.2 * phi.mean(), phi.size), 0), 0.39, 0.8)
        + 0.02 * phi.mean()
    )
    design = _design(phi, phi_tilde)
    xr = design.new_stream(rng).push(_ar(300_000, rng))[1000:]
    p = EST.estimate(xr)
    k = np.ones(5) / 5
    ratio = np.convolve(p, k, "valid") / np.convolve(phi_tilde, k, "valid")
    assert np.max(np.abs(ratio - 1)) < 0.06


def test_proposition3_cross_correlation_on_ar_process():
    """R_{x x_tilde}[m] = E[x_{k+m} x_tilde_k] = (R_xx * f(-.))[m] (Proposition 3)."""
    rng = np.random.default_rng(3)
    phi = _ar_psd()
    design = _design(phi, 1.1 * phi + 0.1 * phi.mean())
    n = 400_000
    x = _ar(n, rng)
    xr = design.new_stream(rng).push(x)
    lags = np.arange(-15, 16)
    burn = 2000
    emp = []
    for m in lags:
        a = x[burn + m : n - 50 + m]
        b = xr[burn : n - 50]
        emp.append(np.mean(a * b))
    emp = np.array(emp)
    # analytic: R_xx from the AR(2) impulse response; f from the reduction filter's impulse response
    g = signal.lfilter([AR[0]], AR[1], np.r_[1.0, np.zeros(3000)])
    r_xx = lambda m: float(np.dot(g[: g.size - abs(m)], g[abs(m) :]))  # noqa: E731
    f = signal.sosfilt(design.reduction.sos, np.r_[1.0, np.zeros(3000)])
    theory = np.array([sum(f[j] * r_xx(m + j) for j in range(400)) for m in lags])
    scale = r_xx(0)
    assert np.max(np.abs(emp - theory)) < 0.03 * scale
    # and the statement is not vacuous: it differs from R_xx itself
    assert np.max(np.abs(theory - np.array([r_xx(m) for m in lags]))) > 0.1 * scale


def test_streaming_sample_by_sample_equals_batch():
    rng = np.random.default_rng(4)
    phi = _ar_psd()
    design = _design(phi, 1.1 * phi + 0.1 * phi.mean())
    x = _ar(3000, rng) + 2.0
    design.mean = 2.0
    batch = design.new_stream(np.random.default_rng(9)).push(x)
    s = design.new_stream(np.random.default_rng(9))
    one = np.concatenate([s.push(x[i : i + 1]) for i in range(500)] + [s.push(x[500:1700]), s.push(x[1700:])])
    assert np.allclose(one, batch, rtol=0, atol=1e-12)
    # mean restored: released mean = sensitive mean within noise
    assert np.mean(batch[500:]) == pytest.approx(np.mean(x[500:]), abs=0.3)


def test_release_metrics_definitions():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    xr = x + np.array([0.5, -0.5, 0.5, -0.5])
    m = release_metrics(x, xr)
    assert m["noise_std_kw"] == pytest.approx(np.std([0.5, -0.5, 0.5, -0.5], ddof=1))
    assert m["snr_db_paper"] == pytest.approx(10 * np.log10(np.sum(xr**2) / 1.0))
    assert m["snr_db_sensitive"] == pytest.approx(10 * np.log10(30.0))
    assert -1 <= m["correlation"] <= 1


def test_reduction_filter_sos_has_gain_and_cutoff():
    sos = reduction_filter_sos(0.72, 0.8, 2, 12.0)
    w = 2 * np.pi * np.array([0.0, 0.72]) / 12.0
    p = sos_power_response(sos, w)
    assert p[0] == pytest.approx(0.64) and p[1] == pytest.approx(0.32)  # Butterworth: -3 dB at cutoff
    with pytest.raises(SpectralMechanismError):
        reduction_filter_sos(7.0, 0.8, 2, 12.0)

"""PSD estimator of dpgrid.models.psd (SpDP eqs. 5-6): units, grid, closed forms, Parseval."""

import numpy as np
import pytest
from scipy import signal

from dpgrid.models.psd import PSDError, PSDEstimator, filter_power_response


def test_grid_has_n_plus_one_frequencies_up_to_nyquist():
    est = PSDEstimator(n_points=288, fs_per_hour=12.0)
    f = est.frequencies_per_hour
    assert f.size == 289 and f[0] == 0.0 and f[-1] == pytest.approx(6.0)  # Nyquist of 5-min data: 6 / hour
    assert np.allclose(est.omega, 2 * np.pi * f / 12.0)  # eq. (5) in rad/sample
    x = np.random.default_rng(0).standard_normal(5000)
    assert est.estimate(x).shape == (289,)


def test_white_noise_level_is_variance_over_fs_in_kw2_hour():
    """Two-sided density: white noise of variance s^2 kW^2 has PSD s^2 / f_s kW^2*hour at every bin."""
    est = PSDEstimator(n_points=64, fs_per_hour=12.0)
    rng = np.random.default_rng(1)
    x = 2.0 * rng.standard_normal(200_000)
    p = est.estimate(x)
    level = est.white_noise_level(4.0)
    assert level == pytest.approx(4.0 / 12.0)
    assert np.mean(p[1:-1]) == pytest.approx(level, rel=0.01)
    # DC and Nyquist bins on the same scale as the interior (two-sided convention)
    assert p[-1] == pytest.approx(level, rel=0.15)
    assert est.variance_from_psd(p) == pytest.approx(np.var(x), rel=0.01)


def test_ar1_psd_matches_closed_form_within_confidence_band():
    a, s2 = 0.8, 1.0
    est = PSDEstimator(n_points=64, fs_per_hour=12.0)
    rng = np.random.default_rng(2)
    n = 400_000
    x = signal.lfilter([1.0], [1.0, -a], rng.standard_normal(n))[1000:]
    p = est.estimate(x)
    true = s2 * filter_power_response([1.0], [1.0, -a], est.omega) / est.fs_per_hour
    lo, hi = est.confidence_band(true, x.size, level=0.999)
    inside = (p >= lo) & (p <= hi)
    assert inside.mean() >= 0.95
    assert est.variance_from_psd(true) == pytest.approx(s2 / (1 - a * a), rel=0.02)


def test_confidence_band_has_nominal_coverage():
    """The chi-square band with Welch's equivalent dof covers white-noise estimates at about its level."""
    est = PSDEstimator(n_points=32, fs_per_hour=1.0)
    rng = np.random.default_rng(3)
    n = 64 * 40
    cover = []
    for _ in range(200):
        p = est.estimate(rng.standard_normal(n))
        lo, hi = est.confidence_band(np.full(33, 1.0), n, level=0.9)
        cover.append(((p >= lo) & (p <= hi))[1:-1].mean())
    assert 0.86 <= np.mean(cover) <= 0.94


def test_bad_input_is_rejected_with_a_clear_message():
    est = PSDEstimator(n_points=288)
    with pytest.raises(PSDError, match="needs at least 2N = 576"):
        est.estimate(np.ones(575), name="window")
    x = np.ones(1000)
    x[7] = np.nan
    with pytest.raises(PSDError, match="sample\\(s\\) \\[7\\]"):
        est.estimate(x)
    with pytest.raises(PSDError):
        PSDEstimator(n_points=1)

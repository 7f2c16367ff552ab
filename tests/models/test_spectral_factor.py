"""Cepstral spectral factor (dpgrid.models.spectral_factor; SpDP Algorithm 2 step 2)."""

import numpy as np
import pytest
from scipy import signal

from dpgrid.models.spectral_factor import SpectralFactorError, cepstral_spectral_factor, power_response_on_grid


def test_power_response_matches_target_on_grid_to_1e6():
    n = 288
    rng = np.random.default_rng(0)
    w = np.pi * np.arange(n + 1) / n
    target = np.exp(np.sin(3 * w)) + 0.5 * rng.random(n + 1) + 1e-3
    h = cepstral_spectral_factor(target)
    assert h.size == 2 * n
    got = power_response_on_grid(h, n)
    assert np.max(np.abs(got / target - 1)) < 1e-6
    # independent evaluation of the FIR's frequency response with scipy.signal.freqz
    _, resp = signal.freqz(h, [1.0], worN=w)
    assert np.max(np.abs(np.abs(resp) ** 2 / target - 1)) < 1e-6


def test_recovers_known_minimum_phase_filter():
    """For |H|^2 of the minimum-phase MA(2) 1 - 0.5 z^-1 + 0.06 z^-2 the factor is that filter."""
    b = np.array([1.0, -0.5, 0.06])  # zeros at 0.2 and 0.3: minimum phase
    n = 64
    w = np.pi * np.arange(n + 1) / n
    _, resp = signal.freqz(b, [1.0], worN=w)
    h = cepstral_spectral_factor(np.abs(resp) ** 2)
    assert np.allclose(h[:3], b, atol=1e-10)
    assert np.max(np.abs(h[3:])) < 1e-10


def test_factor_is_minimum_phase_and_causal_energy_concentrated():
    """Minimum phase: for a smooth target, the factor's energy is front-loaded (Robinson's energy delay)."""
    n = 128
    w = np.pi * np.arange(n + 1) / n
    target = 1.0 / np.abs(1 - 0.9 * np.exp(-1j * w)) ** 2  # AR(1) spectrum, a = 0.9
    h = cepstral_spectral_factor(target)
    # the minimum-phase factor of this spectrum is the AR(1) impulse response 0.9^k
    k = np.arange(40)
    assert np.allclose(h[:40], 0.9**k, atol=1e-8)


def test_rejects_non_positive_targets():
    with pytest.raises(SpectralFactorError, match="index \\[2\\]"):
        cepstral_spectral_factor(np.array([1.0, 1.0, 0.0, 1.0]))
    with pytest.raises(SpectralFactorError):
        cepstral_spectral_factor(np.array([1.0, -1.0, 1.0]))


def _max_zero_modulus(h):
    return float(np.max(np.abs(np.roots(np.trim_zeros(h, "b")))))


def test_zeros_inside_for_smooth_targets_and_only_slightly_outside_for_rough_ones():
    """What the name does not claim: for a rough target the aliased cepstrum puts a few zeros just outside
    the unit circle (so the factor is not exactly minimum phase); for a smooth target all are inside."""
    n = 96
    w = np.pi * np.arange(n + 1) / n
    smooth = cepstral_spectral_factor(1.0 / np.abs(1 - 0.6 * np.exp(-1j * w)) ** 2 + 0.1)
    assert _max_zero_modulus(smooth) < 1.0
    n = 64
    rng = np.random.default_rng(0)
    rough = [cepstral_spectral_factor(rng.gamma(0.3, size=n + 1) + 1e-3) for _ in range(3)]
    worst = max(_max_zero_modulus(h) for h in rough)
    assert 1.0 < worst < 1.1  # outside, but by little
    for h, _target in zip(rough, [None] * 3):
        assert h.size == 2 * n

"""Cepstral spectral factor (dpgrid.models.spectral_factor; SpDP Algorithm 2 step 2)."""

import numpy as np
import pytest
from scipy import signal

from dpgrid.models.spectral_factor import SpectralFactorError, minimum_phase_factor, power_response_on_grid


def test_power_response_matches_target_on_grid_to_1e6():
    n = 288
    rng = np.random.default_rng(0)
    w = np.pi * np.arange(n + 1) / n
    target = np.exp(np.sin(3 * w)) + 0.5 * rng.random(n + 1) + 1e-3
    h = minimum_phase_factor(target)
    assert h.size == 2 * n
    got = power_response_on_grid(h, n)
    assert np.max(np.abs(got / target - 1)) < 1e-6
    # independent evaluation of the FIR's frequency response with scipy.signal.freqz
    _, resp = signal.freqz(h, [1.0], worN=w)
    assert np.max(np.abs(np.abs(resp) ** 2 / target - 1)) < 1e-6


def test_recovers_known_minimum_phase_filter():
    """For |H|^2 of the minimum-phase MA(2) 1 - 0.5 z^-1 + 0.06 z^-2 the factor is that filter."""
    b = np.array([1.0, -0.5, 0.06])            # zeros at 0.2 and 0.3: minimum phase
    n = 64
    w = np.pi * np.arange(n + 1) / n
    _, resp = signal.freqz(b, [1.0], worN=w)
    h = minimum_phase_factor(np.abs(resp) ** 2)
    assert np.allclose(h[:3], b, atol=1e-10)
    assert np.max(np.abs(h[3:])) < 1e-10


def test_factor_is_minimum_phase_and_causal_energy_concentrated():
    """Minimum phase: for a smooth target, the factor's energy is front-loaded (Robinson's energy delay)."""
    n = 128
    w = np.pi * np.arange(n + 1) / n
    target = 1.0 / np.abs(1 - 0.9 * np.exp(-1j * w)) ** 2      # AR(1) spectrum, a = 0.9
    h = minimum_phase_factor(target)
    # the minimum-phase factor of this spectrum is the AR(1) impulse response 0.9^k
    k = np.arange(40)
    assert np.allclose(h[:40], 0.9 ** k, atol=1e-8)


def test_rejects_non_positive_targets():
    with pytest.raises(SpectralFactorError, match="index \\[2\\]"):
        minimum_phase_factor(np.array([1.0, 1.0, 0.0, 1.0]))
    with pytest.raises(SpectralFactorError):
        minimum_phase_factor(np.array([1.0, -1.0, 1.0]))

"""Causal spectral factor of a sampled PSD (cepstral / homomorphic method).

Used by the streaming release of SpDP (Parker, Hale, Barooah, Algorithm 2, step 2): given a positive
array ``g[n]``, n = 0..N, on the grid omega_n = pi n / N of eq. (5), find a causal, stable filter H with

    |H(e^{j omega_n})|^2 = g[n],   n = 0, ..., N.

Construction (Oppenheim & Schafer, *Discrete-Time Signal Processing*, Sec. 13.5; the "minimum-phase
factor by the cepstrum" the paper's ref. [22] surveys): extend ``log g`` evenly to the 2N-point DFT
grid, take its inverse DFT (the real cepstrum ``c`` of |H|^2), fold it onto non-negative quefrencies
(``c_mp[0] = c[0]/2``, ``c_mp[k] = c[k]`` for 0 < k < N, ``c_mp[N] = c[N]/2``), and set
``H_k = exp(DFT(c_mp)_k)``. Since the even part of ``c_mp`` is half the cepstrum of |H|^2,
``|H_k|^2 = g`` on the grid *exactly* (to rounding). The impulse response ``h = IDFT(H)`` has 2N taps
and is used as a causal FIR filter; its DTFT interpolates between the grid points.

scipy.signal.minimum_phase(method="homomorphic") implements the same idea but takes a linear-phase
FIR filter as input and only approximates the magnitude; the exact on-grid property needed here is why
these few lines are hand-written.

What it is not: exactly minimum phase. The folding works on the 2N-point (aliased) cepstrum, so for a
rough target the FIR's zeros can lie slightly outside the unit circle (measured up to |z| = 1.0045 for
random targets at N = 288; inside for smooth ones, tests/models/test_spectral_factor.py). Algorithm 2
needs a causal, stable H with the right power response on the grid: a FIR is always stable, and the
release never inverts H, so the name says what is guaranteed: a causal spectral factor, exact on the grid.
"""

from __future__ import annotations

import numpy as np


class SpectralFactorError(ValueError):
    """A target that has no spectral factor (non-positive or non-finite values)."""


def cepstral_spectral_factor(power_response, *, name: str = "gamma") -> np.ndarray:
    """Causal FIR impulse response ``h`` (2N taps) with ``|DFT_{2N}(h)[n]|^2 = power_response[n]``.

    ``power_response`` holds ``N + 1`` strictly positive values on omega_n = pi n / N, n = 0..N.
    """
    g = np.asarray(power_response, dtype=float)
    if g.ndim != 1 or g.size < 3:
        raise SpectralFactorError(f"{name}: expected a 1-D array of N + 1 >= 3 values, got shape {g.shape}")
    bad = np.flatnonzero(~np.isfinite(g) | (g <= 0))
    if bad.size:
        raise SpectralFactorError(
            f"{name}: spectral factorisation needs strictly positive finite values; index {bad[:5].tolist()} "
            f"hold {g[bad[:5]].tolist()} (Proposition 3 requires gamma[n] > 0 for all n)"
        )
    n = g.size - 1
    log_full = np.log(np.concatenate([g, g[-2:0:-1]]))  # even extension to 2N points
    cep = np.fft.ifft(log_full).real  # real cepstrum of |H|^2
    fold = np.zeros(2 * n)
    fold[0] = cep[0] / 2.0
    fold[1:n] = cep[1:n]
    fold[n] = cep[n] / 2.0
    spectrum = np.exp(np.fft.fft(fold))
    return np.fft.ifft(spectrum).real


def power_response_on_grid(h, n_points: int) -> np.ndarray:
    """``|H(e^{j omega_n})|^2`` of the FIR ``h`` at omega_n = pi n / N, n = 0..N (via a 2N-point DFT).

    ``h`` may be longer than 2N; it is evaluated exactly at those frequencies.
    """
    h = np.asarray(h, dtype=float)
    omega = np.pi * np.arange(n_points + 1) / n_points
    if h.size <= 2 * n_points:
        resp = np.fft.fft(h, 2 * n_points)[: n_points + 1]
    else:
        k = np.arange(h.size)
        resp = np.exp(-1j * np.outer(omega, k)) @ h
    return np.abs(resp) ** 2

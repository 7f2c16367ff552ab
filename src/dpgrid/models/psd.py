"""Sampled power spectral density (PSD) estimation: the one estimator used everywhere in spdp.

Parker, Hale, Barooah, *Spectral Differential Privacy* (SpDP), Sec. II-B: the sensitive data is the
PSD of a wide-sense-stationary process sampled at the ``N + 1`` frequencies

    omega_n = 2 pi n / (2 N),  n = 0, ..., N            (eq. 5, in rad/sample)

    phi^N = [Phi_xx(omega_0), ..., Phi_xx(omega_N)]     (eq. 6)

with ``N = 288`` for 5-minute data (Table I).

Estimator (fixed here, used for calibration, the mechanism, the streaming release and every check):
Welch's averaged periodogram (``scipy.signal.welch``) with segments of ``2 N`` samples, a Hann window,
50 % overlap, the mean of the whole input removed once (the paper assumes a zero-mean process,
Sec. II-B; removing each segment's own mean instead would bias the DC bin low by a factor of about 3
and the next bin by about 15 %, a bias the released PSD would not share), and the **two-sided**
density scaling. The value at bin ``n`` is then an estimate of the two-sided PSD
``Phi_xx(omega_n) / f_s``; with ``f_s`` in samples per hour and the signal in kW the unit is
kW^2 / (cycle/hour) = kW^2 * hour, the paper's unit for B_SpDP (Table I). Using the two-sided density
makes the DC and Nyquist bins consistent with the interior ones (a one-sided estimator doubles only
the interior bins), which the spectral factorisation of Algorithm 2 needs.

Consequences used elsewhere:

- unit-variance white noise has PSD ``1 / f_s`` at every bin;
- a process ``y = G x`` (``G`` a stable LTI filter) has PSD ``|G(e^{j omega_n})|^2 phi_x[n]``;
- the variance of a process is approximately ``sum_{n=-N+1}^{N} phi[n] * f_s / (2N)`` (Parseval);
  :func:`variance_from_psd` evaluates it on the one-sided grid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class PSDError(ValueError):
    """Input that cannot be turned into a sampled PSD."""


@dataclass(frozen=True)
class PSDEstimator:
    """Welch estimator of the sampled PSD on the grid of eq. (5).

    ``n_points`` is the paper's ``N`` (the PSD has ``N + 1`` values, ``0`` to Nyquist);
    ``fs_per_hour`` is the sampling frequency in samples per hour (12 for 5-minute data).
    """

    n_points: int = 288
    fs_per_hour: float = 12.0
    #: ``False`` (default): two-sided density, as described above. ``True``: the one-sided density of
    #: MATLAB's ``pwelch`` / LTPDA's ``ao/psd`` for real data (interior bins doubled, DC and Nyquist
    #: unchanged), the convention the spdp paper's printed B_SpDP may be expressed in (workflow/papers/spdp/spdp.md).
    onesided: bool = False

    def __post_init__(self) -> None:
        if int(self.n_points) != self.n_points or self.n_points < 2:
            raise PSDError(f"PSD length N must be an integer >= 2, got {self.n_points!r}")
        if not np.isfinite(self.fs_per_hour) or self.fs_per_hour <= 0:
            raise PSDError(f"sampling frequency must be positive, got {self.fs_per_hour!r}")

    @property
    def segment_length(self) -> int:
        """Samples per Welch segment (``2 N``, the FFT length)."""
        return 2 * int(self.n_points)

    @property
    def frequencies_per_hour(self) -> np.ndarray:
        """The ``N + 1`` frequencies of eq. (5) in cycles per hour (0 to Nyquist)."""
        return np.arange(self.n_points + 1) * self.fs_per_hour / self.segment_length

    @property
    def omega(self) -> np.ndarray:
        """The ``N + 1`` frequencies of eq. (5) in rad/sample (0 to pi)."""
        return np.pi * np.arange(self.n_points + 1) / self.n_points

    def n_segments(self, n_samples: int) -> int:
        """Number of 50 %-overlapping segments Welch averages for ``n_samples`` samples."""
        seg = self.segment_length
        return 0 if n_samples < seg else 1 + (n_samples - seg) // (seg // 2)

    def estimate(self, x, *, name: str = "signal") -> np.ndarray:
        """The sampled two-sided PSD of ``x`` at the ``N + 1`` frequencies (kW^2 * hour for kW input)."""
        from scipy import signal

        x = np.asarray(x, dtype=float)
        if x.ndim != 1:
            raise PSDError(f"{name}: expected a 1-D time series, got shape {x.shape}")
        if not np.all(np.isfinite(x)):
            bad = np.flatnonzero(~np.isfinite(x))
            raise PSDError(f"{name}: non-finite value(s) at sample(s) {bad[:5].tolist()}")
        if x.size < self.segment_length:
            raise PSDError(
                f"{name}: {x.size} samples, but the PSD with N = {self.n_points} needs at least "
                f"2N = {self.segment_length} samples"
            )
        seg = self.segment_length
        _, p = signal.welch(
            x - x.mean(),
            fs=self.fs_per_hour,
            window="hann",
            nperseg=seg,
            noverlap=seg // 2,
            nfft=seg,
            detrend=False,
            return_onesided=False,
            scaling="density",
        )
        # fft order: bins 0..N-1 are 0..just below Nyquist, bin N is the Nyquist bin (-fs/2).
        return np.ascontiguousarray(p[: self.n_points + 1] * self.side_weights)

    @property
    def side_weights(self) -> np.ndarray:
        """Factor from the two-sided density to this estimator's convention (1, or 2 on interior bins)."""
        w = np.ones(self.n_points + 1)
        if self.onesided:
            w[1:-1] = 2.0
        return w

    def to_two_sided(self, psd) -> np.ndarray:
        """A PSD in this estimator's convention expressed as the two-sided density."""
        return np.asarray(psd, dtype=float) / self.side_weights

    def from_two_sided(self, psd) -> np.ndarray:
        """A two-sided density expressed in this estimator's convention."""
        return np.asarray(psd, dtype=float) * self.side_weights

    def equivalent_dof(self, n_samples: int) -> float:
        """Equivalent degrees of freedom of an interior-bin estimate (Welch 1967, Hann, 50 % overlap).

        Each segment contributes 2 degrees of freedom; overlapping Hann segments are correlated with
        coefficient rho = 1/6 (the normalised window overlap at half length), so
        nu = 2 K / (1 + 2 rho^2 (K - 1) / K) for K segments.
        """
        from scipy import signal

        k = self.n_segments(n_samples)
        if k == 0:
            raise PSDError(f"{n_samples} samples give no Welch segment of length {self.segment_length}")
        w = signal.get_window("hann", self.segment_length)
        half = self.segment_length // 2
        rho = float(np.sum(w[:half] * w[half:]) / np.sum(w * w))
        return 2.0 * k / (1.0 + 2.0 * rho * rho * (k - 1) / k)

    def confidence_band(self, psd, n_samples: int, level: float = 0.99) -> tuple[np.ndarray, np.ndarray]:
        """Two-sided ``level`` band around a true PSD ``psd`` for an estimate from ``n_samples`` samples.

        Uses the chi-square approximation estimate ~ psd * chi2_nu / nu (Welch's equivalent dof;
        DC and Nyquist bins of a real signal have half the degrees of freedom).
        """
        from scipy import stats

        psd = np.asarray(psd, dtype=float)
        nu = np.full(psd.shape, self.equivalent_dof(n_samples))
        nu[0] /= 2.0
        nu[-1] /= 2.0
        a = (1.0 - level) / 2.0
        return psd * stats.chi2.ppf(a, nu) / nu, psd * stats.chi2.ppf(1.0 - a, nu) / nu

    def white_noise_level(self, variance: float = 1.0) -> float:
        """PSD of white noise of the given variance at an interior bin (``variance / f_s``, doubled if one-sided)."""
        return variance / self.fs_per_hour * (2.0 if self.onesided else 1.0)

    def variance_from_psd(self, psd) -> float:
        """Variance implied by a PSD of this estimator's convention (Parseval on the 2N-point grid)."""
        psd = self.to_two_sided(psd)
        df = self.fs_per_hour / self.segment_length
        # sum over the 2N two-sided bins: DC and Nyquist once, interior bins twice
        return float(df * (psd[0] + psd[-1] + 2.0 * psd[1:-1].sum()))


def filter_power_response(b, a, omega) -> np.ndarray:
    """``|G(e^{j omega})|^2`` of the rational filter ``b / a`` at the given rad/sample frequencies."""
    from scipy import signal

    _, g = signal.freqz(b, a, worN=np.asarray(omega, dtype=float))
    return np.abs(g) ** 2


def sos_power_response(sos, omega) -> np.ndarray:
    """``|G(e^{j omega})|^2`` of a second-order-sections filter at the given frequencies."""
    from scipy import signal

    _, g = signal.sosfreqz(sos, worN=np.asarray(omega, dtype=float))
    return np.abs(g) ** 2

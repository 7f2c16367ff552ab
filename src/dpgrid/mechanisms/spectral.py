"""Spectral differential privacy: the SpDP mechanism (Algorithm 1) and its streaming release (Algorithm 2).

Parker, Hale, Barooah, *Spectral Differential Privacy: Application to Smart Meter Data*, Sec. III.

Algorithm 1 / eq. (9):   phi_tilde = P(z)[(phi + eta)^+],  eta ~ N(0, Sigma) (Proposition 2),
with P(z) = K_p omega_N z^{-1} / (1 + (omega_N - 1) z^{-1}) (eq. 10), a positive system run along the
frequency axis. "Applied non-causally" is implemented as a zero-phase forward-backward pass
(scipy.signal.filtfilt with even padding, which keeps a non-negative input non-negative); each pass
uses gain sqrt(K_p) so the applied filter has DC gain K_p (choice documented in workflow/papers/spdp/spdp.md).
Everything after the Gaussian noise is post-processing (Theorem 1).

Algorithm 2 (on-line steps restored from Proposition 3 and Fig. 5):

1. gamma[n] = phi_tilde[n] - |F(e^{j omega_n})|^2 phi[n]                           (eq. 11)
2. H(z) with |H(e^{j omega_n})|^2 = gamma[n] (spectral factor; :mod:`dpgrid.models.spectral_factor`)
3. for each k: x^F_k = (F x)_k, c_k = (H w)_k with w_k ~ N(0, 1) i.i.d., release x_tilde_k = x^F_k + c_k.

F(z) is a low-pass "reduction filter" (Butterworth, gain K_F, cutoff omega_F); its cutoff is lowered
until gamma[n] > 0 at every n (Sec. III-C), and every adaptation step is logged.

PSD units: the estimator of :mod:`dpgrid.models.psd` returns the two-sided density in kW^2 * hour
(or, with ``onesided=True``, the one-sided density: interior bins doubled), in which unit-variance white
noise has level 1/f_s (two-sided). A unit-variance w filtered by H therefore has two-sided PSD
|H|^2 / f_s, and the factor is computed for the target f_s * gamma (gamma converted to two-sided).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import numpy as np

from dpgrid.mechanisms.correlated_gaussian import CorrelatedGaussianMechanism
from dpgrid.models.psd import PSDEstimator, sos_power_response
from dpgrid.models.spectral_factor import (
    cepstral_spectral_factor,
    power_response_on_grid,
)

LOG = logging.getLogger(__name__)


class SpectralMechanismError(ValueError):
    """Invalid input to the SpDP mechanism or its streaming release."""


# --------------------------------------------------------------------------- Algorithm 1


def positive_filter_coefficients(omega_n: float, gain: float) -> tuple[np.ndarray, np.ndarray]:
    """(b, a) of P(z) = gain * omega_N z^{-1} / (1 + (omega_N - 1) z^{-1}), eq. (10).

    P is a positive system (non-negative impulse response gain * omega_N (1 - omega_N)^{k-1}) when
    0 < omega_N <= 1; its DC gain is ``gain``.
    """
    if not (0.0 < omega_n <= 1.0):
        raise SpectralMechanismError(f"positive filter parameter omega_N must lie in (0, 1], got {omega_n!r}")
    if not (gain > 0):
        raise SpectralMechanismError(f"positive filter gain K_p must be positive, got {gain!r}")
    return np.array([0.0, gain * omega_n]), np.array([1.0, omega_n - 1.0])


POSITIVE_FILTER_MODES = ("forward_backward", "causal")


def apply_positive_filter(y, omega_n: float, gain: float, mode: str = "forward_backward") -> np.ndarray:
    """P(z) applied along the frequency axis.

    ``forward_backward`` (default; "applied non-causally", zero phase): each pass uses gain sqrt(``gain``) so
    that the cascade's DC gain is ``gain``; even padding and the filters' steady-state initial conditions
    keep a non-negative input non-negative. ``causal``: one pass of eq. (10) with gain ``gain``, started in
    steady state at the first value (an alternative reading, for the construction sweep of
    workflow/papers/spdp/spdp.md).
    """
    from scipy import signal

    y = np.asarray(y, dtype=float)
    if np.any(y < 0):
        raise SpectralMechanismError("positive filter input must be non-negative (apply (.)^+ first)")
    if mode == "causal":
        b, a = positive_filter_coefficients(omega_n, gain)
        out, _ = signal.lfilter(b, a, y, zi=signal.lfilter_zi(b, a) * y[0])
        return np.maximum(out, 0.0)
    if mode != "forward_backward":
        raise SpectralMechanismError(f"unknown positive-filter mode {mode!r}; use one of {POSITIVE_FILTER_MODES}")
    b, a = positive_filter_coefficients(omega_n, math.sqrt(gain))
    out = signal.filtfilt(b, a, y, padtype="even")
    # filtfilt's result is a non-negative combination of non-negative values; remove rounding dust only
    return np.maximum(out, 0.0)


@dataclass
class SpDPRelease:
    """Intermediate and final arrays of Algorithm 1."""

    phi: np.ndarray  # sensitive PSD
    phi_noisy: np.ndarray  # phi + eta (the (eps, delta)-DP array, Proposition 2)
    phi_clipped: np.ndarray  # (phi + eta)^+
    phi_tilde: np.ndarray  # P(z)[(phi + eta)^+], eq. (9)


def spdp_mechanism(
    phi,
    mechanism: CorrelatedGaussianMechanism,
    *,
    omega_n: float,
    gain: float,
    rng: np.random.Generator,
    mode: str = "forward_backward",
) -> SpDPRelease:
    """Algorithm 1: phi_tilde = P(z)[(phi + eta)^+] with eta from the correlated Gaussian mechanism."""
    phi = np.asarray(phi, dtype=float)
    if phi.ndim != 1 or phi.size != mechanism.size:
        raise SpectralMechanismError(f"PSD has shape {phi.shape}; the mechanism expects ({mechanism.size},)")
    if np.any(phi < 0) or not np.all(np.isfinite(phi)):
        raise SpectralMechanismError("sensitive PSD must be finite and non-negative")
    noisy = mechanism.release(phi, rng)
    clipped = np.maximum(noisy, 0.0)
    return SpDPRelease(phi, noisy, clipped, apply_positive_filter(clipped, omega_n, gain, mode))


# --------------------------------------------------------------------------- Algorithm 2


def reduction_filter_sos(cutoff_per_hour: float, gain: float, order: int, fs_per_hour: float) -> np.ndarray:
    """Low-pass Butterworth reduction filter F(z) (second-order sections) with DC gain ``gain``."""
    from scipy import signal

    nyq = fs_per_hour / 2.0
    if not (0 < cutoff_per_hour < nyq):
        raise SpectralMechanismError(
            f"reduction filter cutoff must lie in (0, {nyq}) per hour, got {cutoff_per_hour!r}"
        )
    sos = signal.butter(order, cutoff_per_hour, btype="low", fs=fs_per_hour, output="sos")
    sos[0, :3] *= gain
    return sos


@dataclass
class ReductionFilterDesign:
    """Outcome of the reduction-filter adaptation (Sec. III-C)."""

    sos: np.ndarray
    cutoff_per_hour: float
    gain: float
    order: int
    gamma: np.ndarray
    steps: list[dict] = field(default_factory=list)


def design_reduction_filter(
    phi,
    phi_tilde,
    estimator: PSDEstimator,
    *,
    cutoff_per_hour: float,
    gain: float,
    order: int,
    shrink: float,
    min_cutoff_per_hour: float,
    gamma_floor: float,
    max_steps: int = 200,
    gamma_handling: str = "adapt",
) -> ReductionFilterDesign:
    """Choose F(z) so that gamma[n] = phi_tilde[n] - |F(e^{j omega_n})|^2 phi[n] > 0 for all n (eq. 11).

    Starting from (``cutoff_per_hour``, ``gain``), the cutoff is multiplied by ``shrink`` while some
    gamma[n] <= ``gamma_floor`` * phi_tilde[n]; once the cutoff reaches ``min_cutoff_per_hour`` the gain
    is multiplied by ``shrink`` instead (a low-pass cutoff cannot lower the DC gain). Each step is
    logged and returned in ``steps``.

    ``gamma_handling="clip"`` is the alternative reading for the construction sweep: F stays at the given
    cutoff and gain (Table I) and gamma is raised to ``gamma_floor`` * phi_tilde where it is lower, so
    the released PSD is max(phi_tilde, |F|^2 phi + floor) instead of phi_tilde at those bins.
    """
    phi = np.asarray(phi, dtype=float)
    phi_tilde = np.asarray(phi_tilde, dtype=float)
    if phi.shape != phi_tilde.shape or phi.size != estimator.n_points + 1:
        raise SpectralMechanismError(
            f"PSDs must both have N + 1 = {estimator.n_points + 1} values, got {phi.shape} and {phi_tilde.shape}"
        )
    if np.any(phi_tilde <= 0):
        bad = np.flatnonzero(phi_tilde <= 0)
        raise SpectralMechanismError(
            f"privatised PSD is not strictly positive at bins {bad[:5].tolist()}: "
            "no reduction filter can make gamma > 0 there"
        )
    if not (0 < shrink < 1):
        raise SpectralMechanismError(f"adaptation factor must lie in (0, 1), got {shrink!r}")
    cutoff, g = float(cutoff_per_hour), float(gain)
    steps: list[dict] = []
    if gamma_handling == "clip":
        sos = reduction_filter_sos(cutoff, g, order, estimator.fs_per_hour)
        gamma = phi_tilde - sos_power_response(sos, estimator.omega) * phi
        bad = gamma <= gamma_floor * phi_tilde
        steps.append(
            {
                "step": 0,
                "cutoff_per_hour": cutoff,
                "gain": g,
                "n_bins_not_positive": int(bad.sum()),
                "min_gamma_ratio": float(np.min(gamma / phi_tilde)),
                "clipped": True,
            }
        )
        LOG.info(
            "reduction filter fixed at cutoff %.4g /h, gain %.4g; gamma clipped at %d bin(s)", cutoff, g, int(bad.sum())
        )
        return ReductionFilterDesign(sos, cutoff, g, order, np.where(bad, gamma_floor * phi_tilde, gamma), steps)
    if gamma_handling != "adapt":
        raise SpectralMechanismError(f"gamma_handling must be 'adapt' or 'clip', got {gamma_handling!r}")
    for step in range(max_steps + 1):
        sos = reduction_filter_sos(cutoff, g, order, estimator.fs_per_hour)
        gamma = phi_tilde - sos_power_response(sos, estimator.omega) * phi
        bad = gamma <= gamma_floor * phi_tilde
        steps.append(
            {
                "step": step,
                "cutoff_per_hour": cutoff,
                "gain": g,
                "n_bins_not_positive": int(bad.sum()),
                "min_gamma_ratio": float(np.min(gamma / phi_tilde)),
            }
        )
        LOG.info(
            "reduction filter step %d: cutoff %.4g /h, gain %.4g, %d bin(s) with gamma <= %.1g phi_tilde",
            step,
            cutoff,
            g,
            int(bad.sum()),
            gamma_floor,
        )
        if not bad.any():
            return ReductionFilterDesign(sos, cutoff, g, order, gamma, steps)
        if cutoff * shrink >= min_cutoff_per_hour:
            cutoff *= shrink
        else:
            g *= shrink
    raise SpectralMechanismError(
        f"reduction filter adaptation did not make gamma positive in {max_steps} steps "
        f"(last cutoff {cutoff:.4g}/h, gain {g:.4g})"
    )


class StreamingSpectralRelease:
    """Algorithm 2 on-line: x_tilde_k = mean + (F (x - mean))_k + (H w)_k, one call per chunk (or sample).

    ``mean`` is the offline mean subtracted before F and restored afterwards (``mean_handling =
    "restore"``), or 0 (``"filter"``: F acts on the raw signal, so the released mean is scaled by F's DC
    gain). The filter states persist across :meth:`push` calls, so pushing a series sample by sample
    gives the same output as pushing it at once.
    """

    def __init__(self, sos: np.ndarray, h: np.ndarray, mean: float, rng: np.random.Generator) -> None:
        self.sos = np.asarray(sos, dtype=float)
        self.h = np.asarray(h, dtype=float)
        self.mean = float(mean)
        self.rng = rng
        self._zf = np.zeros((self.sos.shape[0], 2))
        self._zh = np.zeros(self.h.size - 1)

    def push(self, x) -> np.ndarray:
        """Release the samples ``x`` (1-D array, possibly of length 1)."""
        from scipy import signal

        x = np.atleast_1d(np.asarray(x, dtype=float))
        w = self.rng.standard_normal(x.size)
        xf, self._zf = signal.sosfilt(self.sos, x - self.mean, zi=self._zf)
        c, self._zh = signal.lfilter(self.h, [1.0], w, zi=self._zh)
        return self.mean + xf + c


@dataclass
class StreamingDesign:
    """Everything Algorithm 2 needs offline: F, gamma, the spectral factor H and the released mean."""

    reduction: ReductionFilterDesign
    h: np.ndarray
    mean: float
    fs_per_hour: float

    def new_stream(self, rng: np.random.Generator) -> StreamingSpectralRelease:
        return StreamingSpectralRelease(self.reduction.sos, self.h, self.mean, rng)

    def expected_psd(self, phi_true, estimator: PSDEstimator) -> np.ndarray:
        """|F|^2 phi_true + |H|^2 / f_s on the grid: the released PSD when x has PSD ``phi_true``."""
        f2 = sos_power_response(self.reduction.sos, estimator.omega)
        noise = estimator.from_two_sided(power_response_on_grid(self.h, estimator.n_points) / self.fs_per_hour)
        return f2 * np.asarray(phi_true, float) + noise


def design_streaming_release(
    phi, phi_tilde, estimator: PSDEstimator, *, mean: float, **reduction_kw
) -> StreamingDesign:
    """Offline steps 1-2 of Algorithm 2: adapt F until gamma > 0, then factor f_s * gamma into H.

    gamma is in the estimator's convention; the factor is computed for the two-sided density f_s * gamma_2
    (a one-sided estimator's gamma is halved on the interior bins first).
    """
    red = design_reduction_filter(phi, phi_tilde, estimator, **reduction_kw)
    h = cepstral_spectral_factor(estimator.fs_per_hour * estimator.to_two_sided(red.gamma))
    return StreamingDesign(red, h, float(mean), estimator.fs_per_hour)


# --------------------------------------------------------------------------- utility metrics (Tables II, III)


def release_metrics(x, x_released) -> dict:
    """Mean, std, added-noise std, correlation coefficient and SNR of a release (Tables II and III).

    ``snr_db_paper`` = 10 log10(sum x_released^2 / sum (x_released - x)^2): the definition the paper's
    Table III numbers are consistent with (see workflow/papers/spdp/spdp.md); ``snr_db_sensitive`` uses the sensitive
    signal in the numerator (the textbook definition).
    """
    x = np.asarray(x, dtype=float)
    xr = np.asarray(x_released, dtype=float)
    if x.shape != xr.shape:
        raise SpectralMechanismError(f"sensitive and released series differ in shape: {x.shape} vs {xr.shape}")
    noise = xr - x
    p_noise = float(np.sum(noise**2))
    return {
        "mean_kw": float(np.mean(xr)),
        "std_kw": float(np.std(xr, ddof=1)),
        "noise_std_kw": float(np.std(noise, ddof=1)),
        "correlation": float(np.corrcoef(x, xr)[0, 1]),
        "snr_db_paper": 10.0 * math.log10(float(np.sum(xr**2)) / p_noise),
        "snr_db_sensitive": 10.0 * math.log10(float(np.sum(x**2)) / p_noise),
    }

"""Blowfish-private real-time pricing (Algorithm 1) and the naive Laplace baseline.

GhoddousiBoroujeni, Fay, Dimitrakakis, Kamgarpour, *Privacy of Real-Time Pricing in Smart Grid*.

- Optimal rate, eq. (1): r^t = alpha Z^t + beta, Z^t = sum_h X_h^t.
- Algorithm 1, lines 2-10: for every model theta, the set kappa^{t,theta} of households whose
  occupancy is discriminated by some pair of Blowfish neighbours with non-zero prior (for
  independent households: both states of h have non-zero prior, since every other household has
  at least one possible state), lambda^{t,theta} = alpha max_{h in kappa} u_h, lambda^t = max_theta.
  An empty kappa gives lambda^t = 0 (no discriminative pair left to protect: the rate is exact).
- Lines 11-14: r_hat^t = r^t + Lap(lambda^t / eps).
- Naive baseline (Sec. IV-B): kappa = all households and the model bound u_max, Lap(alpha u_max / eps).
- Utility: the RMSRE as printed in Sec. IV-B, (1/T) sqrt(sum_t ((r_hat - r)/r)^2), and the plain
  root-mean-square relative error sqrt((1/T) sum_t (...)^2) = sqrt(T) RMSRE_printed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dpgrid.mechanisms.laplace import standard_laplace

__all__ = [
    "optimal_rates",
    "blowfish_protected_households",
    "blowfish_noise_parameter",
    "naive_noise_parameter",
    "laplace_noise",
    "release_rates",
    "rmsre_printed",
    "rms_relative_error",
    "expected_rmsre_printed",
]


def optimal_rates(consumption: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """Eq. (1): r^t = alpha sum_h X_h^t + beta for consumption of shape (T, N)."""
    if alpha <= 0 or beta < 0:
        raise ValueError(f"need alpha > 0 and beta >= 0, got alpha={alpha!r}, beta={beta!r}")
    return alpha * np.asarray(consumption, dtype=float).sum(axis=1) + beta


def blowfish_protected_households(support: np.ndarray) -> np.ndarray:
    """(T, N) bool kappa^t (Algorithm 1, lines 5-7) from the prior support (T, N, 2).

    mu^t is the product of the household supports; a pair in mu^t x mu^t at L1 distance 1 differs in
    exactly one household h, which needs both of h's states in its support. Hence h is in kappa^t
    iff support[t, h, 0] and support[t, h, 1] (provided every household has some possible state).
    """
    support = np.asarray(support, dtype=bool)
    if support.ndim != 3 or support.shape[2] != 2:
        raise ValueError(f"support must have shape (T, N, 2), got {support.shape}")
    if not support.any(axis=2).all():
        raise ValueError("a household has no occupancy state with non-zero prior: the model is inconsistent")
    return support.all(axis=2)


def blowfish_noise_parameter(
    supports: np.ndarray | Sequence[np.ndarray], sensitivity: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """lambda^t of Algorithm 1 (lines 2-10) and kappa^t of the first model.

    ``supports``: the prior support (T, N, 2) of one model, or a sequence of them (the model class
    Theta); ``sensitivity``: (N,) consumption bounds u_h valid in both occupancy states.
    Returns (lambda (T,), kappa (T, N) of ``supports[0]``); lambda^t = max over models.
    """
    if isinstance(supports, np.ndarray) and supports.ndim == 3:
        supports = [supports]
    sens = np.asarray(sensitivity, dtype=float)
    if (sens < 0).any():
        raise ValueError("consumption bounds u_h must be >= 0")
    lam, first_kappa = None, None
    for sup in supports:
        kappa = blowfish_protected_households(sup)
        lam_theta = alpha * np.where(kappa, sens[None, :], 0.0).max(axis=1)
        lam = lam_theta if lam is None else np.maximum(lam, lam_theta)
        if first_kappa is None:
            first_kappa = kappa
    if lam is None:
        raise ValueError("the model class Theta is empty")
    return lam, first_kappa


def naive_noise_parameter(n_steps: int, alpha: float, u_max: float) -> np.ndarray:
    """Naive Laplace mechanism of Sec. IV-B: lambda^t = alpha u_max at every step."""
    return np.full(n_steps, float(alpha) * float(u_max))


def laplace_noise(noise_parameter: np.ndarray, eps: float, standard_draws: np.ndarray) -> np.ndarray:
    """N^t = (lambda^t / eps) W^t with W^t ~ Lap(0, 1): Lap(lambda^t / eps) (Algorithm 1, line 12)."""
    if eps <= 0:
        raise ValueError(f"epsilon must be > 0, got {eps!r}")
    return np.asarray(noise_parameter, dtype=float) / eps * np.asarray(standard_draws, dtype=float)


def release_rates(
    rates: np.ndarray,
    noise_parameter: np.ndarray,
    eps: float,
    rng: np.random.Generator,
    standard_draws: np.ndarray | None = None,
) -> np.ndarray:
    """Algorithm 1, lines 11-14: r_hat = r + Lap(lambda / eps), elementwise.

    ``standard_draws`` (Lap(0, 1), same shape as ``rates``) may be given to couple two mechanisms
    on common random numbers; otherwise they are drawn from ``rng``.
    """
    rates = np.asarray(rates, dtype=float)
    if standard_draws is None:
        standard_draws = standard_laplace(rng, rates.shape)
    return rates + laplace_noise(np.broadcast_to(noise_parameter, rates.shape), eps, standard_draws)


def _relative_errors(released: np.ndarray, rates: np.ndarray) -> np.ndarray:
    rates = np.asarray(rates, dtype=float)
    if (rates == 0).any():
        raise ValueError("relative error undefined: an optimal rate is 0")
    return (np.asarray(released, dtype=float) - rates) / rates


def rmsre_printed(released: np.ndarray, rates: np.ndarray) -> float:
    """RMSRE as printed in Sec. IV-B: (1/T) sqrt(sum_t ((r_hat^t - r^t) / r^t)^2)."""
    e = _relative_errors(released, rates)
    return float(np.sqrt(np.sum(e**2)) / e.size)


def rms_relative_error(released: np.ndarray, rates: np.ndarray) -> float:
    """Plain root-mean-square relative error sqrt((1/T) sum_t ((r_hat^t - r^t) / r^t)^2)."""
    e = _relative_errors(released, rates)
    return float(np.sqrt(np.mean(e**2)))


def expected_rmsre_printed(noise_parameter: np.ndarray, eps: float, rates: np.ndarray) -> float:
    """(1/T) sqrt(E sum_t (N^t / r^t)^2) with E (N^t)^2 = 2 (lambda^t / eps)^2 (Laplace variance).

    The noise-free comparison of two mechanisms on the same optimal rates (root of the expected
    sum of squares, i.e. the printed RMSRE with the noise averaged out inside the root).
    """
    rates = np.asarray(rates, dtype=float)
    b = np.asarray(noise_parameter, dtype=float) / eps
    return float(np.sqrt(np.sum(2 * b**2 / rates**2)) / rates.size)

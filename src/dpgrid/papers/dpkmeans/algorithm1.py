"""Algorithm 1 of Ravi et al. (IEEE TSG 2022): the released clustering, noisy centroids (colored, eq. (15),
or white noise) calibrated by gamma_c (eq. (13) or the exact PDP tail) and modulo-K labels (Theorem 4)."""

from __future__ import annotations

from dpgrid.mechanisms.colored_centroid_noise import gamma_c, white_noise_design
from dpgrid.mechanisms.modulo_label import modulo_label_mechanism
from dpgrid.privacy.label_modulo_delta import rho_for_delta


def noisy_centroids(sol, design, eps_c, delta_c, calibration, rng, size=None):
    """Algorithm 1 lines 3-5: c~ = c + eta, eta from ``design`` at gamma_c of (eps_c, delta_c); shape (K, d), or
    (size, K, d) for ``size`` independent releases. Returns (noisy centroids, gamma_c)."""
    gam = gamma_c(eps_c, delta_c, calibration)
    K = sol.k
    if size is None:
        return sol.centroids + design.sample(rng, gam).reshape(K, -1), gam
    return sol.centroids[None] + design.sample(rng, gam, size).reshape(size, K, -1), gam


def label_rho(loo, K, eps_l, delta_l):
    """Theorem 4: the label noise level rho for (eps_l, delta_l) at the label sensitivity of ``loo`` (0 if none)."""
    D1 = loo.label_sensitivity
    return rho_for_delta(eps_l, delta_l, K, D1) if D1 > 0 else 0.0


def noisy_labels(labels, loo, K, rho, rng):
    """Algorithm 1 line 6: the modulo-K label mechanism (eq. 19) at noise level ``rho`` on the label-sensitive
    points of ``loo``."""
    return modulo_label_mechanism(labels, loo.label_sensitive, K, rho, rng)


def algorithm1_release(X, sol, loo, design, eps_c, delta_c, eps_l, delta_l, calibration, rng, white=False):
    """Algorithm 1: noisy centroids (colored or white) and modulo-K labels.

    Draws the centroid noise, then the label noise, from ``rng``. Returns (noisy centroids, noisy labels,
    rho, the centroid design used, gamma_c)."""
    dsg = white_noise_design(loo.shifts) if white else design
    Cn, gam = noisy_centroids(sol, dsg, eps_c, delta_c, calibration, rng)
    rho = label_rho(loo, sol.k, eps_l, delta_l)
    ln = noisy_labels(sol.labels, loo, sol.k, rho, rng)
    return Cn, ln, rho, dsg, gam

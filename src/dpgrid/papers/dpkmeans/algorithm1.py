"""Algorithm 1 of Ravi et al. (IEEE TSG 2022): the released clustering, noisy centroids (colored, eq. (15),
or white noise) calibrated by gamma_c (eq. (13) or the exact PDP tail) and modulo-K labels (Theorem 4)."""

from __future__ import annotations

from dpgrid.mechanisms.colored_centroid_noise import gamma_c, white_noise_design
from dpgrid.mechanisms.modulo_label import modulo_label_mechanism
from dpgrid.privacy.label_modulo_delta import rho_for_delta


def algorithm1_release(X, sol, loo, design, eps_c, delta_c, eps_l, delta_l, calibration, rng, white=False):
    """Algorithm 1: noisy centroids (colored or white) and modulo-K labels.

    Draws the centroid noise, then the label noise, from ``rng``. Returns (noisy centroids, noisy labels,
    rho, the centroid design used, gamma_c)."""
    K = sol.k
    dsg = white_noise_design(loo.shifts) if white else design
    gam = gamma_c(eps_c, delta_c, calibration)
    Cn = sol.centroids + dsg.sample(rng, gam).reshape(K, -1)
    L = loo.label_sensitive
    D1 = loo.label_sensitivity
    rho = rho_for_delta(eps_l, delta_l, K, D1) if D1 > 0 else 0.0
    ln = modulo_label_mechanism(sol.labels, L, K, rho, rng)
    return Cn, ln, rho, dsg, gam

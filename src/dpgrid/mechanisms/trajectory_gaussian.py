"""Trajectory-level Gaussian mechanism (TrDP; Parker, Hale, Barooah, Proposition 1; Le Ny & Pappas 2014).

M(x) = x + w with w_k ~ N(0, sigma^2) i.i.d.; (eps, delta)-DP for trajectories adjacent when
||x - y||_2 <= B. sigma from a named calibration of :data:`dpgrid.privacy.gaussian.CALIBRATIONS`:
Proposition 1 eq. (2) (``proposition1``, the exact PDP calibration) or the classical one (``classical``).
The adjacency parameter B_TrDP(K) depends on the trajectory length K (eq. 13), computed by
:func:`dpgrid.mechanisms.spectral_adjacency.b_trdp`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpgrid.privacy.gaussian import calibration as gaussian_calibration


def trajectory_sigma(b: float, eps: float, delta: float, calibration: str) -> float:
    """Sigma of the i.i.d. Gaussian mechanism for adjacency ``b`` by the named calibration of
    :data:`dpgrid.privacy.gaussian.CALIBRATIONS` (``proposition1``: eq. (2); ``classical``: Dwork & Roth
    Thm A.1, eps < 1), within the eps its source states."""
    return gaussian_calibration(calibration).sigma(eps, delta, b)


@dataclass
class TrajectoryGaussianMechanism:
    """i.i.d. Gaussian noise calibrated to adjacency B (Proposition 1); ``calibration`` names an entry of
    :data:`dpgrid.privacy.gaussian.CALIBRATIONS`."""

    b: float
    eps: float
    delta: float
    calibration: str = "proposition1"
    sigma_scale: float = 1.0
    sigma: float = field(init=False)

    def __post_init__(self) -> None:
        """``sigma_scale`` is 1 for the private mechanism; audits use < 1 to show the bound is needed."""
        if not (self.sigma_scale > 0):
            raise ValueError(f"sigma_scale must be positive, got {self.sigma_scale!r}")
        self.sigma = self.sigma_scale * trajectory_sigma(self.b, self.eps, self.delta, self.calibration)

    def sample_noise(self, rng: np.random.Generator, shape) -> np.ndarray:
        return self.sigma * rng.standard_normal(shape)

    def release(self, x, rng: np.random.Generator) -> np.ndarray:
        """x + w, w i.i.d. N(0, sigma^2), for a trajectory (any length)."""
        x = np.asarray(x, dtype=float)
        return x + self.sample_noise(rng, x.shape)

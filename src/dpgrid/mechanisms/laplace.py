"""The Laplace mechanism (Dwork, McSherry, Nissim, Smith, TCC 2006, Sec. 3; Dwork and Roth 2014, Def. 3.3 and
Thm. 3.6): a query with L1 sensitivity ``Delta_1`` released as ``q(D) + Lap(Delta_1 / eps)`` per coordinate is
eps-DP (pure).

The DP k-means baselines of the dpkmeans paper (:mod:`dpgrid.mechanisms.dp_kmeans_baselines`: noisy cluster counts
and sums) release through :func:`laplace_release`; Blowfish pricing (:mod:`dpgrid.mechanisms.blowfish_pricing`, a
scale per time step) scales the unit draws of :func:`standard_laplace`. A new paper's Laplace release calls them
instead of drawing its own noise.
"""

from __future__ import annotations

import math

import numpy as np


def laplace_scale(l1_sensitivity: float, epsilon: float) -> float:
    """The noise scale b = Delta_1 / eps of the eps-DP Laplace mechanism (Dwork and Roth 2014, Thm. 3.6)."""
    if not (math.isfinite(l1_sensitivity) and l1_sensitivity >= 0.0):
        raise ValueError(f"laplace: the L1 sensitivity must be finite and >= 0, got {l1_sensitivity!r}")
    if not (math.isfinite(epsilon) and epsilon > 0.0):
        raise ValueError(f"laplace: epsilon must be finite and > 0, got {epsilon!r}")
    return l1_sensitivity / epsilon


def laplace_release(
    value: np.ndarray | float, l1_sensitivity: float, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """``value + Lap(Delta_1 / eps)`` elementwise: the eps-DP release of a query whose L1 sensitivity over all of
    its coordinates together is ``l1_sensitivity``. One draw per coordinate, ``rng.laplace(0.0, b, shape)``."""
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, laplace_scale(float(l1_sensitivity), float(epsilon)), value.shape)


def standard_laplace(rng: np.random.Generator, shape: int | tuple[int, ...]) -> np.ndarray:
    """Unit-scale draws W ~ Lap(0, 1), ``rng.laplace(0.0, 1.0, shape)``, for a mechanism that scales them per
    coordinate (b_t W_t is Lap(b_t)) or couples two releases on the same draws (common random numbers)."""
    return rng.laplace(0.0, 1.0, shape)

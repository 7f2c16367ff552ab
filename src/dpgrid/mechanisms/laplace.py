"""The Laplace mechanism (Dwork, McSherry, Nissim, Smith, TCC 2006, Sec. 3; Dwork and Roth 2014, Def. 3.3 and
Thm. 3.6): a query with L1 sensitivity ``Delta_1`` released as ``q(D) + Lap(Delta_1 / eps)`` per coordinate is
eps-DP (pure).

The DP k-means baselines of the dpkmeans paper (:mod:`dpgrid.mechanisms.dp_kmeans_baselines`: noisy cluster counts
and sums) release through it; a new paper's Laplace release calls it instead of drawing its own noise.
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

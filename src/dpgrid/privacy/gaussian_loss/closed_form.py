"""Corollary 1 of classdp (eq. 33): the PDP delta of a pair with equal covariances in closed form.

Kept out of the package's ``__init__`` (import it from here): it is the Gaussian tail of
:mod:`dpgrid.privacy.gaussian`, and no pipeline job needs it, so the jobs that use the exact evaluator do not hash
that module (an edit of a spdp or dpkmeans calibration does not rerun classdp's jobs).
"""

from __future__ import annotations

import numpy as np

from dpgrid.privacy.gaussian import pdp_delta
from dpgrid.privacy.gaussian_loss.loss import GaussianPrivacyLoss


def delta_closed_form(loss: GaussianPrivacyLoss, eps, *, rtol: float = 1e-10):
    """Corollary 1, eq. (33): ``Q((eps - |mu|^2/2) / |mu|)`` when Sigma_X = Sigma_X' (Gamma = I).

    L is then N(m^2/2, m^2) with the whitened sensitivity m = |nu|: the tail is
    :func:`dpgrid.privacy.gaussian.pdp_delta` (``Q(eps/m - m/2)``, the same expression).
    """
    if not np.allclose(loss.gamma, 1.0, rtol=0.0, atol=rtol):
        raise ValueError(f"closed form needs equal covariances (Gamma = I); gamma = {loss.gamma}")
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    m = float(np.linalg.norm(loss.nu))
    if m == 0.0:  # L = 0: Pr(0 > eps)
        return (eps_arr < 0).astype(float)
    return pdp_delta(eps_arr, m)

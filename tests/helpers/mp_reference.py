"""Higher-precision references of the Gaussian privacy loss (mpmath), shared by tests/privacy/: independent of
dpgrid.privacy.gaussian_loss (no code of it is called)."""

import mpmath as mp
import numpy as np


def mp_matrix(a) -> mp.matrix:
    """An mpmath matrix of the float entries of ``a`` (exact inputs)."""
    return mp.matrix([[mp.mpf(float(v)) for v in row] for row in np.atleast_2d(a)])


def mp_proposition1(mu_x, cov_x, mu_xp, cov_xp) -> tuple[list, list]:
    """(gamma, nu) of Proposition 1 in mpmath at the caller's precision (``mp.workdps``), from the float entries
    (exact inputs): Cholesky factors, the eigen-decomposition of W^T W (W = Rp^{-1} R), nu = U^T R^{-1} d."""
    k = len(mu_x)
    r = mp.cholesky(mp_matrix(cov_x))
    rp = mp.cholesky(mp_matrix(cov_xp))
    w = mp.inverse(rp) * r
    gam, u = mp.eigsy(w.T * w)
    d = mp.matrix([mp.mpf(float(v)) - mp.mpf(float(z)) for v, z in zip(mu_xp, mu_x)])
    nu = u.T * (mp.inverse(r) * d)
    return [gam[i] for i in range(k)], [nu[i] for i in range(k)]

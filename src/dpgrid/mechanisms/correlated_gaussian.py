"""Correlated Gaussian mechanism (Parker, Hale, Barooah, Proposition 2, eq. 7).

M(d) = d + w with w ~ N(0, Sigma) is (eps, delta)-DP for the adjacency ||d - d'||_2 <= B when

    lambda_min(Sigma) >= lambda_bar = B^2 / (-A + sqrt(A^2 + 2 eps))^2,   A = Q^{-1}(delta).

The paper uses a "degree of noise correlation" beta = 0.5 (Table I) but does not give the
construction ("the procedure described in Section II-D" is not in the text). Construction used here
(documented in workflow/papers/spdp/spdp.md, config key ``spdp.mechanism.correlation_structure``):

    Sigma = lambda_bar / lambda_min(C_beta) * C_beta

where C_beta is a correlation matrix with unit diagonal:

- ``ar1``: C_ij = beta^|i - j| (Kac-Murdock-Szego matrix: the noise is an AR(1) sequence along the
  frequency axis, so neighbouring PSD bins receive similar noise);
- ``equicorrelated``: C = (1 - beta) I + beta 1 1^T (lambda_min = 1 - beta in closed form).

Scaling by lambda_bar / lambda_min(C) makes lambda_min(Sigma) = lambda_bar exactly: the least noise
Proposition 2 allows for that correlation shape. beta = 0 gives i.i.d. noise with variance lambda_bar.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpgrid.privacy.gaussian import CalibrationError, pdp_sensitivity

CORRELATION_STRUCTURES = ("ar1", "equicorrelated")


class CorrelatedGaussianError(ValueError):
    """Invalid parameters of the correlated Gaussian mechanism."""


def proposition2_lambda_bar(b: float, eps: float, delta: float) -> float:
    """Lower bound ``lambda_bar = B^2 / (-A + sqrt(A^2 + 2 eps))^2`` on lambda_min(Sigma), eq. (7).

    The denominator is the largest whitened sensitivity with Pr(L > eps) <= delta
    (:func:`dpgrid.privacy.gaussian.pdp_sensitivity`), so ``sqrt(lambda_bar)`` is Proposition 1's sigma.
    """
    if not (np.isfinite(b) and b > 0):
        raise CalibrationError(f"adjacency parameter B must be positive and finite, got {b!r}")
    return b * b / pdp_sensitivity(eps, delta) ** 2


def correlation_matrix(size: int, beta: float, structure: str) -> np.ndarray:
    """Unit-diagonal correlation matrix C_beta of the given ``structure`` (``ar1`` or ``equicorrelated``)."""
    from scipy import linalg

    if int(size) != size or size < 1:
        raise CorrelatedGaussianError(f"dimension must be a positive integer, got {size!r}")
    if not (0.0 <= beta < 1.0):
        raise CorrelatedGaussianError(f"degree of correlation beta must lie in [0, 1), got {beta!r}")
    if structure == "ar1":
        return linalg.toeplitz(beta ** np.arange(size, dtype=float))
    if structure == "equicorrelated":
        return (1.0 - beta) * np.eye(size) + beta * np.ones((size, size))
    raise CorrelatedGaussianError(f"unknown correlation structure {structure!r}; use one of {CORRELATION_STRUCTURES}")


def min_eigenpair(cov: np.ndarray) -> tuple[float, np.ndarray]:
    """Smallest eigenvalue of a symmetric matrix and a unit eigenvector (scipy.linalg.eigh)."""
    from scipy import linalg

    w, v = linalg.eigh(cov, subset_by_index=[0, 0])
    return float(w[0]), v[:, 0]


@dataclass
class CorrelatedGaussianMechanism:
    """The correlated Gaussian mechanism of Proposition 2 for vectors of length ``size``."""

    size: int
    b: float
    eps: float
    delta: float
    beta: float
    structure: str = "ar1"
    lambda_scale: float = 1.0
    cov: np.ndarray = field(init=False, repr=False)
    lambda_bar: float = field(init=False)
    lambda_min: float = field(init=False)
    _chol: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        """Build Sigma with lambda_min(Sigma) = lambda_scale * lambda_bar.

        ``lambda_scale`` is 1 for the private mechanism; the audit tests use values < 1 to show that
        the calibration is tight (a mechanism below the bound violates (eps, delta)).
        """
        from scipy import linalg

        if not (self.lambda_scale > 0):
            raise CorrelatedGaussianError(f"lambda_scale must be positive, got {self.lambda_scale!r}")
        self.lambda_bar = proposition2_lambda_bar(self.b, self.eps, self.delta)
        c = correlation_matrix(self.size, self.beta, self.structure)
        lam_c, _ = min_eigenpair(c)
        target = self.lambda_scale * self.lambda_bar
        cov = c * (target / lam_c)
        lam, _ = min_eigenpair(cov)
        if lam < target:  # rounding: push lambda_min up to the target, never below it
            cov = cov * (target / lam)
            lam, _ = min_eigenpair(cov)
        self.cov = cov
        self.lambda_min = lam
        self._chol = linalg.cholesky(cov, lower=True)

    @property
    def satisfies_proposition2(self) -> bool:
        """lambda_min(Sigma) >= lambda_bar (eq. 7)."""
        return self.lambda_min >= self.lambda_bar * (1.0 - 1e-12)

    @property
    def marginal_std(self) -> float:
        """Standard deviation of each noise entry (sqrt of the diagonal of Sigma)."""
        return float(np.sqrt(self.cov[0, 0]))

    def sample_noise(self, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
        """Draw eta ~ N(0, Sigma): shape (size,) or (n, size)."""
        z = rng.standard_normal(self.size if n is None else (n, self.size))
        return z @ self._chol.T

    def release(self, x, rng: np.random.Generator) -> np.ndarray:
        """M(x) = x + eta (Proposition 2)."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.size,):
            raise CorrelatedGaussianError(f"input has shape {x.shape}, the mechanism expects ({self.size},)")
        return x + self.sample_noise(rng)

    def worst_case_shift(self) -> np.ndarray:
        """An adjacent-pair difference v with ||v|| = B that maximises ||Sigma^{-1/2} v|| (lambda_min direction)."""
        _, v = min_eigenpair(self.cov)
        return self.b * v

    def whitened_shift_norm(self, v) -> float:
        """Delta = ||Sigma^{-1/2} v||_2 = sqrt(v^T Sigma^{-1} v)."""
        from scipy import linalg

        y = linalg.solve_triangular(self._chol, np.asarray(v, dtype=float), lower=True)
        return float(np.linalg.norm(y))

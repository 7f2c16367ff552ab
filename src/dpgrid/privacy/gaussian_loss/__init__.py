"""The privacy-loss random variable of Gaussian queries and its tail delta(eps).

Ramakrishna, Scaglione, Wu, Ravi, Peisert, *Differential Privacy for Class-based Data: A Practical
Gaussian Mechanism* (classdp), Sec. IV.

For a label pair (X, X') with released answers ``q ~ N(mu_X, Sigma_X)`` under X and
``N(mu_X', Sigma_X')`` under X', the privacy loss (eq. 4) is ``L = ln f(q|X) / f(q|X')``.
Proposition 1 (eqs. 28-31) writes it, under X, as a quadratic form of a standard normal vector:

    L = -1/2 ln|Gamma| + 1/2 xi^T (Gamma - I) xi - nu^T Gamma xi + 1/2 nu^T Gamma nu,   xi ~ N(0, I),

with ``U Gamma U^T = Sigma_X^{1/2} Sigma_X'^{-1} Sigma_X^{1/2}`` (eq. 31) and
``nu = U^T Sigma_X^{-1/2} (mu_X' - mu_X)`` (eq. 30). Since Gamma is diagonal, L is a sum of
independent terms ``a_j xi_j^2 + b_j xi_j`` plus a constant (a generalised chi-square variable)
with ``a_j = (gamma_j - 1)/2``, ``b_j = -gamma_j nu_j``.

The PDP delta of the pair at eps is ``Pr(L > eps)`` under X (Definition 1 after eq. 7); the
mechanism's delta is its supremum over the directed edges of the neighbourhood graph.

Evaluators
----------
* :func:`delta_exact` - numerical inversion of the characteristic function (Gil-Pelaez /
  Imhof 1961): ``Pr(Z > x) = 1/2 + 1/pi int_0^inf Im[e^{-iux} phi(u)] / u du``. Primary method: a
  vectorised composite Gauss-Legendre rule on ``[0, T]`` (all eps at once) and, where the
  characteristic function decays slowly (few quadratic terms), the oscillatory tail ``[T, inf)``
  with QUADPACK's Fourier-integral routine (QAWF, ``scipy.integrate.quad(weight='cos'/'sin')``);
  T from an explicit bound on the tail of ``|phi(u)|/u``. Fallback (when the primary plan exceeds
  the work cap or its error estimate exceeds tol: nearly equal covariances, nearly degenerate L,
  quadratic terms of very different sizes): Chernoff screening of far eps, Corollary 1 when L is
  Gaussian, panels up to a T from the complete tail bound :func:`_cf_tail_bound`, QUADPACK QAWO
  blocks and QAWF beyond. Both report an error estimate per eps, to which the effects of the rounding in
  :func:`privacy_loss` and of zeroing tiny quadratic terms are added (:func:`_perturbation_error`); above tol
  :class:`DeltaAccuracyError` is raised (or, non-strict, the estimate is returned: :func:`delta_exact_with_error`).
  Every choice (standardisation, panels, method) is made per eps: the value at an eps does not depend on the
  other eps of the call.
* :func:`delta_monte_carlo` - sampling xi.
* :func:`~dpgrid.privacy.gaussian_loss.closed_form.delta_closed_form` - Corollary 1 (eq. 33), equal covariances.
* :func:`chernoff_bound` - Lemma 1 (eq. 34), minimised over s; :func:`chernoff_bound_at` for a
  given s; :func:`gaussian_sensitivity` and :func:`corollary3_trend` (eqs. 37-38).
* :func:`delta_sup_over_edges`, :func:`hockey_stick_sup_over_edges` - a release's delta as the sup over edges.

Modules (each imports only those above it; this package exports their public names)
-------------------------------------------------------------------------------------
* :mod:`~dpgrid.privacy.gaussian_loss.loss` - :class:`GaussianPrivacyLoss`, :func:`privacy_loss`,
  :func:`log_likelihood_ratio`, Monte Carlo, the Chernoff bounds, eqs. (37)-(38);
* :mod:`~dpgrid.privacy.gaussian_loss.closed_form` - Corollary 1 (not exported here: see that module);
* :mod:`~dpgrid.privacy.gaussian_loss.inversion` - standardisation, characteristic function, tail bounds of
  the inversion integral, Gauss-Legendre panels, the primary method;
* :mod:`~dpgrid.privacy.gaussian_loss.fallback` - the fallback evaluator (screening, QUADPACK QAWO / QAWF);
* :mod:`~dpgrid.privacy.gaussian_loss.exact` - :func:`delta_exact`, :func:`delta_exact_with_error` and their
  error bound (:func:`~dpgrid.privacy.gaussian_loss.exact._perturbation_error`);
* :mod:`~dpgrid.privacy.gaussian_loss.edges` - :class:`EdgeTailCache`, the sups over edges, the hockey stick.
"""

from __future__ import annotations

from dpgrid.privacy.gaussian_loss.edges import (
    EdgeDelta,
    EdgeTailCache,
    HockeyStickSup,
    delta_sup_over_edges,
    hockey_stick_pair,
    hockey_stick_sup_over_edges,
    hockey_stick_upper_bound,
)
from dpgrid.privacy.gaussian_loss.exact import DeltaAccuracyError, delta_exact, delta_exact_with_error
from dpgrid.privacy.gaussian_loss.loss import (
    GaussianPrivacyLoss,
    chernoff_bound,
    chernoff_bound_at,
    chernoff_bound_grid,
    corollary3_trend,
    delta_monte_carlo,
    gaussian_sensitivity,
    log_likelihood_ratio,
    privacy_loss,
)

__all__ = [
    "GaussianPrivacyLoss",
    "privacy_loss",
    "log_likelihood_ratio",
    "delta_exact",
    "delta_exact_with_error",
    "DeltaAccuracyError",
    "delta_monte_carlo",
    "chernoff_bound",
    "chernoff_bound_at",
    "chernoff_bound_grid",
    "gaussian_sensitivity",
    "corollary3_trend",
    "EdgeTailCache",
    "hockey_stick_upper_bound",
    "EdgeDelta",
    "delta_sup_over_edges",
    "hockey_stick_pair",
    "HockeyStickSup",
    "hockey_stick_sup_over_edges",
]

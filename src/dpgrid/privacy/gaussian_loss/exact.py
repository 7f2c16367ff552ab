"""The exact PDP delta ``Pr(L > eps)`` of a pair (classdp Definition 1 after eq. 7, Proposition 1) by inversion of
the characteristic function of the generalised chi-square L, with an error estimate per eps that also bounds the
effect of the rounding in :func:`~dpgrid.privacy.gaussian_loss.loss.privacy_loss` and of zeroing tiny quadratic
terms (see :mod:`dpgrid.privacy.gaussian_loss`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpgrid.privacy.gaussian_loss.fallback import _fallback_eval
from dpgrid.privacy.gaussian_loss.inversion import (
    _GL_N,
    _abs_tail_bound,
    _cf_tail_bound,
    _chernoff_tails,
    _panel_count,
    _primary_eval,
    _primary_plan,
    _standardised,
    _standardised_accurate,
)
from dpgrid.privacy.gaussian_loss.loss import GaussianPrivacyLoss

#: work cap of :func:`delta_exact`: Gauss-Legendre points of the fallback per eps; the primary method is used
#: for an eps only when its points x max(k, _MIN_COLUMNS) are at most this.
_MAX_POINTS = 2**22
#: the primary method's work per eps is charged at least this many columns, independently of the number of eps in
#: the call: for k = 1, 2 it would otherwise take up to 2^21 points per eps (seconds per eps for the nearly
#: degenerate pairs that the fallback screens or inverts in milliseconds)
_MIN_COLUMNS = 16
#: the coupling bounds of :func:`_perturbation_error` give up events of probability e^{-_COUPLING_X} (4e-18)
_COUPLING_X = 40.0


class DeltaAccuracyError(ArithmeticError):
    """:func:`delta_exact` could not bring its error estimate below ``tol`` within its work cap.

    ``delta`` holds the best values found, ``error`` their error estimates (one per eps), ``tol``
    the requested tolerance; a caller that accepts them anyway should record ``error``.
    """

    def __init__(self, message: str, delta: np.ndarray, error: np.ndarray, tol: float):
        super().__init__(message)
        self.delta = delta
        self.error = error
        self.tol = tol


def delta_exact(
    loss: GaussianPrivacyLoss,
    eps: Sequence[float] | float,
    *,
    tol: float = 1e-8,
    t_cap: float = 256.0,
    t_max: float = 8192.0,
    return_error: bool = False,
    max_points: int = _MAX_POINTS,
    strict: bool = True,
):
    """``Pr(L > eps)`` under X, exactly (to ``tol``), for every value of ``eps`` (vectorised).

    Gil-Pelaez inversion of the characteristic function of the generalised chi-square variable
    L (classdp eq. 29; Imhof 1961), by one of two methods:

    * primary (:func:`_primary_plan`, :func:`_primary_eval`): the integral over ``[0, T]`` by
      composite 16-point Gauss-Legendre panels fine enough for the oscillation at that eps (their number
      a power of two, :func:`_panel_count`; the eps sharing a panel count in one matrix product);
      T is the smallest power of two for which the bound :func:`_abs_tail_bound`
      on the discarded tail is below ``tol``. If that needs ``T > t_cap`` (one or two quadratic
      terms, no mean shift), the tail beyond the point where every quadratic term is asymptotic is
      integrated per eps with QUADPACK QAWF after splitting off its asymptotic linear phase.
      Used for an eps when its quadrature points times max(k, 16) are at most ``max_points`` and its bound can
      reach ``tol`` (well-conditioned pairs: everything the classdp pipeline evaluates except pairs with
      quadratic terms of very different sizes);
    * fallback (:func:`_fallback_eval`) for the other eps, or where the primary error estimate exceeds
      ``tol``: Chernoff screening of the eps far in either tail (rigorous 0 or 1), Corollary 1's
      closed form when L is Gaussian, and for the rest panels up to T0 with the complete tail bound
      :func:`_cf_tail_bound` (Gaussian decay of the linear terms included: nearly equal covariances
      with a mean shift end at T0 ~ 8), the remaining range per eps with QUADPACK QAWO blocks
      (terms not yet asymptotic kept in the slowly varying amplitude: ill-conditioned pairs) and
      QAWF beyond the point where all terms are asymptotic. Work is capped by ``max_points``.

    Returns the probabilities (clipped to [0, 1]) and, with ``return_error``, the largest error
    estimate over eps: bounds for the truncation and screening parts, QUADPACK's estimates for the
    oscillatory tails (the Gauss-Legendre panels see at most 6 rad of phase, a valid bound on its
    derivative, and of log-amplitude change each, where the 16-point rule's error is negligible), plus
    :func:`_perturbation_error`: the zeroed tiny quadratic terms (|a_j| < 1e-10 of sd(L), replaced by their
    means) and, for a ``loss`` from :func:`privacy_loss`, the rounding of its Cholesky factors, triangular
    solves and SVD (backward errors ~ 2(k + 1) u times the condition numbers of Sigma_X, Sigma_X' and
    sqrt(cond M), carried by the loss). Those are coupling bounds: worst case over perturbations of the stated
    size, so for ill-conditioned pairs (cond ~ 1e5 and more) they can exceed ``tol`` although the values agree
    with higher-precision references far better. A (gamma, nu) given directly is taken as exact.

    With ``strict`` (default) an error estimate above ``tol`` raises :class:`DeltaAccuracyError`;
    with ``strict=False`` the values are returned anyway and the caller must use ``return_error``
    (or :func:`delta_exact_with_error`) and record the estimate.
    """
    p, err, _ = delta_exact_with_error(
        loss, eps, tol=tol, t_cap=t_cap, t_max=t_max, max_points=max_points, strict=strict
    )
    return (p, float(np.max(err))) if return_error else p


def delta_exact_with_error(
    loss: GaussianPrivacyLoss,
    eps,
    *,
    tol: float = 1e-8,
    t_cap: float = 256.0,
    t_max: float = 8192.0,
    max_points: int = _MAX_POINTS,
    strict: bool = False,
):
    """:func:`delta_exact` returning ``(delta, error, method)``: per-eps error estimates and the method used.

    ``method`` is ``'constant'`` (identical distributions), ``'fallback'`` if the fallback evaluated at least one
    eps, else ``'primary'``. Not strict by default: the caller inspects ``error`` against ``tol``. The value and
    the error at each eps are those of a call with that eps alone (up to the order of floating-point summation).
    """
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    if not (tol > 0 and math.isfinite(tol)):
        raise ValueError(f"delta_exact: tol must be positive and finite, got {tol!r}")
    if math.sqrt(loss.var) <= 1e-13 * (1.0 + abs(loss.c)):  # identical distributions: L is constant
        out = (loss.mean > eps_arr + 1e-12 * (1.0 + np.abs(eps_arr))).astype(float)
        # the exact L is within the rounding deviation of this constant (outside an event of prob. e^{-X})
        spread = _rounding_dev(loss, _COUPLING_X) + math.sqrt(loss.var) * 1e3
        near = np.abs(eps_arr - loss.mean) <= spread + 1e-12 * (1.0 + np.abs(eps_arr))
        err = np.where(near, 1.0, math.exp(-_COUPLING_X) if spread > 0.0 else 0.0)
        return out, err, "constant"
    # half of tol for the quadrature, the rest for the rounding and zeroing terms
    p, err, fell_back, std_of = _evaluate(loss, eps_arr, 0.5 * tol, t_cap, t_max, max_points)
    err = err + _perturbation_error(loss, eps_arr, std_of, 0.5 * tol, t_cap, t_max, max_points)
    return _finish(p, err, "fallback" if np.any(fell_back) else "primary", loss, eps_arr, tol, strict)


def _evaluate(loss: GaussianPrivacyLoss, eps_arr: np.ndarray, tol, t_cap, t_max, max_points):
    """Pr(Z' > x) per eps with its quadrature/truncation error: (p, err, fell_back, std_of).

    Every choice is made per eps from that eps alone (grid independence): the standardisation (the plain one,
    or the cancellation-free E[L] of :func:`_standardised_accurate` where they differ by more than 1e-3 tol),
    the primary method's panel count (a power of two, from the phase speed at that eps), whether the primary
    method is within the work cap and meets ``tol``, and the fallback's plan. eps with the same plan are
    evaluated together (one matrix product). ``std_of`` maps each eps to the standardisation used
    (0 plain, 1 accurate); the fallback always uses the accurate one.
    """
    plain = _standardised(loss)
    acc = _standardised_accurate(loss)
    x_plain = (eps_arr - plain[3]) / plain[4]
    x_acc = (eps_arr - acc[3]) / acc[4]
    use_acc = np.maximum(abs(acc[2] - plain[2]), np.abs(x_acc - x_plain)) > 1e-3 * tol
    p = np.full(eps_arr.shape, np.nan)
    err = np.full(eps_arr.shape, math.inf)
    for flag, (a, b, c, _mean, _sd) in ((False, plain), (True, acc)):
        sel = np.flatnonzero(use_acc == flag)
        if sel.size == 0:
            continue
        x = (x_acc if flag else x_plain)[sel]
        T, need_tail, n_base = _primary_plan(a, b, c, tol, t_cap, t_max)
        if not (need_tail or _abs_tail_bound(T, a, b) <= tol * math.pi):
            continue
        n_panels = _panel_count(T, n_base, x, c)
        for n in np.unique(n_panels):
            grp = n_panels == n
            if _GL_N * int(n) * max(loss.k, _MIN_COLUMNS) > max_points:
                continue
            p[sel[grp]], err[sel[grp]] = _primary_eval(a, b, c, x[grp], T, need_tail, int(n))
    fell_back = ~(err <= tol)
    if np.any(fell_back):
        pf, ef = _fallback_eval(loss, eps_arr[fell_back], tol, max_points)
        prim_p, prim_e = p[fell_back], err[fell_back]
        better = ~(ef > prim_e)  # the primary's values stay where both miss tol and the primary less so
        p[fell_back] = np.where(better, pf, prim_p)
        err[fell_back] = np.where(better, ef, prim_e)
        use_acc = use_acc.copy()
        idx = np.flatnonzero(fell_back)
        use_acc[idx[better]] = True
        fell_back[idx[~better]] = False
    return p, err, fell_back, use_acc.astype(int)


# --------------------------------------------------------------------------------------------
# error bound: rounding of privacy_loss and zeroed quadratic terms


def _density_bound(a: np.ndarray, b: np.ndarray) -> float:
    """An upper bound on the density of ``Z = c + sum_j a_j xi_j^2 + b_j xi_j`` (inf if none applies).

    The density of a sum of independent terms is at most that of any sub-sum, and at most
    ``(1/pi) int_0^inf |phi(u)| du``: the linear terms alone, N(0, B), give ``1/sqrt(2 pi B)``; two quadratic
    terms of one sign ``1/(2 sqrt(a_i a_j))`` (an ellipse's area grows at rate pi/sqrt(a_i a_j), the 2-D normal
    density is <= 1/(2 pi)); the r >= 3 largest |a_j| (``|phi| <= (1 + 4 a_(r)^2 u^2)^{-r/4}``)
    ``Gamma(r/4 - 1/2) / (4 sqrt(pi) |a_(r)| Gamma(r/4))``.
    """
    from scipy import special

    out = [math.inf]
    lin = float(np.sum(b[a == 0] ** 2))
    if lin > 0.0:
        out.append(1.0 / math.sqrt(2.0 * math.pi * lin))
    for side in (np.sort(a[a > 0])[::-1], np.sort(-a[a < 0])[::-1]):
        if side.size >= 2:
            out.append(0.5 / math.sqrt(side[0] * side[1]))
    absa = np.sort(np.abs(a[a != 0]))[::-1]
    r = np.arange(3, min(absa.size, 16) + 1)
    if r.size:
        vals = special.gamma(r / 4 - 0.5) / (4.0 * math.sqrt(math.pi) * absa[r - 1] * special.gamma(r / 4))
        out.append(float(np.min(vals)))
    return min(out)


def _density_bound_unzeroed(a0: np.ndarray, b: np.ndarray, zeroed: np.ndarray) -> float:
    """:func:`_density_bound` of Z with the tiny quadratic terms ``zeroed`` kept (coefficients ``a0``).

    Besides the generic bounds: for u <= V = 1/(2 max|a_j|, j zeroed) each zeroed factor of |phi| is at most
    ``exp(-b_j^2 u^2 / 4)`` and beyond V at most ``exp(-b_j^2 V^2 / 4)``, so with B = (linear b^2) + (zeroed
    b^2)/2 the density is at most ``1/sqrt(2 pi B) + (1/pi) e^{-B V^2/2} int_V^inf prod_j (2|a_j| u)^{-1/2} du``.
    """
    out = _density_bound(a0, b)
    if not np.any(zeroed):
        return out
    big = float(np.sum(b[a0 == 0] ** 2)) + 0.5 * float(np.sum(b[zeroed] ** 2))
    absa = np.abs(a0[a0 != 0])
    r = absa.size
    if big > 0.0 and r >= 3:
        v = 0.5 / float(np.max(np.abs(a0[zeroed])))
        log_tail = (
            -0.5 * big * v * v
            - 0.5 * float(np.sum(np.log(2.0 * absa)))
            + (1.0 - 0.5 * r) * math.log(v)
            - math.log(0.5 * r - 1.0)
        )
        out = min(out, 1.0 / math.sqrt(2.0 * math.pi * big) + math.exp(min(log_tail, 700.0)) / math.pi)
    return out


def _zeroing_smooth_bound(a_z: np.ndarray, b_z: np.ndarray) -> float:
    """Bound on ``|Pr(Z > x) - Pr(Z' > x)|`` (every x) when Z' has the terms ``a_j xi_j^2`` (|a_j| tiny) of Z
    replaced by their means a_j; from the characteristic functions (Gil-Pelaez):
    ``<= (1/pi) int_0^inf |phi_Z'(u)| |R(u) - 1| / u du`` with ``R = phi_Z / phi_Z'`` =
    ``prod_j (1 - 2iua_j)^{-1/2} e^{-iua_j} exp(-i a_j b_j^2 u^3 / (1 - 2iua_j))``, so for ``2u|a_j| <= 1/2``
    ``|ln R| <= rho(u) = alpha u^2 + beta u^3`` (alpha = 2 sum a_j^2, beta = sum |a_j| b_j^2) and
    ``|R - 1| <= rho e^rho``. With ``|phi_Z'| <= e^{-B u^2/2}`` (B = sum b_j^2 of these terms) and rho <= B u^2/4
    up to U: ``int_0^U <= 2 alpha/B + 2 sqrt(pi) beta / B^{3/2}``; beyond U both characteristic functions are
    bounded by their Gaussian factors (at most ``e^{-0.4 B U^2}`` for Z) and algebraic decay. inf if B <= 4 alpha.
    """
    from scipy import special

    big = float(np.sum(b_z**2))
    alpha = 2.0 * float(np.sum(a_z**2))
    beta = float(np.sum(np.abs(a_z) * b_z**2))
    amax = float(np.max(np.abs(a_z)))
    if not big > 4.0 * alpha:
        return math.inf
    U = 0.25 / amax
    if beta > 0.0:
        U = min(U, (0.25 * big - alpha) / beta)
    low = 2.0 * alpha / big + 2.0 * math.sqrt(math.pi) * beta / big**1.5
    z = 0.5 * big * U * U
    tail_zp = 0.5 * float(special.exp1(z)) if z < 700.0 else 0.0
    tail_z = 2.0 / math.sqrt(2.0 * amax * U) * math.exp(-min(0.4 * big * U * U, 745.0))
    return (low + tail_zp + tail_z) / math.pi


def _window_bound(a: np.ndarray, b: np.ndarray, s: float) -> float:
    """Upper bound on ``sup_x Pr(|Z - x| <= s)`` for ``Z = c + sum_j a_j xi_j^2 + b_j xi_j``.

    Levy's inversion: ``Pr(x - s < Z < x + s) = (1/pi) int_0^inf Re[e^{-iux} phi(u)] 2 sin(us)/u du``, so it is at
    most ``(2/pi) int_0^inf |phi(u)| min(s, 1/u) du``. ``|phi(u)| = prod_j (1 + 4 a_j^2 u^2)^{-1/4}
    exp(-b_j^2 u^2 / (2 (1 + 4 a_j^2 u^2)))`` is non-increasing in u, so the integrand is too and its left
    Riemann sum on a grid (0, 1e-3, then ratio 1.02) is an upper bound; beyond the grid's end U >= 1/s the rest
    is at most ``int_U^inf |phi|/u du`` (:func:`_cf_tail_bound`). Finite whenever some a_j or b_j is nonzero
    (a single quadratic term gives ~ sqrt(s), a linear part ~ s).
    """
    if s <= 0.0:
        return 0.0
    if not (np.any(a) or np.any(b)):
        return 1.0
    end = max(1.0 / s, 8.0)
    while _cf_tail_bound(end, a, b) > 1e-6 * s and end < 1e12:
        end *= 4.0
    u = np.concatenate([[0.0], np.geomspace(1e-3, end, max(2, int(math.log(end / 1e-3) / math.log(1.02)) + 1))])
    z = 4.0 * (u[:, None] * a[None, :]) ** 2
    log_abs = np.sum(-0.25 * np.log1p(z) - (b**2)[None, :] * u[:, None] ** 2 / (2.0 * (1.0 + z)), axis=1)
    with np.errstate(divide="ignore"):
        h = np.exp(log_abs) * np.minimum(s, 1.0 / u)
    total = float(np.sum(h[:-1] * np.diff(u))) + _cf_tail_bound(end, a, b)
    return min(1.0, 2.0 / math.pi * total)


def _tail_one(a: float, b: float, y: np.ndarray) -> np.ndarray:
    """``Pr(a xi^2 + b xi > y)``, xi ~ N(0, 1), in closed form (stable roots of a t^2 + b t - y)."""
    from scipy import special

    y = np.atleast_1d(np.asarray(y, dtype=float))
    if a == 0.0:
        return special.ndtr(-y / abs(b)) if b != 0.0 else (y < 0).astype(float)
    disc = b * b + 4.0 * a * y
    out = np.full(y.shape, 1.0 if a > 0 else 0.0)
    ok = disc > 0
    sq = np.sqrt(disc[ok])
    q = -0.5 * (b + math.copysign(1.0, b) * sq) if b != 0.0 else -0.5 * sq
    r1, r2 = q / a, -y[ok] / q
    lo, hi = np.minimum(r1, r2), np.maximum(r1, r2)
    inside = special.ndtr(hi) - special.ndtr(lo)
    out[ok] = 1.0 - inside if a > 0 else inside
    return out


def _weighted_chi2_dev(w: np.ndarray, x: float) -> float:
    """t with ``Pr(|sum_j w_j (xi_j^2 - 1)| > t) <= 4 e^{-x}`` (Laurent and Massart 2000, Lemma 1, applied to the
    positive and the negative weights: each part exceeds ``2 |w|_2 sqrt(x) + 2 |w|_inf x`` with probability
    at most 2 e^{-x})."""
    t = 0.0
    for part in (w[w > 0], -w[w < 0]):
        if part.size:
            t += 2.0 * float(np.linalg.norm(part)) * math.sqrt(x) + 2.0 * float(np.max(part)) * x
    return t


def _rounding_dev(loss: GaussianPrivacyLoss, x: float) -> float:
    """t (in units of L) with ``|L - L~| <= t`` outside an event of probability e^{-x}, where L is the privacy
    loss of the exact pair and L~ that of the pair for which the computed (gamma, nu) are exact
    (``loss.eta_x``, ``loss.eta_xp``, ``loss.mean_rounding``), coupled through the same standard normal z.

    With q = mu + Sigma^{1/2} z, Sigma~ = Sigma^{1/2}(I + F)Sigma^{1/2}, Sigma~' = Sigma'^{1/2}(I + F')Sigma'^{1/2}
    and v = Sigma'^{-1/2}(Sigma^{1/2} z - d): ``2(L~ - L) = -ln|I + F| + ln|I + F'| + |H(v + dv)|^2 - |v|^2``,
    H = (I + F')^{-1/2}, ``dv = Sigma'^{-1/2}(Sigma^{1/2}((I + F)^{1/2} - I) z - e)``. So
    ``2|L~ - L| <= k(eta/(1 - eta) + eta'/(1 - eta')) + eta'/(1 - eta') (V + r)^2 + 2 V r + r^2`` with
    ``|v| <= V = sqrt(g) |z| + sqrt(nu^T Gamma nu)``, ``|dv| <= r = sqrt(g) eta |z| + mean_rounding``,
    g = gamma_max, and ``|z|^2 <= k + 2 sqrt(k x) + 2 x`` (Laurent and Massart 2000).
    """
    e1, e2 = loss.eta_x, loss.eta_xp
    if e1 == 0.0 and e2 == 0.0 and loss.mean_rounding == 0.0:
        return 0.0
    if e1 >= 0.5 or e2 >= 0.5:
        return math.inf
    k = loss.k
    infl = (1.0 + e1) / (1.0 - e2)  # the exact gamma are within this factor of the computed ones
    g = float(loss.gamma.max()) * infl
    m = math.sqrt(float(np.sum(loss.gamma * loss.nu**2)) * infl)
    zb = math.sqrt(k + 2.0 * math.sqrt(k * x) + 2.0 * x)
    v = math.sqrt(g) * zb + m
    r = math.sqrt(g) * e1 * zb + loss.mean_rounding
    f2 = e2 / (1.0 - e2)
    return 0.5 * (k * (e1 / (1.0 - e1) + f2) + f2 * (v + r) ** 2 + 2.0 * v * r + r * r)


def _perturbation_error(loss, eps_arr, std_of, tol, t_cap, t_max, max_points) -> np.ndarray:
    """Per-eps bound on ``|Pr(L > eps) - Pr(Z' > x)|`` beyond the quadrature error of Pr(Z' > x), where L is the
    privacy loss of the exact pair and Z' the standardised variable that is inverted:

    * rounding in :func:`privacy_loss` (``loss.eta_x`` etc.): with the coupling of :func:`_rounding_dev`,
      ``|Pr(L > eps) - Pr(L~ > eps)| <= Pr(|L - L~| > t) + Pr(|L~ - eps| <= t)``;
    * zeroing the quadratic terms below ``_A_TINY`` (replaced by their means): :func:`_zeroing_smooth_bound`,
      or the coupling ``Pr(|W| > t_z) + Pr(|Z' - x| <= t_z)`` with W their remainder (:func:`_weighted_chi2_dev`).

    ``Pr(|Y - x| <= t)`` is at most 2 t times a density bound (:func:`_density_bound`); where that is not small
    enough (no bounded density: one or two quadratic terms), it is ``Pr(Z' > x - s) - Pr(Z' > x + s)`` plus their
    error estimates, evaluated (s = t + t_z). Everything depends on the eps itself only.
    """
    X = _COUPLING_X
    p_out = math.exp(-X)
    out = np.zeros(eps_arr.shape)
    t_round = _rounding_dev(loss, X)
    for flag, std in ((0, _standardised), (1, _standardised_accurate)):
        sel = np.flatnonzero(std_of == flag)
        if sel.size == 0:
            continue
        a, b, c, mean, sd = std(loss)
        a0 = loss.a / sd
        zeroed = (a == 0) & (a0 != 0)
        x = (eps_arr[sel] - mean) / sd
        t_r = t_round / sd
        t_z = _weighted_chi2_dev(a0[zeroed], X) if np.any(zeroed) else 0.0
        s = t_r + t_z
        # Pr(|Z~ - x| <= t_r) and Pr(|Z' - x| <= s), first from density bounds (cheap), where not small enough
        # from Chernoff bounds on both sides (far eps) and the window bound (exact for k = 1)
        dens = _density_bound(a, b)
        e_round = np.zeros(sel.size)
        e_zero = np.zeros(sel.size)
        if t_r > 0.0:  # Z~ with the tiny terms: its own bound or via Z'
            own = 2.0 * t_r * _density_bound_unzeroed(a0, b, zeroed)
            e_round[:] = p_out + min(own, (4.0 * p_out if t_z > 0 else 0.0) + 2.0 * s * dens)
        if t_z > 0.0:
            e_zero[:] = min(_zeroing_smooth_bound(a0[zeroed], b[zeroed]), 4.0 * p_out + 2.0 * t_z * dens)
        need = ~(e_round + e_zero <= 0.125 * tol)
        if np.any(need):
            xs = x[need]
            up, low = _chernoff_tails(a, b, c, xs - s)[0], _chernoff_tails(a, b, c, xs + s)[1]
            near = np.minimum(np.minimum(up, low), _window_bound(a, b, s))
            if a.size == 1:
                near = np.minimum(near, _tail_one(a[0], b[0], xs - s - c) - _tail_one(a[0], b[0], xs + s - c) + 1e-15)
            if t_r > 0.0:
                own_w = _window_bound(a0, b, t_r)
                e_round[need] = np.minimum(
                    e_round[need], p_out + np.minimum(own_w, (4.0 * p_out if t_z > 0 else 0.0) + near)
                )
            if t_z > 0.0:
                e_zero[need] = np.minimum(e_zero[need], 4.0 * p_out + near)
        need = ~(e_round + e_zero <= 0.125 * tol)
        if np.any(need):  # evaluate Pr(|Z' - x| <= s) itself
            e_sel = eps_arr[sel[need]]
            shifted = np.concatenate([e_sel - s * sd, e_sel + s * sd])
            pl, el, _, _ = _evaluate(loss, shifted, tol, t_cap, t_max, max_points)
            n = e_sel.size
            loc = np.maximum(pl[:n] - pl[n:], 0.0) + el[:n] + el[n:] + 2e-3 * tol
            if t_r > 0.0:
                e_round[need] = np.minimum(e_round[need], 5.0 * p_out + loc)
            if t_z > 0.0:
                e_zero[need] = np.minimum(e_zero[need], 4.0 * p_out + loc)
        out[sel] = e_round + e_zero
    return out


def _finish(p, err, method, loss, eps_arr, tol, strict):
    if strict and not np.all(err <= tol):
        bad = ~(err <= tol)
        raise DeltaAccuracyError(
            f"delta_exact ({method}): error estimate {np.max(err):.3g} > tol {tol:g} at eps "
            f"{eps_arr[bad].tolist()} for k = {loss.k}, gamma in [{loss.gamma.min():.6g}, {loss.gamma.max():.6g}], "
            f"|nu| = {np.linalg.norm(loss.nu):.6g} (work cap reached; pass strict=False to accept and record the "
            f"error estimate)",
            p,
            err,
            tol,
        )
    return p, err, method

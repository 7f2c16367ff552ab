"""The fallback evaluator of :func:`dpgrid.privacy.gaussian_loss.exact.delta_exact`: Chernoff screening, Corollary 1
when L is Gaussian, panels and QUADPACK's oscillatory-integral routines (QAWO, QAWF) for nearly equal covariances,
nearly degenerate L and quadratic terms of many scales (classdp eq. 29; see :mod:`dpgrid.privacy.gaussian_loss`).
"""

from __future__ import annotations

import math

import numpy as np

from dpgrid.privacy.gaussian_loss.inversion import (
    _cf_tail_bound,
    _chernoff_tails,
    _panel_points,
    _panels,
    _standardised_accurate,
)
from dpgrid.privacy.gaussian_loss.loss import GaussianPrivacyLoss


def _quad(f, lo, hi, epsabs, **kw):
    """scipy quad (QUADPACK) returning (value, error estimate); the estimate is inf when QUADPACK reports
    a failure other than round-off (ier = 2, whose estimate is kept; for QAWF: cycles with ier 0 or 2)."""
    from scipy import integrate

    out = integrate.quad(f, lo, hi, epsabs=epsabs, epsrel=0.0, full_output=1, **kw)
    val, err = float(out[0]), float(out[1])
    if len(out) > 3:  # QUADPACK's message: ier != 0
        msg = str(out[3])
        if msg.startswith("Bad integrand behavior occurs within one or more of the cycles"):
            info = out[2]
            cycles = np.asarray(info["ierlst"])[: int(info["lst"])]
            if not np.all(np.isin(cycles, (0, 2))):
                err = math.inf
        elif not msg.startswith("The occurrence of roundoff error"):
            err = math.inf
    return val, err


def _fourier(f_sin, f_cos, lo: float, hi: float, omega: float, epsabs: float):
    """int_lo^hi sin(theta_r(u) - omega u) amp(u) du from f_sin = amp sin(theta_r), f_cos = amp cos(theta_r):
    QAWO (finite hi) or QAWF (hi = inf) with weights cos/sin(|omega| u). Returns (value, error estimate)."""
    if omega == 0.0:
        return _quad(f_sin, lo, hi, epsabs, limit=200)
    w, sg = abs(omega), (1.0 if omega > 0 else -1.0)
    kw = {"limlst": 100} if math.isinf(hi) else {"limit": 200}
    i1, e1 = _quad(f_sin, lo, hi, 0.5 * epsabs, weight="cos", wvar=w, **kw)
    i2, e2 = _quad(f_cos, lo, hi, 0.5 * epsabs, weight="sin", wvar=w, **kw)
    return i1 - sg * i2, e1 + e2


def _slow_parts(a: np.ndarray, b: np.ndarray, asym: np.ndarray):
    """f_sin, f_cos of :func:`_fourier` for e^{-iux} phi(u) / u: theta = theta_r - omega u with
    omega = x - c + sum_{j in asym} b_j^2/(4 a_j). theta_r = sum_j atan(2 a_j u)/2 + sum_{j in asym}
    b_j^2 u / (4 a_j (1 + 4 a_j^2 u^2)) - sum_{j not in asym} b_j^2 a_j u^3 / (1 + 4 a_j^2 u^2) (the first
    form is the exact remainder of the asymptotic linear phase, free of cancellation)."""
    nz = a != 0
    terms = [(float(aj), float(bj) ** 2, bool(asym[j])) for j, (aj, bj) in enumerate(zip(a, b)) if aj != 0]
    b_lin2 = float(np.sum(b[~nz] ** 2))

    def slow(u: float):  # scalar Python arithmetic: QUADPACK calls it point by point
        ph, logamp = 0.0, -0.5 * b_lin2 * u * u
        for aj, b2, is_asym in terms:
            t = 2.0 * aj * u
            q = 1.0 + t * t
            bq = b2 * u / q
            ph += 0.5 * math.atan(t) + (bq / (4.0 * aj) if is_asym else -bq * aj * u * u)
            logamp += -0.25 * math.log1p(t * t) - 0.5 * bq * u
        return ph, math.exp(logamp) / u

    def f_sin(u: float) -> float:
        th, amp = slow(u)
        return math.sin(th) * amp

    def f_cos(u: float) -> float:
        th, amp = slow(u)
        return math.cos(th) * amp

    return f_sin, f_cos


def _fallback_eval(loss: GaussianPrivacyLoss, eps_arr: np.ndarray, tol: float, max_points: int):
    """Fallback of :func:`delta_exact`: (probabilities, per-eps error estimates).

    1. Standardise with an accurate E[L] (:func:`_standardised_accurate`). If every quadratic term
       is negligible, Z = c + N(0, 1) exactly and Pr(Z > x) = Q(x - c) (classdp Corollary 1,
       eq. 33; the PDP tail of the analytic Gaussian mechanism).
    2. eps whose Chernoff bound (:func:`_chernoff_tails`) on the upper resp. lower tail is at most
       tol/4 get delta = 0 resp. 1 with that bound as error: this covers nearly degenerate L
       (equal means, nearly equal covariances: eps - E[L] is 1e10 standard deviations away).
    3. The remaining eps: panels on [0, T0], T0 the smallest power of two >= 8 at which the complete
       bound :func:`_cf_tail_bound` is below pi tol/4, or otherwise at which every quadratic term with
       s_j = 1/(2|a_j|) <= 16 is asymptotic (u >= 64 s_j), within ``max_points``. Beyond T0:
       QAWO (``quad(weight='cos'/'sin')`` on finite blocks [T0 16^i, T0 16^(i+1)]) with the linear
       phase of the asymptotic terms split off and the others' phases in the amplitude, up to the
       first U = T0 16^m at which the bound is met (truncation) or every term is asymptotic, then
       QAWF from U with the full asymptotic phase split off (remainder in cancellation-free form,
       :func:`_slow_parts`). QUADPACK failures other than round-off make the estimate infinite.
    """
    from scipy import special

    a, b, c, mean, sd = _standardised_accurate(loss)
    x = (eps_arr - mean) / sd
    p = np.empty_like(x)
    err = np.zeros_like(x)
    if not np.any(a):  # Z = c + N(0, sum b_j^2) (the zeroed terms' rest is bounded by _perturbation_error)
        return special.ndtr((c - x) / math.sqrt(float(np.sum(b**2)))), np.full(x.shape, 1e-15)
    up, low = _chernoff_tails(a, b, c, x)
    hi_dead, lo_dead = up <= 0.25 * tol, low <= 0.25 * tol
    p[hi_dead], err[hi_dead] = 0.0, up[hi_dead]
    rest = lo_dead & ~hi_dead
    p[rest], err[rest] = 1.0, low[rest]
    live = ~(hi_dead | lo_dead)
    if np.any(live):
        p[live], err[live] = _invert_live(a, b, c, x[live], tol, max_points)
    return p, err


def _invert_live(a, b, c, x, tol, max_points):
    """Panels and QUADPACK for the eps not screened by the fallback; each eps's plan (T, panel width) is made
    from that eps alone, eps with the same plan are evaluated together."""
    budget = 0.25 * math.pi * tol  # truncation (bound) and quadrature (estimates) each
    nz = a != 0
    scale = 0.5 / np.abs(a[nz])  # s_j: term j is asymptotic for u >> s_j
    big = scale[scale <= 16.0]
    t_big = 64.0 * float(big.max()) if big.size else 8.0
    bound = {}

    def tail_bound(T):
        if T not in bound:
            bound[T] = _cf_tail_bound(T, a, b)
        return bound[T]

    plans = []
    for xi in x:
        T = 8.0
        h, npts = _panel_points(T, xi, a, b, c)
        if npts > max_points:
            plans.append(None)
            continue
        while tail_bound(T) > budget and (T < t_big or tail_bound(2.0 * T) < 0.1 * tail_bound(T)):
            h2, n2 = _panel_points(2.0 * T, xi, a, b, c)
            if n2 > max_points:
                break
            T, h = 2.0 * T, h2
        plans.append((T, h))
    p = np.full(x.shape, np.nan)
    err = np.full(x.shape, math.inf)
    for plan in dict.fromkeys(q for q in plans if q is not None):
        grp = np.array([q == plan for q in plans])
        p[grp], err[grp] = _invert_planned(a, b, c, x[grp], plan[0], plan[1], budget)
    return p, err


def _invert_planned(a, b, c, x, T, h, budget):
    nz = a != 0
    scale = 0.5 / np.abs(a[nz])
    total = _panels(T, h, x, a, b, c)
    err = np.zeros_like(x)
    bound = _cf_tail_bound(T, a, b)
    if bound <= budget:
        return np.clip(0.5 + total / math.pi, 0.0, 1.0), np.full(x.shape, bound / math.pi)
    # tail beyond T in blocks [lo, 16 lo]: the terms asymptotic on a block (64 s_j <= lo) give its linear
    # phase, the others stay in the slowly varying part; QAWF from U where all are asymptotic
    t_all = 2.0 ** math.ceil(math.log2(64.0 * float(scale.max())))
    U = T
    while U < t_all and _cf_tail_bound(U, a, b) > budget:
        U *= 16.0
    U = min(U, max(t_all, T))
    trunc = _cf_tail_bound(U, a, b)
    need_inf = trunc > budget
    blocks = []
    lo = T
    while lo < U:
        asym = np.zeros(a.shape, dtype=bool)
        asym[nz] = 64.0 * scale <= lo
        shift = float(np.sum(b[asym] ** 2 / (4.0 * a[asym])))
        blocks.append((lo, min(16.0 * lo, U), _slow_parts(a, b, asym), shift))
        lo = 16.0 * lo
    if need_inf:
        blocks.append((U, math.inf, _slow_parts(a, b, nz), float(np.sum(b[nz] ** 2 / (4.0 * a[nz])))))
        trunc = 0.0
    epsabs = budget / max(len(blocks), 1)
    tail = np.zeros_like(x)
    for i, xi in enumerate(x):
        for lo_, hi_, parts, shift in blocks:
            v, e = _fourier(*parts, lo_, hi_, xi - c + shift, epsabs)
            tail[i] += v
            err[i] += e
    p = np.clip(0.5 + (total + tail) / math.pi, 0.0, 1.0)
    return p, (err + trunc) / math.pi

"""Gil-Pelaez inversion of the characteristic function of the generalised chi-square privacy loss (Imhof 1961):
the standardisations, the characteristic and cumulant generating functions, the bounds on the discarded tail
of the inversion integral, Chernoff tails, the composite Gauss-Legendre panels and the primary method of
:func:`dpgrid.privacy.gaussian_loss.exact.delta_exact` (classdp eq. 29; see :mod:`dpgrid.privacy.gaussian_loss`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from dpgrid.privacy.gaussian_loss.loss import GaussianPrivacyLoss

# Gauss-Legendre nodes on [0, 1] for the panels of the inversion integral.
_GL_N = 16
_GL_X, _GL_W = np.polynomial.legendre.leggauss(_GL_N)
_GL_X = 0.5 * (_GL_X + 1.0)
_GL_W = 0.5 * _GL_W
#: |a_j| (standardised) below which a quadratic term is treated as linear: it moves L by less
#: than 1e-10 xi^2, far below the 1e-6 accuracy target.
_A_TINY = 1e-10
#: Largest phase change (rad) of e^{-iux} phi(u), and largest change of its log-amplitude, over one Gauss-Legendre
#: panel (:func:`_panel_count`; panels are also at most 1 wide). For a pure oscillation exp(i theta t) the 16-point
#: rule's relative error is theta^33 (16!)^4 / (33 (32!)^3): 2e-29 at theta = 6, 1e-9 at 24, order 1 at 48 (the last
#: measured in tests/privacy/test_gaussian_loss_numerics.py). Near a branch point of phi (after standardisation at
#: least 1/(2 max|a_j|) >= 0.7 from the real axis, i.e. 1.4 half-widths of a width-1 panel) the Bernstein-ellipse
#: bound (Trefethen, ATAP Thm 19.3, rho = 3) gives (64/15) rho^-32 / (rho^2 - 1) exp(0.67 theta) / 2, about 1e-14
#: per panel at theta = 6 (4x fewer panels than 1.5 rad where the phase sets their number; delta(eps) agrees to
#: rounding, <= 2e-15).
_PANEL_PHASE = 6.0
#: complex numbers per chunk of the fallback's panel sums (16 MiB).
_CHUNK = 2**20


def _standardised(loss: GaussianPrivacyLoss):
    """(a, b, c, mean, sd) of Z = (L - mean)/sd, with negligible a_j set to 0."""
    mean, sd = loss.mean, math.sqrt(loss.var)
    a, b = loss.a / sd, loss.b / sd
    zeroed = np.abs(a) < _A_TINY
    # a zeroed term a_j xi_j^2 is replaced by its mean a_j (so E[Z] stays 0); the rest of it, a_j (xi_j^2 - 1), is
    # bounded in the error (:func:`_perturbation_error`)
    c = (loss.c - mean) / sd + float(np.sum(a[zeroed]))
    a = np.where(zeroed, 0.0, a)
    return a, b, c, mean, sd


def _log_cf_parts(u: np.ndarray, a: np.ndarray, b: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray]:
    """Real and imaginary parts of ln E[exp(i u Z)] for Z = c + sum a_j xi_j^2 + b_j xi_j, in real arithmetic.

    With t_j = 2 a_j u and z_j = 1 - i t_j: -ln(z_j)/2 = -ln(1 + t_j^2)/4 + i arctan(t_j)/2 (Re z_j = 1 > 0, so the
    principal branch, summed term by term, is continuous in u) and -b_j^2 u^2 / (2 z_j) = -q_j (1 + i t_j) with
    q_j = b_j^2 u^2 / (2 (1 + t_j^2)). The same function as the complex formula (Imhof 1961, eq. 3.2), about
    ten times faster (no complex log or division) and more accurate near u = 0 (log1p)."""
    t = 2.0 * u[:, None] * a[None, :]
    d = 1.0 + t * t
    q = (b * b)[None, :] * (u * u)[:, None] / (2.0 * d)
    re = np.sum(-0.25 * np.log1p(t * t) - q, axis=1)
    im = u * c + np.sum(0.5 * np.arctan(t) - q * t, axis=1)
    return re, im


def _log_cf(u: np.ndarray, a: np.ndarray, b: np.ndarray, c: float) -> np.ndarray:
    """ln E[exp(i u Z)] for Z = c + sum a_j xi_j^2 + b_j xi_j (principal branch is continuous)."""
    re, im = _log_cf_parts(u, a, b, c)
    return re + 1j * im


def _im_integrand(re: np.ndarray, im: np.ndarray, u: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Im[e^{-iux} phi(u)] / u for every (u, x) from the parts of ln phi(u): exp(Re) sin(Im - u x) / u."""
    return np.exp(re)[:, None] * np.sin(im[:, None] - u[:, None] * x[None, :]) / u[:, None]


def _abs_tail_bound(T: float, a: np.ndarray, b: np.ndarray) -> float:
    """Upper bound on int_T^inf |phi(u)|/u du (the truncation error of the inversion times pi).

    |phi(u)| = prod_j (1 + 4 a_j^2 u^2)^{-1/4} exp(-sum_j b_j^2 u^2 / (2 (1 + 4 a_j^2 u^2))); the
    exponential is increasing in u's denominator so it is bounded by its value at T, and each factor
    by (2|a_j| u)^{-1/2} for j in S = {j : 2|a_j| T >= 1} (by 1 otherwise).
    """
    gauss = float(np.sum(b**2 * T**2 / (2.0 * (1.0 + 4.0 * a**2 * T**2))))
    sel = 2.0 * np.abs(a) * T >= 1.0
    r = int(np.count_nonzero(sel))
    if r == 0:
        lin = float(np.sum(b[a == 0] ** 2))
        if lin > 0.0:  # pure Gaussian decay from the linear terms
            return math.exp(-lin * T**2 / 2.0) / (lin * T**2)
        return math.inf
    log_c = -0.5 * float(np.sum(np.log(2.0 * np.abs(a[sel]))))
    return math.exp(log_c - gauss - 0.5 * r * math.log(T) + math.log(2.0 / r))


def _x_minus_log1p(d: np.ndarray) -> np.ndarray:
    """``d - ln(1 + d)`` without cancellation for small |d| (power series below 0.05)."""
    d = np.asarray(d, dtype=float)
    small = np.abs(d) < 0.05
    ds = np.where(small, d, 0.0)
    series = np.zeros_like(d)
    term = ds * ds
    for n in range(2, 16):
        series += (1.0 if n % 2 == 0 else -1.0) * term / n
        term = term * ds
    dl = np.where(small, 0.0, d)
    return np.where(small, series, dl - np.log1p(dl))


def _standardised_accurate(loss: GaussianPrivacyLoss):
    """(a, b, c, mean, sd) of Z = (L - mean)/sd like :func:`_standardised`, with E[L] = KL computed
    as 1/2 sum (d_j - ln(1 + d_j)) + 1/2 nu^T Gamma nu, d = gamma - 1, a sum of nonnegative terms each to a few ulp:
    for 1/2 <= gamma_j <= 2, d_j is exact (Sterbenz) and the series of :func:`_x_minus_log1p` avoids the cancellation
    when Gamma ~ I; elsewhere ``d_j - ln(gamma_j)``, since ln(1 + d_j) of a rounded d_j loses the digits of a small
    gamma_j (relative 1e-9 at gamma_j = 1e-7)."""
    g, nu = loss.gamma, loss.nu
    d = g - 1.0
    a_raw, b_raw = 0.5 * d, -g * nu
    sd = math.sqrt(float(np.sum(2.0 * a_raw**2 + b_raw**2)))
    near_one = (g >= 0.5) & (g <= 2.0)
    kl_terms = np.where(near_one, _x_minus_log1p(np.where(near_one, d, 0.0)), d - np.log(g))
    mean = 0.5 * float(np.sum(kl_terms)) + 0.5 * float(np.sum(g * nu**2))
    a, b = a_raw / sd, b_raw / sd
    a = np.where(np.abs(a) < _A_TINY, 0.0, a)
    c = -float(np.sum(a))  # (c_L - E[L]) / sd = -sum_j a_j, zeroed terms replaced by their means a_j
    return a, b, c, mean, sd


def _kgf(theta: np.ndarray, a: np.ndarray, b: np.ndarray, c: float) -> np.ndarray:
    """ln E[e^{theta Z}] (cumulant generating function) for 1 - 2 theta a_j > 0."""
    d = 1.0 - 2.0 * theta[:, None] * a[None, :]
    return theta * c - 0.5 * np.sum(np.log(d), axis=1) + np.sum(theta[:, None] ** 2 * b**2 / (2.0 * d), axis=1)


def _chernoff_tails(a: np.ndarray, b: np.ndarray, c: float, x: np.ndarray):
    """Chernoff bounds ``(up, low)`` with ``Pr(Z > x) <= up`` and ``Pr(Z <= x) <= low`` (Markov's
    inequality on e^{theta Z}, theta > 0 resp. < 0; classdp Lemma 1 is the theta > 0 case), each
    minimised over a fixed grid of theta, so each is a valid bound."""
    frac = np.concatenate([np.geomspace(1e-6, 0.5, 64), 1.0 - np.geomspace(0.5, 1e-12, 64)[1:]])

    def grid(lim: float) -> np.ndarray:
        return lim * frac if math.isfinite(lim) else np.geomspace(1e-6, 1e6, 128)

    apos, aneg = a[a > 0], a[a < 0]
    t_up = grid(0.5 / float(apos.max()) if apos.size else math.inf)
    t_lo = -grid(0.5 / float(-aneg.min()) if aneg.size else math.inf)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        up = np.exp(np.min(_kgf(t_up, a, b, c)[:, None] - t_up[:, None] * x[None, :], axis=0))
        low = np.exp(np.min(_kgf(t_lo, a, b, c)[:, None] - t_lo[:, None] * x[None, :], axis=0))
    return np.minimum(np.nan_to_num(up, nan=1.0), 1.0), np.minimum(np.nan_to_num(low, nan=1.0), 1.0)


def _cf_tail_bound(T: float, a: np.ndarray, b: np.ndarray) -> float:
    """Rigorous upper bound on ``int_T^inf |phi(u)|/u du`` for T > 0, every term included.

    ``|phi(u)| = prod_j (1 + 4 a_j^2 u^2)^{-1/4} exp(-b_j^2 u^2 / (2 (1 + 4 a_j^2 u^2)))``. Each
    exponential factor increases towards its limit in u, so for u >= T it is at most its value at T
    (for a_j = 0 it is exactly exp(-b_j^2 u^2 / 2) and stays in the integral); each algebraic factor is
    at most min(1, (s_j/u)^{1/2}), s_j = 1/(2|a_j|). Two bounds, the smaller returned:
    (i) exp(-G(T)) int_T^inf u^{-1} prod_j min(1, (s_j/u)^{1/2}) du, integrated exactly piecewise between
    the sorted s_j (power laws; finite when some a_j != 0); (ii) when some a_j = 0 with b_j != 0
    (beta0 = sum of their b_j^2): the algebraic part at T times int_T^inf e^{-beta0 u^2/2}/u du =
    E1(beta0 T^2/2)/2. Unlike :func:`_abs_tail_bound` it never ignores the decay contributed by the
    linear (mean-difference) terms, which is what makes nearly equal covariances cheap.
    """
    from scipy import special

    lin = a == 0
    beta0 = float(np.sum(b[lin] ** 2))
    an, bn = np.abs(a[~lin]), b[~lin]
    g_nonlin = float(np.sum(bn**2 * T**2 / (2.0 * (1.0 + 4.0 * an**2 * T**2))))
    logs = []
    if an.size:
        s = np.sort(0.5 / an)
        m = int(np.count_nonzero(s <= T))
        log_c = 0.5 * float(np.sum(np.log(s[:m])))
        lo, total = T, 0.0
        for nxt in list(s[m:]) + [math.inf]:
            if m == 0:
                total += math.log(nxt / lo)
            else:  # int_lo^hi C u^{-1-m/2} du, with C lo^{-m/2} <= 1
                ratio = 0.0 if math.isinf(nxt) else (lo / nxt) ** (0.5 * m)
                total += math.exp(log_c - 0.5 * m * math.log(lo)) * (1.0 - ratio) * 2.0 / m
            if math.isfinite(nxt):
                log_c += 0.5 * math.log(nxt)
                m += 1
                lo = nxt
        logs.append(math.log(total) - g_nonlin - 0.5 * beta0 * T**2 if total > 0 else -math.inf)
    if beta0 > 0.0:
        z = 0.5 * beta0 * T**2
        log_e1 = math.log(special.exp1(z)) if z < 500.0 else -z - math.log(z)  # E1(z) < e^{-z}/z
        log_alg = -0.25 * float(np.sum(np.log1p(4.0 * an**2 * T**2)))
        logs.append(log_alg - g_nonlin + log_e1 - math.log(2.0))
    return math.exp(min(logs)) if logs else math.inf


def _panel_points(T: float, x: float, a: np.ndarray, b: np.ndarray, c: float):
    """(panel width, number of Gauss-Legendre points) on [0, T] for one eps, as in :func:`_panel_count`."""
    base = float(np.sum(np.abs(a))) + float(np.sum(b**2 * np.minimum(T, 1.0 / (2 * np.abs(a) + 1e-300))))
    n = int(_panel_count(T, base, np.array([x]), c)[0])
    return T / n, _GL_N * n


def _panels(T: float, h: float, x: np.ndarray, a: np.ndarray, b: np.ndarray, c: float) -> np.ndarray:
    """int_0^T Im[e^{-iux} phi(u)]/u du for every x, composite Gauss-Legendre, generated in chunks
    (memory bounded by ``_CHUNK`` complex numbers whatever the number of panels)."""
    n_panels = max(1, math.ceil(T / h))
    width = T / n_panels
    per = max(1, _CHUNK // (_GL_N * max(x.size, a.size, 1)))
    total = np.zeros_like(x)
    for p0 in range(0, n_panels, per):
        left = width * np.arange(p0, min(p0 + per, n_panels), dtype=float)
        u = (left[:, None] + width * _GL_X[None, :]).ravel()
        w = np.tile(width * _GL_W, left.size)
        total += w @ _im_integrand(*_log_cf_parts(u, a, b, c), u, x)
    return total


# --------------------------------------------------------------------------------------------
# the primary method: panels on [0, T], QUADPACK QAWF beyond


def _primary_plan(a, b, c, tol, t_cap, t_max):
    """T, whether the QAWF tail is needed, and the eps-free part of the phase speed of the primary method
    (none of them depends on eps)."""
    T = 8.0
    while _abs_tail_bound(T, a, b) > tol * math.pi and T < t_cap:
        T *= 2.0
    need_tail = _abs_tail_bound(T, a, b) > tol * math.pi
    if need_tail:
        anz = np.abs(a[a != 0])
        # QAWF needs the asymptotic regime u >> 1/|2 a_j| (slowly varying amplitude and phase)
        t_asym = 64.0 / (2.0 * anz.min()) if anz.size else math.inf
        if t_asym <= t_max:
            T = max(T, 2.0 ** math.ceil(math.log2(t_asym)))
        else:  # keep doubling; no asymptotic tail available
            while _abs_tail_bound(T, a, b) > tol * math.pi and T < t_max:
                T *= 2.0
            need_tail = False
    base = float(np.sum(np.abs(a))) + float(np.sum(b**2 * np.minimum(T, 1.0 / (2 * np.abs(a) + 1e-300))))
    return T, need_tail, base


def _panel_count(T: float, base_speed: float, x: np.ndarray, c: float) -> np.ndarray:
    """Panels on [0, T] per eps: the phase of e^{-iux} phi(u) turns at most |x - c| + base_speed per unit u
    (|d/du arg| bound); panels of at most ``_PANEL_PHASE`` rad and width <= 1, their number rounded up to a power of two
    (so eps with similar speeds share one plan, and each eps's plan depends on that eps only)."""
    speed = np.abs(x - c) + base_speed
    h = np.minimum(1.0, _PANEL_PHASE / np.maximum(speed, 1e-12))
    n = np.maximum(1.0, np.ceil(T / h))
    return (2.0 ** np.ceil(np.log2(n))).astype(np.int64)


def _primary_eval(a, b, c, x, T, need_tail, n_panels):
    """The primary method on ``n_panels`` panels of [0, T]: (probabilities, per-eps error estimates)."""

    edges = np.linspace(0.0, T, n_panels + 1)
    widths = np.diff(edges)
    u = (edges[:-1, None] + widths[:, None] * _GL_X[None, :]).ravel()
    w = (widths[:, None] * _GL_W[None, :]).ravel()
    # Im[e^{-iux} phi(u)] / u for every (u, x): chunk over u to bound memory (the log c.f. in sub-chunks
    # of _CHUNK / k points: element by element the same numbers as one call on all of u)
    total = np.zeros_like(x)
    chunk = max(1, 2_000_000 // max(x.size, 1))
    sub = max(1, _CHUNK // max(a.size, 1))
    mass = phase = reach = 0.0  # the rounding bound's sums, see _rounding_error
    for s in range(0, u.size, chunk):
        uu, ww = u[s : s + chunk], w[s : s + chunk]
        parts = [_log_cf_parts(uu[t : t + sub], a, b, c) for t in range(0, uu.size, sub)]
        re, im = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        total += ww @ _im_integrand(re, im, uu, x)
        wa = ww * np.exp(re) / uu  # w_i |phi(u_i)| / u_i >= |w_i f_i(x)| for every x
        terms = np.abs(re) + uu * abs(c) + a.size * math.pi / 4.0 + uu * uu * float(np.sum(b * b)) / 4.0
        mass += float(np.sum(wa))
        phase += float(wa @ terms)
        reach += float(wa @ uu)
    err = np.full(x.shape, _abs_tail_bound(T, a, b) / math.pi)
    if need_tail:
        tail, err = _oscillatory_tail(T, x, a, b, c)
        total += tail
    p = 0.5 + total / math.pi
    p = np.clip(p, 0.0, 1.0)
    return p, err + _rounding_error(x, u.size, a.size, mass, phase, reach)


def _rounding_error(x, n_nodes: int, k: int, mass: float, phase: float, reach: float) -> np.ndarray:
    """A bound on the floating-point error of ``0.5 + (sum_i w_i f_i(x)) / pi`` in :func:`_primary_eval`.

    With u the unit roundoff, A_i = w_i |phi(u_i)| / u_i >= |w_i f_i(x)| and f_i = exp(Re_i) sin(Im_i - u_i x) / u_i:
    ``Re_i`` is a sum of k terms of one sign (relative error <= k u), ``Im_i`` of k + 1 terms whose absolute
    values sum to at most ``u_i |c| + k pi/4 + u_i^2 sum b^2 / 4`` (|q_j t_j| <= b_j^2 u_i^2 / 4), so f_i is
    computed to ``A_i u ((k + 1) (|Re_i| + u_i |c| + k pi/4 + u_i^2 sum b^2/4) + 2 u_i |x| + 8)``; the dot
    product over the N nodes adds at most ``N u sum A_i`` (Higham, Accuracy and Stability, eq. 3.5), and the
    last addition and division a few u. Where the exact value is far below round-off (a tail of 1e-25
    returned as a few 1e-15), this term is the whole error; elsewhere it is far below the quadrature's.
    """
    unit = np.finfo(float).eps / 2.0
    per_x = (n_nodes + 8.0) * mass + (k + 1.0) * phase + 2.0 * np.abs(x) * reach
    return unit * per_x / math.pi + 4.0 * unit


def _oscillatory_tail(T: float, x: np.ndarray, a: np.ndarray, b: np.ndarray, c: float):
    """int_T^inf sin(theta(u)) / (u rho(u)) du per x, with QUADPACK QAWF.

    theta(u) = Im ln phi(u) - u x = theta_r(u) - omega u with omega = x - c + sum_j b_j^2/(4 a_j)
    (a_j != 0) the asymptotic phase speed; theta_r and rho vary slowly for u >> 1/|a_j|, so
    sin(theta) = sin(theta_r) cos(omega u) - cos(theta_r) sin(omega u) is a Fourier integral.
    """
    from scipy import integrate

    nz = a != 0
    shift = float(np.sum(b[nz] ** 2 / (4.0 * a[nz])))

    def slow_parts(s: float, T0: float):
        u = T0 + s
        lcf = _log_cf(np.array([u]), a, b, c)[0]
        th_r = lcf.imag + (shift - c) * u  # theta(u) + omega u, slowly varying
        return th_r, math.exp(lcf.real) / u

    def amp_sin(s: float, T0: float) -> float:
        th, amp = slow_parts(s, T0)
        return math.sin(th) * amp

    def amp_shift(s: float, T0: float, omega: float, fn) -> float:
        th, amp = slow_parts(s, T0)
        return fn(th - omega * T0) * amp

    out = np.empty_like(x)
    errs = np.empty_like(x)
    for i, xi in enumerate(x):
        omega = xi - c + shift
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", integrate.IntegrationWarning)
            if abs(omega) < 1e-9:
                v, e = integrate.quad(lambda s: amp_sin(s, T), 0.0, np.inf, limit=500)
            else:
                # sin(th_r(u) - omega T - omega s) = sin(p0) cos(|w| s) -+ cos(p0) sin(|w| s)
                w_ = abs(omega)
                sg = 1.0 if omega > 0 else -1.0
                f1 = lambda s_, o=omega: amp_shift(s_, T, o, math.sin)  # noqa: E731
                f2 = lambda s_, o=omega: amp_shift(s_, T, o, math.cos)  # noqa: E731
                i1, e1 = integrate.quad(f1, 0.0, np.inf, weight="cos", wvar=w_, limlst=100)
                i2, e2 = integrate.quad(f2, 0.0, np.inf, weight="sin", wvar=w_, limlst=100)
                v, e = i1 - sg * i2, e1 + e2
        out[i] = v
        # QUADPACK flagged this eps's tail: its estimate is not reliable
        errs[i] = math.inf if any(issubclass(m.category, integrate.IntegrationWarning) for m in caught) else e
    return out, errs / math.pi

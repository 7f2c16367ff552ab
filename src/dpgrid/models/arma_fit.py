"""Fitting the zero-mean ARMA(p, q) of eq. (59) (:mod:`dpgrid.models.arma`, classdp paper, Sec. V) by exact Gaussian
maximum likelihood: the estimator, its two start values and its retries.

Fitting (:func:`fit_arma`) maximises the exact Gaussian likelihood of eq. (59). Two methods:

* ``exact_ls`` (default): the exact likelihood, concentrated in sigma^2, written as a sum of squares
  (Ansley 1979, Biometrika 66: 59-65): with the innovations e_t and their relative variances v_t
  from the innovations algorithm (statsmodels ``arma_innovations``),
  ``-2 log L_c = n log(S(beta)/n) + const``, ``S = (prod_t v_t)^(1/n) sum_t e_t^2 / v_t``, so the
  MLE is the nonlinear least-squares problem ``min S`` over the scaled residuals
  ``e_t / sqrt(v_t) * (prod v)^(1/2n)``. It is solved by scipy's bounded trust-region
  least-squares solver (``least_squares``, ``trf`` or ``dogbox``, Gauss-Newton curvature) in the
  partial-autocorrelation (PACF) coordinates of statsmodels' stationarity/invertibility
  transformation (Monahan 1984: AR and MA polynomials are stationary/invertible iff every PACF
  coordinate lies in (-1, 1)), box-bounded to ``[-pacf_bound, pacf_bound]``; the coefficients are
  then scaled, ``c_i = c'_i / rho^i`` with ``rho = 1 + root_margin``, so that every root has
  ``|z| >= rho`` (the PACF box alone does not keep roots off the unit circle: without the margin
  2 of 100 household fits ended with an MA root within 1e-6 of it). The residuals come from a compiled
  (numba) innovations algorithm (:func:`dpgrid.models.arma._exact_residuals`, Brockwell & Davis Sec. 5.3; equal to statsmodels'
  ``arma_innovations`` to ~1e-10 relative), which evaluates the 1 + p + q points of scipy's forward-difference
  Jacobian in one batch. Start values: statsmodels' SARIMAX ``start_params`` (conditional least squares) and
  Hannan-Rissanen, one first attempt from each, the higher likelihood kept. The result is the better of two
  local maxima of the over-parameterised likelihood, not the global one: started elsewhere (this
  optimum scaled by 0.8, statsmodels' innovations_mle, zeros), statsmodels' MLE reaches higher maxima inside
  the same feasible set on some households (workflow/papers/classdp/classdp.md).
* ``statespace``: statsmodels ``ARIMA.fit`` (Kalman-filter likelihood, L-BFGS
  with forward-difference gradients in the unbounded transformed coordinates), kept for comparison.

Why the ``statespace`` fits of ARMA(6,5) stop at the iteration limit on household data (measured on
the default data, workflow/papers/classdp/classdp.md): the model is over-parameterised for these series, so the
likelihood has long flat ridges (and several local maxima) along which an AR root and an MA root
nearly cancel (in 97 of 100 fits an AR root lies within 0.05 of an MA root), and the ridges run
towards the unit circle, where the unbounded coordinates u = r / sqrt(1 - r^2) of the PACF r
diverge and the likelihood is flat in u. L-BFGS with forward-difference gradients (step 1e-5)
crawls along them: after 50 iterations it is 0.1-2 log-likelihood units below where it stops when
continued (after 93-128 iterations, on its relative-reduction test, with the gradient still
large). statsmodels 0.15's analytic/complex-step score cannot be used instead:
``MLEModel.score(..., transformed=False)`` multiplies by the Jacobian of the transformation instead
of its transpose, which is wrong for the non-diagonal AR/MA transformation. Gauss-Newton curvature
in the bounded PACF coordinates follows the ridges in a few dozen steps (median 58 evaluations); the
two trust-region methods get stuck on different households' ridges, hence the retry chain of
:func:`fit_arma`.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from dpgrid.models.arma import ArmaFit
from dpgrid.models.arma_attempts import _Attempt, _exact_ls_attempt, _exact_ls_start, _roots_ok, _statespace_attempt

LOG = logging.getLogger(__name__)


__all__ = [
    "FIT_METHODS",
    "LS_OPTIMIZERS",
    "NONCONVERGED_RULES",
    "START_METHODS",
    "fit_arma",
]

#: What to do with a fit whose optimiser did not converge (after one retry with more iterations):
#: ``keep``: use the last iterate (stationarity and invertibility are enforced by the
#: parameterisation, so it is a valid model) and flag it; ``fallback``: refit with the fallback
#: order; ``exclude``: leave the household out of the experiment (listed in the results).
NONCONVERGED_RULES = ("keep", "fallback", "exclude")

#: Fitting methods of :func:`fit_arma` (module docstring).
FIT_METHODS = ("exact_ls", "statespace")
#: Bounded least-squares methods for ``method="exact_ls"``: scipy ``least_squares``'s ``dogbox`` and ``trf``, and the
#: projected Levenberg-Marquardt method of :mod:`dpgrid.models.bounded_lm` (``projected_lm``).
LS_OPTIMIZERS = ("dogbox", "trf", "projected_lm")
#: Start values for ``method="exact_ls"``: statsmodels' SARIMAX ``start_params`` (css), Hannan-Rissanen, statsmodels'
#: ``innovations_mle`` estimate, zeros, and the best first attempt so far scaled towards zero in PACF coordinates
#: (``best_x0.8``, ``best_x0.5``; tried after the others, in the order listed).
START_METHODS = ("css", "hannan_rissanen", "innovations_mle", "zeros", "best_x0.8", "best_x0.5")
#: The starts derived from the best first attempt so far, with their factor.
DERIVED_STARTS = {"best_x0.8": 0.8, "best_x0.5": 0.5}
#: Per-method defaults of ``maxiter`` / ``retry_maxiter`` (statespace: L-BFGS iterations;
#: exact_ls: least-squares function evaluations, Jacobian evaluations not counted).
DEFAULT_MAXITER = {"exact_ls": (300, 1000), "statespace": (50, 200)}


def _checked_arguments(
    nonconverged_rule: str,
    method: str,
    optimizer: str,
    retry_optimizer: str,
    start: str | tuple,
    pacf_bound: float,
    root_margin: float,
    tol: float,
) -> tuple[str, ...]:
    """The start methods of :func:`fit_arma`, after checking its options (ValueError naming the bad one)."""
    if nonconverged_rule not in NONCONVERGED_RULES:
        raise ValueError(f"nonconverged_rule must be one of {NONCONVERGED_RULES}, got {nonconverged_rule!r}")
    if method not in FIT_METHODS:
        raise ValueError(f"method must be one of {FIT_METHODS}, got {method!r}")
    if optimizer not in LS_OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {LS_OPTIMIZERS}, got {optimizer!r}")
    if retry_optimizer not in LS_OPTIMIZERS:
        raise ValueError(f"retry_optimizer must be one of {LS_OPTIMIZERS}, got {retry_optimizer!r}")
    starts = (start,) if isinstance(start, str) else tuple(start)
    if not starts or len(set(starts)) != len(starts) or any(s not in START_METHODS for s in starts):
        raise ValueError(f"start must be one of {START_METHODS} or a list of distinct ones, got {start!r}")
    if starts[0] in DERIVED_STARTS:
        raise ValueError(f"start: {starts[0]!r} scales the best attempt so far, so it cannot come first, got {start!r}")
    if not 0.0 < pacf_bound <= 0.99999:  # the central-difference gradient check steps 6e-6 beyond the bound
        raise ValueError(f"pacf_bound must lie in (0, 0.99999], got {pacf_bound!r}")
    if not 0.0 <= root_margin < 1.0:
        raise ValueError(f"root_margin must lie in [0, 1), got {root_margin!r}")
    if not tol > 0.0:
        raise ValueError(f"tol must be positive, got {tol!r}")
    return starts


def _best_of_starts(attempt, y: np.ndarray, p: int, q: int, starts: tuple[str, ...], maxiter: int, pacf_bound: float):
    """exact_ls: one first attempt per distinct start point, the highest likelihood kept (and retried by the caller
    if it did not converge); a start method whose estimate is unusable falls back to css: the same point is not
    run twice. Returns (the kept attempt, the note on the starts, every start's first-attempt likelihood)."""
    firsts: dict = {}
    points: dict = {}
    for s in starts:
        notes = []
        if s in DERIVED_STARTS:
            best = max(firsts.values(), key=lambda t: t.llf)
            points[s] = np.clip(DERIVED_STARTS[s] * best.state, -pacf_bound, pacf_bound)
        else:
            points[s], notes = _exact_ls_start(y, p, q, s, pacf_bound)
        same = [u for u in firsts if points[u].tobytes() == points[s].tobytes()]
        firsts[s] = firsts[same[0]] if same else attempt(p, q, maxiter, start=s, state=points[s], notes=notes)
    start_used = max(starts, key=lambda s: firsts[s].llf)
    a = firsts[start_used]
    start_llfs = {s: firsts[s].llf for s in starts}
    others = ", ".join(f"{s} {start_llfs[s] - a.llf:+.4f}" for s in starts if s != start_used)
    start_note = f"; start {start_used} kept (log-likelihood of the other starts' first attempts: {others})"
    distinct = list({id(t): t for t in firsts.values()}.values())
    a.iterations = sum(t.iterations for t in distinct)
    a.messages = sorted(set().union(*(t.messages for t in distinct)))
    return a, start_note, start_llfs


def _retried(
    attempt, a: _Attempt, p: int, q: int, method: str, retry_maxiter: int, optimizer: str, retry_optimizer: str
):
    """The retries of a first attempt ``a`` that did not converge (:func:`fit_arma`'s rule for failures): the
    attempt with the highest likelihood (statespace: the first converged retry), with the summed iterations."""
    if method == "statespace":  # statsmodels restarts from its start values
        tries = [attempt(p, q, retry_maxiter)]
        done = [t for t in tries if t.converged]
        best = done[0] if done else max([a, *tries], key=lambda t: t.llf)
    else:  # continue from the best point: least squares never lowers the likelihood it starts from
        tries = [attempt(p, q, retry_maxiter, state=a.state)]  # the first method, a fresh trust region
        if not tries[-1].converged and retry_optimizer != optimizer:  # then the other method
            tries.append(attempt(p, q, retry_maxiter, opt=retry_optimizer, state=tries[-1].state))
        best = max([a, *tries], key=lambda t: (t.llf, t.converged))
    total = a.iterations + sum(t.iterations for t in tries) if method == "exact_ls" else tries[-1].iterations
    msgs = sorted(set(a.messages).union(*(t.messages for t in tries)))
    if not best.converged:
        best.reason += f" ({len(tries)} retries also stopped at their limits)"
    best.iterations, best.messages = total, msgs
    return best


def _fallback_fit(
    attempt,
    a: _Attempt,
    order: tuple[int, int],
    fallback_order: tuple,
    budget: int,
    bad_roots: bool,
    method: str,
    name: str,
    start: str,
) -> ArmaFit:
    """The fit of ``fallback_order`` that replaces a model of ``order`` with bad roots (or not converged, under the
    rule ``fallback``); ``excluded`` when its own roots fail too. ``start``: the start method of its attempt."""
    p, q = order
    fp, fq = int(fallback_order[0]), int(fallback_order[1])
    fa = attempt(fp, fq, budget)
    st2, in2 = _roots_ok(np.r_[1.0, -fa.ar]), _roots_ok(np.r_[1.0, fa.ma])
    why = "bad roots" if bad_roots else "not converged"
    fb = ArmaFit(
        fa.ar,
        fa.ma,
        fa.sigma2,
        (fp, fq),
        fa.converged,
        st2,
        in2,
        "fallback_order",
        fa.llf,
        sorted(set(a.messages + fa.messages)),
        method,
        fa.iterations,
        fa.grad_max,
        f"fallback ARMA({fp},{fq}) after ARMA({p},{q}) {why} ({a.reason}); fallback: {fa.reason}",
        start=start,
    )
    if not (st2 and in2 and fa.sigma2 > 0):
        fb.status = "excluded"
    LOG.info("%s: ARMA(%d,%d) %s -> fallback ARMA(%d,%d) status %s", name, p, q, why, fp, fq, fb.status)
    return fb


def fit_arma(
    y: np.ndarray,
    order: tuple = (6, 5),
    *,
    maxiter: int | None = None,
    retry_maxiter: int | None = None,
    nonconverged_rule: str = "keep",
    fallback_order: tuple = (2, 1),
    name: str = "series",
    method: str = "exact_ls",
    optimizer: str = "trf",
    retry_optimizer: str = "dogbox",
    start: str | tuple = ("css", "hannan_rissanen"),
    pacf_bound: float = 0.999,
    root_margin: float = 1e-4,
    tol: float = 1e-10,
) -> ArmaFit:
    """Fit a zero-mean ARMA(p, q) (eq. 59) by exact Gaussian maximum likelihood.

    ``method`` (:data:`FIT_METHODS`, module docstring): ``exact_ls`` (default) solves the exact
    concentrated likelihood as a bounded nonlinear least-squares problem in PACF coordinates with
    scipy ``least_squares`` (``optimizer``: :data:`LS_OPTIMIZERS`; start values ``start``:
    :data:`START_METHODS`; PACF box ``[-pacf_bound, pacf_bound]``; every AR and MA root at least
    ``1 + root_margin`` in modulus; ``tol`` = scipy's ftol, xtol and
    gtol; ``maxiter`` = function evaluations, Jacobian evaluations not counted); converged = scipy
    stopped on a tolerance test, not on the evaluation limit. ``statespace`` is
    statsmodels' ``ARIMA.fit`` (``maxiter`` = L-BFGS iterations). ``maxiter``/``retry_maxiter``
    default per method (:data:`DEFAULT_MAXITER`).

    Rule for failures (documented in workflow/papers/classdp/classdp.md): stationarity and invertibility are enforced
    by the parameterisation and re-checked on the roots. If the optimiser does not converge in
    ``maxiter`` and ``retry_maxiter > maxiter``, it is retried with a budget of ``retry_maxiter``
    per retry: statespace restarts (the first converged retry is kept, or the attempt with the highest
    likelihood if none converged); exact_ls restarts ``optimizer`` from its last iterate (a fresh trust
    region) and, if that does not converge either, runs ``retry_optimizer`` from where that stopped (the two
    trust-region methods get stuck on ridges of different households); each retry starts from the best
    point so far, and the attempt with the highest likelihood is kept. Two starts: ``start`` may list several start
    methods (default both, :data:`START_METHODS`); exact_ls makes one first attempt from each and keeps the
    one with the highest exact likelihood (the retries continue from it; ``ArmaFit.start_llfs`` and the
    reason give every start's first-attempt likelihood). The likelihood of ARMA(6,5) on household data has
    several local maxima: on household R0004 of the quick configuration the css start stops at one 0.70 below
    the Hannan-Rissanen start's. If it still does not converge,
    ``nonconverged_rule`` decides (:data:`NONCONVERGED_RULES`). A model whose roots fail the check
    is never used: it is refitted with ``fallback_order`` or excluded. ``ArmaFit.reason`` says in
    words why the fit stopped (optimiser message, gradient, root moduli, closest AR/MA root pair).
    """
    starts = _checked_arguments(
        nonconverged_rule, method, optimizer, retry_optimizer, start, pacf_bound, root_margin, tol
    )
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or not np.all(np.isfinite(y)):
        raise ValueError(f"{name}: ARMA training series must be a finite 1-D array")
    p, q = int(order[0]), int(order[1])
    if y.size < 10 * (p + q + 1):
        raise ValueError(f"{name}: {y.size} samples are too few for ARMA({p},{q})")
    d_max, d_retry = DEFAULT_MAXITER[method]
    maxiter = d_max if maxiter is None else int(maxiter)
    retry_maxiter = d_retry if retry_maxiter is None else int(retry_maxiter)

    def attempt(pp: int, qq: int, budget: int, opt: str = optimizer, state=None, start=starts[0], notes=()) -> _Attempt:
        if method == "statespace":
            return _statespace_attempt(y, pp, qq, budget)
        return _exact_ls_attempt(
            y,
            pp,
            qq,
            budget,
            optimizer=opt,
            pacf_bound=pacf_bound,
            root_margin=root_margin,
            tol=tol,
            start=start,
            r0=state,
            start_notes=notes,
        )

    if method == "exact_ls" and len(starts) > 1 and p + q > 0:
        a, start_note, start_llfs = _best_of_starts(attempt, y, p, q, starts, maxiter, pacf_bound)
    else:
        a, start_note, start_llfs = attempt(p, q, maxiter), "", {}
    first_start = "" if method == "statespace" else starts[0]  # statsmodels' state-space fit chooses its own start
    start_used = max(start_llfs, key=start_llfs.get) if start_llfs else first_start
    status = "ok"
    if not a.converged and retry_maxiter > maxiter:
        a = _retried(attempt, a, p, q, method, retry_maxiter, optimizer, retry_optimizer)
        status = "retried" if a.converged else "nonconverged"
    stat, inv = _roots_ok(np.r_[1.0, -a.ar]), _roots_ok(np.r_[1.0, a.ma])
    fit = ArmaFit(
        a.ar,
        a.ma,
        a.sigma2,
        (p, q),
        a.converged,
        stat,
        inv,
        status,
        a.llf,
        a.messages,
        method,
        a.iterations,
        a.grad_max,
        a.reason + start_note,
        start_llfs,
        start_used,
    )
    bad_roots = not (stat and inv) or not (a.sigma2 > 0 and math.isfinite(a.sigma2))
    if (not a.converged and nonconverged_rule == "keep") and not bad_roots:
        fit.status = "nonconverged_kept"
        return fit
    if a.converged and not bad_roots:
        return fit
    if nonconverged_rule == "exclude" and not bad_roots:
        fit.status = "excluded"
        return fit
    # fallback order (bad roots, or rule == fallback)
    budget = max(maxiter, retry_maxiter)
    return _fallback_fit(attempt, a, (p, q), fallback_order, budget, bad_roots, method, name, first_start)

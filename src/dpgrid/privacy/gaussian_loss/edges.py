"""The delta of a release as the supremum over the directed edges of its neighbourhood graph (classdp Definition 1),
PDP and hockey-stick, with the per-release cache of privacy losses and exact tails (see
:mod:`dpgrid.privacy.gaussian_loss`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpgrid.privacy.gaussian_loss.exact import DeltaAccuracyError, _finish, delta_exact_with_error
from dpgrid.privacy.gaussian_loss.loss import (
    GaussianPrivacyLoss,
    chernoff_bound_grid,
    delta_monte_carlo,
    privacy_loss,
    privacy_loss_extended,
)


class EdgeTailCache:
    """Memo of one release's privacy losses and exact tails, shared by the sup-over-edges evaluators.

    The release is N(means[i], covs[i]) for label i. :meth:`loss` is :func:`privacy_loss` of the
    directed edge (i, j) (Proposition 1, eqs. 28-31), computed once; :meth:`tail` is
    :func:`delta_exact_with_error` of that loss at an eps array (default settings), with the tail of
    :func:`privacy_loss_extended` at the eps where the float64 loss misses ``tol``, computed once per
    (edge, eps array, tol). The evaluators without a cache build one, so the numbers are bit for bit those of an
    uncached call (the cache only avoids recomputation).

    :meth:`upper` turns the cached tails into upper bounds on the *true* ``Pr(L_ij > eps)`` at any eps: the
    tail is non-increasing in eps, so ``d(eps') + err(eps')`` of any cached eps' <= eps bounds it
    (``err`` is the evaluator's error estimate). :func:`delta_sup_over_edges` and
    :func:`hockey_stick_sup_over_edges` use them to skip edges that provably cannot change their sup.
    """

    def __init__(self, means: np.ndarray, covs: np.ndarray):
        self.means = np.array(means, dtype=float)
        self.covs = np.array(covs, dtype=float)
        self._loss: dict[tuple[int, int], GaussianPrivacyLoss] = {}
        self._tail: dict[tuple, tuple[np.ndarray, np.ndarray, str]] = {}
        self._known: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray]]] = {}
        self._extended: dict[tuple[int, int], GaussianPrivacyLoss] = {}

    def check(self, means, covs, caller: str) -> EdgeTailCache:
        """``self`` if it belongs to the release (means, covs); ValueError otherwise."""
        if not (
            np.array_equal(self.means, np.asarray(means, float)) and np.array_equal(self.covs, np.asarray(covs, float))
        ):
            raise ValueError(f"{caller}: the EdgeTailCache was built for a different release (means / covs differ)")
        return self

    def loss(self, i: int, j: int) -> GaussianPrivacyLoss:
        key = (int(i), int(j))
        if key not in self._loss:
            self._loss[key] = privacy_loss(self.means[key[0]], self.covs[key[0]], self.means[key[1]], self.covs[key[1]])
        return self._loss[key]

    def extended_loss(self, i: int, j: int) -> GaussianPrivacyLoss:
        """:func:`privacy_loss_extended` of the directed edge (i, j), computed once."""
        key = (int(i), int(j))
        if key not in self._extended:
            self._extended[key] = privacy_loss_extended(
                self.means[key[0]], self.covs[key[0]], self.means[key[1]], self.covs[key[1]]
            )
        return self._extended[key]

    def tail(self, i: int, j: int, eps: np.ndarray, tol: float):
        """``delta_exact_with_error(loss(i, j), eps, tol=tol)`` (not strict): (delta, error, method).

        At the eps where that error estimate exceeds ``tol``, the tail of :meth:`extended_loss` replaces it when its
        estimate is smaller (the rounding of the float64 loss dominates the estimate of ill-conditioned pairs). Per
        eps, so the value at an eps does not depend on the other eps of the call.
        """
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        key = (int(i), int(j), eps.tobytes(), float(tol))
        if key not in self._tail:
            d, err, how = delta_exact_with_error(self.loss(i, j), eps, tol=tol)
            miss = ~(err <= tol)
            if np.any(miss):
                d_e, err_e, how_e = delta_exact_with_error(self.extended_loss(i, j), eps[miss], tol=tol)
                better = err_e < err[miss]
                idx = np.flatnonzero(miss)[better]
                d, err = np.array(d, dtype=float), np.array(err, dtype=float)
                d[idx], err[idx] = d_e[better], err_e[better]
                how = "fallback" if "fallback" in (how, how_e) and np.any(better) else how
            self._tail[key] = (d, err, how)
            self._known.setdefault((int(i), int(j)), []).append((eps.copy(), np.asarray(d) + np.asarray(err)))
        return self._tail[key]

    def strict_tail(self, i: int, j: int, eps: np.ndarray, tol: float):
        """(delta, error) as :func:`delta_exact` with ``strict=True`` computes and raises them (same values)."""
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        d, err, how = self.tail(i, j, eps, tol)
        if how != "constant":  # delta_exact returns a constant L's values and estimates without raising
            _finish(d, err, how, self.loss(i, j), eps, tol, True)  # raises DeltaAccuracyError as delta_exact would
        return d, err

    def upper(self, i: int, j: int, eps: np.ndarray) -> np.ndarray:
        """Upper bounds on the true ``Pr(L_ij > eps)`` from the cached tails of edge (i, j) (1 where none applies)."""
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        known = self._known.get((int(i), int(j)))
        if not known:
            return np.ones_like(eps)
        e_c = np.concatenate([k[0] for k in known])
        u_c = np.concatenate([k[1] for k in known])
        with np.errstate(invalid="ignore"):
            vals = np.where(e_c[None, :] <= eps[:, None], u_c[None, :], np.inf)
        out = np.min(vals, axis=1)
        return np.minimum(1.0, np.where(np.isnan(out), 1.0, out))


def _hockey_stick_weights(eps: np.ndarray) -> np.ndarray:
    """Matrix W with ``W @ u >= delta_HS(eps)`` for every u with ``u_i >= Pr(L > eps_i)`` (see
    :func:`hockey_stick_upper_bound`); rows and columns in the order of ``eps``."""
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    order = np.argsort(eps, kind="stable")
    es = eps[order]
    nxt = np.append(es[1:], np.inf)
    m, i = np.meshgrid(np.arange(es.size), np.arange(es.size), indexing="ij")
    w_sorted = np.where(i >= m, np.exp(es[m] - es[i]) - np.exp(es[m] - nxt[i]), 0.0)
    w = np.zeros_like(w_sorted)
    w[np.ix_(order, order)] = w_sorted
    return w


def hockey_stick_upper_bound(eps, pdp_upper) -> np.ndarray:
    """Upper bound on the hockey-stick delta of a pair at each ``eps`` >= 0 from upper bounds ``pdp_upper`` on its
    PDP delta ``Pr_X(L > eps)`` at the same eps (classdp Definition 1; Theorem 1's DP notion).

    ``delta_HS(eps) = E_X[(1 - e^{eps - L})_+] = int_eps^inf e^{eps - t} Pr_X(L > t) dt`` (Fubini on
    ``(1 - e^{eps - L})_+ = int_eps^inf e^{eps - t} 1{L > t} dt``), and ``Pr_X(L > t)`` is non-increasing in t, so
    on the sorted grid ``delta_HS(e_m) <= sum_{i >= m} u_i (e^{e_m - e_i} - e^{e_m - e_{i+1}})`` (e_{n+1} = inf): an
    upper Riemann sum. Also ``delta_HS <= Pr_X(L > eps)``; the smaller of the two is returned.
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    u = np.minimum(1.0, np.asarray(pdp_upper, dtype=float))
    if np.any(eps < 0):
        raise ValueError(f"hockey_stick_upper_bound: eps must be >= 0, got {eps}")
    return np.minimum(_hockey_stick_weights(eps) @ u, u)


@dataclass
class EdgeDelta:
    """delta(eps) = sup over directed edges (i, j) of Pr(L_ij > eps) under i.

    ``error`` (exact method) bounds ``|delta - exact sup|`` per eps by the largest error estimate of the
    edges evaluated (a pruned edge's Chernoff bound is below the computed sup, so it adds nothing); NaN for
    ``method='monte_carlo'``. ``within_tol`` says whether every estimate met ``tol``: a caller that runs
    with ``on_inaccurate='flag'`` should record ``error`` (or at least ``within_tol``) next to ``delta``.
    """

    eps: np.ndarray
    delta: np.ndarray
    worst_edge: np.ndarray  # (n_eps, 2) edge attaining the sup at each eps
    n_edges: int
    n_exact: int  # edges not excluded by the Chernoff bound (exact delta evaluated or bounded by cached exact tails)
    error: np.ndarray | None = None  # (n_eps,) error bound of delta (see above)
    tol: float = math.nan  # the requested tolerance
    n_fallback: int = 0  # edges evaluated by delta_exact's fallback method
    n_bounded: int = 0  # of the n_exact edges, those skipped because cached exact tails bound them below the sup

    @property
    def within_tol(self) -> bool:
        return self.error is not None and bool(np.all(self.error <= self.tol))


def delta_sup_over_edges(
    means: np.ndarray,
    covs: np.ndarray,
    edges: np.ndarray,
    eps,
    *,
    method: str = "exact",
    prune: bool = True,
    tol: float = 1e-8,
    mc_samples: int = 0,
    rng: np.random.Generator | None = None,
    on_inaccurate: str = "raise",
    cache: EdgeTailCache | None = None,
) -> EdgeDelta:
    """delta(eps) of a mechanism releasing N(means[i], covs[i]) for label i: sup over ``edges``.

    With ``method='exact'`` and ``prune``, edges are visited in decreasing order of the surrogate
    metric (eq. 41); an edge whose Lemma-1 Chernoff bound (grid-minimised, a valid upper bound)
    does not exceed the running supremum at any eps cannot change the result and is skipped
    (``n_exact`` counts the others). ``method='monte_carlo'`` uses ``mc_samples`` draws per edge from ``rng``.

    ``cache`` (an :class:`EdgeTailCache` of this release, e.g. shared with :func:`hockey_stick_sup_over_edges`
    and an audit at other eps) supplies the privacy losses and exact tails already computed. With ``prune``
    and ``on_inaccurate='raise'``, an edge whose cached tails bound its true delta by ``u`` with
    ``u + 2 tol <= `` the running sup at every eps is not re-evaluated (``n_bounded``): its exact value, within
    ``tol`` of the truth (else it would raise), could not exceed the running sup, so delta and worst_edge are
    those of the evaluation of every edge. Without a cache the edges are evaluated as before.

    Each exact edge comes from :meth:`EdgeTailCache.tail`. When an edge's error estimate exceeds
    ``tol`` (work cap reached), ``on_inaccurate='raise'`` (default) raises :class:`DeltaAccuracyError`
    naming the edge; ``'flag'`` keeps the values and reports the error in ``EdgeDelta.error`` /
    ``within_tol``.
    """
    if on_inaccurate not in ("raise", "flag"):
        raise ValueError(f"delta_sup_over_edges: on_inaccurate must be 'raise' or 'flag', got {on_inaccurate!r}")
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=float))
    edges = np.asarray(edges, dtype=int).reshape(-1, 2)
    if edges.size == 0:
        raise ValueError("delta_sup_over_edges: the neighbourhood graph has no edges")
    cache = EdgeTailCache(means, covs) if cache is None else cache.check(means, covs, "delta_sup_over_edges")
    losses = [cache.loss(i, j) for i, j in edges]
    order = np.argsort([-loss.surrogate for loss in losses], kind="stable")
    best = np.full(eps_arr.size, -1.0)
    arg = np.zeros((eps_arr.size, 2), dtype=int)
    error = np.zeros(eps_arr.size) if method == "exact" else np.full(eps_arr.size, np.nan)
    n_exact = n_fallback = n_bounded = 0
    use_bounds = method == "exact" and prune and on_inaccurate == "raise"
    for e in order:
        loss = losses[e]
        i, j = edges[e]
        if method == "exact":
            if prune and n_exact > 0 and np.all(chernoff_bound_grid(loss, eps_arr) <= best):
                continue
            if use_bounds and n_exact > 0 and np.all(cache.upper(i, j, eps_arr) + 2.0 * tol <= best):
                n_exact += 1
                n_bounded += 1
                continue
            d, d_err, how = cache.tail(i, j, eps_arr, tol)
            if on_inaccurate == "raise" and not np.all(d_err <= tol):
                raise DeltaAccuracyError(
                    f"delta_sup_over_edges: edge ({i}, {j}): error estimate {np.max(d_err):.3g} > tol {tol:g} at eps "
                    f"{eps_arr[~(d_err <= tol)].tolist()} (k = {loss.k}, gamma in [{loss.gamma.min():.6g}, "
                    f"{loss.gamma.max():.6g}]); pass on_inaccurate='flag' to keep the values and record EdgeDelta.error",
                    d,
                    d_err,
                    tol,
                )
            error = np.maximum(error, d_err)
            n_fallback += how == "fallback"
        elif method == "monte_carlo":
            if rng is None or mc_samples <= 0:
                raise ValueError("monte_carlo needs rng and mc_samples > 0")
            d, _ = delta_monte_carlo(loss, eps_arr, mc_samples, rng)
        else:
            raise ValueError(f"unknown method {method!r}; use 'exact' or 'monte_carlo'")
        n_exact += 1
        upd = d > best
        best = np.where(upd, d, best)
        arg[upd] = edges[e]
    return EdgeDelta(eps_arr, best, arg, len(edges), n_exact, error, float(tol), n_fallback, n_bounded)


# --------------------------------------------------------------------------------------------
# exact (hockey-stick) delta of the same release, beside the PDP delta


def hockey_stick_pair(mu_x, cov_x, mu_xp, cov_xp, eps, *, tol: float = 1e-8) -> tuple[np.ndarray, np.ndarray]:
    """(hockey-stick delta, PDP delta) of releasing N(mu_x, cov_x) under X vs N(mu_xp, cov_xp) under X', per eps >= 0.

    classdp calibrates for *probabilistic* DP, ``Pr_X(L_XX' > eps) <= delta`` (Definition 1 after eq. 7);
    Theorem 1 says PDP implies (eps, delta)-DP between neighbouring labels. The tight delta of that DP
    notion for the same release is the hockey-stick divergence

        delta_HS(eps) = E_X[(1 - e^{eps - L_XX'})_+] = Pr_X(L_XX' > eps) - e^eps Pr_X'(L_XX' > eps),

    and under X' the same log-likelihood ratio is ``L_XX' = -L_X'X`` with L_X'X distributed under X'
    as Proposition 1's generalised chi-square of the reversed pair, so
    ``Pr_X'(L_XX' > eps) = 1 - Pr_X'(L_X'X > -eps)``. Both tails come from :func:`delta_exact` of the pair
    (absolute error ``tol`` each, so delta_HS is within ``(1 + e^eps) tol``), as :meth:`EdgeTailCache.strict_tail`
    computes them; delta_HS <= delta_PDP.
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    if np.any(eps < 0):
        raise ValueError(f"hockey_stick_pair: eps must be >= 0, got {eps}")
    pair = EdgeTailCache(np.stack([mu_x, mu_xp]), np.stack([cov_x, cov_xp]))
    pdp = pair.strict_tail(0, 1, eps, tol)[0]  # Pr_X(L_XX' > eps)
    under_xp = 1.0 - pair.strict_tail(1, 0, -eps, tol)[0]  # Pr_X'(L_XX' > eps)
    hs = np.clip(pdp - np.exp(eps) * under_xp, 0.0, 1.0)
    return hs, pdp


@dataclass
class HockeyStickSup:
    """sup over directed edges of the hockey-stick and of the PDP delta, with the worst edges."""

    eps: np.ndarray
    delta_hs: np.ndarray
    delta_pdp: np.ndarray
    worst_edge_hs: np.ndarray  # (n_eps, 2)
    worst_edge_pdp: np.ndarray  # (n_eps, 2)
    n_edges: int
    n_exact: int


def hockey_stick_sup_over_edges(
    means, covs, edges, eps, *, tol: float = 1e-8, cache: EdgeTailCache | None = None
) -> HockeyStickSup:
    """Both deltas (:func:`hockey_stick_pair`) of the release N(means[i], covs[i]) over all ``edges``.

    An edge whose Lemma-1 Chernoff bound (an upper bound on its PDP delta, hence on its hockey stick)
    is below both running suprema at every eps cannot change either and is skipped. For the others the
    PDP delta is evaluated (or taken from ``cache``, an :class:`EdgeTailCache` of this release shared with
    :func:`delta_sup_over_edges`: the same numbers); the reverse tail that the hockey stick needs is evaluated
    only where :func:`hockey_stick_upper_bound` (from the PDP values and their error estimates, plus the
    ``(1 + e^eps) tol`` the two computed tails may err by, plus ``tol``) exceeds the running hockey-stick sup at
    some eps: elsewhere the computed hockey stick of :func:`hockey_stick_pair` could not exceed it, so the
    suprema and worst edges are those of evaluating every pair with :func:`hockey_stick_pair`.
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    edges = np.asarray(edges, dtype=int).reshape(-1, 2)
    if edges.size == 0:
        raise ValueError("hockey_stick_sup_over_edges: the neighbourhood graph has no edges")
    if np.any(eps < 0):
        raise ValueError(f"hockey_stick_pair: eps must be >= 0, got {eps}")
    cache = EdgeTailCache(means, covs) if cache is None else cache.check(means, covs, "hockey_stick_sup_over_edges")
    losses = [cache.loss(i, j) for i, j in edges]
    order = np.argsort([-loss.surrogate for loss in losses], kind="stable")
    best_hs = np.full(eps.size, -1.0)
    best_pdp = np.full(eps.size, -1.0)
    arg_hs = np.zeros((eps.size, 2), dtype=int)
    arg_pdp = np.zeros((eps.size, 2), dtype=int)
    weights = _hockey_stick_weights(eps)
    slack = (1.0 + np.exp(eps)) * tol + tol
    n_exact = 0
    for e in order:
        if n_exact and np.all(chernoff_bound_grid(losses[e], eps) <= np.minimum(best_hs, best_pdp)):
            continue
        i, j = edges[e]
        pdp, pdp_err = cache.strict_tail(i, j, eps, tol)  # = delta_exact(L_ij, eps) of hockey_stick_pair
        n_exact += 1
        u = np.minimum(1.0, pdp + pdp_err)
        if not np.all(np.minimum(weights @ u, u) + slack <= best_hs):
            # as hockey_stick_pair: Pr_X'(L_XX' > eps) = 1 - Pr_X'(L_X'X > -eps)
            under_xp = 1.0 - cache.strict_tail(j, i, -eps, tol)[0]
            hs = np.clip(pdp - np.exp(eps) * under_xp, 0.0, 1.0)
            up = hs > best_hs
            best_hs, arg_hs[up] = np.where(up, hs, best_hs), edges[e]
        up = pdp > best_pdp
        best_pdp, arg_pdp[up] = np.where(up, pdp, best_pdp), edges[e]
    return HockeyStickSup(eps, best_hs, best_pdp, arg_hs, arg_pdp, len(edges), n_exact)

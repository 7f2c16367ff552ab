"""Black-box privacy audit: a lower confidence bound on delta(eps) from samples of a mechanism.

A mechanism M is audited as a sampler: ``sampler(rng, n)`` returns ``n`` releases of M on one fixed input
(the same release code the pipeline runs), nothing else of the mechanism is read. For two neighbouring
inputs D, D' and any event S,

    delta(eps) >= Pr[M(D) in S] - e^eps Pr[M(D') in S]            (hockey-stick divergence, Dwork & Roth Def. 2.4)

so a lower confidence bound on the right-hand side is a lower confidence bound on the delta of every
(eps, delta)-DP claim (and on the PDP delta Pr[L > eps], which is never smaller). The event S is chosen by
a threshold attack on half of the samples and its probabilities are bounded on the other half with one-sided
Clopper-Pearson bounds, as in DP-Sniper (Bichsel et al., IEEE S&P 2021: a learned classifier, a threshold on
its score, Clopper-Pearson on fresh samples) and StatDP (Ding et al., CCS 2018: an event chosen on one sample,
a test on another):

    delta_lb = CP_lower(k_D, n; alpha / 2) - e^eps CP_upper(k_D', n; alpha / 2)

which is <= the true Pr[M(D) in S] - e^eps Pr[M(D') in S] <= delta(eps) with probability >= 1 - alpha
(``level`` = 1 - alpha). The attack scores are the auditor's own statistics fitted on the first half
(:func:`dpgrid.privacy.audit_statistics.fit_statistics`): a Fisher discriminant (the optimal direction of a Gaussian mean shift), a Gaussian
log-likelihood ratio with both means and covariances fitted (optimal for Gaussian releases with
label-dependent covariances, classdp), a naive-Bayes log-likelihood ratio for categorical releases (labels), or
statistics the caller names (e.g. the support test of the Wishart release). None is read from the code under
audit: a sampler with too little noise moves these statistics, whereas a privacy loss evaluated with the
mechanism's *claimed* densities does not see it.

Neighbours: :func:`search_and_audit` takes the candidate neighbouring pairs (the caller's brute force over the
paper's neighbour relation, or a random / hill-climbing search, :func:`hill_climb`), ranks them on pilot samples
(same attack, point estimate on a pilot hold-out) and runs the final test on fresh samples of the best pair only,
so the stated level holds for the row whatever the number of candidates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dpgrid.privacy.audit_statistics import Statistic, fisher_direction, fit_statistics, flat
from dpgrid.privacy.clopper_pearson import cp_lower, cp_upper

#: Verdicts of an audit row.
HOLDS = "holds"
VIOLATED = "violated"
VIOLATED_PAPER = "violated (paper)"

Sampler = Callable[[np.random.Generator, int], np.ndarray]


def hockey_stick_lower_bound(k_a, n_a: int, k_b, n_b: int, eps: float, alpha: float):
    """Lower confidence bound (level 1 - alpha) on Pr_a(S) - e^eps Pr_b(S) from k_a of n_a and k_b of n_b in S."""
    return cp_lower(k_a, n_a, alpha / 2) - math.exp(eps) * cp_upper(k_b, n_b, alpha / 2)


@dataclass(frozen=True)
class ThresholdAttack:
    """The event S = {orient * statistic(x) > threshold} (orient = +1 or -1), tested with D = ``first`` of the pair
    (``first`` = "a": Pr_a(S) - e^eps Pr_b(S); "b": the reverse)."""

    statistic: str
    orient: float
    threshold: float
    first: str

    def indicator(self, stats: dict[str, Statistic], x: np.ndarray) -> np.ndarray:
        return self.orient * stats[self.statistic](x) > self.threshold


def choose_attack(
    stats: dict[str, Statistic], sel_a: np.ndarray, sel_b: np.ndarray, eps: float, alpha: float, quantiles: int = 400
) -> tuple[ThresholdAttack, float]:
    """The threshold attack with the largest Clopper-Pearson lower bound on the selection samples; (attack, bound).

    Candidate thresholds are ``quantiles`` quantiles of the pooled scores (finer in both tails), both signs of every
    statistic, both orders of the pair."""
    best, best_lb = None, -np.inf
    qs = np.unique(
        np.concatenate([np.linspace(0, 1, quantiles), np.geomspace(1e-5, 0.05, 40), 1 - np.geomspace(1e-5, 0.05, 40)])
    )
    for name, fn in stats.items():
        sa, sb = np.asarray(fn(sel_a), dtype=float), np.asarray(fn(sel_b), dtype=float)
        for orient in (1.0, -1.0):
            xa, xb = np.sort(orient * sa), np.sort(orient * sb)
            pooled = np.concatenate([xa, xb])
            pooled = pooled[np.isfinite(pooled)]
            if pooled.size == 0:
                continue
            th = np.unique(np.quantile(pooled, qs))
            ka = xa.size - np.searchsorted(xa, th, side="right")
            kb = xb.size - np.searchsorted(xb, th, side="right")
            for first, k1, n1, k2, n2 in (("a", ka, xa.size, kb, xb.size), ("b", kb, xb.size, ka, xa.size)):
                lb = hockey_stick_lower_bound(k1, n1, k2, n2, eps, alpha)
                i = int(np.argmax(lb))
                if lb[i] > best_lb:
                    best, best_lb = ThresholdAttack(name, orient, float(th[i]), first), float(lb[i])
    if best is None:
        raise ValueError("choose_attack: no statistic gave a finite score")
    return best, best_lb


@dataclass(frozen=True)
class PairAudit:
    """One audited pair: the attack chosen on the first half, its counts and the bound on the second half."""

    delta_lower_bound: float
    attack: ThresholdAttack
    count_first: int
    count_second: int
    samples: int  # draws per neighbour (both halves)

    @property
    def attack_name(self) -> str:
        return f"{self.attack.statistic} {'>' if self.attack.orient > 0 else '<'} threshold, D = {self.attack.first}"


def gaussian_shift_delta(eps: float, mu: float) -> float:
    """Tight delta(eps) of N(0, 1) vs N(mu, 1) (Balle & Wang 2018, Thm 8), evaluated in logs for large eps."""
    from scipy import stats

    if mu <= 0:
        return 0.0
    a = stats.norm.cdf(mu / 2 - eps / mu)
    b = math.exp(eps + stats.norm.logcdf(-mu / 2 - eps / mu))
    return float(max(0.0, a - b))


def gaussian_projection_bound(a: np.ndarray, b: np.ndarray, w: np.ndarray, eps: float, alpha: float) -> float:
    """Lower confidence bound (level 1 - alpha) on delta(eps) of a Gaussian release with a common covariance,
    from the projections of the held-out samples on a direction ``w`` chosen on other samples.

    The projections are N(m_a, s^2) and N(m_b, s^2) (post-processing: their delta is at most the release's); with
    probability 1 - alpha/2 the pooled variance's chi-square bound gives s <= s_U, with probability 1 - alpha/2
    |mean_a - mean_b - (m_a - m_b)| <= z s_U sqrt(1/n_a + 1/n_b); so mu = |m_a - m_b| / s >= mu_L and
    delta >= :func:`gaussian_shift_delta` (eps, mu_L). Valid when the release is Gaussian (the claimed law)."""
    from scipy import stats

    pa, pb = flat(a) @ w, flat(b) @ w
    na, nb = pa.size, pb.size
    df = na + nb - 2
    ss = ((pa - pa.mean()) ** 2).sum() + ((pb - pb.mean()) ** 2).sum()
    if ss <= 0:
        return 1.0 if pa.mean() != pb.mean() else 0.0
    s_up = math.sqrt(ss / stats.chi2.ppf(alpha / 2, df))
    diff = abs(pa.mean() - pb.mean()) - stats.norm.isf(alpha / 4) * s_up * math.sqrt(1 / na + 1 / nb)
    return gaussian_shift_delta(eps, max(0.0, diff) / s_up)


def audit_samples(
    a: np.ndarray,
    b: np.ndarray,
    eps: float,
    level: float,
    fitted: Sequence[str] = ("fisher", "gaussian_llr"),
    fixed: dict[str, Statistic] | None = None,
    gaussian: bool = False,
    shift: np.ndarray | None = None,
) -> PairAudit:
    """Audit two equal-size samples of M(D) (``a``) and M(D') (``b``): statistics fitted and the attack chosen on
    the first halves, the hockey-stick lower bound at confidence ``level`` on the second halves.

    ``gaussian=True`` (releases that are Gaussian with a covariance common to both neighbours, the claimed law of
    an additive Gaussian mechanism) adds :func:`gaussian_projection_bound` on the Fisher direction of the first
    halves; the two bounds then share the error probability (Bonferroni) and the larger is reported. It reaches
    large eps and small delta, where an event's probabilities cannot be bounded from samples."""
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    n = min(len(a), len(b))
    if n < 4:
        raise ValueError(f"need at least 4 samples per neighbour, got {n}")
    h = n // 2
    alpha = (1.0 - level) / (2 if gaussian else 1)
    stats = fit_statistics(a[:h], b[:h], fitted, fixed)
    attack, _ = choose_attack(stats, a[:h], b[:h], eps, alpha)
    ta, tb = a[h:n], b[h:n]
    ia, ib = attack.indicator(stats, ta), attack.indicator(stats, tb)
    k1, k2 = (int(ia.sum()), int(ib.sum())) if attack.first == "a" else (int(ib.sum()), int(ia.sum()))
    lb = float(hockey_stick_lower_bound(k1, n - h, k2, n - h, eps, alpha))
    if gaussian:
        lb_g = gaussian_projection_bound(ta, tb, fisher_direction(a[:h], b[:h], shift), eps, alpha)
        if lb_g > lb:
            return PairAudit(lb_g, ThresholdAttack("gaussian_projection", 1.0, float("nan"), "a"), k1, k2, n)
    return PairAudit(lb, attack, k1, k2, n)


def audit_pair(
    sample_a: Sampler,
    sample_b: Sampler,
    eps: float,
    *,
    samples: int,
    level: float,
    rng: np.random.Generator,
    fitted: Sequence[str] = ("fisher", "gaussian_llr"),
    fixed: dict[str, Statistic] | None = None,
    gaussian: bool = False,
    shift: np.ndarray | None = None,
) -> PairAudit:
    """Draw ``samples`` releases under each neighbour and audit them (:func:`audit_samples`)."""
    return audit_samples(sample_a(rng, samples), sample_b(rng, samples), eps, level, fitted, fixed, gaussian, shift)


@dataclass(frozen=True)
class Candidate:
    """A neighbouring pair of inputs, as two samplers, with a description for the result row."""

    name: str
    sample_a: Sampler
    sample_b: Sampler
    #: For an additive release: the input difference (D - D'), fixed before sampling; the Gaussian bound then
    #: projects on S^{-1} shift (S the pooled sample covariance) instead of the Fisher direction of sample means.
    shift: np.ndarray | None = None


@dataclass(frozen=True)
class SearchAudit:
    """Result of :func:`search_and_audit`: the final test of the chosen pair and the size of the search."""

    pair: PairAudit
    chosen: str
    searched: int
    pilot_estimate: float


def search_and_audit(
    candidates: Sequence[Candidate],
    eps: float,
    *,
    pilot_samples: int,
    samples: int,
    level: float,
    rng: np.random.Generator,
    fitted: Sequence[str] = ("fisher", "gaussian_llr"),
    fixed: dict[str, Statistic] | None = None,
    gaussian: bool = False,
) -> SearchAudit:
    """Rank every candidate pair by the point estimate Pr_a(S) - e^eps Pr_b(S) of its own threshold attack on
    ``pilot_samples`` draws per neighbour (half to fit and choose, half to estimate; with ``gaussian``, the Gaussian
    shift's delta at the whitened distance estimated on the Fisher direction), then audit the best one on
    ``samples`` fresh draws (:func:`audit_pair`); the row's confidence is ``level`` whatever the number of
    candidates (the final samples are independent of the choice)."""
    if not candidates:
        raise ValueError("search_and_audit: no candidate pair")
    best, best_est = None, -np.inf
    if len(candidates) == 1:
        best = candidates[0]
    else:
        for c in candidates:
            a, b = c.sample_a(rng, pilot_samples), c.sample_b(rng, pilot_samples)
            h = pilot_samples // 2
            if gaussian:  # the Gaussian shift's delta at the estimated whitened distance (less noisy than counts)
                w = fisher_direction(a[:h], b[:h], c.shift)
                pa, pb = flat(a[h:]) @ w, flat(b[h:]) @ w
                sd = math.sqrt(0.5 * (pa.var() + pb.var())) or 1e-300
                est = gaussian_shift_delta(eps, abs(pa.mean() - pb.mean()) / sd)
            else:
                stats = fit_statistics(a[:h], b[:h], fitted, fixed)
                attack, _ = choose_attack(stats, a[:h], b[:h], eps, 0.5, quantiles=100)
                ia, ib = attack.indicator(stats, a[h:]), attack.indicator(stats, b[h:])
                p1, p2 = (ia.mean(), ib.mean()) if attack.first == "a" else (ib.mean(), ia.mean())
                est = float(p1 - math.exp(eps) * p2)
            if est > best_est:
                best, best_est = c, est
    pair = audit_pair(
        best.sample_a,
        best.sample_b,
        eps,
        samples=samples,
        level=level,
        rng=rng,
        fitted=fitted,
        fixed=fixed,
        gaussian=gaussian,
        shift=best.shift,
    )
    return SearchAudit(pair, best.name, len(candidates), best_est)


def screen_by_coupled_shift(
    candidates: Sequence[Candidate], *, pilot_samples: int, keep: int, rng: np.random.Generator
) -> list[Candidate]:
    """The ``keep`` candidates with the largest coupled shift, for a search too large to pilot every pair.

    The noise covariance S is estimated from ``pilot_samples`` releases of the first candidate's M(D); each
    candidate is then run once under D and once under D' on a common random stream (coupling: for an additive
    mechanism the difference v is the query's shift) and scored by v' (S + ridge)^{-1} v. Only a ranking
    heuristic: the row's confidence comes from the final test (:func:`search_and_audit`)."""
    if len(candidates) <= keep:
        return list(candidates)
    base = flat(candidates[0].sample_a(rng, pilot_samples))
    cov = np.atleast_2d(np.cov(base, rowvar=False))
    scale = max(float(np.trace(cov)) / cov.shape[0], 1e-300)
    prec = np.linalg.pinv(cov + 1e-6 * scale * np.eye(cov.shape[0]), hermitian=True)
    seeds = rng.integers(0, 2**63 - 1, size=len(candidates))
    scores = np.empty(len(candidates))
    for i, (c, sd) in enumerate(zip(candidates, seeds, strict=True)):
        v = (flat(c.sample_b(np.random.default_rng(sd), 1)) - flat(c.sample_a(np.random.default_rng(sd), 1)))[0]
        scores[i] = float(v @ prec @ v)
    order = np.argsort(-scores, kind="stable")[:keep]
    return [candidates[i] for i in order]


def hill_climb(
    score: Callable[[np.ndarray], float],
    starts: Sequence[np.ndarray],
    propose: Callable[[np.ndarray, np.random.Generator, float], np.ndarray],
    *,
    budget: int,
    rng: np.random.Generator,
    step: float = 0.5,
) -> tuple[np.ndarray, float, int]:
    """Random-restart hill climbing over a continuous neighbour space (as DP-Auditorium's dataset search):
    from each start, ``propose(x, rng, step)`` a move, keep it when ``score`` grows, shrink the step after a
    rejected move (x0.85; x1.3 after an accepted one). ``budget`` evaluations of ``score`` in all; returns (best point, its score, evaluations)."""
    best_x, best_s, used = None, -np.inf, 0
    per_start = max(1, budget // max(1, len(starts)))
    for x0 in starts:
        x, s, st = np.asarray(x0, dtype=float), score(np.asarray(x0, dtype=float)), step
        used += 1
        for _ in range(per_start - 1):
            y = propose(x, rng, st)
            sy = score(y)
            used += 1
            if sy > s:
                x, s, st = y, sy, st * 1.3
            else:
                st *= 0.85
        if s > best_s:
            best_x, best_s = x, s
    return best_x, best_s, used


def verdict(delta_lower_bound: float, claimed_delta: float, *, paper_claim_wrong: bool = False) -> str:
    """``violated`` when the lower bound exceeds the claim; ``violated (paper)`` when the unmodified mechanism is
    known to break the paper's own claim (reported, out of the false-alarm and mutant counts); else ``holds``."""
    if delta_lower_bound > claimed_delta:
        return VIOLATED_PAPER if paper_claim_wrong else VIOLATED
    return HOLDS


#: The columns of results/privacy_audits.csv, in this order.
AUDIT_COLUMNS = (
    "paper",
    "mechanism",
    "setting",
    "epsilon",
    "claimed_delta",
    "delta_lower_bound",
    "level",
    "samples",
    "neighbours_searched",
    "pair",
    "attack",
    "verdict",
)


def audit_row(
    *,
    paper: str,
    mechanism: str,
    setting: str,
    epsilon: float,
    claimed_delta: float,
    result: SearchAudit,
    level: float,
    paper_claim_wrong: bool = False,
) -> dict:
    """One row of results/privacy_audits.csv (:data:`AUDIT_COLUMNS`)."""
    lb = result.pair.delta_lower_bound
    return {
        "paper": paper,
        "mechanism": mechanism,
        "setting": setting,
        "epsilon": float(epsilon),
        "claimed_delta": float(claimed_delta),
        "delta_lower_bound": lb,
        "level": level,
        "samples": result.pair.samples,
        "neighbours_searched": result.searched,
        "pair": result.chosen,
        "attack": result.pair.attack_name,
        "verdict": verdict(lb, claimed_delta, paper_claim_wrong=paper_claim_wrong),
    }

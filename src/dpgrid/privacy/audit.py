"""Empirical privacy audits: confidence bounds from samples of a mechanism. Their binomial bounds are those of
:mod:`dpgrid.privacy.clopper_pearson` (two-sided here: the empirical tail Pr(L > eps) of the classdp and dpkmeans
mechanisms, the bin probabilities of the density-ratio audit).

* :func:`tail_audit_row` and :data:`TAIL_AUDIT_COLUMNS` - the one row schema of a privacy-loss tail check
  (a Monte Carlo estimate of delta(eps) = Pr(L > eps) under the claimed densities against the claimed delta: a
  check of the accounting, not of the sampler; the privacy test is :mod:`dpgrid.privacy.blackbox_audit`), written by the classdp
  (``results/classdp/<setting>/audit*.csv``) and dpkmeans (``results/dpkmeans/audit.csv``) audits;
* :func:`audit_density_ratio` - a sample-based audit of the density ratio of two samplers (histogram
  with Clopper-Pearson bounds and a sample-split hockey-stick test), used on the pricing mechanisms of
  the blowfish paper (Theorem 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpgrid.privacy.clopper_pearson import clopper_pearson

#: The columns of a tail-audit row after its context columns, in this order (see :func:`tail_audit_row`).
TAIL_AUDIT_COLUMNS = (
    "epsilon",
    "claimed_delta",
    "exact_delta",
    "empirical_delta",
    "ci_low",
    "ci_high",
    "level",
    "samples",
    "claimed_delta_ge_ci_low",
    "exact_in_ci",
)


def tail_audit_row(
    *,
    epsilon: float,
    claimed_delta: float,
    exact_delta: float | None,
    count: int,
    samples: int,
    level: float,
    **context: Any,
) -> dict:
    """One row of a privacy-loss tail audit: ``count`` of ``samples`` draws of the privacy loss L exceeded eps.

    The row is the caller's ``context`` columns (in the order given; e.g. setting, mechanism, pair), then
    :data:`TAIL_AUDIT_COLUMNS`:

    - ``epsilon``: the eps of the tail Pr(L > eps);
    - ``claimed_delta``: the delta the mechanism's accounting claims at eps (the PDP delta of classdp
      Definition 1 / dpkmeans Definition 4: a budget, or a formula such as Theorem 4's delta_l);
    - ``exact_delta``: the exact tail Pr(L > eps) of the sampled pair, computed independently of the
      samples (generalised chi-square inversion, Gaussian closed form, ...); empty (``None``) if unknown;
    - ``empirical_delta`` = count / samples;
    - ``ci_low``, ``ci_high``: the two-sided Clopper-Pearson interval of :func:`clopper_pearson` at
      confidence ``level`` (a family-wise level is the caller's business: dpkmeans passes its
      Bonferroni per-test level, ``1 - alpha / m``);
    - ``level``, ``samples``: as given;
    - ``claimed_delta_ge_ci_low`` = ``ci_low <= claimed_delta``: one-sided, "the sampled tail does not refute the
      claimed delta". **Not a privacy test**: the loss L is evaluated with the mechanism's *claimed* densities at
      its draws, so a sampler with too little noise makes the tail smaller and passes (it checks the accounting
      arithmetic given the sampler's law). The privacy test of a release is the black-box audit
      (:mod:`dpgrid.privacy.blackbox_audit`, results/privacy_audits.csv), which fits its own attack on samples;
    - ``exact_in_ci`` = ``ci_low <= exact_delta <= ci_high``: **two-sided**, the correctness check of the
      exact computation (and of the sampler): the exact tail of the sampled pair must be inside the
      interval, from either side. Empty when ``exact_delta`` is None. Claims that check that a calibration
      is tight (the tail equals the claimed delta, not only stays below it) read ``claimed_delta_ge_ci_low`` and
      ``exact_in_ci`` of rows whose exact delta is the claimed one.

    Other audits are different row types, not tail audits: blowfish's ``table_audit.csv`` audits the density
    ratio of pure eps-DP releases (:func:`audit_density_ratio`: no delta, no tail count; ``within_eps``), and
    spdp's ``table_exact_delta.csv`` (:func:`dpgrid.papers.spdp.fidelity_calibration.delta_audit_rows`)
    computes exact hockey-stick deltas without sampling.
    """
    clash = sorted(set(context) & set(TAIL_AUDIT_COLUMNS))
    if clash:
        raise ValueError(f"tail_audit_row: context columns {clash} are audit columns")
    if not (isinstance(samples, (int, np.integer)) and samples > 0 and 0 <= count <= samples):
        raise ValueError(
            f"tail_audit_row: need 0 <= count <= samples, samples > 0; got count {count}, samples {samples}"
        )
    if not 0 < level < 1:
        raise ValueError(f"tail_audit_row: level must be in (0, 1), got {level!r}")
    lo, hi = clopper_pearson(count, samples, level)
    lo, hi = float(lo), float(hi)
    exact = None if exact_delta is None or math.isnan(exact_delta) else float(exact_delta)
    return {
        **context,
        "epsilon": epsilon,
        "claimed_delta": claimed_delta,
        "exact_delta": exact,
        "empirical_delta": count / samples,
        "ci_low": lo,
        "ci_high": hi,
        "level": level,
        "samples": samples,
        "claimed_delta_ge_ci_low": bool(lo <= claimed_delta),
        "exact_in_ci": None if exact is None else bool(lo <= exact <= hi),
    }


@dataclass(frozen=True)
class DensityRatioAudit:
    """Result of :func:`audit_density_ratio`.

    max_log_ratio:        largest |log p_a(bin) / p_b(bin)| over bins with enough counts (point estimate)
    max_log_ratio_lower:  largest Clopper-Pearson lower confidence bound on |log ratio| (over those bins)
    hockey_stick:         estimate of P_a(R) - e^eps P_b(R) on the held-out half, R = bins with
                          estimated ratio > e^eps on the first half (0 if R is empty)
    hockey_stick_lower:   one-sided lower confidence bound of that difference (Hoeffding)
    violation:            hockey_stick_lower > 0, i.e. the samples prove a ratio above e^eps
    """

    max_log_ratio: float
    max_log_ratio_lower: float
    hockey_stick: float
    hockey_stick_lower: float
    violation: bool
    n_bins_used: int


def audit_density_ratio(
    sample_a: np.ndarray,
    sample_b: np.ndarray,
    eps: float,
    *,
    bins: int = 60,
    min_count: int = 200,
    confidence: float = 0.99,
) -> DensityRatioAudit:
    """Audit Pr[M(D_a) in R] <= e^eps Pr[M(D_b) in R] (and symmetric) from samples of the two outputs.

    Bins span the central range of the pooled samples (plus two open tail bins). For each bin with
    at least ``min_count`` samples on both sides the ratio of bin probabilities is bounded with
    simultaneous Clopper-Pearson intervals (Bonferroni over bins). Separately, the samples are split
    in halves: the first half picks the set R of bins whose ratio exceeds e^eps (either direction),
    the second half estimates the hockey-stick divergence P_a(R) - e^eps P_b(R) with a Hoeffding lower
    bound at level ``confidence``; a positive lower bound is a proven violation of eps-DP (delta = 0).
    """
    a = np.asarray(sample_a, dtype=float)
    b = np.asarray(sample_b, dtype=float)
    pooled = np.concatenate([a, b])
    lo, hi = np.quantile(pooled, [0.001, 0.999])
    edges = np.concatenate([[-np.inf], np.linspace(lo, hi, bins + 1), [np.inf]])
    alpha = 1 - confidence

    def counts(x):
        return np.histogram(x, edges)[0]

    ka, kb = counts(a), counts(b)
    use = (ka >= min_count) & (kb >= min_count)
    n_use = int(use.sum())
    if n_use == 0:
        raise ValueError("audit: no bin has min_count samples on both sides; increase the sample size")
    pa, pb = ka / a.size, kb / b.size
    log_ratio = np.log(pa[use]) - np.log(pb[use])
    a_lo, a_hi = clopper_pearson(ka[use], a.size, level=1.0 - alpha / n_use)
    b_lo, b_hi = clopper_pearson(kb[use], b.size, level=1.0 - alpha / n_use)
    lower = np.maximum(np.log(np.maximum(a_lo, 1e-300)) - np.log(b_hi), np.log(np.maximum(b_lo, 1e-300)) - np.log(a_hi))

    # sample split: choose R on the first halves, test on the second halves (both directions)
    ha, hb = a.size // 2, b.size // 2
    ka1, kb1 = counts(a[:ha]), counts(b[:hb])
    ka2, kb2 = counts(a[ha:]), counts(b[hb:])
    best, best_lower = 0.0, -np.inf
    for k1x, k1y, nx1, ny1, k2x, k2y, nx2, ny2 in (
        (ka1, kb1, ha, hb, ka2, kb2, a.size - ha, b.size - hb),
        (kb1, ka1, hb, ha, kb2, ka2, b.size - hb, a.size - ha),
    ):
        r_set = k1x / nx1 > np.exp(eps) * k1y / ny1
        if not r_set.any():
            continue
        px, py = k2x[r_set].sum() / nx2, k2y[r_set].sum() / ny2
        est = px - np.exp(eps) * py
        # Hoeffding: each of the two proportions within sqrt(log(2/alpha) / (2 n)) with prob 1 - alpha/2
        slack = np.sqrt(np.log(4 / alpha) / (2 * nx2)) + np.exp(eps) * np.sqrt(np.log(4 / alpha) / (2 * ny2))
        if est - slack > best_lower:
            best, best_lower = est, est - slack
    if not np.isfinite(best_lower):
        best_lower = 0.0 - np.sqrt(np.log(4 / alpha) / (2 * (a.size - ha)))
    return DensityRatioAudit(
        float(np.abs(log_ratio).max()), float(lower.max()), float(best), float(best_lower), bool(best_lower > 0), n_use
    )

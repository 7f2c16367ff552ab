"""dpkmeans stage: privacy audits (Monte Carlo privacy-loss tails on a worst neighbouring pair, with
Clopper-Pearson intervals at a Bonferroni family-wise level): the colored centroid mechanism (Theorem 3, eq.
(13) and exact calibrations), the modulo-K label mechanism (Theorem 4) and the Wishart covariance mechanism
(Jiang et al. 2016) of Algorithm 2."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms.colored_centroid_noise import gamma_c
from dpgrid.mechanisms.kmeans_sensitivity import KMeansSolution
from dpgrid.mechanisms.modulo_label import label_noise, label_noise_log_pmf
from dpgrid.mechanisms.wishart_covariance import wishart_delta, wishart_scale
from dpgrid.papers.dpkmeans.clustering_npz import load_clustering, loo_from_npz
from dpgrid.papers.dpkmeans.paper import PAPER
from dpgrid.privacy.audit import tail_audit_row
from dpgrid.privacy.gaussian import pdp_delta, shift_privacy_loss
from dpgrid.privacy.label_modulo_delta import label_delta, rho_for_delta


def _colored_rows(design, loo, au: dict, alpha: float, rng) -> list[dict]:
    """Colored mechanism: worst leave-one-out pair, privacy loss from the Gaussian log-densities."""
    q = design.mahalanobis_sq(loo.shifts)
    p = int(np.argmax(q))
    u = loo.shifts[p] @ design.basis
    rows = []
    for calib in ("exact_pdp", "paper_eq13"):
        for eps, delta in au["centroid_budgets"]:
            g = gamma_c(eps, delta, calib)
            eta = design.sample(rng, g, au["n_samples"]) @ design.basis  # in the span
            # L = log N(c~; c, S) - log N(c~; c - u, S), S = cov_unit / g, at the mechanism's own draws
            L = shift_privacy_loss(eta, u, design.cov_unit, g)
            rows.append(
                tail_audit_row(
                    mechanism="colored_centroids",
                    calibration=calib,
                    pair=f"remove point {p}",
                    epsilon=eps,
                    claimed_delta=delta,
                    exact_delta=float(pdp_delta(eps, math.sqrt(g * q[p]))),
                    count=int((L > eps).sum()),
                    samples=au["n_samples"],
                    level=1.0 - alpha,
                )
            )
    return rows


def _label_rows(z, sol, loo, au: dict, alpha: float, rng) -> list[dict]:
    """Label mechanism: the removal with the most label changes (on the data without outliers; if no label is
    sensitive there, on the data with outliers, so that the audit runs on a real pair). None if neither has one."""
    K = sol.k
    lname = "without outliers"
    if loo.label_sensitivity == 0:
        sol, loo, lname = KMeansSolution(z["all_centroids"], z["all_labels"]), loo_from_npz(z, "all_"), "with outliers"
    D1 = loo.label_sensitivity
    if not D1:
        return []
    p = int(np.argmax([len(c) for c in loo.changed]))
    Ls = loo.label_sensitive
    lab2 = sol.labels.copy()
    lab2[loo.changed[p]] = loo.changed_to[p]
    rows = []
    for eps_l, dl in au["label_budgets"]:
        rho = rho_for_delta(eps_l, dl, K, D1)
        n = au["n_samples_labels"]
        nu = label_noise((n, len(Ls)), K, rho, rng)
        out = (sol.labels[Ls][None, :] + nu) % K
        Lv = label_noise_log_pmf(out - sol.labels[Ls], K, rho).sum(1) - label_noise_log_pmf(out - lab2[Ls], K, rho).sum(
            1
        )
        claimed = label_delta(eps_l, rho, K, D1)
        rows.append(
            tail_audit_row(
                mechanism="modulo_labels",
                calibration="theorem4",
                pair=f"remove point {p} ({D1} labels change; data {lname})",
                epsilon=eps_l,
                claimed_delta=claimed,
                exact_delta=claimed,
                count=int((Lv > eps_l + 1e-12).sum()),
                samples=n,
                level=1.0 - alpha,
            )
        )
    return rows


def _wishart_row(d: int, n: int, sy: dict, n_samples: int, alpha: float, rng) -> dict:
    """Wishart mechanism (Jiang et al.): Pr(L = inf) on the pair x = 0, x' = B e1, closed form 1 - exp(-eps/3)."""
    from scipy.stats import wishart

    c = wishart_scale(n, d, sy["eps_w"], sy["row_bound"])
    W = wishart(df=d + 1, scale=c * np.eye(d)).rvs(size=n_samples, random_state=rng)
    v = np.zeros(d)
    v[0] = sy["row_bound"] / math.sqrt(n)
    fail = np.array([np.linalg.eigvalsh(w - np.outer(v, v))[0] <= 0 for w in W])
    return tail_audit_row(
        mechanism="wishart_covariance",
        calibration="jiang2016",
        pair=f"replace a zero row by a norm-{sy['row_bound']} row (n={n})",
        epsilon=sy["eps_w"],
        claimed_delta=0.0,
        exact_delta=wishart_delta(sy["eps_w"]),
        count=int(fail.sum()),
        samples=len(W),
        level=1.0 - alpha,
    )


def audit_job(job) -> None:
    cfg = job.params.cfg
    au = cfg["audit"]
    rng = job_rng(job.params.seed, PAPER, "audit")
    z, X, sol, loo, design = load_clustering(job.input.npz)
    # Family-wise level au["alpha"] over all audits of this job (Bonferroni): per-test alpha / m, i.e. each row's
    # two-sided interval at level 1 - alpha / m (the rows' ``level`` column).
    n_tests = 2 * len(au["centroid_budgets"]) + len(au["label_budgets"]) + 1
    alpha = au["alpha"] / n_tests
    rows = _colored_rows(design, loo, au, alpha, rng)
    rows += _label_rows(z, sol, loo, au, alpha, rng)
    n_min_clean = int(np.bincount(sol.labels).min())
    rows.append(_wishart_row(X.shape[1], n_min_clean, cfg["synthetic"], au["n_samples_wishart"], alpha, rng))
    write_table(pd.DataFrame(rows), job.output.table)

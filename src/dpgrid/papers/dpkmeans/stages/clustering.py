"""dpkmeans stage: clustering, leave-one-out analysis and colored design (Ravi et al., Sec. V-B, Figs. 7-8):
the outlier rule, the two k-means fits (:mod:`dpgrid.papers.dpkmeans.clustering`), each fit's leave-one-out
sensitivity and eq. (15)'s colored noise design, stored in clustering.npz."""

from __future__ import annotations

import logging
import time

import pandas as pd

from dpgrid.core.io import read_table, save_npz, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.mechanisms.colored_centroid_noise import optimal_colored_design, white_noise_design
from dpgrid.mechanisms.kmeans_loss import clustering_loss
from dpgrid.mechanisms.kmeans_sensitivity import leave_one_out_analysis
from dpgrid.papers.dpkmeans.clustering import clustering_fits, outlier_masks
from dpgrid.papers.dpkmeans.clustering_npz import loo_to_arrays
from dpgrid.papers.dpkmeans.paper import PAPER

LOG = logging.getLogger(__name__)


def _profile_matrix(path, prof: pd.DataFrame, cfg: dict):
    """The (meters x 25) profile matrix, with an error naming the file when it has too few meters for k."""
    missing = [h for h in HOURS if h not in prof.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}")
    X_all = prof[HOURS].to_numpy(float)
    K = cfg["k"]
    if len(X_all) <= K:
        raise ValueError(
            f"{path}: {len(X_all)} meter profile(s) for dpkmeans.k = {K} clusters; the data source "
            f"(data.experiments.{cfg['data_source']}) needs more meters than k (with source uci_household, which has "
            f"one home, set pseudo_meters: N)"
        )
    return X_all


def _outliers(path, X_all, prof: pd.DataFrame, cfg: dict) -> dict:
    """:func:`outlier_masks` of the profiles, checked to leave more than k meters, and logged."""
    K, out = cfg["k"], cfg["outliers"]
    om = outlier_masks(X_all, prof["customer_class"], out)
    is_out, knn, commercial = om["removed"], om["knn"], om["commercial"]
    n_clean = int((~is_out).sum())
    if n_clean <= K:
        raise ValueError(
            f"{path}: dpkmeans.k = {K} clusters need more than {K} meters, but {n_clean} of "
            f"{len(X_all)} remain after the outlier rule (dpkmeans.outliers.method = {out['method']}) removed "
            f"{int(is_out.sum())}; lower dpkmeans.k or change dpkmeans.outliers"
        )
    LOG.info(
        "outliers (%s rule) removed %d meters (%d of them commercial); the k-NN rule flags %d (%d commercial); "
        "it flags exactly the commercial meters for Tukey factors in [%.3g, %.3g)",
        out["method"],
        is_out.sum(),
        (is_out & commercial).sum(),
        knn.sum(),
        (knn & commercial).sum(),
        *om["exact_range"],
    )
    return om


def _analyse_fit(name, X, sol, om: dict, cfg: dict) -> tuple[dict, dict]:
    """Leave-one-out analysis and colored design of one fit: (its clustering.npz arrays, its sensitivity row)."""
    is_out, knn, commercial = om["removed"], om["knn"], om["commercial"]
    t0 = time.perf_counter()
    loo = leave_one_out_analysis(X, sol, max_iter=cfg["kmeans"]["max_iter"])
    t_loo = time.perf_counter() - t0
    t0 = time.perf_counter()
    design = optimal_colored_design(
        loo.shifts, tol=cfg["centroid_noise"]["solver_tol"], max_iter=cfg["centroid_noise"]["solver_max_iter"]
    )
    t_sol = time.perf_counter() - t0
    white = white_noise_design(loo.shifts)
    pre = "all_" if name == "with_outliers" else ""
    arrays = {
        pre + "centroids": sol.centroids,
        pre + "labels": sol.labels,
        pre + "basis": design.basis,
        pre + "cov_unit": design.cov_unit,
    }
    arrays.update({pre + k: v for k, v in loo_to_arrays(loo).items()})
    row = {
        "dataset": name,
        "P": len(X),
        "K": cfg["k"],
        "d": X.shape[1],
        "cluster_sizes": " ".join(map(str, sol.counts())),
        "delta_c": loo.centroid_sensitivity,
        "n_label_sensitive": len(loo.label_sensitive),
        "delta_1": loo.label_sensitivity,
        "n_relabelling_removals": int(loo.relabelled.sum()),
        "clustering_loss": clustering_loss(X, sol.centroids, sol.labels),
        "colored_trace_unit": design.primal_unit,
        "colored_dual_unit": design.dual_unit,
        "solver_gap": design.gap,
        "solver_iterations": design.n_iter,
        "white_trace_unit": white.primal_unit,
        "outlier_method": cfg["outliers"]["method"],
        "n_removed_outliers": int(is_out.sum()),
        "n_removed_commercial": int((is_out & commercial).sum()),
        "n_commercial_total": int(commercial.sum()),
        "n_knn_flagged": int(knn.sum()),
        "n_knn_commercial": int((knn & commercial).sum()),
        "knn_exact_factor_lo": om["exact_range"][0],
        "knn_exact_factor_hi": om["exact_range"][1],
    }
    LOG.info(
        "%s: P=%d Delta_c=%.4g |L|=%d Delta_1=%d (LOO %.1f s, solver %.1f s, gap %.2g)",
        name,
        len(X),
        loo.centroid_sensitivity,
        len(loo.label_sensitive),
        loo.label_sensitivity,
        t_loo,
        t_sol,
        design.gap,
    )
    return arrays, row


def clustering_job(job) -> None:
    cfg = job.params.cfg
    rng = job_rng(job.params.seed, PAPER, "clustering")
    prof = read_table(job.input.profiles, dtype={"meter_id": str})
    X_all = _profile_matrix(job.input.profiles, prof, cfg)
    om = _outliers(job.input.profiles, X_all, prof, cfg)
    is_out = om["removed"]
    rows = []
    arrays = {"k": cfg["k"], "X_all": X_all, "is_outlier": is_out, "commercial": om["commercial"]}
    for name, (X, sol) in clustering_fits(X_all, is_out, cfg["k"], cfg["kmeans"], rng).items():
        fit_arrays, row = _analyse_fit(name, X, sol, om, cfg)
        arrays.update(fit_arrays)
        rows.append(row)
    save_npz(job.output.npz, **arrays)
    write_table(pd.DataFrame(rows), job.output.table)
    outliers = {
        "meter_id": prof["meter_id"],
        "customer_class": prof["customer_class"],
        "is_outlier": is_out,
        "knn_outlier": om["knn"],
        "knn_factor": om["knn_factor"],
    }
    write_table(pd.DataFrame(outliers), job.output.outliers)

"""dpkmeans: Ravi, Scaglione et al., *Differentially Private K-means Clustering Applied to Meter Data
Analysis and Synthesis* (IEEE TSG 2022). Rule bodies of workflow/papers/dpkmeans/dpkmeans.smk that compute; see
docs/dpkmeans.md for what each produces and the choices made.

Each job reads ``job.params.cfg`` (the slice of the ``dpkmeans`` config section its rule passes) and
``job.params.seed`` where it draws random numbers.
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np
import pandas as pd

from dpgrid.core.io import read_json, read_table, save_npz, write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.core.sweeps import concat_sweep_points, sweep_label
from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.data.profiles import daily_profiles_from_files
from dpgrid.mechanisms.colored_centroid_noise import (
    CentroidNoiseDesign,
    eq13_delta,
    gamma_c,
    optimal_colored_design,
    white_noise_design,
)
from dpgrid.mechanisms.dp_kmeans_baselines import (
    BASELINES,
    nearest_labels,
)
from dpgrid.mechanisms.kmeans_loss import clustering_loss, dp_accuracy_loss, expected_dp_accuracy_loss
from dpgrid.mechanisms.kmeans_sensitivity import KMeansSolution, LeaveOneOutAnalysis, fit_kmeans, leave_one_out_analysis
from dpgrid.mechanisms.modulo_label import label_noise, label_noise_log_pmf, modulo_label_mechanism
from dpgrid.mechanisms.wishart_covariance import wishart_delta
from dpgrid.papers.dpkmeans.clustering import clustering_fits, outlier_masks
from dpgrid.papers.dpkmeans.paper import PAPER
from dpgrid.privacy.audit import clopper_pearson
from dpgrid.privacy.composition import compose_sequential
from dpgrid.privacy.gaussian import pdp_delta
from dpgrid.privacy.label_modulo_delta import label_delta, rho_for_delta

LOG = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------
# data: daily profiles
# --------------------------------------------------------------------------------------------


def profiles_job(job) -> None:
    # read and checked in blocks of meters (memory bounded whatever the number of meters)
    prof = daily_profiles_from_files(job.input.readings, job.input.meters)
    LOG.info("daily profiles: %d meters x 25 hours", len(prof))
    write_table(prof, job.output.profiles)


# --------------------------------------------------------------------------------------------
# clustering, leave-one-out analysis, colored design
# --------------------------------------------------------------------------------------------


def _loo_to_arrays(loo: LeaveOneOutAnalysis) -> dict:
    p = np.concatenate([np.full(len(c), i) for i, c in enumerate(loo.changed)] + [np.zeros(0, int)]).astype(int)
    q = np.concatenate(list(loo.changed) + [np.zeros(0, int)]).astype(int)
    to = np.concatenate(list(loo.changed_to) + [np.zeros(0, int)]).astype(int) if loo.changed_to else q * 0
    return {
        "shifts": loo.shifts,
        "changed_p": p,
        "changed_q": q,
        "changed_to": to,
        "relabelled": loo.relabelled,
        "n_iter": loo.n_iter,
    }


def _loo_from_npz(z, prefix: str = "") -> LeaveOneOutAnalysis:
    shifts = z[prefix + "shifts"]
    P = shifts.shape[0]
    p, q, to = z[prefix + "changed_p"], z[prefix + "changed_q"], z[prefix + "changed_to"]
    changed = [q[p == i] for i in range(P)]
    changed_to = [to[p == i] for i in range(P)]
    K = int(z["k"])
    return LeaveOneOutAnalysis(
        shifts, changed, z[prefix + "relabelled"], z[prefix + "n_iter"], K, shifts.shape[1] // K, changed_to
    )


def clustering_job(job) -> None:
    cfg = job.params.cfg
    rng = job_rng(job.params.seed, PAPER, "clustering")
    prof = read_table(job.input.profiles, dtype={"meter_id": str})
    missing = [h for h in HOURS if h not in prof.columns]
    if missing:
        raise ValueError(f"{job.input.profiles}: missing column(s) {missing}")
    X_all = prof[HOURS].to_numpy(float)
    K = cfg["k"]
    if len(X_all) <= K:
        raise ValueError(
            f"{job.input.profiles}: {len(X_all)} meter profile(s) for dpkmeans.k = {K} clusters; the data source "
            f"(data.experiments.{cfg['data_source']}) needs more meters than k (with source uci_household, which has "
            f"one home, set pseudo_meters: N)"
        )
    km = cfg["kmeans"]
    out = cfg["outliers"]
    om = outlier_masks(X_all, prof["customer_class"], out)
    is_out, knn, commercial = om["removed"], om["knn"], om["commercial"]
    n_clean = int((~is_out).sum())
    if n_clean <= K:
        raise ValueError(
            f"{job.input.profiles}: dpkmeans.k = {K} clusters need more than {K} meters, but {n_clean} of "
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
    rows = []
    arrays = {"k": K, "X_all": X_all, "is_outlier": is_out, "commercial": commercial}
    for name, (X, sol) in clustering_fits(X_all, is_out, K, km, rng).items():
        t0 = time.perf_counter()
        loo = leave_one_out_analysis(X, sol, max_iter=km["max_iter"])
        t_loo = time.perf_counter() - t0
        t0 = time.perf_counter()
        design = optimal_colored_design(
            loo.shifts, tol=cfg["centroid_noise"]["solver_tol"], max_iter=cfg["centroid_noise"]["solver_max_iter"]
        )
        t_sol = time.perf_counter() - t0
        white = white_noise_design(loo.shifts)
        pre = "all_" if name == "with_outliers" else ""
        arrays.update(
            {
                pre + "centroids": sol.centroids,
                pre + "labels": sol.labels,
                pre + "basis": design.basis,
                pre + "cov_unit": design.cov_unit,
            }
        )
        arrays.update({pre + k: v for k, v in _loo_to_arrays(loo).items()})
        rows.append(
            {
                "dataset": name,
                "P": len(X),
                "K": K,
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
        )
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
    save_npz(job.output.npz, **arrays)
    write_table(pd.DataFrame(rows), job.output.table)
    write_table(
        pd.DataFrame(
            {
                "meter_id": prof["meter_id"],
                "customer_class": prof["customer_class"],
                "is_outlier": is_out,
                "knn_outlier": knn,
                "knn_factor": om["knn_factor"],
            }
        ),
        job.output.outliers,
    )


def load_clustering(path):
    """The clustering of ``results/dpkmeans/clustering.npz`` (data without outliers): (npz, X, solution,
    leave-one-out analysis, colored design at gamma_c = 1)."""
    z = np.load(path)
    X = z["X_all"][~z["is_outlier"]]
    sol = KMeansSolution(z["centroids"], z["labels"])
    loo = _loo_from_npz(z)
    design = CentroidNoiseDesign(z["basis"], z["cov_unit"], "colored_dual", float(np.trace(z["cov_unit"])))
    return z, X, sol, loo, design


def _release(X, sol, loo, design, eps_c, delta_c, eps_l, delta_l, calibration, rng, white=False):
    """Algorithm 1: noisy centroids (colored or white) and modulo-K labels."""
    K = sol.k
    dsg = white_noise_design(loo.shifts) if white else design
    gam = gamma_c(eps_c, delta_c, calibration)
    Cn = sol.centroids + dsg.sample(rng, gam).reshape(K, -1)
    L = loo.label_sensitive
    D1 = loo.label_sensitivity
    rho = rho_for_delta(eps_l, delta_l, K, D1) if D1 > 0 else 0.0
    ln = modulo_label_mechanism(sol.labels, L, K, rho, rng)
    return Cn, ln, rho, dsg, gam


def release_job(job) -> None:
    cfg = job.params.cfg
    rel = cfg["release"]
    rng = job_rng(job.params.seed, PAPER, "release")
    z, X, sol, loo, design = load_clustering(job.input.npz)
    Cn, ln, rho, dsg, gam = _release(
        X,
        sol,
        loo,
        design,
        rel["eps_c"],
        rel["delta_c"],
        rel["eps_l"],
        rel["delta_l"],
        cfg["centroid_noise"]["calibration"],
        rng,
    )
    dl = label_delta(rel["eps_l"], rho, sol.k, loo.label_sensitivity) if loo.label_sensitivity else 0.0
    eps, delta = compose_sequential([(rel["eps_c"], rel["delta_c"]), (rel["eps_l"], dl)])
    save_npz(job.output.npz, noisy_centroids=Cn, noisy_labels=ln, rho=rho)
    prof = read_table(job.input.profiles, dtype={"meter_id": str})
    ids = prof["meter_id"].to_numpy()[~z["is_outlier"]]
    out = pd.DataFrame(X, columns=HOURS)
    out.insert(0, "cluster", ln)
    out.insert(0, "profile_id", ids)
    write_table(out, job.output.profiles_true)
    info = {
        "eps_c": rel["eps_c"],
        "delta_c": rel["delta_c"],
        "eps_l": rel["eps_l"],
        "delta_l": dl,
        "rho": rho,
        "eps_total": eps,
        "delta_total": delta,
        "calibration": cfg["centroid_noise"]["calibration"],
        "gamma_c": gam,
        "noise_trace": dsg.trace(gam),
        "exact_pdp_delta_c": float(pdp_delta(rel["eps_c"], math.sqrt(gam))),
        "n_labels_changed": int((ln != sol.labels).sum()),
        "P": len(X),
        "dp_accuracy_loss": dp_accuracy_loss(X, sol.centroids, sol.labels, Cn, ln),
    }
    LOG.info("release: %s", info)
    write_json(info, job.output.info)


def mds_subsample(marked: np.ndarray, n_profiles: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of at most ``n_profiles`` profiles for the MDS of Figs. 7-8 (``mds_max_points``).

    ``marked`` (boolean, one per profile) are the profiles the figure highlights (outliers, set L,
    changed labels): they are kept first (a random subset of them if they alone exceed
    ``n_profiles``); the remaining places go to a uniform random sample of the unmarked profiles.
    """
    marked = np.asarray(marked, dtype=bool)
    if n_profiles >= marked.size:
        return np.arange(marked.size)
    m, u = np.flatnonzero(marked), np.flatnonzero(~marked)
    if m.size >= n_profiles:
        return np.sort(rng.choice(m, n_profiles, replace=False))
    return np.sort(np.concatenate([m, rng.choice(u, n_profiles - m.size, replace=False)]))


def mds_job(job) -> None:
    """2-d MDS (scikit-learn, metric SMACOF) of the profiles with the true and noisy centroids (Figs. 7-8).

    ``mds_max_points`` (null: every profile) caps the points of each embedding: the centroids and
    :func:`mds_subsample` of the profiles (own random stream, so the default draws nothing extra).
    """
    from sklearn.manifold import MDS

    cfg = job.params.cfg
    z = np.load(job.input.npz)
    rel = np.load(job.input.release)
    rng = job_rng(job.params.seed, PAPER, "mds")
    cap = cfg["mds_max_points"]
    sub_rng = job_rng(job.params.seed, PAPER, "mds_subsample") if cap is not None else None
    frames = []
    for name, X, lab, C, Cn in (
        ("with_outliers", z["X_all"], z["all_labels"], z["all_centroids"], None),
        ("without_outliers", z["X_all"][~z["is_outlier"]], z["labels"], z["centroids"], rel["noisy_centroids"]),
    ):
        in_L = np.isin(np.arange(len(X)), _loo_from_npz(z, "all_" if Cn is None else "").label_sensitive)
        noisy_lab = np.asarray(lab) if Cn is None else rel["noisy_labels"]
        is_out = z["is_outlier"] if Cn is None else np.zeros(len(X), dtype=bool)
        keep = np.arange(len(X))
        if cap is not None:
            n_cent = len(C) + (len(Cn) if Cn is not None else 0)
            if cap <= n_cent:
                raise ValueError(
                    f"config dpkmeans.mds_max_points = {cap} leaves no room for profiles next to "
                    f"the {n_cent} centroids of the {name} MDS"
                )
            keep = mds_subsample(in_L | is_out | (noisy_lab != lab), cap - n_cent, sub_rng)
            if len(keep) < len(X):
                LOG.info("%s MDS: %d of %d profiles (mds_max_points = %d)", name, len(keep), len(X), cap)
            X, lab, in_L, noisy_lab, is_out = X[keep], np.asarray(lab)[keep], in_L[keep], noisy_lab[keep], is_out[keep]
        pts = [X, C] + ([Cn] if Cn is not None else [])
        Y = np.vstack(pts)
        emb = MDS(
            n_components=2,
            metric_mds=True,
            n_init=1,
            init="classical_mds",
            max_iter=cfg["mds_max_iter"],
            random_state=int(rng.integers(2**31 - 1)),
            metric="euclidean",
        ).fit_transform(Y)
        kind = ["point"] * len(X) + ["centroid"] * len(C) + (["noisy_centroid"] * len(Cn) if Cn is not None else [])
        labels = list(lab) + list(range(len(C))) + (list(range(len(Cn))) if Cn is not None else [])
        f = pd.DataFrame({"dataset": name, "kind": kind, "label": labels, "x": emb[:, 0], "y": emb[:, 1]})
        n_extra = len(labels) - len(X)
        f["in_L"] = list(in_L) + [False] * n_extra
        f["noisy_label"] = list(noisy_lab) + labels[len(X) :]
        if name == "with_outliers":
            f["is_outlier"] = list(is_out) + [False] * n_extra
        else:
            f["is_outlier"] = False
        frames.append(f)
    write_table(pd.concat(frames, ignore_index=True), job.output.table)


# --------------------------------------------------------------------------------------------
# Gaussian mixture (Figs. 5-6)
# --------------------------------------------------------------------------------------------


def gaussian_mixture_job(job) -> None:
    cfg = job.params.cfg
    gm = cfg["gaussian_mixture"]
    rng = job_rng(job.params.seed, PAPER, "gaussian_mixture")
    K, P = gm["k"], gm["n_points"]
    ang = 2 * np.pi * np.arange(K) / K
    mu = gm["radius"] * np.c_[np.cos(ang), np.sin(ang)]
    comp = rng.integers(0, K, P)  # equally likely components
    X = mu[comp] + gm["sigma"] * rng.standard_normal((P, 2))
    sol = fit_kmeans(X, K, rng, n_init=cfg["kmeans"]["n_init"])
    loo = leave_one_out_analysis(X, sol)
    design = optimal_colored_design(loo.shifts, tol=cfg["centroid_noise"]["solver_tol"])
    Cn, ln, rho, _, gam = _release(
        X,
        sol,
        loo,
        design,
        gm["eps_c"],
        gm["delta_c"],
        gm["eps_l"],
        gm["delta_l"],
        cfg["centroid_noise"]["calibration"],
        rng,
    )
    pts = pd.DataFrame(
        {
            "x": X[:, 0],
            "y": X[:, 1],
            "label": sol.labels,
            "noisy_label": ln,
            "in_L": np.isin(np.arange(P), loo.label_sensitive),
        }
    )
    write_table(pts, job.output.points)
    cents = pd.DataFrame(
        {
            "cluster": np.arange(K),
            "x": sol.centroids[:, 0],
            "y": sol.centroids[:, 1],
            "noisy_x": Cn[:, 0],
            "noisy_y": Cn[:, 1],
        }
    )
    write_table(cents, job.output.centroids)
    # Fig. 6: noise variance / delta_c / accuracy loss, and label error vs sensitivity
    f6 = cfg["fig6"]
    rows = []
    r0 = clustering_loss(X, sol.centroids, sol.labels)
    for eps in f6["eps_grid"]:
        for delta in np.geomspace(f6["delta_min"], f6["delta_max"], f6["n_delta"]):
            for calib in ("exact_pdp", "paper_eq13"):
                g = gamma_c(eps, float(delta), calib)
                cov = design.covariance(g)
                rows.append(
                    {
                        "eps_c": eps,
                        "delta_c": float(delta),
                        "calibration": calib,
                        "noise_variance": design.trace(g),
                        "expected_accuracy_loss": expected_dp_accuracy_loss(X, sol.centroids, sol.labels, cov),
                    }
                )
    curves = pd.DataFrame(rows)
    # delta_c of a fixed noise level (variance) for each eps: exact tail with Delta^2 = trace_unit / variance
    rows = []
    for eps in f6["eps_grid"]:
        for var in np.geomspace(f6["variance_min"], f6["variance_max"], f6["n_variance"]):
            D = math.sqrt(design.primal_unit / var)
            rows.append(
                {
                    "eps_c": eps,
                    "noise_variance": float(var),
                    "delta_c_exact": float(pdp_delta(eps, D)),
                    "delta_c_eq13": float(eq13_delta(eps, D)),
                }
            )
    dvar = pd.DataFrame(rows)
    rows = []
    nL = len(loo.label_sensitive)
    for eps_l in f6["eps_l_grid"]:
        for D1 in range(1, f6["max_label_sensitivity"] + 1):
            r = rho_for_delta(eps_l, 0.0, K, D1)
            rows.append(
                {
                    "eps_l": eps_l,
                    "delta_1": D1,
                    "rho": r,
                    "n_label_sensitive": nL,
                    "expected_error_pct": 100 * r * nL / P,
                }
            )
    lab = pd.DataFrame(rows)
    write_table(curves, job.output.fig6_noise)
    write_table(dvar, job.output.fig6_variance)
    write_table(lab, job.output.fig6_labels)
    write_json(
        {
            "P": P,
            "K": K,
            "delta_c": loo.centroid_sensitivity,
            "n_label_sensitive": nL,
            "delta_1": loo.label_sensitivity,
            "rho": rho,
            "n_flipped": int((ln != sol.labels).sum()),
            "clustering_loss": r0,
            "eps_c": gm["eps_c"],
            "delta_c_budget": gm["delta_c"],
            "eps_l": gm["eps_l"],
            "delta_l": gm["delta_l"],
        },
        job.output.info,
    )


# --------------------------------------------------------------------------------------------
# Fig. 9: privacy curves and accuracy against baselines
# --------------------------------------------------------------------------------------------


def fig9_accuracy_job(job) -> None:
    """Fig. 9 centre panel at one privacy budget eps_c (wildcard ``eps``): DP accuracy loss of the colored and
    white releases (expected and sampled) and of the baselines, ``n_repeats`` draws each.

    The stream ``job_rng(seed, "dpkmeans", "fig9", <eps label>)`` belongs to this eps_c alone, so the
    merged table does not depend on which budgets run first or where.
    """
    cfg = job.params.cfg
    f9 = cfg["fig9"]
    bl = cfg["baselines"]
    eps = float(job.params.eps)
    rng = job_rng(job.params.seed, PAPER, "fig9", sweep_label(eps))
    z, X, sol, loo, design = load_clustering(job.input.npz)
    K = sol.k
    white = white_noise_design(loo.shifts)
    r0 = clustering_loss(X, sol.centroids, sol.labels)
    D1, L = loo.label_sensitivity, loo.label_sensitive
    rho_c = rho_for_delta(f9["eps_l"], f9["delta_l"], K, D1) if D1 else 0.0
    rows = []
    g = gamma_c(eps, f9["delta_c"], cfg["centroid_noise"]["calibration"])
    for name, dsg in (("colored", design), ("white", white)):
        cov = dsg.covariance(g)
        expct = expected_dp_accuracy_loss(X, sol.centroids, sol.labels, cov, L, rho_c)
        samples = []
        for _ in range(f9["n_repeats"]):
            Cn = sol.centroids + dsg.sample(rng, g).reshape(K, -1)
            ln = modulo_label_mechanism(sol.labels, L, K, rho_c, rng)
            samples.append(dp_accuracy_loss(X, sol.centroids, sol.labels, Cn, ln))
        rows.append(
            {
                "method": name,
                "eps_c": eps,
                "delta_c": f9["delta_c"],
                "expected_loss": expct,
                "mean_loss": float(np.mean(samples)),
                "sd_loss": float(np.std(samples)),
                "noise_trace": dsg.trace(g),
            }
        )
    for name, fn in BASELINES.items():
        samples = []
        for _ in range(f9["n_repeats"]):
            kw = {
                "yu2016": dict(
                    n_iter=bl["n_iter"],
                    n_neighbors=bl["n_neighbors"],
                    outlier_factor=bl["outlier_factor"],
                    count_share=bl["count_share"],
                ),
                "balcan2017": dict(
                    proj_dim=bl["proj_dim"],
                    grid_levels=bl["grid_levels"],
                    n_swaps=bl["n_swaps"],
                    max_candidates=bl["max_candidates"],
                    count_share=bl["count_share"],
                ),
                "ni2021": dict(n_subsets=bl["n_subsets"], n_iter=bl["n_iter"], count_share=bl["count_share"]),
            }[name]
            C = fn(X, K, eps, bl["bound_kw"], rng, **kw)
            samples.append((clustering_loss(X, C, nearest_labels(X, C)) - r0) / r0)
        rows.append(
            {
                "method": name,
                "eps_c": eps,
                "delta_c": 0.0,
                "expected_loss": float("nan"),
                "mean_loss": float(np.mean(samples)),
                "sd_loss": float(np.std(samples)),
                "noise_trace": float("nan"),
            }
        )
    LOG.info("eps_c = %g: mean DP accuracy loss %s", eps, {r["method"]: round(r["mean_loss"], 6) for r in rows})
    write_table(pd.DataFrame(rows), job.output.accuracy)
    write_json({"eps_c": eps, "rho_colored": rho_c}, job.output.info)


def fig9_tables_job(job) -> None:
    """Fig. 9 tables: the per-eps_c accuracy tables of rule dpkmeans_fig9_accuracy merged in ``eps_grid``
    order (centre panel), the privacy curves (left) and the expected label errors (right), closed forms."""
    cfg = job.params.cfg
    f9 = cfg["fig9"]
    calib = cfg["centroid_noise"]["calibration"]
    acc_files, info_files = list(job.input.accuracy), list(job.input.info)
    if not len(acc_files) == len(info_files) == len(f9["eps_grid"]):
        raise ValueError(
            f"{len(acc_files)} accuracy and {len(info_files)} info files for the "
            f"{len(f9['eps_grid'])} entries of config field dpkmeans.fig9.eps_grid"
        )
    infos = [read_json(p) for p in info_files]
    for eps, path, info in zip(f9["eps_grid"], info_files, infos):
        if float(info["eps_c"]) != float(eps):
            raise ValueError(
                f"{path}: field eps_c = {info['eps_c']!r}, expected {float(eps)!r} "
                "(the dpkmeans.fig9.eps_grid entry in this position)"
            )
    for key in ("rho_colored",):
        values = sorted({repr(info[key]) for info in infos})
        if len(values) > 1:
            raise ValueError(
                f"{info_files}: field {key} differs between the privacy budgets ({values}); "
                "rerun them with the same clustering and environment"
            )
    write_table(
        concat_sweep_points(acc_files, "eps_c", [float(e) for e in f9["eps_grid"]], "dpkmeans.fig9.eps_grid"),
        job.output.accuracy,
    )
    z, X, sol, loo, design = load_clustering(job.input.npz)
    K, P = sol.k, len(X)
    # left: eps_c vs delta_c for the colored mechanism at the noise levels calibrated for (eps*, delta_c)
    rows = []
    for eps_star in f9["left_eps_calibrated"]:
        g = gamma_c(eps_star, f9["delta_c"], calib)
        for eps in np.geomspace(f9["left_eps_min"], f9["left_eps_max"], f9["left_n"]):
            rows.append(
                {
                    "calibrated_eps": eps_star,
                    "eps_c": float(eps),
                    "delta_c_exact": float(pdp_delta(eps, math.sqrt(g))),
                    "delta_c_eq13": float(eq13_delta(eps, math.sqrt(g))),
                }
            )
    write_table(pd.DataFrame(rows), job.output.privacy)
    # right: eps_l vs expected label error %
    # (also for the data with outliers, whose label query is sensitive when the clean one is not)
    rows = []
    loo_all = _loo_from_npz(z, "all_")
    for dname, lo_, PP in (("without_outliers", loo, P), ("with_outliers", loo_all, len(z["X_all"]))):
        D, nL = lo_.label_sensitivity, len(lo_.label_sensitive)
        for dl in f9["right_delta_l"]:
            for eps_l in np.linspace(f9["right_eps_min"], f9["right_eps_max"], f9["right_n"]):
                r = rho_for_delta(float(eps_l), dl, K, D) if D else 0.0
                rows.append(
                    {
                        "dataset": dname,
                        "delta_l": dl,
                        "eps_l": float(eps_l),
                        "rho": r,
                        "expected_error_pct": 100 * r * nL / PP,
                        "delta_1": D,
                        "n_label_sensitive": nL,
                    }
                )
    write_table(pd.DataFrame(rows), job.output.labels)
    write_json({"rho_colored": infos[0]["rho_colored"]}, job.output.info)


# --------------------------------------------------------------------------------------------
# Fig. 3: white noise on a smooth series is filtered out
# --------------------------------------------------------------------------------------------


def pitfall_job(job) -> None:
    from scipy.signal import savgol_filter

    from dpgrid.data.meter import MeterData

    cfg = job.params.cfg["white_noise_pitfall"]
    rng = job_rng(job.params.seed, PAPER, "pitfall")
    md = MeterData.load(job.input.readings, job.input.meters)
    res = (
        set(md.meters.loc[md.meters["customer_class"] != "commercial", "meter_id"])
        if cfg["residential_only"]
        else set(md.meters["meter_id"])
    )
    r = md.readings[md.readings["meter_id"].isin(res)]
    avg = r.groupby("timestamp")["kw"].mean()
    noisy = avg.to_numpy() + cfg["sigma"] * rng.standard_normal(len(avg))
    filt = savgol_filter(noisy, cfg["window"], cfg["order"], mode="interp")
    t = avg.index
    write_table(
        pd.DataFrame(
            {
                "timestamp": t.strftime("%Y-%m-%dT%H:%M:%S"),
                "average_kw": avg.to_numpy(),
                "noisy_kw": noisy,
                "filtered_kw": filt,
            }
        ),
        job.output.table,
    )
    rm = lambda a: float(np.sqrt(np.mean((a - avg.to_numpy()) ** 2)))  # noqa: E731
    write_json(
        {
            "sigma": cfg["sigma"],
            "window": cfg["window"],
            "order": cfg["order"],
            "rmse_noisy": rm(noisy),
            "rmse_filtered": rm(filt),
            "n_houses": len(res),
        },
        job.output.info,
    )


# --------------------------------------------------------------------------------------------
# Algorithm 2: synthetic profiles, Figs. 10-11
# --------------------------------------------------------------------------------------------


def synthetic_job(job) -> None:
    from dpgrid.papers.dpkmeans.synthetic_loads import (
        band_summary,
        band_table,
        dp_lognormal_models,
        synthesize_profiles,
    )

    cfg = job.params.cfg
    sy = cfg["synthetic"]
    rng = job_rng(job.params.seed, PAPER, "synthetic")
    z, X, sol, loo, _ = load_clustering(job.input.npz)
    true = read_table(job.input.profiles_true, dtype={"profile_id": str})
    g = true["cluster"].to_numpy()
    K = sol.k
    models, info = dp_lognormal_models(
        X,
        g,
        K,
        alpha=sy["alpha"],
        eps_c=sy["eps_c"],
        delta_c=sy["delta_c"],
        eps_w=sy["eps_w"],
        calibration=cfg["centroid_noise"]["calibration"],
        row_bound=sy["row_bound"],
        cov_floor=sy["cov_floor"],
        rng=rng,
        loo=loo,
        kmeans_labels=sol.labels,
        cov_mechanism=sy["cov_mechanism"],
        delta_w=sy["delta_w"],
        debias_wishart=sy["debias_wishart"],
    )
    counts = np.bincount(g, minlength=K)
    n_out = [max(int(c), int(math.ceil(sy["oversample"] * c))) for c in counts]
    S = synthesize_profiles(models, n_out, sy["alpha"], rng)
    frames = []
    for k, s in enumerate(S):
        f = pd.DataFrame(s, columns=HOURS)
        f.insert(0, "cluster", k)
        f.insert(0, "profile_id", [f"S{k}_{i}" for i in range(len(s))])
        frames.append(f)
    write_table(pd.concat(frames, ignore_index=True), job.output.profiles_synthetic)
    # 90 % bands: true empirical quantiles vs quantiles of the fitted (DP) log-normal
    lo, hi = sy["band"]
    big = synthesize_profiles(models, [sy["n_band_samples"]] * K, sy["alpha"], rng)
    bands = band_table(X, g, big, lo, hi)
    write_table(bands, job.output.bands)
    summ = band_summary(bands)
    vals = np.vstack(S)
    info.update(
        {
            "n_synthetic": [int(n) for n in n_out],
            "cluster_sizes": [int(c) for c in counts],
            "mean_coverage": summ["mean_coverage"],
            "mean_iou": summ["mean_iou"],
            "median_width_ratio": summ["median_width_ratio"],
            "negative_share_synthetic": float((vals < 0).mean()),
            "negative_share_true": float((X < 0).mean()),
            "negative_share_band_samples": summ["neg_synthetic"],
            "alpha": sy["alpha"],
            "eps_c": sy["eps_c"],
            "delta_c": sy["delta_c"],
            "row_bound": sy["row_bound"],
            "debias_wishart": sy["debias_wishart"],
        }
    )
    LOG.info(
        "Fig. 11: IoU %.3f, coverage %.3f, band width ratio %.3g, negative synthetic values %.1f %% (true %.1f %%)",
        info["mean_iou"],
        info["mean_coverage"],
        info["median_width_ratio"],
        100 * info["negative_share_synthetic"],
        100 * info["negative_share_true"],
    )
    write_json(info, job.output.info)


def synthetic_sweep_job(job) -> None:
    """Fig. 11 sweep (docs/dpkmeans.md, "Fidelity"): band IoU, coverage, width and negative share of Algorithm 2
    versus the covariance mechanism, eps_w, the row bound and alpha, one-at-a-time around ``dpkmeans.synthetic``.
    Each setting has its own stream ``job_rng(seed, "dpkmeans", "synthetic_sweep", <setting>)``."""
    from dpgrid.papers.dpkmeans.fidelity import synthetic_sweep_rows, synthetic_sweep_settings

    cfg = job.params.cfg
    sy, sw = cfg["synthetic"], cfg["synthetic_sweep"]
    z, X, sol, loo, _ = load_clustering(job.input.npz)
    g = read_table(job.input.profiles_true, dtype={"profile_id": str})["cluster"].to_numpy()
    settings = synthetic_sweep_settings(sy, sw)
    rows = synthetic_sweep_rows(
        X,
        g,
        sol.k,
        settings,
        eps_c=sy["eps_c"],
        delta_c=sy["delta_c"],
        calibration=cfg["centroid_noise"]["calibration"],
        cov_floor=sy["cov_floor"],
        n_samples=sw["n_band_samples"],
        band=sy["band"],
        rng_for=lambda label: job_rng(job.params.seed, PAPER, "synthetic_sweep", label),
        loo=loo,
        kmeans_labels=sol.labels,
    )
    LOG.info("Fig. 11 sweep: %d settings", len(rows))
    write_table(pd.DataFrame(rows), job.output.table)


def fidelity_job(job) -> None:
    """Paper-parameter variants (Figs. 8-9 at the paper's Delta_c = 2.13 and 39.20) and the exact hockey-stick
    delta of every calibrated colored-noise budget (closed forms); Delta_c with the outliers versus the size of
    the commercial meters (K-means per factor, stream ``job_rng(seed, "dpkmeans", "fidelity", "commercial", m)``).
    See docs/dpkmeans.md, "Fidelity"."""
    from dpgrid.papers.dpkmeans.fidelity import commercial_scale_rows, exact_delta_rows, paper_variant_rows
    from dpgrid.papers.dpkmeans.paper import PAPER_VALUES

    cfg = job.params.cfg
    calib = cfg["centroid_noise"]["calibration"]
    rel, f9 = cfg["release"], cfg["fig9"]
    z, X, sol, loo, design = load_clustering(job.input.npz)
    K = sol.k
    loo_all = _loo_from_npz(z, "all_")
    design_all = CentroidNoiseDesign(
        z["all_basis"], z["all_cov_unit"], "colored_dual", float(np.trace(z["all_cov_unit"]))
    )
    rows = []
    for dataset, Xd, C, lab, lo_, dsg, paper in (
        ("without_outliers", X, sol.centroids, sol.labels, loo, design, PAPER_VALUES["delta_c_without_outliers"]),
        (
            "with_outliers",
            z["X_all"],
            z["all_centroids"],
            z["all_labels"],
            loo_all,
            design_all,
            PAPER_VALUES["delta_c_with_outliers"],
        ),
    ):
        D1 = lo_.label_sensitivity
        rho8 = rho_for_delta(rel["eps_l"], rel["delta_l"], K, D1) if D1 else 0.0
        rho9 = rho_for_delta(f9["eps_l"], f9["delta_l"], K, D1) if D1 else 0.0
        budgets = [("fig8", rel["eps_c"], rel["delta_c"], rho8)]
        budgets += [("fig9", e, f9["delta_c"], rho9) for e in f9["eps_grid"]]
        rows += paper_variant_rows(
            Xd,
            C,
            lab,
            dsg,
            lo_.shifts,
            dataset=dataset,
            delta_c_ours=lo_.centroid_sensitivity,
            delta_c_paper=paper,
            budgets=budgets,
            calibration=calib,
            sensitive=lo_.label_sensitive,
        )
    write_table(pd.DataFrame(rows), job.output.variants)
    sy, gm = cfg["synthetic"], cfg["gaussian_mixture"]
    budgets = [
        ("fig8 release", rel["eps_c"], rel["delta_c"]),
        ("fig11 log means", sy["eps_c"], sy["delta_c"]),
        ("fig5 gaussian mixture", gm["eps_c"], gm["delta_c"]),
    ]
    budgets += [("fig9 centre", e, f9["delta_c"]) for e in f9["eps_grid"]]
    budgets += [("audit", e, d) for e, d in cfg["audit"]["centroid_budgets"]]
    write_table(pd.DataFrame(exact_delta_rows(budgets)), job.output.exact_delta)
    km = cfg["kmeans"]
    rows = commercial_scale_rows(
        z["X_all"],
        z["commercial"],
        cfg["fidelity"]["commercial_scale"],
        K,
        n_init=km["n_init"],
        max_iter=km["max_iter"],
        rng_for=lambda label: job_rng(job.params.seed, PAPER, "fidelity", "commercial", label),
    )
    write_table(pd.DataFrame(rows), job.output.commercial_sweep)


def standin_draws_job(job) -> None:
    """Robustness of the stand-in's calibration: Delta_c without outliers for ``fidelity.n_draws`` other draws of
    the same population (:func:`dpgrid.papers.dpkmeans.calibration.standin_draws`).  Empty (header only)
    when the data source is not the stand-in."""
    from dpgrid.papers.dpkmeans.calibration import standin_draws

    cfg, spec = job.params.cfg, job.params.spec
    cols = ["draw", "root_seed", "separation", "delta_c", "cluster_sizes", "n_small_clusters", "K", "P"]
    if spec["source"] != "dpkmeans_standin":
        LOG.info("data source %s is not the stand-in: no draws", spec["source"])
        rows = []
    else:
        rows = standin_draws(spec, cfg, job.params.seed, cfg["fidelity"]["n_draws"])
    write_table(pd.DataFrame(rows, columns=cols), job.output.table)


def bic_job(job) -> None:
    """Fig. 10 table: per cluster and hour, the BIC of each candidate; the winner."""
    from dpgrid.models.lognormal import bic_table

    cfg = job.params.cfg["fig10"]
    true = read_table(job.input.profiles_true, dtype={"profile_id": str})
    rows = []
    for k, grp in true.groupby("cluster"):
        for h, col in enumerate(HOURS):
            x = grp[col].to_numpy(float)
            if len(x) < cfg["min_samples"] or np.ptp(x) <= 0:
                continue
            t = bic_table(np.maximum(x, cfg["min_kw"]), cfg["candidates"], floc=0.0)
            best = t.loc[t["bic"].idxmin(), "distribution"]
            for _, r in t.iterrows():
                p = r["params"]
                rows.append(
                    {
                        "cluster": int(k),
                        "hour": h,
                        "n": len(x),
                        "distribution": r["distribution"],
                        "bic": r["bic"],
                        "loglik": r["loglik"],
                        "shape": p[0] if len(p) == 3 else np.nan,
                        "loc": p[-2],
                        "scale": p[-1],
                        "winner": r["distribution"] == best,
                    }
                )
    columns = ["cluster", "hour", "n", "distribution", "bic", "loglik", "shape", "loc", "scale", "winner"]
    if not rows:
        LOG.warning(
            "Fig. 10: no cluster has >= fig10.min_samples = %d profiles; the BIC table is empty", cfg["min_samples"]
        )
    write_table(pd.DataFrame(rows, columns=columns), job.output.table)


# --------------------------------------------------------------------------------------------
# privacy audits
# --------------------------------------------------------------------------------------------


def _cp(k, n, alpha):
    """Clopper-Pearson interval of ``k`` successes in ``n`` at level ``1 - alpha`` (scalars)."""
    lo, hi = clopper_pearson(k, n, level=1.0 - alpha)
    return float(lo), float(hi)


def audit_job(job) -> None:
    cfg = job.params.cfg
    au = cfg["audit"]
    rng = job_rng(job.params.seed, PAPER, "audit")
    z, X, sol, loo, design = load_clustering(job.input.npz)
    K = sol.k
    rows = []
    # Family-wise level au["alpha"] over all audits of this job (Bonferroni): per-test alpha / m.
    n_tests = 2 * len(au["centroid_budgets"]) + len(au["label_budgets"]) + 1
    alpha = au["alpha"] / n_tests
    # colored mechanism: worst leave-one-out pair, privacy loss from the Gaussian log-densities
    q = design.mahalanobis_sq(loo.shifts)
    p = int(np.argmax(q))
    u = loo.shifts[p] @ design.basis
    Gu = np.linalg.solve(design.cov_unit, u)
    for calib in ("exact_pdp", "paper_eq13"):
        for eps, delta in au["centroid_budgets"]:
            g = gamma_c(eps, delta, calib)
            eta = design.sample(rng, g, au["n_samples"]) @ design.basis  # in the span
            # L = log N(c~; c, S) - log N(c~; c - u, S) = g u'G eta + g u'G u / 2 (G = cov_unit^-1)
            L = g * (eta @ Gu) + 0.5 * g * float(u @ Gu)
            k = int((L > eps).sum())
            lo, hi = _cp(k, au["n_samples"], alpha)
            rows.append(
                {
                    "mechanism": "colored_centroids",
                    "calibration": calib,
                    "eps": eps,
                    "claimed_delta": delta,
                    "exact_delta": float(pdp_delta(eps, math.sqrt(g * q[p]))),
                    "empirical_delta": k / au["n_samples"],
                    "ci_low": lo,
                    "ci_high": hi,
                    "n_samples": au["n_samples"],
                    "pair": f"remove point {p}",
                    "consistent": lo <= delta,
                }
            )
    n_min_clean = int(np.bincount(sol.labels).min())
    # label mechanism: the removal with the most label changes (on the data without outliers; if no
    # label is sensitive there, on the data with outliers, so that the audit runs on a real pair)
    lsol, lloo, lname = sol, loo, "without outliers"
    if loo.label_sensitivity == 0:
        lsol, lloo, lname = (
            KMeansSolution(z["all_centroids"], z["all_labels"]),
            _loo_from_npz(z, "all_"),
            "with outliers",
        )
    D1 = lloo.label_sensitivity
    if D1:
        sol, loo = lsol, lloo
        p = int(np.argmax([len(c) for c in loo.changed]))
        Ls = loo.label_sensitive
        lab2 = sol.labels.copy()
        lab2[loo.changed[p]] = loo.changed_to[p]
        for eps_l, dl in au["label_budgets"]:
            rho = rho_for_delta(eps_l, dl, K, D1)
            n = au["n_samples_labels"]
            nu = label_noise((n, len(Ls)), K, rho, rng)
            out = (sol.labels[Ls][None, :] + nu) % K
            Lv = label_noise_log_pmf(out - sol.labels[Ls], K, rho).sum(1) - label_noise_log_pmf(
                out - lab2[Ls], K, rho
            ).sum(1)
            k = int((Lv > eps_l + 1e-12).sum())
            lo, hi = _cp(k, n, alpha)
            claimed = label_delta(eps_l, rho, K, D1)
            rows.append(
                {
                    "mechanism": "modulo_labels",
                    "calibration": "theorem4",
                    "eps": eps_l,
                    "claimed_delta": claimed,
                    "exact_delta": claimed,
                    "empirical_delta": k / n,
                    "ci_low": lo,
                    "ci_high": hi,
                    "n_samples": n,
                    "pair": f"remove point {p} ({D1} labels change; data {lname})",
                    "consistent": lo <= claimed,
                }
            )
    # Wishart mechanism (Jiang et al.): Pr(L = inf) on the pair x = 0, x' = B e1, closed form 1 - exp(-eps/3)
    from scipy.stats import wishart

    sy = cfg["synthetic"]
    d = X.shape[1]
    n = n_min_clean
    c = 3.0 * sy["row_bound"] ** 2 / (2.0 * n * sy["eps_w"])
    W = wishart(df=d + 1, scale=c * np.eye(d)).rvs(size=au["n_samples_wishart"], random_state=rng)
    v = np.zeros(d)
    v[0] = sy["row_bound"] / math.sqrt(n)
    fail = np.array([np.linalg.eigvalsh(w - np.outer(v, v))[0] <= 0 for w in W])
    k = int(fail.sum())
    lo, hi = _cp(k, len(W), alpha)
    rows.append(
        {
            "mechanism": "wishart_covariance",
            "calibration": "jiang2016",
            "eps": sy["eps_w"],
            "claimed_delta": 0.0,
            "exact_delta": wishart_delta(sy["eps_w"]),
            "empirical_delta": k / len(W),
            "ci_low": lo,
            "ci_high": hi,
            "n_samples": len(W),
            "pair": f"replace a zero row by a norm-{sy['row_bound']} row (n={n})",
            "consistent": lo <= 0.0,
        }
    )
    out = pd.DataFrame(rows)
    out["alpha_per_test"] = alpha
    write_table(out, job.output.table)

"""dpkmeans stage: the Gaussian-mixture example of Figs. 5-6 (Ravi et al., Sec. V-A): Algorithm 1 on K
equally likely circular components, and Fig. 6's curves (noise variance, delta_c and accuracy loss versus the
budget; expected label error versus the label sensitivity), closed forms."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpgrid.core.io import write_json, write_table
from dpgrid.core.replicates import noise_generator
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms.colored_centroid_noise import eq13_delta, gamma_c, optimal_colored_design
from dpgrid.mechanisms.kmeans_loss import clustering_loss, expected_dp_accuracy_loss
from dpgrid.mechanisms.kmeans_sensitivity import fit_kmeans, leave_one_out_analysis
from dpgrid.papers.dpkmeans.algorithm1 import algorithm1_release
from dpgrid.papers.dpkmeans.paper import PAPER
from dpgrid.privacy.gaussian import pdp_delta
from dpgrid.privacy.label_modulo_delta import rho_for_delta


def _mixture_points(gm: dict, rng: np.random.Generator) -> np.ndarray:
    """``n_points`` draws of K equally likely isotropic Gaussians centred on a circle of ``radius``."""
    K, P = gm["k"], gm["n_points"]
    ang = 2 * np.pi * np.arange(K) / K
    mu = gm["radius"] * np.c_[np.cos(ang), np.sin(ang)]
    comp = rng.integers(0, K, P)  # equally likely components
    return mu[comp] + gm["sigma"] * rng.standard_normal((P, 2))


def _noise_rows(f6: dict, X, sol, design) -> pd.DataFrame:
    """Fig. 6: noise variance and expected accuracy loss per (eps_c, delta_c) and calibration."""
    rows = []
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
    return pd.DataFrame(rows)


def _variance_rows(f6: dict, design) -> pd.DataFrame:
    """delta_c of a fixed noise level (variance) for each eps: exact tail with Delta^2 = trace_unit / variance."""
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
    return pd.DataFrame(rows)


def _label_rows(f6: dict, K: int, P: int, n_label_sensitive: int) -> pd.DataFrame:
    """Expected label error (%) versus eps_l and the label sensitivity Delta_1 (Theorem 4, delta_l = 0)."""
    rows = []
    for eps_l in f6["eps_l_grid"]:
        for D1 in range(1, f6["max_label_sensitivity"] + 1):
            r = rho_for_delta(eps_l, 0.0, K, D1)
            rows.append(
                {
                    "eps_l": eps_l,
                    "delta_1": D1,
                    "rho": r,
                    "n_label_sensitive": n_label_sensitive,
                    "expected_error_pct": 100 * r * n_label_sensitive / P,
                }
            )
    return pd.DataFrame(rows)


def _write_fig5(job, X, sol, loo, Cn, ln) -> None:
    """Fig. 5's points (true and noisy labels, set L) and centroids (true and noisy)."""
    pts = {"x": X[:, 0], "y": X[:, 1], "label": sol.labels, "noisy_label": ln}
    pts["in_L"] = np.isin(np.arange(len(X)), loo.label_sensitive)
    write_table(pd.DataFrame(pts), job.output.points)
    cents = {"cluster": np.arange(sol.k), "x": sol.centroids[:, 0], "y": sol.centroids[:, 1]}
    cents.update({"noisy_x": Cn[:, 0], "noisy_y": Cn[:, 1]})
    write_table(pd.DataFrame(cents), job.output.centroids)


def gaussian_mixture_job(job) -> None:
    cfg = job.params.cfg
    gm, f6 = cfg["gaussian_mixture"], cfg["fig6"]
    # the mixture and its k-means from the data seed, the release's noise after them on the same stream, or from the
    # noise seed's stream for another noise replicate of the same data (dpgrid.core.replicates)
    keys = (PAPER, "gaussian_mixture")
    rng = job_rng(job.params.data_seed, *keys)
    K, P = gm["k"], gm["n_points"]
    X = _mixture_points(gm, rng)
    sol = fit_kmeans(X, K, rng, n_init=cfg["kmeans"]["n_init"])
    noise = noise_generator(rng, job.params.data_seed, job.params.seed, *keys)
    loo = leave_one_out_analysis(X, sol)
    design = optimal_colored_design(loo.shifts, tol=cfg["centroid_noise"]["solver_tol"])
    Cn, ln, rho, _, gam = algorithm1_release(
        X,
        sol,
        loo,
        design,
        gm["eps_c"],
        gm["delta_c"],
        gm["eps_l"],
        gm["delta_l"],
        cfg["centroid_noise"]["calibration"],
        noise,
    )
    _write_fig5(job, X, sol, loo, Cn, ln)
    nL = len(loo.label_sensitive)
    write_table(_noise_rows(f6, X, sol, design), job.output.fig6_noise)
    write_table(_variance_rows(f6, design), job.output.fig6_variance)
    write_table(_label_rows(f6, K, P, nL), job.output.fig6_labels)
    info = {
        "P": P,
        "K": K,
        "delta_c": loo.centroid_sensitivity,
        "n_label_sensitive": nL,
        "delta_1": loo.label_sensitivity,
        "rho": rho,
        "n_flipped": int((ln != sol.labels).sum()),
        "clustering_loss": clustering_loss(X, sol.centroids, sol.labels),
        "eps_c": gm["eps_c"],
        "delta_c_budget": gm["delta_c"],
        "eps_l": gm["eps_l"],
        "delta_l": gm["delta_l"],
    }
    write_json(info, job.output.info)

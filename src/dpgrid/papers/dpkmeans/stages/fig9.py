"""dpkmeans stage: Fig. 9 (Ravi et al., Sec. V-C): DP accuracy loss of the colored and white releases and of
the baselines per privacy budget eps_c (centre panel), the privacy curves (left) and the expected label
errors (right), closed forms."""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from dpgrid.core.io import read_json, write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.core.sweeps import concat_sweep_points, sweep_label
from dpgrid.mechanisms.colored_centroid_noise import eq13_delta, gamma_c, white_noise_design
from dpgrid.mechanisms.dp_kmeans_baselines import BASELINES, nearest_labels
from dpgrid.mechanisms.kmeans_loss import clustering_loss, dp_accuracy_loss, expected_dp_accuracy_loss
from dpgrid.mechanisms.modulo_label import modulo_label_mechanism
from dpgrid.papers.dpkmeans.clustering_npz import load_clustering, loo_from_npz
from dpgrid.papers.dpkmeans.paper import PAPER
from dpgrid.privacy.gaussian import pdp_delta
from dpgrid.privacy.label_modulo_delta import rho_for_delta

LOG = logging.getLogger(__name__)


def _baseline_kwargs(name: str, bl: dict) -> dict:
    """The ``dpkmeans.baselines`` settings baseline ``name`` takes."""
    return {
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


def _noise_rows(X, sol, loo, designs, eps, f9, g, rho_c, rng) -> list[dict]:
    """Expected and sampled (``n_repeats`` draws) DP accuracy loss of each centroid design, in ``designs`` order."""
    K, L = sol.k, loo.label_sensitive
    rows = []
    for name, dsg in designs:
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
    return rows


def _baseline_rows(X, K, eps, r0, n_repeats, bl, rng) -> list[dict]:
    """Relative clustering loss of each baseline (``n_repeats`` draws each, in :data:`BASELINES` order)."""
    rows = []
    for name, fn in BASELINES.items():
        samples = []
        for _ in range(n_repeats):
            C = fn(X, K, eps, bl["bound_kw"], rng, **_baseline_kwargs(name, bl))
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
    return rows


def fig9_accuracy_job(job) -> None:
    """Fig. 9 centre panel at one privacy budget eps_c (wildcard ``eps``): DP accuracy loss of the colored and
    white releases (expected and sampled) and of the baselines, ``n_repeats`` draws each.

    The stream ``job_rng(seed, "dpkmeans", "fig9", <eps label>)`` belongs to this eps_c alone, so the
    merged table does not depend on which budgets run first or where.
    """
    cfg = job.params.cfg
    f9 = cfg["fig9"]
    eps = float(job.params.eps)
    rng = job_rng(job.params.seed, PAPER, "fig9", sweep_label(eps))
    z, X, sol, loo, design = load_clustering(job.input.npz)
    designs = (("colored", design), ("white", white_noise_design(loo.shifts)))
    r0 = clustering_loss(X, sol.centroids, sol.labels)
    D1 = loo.label_sensitivity
    rho_c = rho_for_delta(f9["eps_l"], f9["delta_l"], sol.k, D1) if D1 else 0.0
    g = gamma_c(eps, f9["delta_c"], cfg["centroid_noise"]["calibration"])
    rows = _noise_rows(X, sol, loo, designs, eps, f9, g, rho_c, rng)
    rows += _baseline_rows(X, sol.k, eps, r0, f9["n_repeats"], cfg["baselines"], rng)
    LOG.info("eps_c = %g: mean DP accuracy loss %s", eps, {r["method"]: round(r["mean_loss"], 6) for r in rows})
    write_table(pd.DataFrame(rows), job.output.accuracy)
    write_json({"eps_c": eps, "rho_colored": rho_c}, job.output.info)


def _checked_infos(info_files: list, acc_files: list, f9: dict) -> list[dict]:
    """The per-eps_c info files, checked to be one per ``eps_grid`` entry, in its order, with one rho."""
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
    return infos


def _privacy_rows(f9: dict, calib: str) -> list[dict]:
    """Left panel: eps_c vs delta_c of the colored mechanism at the noise levels calibrated for (eps*, delta_c)."""
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
    return rows


def _label_rows(f9: dict, K: int, datasets) -> list[dict]:
    """Right panel: eps_l vs expected label error % for each (name, leave-one-out analysis, P) in ``datasets``
    (also the data with outliers, whose label query is sensitive when the clean one is not)."""
    rows = []
    for dname, lo_, PP in datasets:
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
    return rows


def fig9_tables_job(job) -> None:
    """Fig. 9 tables: the per-eps_c accuracy tables of rule dpkmeans_fig9_accuracy merged in ``eps_grid``
    order (centre panel), the privacy curves (left) and the expected label errors (right), closed forms."""
    f9 = job.params.cfg["fig9"]
    acc_files, info_files = list(job.input.accuracy), list(job.input.info)
    infos = _checked_infos(info_files, acc_files, f9)
    write_table(
        concat_sweep_points(acc_files, "eps_c", [float(e) for e in f9["eps_grid"]], "dpkmeans.fig9.eps_grid"),
        job.output.accuracy,
    )
    z, X, sol, loo, design = load_clustering(job.input.npz)
    write_table(pd.DataFrame(_privacy_rows(f9, job.params.cfg["centroid_noise"]["calibration"])), job.output.privacy)
    datasets = (("without_outliers", loo, len(X)), ("with_outliers", loo_from_npz(z, "all_"), len(z["X_all"])))
    write_table(pd.DataFrame(_label_rows(f9, sol.k, datasets)), job.output.labels)
    write_json({"rho_colored": infos[0]["rho_colored"]}, job.output.info)

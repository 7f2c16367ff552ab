"""dpkmeans stage: the Fig. 8 release (Algorithm 1 on the data without outliers) and its total budget
(Corollary 1: eps_c + eps_l, delta_c + Theorem 4's delta_l)."""

from __future__ import annotations

import logging
import math

import pandas as pd

from dpgrid.core.io import read_table, save_npz, write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.mechanisms.kmeans_loss import dp_accuracy_loss
from dpgrid.papers.dpkmeans.algorithm1 import algorithm1_release
from dpgrid.papers.dpkmeans.clustering_npz import load_clustering
from dpgrid.papers.dpkmeans.paper import PAPER
from dpgrid.privacy.composition import compose_sequential
from dpgrid.privacy.gaussian import pdp_delta
from dpgrid.privacy.label_modulo_delta import label_delta

LOG = logging.getLogger(__name__)


def release_job(job) -> None:
    cfg = job.params.cfg
    rel = cfg["release"]
    calibration = cfg["centroid_noise"]["calibration"]
    rng = job_rng(job.params.seed, PAPER, "release")
    z, X, sol, loo, design = load_clustering(job.input.npz)
    Cn, ln, rho, dsg, gam = algorithm1_release(
        X, sol, loo, design, rel["eps_c"], rel["delta_c"], rel["eps_l"], rel["delta_l"], calibration, rng
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
        "calibration": calibration,
        "gamma_c": gam,
        "noise_trace": dsg.trace(gam),
        "exact_pdp_delta_c": float(pdp_delta(rel["eps_c"], math.sqrt(gam))),
        "n_labels_changed": int((ln != sol.labels).sum()),
        "P": len(X),
        "dp_accuracy_loss": dp_accuracy_loss(X, sol.centroids, sol.labels, Cn, ln),
    }
    LOG.info("release: %s", info)
    write_json(info, job.output.info)

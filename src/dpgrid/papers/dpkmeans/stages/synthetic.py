"""dpkmeans stage: Algorithm 2, synthetic profiles from DP log-normal models per cluster (Ravi et al.,
Sec. IV-B, Figs. 10-11), and the Fig. 11 sweep of its settings."""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table, write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.papers.dpkmeans.clustering_npz import load_clustering
from dpgrid.papers.dpkmeans.paper import PAPER

LOG = logging.getLogger(__name__)


def _synthetic_frame(S) -> pd.DataFrame:
    """The synthetic profiles of every cluster, ids ``S<cluster>_<i>``."""
    frames = []
    for k, s in enumerate(S):
        f = pd.DataFrame(s, columns=HOURS)
        f.insert(0, "cluster", k)
        f.insert(0, "profile_id", [f"S{k}_{i}" for i in range(len(s))])
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def _summary(sy: dict, X, S, n_out, counts, summ: dict) -> dict:
    """The Fig. 11 numbers of synthetic_info.json beside the models' own (band fit, negative shares, settings)."""
    vals = np.vstack(S)
    return {
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


def _dp_models(X, g, K, cfg: dict, loo, sol, rng):
    """Algorithm 2's DP log-normal model per cluster (``dpkmeans.synthetic``), drawn from ``rng``."""
    from dpgrid.papers.dpkmeans.synthetic_loads import dp_lognormal_models

    sy = cfg["synthetic"]
    return dp_lognormal_models(
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


def synthetic_job(job) -> None:
    from dpgrid.papers.dpkmeans.synthetic_loads import band_summary, band_table, synthesize_profiles

    cfg = job.params.cfg
    sy = cfg["synthetic"]
    rng = job_rng(job.params.seed, PAPER, "synthetic")
    z, X, sol, loo, _ = load_clustering(job.input.npz)
    g = read_table(job.input.profiles_true, dtype={"profile_id": str})["cluster"].to_numpy()
    K = sol.k
    models, info = _dp_models(X, g, K, cfg, loo, sol, rng)
    counts = np.bincount(g, minlength=K)
    n_out = [max(int(c), int(math.ceil(sy["oversample"] * c))) for c in counts]
    S = synthesize_profiles(models, n_out, sy["alpha"], rng)
    write_table(_synthetic_frame(S), job.output.profiles_synthetic)
    # 90 % bands: true empirical quantiles vs quantiles of the fitted (DP) log-normal
    lo, hi = sy["band"]
    big = synthesize_profiles(models, [sy["n_band_samples"]] * K, sy["alpha"], rng)
    bands = band_table(X, g, big, lo, hi)
    write_table(bands, job.output.bands)
    info.update(_summary(sy, X, S, n_out, counts, band_summary(bands)))
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
    """Fig. 11 sweep (workflow/papers/dpkmeans/dpkmeans.md, "Fidelity"): band IoU, coverage, width and negative share of
    Algorithm 2 versus the covariance mechanism, eps_w, the row bound and alpha, one-at-a-time around
    ``dpkmeans.synthetic``. Each setting has its own stream ``job_rng(seed, "dpkmeans", "synthetic_sweep",
    <setting>)``."""
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

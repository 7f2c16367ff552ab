"""Calibration of the dpkmeans stand-in's one free property on one printed number (workflow/papers/dpkmeans/dpkmeans.md,
"Stand-in data").

The stand-in population (:mod:`dpgrid.papers.dpkmeans.standin`) has every property the paper states about its
data; the one it leaves free is ``separation``, how far the two small residential clusters sit from the rest.
It is calibrated on the paper's Delta_c = 2.13 without outliers (Figs. 8-9), the sensitivity every figure
after Fig. 7 is built on.  Every other printed number of the paper stays a held-out prediction (Delta_c = 39.20
with outliers included).

:func:`clean_delta_c` reproduces exactly what the pipeline computes for a given ``separation`` (the data
rule's random stream, daily profiles, the configured outlier removal, the clustering job's stream and its
K-means fits, the exact leave-one-out analysis); :func:`calibrate_separation` solves Delta_c(separation) = 2.13
for the configured root seed (scipy's Brent method on a bracket).  Run it after changing anything that
moves the data::

    PYTHONPATH=src python -m dpgrid.papers.dpkmeans.calibration [--configfile config/config.yaml]

and put the printed ``separation`` into ``data.experiments.dpkmeans``.
"""

from __future__ import annotations

import argparse
import logging

import numpy as np

from dpgrid.core.seeds import job_rng
from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.data.profiles import daily_profiles
from dpgrid.data.sources import load_experiment_data
from dpgrid.mechanisms.kmeans_sensitivity import leave_one_out_analysis
from dpgrid.papers.dpkmeans import standin
from dpgrid.papers.dpkmeans.clustering import clustering_fits, outlier_masks
from dpgrid.papers.dpkmeans.paper import PAPER, PAPER_VALUES

LOG = logging.getLogger(__name__)


def clean_delta_c(spec: dict, cfg: dict, seed: int, separation: float) -> dict:
    """Delta_c of the data without outliers, as rules meter_data, dpkmeans_profiles and dpkmeans_clustering
    compute it, for the stand-in ``spec`` (``data.experiments[cfg["data_source"]]``) at ``separation``."""
    if spec.get("source") != "dpkmeans_standin":
        raise ValueError(
            f"data.experiments.{cfg['data_source']}.source must be dpkmeans_standin to calibrate its "
            f"separation, got {spec.get('source')!r}"
        )
    md = load_experiment_data(
        {**spec, "separation": float(separation)},
        job_rng(seed, "data", cfg["data_source"]),
        name=cfg["data_source"],
        module=standin,
    )
    prof = daily_profiles(md)
    X_all = prof[HOURS].to_numpy(float)
    om = outlier_masks(X_all, prof["customer_class"], cfg["outliers"])
    X, sol = clustering_fits(X_all, om["removed"], cfg["k"], cfg["kmeans"], job_rng(seed, PAPER, "clustering"))[
        "without_outliers"
    ]
    loo = leave_one_out_analysis(X, sol, max_iter=cfg["kmeans"]["max_iter"])
    return {
        "separation": float(separation),
        "delta_c": loo.centroid_sensitivity,
        "cluster_sizes": np.bincount(sol.labels, minlength=cfg["k"]).tolist(),
        "P": len(X),
    }


def standin_draws(spec: dict, cfg: dict, seed: int, n_draws: int) -> list[dict]:
    """Delta_c without outliers of ``n_draws`` other draws of the same stand-in population (same ``separation``):
    how much of the calibrated 2.13 is the property of the population and how much the luck of one draw.
    Draw i uses the root seed ``job_rng(seed, "dpkmeans", "standin_draws", i).integers(2**31)``."""
    K = cfg["k"]
    rows = []
    for i in range(n_draws):
        root = int(job_rng(seed, PAPER, "standin_draws", i).integers(2**31))
        r = clean_delta_c(spec, cfg, root, spec["separation"])
        rows.append(
            {
                "draw": i,
                "root_seed": root,
                "separation": r["separation"],
                "delta_c": r["delta_c"],
                "cluster_sizes": " ".join(map(str, sorted(r["cluster_sizes"], reverse=True))),
                "n_small_clusters": sum(c < 25 for c in r["cluster_sizes"]),
                "K": K,
                "P": r["P"],
            }
        )
        LOG.info("draw %d (root seed %d): Delta_c %.4g, clusters %s", i, root, r["delta_c"], rows[-1]["cluster_sizes"])
    return rows


def calibrate_separation(
    config: dict,
    *,
    target: float = PAPER_VALUES["delta_c_without_outliers"],
    bracket: tuple[float, float] = (1.25, 2.0),
    xtol: float = 1e-3,
) -> dict:
    """The ``separation`` with Delta_c(without outliers) = ``target`` for ``config`` (root seed, dpkmeans section)."""
    from scipy.optimize import brentq

    cfg = config["dpkmeans"]
    spec = config["data"]["experiments"][cfg["data_source"]]
    seed = config["seed"]
    trace = []

    def f(sep: float) -> float:
        r = clean_delta_c(spec, cfg, seed, sep)
        trace.append(r)
        LOG.info("separation %.6g: Delta_c %.6g, clusters %s", sep, r["delta_c"], r["cluster_sizes"])
        return r["delta_c"] - target

    lo, hi = bracket
    if f(lo) * f(hi) > 0:
        raise ValueError(f"Delta_c - {target} has the same sign at separation {lo} and {hi}: widen the bracket")
    sep = brentq(f, lo, hi, xtol=xtol)
    return {"separation": float(sep), "target": target, "trace": trace}


def main(argv=None) -> None:
    from dpgrid.core.config import load_config

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configfile", nargs="*", default=["config/config.yaml"])
    ap.add_argument("--target", type=float, default=PAPER_VALUES["delta_c_without_outliers"])
    ap.add_argument("--bracket", type=float, nargs=2, default=(1.25, 2.0))
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    config = load_config(args.configfile)
    res = calibrate_separation(config, target=args.target, bracket=tuple(args.bracket))
    sep = float(f"{res['separation']:.4g}")
    check = clean_delta_c(
        config["data"]["experiments"][config["dpkmeans"]["data_source"]], config["dpkmeans"], config["seed"], sep
    )
    print(
        f"separation: {sep}  (Delta_c without outliers {check['delta_c']:.4f}, target {args.target}; "
        f"clusters {check['cluster_sizes']})"
    )


if __name__ == "__main__":
    main()

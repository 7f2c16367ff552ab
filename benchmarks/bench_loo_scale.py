"""CPU time and peak memory of the dpkmeans clustering path (k-NN outlier scores, K-means, leave-one-out
sensitivity) as a function of the number of meter profiles, in-process.

The per-stage breakdown behind benchmarks/scale.md (the pipeline run of bench_scale.py gives only the whole
rule): the profiles of a finished run (results/dpkmeans/profiles_all.csv, e.g. of the 10x configuration) are
replicated ``--times`` times with seeded multiplicative jitter (each copy x (1 + 0.05 N(0, 1)) per value,
clipped at 0), which keeps the cluster structure and the density of near-boundary points per cluster.

    python benchmarks/bench_loo_scale.py PROFILES_CSV [--times 10] [--k 6]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import pandas as pd

from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.mechanisms.dp_kmeans_baselines import knn_scores
from dpgrid.mechanisms.kmeans_sensitivity import fit_kmeans, leave_one_out_analysis


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("profiles")
    ap.add_argument("--times", type=int, default=1)
    ap.add_argument("--k", type=int, default=6)
    ap.add_argument("--seed", type=int, default=20)
    args = ap.parse_args(argv)
    prof = pd.read_csv(args.profiles, dtype={"meter_id": str})
    res = (prof["customer_class"].astype(str) == "residential").to_numpy()
    X0 = prof[HOURS].to_numpy(float)[res]
    rng = np.random.default_rng(args.seed)
    X = np.vstack(
        [X0] + [np.maximum(X0 * (1 + 0.05 * rng.standard_normal(X0.shape)), 0.0) for _ in range(args.times - 1)]
    )
    cpu = time.process_time
    out = {"P": len(X)}
    t = cpu()
    knn_scores(X, 20)
    out["knn_cpu_s"] = cpu() - t
    t = cpu()
    sol = fit_kmeans(X, args.k, np.random.default_rng(args.seed), n_init=10)
    out["kmeans_cpu_s"] = cpu() - t
    t = cpu()
    loo = leave_one_out_analysis(X, sol)
    out["loo_cpu_s"] = cpu() - t
    out["relabelling_removals"] = int(loo.relabelled.sum())
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(" ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in out.items()))


if __name__ == "__main__":
    main()

"""CPU time and peak memory of the dpkmeans clustering path (k-NN outlier scores, K-means, leave-one-out
sensitivity) as a function of the number of meter profiles, in-process.

The per-stage breakdown behind benchmarks/scale.md (the pipeline run of bench_scale.py gives only the whole
rule): the profiles of a finished run (results/dpkmeans/profiles_all.csv, e.g. of the 10x configuration) are
replicated ``--times`` times with seeded multiplicative jitter (each copy x (1 + 0.05 N(0, 1)) per value,
clipped at 0), which keeps the cluster structure and the density of near-boundary points per cluster.

    python benchmarks/bench_loo_scale.py PROFILES_CSV [--times 10] [--k 6] [--compare 82ebeed]

Also times the eq. (15) colored-noise solver on the leave-one-out shifts (``solver_cpu_s``). ``--compare REV``
runs the leave-one-out and the solver of the code at git revision REV on the same data in the same process
(``old_*`` columns; the modules are loaded from ``git show REV:path``) and reports the largest relative
difference of the shifts and of the design's covariance.
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.mechanisms.colored_centroid_noise import optimal_colored_design
from dpgrid.mechanisms.dp_kmeans_baselines import knn_scores
from dpgrid.mechanisms.kmeans_sensitivity import fit_kmeans, leave_one_out_analysis

ROOT = Path(__file__).resolve().parents[1]


def module_at(rev: str, rel: str, name: str):
    """The module at ``src/dpgrid/<rel>`` of git revision ``rev`` (for before/after timings in one process)."""
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:src/dpgrid/{rel}"], check=True, capture_output=True)
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(text.stdout, f"{rev}:{rel}", "exec"), module.__dict__)
    return module


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("profiles")
    ap.add_argument("--times", type=int, default=1)
    ap.add_argument("--k", type=int, default=6)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--skip-knn", action="store_true")
    ap.add_argument("--compare", help="git revision whose leave-one-out and solver to time on the same data")
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
    if not args.skip_knn:
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
    t = cpu()
    design = optimal_colored_design(loo.shifts)
    out["solver_cpu_s"] = cpu() - t
    out["solver_iterations"] = design.n_iter
    if args.compare:
        old_loo = module_at(args.compare, "mechanisms/kmeans_sensitivity.py", "old_kmeans_sensitivity")
        old_noise = module_at(args.compare, "mechanisms/colored_centroid_noise.py", "old_colored_centroid_noise")
        t = cpu()
        loo_old = old_loo.leave_one_out_analysis(X, old_loo.KMeansSolution(sol.centroids, sol.labels))
        out["old_loo_cpu_s"] = cpu() - t
        t = cpu()
        design_old = old_noise.optimal_colored_design(loo_old.shifts)
        out["old_solver_cpu_s"] = cpu() - t
        out["old_solver_iterations"] = design_old.n_iter
        scale = float(np.abs(loo_old.shifts).max())
        out["shift_max_abs_diff_rel"] = float(np.abs(loo.shifts - loo_old.shifts).max()) / scale
        out["same_changed_sets"] = all(np.array_equal(a, b) for a, b in zip(loo.changed, loo_old.changed))
        c_new, c_old = design.covariance(1.0), design_old.covariance(1.0)
        out["cov_max_abs_diff_rel"] = float(np.abs(c_new - c_old).max()) / float(np.abs(c_old).max())
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(" ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in out.items()))


if __name__ == "__main__":
    main()

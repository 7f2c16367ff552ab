"""Timings of the dpkmeans mechanisms (plain script; run: PYTHONPATH=src python benchmarks/bench_dpkmeans.py).

* exact leave-one-out analysis for P = 1409 (+7 commercial), d = 25, K = 6 on the synthetic population,
  against (a) full Lloyd re-convergence of every subset and (b) a naive K-means *restart* of every
  subset (timed on a sample of removals and extrapolated to all P);
* the eq. (15) solver; Theorem 4's delta_l for a large Delta_1.
"""

import time

import numpy as np

from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.data.profiles import daily_profiles
from dpgrid.data.synthetic import synthesize_meter_data
from dpgrid.mechanisms.colored_centroid_noise import optimal_colored_design
from dpgrid.mechanisms.dp_kmeans_baselines import knn_outliers
from dpgrid.mechanisms.kmeans_sensitivity import (
    fit_kmeans,
    leave_one_out_analysis,
    naive_leave_one_out,
    refit_leave_one_out,
)
from dpgrid.privacy.label_modulo_delta import label_delta


def timed(label, f, *a, **k):
    t = time.perf_counter()
    out = f(*a, **k)
    dt = time.perf_counter() - t
    print(f"{label:<60s} {dt:9.3f} s")
    return out, dt


def main():
    rng = np.random.default_rng(0)
    md = synthesize_meter_data(1409, 7, "2019-01-07", 28, 60, rng)
    prof = daily_profiles(md)
    X_all = prof[HOURS].to_numpy(float)
    X = X_all[~knn_outliers(X_all, 20, 3.0)]
    print(f"P = {len(X)} (of {len(X_all)}), d = {X.shape[1]}, K = 6")
    sol, _ = timed("fit_kmeans (n_init=10)", fit_kmeans, X, 6, rng, n_init=10)
    loo, t_fast = timed("leave_one_out_analysis (exact, all P removals)", leave_one_out_analysis, X, sol)
    print(
        f"   Delta_c = {loo.centroid_sensitivity:.4g}, |L| = {len(loo.label_sensitive)}, Delta_1 = "
        f"{loo.label_sensitivity}, relabelling removals = {int(loo.relabelled.sum())}"
    )
    ref, t_naive = timed("naive: full Lloyd re-convergence of every subset", naive_leave_one_out, X, sol)
    print(f"   max |difference| = {np.abs(ref - loo.shifts).max():.2e}; speed-up {t_naive / t_fast:.1f}x")
    idx = rng.choice(len(X), 20, replace=False)
    shifts, t_ref = timed(
        "naive: K-means restart (n_init=10) on 20 subsets", refit_leave_one_out, X, sol, rng, indices=idx
    )
    est = t_ref / 20 * len(X)
    print(
        f"   extrapolated to all {len(X)} subsets: {est:.0f} s (speed-up {est / t_fast:.0f}x); "
        f"max shift of restarts {np.linalg.norm(shifts, axis=1).max():.3g} vs exact "
        f"{np.linalg.norm(loo.shifts[idx], axis=1).max():.3g} (restarts add local-optimum jitter)"
    )
    sol_all, _ = timed("fit_kmeans with outliers", fit_kmeans, X_all, 6, rng, n_init=10)
    loo_all, _ = timed("leave_one_out_analysis with outliers", leave_one_out_analysis, X_all, sol_all)
    print(f"   Delta_c with outliers = {loo_all.centroid_sensitivity:.4g}")
    d, _ = timed("optimal_colored_design (eq. 15, gap 1e-3)", optimal_colored_design, loo.shifts)
    print(f"   iterations {d.n_iter}, gap {d.gap:.2e}")
    timed("label_delta(eps=20, rho=0.3, K=6, Delta_1=1000)", label_delta, 20.0, 0.3, 6, 1000)


if __name__ == "__main__":
    main()

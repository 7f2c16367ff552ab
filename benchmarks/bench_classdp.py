"""Timings for classdp (plain script; run from the repository root with PYTHONPATH=src).

1. Exact delta(eps) curve of one k = 12 Gaussian pair over 50 eps values (characteristic-function
   inversion) vs Monte Carlo at equal accuracy (enough draws for a binomial standard error equal
   to the exact evaluator's tolerance at the worst eps, extrapolated from a timed 10^6-draw run).
2. Algorithm 1 for all clusters of the forecast model at one rho (needs the pipeline's
   results/classdp/forecast/model.npz; skipped if absent), and the delta sup over all edges.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dpgrid.mechanisms.gaussian_class import gaussian_class_mechanism  # noqa: E402
from dpgrid.privacy.gaussian_loss import delta_exact, delta_monte_carlo, delta_sup_over_edges, privacy_loss  # noqa: E402


def timed(fn, repeat=3):
    best = np.inf
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_exact_vs_mc():
    rng = np.random.default_rng(0)
    k = 12
    s0 = stats.wishart(df=k + 8, scale=np.eye(k) / (k + 8)).rvs(random_state=rng)
    s1 = stats.wishart(df=k + 8, scale=np.eye(k) / (k + 8)).rvs(random_state=rng)
    loss = privacy_loss(np.zeros(k), s0, 0.3 * rng.standard_normal(k), s1)
    eps = np.linspace(0.05, 2.5, 50)
    tol = 1e-6
    t_exact, (d, err) = timed(lambda: delta_exact(loss, eps, tol=tol, return_error=True))
    n_pilot = 1_000_000
    t_mc, _ = timed(lambda: delta_monte_carlo(loss, eps, n_pilot, np.random.default_rng(1)), repeat=1)
    pmax = float(np.max(d * (1 - d)))
    n_equal = pmax / tol**2  # binomial s.e. = tol at the worst eps
    print(f"exact delta curve, k=12, 50 eps: {t_exact * 1e3:.1f} ms (error bound {err:.1e})")
    print(f"Monte Carlo 10^6 draws, 50 eps:  {t_mc:.2f} s (s.e. up to {np.sqrt(pmax / n_pilot):.1e})")
    print(
        f"Monte Carlo at s.e. = {tol:g}:     {n_equal:.2e} draws, ~{t_mc * n_equal / n_pilot:.0f} s "
        f"(x{t_mc * n_equal / n_pilot / t_exact:.0f} the exact evaluator)"
    )


def bench_algorithm1(model_path="results/classdp/forecast/model.npz", rho=0.45):
    if not Path(model_path).exists():
        print(f"skip Algorithm 1 benchmark: {model_path} not built")
        return
    from dpgrid.mechanisms.gaussian_class import load_class_model as load_model

    model = load_model(model_path)
    t, res = timed(lambda: gaussian_class_mechanism(model, rho, trace_rule="total", max_iter=3000), repeat=1)
    iters = [len(h) - 1 for h in res.j_history]
    print(
        f"Algorithm 1, {model.n} households, {len(iters)} clusters, {len(model.edges)} edges, rho={rho}: "
        f"{t:.2f} s ({sum(iters)} iterations)"
    )
    rel = model.with_noise(res.noise_covs)
    eps = np.linspace(0.1, 1.0, 19)
    t2, sup = timed(lambda: delta_sup_over_edges(rel.means, rel.covs, rel.edges, eps), repeat=1)
    print(f"delta sup over {sup.n_edges} edges, 19 eps: {t2:.2f} s ({sup.n_exact} evaluated exactly)")


if __name__ == "__main__":
    bench_exact_vs_mc()
    bench_algorithm1()

"""Run IBM diffprivlib's KMeans (DPLloyd, Su et al. 2016) on the Fig. 9 data, recording the budgets it spends.

Runs in the peer's own environment (diffprivlib 0.6.6 / scikit-learn 1.6, workflow/envs/diffprivlib.yaml),
from rule ``peers_diffprivlib_run`` (workflow/papers/dpkmeans/peers.smk); imports numpy, diffprivlib and ``peerkit``
only.

``KMeans(n_clusters=K, epsilon=eps_c, bounds=([0]*d, [B]*d), random_state=seed_r)`` is fitted on the
profiles of the Fig. 9 clustering (it clips them to its bounds; B = dpkmeans.baselines.bound_kw, the public
box of the paper's baselines), once per run. Instrumentation (``peerkit``): its mechanism classes
``GeometricFolded`` (noisy counts) and ``LaplaceBoundedDomain`` (noisy sums, one per dimension), as the
k-means module uses them, are replaced by subclasses that record each call's epsilon, and its
``_update_centers`` marks each iteration; the recorded budgets are composed in parallel over the clusters
of an iteration and sequentially over iterations (:class:`peerkit.BudgetRecorder`). The nominal budget is
what its own ``BudgetAccountant`` records.

Output (npz): eps_c, bound, centroids (runs, K, d), labels (runs, P), spent_eps (runs,), spent_delta,
nominal_eps, nominal_delta (runs,), iteration_eps (runs, max iterations; NaN padded), count_eps and sum_eps
(runs,: per-kind totals), n_iter (runs,), versions. Run times go to a CSV.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import peerkit
from diffprivlib.accountant import BudgetAccountant
from diffprivlib.models import KMeans
from diffprivlib.models import k_means as k_means_module


def fit_once(X, K, eps, bound, seed):
    rec = peerkit.BudgetRecorder()
    acc = BudgetAccountant()
    Geo = peerkit.recording_mechanism(k_means_module.GeometricFolded, rec, "count", starts_group=True)
    Lap = peerkit.recording_mechanism(k_means_module.LaplaceBoundedDomain, rec, "sum")
    Model = peerkit.calling_first(KMeans, "_update_centers", rec.begin_iteration)
    d = X.shape[1]
    with (
        peerkit.patched(k_means_module, "GeometricFolded", Geo),
        peerkit.patched(k_means_module, "LaplaceBoundedDomain", Lap),
    ):
        model = Model(
            n_clusters=K, epsilon=eps, bounds=(np.zeros(d), np.full(d, bound)), random_state=seed, accountant=acc
        )
        model.fit(X)
    return model, rec, acc.total()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clustering", required=True)
    ap.add_argument("--eps", type=float, required=True)
    ap.add_argument("--bound", type=float, required=True)
    ap.add_argument("--repeats", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runtime", required=True)
    a = ap.parse_args(argv)
    data = peerkit.load_clustering(a.clustering)
    X, K = data["X"], data["k"]
    cents, labels, spent, nominal, per_it, kinds, n_iter, seconds = [], [], [], [], [], [], [], []
    for seed in peerkit.run_seeds(a.seed, a.repeats):
        t0 = time.perf_counter()
        model, rec, total = fit_once(X, K, a.eps, a.bound, seed)
        seconds.append(time.perf_counter() - t0)
        cents.append(np.asarray(model.cluster_centers_, dtype=float))
        labels.append(np.asarray(model.labels_, dtype=int))
        spent.append(rec.spent())
        nominal.append((float(total[0]), float(total[1])))
        per_it.append([e for e, _ in rec.per_iteration()])
        k = rec.kinds()
        kinds.append((k.get("count", 0.0), k.get("sum", 0.0)))
        n_iter.append(int(model.n_iter_))
    width = max(len(p) for p in per_it)
    iteration_eps = np.full((len(per_it), width), np.nan)
    for r, p in enumerate(per_it):
        iteration_eps[r, : len(p)] = p
    spent, nominal, kinds = np.array(spent), np.array(nominal), np.array(kinds)
    print(
        f"diffprivlib eps={a.eps:g}: {a.repeats} runs, spent eps {spent[:, 0].mean():.6g} "
        f"(nominal {nominal[:, 0].mean():.6g}), iterations {sorted(set(n_iter))}, {np.mean(seconds):.2f} s per fit"
    )
    peerkit.save_npz(
        a.out,
        eps_c=a.eps,
        bound=a.bound,
        centroids=np.array(cents),
        labels=np.array(labels),
        spent_eps=spent[:, 0],
        spent_delta=spent[:, 1],
        nominal_eps=nominal[:, 0],
        nominal_delta=nominal[:, 1],
        iteration_eps=iteration_eps,
        count_eps=kinds[:, 0],
        sum_eps=kinds[:, 1],
        n_iter=np.array(n_iter),
        versions=peerkit.versions("diffprivlib", "numpy", "scipy", "scikit-learn"),
    )
    peerkit.write_runtime(a.runtime, "diffprivlib", a.eps, seconds)


if __name__ == "__main__":
    main()

"""Run the dpkmeans authors' code (lbnl-cybersecurity/CEDSKMeans, pinned commit) on the Fig. 9 clustering.

Runs in the peer's own environment (numpy 1.26 / scikit-learn 1.3, workflow/envs/cedskmeans.yaml), from
rule ``peers_cedskmeans_run`` (workflow/papers/dpkmeans/peers.smk); imports numpy, the peer's modules (loaded by
path, without its ray-based map-reduce module) and ``peerkit`` only.

``DPKMeans(n_clusters=K, dp_epsilon=eps_c, dp_delta=delta_c)`` is fitted unmodified, started from the
Fig. 9 centroids (``init=centroids, n_init=1``: a Lloyd fixed point, so its K-means returns the same
clustering and everything is compared on one clustering). Its noise step is instrumented
(``peerkit.instrument_cedskmeans``): the gamma_c it calibrates, the shift matrix C_XX' it uses, the
covariance it draws from. Run 0 is the peer's fit; runs 1.. draw the noise again from the covariance
that fit computed (what its ``_add_dp_noise`` does, without recomputing the same matrix, which costs a
sympy row reduction of the Kd x P matrix per call).

Output (npz): eps_c, delta_c, noisy (runs, K, d), released_labels (P,), true_centroids, true_labels,
gamma_c, covariance (Kd x Kd), shift_matrix (Kd x P), n_iter, versions. Run times go to a CSV.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import peerkit


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clustering", required=True)
    ap.add_argument("--source", required=True, help="folder holding the package's modules (src/cedskmeans)")
    ap.add_argument("--eps", type=float, required=True)
    ap.add_argument("--delta", type=float, required=True)
    ap.add_argument("--max-iter", type=int, required=True)
    ap.add_argument("--repeats", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runtime", required=True)
    a = ap.parse_args(argv)
    data = peerkit.load_clustering(a.clustering)
    X, C0, K = data["X"], data["centroids"], data["k"]
    mods = peerkit.load_modules("cedskmeans", a.source, ["_cedskmeans", "_dpkmeans"])
    seeds = peerkit.run_seeds(a.seed, 2)
    tap = peerkit.NoiseTap(seeds[0])
    t0 = time.perf_counter()
    with peerkit.instrument_cedskmeans(mods["_cedskmeans"], tap):
        km = (
            mods["_dpkmeans"]
            .DPKMeans(
                n_clusters=K,
                dp_epsilon=a.eps,
                dp_delta=a.delta,
                init=C0,
                n_init=1,
                max_iter=a.max_iter,
                random_state=seeds[1],
            )
            .fit(X)
        )
    seconds = [time.perf_counter() - t0]
    gamma, shifts, cov = tap.single()
    if not np.array_equal(cov, km.color_cov):
        raise RuntimeError("the covariance drawn from differs from the model's color_cov")
    noisy = [np.asarray(km.cluster_centers_, dtype=float)]
    true = np.asarray(km.true_cluster_centers_, dtype=float)
    for _ in range(1, a.repeats):
        t0 = time.perf_counter()
        noisy.append(true + tap.draw(np.zeros(true.size), km.color_cov).reshape(true.shape))
        seconds.append(time.perf_counter() - t0)
    print(
        f"CEDSKMeans eps={a.eps:g}: gamma_c={gamma:.6g}, {a.repeats} runs, fit {seconds[0]:.1f} s, "
        f"K-means iterations {km.n_iter_}, max |c - c_fig9| = {np.abs(true - C0).max():.3g}"
    )
    peerkit.save_npz(
        a.out,
        eps_c=a.eps,
        delta_c=a.delta,
        noisy=np.array(noisy),
        true_centroids=true,
        true_labels=np.asarray(km.true_labels_),
        released_labels=np.asarray(km.labels_),
        gamma_c=gamma,
        covariance=cov,
        shift_matrix=shifts,
        n_iter=int(km.n_iter_),
        versions=peerkit.versions("numpy", "scipy", "scikit-learn", "sympy"),
    )
    peerkit.write_runtime(a.runtime, "cedskmeans", a.eps, seconds)


if __name__ == "__main__":
    main()

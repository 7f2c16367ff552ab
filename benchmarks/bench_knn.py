"""The k-NN outlier scores of dpkmeans (``knn_scores``, mean distance to the k nearest profiles): brute force
(what the pipeline uses) against an exact tree search, CPU time and bit-for-bit agreement.

``knn_scores`` calls scikit-learn's ``NearestNeighbors``, which picks brute force for d = 25 > 15 features:
quadratic time, memory bounded (scikit-learn's pairwise-distance reduction works on 256 x 256 tiles and keeps
k neighbours per point). The alternative measured here is exact and sub-quadratic where a tree prunes: a
KD-tree (or ball tree) finds ``k + 1 + margin`` candidates per point, then the distances to the candidates
of a block of 256 points are recomputed by the same scikit-learn brute-force code (so with the same formula,
sqrt(|x|^2 - 2 x.y + |y|^2) with the dot products from BLAS dgemm), with a check that no point outside the
candidates can be nearer. The question is whether the scores are then the brute-force scores bit for bit
(they are only if dgemm gives every dot product the same bits whatever its position in the tile).

    python benchmarks/bench_knn.py PROFILES_CSV [--times 1,10,100] [--k 20]

``--times``: the profiles replicated with seeded 5 % multiplicative jitter (as bench_loo_scale.py).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.neighbors import BallTree, KDTree, NearestNeighbors

from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.mechanisms.dp_kmeans_baselines import knn_scores


def tree_candidates_scores(
    X: np.ndarray, k: int, tree_cls, margin: int = 8, block: int = 256
) -> tuple[np.ndarray, int]:
    """Exact k-NN scores: tree candidates, distances recomputed by scikit-learn's brute force; returns the
    scores and the number of points whose candidates could not be proved sufficient (brute force over all)."""
    X = np.ascontiguousarray(X, dtype=float)
    n = len(X)
    k = min(k, n - 1)
    m = min(k + 1 + margin, n)
    tree = tree_cls(X)
    sq = np.einsum("ij,ij->i", X, X)
    slack_unit = 8 * X.shape[1] * np.finfo(float).eps
    out, n_fallback = np.empty(n), 0
    for a in range(0, n, block):
        q = X[a : a + block]
        d_tree, idx = tree.query(q, k=m)
        cand = np.unique(idx)
        d, _ = NearestNeighbors(n_neighbors=k + 1, algorithm="brute").fit(X[cand]).kneighbors(q)
        if m < n:  # a point outside the candidates is at least d_tree[:, -1] away (up to rounding)
            slack = slack_unit * (sq[a : a + block] + sq.max())
            bad = ~(d[:, -1] ** 2 + slack < d_tree[:, -1] ** 2 - slack)
            if bad.any():
                n_fallback += int(bad.sum())
                d[bad], _ = NearestNeighbors(n_neighbors=k + 1, algorithm="brute").fit(X).kneighbors(q[bad])
        out[a : a + block] = d[:, 1:].mean(1)
    return out, n_fallback


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("profiles")
    ap.add_argument("--times", default="1,10")
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--seed", type=int, default=20)
    args = ap.parse_args(argv)
    prof = pd.read_csv(args.profiles, dtype={"meter_id": str})
    X0 = prof[HOURS].to_numpy(float)
    print("| points | brute CPU s | tree | tree CPU s | scores equal bit for bit | max relative difference |")
    print("|---:|---:|---|---:|---|---:|")
    for times in (int(t) for t in args.times.split(",")):
        rng = np.random.default_rng(args.seed)
        X = np.vstack(
            [X0] + [np.maximum(X0 * (1 + 0.05 * rng.standard_normal(X0.shape)), 0.0) for _ in range(times - 1)]
        )
        t = time.process_time()
        ref = knn_scores(X, args.k)
        t_brute = time.process_time() - t
        for tree_cls in (KDTree, BallTree):
            t = time.process_time()
            got, n_fb = tree_candidates_scores(X, args.k, tree_cls)
            t_tree = time.process_time() - t
            same = np.array_equal(ref, got)
            diff = f"{np.sum(ref != got)} differ" if not same else "yes"
            rel = float(np.max(np.abs(ref - got) / ref))
            print(f"| {len(X)} | {t_brute:.1f} | {tree_cls.__name__} | {t_tree:.1f} | {diff} | {rel:.1e} |", flush=True)


if __name__ == "__main__":
    main()

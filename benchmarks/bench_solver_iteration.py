"""CPU of one iteration of the eq. (15) dual solver, dense (82ebeed) vs block-sparse accumulation, as P grows.

Leave-one-out-like shifts (K blocks of d; 99 % of the rows non-zero in one block, 1 % in two or three, the shape
of the dpkmeans shifts: a removal that relabels nothing moves one centroid) with P rows; the per-iteration work
of both variants: R = sum_p w_p u_p u_p' in the span coordinates, its eigendecomposition and the values
u_p' R^{-1/2} u_p. One BLAS thread.

    python benchmarks/bench_solver_iteration.py [--P 1409 14090 140900] [--K 6] [--d 25] [--repeat 3]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from dpgrid.mechanisms.colored_centroid_noise import _span, _support_groups  # noqa: E402


def shifts(P: int, K: int, d: int, rng) -> np.ndarray:
    U = np.zeros((P, K * d))
    k = rng.integers(0, K, P)
    for p in range(P):
        U[p, k[p] * d : (k[p] + 1) * d] = rng.normal(0, 1.0, d) / P
    multi = rng.choice(P, size=max(1, P // 100), replace=False)
    for p in multi:
        j = (k[p] + 1) % K
        U[p, j * d : (j + 1) * d] = rng.normal(0, 1.0, d) / P
    return U


def dense_iteration(V, w):
    s, E = np.linalg.eigh((V * w[:, None]).T @ V)
    s = np.maximum(s, s.max() * 1e-14)
    B = V @ E * s**-0.25
    return (B * B).sum(1)


def sparse_iteration(groups, Q, w, n, m):
    R = np.zeros((n, n))
    for g in groups:
        R[np.ix_(g.cols, g.cols)] += (g.values * w[g.rows, None]).T @ g.values
    s, E = np.linalg.eigh(Q.T @ R @ Q)
    s = np.maximum(s, s.max() * 1e-14)
    G = Q @ (E * s**-0.25)
    S = G @ G.T
    dvals = np.empty(m)
    for g in groups:
        dvals[g.rows] = ((g.values @ S[np.ix_(g.cols, g.cols)]) * g.values).sum(1)
    return dvals


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--P", type=int, nargs="+", default=[1409, 14090, 140900])
    ap.add_argument("--K", type=int, default=6)
    ap.add_argument("--d", type=int, default=25)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| P | dense s / iteration | block-sparse s / iteration | ratio | max rel. diff of u'R^-1/2 u |")
    print("|---:|---:|---:|---:|---:|")
    for P in args.P:
        U = shifts(P, args.K, args.d, rng)
        Q, keep = _span(U)
        V, groups = U[keep] @ Q, _support_groups(U[keep])
        w = rng.random(len(V))
        w /= w.sum()
        t = time.process_time()
        for _ in range(args.repeat):
            a = dense_iteration(V, w)
        t_dense = (time.process_time() - t) / args.repeat
        t = time.process_time()
        for _ in range(args.repeat):
            b = sparse_iteration(groups, Q, w, U.shape[1], len(V))
        t_sparse = (time.process_time() - t) / args.repeat
        diff = float(np.max(np.abs(a - b) / np.abs(a)))
        print(f"| {P} | {t_dense:.4f} | {t_sparse:.4f} | {t_dense / t_sparse:.1f} | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()

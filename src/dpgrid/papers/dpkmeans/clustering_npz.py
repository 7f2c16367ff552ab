"""The clustering store ``results/dpkmeans/clustering.npz`` (Ravi et al., Sec. V-B and Algorithm 1's inputs):
the leave-one-out analysis to and from flat arrays, and :func:`load_clustering`, which every stage after the
clustering reads it with."""

from __future__ import annotations

import numpy as np

from dpgrid.mechanisms.colored_centroid_noise import CentroidNoiseDesign
from dpgrid.mechanisms.kmeans_sensitivity import KMeansSolution, LeaveOneOutAnalysis


def loo_to_arrays(loo: LeaveOneOutAnalysis) -> dict:
    """The arrays of ``loo`` stored in clustering.npz (ragged lists flattened with their owner index)."""
    p = np.concatenate([np.full(len(c), i) for i, c in enumerate(loo.changed)] + [np.zeros(0, int)]).astype(int)
    q = np.concatenate(list(loo.changed) + [np.zeros(0, int)]).astype(int)
    to = np.concatenate(list(loo.changed_to) + [np.zeros(0, int)]).astype(int) if loo.changed_to else q * 0
    return {
        "shifts": loo.shifts,
        "changed_p": p,
        "changed_q": q,
        "changed_to": to,
        "relabelled": loo.relabelled,
        "n_iter": loo.n_iter,
    }


def loo_from_npz(z, prefix: str = "") -> LeaveOneOutAnalysis:
    """The leave-one-out analysis stored under ``prefix`` (``""``: without outliers, ``"all_"``: with them)."""
    shifts = z[prefix + "shifts"]
    P = shifts.shape[0]
    p, q, to = z[prefix + "changed_p"], z[prefix + "changed_q"], z[prefix + "changed_to"]
    changed = [q[p == i] for i in range(P)]
    changed_to = [to[p == i] for i in range(P)]
    K = int(z["k"])
    return LeaveOneOutAnalysis(
        shifts, changed, z[prefix + "relabelled"], z[prefix + "n_iter"], K, shifts.shape[1] // K, changed_to
    )


def design_from_npz(z, prefix: str = "") -> CentroidNoiseDesign:
    """The colored design at gamma_c = 1 stored under ``prefix``."""
    return CentroidNoiseDesign(
        z[prefix + "basis"], z[prefix + "cov_unit"], "colored_dual", float(np.trace(z[prefix + "cov_unit"]))
    )


def load_clustering(path):
    """The clustering of ``results/dpkmeans/clustering.npz`` (data without outliers): (npz, X, solution,
    leave-one-out analysis, colored design at gamma_c = 1)."""
    z = np.load(path)
    X = z["X_all"][~z["is_outlier"]]
    sol = KMeansSolution(z["centroids"], z["labels"])
    loo = loo_from_npz(z)
    design = design_from_npz(z)
    return z, X, sol, loo, design

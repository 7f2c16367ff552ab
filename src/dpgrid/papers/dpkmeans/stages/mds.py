"""dpkmeans stage: 2-d MDS of the profiles with the true and noisy centroids (Ravi et al., Figs. 7-8)."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.core.seeds import job_rng
from dpgrid.papers.dpkmeans.clustering_npz import loo_from_npz
from dpgrid.papers.dpkmeans.paper import PAPER

LOG = logging.getLogger(__name__)


def mds_subsample(marked: np.ndarray, n_profiles: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of at most ``n_profiles`` profiles for the MDS of Figs. 7-8 (``mds_max_points``).

    ``marked`` (boolean, one per profile) are the profiles the figure highlights (outliers, set L,
    changed labels): they are kept first (a random subset of them if they alone exceed
    ``n_profiles``); the remaining places go to a uniform random sample of the unmarked profiles.
    """
    marked = np.asarray(marked, dtype=bool)
    if n_profiles >= marked.size:
        return np.arange(marked.size)
    m, u = np.flatnonzero(marked), np.flatnonzero(~marked)
    if m.size >= n_profiles:
        return np.sort(rng.choice(m, n_profiles, replace=False))
    return np.sort(np.concatenate([m, rng.choice(u, n_profiles - m.size, replace=False)]))


def _embedding_frame(name, X, lab, C, Cn, in_L, noisy_lab, is_out, cfg, rng) -> pd.DataFrame:
    """One MDS (scikit-learn, metric SMACOF; its seed drawn from ``rng``) of the profiles and centroids."""
    from sklearn.manifold import MDS

    pts = [X, C] + ([Cn] if Cn is not None else [])
    Y = np.vstack(pts)
    emb = MDS(
        n_components=2,
        metric_mds=True,
        n_init=1,
        init="classical_mds",
        max_iter=cfg["mds_max_iter"],
        random_state=int(rng.integers(2**31 - 1)),
        metric="euclidean",
    ).fit_transform(Y)
    kind = ["point"] * len(X) + ["centroid"] * len(C) + (["noisy_centroid"] * len(Cn) if Cn is not None else [])
    labels = list(lab) + list(range(len(C))) + (list(range(len(Cn))) if Cn is not None else [])
    f = pd.DataFrame({"dataset": name, "kind": kind, "label": labels, "x": emb[:, 0], "y": emb[:, 1]})
    n_extra = len(labels) - len(X)
    f["in_L"] = list(in_L) + [False] * n_extra
    f["noisy_label"] = list(noisy_lab) + labels[len(X) :]
    if name == "with_outliers":
        f["is_outlier"] = list(is_out) + [False] * n_extra
    else:
        f["is_outlier"] = False
    return f


def _mds_frame(name, X, lab, C, Cn, z, rel, cap, sub_rng, cfg, rng) -> pd.DataFrame:
    """The MDS of one dataset, its profiles capped at ``cap`` points (:func:`mds_subsample` from ``sub_rng``)."""
    in_L = np.isin(np.arange(len(X)), loo_from_npz(z, "all_" if Cn is None else "").label_sensitive)
    noisy_lab = np.asarray(lab) if Cn is None else rel["noisy_labels"]
    is_out = z["is_outlier"] if Cn is None else np.zeros(len(X), dtype=bool)
    if cap is not None:
        n_cent = len(C) + (len(Cn) if Cn is not None else 0)
        if cap <= n_cent:
            raise ValueError(
                f"config dpkmeans.mds_max_points = {cap} leaves no room for profiles next to "
                f"the {n_cent} centroids of the {name} MDS"
            )
        keep = mds_subsample(in_L | is_out | (noisy_lab != lab), cap - n_cent, sub_rng)
        if len(keep) < len(X):
            LOG.info("%s MDS: %d of %d profiles (mds_max_points = %d)", name, len(keep), len(X), cap)
        X, lab, in_L, noisy_lab, is_out = X[keep], np.asarray(lab)[keep], in_L[keep], noisy_lab[keep], is_out[keep]
    return _embedding_frame(name, X, lab, C, Cn, in_L, noisy_lab, is_out, cfg, rng)


def mds_job(job) -> None:
    """2-d MDS (scikit-learn, metric SMACOF) of the profiles with the true and noisy centroids (Figs. 7-8).

    ``mds_max_points`` (null: every profile) caps the points of each embedding: the centroids and
    :func:`mds_subsample` of the profiles (own random stream, so the default draws nothing extra).
    """
    cfg = job.params.cfg
    z = np.load(job.input.npz)
    rel = np.load(job.input.release)
    rng = job_rng(job.params.seed, PAPER, "mds")
    cap = cfg["mds_max_points"]
    sub_rng = job_rng(job.params.seed, PAPER, "mds_subsample") if cap is not None else None
    frames = [
        _mds_frame(name, X, lab, C, Cn, z, rel, cap, sub_rng, cfg, rng)
        for name, X, lab, C, Cn in (
            ("with_outliers", z["X_all"], z["all_labels"], z["all_centroids"], None),
            ("without_outliers", z["X_all"][~z["is_outlier"]], z["labels"], z["centroids"], rel["noisy_centroids"]),
        )
    ]
    write_table(pd.concat(frames, ignore_index=True), job.output.table)

"""The clustering step of dpkmeans (Ravi et al., Sec. V-B): the outlier rule and the two k-means fits (all
meters, then the meters the rule keeps), shared by the clustering job and the stand-in's calibration, which
must draw exactly what the job draws."""

from __future__ import annotations

import logging

import numpy as np

from dpgrid.mechanisms.dp_kmeans_baselines import exact_fence_range, knn_fence_factors, knn_outliers, knn_scores
from dpgrid.mechanisms.kmeans_sensitivity import KMeansSolution, fit_kmeans

LOG = logging.getLogger(__name__)


#: How the outliers are removed before Figs. 8-11: ``class`` -- every meter whose customer class is not
#: residential (the paper's "domain specific knowledge", Sec. V-B: the data holder knows each meter's class
#: and excludes the class outliers); ``knn`` -- the data-driven 20-nearest-neighbour rule (no class label).
OUTLIER_METHODS = ("class", "knn")


def outlier_masks(X_all: np.ndarray, customer_class, out_cfg: dict) -> dict:
    """The removed meters (by ``out_cfg["method"]``) and the k-NN rule's verdicts, for every meter.

    Returns ``removed``, ``knn`` (flagged by the k-NN rule at ``iqr_factor``), ``commercial``, ``knn_factor``
    (the largest Tukey factor at which the rule still flags the meter; NaN if the fence is undefined)
    and ``exact_range``: the factors [lo, hi) at which the k-NN rule flags exactly the commercial meters.
    """
    method = out_cfg["method"]
    if method not in OUTLIER_METHODS:
        raise ValueError(f"config dpkmeans.outliers.method is {method!r}; expected one of {list(OUTLIER_METHODS)}")
    cls = np.asarray(customer_class).astype(str)
    if method == "class" and len(cls) and (cls == "unknown").all():
        raise ValueError(
            "dpkmeans.outliers.method = class removes the meters whose customer class is not residential, "
            "but every meter's class is 'unknown' (the data source has no customer classes, e.g. "
            "uci_eld): set dpkmeans.outliers.method: knn (the 20-NN rule of the paper)"
        )
    commercial = cls == "commercial"
    scores = knn_scores(X_all, out_cfg["n_neighbors"])  # one k-NN search for both
    knn = knn_outliers(X_all, out_cfg["n_neighbors"], out_cfg["iqr_factor"], scores=scores)
    try:
        factors = knn_fence_factors(X_all, out_cfg["n_neighbors"], scores=scores)
        lo, hi = exact_fence_range(factors, commercial)
    except ValueError as exc:
        LOG.warning("k-NN fence factors undefined: %s", exc)
        factors, lo, hi = np.full(len(X_all), np.nan), float("nan"), float("nan")
    removed = (cls != "residential") if method == "class" else knn
    return {"removed": removed, "knn": knn, "commercial": commercial, "knn_factor": factors, "exact_range": (lo, hi)}


def clustering_fits(
    X_all: np.ndarray, is_outlier: np.ndarray, k: int, kmeans_cfg: dict, rng: np.random.Generator
) -> dict[str, tuple[np.ndarray, KMeansSolution]]:
    """``{"with_outliers": (X_all, fit), "without_outliers": (X_clean, fit)}``: the clustering job's two
    k-means fits (``dpkmeans.kmeans``: ``n_init``, ``max_iter``), in its draw order from the one stream ``rng``
    (``job_rng(seed, "dpkmeans", "clustering")``). The calibration of the stand-in calls this too, so its
    Delta_c is the job's by construction."""
    fits = {}
    for name, X in (("with_outliers", X_all), ("without_outliers", X_all[~is_outlier])):
        fits[name] = (X, fit_kmeans(X, k, rng, n_init=kmeans_cfg["n_init"], max_iter=kmeans_cfg["max_iter"]))
    return fits

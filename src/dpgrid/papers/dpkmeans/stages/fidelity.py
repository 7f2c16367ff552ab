"""dpkmeans stage: fidelity analyses (workflow/papers/dpkmeans/dpkmeans.md, "Fidelity"): Figs. 8-9 at the paper's
Delta_c, the exact hockey-stick delta of every calibrated colored-noise budget, Delta_c versus the size of the
commercial meters, and the stand-in calibration's robustness over other draws of its population."""

from __future__ import annotations

import logging

import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.core.seeds import job_rng
from dpgrid.papers.dpkmeans.clustering_npz import design_from_npz, load_clustering, loo_from_npz
from dpgrid.papers.dpkmeans.paper import PAPER, PAPER_VALUES
from dpgrid.privacy.label_modulo_delta import rho_for_delta

LOG = logging.getLogger(__name__)


def _variant_rows(cfg: dict, z, X, sol, loo, design) -> list[dict]:
    """Figs. 8-9 variants at the paper's Delta_c, for the data without and with outliers (closed forms)."""
    from dpgrid.papers.dpkmeans.fidelity import paper_variant_rows

    rel, f9, K = cfg["release"], cfg["fig9"], sol.k
    loo_all = loo_from_npz(z, "all_")
    design_all = design_from_npz(z, "all_")
    rows = []
    for dataset, Xd, C, lab, lo_, dsg, paper in (
        ("without_outliers", X, sol.centroids, sol.labels, loo, design, PAPER_VALUES["delta_c_without_outliers"]),
        (
            "with_outliers",
            z["X_all"],
            z["all_centroids"],
            z["all_labels"],
            loo_all,
            design_all,
            PAPER_VALUES["delta_c_with_outliers"],
        ),
    ):
        D1 = lo_.label_sensitivity
        rho8 = rho_for_delta(rel["eps_l"], rel["delta_l"], K, D1) if D1 else 0.0
        rho9 = rho_for_delta(f9["eps_l"], f9["delta_l"], K, D1) if D1 else 0.0
        budgets = [("fig8", rel["eps_c"], rel["delta_c"], rho8)]
        budgets += [("fig9", e, f9["delta_c"], rho9) for e in f9["eps_grid"]]
        rows += paper_variant_rows(
            Xd,
            C,
            lab,
            dsg,
            lo_.shifts,
            dataset=dataset,
            delta_c_ours=lo_.centroid_sensitivity,
            delta_c_paper=paper,
            budgets=budgets,
            calibration=cfg["centroid_noise"]["calibration"],
            sensitive=lo_.label_sensitive,
        )
    return rows


def _calibrated_budgets(cfg: dict) -> list[tuple]:
    """(name, eps_c, delta_c) of every colored-noise budget the run calibrates."""
    rel, f9, sy, gm = cfg["release"], cfg["fig9"], cfg["synthetic"], cfg["gaussian_mixture"]
    budgets = [
        ("fig8 release", rel["eps_c"], rel["delta_c"]),
        ("fig11 log means", sy["eps_c"], sy["delta_c"]),
        ("fig5 gaussian mixture", gm["eps_c"], gm["delta_c"]),
    ]
    budgets += [("fig9 centre", e, f9["delta_c"]) for e in f9["eps_grid"]]
    budgets += [("audit", e, d) for e, d in cfg["audit"]["centroid_budgets"]]
    return budgets


def fidelity_job(job) -> None:
    """Paper-parameter variants (Figs. 8-9 at the paper's Delta_c = 2.13 and 39.20) and the exact hockey-stick
    delta of every calibrated colored-noise budget (closed forms); Delta_c with the outliers versus the size of
    the commercial meters (K-means per factor, stream ``job_rng(seed, "dpkmeans", "fidelity", "commercial", m)``).
    See workflow/papers/dpkmeans/dpkmeans.md, "Fidelity"."""
    from dpgrid.papers.dpkmeans.fidelity import commercial_scale_rows, exact_delta_rows

    cfg = job.params.cfg
    z, X, sol, loo, design = load_clustering(job.input.npz)
    write_table(pd.DataFrame(_variant_rows(cfg, z, X, sol, loo, design)), job.output.variants)
    write_table(pd.DataFrame(exact_delta_rows(_calibrated_budgets(cfg))), job.output.exact_delta)
    km = cfg["kmeans"]
    rows = commercial_scale_rows(
        z["X_all"],
        z["commercial"],
        cfg["fidelity"]["commercial_scale"],
        sol.k,
        n_init=km["n_init"],
        max_iter=km["max_iter"],
        rng_for=lambda label: job_rng(job.params.seed, PAPER, "fidelity", "commercial", label),
    )
    write_table(pd.DataFrame(rows), job.output.commercial_sweep)


def standin_draws_job(job) -> None:
    """Robustness of the stand-in's calibration: Delta_c without outliers for ``fidelity.n_draws`` other draws of
    the same population (:func:`dpgrid.papers.dpkmeans.calibration.standin_draws`).  Empty (header only)
    when the data source is not the stand-in."""
    from dpgrid.papers.dpkmeans.calibration import standin_draws

    cfg, spec = job.params.cfg, job.params.spec
    cols = ["draw", "root_seed", "separation", "delta_c", "cluster_sizes", "n_small_clusters", "K", "P"]
    if spec["source"] != "dpkmeans_standin":
        LOG.info("data source %s is not the stand-in: no draws", spec["source"])
        rows = []
    else:
        rows = standin_draws(spec, cfg, job.params.seed, cfg["fidelity"]["n_draws"])
    write_table(pd.DataFrame(rows, columns=cols), job.output.table)

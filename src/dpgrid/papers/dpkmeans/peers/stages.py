"""Rule bodies of workflow/papers/dpkmeans/peers.smk that run in dpgrid's environment: the pinned sources and
environments of the peers, and the comparison table built from the peers' output files.

The comparison (rule ``peers_table``), per privacy budget eps_c of Fig. 9 (``dpkmeans.fig9.eps_grid``,
delta_c = ``dpkmeans.fig9.delta_c``), on the Fig. 9 clustering (``results/dpkmeans/clustering.npz``):

* colored, white: dpgrid's mechanisms (Fig. 9 centre, ``results/dpkmeans/fig9_accuracy.csv``);
* cedskmeans: the authors' code, started from the same clustering; the covariance its noise draw realises
  (:func:`~dpgrid.mechanisms.colored_centroid_noise.svd_sampled_covariance` of the one it computed);
* diffprivlib: its KMeans on the same profiles (clipped to the baselines' public box).

Columns (``results/peers/table.csv``): centroid error (RMS over clusters of ||c~_k - c_k||, matched; for
dpgrid's Gaussian mechanisms its expectation sqrt(tr Sigma / K)), clustering-cost ratio r(X, q~)/r(X, q)
(mean over runs) and DP accuracy loss (ratio - 1, eq. 6), the eps each method calibrates for, the eps it
actually spends, and for every Gaussian noise the eq. (15) constraints over dpgrid's *exact* leave-one-out
shifts: violated constraints, max u'Gamma u / gamma_c (for the method's own gamma_c and for the gamma_c of
the stated budget), the exact delta at the stated eps_c and the exact eps at delta_c
(:func:`dpgrid.mechanisms.colored_centroid_noise.eq15_feasibility`). Run times go to
``benchmarks/peers/runtime.csv`` (they vary between runs; results/ stays byte-reproducible).
"""

from __future__ import annotations

import logging
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table, write_json, write_table, write_text
from dpgrid.mechanisms.colored_centroid_noise import (
    design_from_covariance,
    eq15_feasibility,
    gamma_c,
    optimal_colored_design,
    svd_sampled_covariance,
    white_noise_design,
)
from dpgrid.mechanisms.kmeans_loss import centroid_error, clustering_loss
from dpgrid.mechanisms.kmeans_sensitivity import leave_one_out_analysis
from dpgrid.papers.dpkmeans.clustering_npz import load_clustering
from dpgrid.papers.dpkmeans.peers.env import build_venv

LOG = logging.getLogger(__name__)

PEERS = ("cedskmeans", "diffprivlib")
METHODS = ("colored", "white", *PEERS)
COLUMNS = [
    "method",
    "eps_c",
    "delta_c",
    "n_runs",
    "error_kind",
    "centroid_error_kw",
    "cost_ratio",
    "dp_accuracy_loss",
    "eps_calibrated",
    "eps_spent",
    "eps_spent_rule",
    "n_shifts",
    "n_violated",
    "max_ratio_own",
    "max_ratio_stated",
    "exact_delta",
    "noise_trace",
]
RULE_EXACT = "exact tail of the worst leave-one-out pair (eq. 9)"
RULE_LOWER = "exact tail of the worst leave-one-out pair (lower bound: noise projected on the span of the shifts)"
RULE_COMPOSITION = "sequential composition of its recorded per-iteration budgets"


# ------------------------------------------------------------------------------------------------
# sources and environments


def fetch_cedskmeans_job(job) -> None:
    """Rule ``peers_fetch_cedskmeans``: the authors' modules at the pinned commit (per-file SHA-256), from
    GitHub or the mirror (``DPGRID_MIRROR``); the repository's layout kept under the outputs' common folder."""
    from dpgrid.data.download import fetch_file_set

    spec = job.params.pin
    rels, outs = list(spec["files"]), [str(f) for f in job.output]
    if len(rels) != len(outs) or not all(o.endswith("/" + r) for r, o in zip(rels, outs)):
        raise ValueError(f"rule outputs {outs} do not match the files of config peers.cedskmeans.files {rels}")
    dest = outs[0][: -len(rels[0]) - 1]
    mirror = Path(job.params.mirror) if job.params.mirror else None
    LOG.info("cedskmeans: %s", f"mirror {mirror}/{spec['mirror_dir']}" if mirror else f"download {spec['base_url']}")
    fetch_file_set(spec["base_url"], spec["files"], dest, mirror=mirror, mirror_dir=spec["mirror_dir"])


def env_job(job) -> None:
    """Rule ``peers_env``: the peer's venv from the exact pins of ``workflow/envs/<peer>.yaml`` (dpgrid.papers.dpkmeans.peers.env)."""
    freeze = build_venv(job.input.env, job.output.venv)
    write_text(
        f"# {job.wildcards.peer}: pip freeze --all of {job.output.venv} (pins: {job.input.env})\n" + freeze,
        job.output.freeze,
    )


# ------------------------------------------------------------------------------------------------
# the comparison table


def _per_eps(files, eps_grid, what: str) -> list[tuple[float, dict]]:
    """Load one npz per eps_c in ``eps_grid`` order and check its eps_c field."""
    files = list(files)
    if len(files) != len(eps_grid):
        raise ValueError(f"{len(files)} {what} files for the {len(eps_grid)} entries of dpkmeans.fig9.eps_grid")
    out = []
    for eps, path in zip(eps_grid, files):
        with np.load(path) as z:
            data = {k: z[k] for k in z.files}
        if "eps_c" not in data or float(data["eps_c"]) != float(eps):
            raise ValueError(
                f"{path}: field eps_c = {data.get('eps_c')!r}, expected {float(eps)!r} "
                "(the dpkmeans.fig9.eps_grid entry in this position)"
            )
        out.append((float(eps), data))
    return out


def _row(method, eps, delta, **kw) -> dict:
    row = dict.fromkeys(COLUMNS, float("nan"))
    row.update(method=method, eps_c=eps, delta_c=delta, **kw)
    return row


def _gaussian(q, gamma_own, g_stated, eps, delta) -> dict:
    own = eq15_feasibility(q, gamma_own, eps, delta)
    stated = eq15_feasibility(q, g_stated, eps, delta)
    return {
        "n_shifts": own["n_shifts"],
        "n_violated": own["n_violated"],
        "max_ratio_own": own["max_ratio"],
        "max_ratio_stated": stated["max_ratio"],
        "exact_delta": own["exact_delta"],
        "eps_spent": own["eps_at_delta"],
        "min_violated_ratio": float(np.min(q[q > gamma_own * (1 + 1e-9)])) / gamma_own
        if own["n_violated"]
        else float("nan"),
    }


def _design_rows(acc, accuracy_path, eps, delta, g, designs, loo, K, n_repeats) -> list[dict]:
    """dpgrid's colored and white releases at eps_c: expected centroid error, the Fig. 9 mean loss of the run."""
    rows = []
    for name, dsg in designs:
        a = acc[(acc["method"] == name) & np.isclose(acc["eps_c"], eps, rtol=1e-12, atol=0.0)]
        if len(a) != 1:
            raise ValueError(f"{accuracy_path}: {len(a)} rows of method {name} at eps_c = {eps:g}, expected 1")
        a = a.iloc[0]
        gauss = _gaussian(dsg.mahalanobis_sq(loo.shifts, g), g, g, eps, delta)
        gauss.pop("min_violated_ratio")
        rows.append(
            _row(
                name,
                eps,
                delta,
                n_runs=n_repeats,
                error_kind="expected",
                centroid_error_kw=math.sqrt(dsg.trace(g) / K),
                cost_ratio=1.0 + float(a["mean_loss"]),
                dp_accuracy_loss=float(a["mean_loss"]),
                eps_calibrated=eps,
                eps_spent_rule=RULE_EXACT,
                noise_trace=dsg.trace(g),
                **gauss,
            )
        )
    return rows


def _cedskmeans_row(c, eps, delta, g, X, sol, loo, r0) -> tuple[dict, dict]:
    """CEDSKMeans at eps_c: the authors' Lemma 2 covariance, as it applied it (its row, its info entry)."""
    dev = float(np.abs(c["true_centroids"] - sol.centroids).max())
    if dev > 1e-9 or not np.array_equal(c["true_labels"], sol.labels):
        raise ValueError(
            f"cedskmeans at eps_c = {eps:g}: its K-means left the Fig. 9 clustering (max centroid "
            f"difference {dev:.3g}); the comparison needs the same clustering"
        )
    g_own = float(c["gamma_c"])
    # the covariance its draw realises (numpy's SVD sampler: |cov| where round-off made cov indefinite)
    authors = design_from_covariance(svd_sampled_covariance(c["covariance"]), loo.shifts, "cedskmeans")
    gauss = _gaussian(authors.mahalanobis_sq(loo.shifts, 1.0), g_own, g, eps, delta)
    min_viol = gauss.pop("min_violated_ratio")
    errs = np.array([centroid_error(sol.centroids, n) for n in c["noisy"]])
    costs = np.array([clustering_loss(X, n, c["released_labels"]) / r0 for n in c["noisy"]])
    row = _row(
        "cedskmeans",
        eps,
        delta,
        n_runs=len(errs),
        error_kind="sampled",
        centroid_error_kw=float(np.sqrt(np.mean(errs**2))),
        cost_ratio=float(costs.mean()),
        dp_accuracy_loss=float(costs.mean() - 1.0),
        eps_calibrated=math.sqrt(g_own / gamma_c(1.0, delta, "paper_eq13")),
        eps_spent_rule=RULE_LOWER,
        noise_trace=float(np.trace(c["covariance"])),
        **gauss,
    )
    shift_cols = np.linalg.norm(c["shift_matrix"], axis=0)
    info = {
        "gamma_c": g_own,
        "min_violated_ratio": min_viol,
        "delta_c_authors": float(shift_cols.max()),
        "labels_perturbed": bool(np.any(c["released_labels"] != c["true_labels"])),
        "n_iter": int(c["n_iter"]),
        "versions": str(c["versions"]),
    }
    return row, info


def _diffprivlib_row(p, eps, X, sol, r0) -> tuple[dict, dict]:
    """diffprivlib at eps_c: the budgets its mechanisms spent (its row, its info entry)."""
    errs = np.array([centroid_error(sol.centroids, n) for n in p["centroids"]])
    costs = np.array([clustering_loss(X, n, lab) / r0 for n, lab in zip(p["centroids"], p["labels"])])
    row = _row(
        "diffprivlib",
        eps,
        0.0,
        n_runs=len(errs),
        error_kind="sampled",
        centroid_error_kw=float(np.sqrt(np.mean(errs**2))),
        cost_ratio=float(costs.mean()),
        dp_accuracy_loss=float(costs.mean() - 1.0),
        eps_calibrated=float(p["nominal_eps"].mean()),
        eps_spent=float(p["spent_eps"].mean()),
        eps_spent_rule=RULE_COMPOSITION,
    )
    info = {
        "spent_eps_min": float(p["spent_eps"].min()),
        "spent_eps_max": float(p["spent_eps"].max()),
        "spent_delta_max": float(p["spent_delta"].max()),
        "nominal_delta_max": float(p["nominal_delta"].max()),
        "count_eps": float(p["count_eps"].mean()),
        "sum_eps": float(p["sum_eps"].mean()),
        "n_iter": sorted({int(n) for n in p["n_iter"]}),
        "bound_kw": float(p["bound"]),
        "versions": str(p["versions"]),
    }
    return row, info


def table_job(job) -> None:
    cfg = job.params.cfg
    f9 = cfg["fig9"]
    delta, calib, eps_grid = f9["delta_c"], cfg["centroid_noise"]["calibration"], f9["eps_grid"]
    _, X, sol, loo, design = load_clustering(job.input.npz)
    K, d, P = sol.k, X.shape[1], len(X)
    r0 = clustering_loss(X, sol.centroids, sol.labels)
    designs = (("colored", design), ("white", white_noise_design(loo.shifts)))
    acc = read_table(job.input.accuracy)
    ced = _per_eps(job.input.cedskmeans, eps_grid, "cedskmeans")
    dpl = _per_eps(job.input.diffprivlib, eps_grid, "diffprivlib")
    rows = []
    info = {"K": K, "d": d, "P": P, "delta_c": delta, "calibration": calib, "delta_c_exact": loo.centroid_sensitivity}
    for (eps, c), (_, p) in zip(ced, dpl):
        g = gamma_c(eps, delta, calib)
        rows += _design_rows(acc, job.input.accuracy, eps, delta, g, designs, loo, K, f9["n_repeats"])
        for peer, (row, peer_info) in (
            ("cedskmeans", _cedskmeans_row(c, eps, delta, g, X, sol, loo, r0)),
            ("diffprivlib", _diffprivlib_row(p, eps, X, sol, r0)),
        ):
            rows.append(row)
            info.setdefault(peer, {})[f"{eps:g}"] = peer_info
    table = pd.DataFrame(rows, columns=COLUMNS)
    write_table(table, job.output.table)
    write_json(info, job.output.info)
    LOG.info(
        "peers table:\n%s",
        table[
            ["method", "eps_c", "centroid_error_kw", "dp_accuracy_loss", "eps_spent", "n_violated", "max_ratio_own"]
        ].to_string(index=False),
    )
    _runtime(job, X, sol)


def _runtime(job, X, sol) -> None:
    """benchmarks/peers/runtime.csv: the peers' run times, and dpgrid's own design time on the same clustering
    (exact leave-one-out analysis + eq. 15 solver, what the colored release needs besides one draw)."""
    cfg = job.params.cfg
    t0 = time.perf_counter()
    loo = leave_one_out_analysis(X, sol, max_iter=cfg["kmeans"]["max_iter"])
    t1 = time.perf_counter()
    optimal_colored_design(
        loo.shifts, tol=cfg["centroid_noise"]["solver_tol"], max_iter=cfg["centroid_noise"]["solver_max_iter"]
    )
    t2 = time.perf_counter()
    rows = [
        {
            "method": "colored",
            "eps_c": float("nan"),
            "runs": 1,
            "first_s": t2 - t0,
            "mean_s": t2 - t0,
            "what": f"dpgrid: exact leave-one-out {t1 - t0:.3f} s + eq. 15 solver {t2 - t1:.3f} s (any eps_c)",
        }
    ]
    for path in job.input.runtime:
        t = read_table(path)
        for (m, e), grp in t.groupby(["method", "eps_c"], sort=False):
            what = {
                "cedskmeans": "run 0: K-means + Lemma 2 covariance + draw; runs 1..: draws from that covariance",
                "diffprivlib": "one KMeans fit per run",
            }.get(m, "")
            rows.append(
                {
                    "method": m,
                    "eps_c": e,
                    "runs": len(grp),
                    "first_s": float(grp["seconds"].iloc[0]),
                    "mean_s": float(grp["seconds"].mean()),
                    "what": what,
                }
            )
    write_table(pd.DataFrame(rows), job.output.runtime)

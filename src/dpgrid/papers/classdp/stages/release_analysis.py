"""classdp, both settings: per accuracy budget rho the proposed (Algorithm 1 + eq. 50), white and no-noise
mechanisms of Ramakrishna et al., *Differential Privacy for Class-based Data*, their delta(eps) curves (exact
generalised chi-square tail, sup over edges; Definition 1) beside the hockey-stick delta (Theorem 1), an empirical
audit and a Bayes-classifier attack. Rule bodies of workflow/papers/classdp/classdp.smk; see
workflow/papers/classdp/classdp.md.

Each job reads ``job.params.cfg`` (the slice of the ``classdp`` section its rule passes) and ``job.params.seed``
where it draws random numbers.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table, save_npz, write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.core.sweeps import sweep_label
from dpgrid.mechanisms.gaussian_class import (
    ClassGaussianModel,
    bayes_classifier_accuracy,
    load_class_model,
    no_noise_mechanism,
    release,
)
from dpgrid.papers.classdp.evaluation import Algorithm1Settings, make_mechanism
from dpgrid.papers.classdp.paper import PAPER, ClassdpConfigError
from dpgrid.privacy.audit import tail_audit_row
from dpgrid.privacy.gaussian_loss import (
    EdgeTailCache,
    delta_sup_over_edges,
    hockey_stick_sup_over_edges,
    log_likelihood_ratio,
)

LOG = logging.getLogger(__name__)

# ------------------------------------------------------------------------------------------
# helpers


def epsilon_grid(spec: dict) -> np.ndarray:
    """The eps grid ``linspace(start, stop, num)`` of a config entry (endpoints included)."""
    if spec["stop"] < spec["start"]:
        raise ClassdpConfigError(f"config classdp epsilon_grid: stop {spec['stop']} < start {spec['start']}")
    return np.round(np.linspace(spec["start"], spec["stop"], int(spec["num"])), 12)


def _mechanism(name: str, model: ClassGaussianModel, rho: float, cfg: dict):
    alg1 = Algorithm1Settings.from_config(cfg["algorithm1"])
    return make_mechanism(name, model, rho, cfg["accuracy_budget_rule"], alg1)


def _release_cache(model, mech) -> EdgeTailCache:
    """Privacy losses and exact tails of the mechanism's release, shared by its delta curve, hockey stick and audit."""
    rel = model.with_noise(mech.noise_covs)
    return EdgeTailCache(rel.means, rel.covs)


def _curve_rows(model, mech, rho, eps, cfg, setting, cache: EdgeTailCache | None = None):
    rel = model.with_noise(mech.noise_covs)
    sup = delta_sup_over_edges(rel.means, rel.covs, rel.edges, eps, tol=cfg["delta_tolerance"], cache=cache)
    # beyond the paper: the tight (hockey-stick) delta of the same release and neighbours (class DP, Theorem 1)
    hs = hockey_stick_sup_over_edges(rel.means, rel.covs, rel.edges, eps, tol=cfg["delta_tolerance"], cache=cache)
    LOG.info(
        "%s %s rho=%s: delta(%g)=%.4f .. delta(%g)=%.4f (%d of %d edges not excluded by the Chernoff bound, %d of "
        "them bounded by cached exact tails); hockey stick %.4g .. %.4g",
        setting,
        mech.name,
        rho,
        eps[0],
        sup.delta[0],
        eps[-1],
        sup.delta[-1],
        sup.n_exact,
        sup.n_edges,
        sup.n_bounded,
        hs.delta_hs[0],
        hs.delta_hs[-1],
    )
    return pd.DataFrame(
        {
            "setting": setting,
            "mechanism": mech.name,
            "rho": rho if mech.name != "no_noise" else np.nan,
            "noise_trace": mech.trace,
            "epsilon": eps,
            "delta": sup.delta,
            "worst_label": [model.label(i) for i in sup.worst_edge[:, 0]],
            "worst_neighbour": [model.label(j) for j in sup.worst_edge[:, 1]],
            "edges": sup.n_edges,
            "edges_exact": sup.n_exact,
            "delta_hockey_stick": hs.delta_hs,
        }
    ), sup


def _audit_rows(model, mech, rho, cfg, rng, setting, cache: EdgeTailCache | None = None):
    """Empirical audit: sample the mechanism at the worst edge, L from the released densities, its tail against
    the exact delta (rows of :func:`dpgrid.privacy.audit.tail_audit_row`; the claimed delta is the exact sup over
    edges of Definition 1, which is the sampled edge's tail, so ``claimed_delta`` = ``exact_delta``)."""
    a = cfg["audit"]
    rel = model.with_noise(mech.noise_covs)
    rows = []
    want = np.asarray(a["epsilons"], dtype=float)
    sup = delta_sup_over_edges(rel.means, rel.covs, rel.edges, want, tol=cfg["delta_tolerance"], cache=cache)
    for idx, e in enumerate(want):
        i, j = sup.worst_edge[idx]
        n = int(a["samples"])
        q = rng.multivariate_normal(model.means[i], model.covs[i], size=n, method="cholesky")
        qt = release(q, mech.noise_covs[i], rng)
        llr = log_likelihood_ratio(qt, rel.means[i], rel.covs[i], rel.means[j], rel.covs[j])
        delta = float(sup.delta[idx])
        rows.append(
            tail_audit_row(
                setting=setting,
                mechanism=mech.name,
                rho=rho if mech.name != "no_noise" else np.nan,
                label=model.label(i),
                neighbour=model.label(j),
                epsilon=e,
                claimed_delta=delta,
                exact_delta=delta,
                count=int(np.sum(llr > e)),
                samples=n,
                level=a["level"],
            )
        )
    return rows


def _attack_row(model, mech, rho, cfg, rng, setting):
    out = bayes_classifier_accuracy(model, mech.noise_covs, int(cfg["attack"]["samples_per_label"]), rng)
    return {
        "setting": setting,
        "mechanism": mech.name,
        "rho": rho if mech.name != "no_noise" else np.nan,
        "accuracy": out["accuracy"],
        "chance": out["chance"],
        "trials": out["trials"],
    }


# ------------------------------------------------------------------------------------------
# per-rho mechanisms (both settings)


def _setting_cfg(job) -> tuple[str, dict]:
    setting = job.wildcards.setting
    return setting, job.params.cfg[setting]


def no_noise_job(job) -> None:
    """delta(eps), audit and attack of releasing the query as is (independent of rho)."""
    cfg = job.params.cfg
    setting, sc = _setting_cfg(job)
    model = load_class_model(job.input.model)
    eps = epsilon_grid(sc["epsilon_grid"])
    rng = job_rng(job.params.seed, PAPER, setting, "no_noise")
    mech = no_noise_mechanism(model)
    cache = _release_cache(model, mech)
    curve, sup = _curve_rows(model, mech, float("nan"), eps, cfg, setting, cache)
    write_table(curve, job.output.curves)
    write_table(pd.DataFrame(_audit_rows(model, mech, float("nan"), cfg, rng, setting, cache)), job.output.audit)
    write_table(pd.DataFrame([_attack_row(model, mech, float("nan"), cfg, rng, setting)]), job.output.attack)


def mechanism_job(job) -> None:
    """Proposed (Algorithm 1 + eq. 50) and white mechanisms at one rho: noise, delta curves, audit, attack."""
    cfg = job.params.cfg
    setting, sc = _setting_cfg(job)
    rho = float(job.params.rho)
    model = load_class_model(job.input.model)
    eps = epsilon_grid(sc["epsilon_grid"])
    rng = job_rng(job.params.seed, PAPER, setting, "mechanism", sweep_label(rho))
    curves, audits, attacks = [], [], []
    mechs = {}
    for name in ("white", "proposed"):
        mech = _mechanism(name, model, rho, cfg)
        mechs[name] = mech
        cache = _release_cache(model, mech)
        curve, sup = _curve_rows(model, mech, rho, eps, cfg, setting, cache)
        curves.append(curve)
        audits += _audit_rows(model, mech, rho, cfg, rng, setting, cache)
        attacks.append(_attack_row(model, mech, rho, cfg, rng, setting))
    p = mechs["proposed"]
    hist = [
        {"component": comp, "iteration": t, "J": jv} for comp, h in enumerate(p.j_history) for t, jv in enumerate(h)
    ]
    write_table(pd.DataFrame(hist, columns=["component", "iteration", "J"]), job.output.j_history)
    save_npz(
        job.output.mechanisms,
        proposed=p.noise_covs,
        white=mechs["white"].noise_covs,
        precisions=p.precisions,
        rho=np.array(rho),
        trace=np.array(p.trace),
    )
    write_table(pd.concat(curves, ignore_index=True), job.output.curves)
    write_table(pd.DataFrame(audits), job.output.audit)
    write_table(pd.DataFrame(attacks), job.output.attack)
    write_json(
        {
            "rho": rho,
            "noise_trace": p.trace,
            "stop_reasons": p.stop_reasons,
            "iterations": [len(h) - 1 for h in p.j_history],
            "J_initial": [h[0] for h in p.j_history],
            "J_final": [h[-1] for h in p.j_history],
            "white_fallback_labels": p.white_fallback,
        },
        job.output.summary,
    )


def collect_tables_job(job) -> None:
    """Merge per-rho curves / audits / attacks of one setting into single tables."""
    for key in ("curves", "audit", "attack"):
        frames = [read_table(f) for f in job.input[key]]
        df = pd.concat(frames, ignore_index=True)
        sort = [c for c in ("mechanism", "rho", "epsilon") if c in df.columns]
        df = df.sort_values(sort, kind="stable", na_position="first").reset_index(drop=True)
        write_table(df, job.output[key])


def exact_delta_job(job) -> None:
    """The calibrated (PDP) delta beside the exact hockey-stick delta of the same release (both settings).

    One row per (setting, mechanism, rho, eps) of the audited eps (``classdp.audit.epsilons``) and the grid ends:
    ``delta_pdp`` is what the mechanism is calibrated for (Definition 1), ``delta_hockey_stick`` the tight
    (eps, delta)-DP delta between neighbouring labels (Theorem 1), ``ratio`` = hockey stick / PDP.
    """
    frames = []
    for path in job.input.curves:
        df = read_table(path)
        eps = df["epsilon"].to_numpy()
        keep = np.zeros(len(df), dtype=bool)
        for e in [*job.params.cfg["audit"]["epsilons"], eps.min(), eps.max()]:
            keep |= np.isclose(eps, e)
        d = df[keep]
        frames.append(
            pd.DataFrame(
                {
                    "setting": d["setting"],
                    "mechanism": d["mechanism"],
                    "rho": d["rho"],
                    "epsilon": d["epsilon"],
                    "delta_pdp": d["delta"],
                    "delta_hockey_stick": d["delta_hockey_stick"],
                    "ratio": np.where(d["delta"] > 0, d["delta_hockey_stick"] / d["delta"], np.nan),
                }
            )
        )
    write_table(pd.concat(frames, ignore_index=True), job.output.table)

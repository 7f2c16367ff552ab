"""classdp: Ramakrishna et al., *Differential Privacy for Class-based Data: A Practical Gaussian
Mechanism*. Rule bodies of workflow/papers/classdp/classdp.smk that compute; see docs/classdp.md.

Settings (wildcard ``setting``):

* ``synthetic`` (Sec. VI-A): four labels, 2-D Gaussian queries with means on a line and
  Wishart(I, 2) covariances, all labels neighbours (Figs. 1-2);
* ``forecast`` (Secs. V, VI-B): households' 12-step ARMA(6,5) forecasts in the log domain,
  neighbours = households of the same k-means cluster (Algorithm 2, Figs. 3-4).

Both produce the same model file (``model.npz``: per-label means, covariances, directed edges),
then per accuracy budget rho (wildcard; its value is ``params.rho``) the proposed and white
mechanisms, their delta(eps) curves (exact generalised chi-square tail, sup over edges), an
empirical audit and an attack. Each job reads ``job.params.cfg`` (the slice of the ``classdp``
section its rule passes) and ``job.params.seed`` where it draws random numbers.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table, save_npz, write_json, write_table
from dpgrid.core.pipeline import Progress
from dpgrid.core.seeds import job_rng
from dpgrid.core.sweeps import sweep_label
from dpgrid.data.meter import resolution_note
from dpgrid.mechanisms.gaussian_class import (
    ClassGaussianModel,
    bayes_classifier_accuracy,
    complete_edges_within_groups,
    load_class_model,
    no_noise_mechanism,
    release,
    save_class_model,
)
from dpgrid.models.forecast_metrics import forecast_errors
from dpgrid.papers.classdp.evaluation import Algorithm1Settings, edges_within, make_mechanism
from dpgrid.papers.classdp.paper import PAPER, PAPER_STEP_MINUTES, STANDIN_SOURCE, ClassdpConfigError
from dpgrid.privacy.audit import clopper_pearson
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
    """Empirical audit: sample the mechanism, L from the released densities, tail vs exact delta."""
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
        count = int(np.sum(llr > e))
        lo, hi = clopper_pearson(count, n, a["level"])
        rows.append(
            {
                "setting": setting,
                "mechanism": mech.name,
                "rho": rho if mech.name != "no_noise" else np.nan,
                "epsilon": e,
                "label": model.label(i),
                "neighbour": model.label(j),
                "delta_exact": float(sup.delta[idx]),
                "delta_empirical": count / n,
                "ci_low": float(lo),
                "ci_high": float(hi),
                "level": a["level"],
                "samples": n,
                "consistent": bool(lo <= sup.delta[idx] <= hi),
            }
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
# synthetic setting (Sec. VI-A)


def synthetic_model(
    n_classes: int, dim: int, spacing: float, wishart_df: float, rng: np.random.Generator
) -> ClassGaussianModel:
    """Sec. VI-A: means ``i * spacing * u`` on a line (u = (1, ..., 1)/sqrt(dim)), covariances
    Wishart(I, df) (scipy), every label a neighbour of every other."""
    from scipy import stats

    if wishart_df < dim:
        raise ClassdpConfigError(
            f"config classdp.synthetic.wishart_df = {wishart_df} < dim = {dim}: the covariances would be singular"
        )
    u = np.ones(dim) / math.sqrt(dim)
    means = np.outer(np.arange(n_classes) * spacing, u)
    covs = np.array(
        [np.atleast_2d(stats.wishart(df=wishart_df, scale=np.eye(dim)).rvs(random_state=rng)) for _ in range(n_classes)]
    )
    return ClassGaussianModel(
        means, covs, complete_edges_within_groups([0] * n_classes), [f"class{i + 1}" for i in range(n_classes)]
    )


def synthetic_model_job(job) -> None:
    c = job.params.cfg["synthetic"]
    rng = job_rng(job.params.seed, PAPER, "synthetic_model")
    model = synthetic_model(c["n_classes"], c["dim"], c["mean_spacing"], c["wishart_df"], rng)
    save_class_model(job.output.model, model)
    rows = [
        {
            "label": model.label(i),
            **{f"mean{a}": model.means[i, a] for a in range(model.k)},
            **{f"cov{a}{b}": model.covs[i, a, b] for a in range(model.k) for b in range(model.k)},
        }
        for i in range(model.n)
    ]
    write_table(pd.DataFrame(rows), job.output.table)


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


# ------------------------------------------------------------------------------------------
# forecast setting (Secs. V, VI-B)


def _load_log_load(job, fc: dict):
    from dpgrid.data.meter import MeterData

    md = MeterData.load(job.input.readings, job.input.meters)
    wide = md.wide()
    if wide.isna().any().any():
        bad = wide.columns[wide.isna().any()].tolist()[:5]
        raise ClassdpConfigError(
            f"{job.input.readings}: meters {bad} do not share the common time axis (missing readings)"
        )
    step = md.step
    spd = int(pd.Timedelta("1D") / step)
    if pd.Timedelta("1D") % step:
        raise ClassdpConfigError(f"{job.input.readings}: sampling step {step} does not divide a day")
    h = int(fc["horizon"])
    note = resolution_note(
        step,
        PAPER_STEP_MINUTES,
        "classdp forecast",
        lambda m: (
            f"the {h}-step forecast horizon covers {h * m / 60:g} h (paper: {h * PAPER_STEP_MINUTES / 60:g} h) and the "
            f"{fc['train_samples']}-sample ARMA window {fc['train_samples'] * m / 1440:g} days (paper: "
            f"{fc['train_samples'] * PAPER_STEP_MINUTES / 1440:g})"
        ),
    )
    if note:
        LOG.warning(note)
    floor = float(fc["log_floor_kw"])
    kw = wide.to_numpy(dtype=float)
    n_floored = int(np.sum(kw < floor))
    log_p = np.log(np.maximum(kw, floor))
    return md, wide, kw, log_p, spd, n_floored, note


def _forecast_origin(n: int, spd: int, fc: dict, source: str) -> int:
    days = n // spd
    o = (days - 1) * spd + int(round(fc["origin_hour"] * spd / 24))
    period = int(fc["seasonal_period_days"]) * spd
    need = max(int(fc["train_samples"]), period)
    if o + int(fc["horizon"]) > n:
        raise ClassdpConfigError(
            f"{source}: forecast origin at sample {o} + horizon {fc['horizon']} exceeds the {n} samples "
            f"(config classdp.forecast.origin_hour = {fc['origin_hour']})"
        )
    if o < need:
        raise ClassdpConfigError(
            f"{source}: only {o} samples before the forecast origin; classdp.forecast needs "
            f"train_samples = {fc['train_samples']} and one seasonal period ({period})"
        )
    return o


def forecast_arma_job(job) -> None:
    """ARMA(6,5) fits and eq. (57) forecast distributions for one shard of the households."""
    from dpgrid.models.arma import forecast_distribution, seasonal_log_mean
    from dpgrid.papers.classdp.household_forecast import ForecastSettings, fit_household

    fc = job.params.cfg["forecast"]
    ac = fc["arma"]
    shard, n_shards = int(job.wildcards.shard), int(ac["shards"])
    md, wide, kw, log_p, spd, _, _ = _load_log_load(job, fc)
    n, m = log_p.shape
    o = _forecast_origin(n, spd, fc, str(job.input.readings))
    period = int(fc["seasonal_period_days"]) * spd
    mu = seasonal_log_mean(log_p[:o], period)  # (period, meters), eq. (61)
    pos = np.arange(n) % period
    x = log_p[:o] - mu[pos[:o]]
    H, K, T = int(fc["horizon"]), int(fc["conditioning_samples"]), int(fc["train_samples"])
    mine = [j for j in range(m) if j % n_shards == shard]
    settings = ForecastSettings.from_config(fc)
    rows, means, covs = [], [], []
    prog = Progress(len(mine), f"ARMA fits, shard {shard}")
    p_max, q_max = ac["order"][0], ac["order"][1]
    for j in mine:
        fit = fit_household(x[o - T : o, j], settings, name=str(wide.columns[j]))
        if fit.usable:
            mean_x, cov_x = forecast_distribution(fit, x[o - K : o, j], H)
        else:
            mean_x, cov_x = np.full(H, np.nan), np.full((H, H), np.nan)
        means.append(mean_x + mu[pos[o : o + H], j])
        covs.append(cov_x)
        rows.append(
            {
                "meter_id": str(wide.columns[j]),
                "status": fit.status,
                "p": fit.order[0],
                "q": fit.order[1],
                "converged": fit.converged,
                "stationary": fit.stationary,
                "invertible": fit.invertible,
                "sigma2": fit.sigma2,
                "llf": fit.llf,
                "method": fit.method,
                "iterations": fit.iterations,
                "grad_max": fit.grad_max,
                **{f"ar{i + 1}": (fit.ar[i] if i < fit.ar.size else 0.0) for i in range(p_max)},
                **{f"ma{i + 1}": (fit.ma[i] if i < fit.ma.size else 0.0) for i in range(q_max)},
                "reason": fit.reason,
                "messages": " | ".join(fit.messages),
            }
        )
        prog.step()
    save_npz(
        job.output.npz,
        meter_ids=np.asarray([r["meter_id"] for r in rows], dtype=str),
        means=np.asarray(means).reshape(len(rows), H),
        covs=np.asarray(covs).reshape(len(rows), H, H),
    )
    write_table(pd.DataFrame(rows), job.output.fits)


def forecast_model_job(job) -> None:
    """Gather the ARMA shards, cluster the households (k-means), build the class model (Algorithm 2 step 1)."""
    from dpgrid.papers.classdp.household_forecast import cluster_households

    fc = job.params.cfg["forecast"]
    md, wide, kw, log_p, spd, n_floored, note = _load_log_load(job, fc)
    n, m = log_p.shape
    o = _forecast_origin(n, spd, fc, str(job.input.readings))
    period = int(fc["seasonal_period_days"]) * spd
    ids = [str(c) for c in wide.columns]
    fits = pd.concat(
        [read_table(f, dtype={"meter_id": str, "messages": str, "reason": str}) for f in job.input.fits],
        ignore_index=True,
    )
    means, covs = {}, {}
    for f in job.input.npz:
        with np.load(f, allow_pickle=False) as z:
            for mid, mu_, cv in zip(z["meter_ids"], z["means"], z["covs"]):
                means[str(mid)], covs[str(mid)] = mu_, cv
    missing = sorted(set(ids) - set(means))
    if missing:
        raise ClassdpConfigError(f"ARMA shards lack households {missing[:5]}")
    # k-means on the households' weekly log profile (the seasonal mean of eq. 61)
    if fc["n_clusters"] > m:
        raise ClassdpConfigError(f"config classdp.forecast.n_clusters = {fc['n_clusters']} exceeds the {m} households")
    rng = job_rng(job.params.seed, PAPER, "forecast_kmeans")
    labels = cluster_households(
        log_p, o, period, int(fc["n_clusters"]), int(fc["kmeans_n_init"]), int(rng.integers(2**31 - 1))
    )
    fits = fits.set_index("meter_id").loc[ids].reset_index()
    fits["cluster"] = labels
    usable = (fits["status"] != "excluded").to_numpy()
    keep = np.flatnonzero(usable)
    groups = labels[keep]
    model = ClassGaussianModel(
        np.array([means[ids[j]] for j in keep]),
        np.array([covs[ids[j]] for j in keep]),
        complete_edges_within_groups(groups),
        [ids[j] for j in keep],
    )
    H = int(fc["horizon"])
    past = int(round(fc["past_hours"] * spd / 24))
    save_class_model(
        job.output.model,
        model,
        cluster=groups,
        origin=np.array(o),
        past_kw=kw[o - past : o, keep].T,
        truth_kw=kw[o : o + H, keep].T,
        past_time=wide.index[o - past : o].strftime("%Y-%m-%dT%H:%M:%S").to_numpy().astype(str),
        future_time=wide.index[o : o + H].strftime("%Y-%m-%dT%H:%M:%S").to_numpy().astype(str),
    )
    sizes = np.bincount(labels, minlength=int(fc["n_clusters"]))
    fits["cluster_size"] = sizes[labels]
    write_table(fits.drop(columns=["messages"]), job.output.households)
    counts = (
        fits["status"]
        .value_counts()
        .reindex(["ok", "retried", "nonconverged_kept", "fallback_order", "excluded"], fill_value=0)
    )
    summary = {
        "households": m,
        "used": int(usable.sum()),
        "status_counts": counts.to_dict(),
        "not_converged_first_attempt": int((fits["status"] != "ok").sum()),
        "cluster_sizes": sizes.tolist(),
        "singleton_clusters": int(np.sum(sizes == 1)),
        "edges": int(len(model.edges)),
        "floored_readings": n_floored,
        "forecast_origin": str(wide.index[o]),
        "nonconverged_rule": fc["arma"]["nonconverged_rule"],
        "messages": sorted({msg for s in fits["messages"].fillna("") for msg in s.split(" | ") if msg}),
    }
    if note:
        summary["resolution_note"] = note
    write_json(summary, job.output.summary)
    LOG.info("forecast model: %s", {k: v for k, v in summary.items() if k != "messages"})


def _mse_definitions(df: pd.DataFrame, houses) -> pd.DataFrame:
    """Long table of the MSE-definition sweep: every candidate measure (dpgrid.models.forecast_metrics) for the
    Fig. 3 houses (House 1-3) and the median over all households, per prediction (ARMA forecast, one released
    draw, expectation over draws of the proposed and white releases)."""
    from dpgrid.models.forecast_metrics import METRICS

    long = df.melt(id_vars=["meter_id", "prediction"], value_vars=list(METRICS), var_name="metric", value_name="value")
    rows = []
    for k, h in enumerate(houses):
        d = long[long["meter_id"] == h].copy()
        d.insert(0, "house", f"House {k + 1}")
        rows.append(d)
    med = long.groupby(["prediction", "metric"], sort=False)["value"].median().reset_index()
    med.insert(0, "meter_id", "all")
    med.insert(0, "house", "median over households")
    rows.append(med)
    return pd.concat(rows, ignore_index=True)[["house", "meter_id", "prediction", "metric", "value"]]


def forecast_release_job(job) -> None:
    """Fig. 3 data: released forecasts at rho_fig3 (noise in the log domain, exp afterwards) and MSEs."""
    cfg = job.params.cfg
    fc = cfg["forecast"]
    rho = float(fc["fig3_rho"])
    with np.load(job.input.model, allow_pickle=False) as z:
        model = ClassGaussianModel(z["means"], z["covs"], z["edges"], [str(s) for s in z["labels"]])
        past_kw, truth_kw, cluster = z["past_kw"], z["truth_kw"], z["cluster"]
        past_t, fut_t = z["past_time"], z["future_time"]
    with np.load(job.input.mechanisms, allow_pickle=False) as z:
        noise = {"proposed": z["proposed"], "white": z["white"]}
    rng = job_rng(job.params.seed, PAPER, "forecast_release", sweep_label(rho))
    draws = int(fc["release_mse_draws"])
    floor = float(fc["log_floor_kw"])
    rows_mse, rows_series, rows_def = [], [], []
    for i in range(model.n):
        fcast_kw = np.exp(model.means[i])  # eq. (62): exp(x_hat + mu)
        truth = truth_kw[i]
        row = {
            "meter_id": model.label(i),
            "mse_forecast_kw2": float(np.mean((fcast_kw - truth) ** 2)),
            "nmse_forecast": float(np.sum((fcast_kw - truth) ** 2) / np.sum(truth**2)),
            "floored_truth": int(np.sum(truth < floor)),
        }
        # every candidate reading of the paper's undefined "(normalized) MSE" (dpgrid.models.forecast_metrics)
        defs = {"forecast": forecast_errors(fcast_kw, truth, floor_kw=floor)}
        for name in ("proposed", "white"):
            one = np.exp(release(model.means[i], noise[name][i], rng)[0])
            many = np.exp(release(np.repeat(model.means[i][None], draws, 0), noise[name][i], rng))
            row[f"nmse_{name}"] = float(np.sum((one - truth) ** 2) / np.sum(truth**2))
            row[f"nmse_{name}_expected"] = float(np.mean(np.sum((many - truth) ** 2, axis=1)) / np.sum(truth**2))
            # the truth floored like the model's log load (a zero reading has no logarithm)
            row[f"mse_log_{name}"] = forecast_errors(one, truth, floor_kw=floor)["mse_log"]
            defs[f"{name}_expected"] = forecast_errors(many, truth, floor_kw=floor)
            if name == "proposed":
                released = one
                defs["proposed_one_draw"] = forecast_errors(one, truth, floor_kw=floor)
        for what, d in defs.items():
            rows_def.append(
                {"meter_id": model.label(i), "prediction": what, **{k: v for k, v in d.items() if k != "floored_truth"}}
            )
        rows_mse.append(row)
        for t, v in zip(past_t, past_kw[i]):
            rows_series.append({"meter_id": model.label(i), "kind": "past", "timestamp": t, "kw": v})
        for kind, vals in (("truth", truth), ("forecast", fcast_kw), ("released", released)):
            for t, v in zip(fut_t, vals):
                rows_series.append({"meter_id": model.label(i), "kind": kind, "timestamp": t, "kw": v})
    # the (eps, delta) of the release at the configured eps (exact, sup over edges)
    rel = model.with_noise(noise["proposed"])
    e = float(fc["fig3_epsilon"])
    sup = delta_sup_over_edges(rel.means, rel.covs, rel.edges, [e], tol=cfg["delta_tolerance"])
    mse = pd.DataFrame(rows_mse)
    houses = [model.label(j) for j in fc["fig3_households"] if j < model.n]
    if len(houses) != len(fc["fig3_households"]):
        raise ClassdpConfigError(
            f"config classdp.forecast.fig3_households {fc['fig3_households']}: only {model.n} households are usable"
        )
    sel = mse.set_index("meter_id").loc[houses].reset_index()
    sel.insert(0, "house", [f"House {k + 1}" for k in range(len(houses))])
    sel["rho"], sel["epsilon"], sel["delta"] = rho, e, float(sup.delta[0])
    # the same release's delta over the edges of each house's own cluster (Fig. 3 shows houses, not the sup)
    labels = list(model.labels)
    per_cluster = {}
    for h in houses:
        c = int(cluster[labels.index(h)])
        if c not in per_cluster:
            ce = edges_within(model, cluster, c)
            sup_c = delta_sup_over_edges(rel.means, rel.covs, ce, [e], tol=cfg["delta_tolerance"]) if len(ce) else None
            per_cluster[c] = float(sup_c.delta[0]) if sup_c is not None else float("nan")
    sel["cluster"] = [int(cluster[labels.index(h)]) for h in houses]
    sel["delta_cluster"] = [per_cluster[c] for c in sel["cluster"]]
    write_table(sel, job.output.table_mse)
    write_table(mse, job.output.all_mse)
    write_table(_mse_definitions(pd.DataFrame(rows_def), houses), job.output.mse_definitions)
    series = pd.DataFrame(rows_series)
    write_table(series[series["meter_id"].isin(houses)].reset_index(drop=True), job.output.series)


# ------------------------------------------------------------------------------------------
# fidelity sweeps and tables (issue 16)


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


def similarity_sweep_data_job(job) -> None:
    """Meter data of one point of the within-cluster-similarity sweep: the stand-in's data as the ``meter_data``
    rule makes them (same random stream ``job_rng(seed, "data", <data source>)``) with the similarity replaced.
    The point's forecast chain then runs through the main chain's rules (sharded ARMA fits, forecast model)."""
    from dpgrid.data.sources import write_experiment_data
    from dpgrid.papers.classdp import standin

    if job.params.data.get("source") != STANDIN_SOURCE:
        raise ClassdpConfigError(
            f"data.experiments.{job.params.data_source}.source must be {STANDIN_SOURCE} to vary its "
            f"within_cluster_similarity, got {job.params.data.get('source')!r}"
        )
    spec = dict(job.params.data, within_cluster_similarity=float(job.params.similarity))
    name = job.params.data_source
    write_experiment_data(
        spec, job_rng(job.params.seed, "data", name), job.output.readings, job.output.meters, name=name, module=standin
    )


#: wildcard ``part`` of the sweep job that computes the no-noise curve (the other parts are ``rho<label>``)
SWEEP_NO_NOISE_PART = "no_noise"


def similarity_sweep_part_job(job) -> None:
    """Part of one point of the within-cluster-similarity sweep: delta at the sweep's eps of the white and proposed
    mechanisms at one rho (wildcard ``part`` = ``rho<label>``, its value ``params.rho``), or of the no-noise release
    (``part`` = ``no_noise``), on the forecast class model of the stand-in at this similarity (docs/classdp.md)."""
    from dpgrid.papers.classdp.calibration import similarity_deltas

    cfg = job.params.cfg
    no_noise = job.wildcards.part == SWEEP_NO_NOISE_PART
    df = similarity_deltas(
        load_class_model(job.input.model),
        cfg,
        rhos=[] if no_noise else [float(job.params.rho)],
        eps=cfg["forecast"]["similarity_sweep"]["epsilons"],
        mechanisms=("no_noise",) if no_noise else ("white", "proposed"),
    )
    write_table(df, job.output.table)


def similarity_sweep_point_job(job) -> None:
    """One point of the within-cluster-similarity sweep: its parts (no-noise curve, then each rho in
    ``classdp.forecast.rhos`` order) with the similarity and the model's size
    (:func:`dpgrid.papers.classdp.calibration.similarity_table`; the rows of ``similarity_point``)."""
    from dpgrid.papers.classdp.calibration import similarity_table

    parts = pd.concat([read_table(f, dtype={"worst_label": str, "worst_neighbour": str}) for f in job.input.parts])
    df = similarity_table(float(job.params.similarity), load_class_model(job.input.model), parts.reset_index(drop=True))
    write_table(df, job.output.table)


#: columns of the similarity sweep table (dpgrid.papers.classdp.calibration.similarity_point)
SIMILARITY_SWEEP_COLUMNS = [
    "similarity",
    "mechanism",
    "rho",
    "epsilon",
    "delta",
    "worst_label",
    "worst_neighbour",
    "households",
    "edges",
    "median_trace_sigma",
]


def similarity_sweep_job(job) -> None:
    """Merge the points of the similarity sweep (in sweep order) into one table."""
    from dpgrid.core.sweeps import concat_sweep_points

    sw = job.params.cfg["forecast"]["similarity_sweep"]
    if job.params.source != STANDIN_SOURCE or not sw["similarities"]:  # nothing to vary, or no point asked for
        LOG.warning(
            "the similarity sweep is empty: %s",
            f"data source {job.params.source} is not the stand-in {STANDIN_SOURCE}"
            if job.params.source != STANDIN_SOURCE
            else "classdp.forecast.similarity_sweep.similarities is empty",
        )
        write_table(pd.DataFrame(columns=SIMILARITY_SWEEP_COLUMNS), job.output.table)
        return
    write_table(
        concat_sweep_points(
            job.input.points, "similarity", sw["similarities"], "classdp.forecast.similarity_sweep.similarities"
        ),
        job.output.table,
    )

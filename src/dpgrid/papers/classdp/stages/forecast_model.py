"""classdp, forecast setting (Secs. V, VI-B of Ramakrishna et al., *Differential Privacy for Class-based Data*):
households' 12-step ARMA(6,5) forecasts in the log domain (eq. 57, seasonal mean eq. 61), sharded over the
households, then k-means clusters, neighbours = households of the same cluster (Algorithm 2 step 1). Writes the
class model file (``model.npz``) the mechanism jobs read; see workflow/papers/classdp/classdp.md.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table, save_npz, write_json, write_table
from dpgrid.core.pipeline import Progress
from dpgrid.core.seeds import job_rng
from dpgrid.data.meter import resolution_note
from dpgrid.mechanisms.gaussian_class import (
    ClassGaussianModel,
    complete_edges_within_groups,
    save_class_model,
)
from dpgrid.papers.classdp.paper import PAPER, PAPER_STEP_MINUTES, ClassdpConfigError

LOG = logging.getLogger(__name__)

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
                "start": fit.start,
                "start_spread": fit.start_spread,
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
    # a shard with no household (fewer households than forecast.arma.shards) writes the header alone
    columns = [*FIT_COLUMNS, *(f"ar{i + 1}" for i in range(p_max)), *(f"ma{i + 1}" for i in range(q_max)), *FIT_TEXT]
    write_table(pd.DataFrame(rows, columns=columns), job.output.fits)


#: The columns of an ARMA shard's fit table, before the AR and MA coefficients, and after them.
FIT_COLUMNS = ["meter_id", "status", "p", "q", "converged", "stationary", "invertible", "sigma2", "llf", "method"]
FIT_COLUMNS += ["iterations", "grad_max", "start", "start_spread"]
FIT_TEXT = ["reason", "messages"]


def _read_arma_shards(job, ids: list[str]) -> tuple[pd.DataFrame, dict, dict]:
    """The ARMA shards' fit tables (concatenated) and ``{meter id: forecast mean / covariance}``."""
    tables = [
        read_table(f, dtype={"meter_id": str, "messages": str, "reason": str, "start": str}) for f in job.input.fits
    ]
    fits = pd.concat([t for t in tables if len(t)] or tables[:1], ignore_index=True)  # empty shards: no households
    means, covs = {}, {}
    for f in job.input.npz:
        with np.load(f, allow_pickle=False) as z:
            for mid, mu_, cv in zip(z["meter_ids"], z["means"], z["covs"]):
                means[str(mid)], covs[str(mid)] = mu_, cv
    missing = sorted(set(ids) - set(means))
    if missing:
        raise ClassdpConfigError(f"ARMA shards lack households {missing[:5]}")
    return fits, means, covs


def _forecast_summary(fits, model, m, usable, sizes, n_floored, origin_time, note, fc) -> dict:
    """summary.json of the forecast model: households used, fit statuses, cluster sizes, edges, messages."""
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
        "forecast_origin": origin_time,
        "nonconverged_rule": fc["arma"]["nonconverged_rule"],
        "messages": sorted({msg for s in fits["messages"].fillna("") for msg in s.split(" | ") if msg}),
    }
    if note:
        summary["resolution_note"] = note
    return summary


def forecast_model_job(job) -> None:
    """Gather the ARMA shards, cluster the households (k-means), build the class model (Algorithm 2 step 1)."""
    from dpgrid.papers.classdp.household_forecast import cluster_households

    fc = job.params.cfg["forecast"]
    md, wide, kw, log_p, spd, n_floored, note = _load_log_load(job, fc)
    n, m = log_p.shape
    o = _forecast_origin(n, spd, fc, str(job.input.readings))
    period = int(fc["seasonal_period_days"]) * spd
    ids = [str(c) for c in wide.columns]
    # k-means on the households' weekly log profile (the seasonal mean of eq. 61)
    if fc["n_clusters"] >= m:
        k = fc["n_clusters"]
        raise ClassdpConfigError(
            f"config classdp.forecast.n_clusters = {k} leaves no cluster of two among the {m} households of "
            f"{job.input.readings} (the class mechanism's neighbours are households of one cluster): it needs at "
            f"least {k + 1} households (or set n_clusters <= {max(m - 1, 1)})"
        )
    fits, means, covs = _read_arma_shards(job, ids)
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
    summary = _forecast_summary(fits, model, m, usable, sizes, n_floored, str(wide.index[o]), note, fc)
    write_json(summary, job.output.summary)
    LOG.info("forecast model: %s", {k: v for k, v in summary.items() if k != "messages"})

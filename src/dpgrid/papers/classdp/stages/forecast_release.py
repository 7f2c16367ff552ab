"""classdp, Fig. 3 data (Sec. VI-B of Ramakrishna et al., *Differential Privacy for Class-based Data*):
released forecasts at rho_fig3 (noise in the log domain, exp afterwards, eq. 62), their (normalised) MSEs under
every candidate definition, and the release's delta (sup over edges and per cluster); see
workflow/papers/classdp/classdp.md.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.core.seeds import job_rng
from dpgrid.core.sweeps import sweep_label
from dpgrid.mechanisms.gaussian_class import (
    ClassGaussianModel,
    release,
)
from dpgrid.models.forecast_metrics import forecast_errors
from dpgrid.papers.classdp.evaluation import edges_within
from dpgrid.papers.classdp.paper import PAPER, ClassdpConfigError
from dpgrid.privacy.gaussian_loss import (
    delta_sup_over_edges,
)


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


def _normalised(squared_error: float, truth: np.ndarray) -> float:
    """A squared error over the truth's energy (the normalised MSE); undefined (NaN, an empty cell) for a household
    whose readings over the horizon are all zero, not inf."""
    energy = float(np.sum(truth**2))
    return float(squared_error) / energy if energy > 0 else float("nan")


def _household_releases(model, noise, truth_kw, past_kw, past_t, fut_t, rng, draws: int, floor: float):
    """Per household (in model order, the draw order of ``rng``): the MSE row, the Fig. 3 series rows and the rows
    of every candidate MSE definition, for one released draw and ``draws`` draws of the proposed and white noise."""
    rows_mse, rows_series, rows_def = [], [], []
    for i in range(model.n):
        fcast_kw = np.exp(model.means[i])  # eq. (62): exp(x_hat + mu)
        truth = truth_kw[i]
        row = {
            "meter_id": model.label(i),
            "mse_forecast_kw2": float(np.mean((fcast_kw - truth) ** 2)),
            "nmse_forecast": _normalised(np.sum((fcast_kw - truth) ** 2), truth),
            "floored_truth": int(np.sum(truth < floor)),
        }
        # every candidate reading of the paper's undefined "(normalized) MSE" (dpgrid.models.forecast_metrics)
        defs = {"forecast": forecast_errors(fcast_kw, truth, floor_kw=floor)}
        for name in ("proposed", "white"):
            one = np.exp(release(model.means[i], noise[name][i], rng)[0])
            many = np.exp(release(np.repeat(model.means[i][None], draws, 0), noise[name][i], rng))
            row[f"nmse_{name}"] = _normalised(np.sum((one - truth) ** 2), truth)
            row[f"nmse_{name}_expected"] = _normalised(np.mean(np.sum((many - truth) ** 2, axis=1)), truth)
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
    return rows_mse, rows_series, rows_def


def _fig3_houses(model, cluster, rel, mse: pd.DataFrame, houses, rho: float, e: float, delta: float, tol):
    """The Fig. 3 houses' MSE rows with the release's (eps, delta): the sup over all edges and over the edges of
    each house's own cluster (Fig. 3 shows houses, not the sup)."""
    sel = mse.set_index("meter_id").loc[houses].reset_index()
    sel.insert(0, "house", [f"House {k + 1}" for k in range(len(houses))])
    sel["rho"], sel["epsilon"], sel["delta"] = rho, e, delta
    labels = list(model.labels)
    per_cluster = {}
    for h in houses:
        c = int(cluster[labels.index(h)])
        if c not in per_cluster:
            ce = edges_within(model, cluster, c)
            sup_c = delta_sup_over_edges(rel.means, rel.covs, ce, [e], tol=tol) if len(ce) else None
            per_cluster[c] = float(sup_c.delta[0]) if sup_c is not None else float("nan")
    sel["cluster"] = [int(cluster[labels.index(h)]) for h in houses]
    sel["delta_cluster"] = [per_cluster[c] for c in sel["cluster"]]
    return sel


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
    rows_mse, rows_series, rows_def = _household_releases(
        model, noise, truth_kw, past_kw, past_t, fut_t, rng, int(fc["release_mse_draws"]), float(fc["log_floor_kw"])
    )
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
    sel = _fig3_houses(model, cluster, rel, mse, houses, rho, e, float(sup.delta[0]), cfg["delta_tolerance"])
    write_table(sel, job.output.table_mse)
    write_table(mse, job.output.all_mse)
    write_table(_mse_definitions(pd.DataFrame(rows_def), houses), job.output.mse_definitions)
    series = pd.DataFrame(rows_series)
    write_table(series[series["meter_id"].isin(houses)].reset_index(drop=True), job.output.series)

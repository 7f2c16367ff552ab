"""Calibration of the classdp stand-in's within-cluster similarity on its one calibration target.

The stand-in population (:mod:`dpgrid.papers.classdp.standin`) has every property the paper states about
its data (100 households, 15 min, 6 geographic clusters); the one it leaves free is the within-cluster
similarity lambda. It is calibrated on one printed number,
:data:`dpgrid.papers.classdp.paper.CALIBRATION_TARGET` (the white-noise delta 0.8 at rho = 0.68571,
eps = 0.1, Sec. VI-B-2), by running the pipeline's own computation for a candidate lambda
(:func:`similarity_point`):

1. the meter data exactly as the ``meter_data`` rule makes it (``job_rng(seed, "data", name)``, written to
   CSV and read back, as the forecast jobs read it);
2. the forecast class model (:func:`dpgrid.papers.classdp.household_forecast.build_forecast_model`: the functions the
   ``classdp_forecast_arma`` / ``classdp_forecast_model`` jobs call, k-means seeded as that job);
3. the mechanisms' delta (sup over the edges) at the requested (rho, eps).

:func:`calibrate_similarity` brackets the target on a grid and bisects to ``resolution``; each evaluation
refits the 100 ARMA(6,5) models (about 1-2 min CPU). Run::

    PYTHONPATH=src python -m dpgrid.papers.classdp.calibration --configfile config/config.yaml

and put the printed value into ``data.experiments.classdp_forecast.within_cluster_similarity``. The same
:func:`similarity_point` gives the rows of the pipeline's similarity sweep (``classdp_similarity_sweep``).
"""

from __future__ import annotations

import argparse
import logging
import math
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.core.seeds import job_rng
from dpgrid.data.meter import MeterData
from dpgrid.data.sources import load_experiment_data
from dpgrid.papers.classdp import standin
from dpgrid.papers.classdp.evaluation import Algorithm1Settings, delta_curves
from dpgrid.papers.classdp.household_forecast import ForecastSettings, build_forecast_model
from dpgrid.papers.classdp.paper import CALIBRATION_TARGET, PAPER, STANDIN_SOURCE, ClassdpConfigError

LOG = logging.getLogger(__name__)

__all__ = [
    "pipeline_meter_data",
    "forecast_model_for",
    "similarity_point",
    "similarity_rows",
    "similarity_deltas",
    "similarity_table",
    "calibrate_similarity",
    "interpolate_from_sweep",
]


def pipeline_meter_data(spec: dict, seed: int, name: str = "classdp_forecast") -> MeterData:
    """The ``meter_data`` rule's readings for ``spec``, after the CSV round trip the forecast jobs see."""
    md = load_experiment_data(spec, job_rng(seed, "data", name), name=name, module=standin)
    with tempfile.TemporaryDirectory() as tmp:
        md.save(Path(tmp) / "readings.csv", Path(tmp) / "meters.csv")
        return MeterData.load(Path(tmp) / "readings.csv", Path(tmp) / "meters.csv")


def forecast_model_for(similarity: float, spec: dict, fc: dict, seed: int, name: str = "classdp_forecast"):
    """The forecast class model of the stand-in ``spec`` at within-cluster similarity ``similarity``."""
    if spec.get("source") != STANDIN_SOURCE:
        raise ClassdpConfigError(
            f"data.experiments.{name}.source must be {STANDIN_SOURCE} to vary its "
            f"within_cluster_similarity, got {spec.get('source')!r}"
        )
    spec = dict(spec, within_cluster_similarity=float(similarity))
    md = pipeline_meter_data(spec, seed, name)
    wide = md.wide()
    spd = int(round(86400 / md.step.total_seconds()))
    return build_forecast_model(
        wide.to_numpy(float),
        spd,
        ForecastSettings.from_config(fc),
        job_rng(seed, PAPER, "forecast_kmeans"),
        names=[str(c) for c in wide.columns],
        source=name,
    )


def similarity_point(
    similarity: float,
    spec: dict,
    cfg: dict,
    seed: int,
    *,
    rhos,
    eps,
    mechanisms=("no_noise", "white", "proposed"),
    name: str = "classdp_forecast",
) -> pd.DataFrame:
    """delta(eps) of the ``mechanisms`` at each rho on the stand-in with within-cluster similarity ``similarity``.

    ``cfg`` is the ``classdp`` section (keys ``forecast``, ``accuracy_budget_rule``, ``delta_tolerance``,
    ``algorithm1``). Long table: similarity, mechanism, rho, epsilon, delta, worst_label, worst_neighbour,
    plus the model's households, edges and the median forecast-error trace.
    """
    fm = forecast_model_for(similarity, spec, cfg["forecast"], seed, name)
    return similarity_rows(similarity, fm.model, cfg, rhos=rhos, eps=eps, mechanisms=mechanisms)


def similarity_rows(
    similarity: float, model, cfg: dict, *, rhos, eps, mechanisms=("no_noise", "white", "proposed")
) -> pd.DataFrame:
    """The rows of :func:`similarity_point` from the forecast class model ``model`` at that similarity."""
    return similarity_table(similarity, model, similarity_deltas(model, cfg, rhos=rhos, eps=eps, mechanisms=mechanisms))


def similarity_deltas(model, cfg: dict, *, rhos, eps, mechanisms) -> pd.DataFrame:
    """delta(eps) of the ``mechanisms`` at each rho on ``model`` (:func:`dpgrid.papers.classdp.evaluation.delta_curves`
    with the ``classdp`` settings ``cfg``): each (mechanism, rho) is computed on its own, so the pipeline's sweep
    splits a point into one job per rho (and one for the no-noise curve) and concatenates them in this order."""
    return delta_curves(
        model,
        rhos,
        eps,
        trace_rule=cfg["accuracy_budget_rule"],
        mechanisms=mechanisms,
        alg1=Algorithm1Settings.from_config(cfg["algorithm1"]),
        tol=float(cfg["delta_tolerance"]),
    )


def similarity_table(similarity: float, model, deltas: pd.DataFrame) -> pd.DataFrame:
    """The sweep point's table: ``deltas`` (:func:`similarity_deltas`) with the similarity and the model's
    households, edges and median forecast-error trace."""
    df = deltas.copy()
    df.insert(0, "similarity", float(similarity))
    df["households"] = int(model.n)
    df["edges"] = int(len(model.edges))
    df["median_trace_sigma"] = float(np.median(np.trace(model.covs, axis1=1, axis2=2)))
    return df


def calibrate_similarity(
    evaluate: Callable[[float], float],
    target: float,
    *,
    grid=(0.0, 0.5, 0.8, 0.9, 0.95, 1.0),
    resolution: float = 0.001,
    cache: dict | None = None,
) -> dict:
    """lambda on the ``resolution`` grid whose value is closest to ``target`` (value decreasing in lambda).

    Walks ``grid`` upwards to the first pair of neighbours that brackets ``target`` and bisects (midpoints
    rounded to ``resolution``) until they are ``resolution`` apart; returns the bracketing end closer to the
    target and every evaluation (``cache``: lambda -> value, reused). The value (a delta of a k-means
    clustering of ARMA fits) is not exactly monotone in lambda; the bracket found is reported, not assumed
    unique.
    """
    vals = {} if cache is None else cache

    def f(lam: float) -> float:
        lam = round(round(lam / resolution) * resolution, 10)
        if lam not in vals:
            vals[lam] = float(evaluate(lam))
            LOG.info("similarity %.4g: value %.6g (target %g)", lam, vals[lam], target)
        return vals[lam]

    pts = sorted(grid)
    lo = hi = None
    for a, b in zip(pts, pts[1:]):  # grid points evaluated only until the target is bracketed
        if (f(a) - target) * (f(b) - target) <= 0:
            lo, hi = a, b
            break
    if lo is None:
        best = pts[int(np.argmin([abs(f(x) - target) for x in pts]))]
        return {"similarity": best, "value": f(best), "bracketed": False, "evaluations": dict(sorted(vals.items()))}
    while hi - lo > resolution * (1 + 1e-9):
        mid = round(round(0.5 * (lo + hi) / resolution) * resolution, 10)
        if mid in (lo, hi):
            break
        if (f(lo) - target) * (f(mid) - target) <= 0:
            hi = mid
        else:
            lo = mid
    best = lo if abs(f(lo) - target) <= abs(f(hi) - target) else hi
    return {
        "similarity": best,
        "value": f(best),
        "bracket": [lo, hi],
        "bracketed": True,
        "evaluations": dict(sorted(vals.items())),
    }


def interpolate_from_sweep(sweep: pd.DataFrame, *, resolution: float = 0.001) -> dict:
    """lambda where the calibration target's value crosses the printed number, by linear interpolation between
    the two neighbouring points of a similarity sweep table (``forecast/similarity_sweep.csv``) that bracket it.

    The cheap alternative to :func:`calibrate_similarity` (no new forecast chain: the sweep's points are the
    evaluations); rounded to ``resolution``. Raises if the sweep does not bracket the target.
    """
    t = CALIBRATION_TARGET
    d = sweep[
        (sweep["mechanism"] == t.mechanism)
        & np.isclose(sweep["rho"].astype(float), t.rho)
        & np.isclose(sweep["epsilon"], t.epsilon)
    ].sort_values("similarity")
    lam, val = d["similarity"].to_numpy(float), d["delta"].to_numpy(float)
    for k in range(len(lam) - 1):
        if (val[k] - t.value) * (val[k + 1] - t.value) <= 0 and val[k] != val[k + 1]:
            x = lam[k] + (t.value - val[k]) * (lam[k + 1] - lam[k]) / (val[k + 1] - val[k])
            return {
                "similarity": round(round(x / resolution) * resolution, 10),
                "bracket": [float(lam[k]), float(lam[k + 1])],
                "values": [round(float(val[k]), 4), round(float(val[k + 1]), 4)],
                "evaluations": dict(zip(lam.tolist(), val.tolist())),
            }
    raise ClassdpConfigError(
        f"the similarity sweep ({dict(zip(lam.tolist(), val.tolist()))}) does not bracket the "
        f"target {t.value:g}; add similarities to classdp.forecast.similarity_sweep"
    )


def main(argv=None) -> int:
    """``python -m dpgrid.papers.classdp.calibration [--configfile config/config.yaml]``."""
    from dpgrid.core.config import load_config

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    ap.add_argument("--grid", type=float, nargs="+", default=[0.0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 1.0])
    ap.add_argument("--resolution", type=float, default=0.001)
    ap.add_argument("--out", help="CSV of every evaluation (similarity, value)")
    ap.add_argument(
        "--from-sweep",
        help="interpolate between the points of this similarity sweep table "
        "(results/classdp/forecast/similarity_sweep.csv) instead of bisecting",
    )
    args = ap.parse_args(argv)
    if args.from_sweep:
        res = interpolate_from_sweep(pd.read_csv(args.from_sweep), resolution=args.resolution)
        t = CALIBRATION_TARGET
        print(
            f"within_cluster_similarity: {res['similarity']:g}   # {t.mechanism} delta at rho = {t.rho:g}, "
            f"eps = {t.epsilon:g}: {res['values']} at {res['bracket']} (target {t.value:g}), linear interpolation"
        )
        return 0
    cfg = load_config(args.configfile)
    cd = cfg[PAPER]
    name = cd["forecast"]["data_source"]
    spec = cfg["data"]["experiments"][name]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    t = CALIBRATION_TARGET

    def value(lam: float) -> float:
        df = similarity_point(
            lam, spec, cd, cfg["seed"], rhos=[t.rho], eps=[t.epsilon], mechanisms=(t.mechanism,), name=name
        )
        return float(df["delta"].iloc[0])

    res = calibrate_similarity(value, t.value, grid=args.grid, resolution=args.resolution)
    if args.out:
        pd.DataFrame(sorted(res["evaluations"].items()), columns=["similarity", "value"]).to_csv(args.out, index=False)
    print(
        f"within_cluster_similarity: {res['similarity']:g}   # {t.mechanism} delta at rho = {t.rho:g}, "
        f"eps = {t.epsilon:g}: {res['value']:.4f} (target {t.value:g}); evaluations {res['evaluations']}"
    )
    return 0 if math.isfinite(res["value"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())

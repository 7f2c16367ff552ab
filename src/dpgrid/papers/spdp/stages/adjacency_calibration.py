"""spdp adjacency parameters (Parker, Hale, Barooah, *Spectral Differential Privacy*): B_SpDP (eq. 12) and
B_TrDP(K) (eq. 13) on the home's series, with the data of Figs. 1a, 1b, 2 and 3 (demand trace, time-domain and
PSD distances, PSDs from several data lengths). Rule body of ``spdp_calibration``; see workflow/papers/spdp/spdp.md.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from dpgrid.core.io import write_json, write_table
from dpgrid.data.meter import MeterDataError
from dpgrid.mechanisms.spectral_adjacency import b_spdp, b_trdp, consecutive_distance, trajectory_distance_quantiles
from dpgrid.papers.spdp.home_series import (
    HOURS_PER_WEEK,
    data_label,
    load_series,
    note_resolution,
    psd_estimator,
    samples_in,
)

LOG = logging.getLogger(__name__)


def calibration(x: np.ndarray, fs: float, cfg: dict) -> dict:
    """B_SpDP (eq. 12) over windows of the configured weeks, B_TrDP(K) (eq. 13) for each K."""
    est = psd_estimator(cfg, fs)
    c = cfg["calibration"]
    weeks = range(c["spdp_window_weeks"][0], c["spdp_window_weeks"][1] + 1)
    sa = b_spdp(
        x,
        est,
        lengths=[samples_in(w * HOURS_PER_WEEK, fs) for w in weeks],
        step=samples_in(24 * c["window_step_days"], fs),
    )
    trdp = {}
    for name, hours in c["trdp_durations_hours"].items():
        k = samples_in(hours, fs)
        q = trajectory_distance_quantiles(x, k, (0.0, 0.5, 1.0))
        trdp[name] = {
            "hours": hours,
            "samples": k,
            "b": b_trdp(x, k),
            "min_distance": float(q[0]),
            "median_distance": float(q[1]),
        }
    return {
        "b_spdp": sa.b,
        "b_spdp_n_windows": len(sa.windows),
        "b_spdp_argmax_windows": [list(sa.windows[sa.argmax[0]]), list(sa.windows[sa.argmax[1]])],
        "trdp": trdp,
    }


def calibration_job(job) -> None:
    cfg = job.params.cfg
    s, fs, info = load_series(job.input.readings, job.input.meters, cfg)
    x = s.to_numpy()
    info["source"] = data_label(job.params.data)
    info["data_spec"] = job.params.data
    note_resolution(info, cfg)
    res = calibration(x, fs, cfg)
    res["data"] = info
    res["fs_per_hour"] = fs
    est = psd_estimator(cfg, fs)

    # Fig. 1b and Fig. 3: time-domain D(K) and the PSD distance between consecutive windows
    rows = []
    for hours in cfg["distances"]["durations_hours"]:
        k = samples_in(hours, fs)
        if 2 * k > x.size:
            LOG.info("distance at %g h skipped: needs %d samples, data has %d", hours, 2 * k, x.size)
            continue
        d_psd = (
            float(np.linalg.norm(est.estimate(x[:k]) - est.estimate(x[k : 2 * k])))
            if k >= est.segment_length
            else math.nan
        )
        rows.append(
            {"hours": hours, "samples": k, "time_distance_kw": consecutive_distance(x, k), "psd_distance_kw2h": d_psd}
        )
    write_table(pd.DataFrame(rows), job.output.distances)

    # Fig. 2: PSD estimates from several data lengths (first days of the data)
    psds = {"frequency_per_hour": est.frequencies_per_hour}
    for days in cfg["fig2_lengths_days"]:
        k = samples_in(24 * days, fs)
        if k > x.size:
            raise MeterDataError(
                f"{job.input.readings}: config spdp.fig2_lengths_days asks for {days} days; "
                f"the data has {x.size / fs / 24:.1f}"
            )
        psds[f"psd_{days}d"] = est.estimate(x[:k])
    write_table(pd.DataFrame(psds), job.output.psd_lengths)

    # Fig. 1a: the demand trace (first configured days)
    k = samples_in(24 * cfg["fig1_trace_days"], fs)
    trace = pd.DataFrame({"timestamp": s.index[:k].strftime("%Y-%m-%dT%H:%M:%S"), "kw": x[:k]})
    write_table(trace, job.output.trace)
    write_json(res, job.output.calibration)
    LOG.info(
        "B_SpDP = %.4g kW^2 h from %d windows; B_TrDP = %s",
        res["b_spdp"],
        res["b_spdp_n_windows"],
        {k: round(v["b"], 4) for k, v in res["trdp"].items()},
    )

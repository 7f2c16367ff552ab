"""dpkmeans stage: Fig. 3 (Ravi et al., Sec. III): white noise on a smooth series (the feeder-average load) "can easily
be filtered out by a Savitzky-Golay filter (of order 1 with a window size of 300)".

The window is the paper's in time, not in samples: 300 samples at the paper's stated resolution (one hour, Sec. V-B;
config ``white_noise_pitfall.paper_step_minutes``) are 300 h, converted to our data's step by
:func:`window_samples`.  Fig. 3's own resolution is not stated, so the job also filters at each plausible reading of
it (``plausible_step_minutes``) and writes, per reading, the errors the claim compares: the noisy series', the
filtered series' and a flat line's at the true series' mean (the filter keeps the shape only if it beats that line).
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from dpgrid.core.io import write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.papers.dpkmeans.paper import PAPER

log = logging.getLogger(__name__)


def window_samples(paper_samples: int, paper_step_minutes: float, our_step_minutes: float, order: int) -> int:
    """The paper's window ``paper_samples`` x ``paper_step_minutes`` in samples of ``our_step_minutes``: rounded to
    the nearest odd number, at least ``order + 2`` (the filter needs an odd window longer than its order)."""
    w = max(int(round(paper_samples * paper_step_minutes / our_step_minutes)), order + 2)
    return w if w % 2 else w + 1


def rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(a, float) - np.asarray(b, float)) ** 2)))


def filter_reading(avg: np.ndarray, noisy: np.ndarray, window: int, order: int) -> tuple[np.ndarray | None, dict]:
    """The filtered series (None when the window is longer than the series) and the reading's errors."""
    from scipy.signal import savgol_filter

    row = {
        "window_samples": window,
        "rmse_noisy": rmse(noisy, avg),
        "rmse_flat": rmse(np.full_like(avg, avg.mean()), avg),
    }
    if window > avg.size:
        return None, {**row, "rmse_filtered": math.nan}
    filt = savgol_filter(noisy, window, order, mode="interp")
    return filt, {**row, "rmse_filtered": rmse(filt, avg)}


def pitfall_job(job) -> None:
    from dpgrid.data.meter import MeterData

    cfg = job.params.cfg["white_noise_pitfall"]
    rng = job_rng(job.params.seed, PAPER, "pitfall")
    md = MeterData.load(job.input.readings, job.input.meters)
    res = (
        set(md.meters.loc[md.meters["customer_class"] != "commercial", "meter_id"])
        if cfg["residential_only"]
        else set(md.meters["meter_id"])
    )
    r = md.readings[md.readings["meter_id"].isin(res)]
    avg_s = r.groupby("timestamp")["kw"].mean()
    avg = avg_s.to_numpy()
    step = float(np.median(np.diff(avg_s.index.to_numpy()).astype("timedelta64[s]").astype(float))) / 60.0
    noisy = avg + cfg["sigma"] * rng.standard_normal(len(avg))
    order, n300 = int(cfg["order"]), int(cfg["window_samples"])
    stated = window_samples(n300, cfg["paper_step_minutes"], step, order)
    filt, info = filter_reading(avg, noisy, stated, order)
    if filt is None:
        # a series shorter than the paper's window (a few days of real data): no filtered series; the claim row
        # says so (claim_measures.fig3_filter)
        log.warning(
            "%s: dpkmeans.white_noise_pitfall: the paper's window %d x %g min = %d samples of %g min is longer "
            "than the feeder average (%d samples): Fig. 3 shows no filtered series; use more days of data",
            job.input.readings,
            n300,
            cfg["paper_step_minutes"],
            stated,
            step,
            avg.size,
        )
        filt = np.full_like(avg, np.nan)
    readings = []
    for minutes in cfg["plausible_step_minutes"]:
        w = window_samples(n300, minutes, step, order)
        _, row = filter_reading(avg, noisy, w, order)
        readings.append({"paper_step_minutes": minutes, "window_hours": n300 * minutes / 60.0, **row})
    write_table(
        pd.DataFrame(
            {
                "timestamp": avg_s.index.strftime("%Y-%m-%dT%H:%M:%S"),
                "average_kw": avg,
                "noisy_kw": noisy,
                "filtered_kw": filt,
            }
        ),
        job.output.table,
    )
    write_json(
        {
            "series_samples": int(avg.size),
            "sigma": cfg["sigma"],
            "order": order,
            "paper_window_samples": n300,
            "paper_step_minutes": cfg["paper_step_minutes"],
            "step_minutes": step,
            "window_hours": n300 * cfg["paper_step_minutes"] / 60.0,
            "window": stated,
            "rmse_noisy": info["rmse_noisy"],
            "rmse_filtered": info["rmse_filtered"],
            "rmse_flat": info["rmse_flat"],
            "readings": readings,
            "n_houses": len(res),
        },
        job.output.info,
    )

"""dpkmeans stage: Fig. 3 (Ravi et al., Sec. III): white noise on a smooth series (the feeder-average load) is
filtered out by a Savitzky-Golay filter."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpgrid.core.io import write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.papers.dpkmeans.paper import PAPER


def pitfall_job(job) -> None:
    from scipy.signal import savgol_filter

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
    avg = r.groupby("timestamp")["kw"].mean()
    noisy = avg.to_numpy() + cfg["sigma"] * rng.standard_normal(len(avg))
    filt = savgol_filter(noisy, cfg["window"], cfg["order"], mode="interp")
    t = avg.index
    write_table(
        pd.DataFrame(
            {
                "timestamp": t.strftime("%Y-%m-%dT%H:%M:%S"),
                "average_kw": avg.to_numpy(),
                "noisy_kw": noisy,
                "filtered_kw": filt,
            }
        ),
        job.output.table,
    )
    rm = lambda a: float(np.sqrt(np.mean((a - avg.to_numpy()) ** 2)))  # noqa: E731
    write_json(
        {
            "sigma": cfg["sigma"],
            "window": cfg["window"],
            "order": cfg["order"],
            "rmse_noisy": rm(noisy),
            "rmse_filtered": rm(filt),
            "n_houses": len(res),
        },
        job.output.info,
    )

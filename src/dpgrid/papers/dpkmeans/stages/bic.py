"""dpkmeans stage: Fig. 10 (Ravi et al., Sec. IV-B): per cluster and hour, the BIC of each candidate
distribution of the true profiles' loads, and the winner."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table, write_table
from dpgrid.data.profiles import PROFILE_HOURS as HOURS

LOG = logging.getLogger(__name__)

COLUMNS = ["cluster", "hour", "n", "distribution", "bic", "loglik", "shape", "loc", "scale", "winner"]


def _bic_rows(true: pd.DataFrame, cfg: dict) -> list[dict]:
    """One row per (cluster, hour, candidate) with at least ``min_samples`` profiles and a nonzero range."""
    from dpgrid.models.lognormal import bic_table

    rows = []
    for k, grp in true.groupby("cluster"):
        for h, col in enumerate(HOURS):
            x = grp[col].to_numpy(float)
            if len(x) < cfg["min_samples"] or np.ptp(x) <= 0:
                continue
            t = bic_table(np.maximum(x, cfg["min_kw"]), cfg["candidates"], floc=0.0)
            best = t.loc[t["bic"].idxmin(), "distribution"]
            for _, r in t.iterrows():
                p = r["params"]
                rows.append(
                    {
                        "cluster": int(k),
                        "hour": h,
                        "n": len(x),
                        "distribution": r["distribution"],
                        "bic": r["bic"],
                        "loglik": r["loglik"],
                        "shape": p[0] if len(p) == 3 else np.nan,
                        "loc": p[-2],
                        "scale": p[-1],
                        "winner": r["distribution"] == best,
                    }
                )
    return rows


def bic_job(job) -> None:
    """Fig. 10 table: per cluster and hour, the BIC of each candidate; the winner."""
    cfg = job.params.cfg["fig10"]
    rows = _bic_rows(read_table(job.input.profiles_true, dtype={"profile_id": str}), cfg)
    if not rows:
        LOG.warning(
            "Fig. 10: no cluster has >= fig10.min_samples = %d profiles; the BIC table is empty", cfg["min_samples"]
        )
    write_table(pd.DataFrame(rows, columns=COLUMNS), job.output.table)

"""spdp duration sweep (workflow/papers/spdp/spdp.md, "Fidelity"; Parker, Hale, Barooah, *Spectral Differential
Privacy*, Fig. 5 and Sec. IV-A): TrDP noise std and correlation vs the protected duration K, beside SpDP. Rule body of
``spdp_duration_sweep``.
"""

from __future__ import annotations

import math

import pandas as pd

from dpgrid.core.io import read_table, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.papers.spdp.fidelity_sweeps import duration_sweep_rows
from dpgrid.papers.spdp.home_series import evaluation_context
from dpgrid.papers.spdp.paper import PAPER


def duration_sweep_job(job) -> None:
    """TrDP noise std and correlation vs protected duration K, with SpDP (ours and the paper's B_SpDP).

    B(K) from the data under each reading of ``spdp.sweep_readings`` (eq. 13 as written is
    ``max_all_pairs``); TrDP with our calibration and with the printed one (eq. 2 at
    ``paper_parameters.trdp_delta``). SpDP is duration-independent: one row per duration from Table III.
    """
    cfg, seed, eps, delta, x, fs, ev = evaluation_context(job)
    t3 = read_table(job.input.table3).set_index("series")
    pb = read_table(job.input.paper_b)
    sp_pb = pb[pb["series"] == "spdp"].iloc[0]
    cals = [(cfg["trdp"]["calibration"], delta), ("proposition1", cfg["paper_parameters"]["trdp_delta"])]
    cals = list(dict.fromkeys(cals))
    rows = [
        {"mechanism": "trdp", **r}
        for r in duration_sweep_rows(
            x,
            fs,
            cfg["sweep_durations_hours"],
            readings=cfg["sweep_readings"],
            calibrations=cals,
            eps=eps,
            eval_slice=ev,
            rng_for=lambda *k: job_rng(seed, PAPER, "sweep", *k),
        )
    ]
    for hours in sorted({r["hours"] for r in rows}):
        for mech, noise, corr, b in (
            ("spdp", t3.loc["spdp", "noise_std_kw"], t3.loc["spdp", "correlation"], math.nan),
            ("spdp_paper_b", sp_pb["noise_std_kw"], sp_pb["correlation"], sp_pb["b"]),
        ):
            rows.append(
                {
                    "mechanism": mech,
                    "hours": hours,
                    "reading": "",
                    "calibration": "proposition2",
                    "b": b,
                    "sigma": math.nan,
                    "noise_std_kw": float(noise),
                    "correlation": float(corr),
                }
            )
    write_table(pd.DataFrame(rows), job.output.table)

"""spdp paper-parameter variant (Parker, Hale, Barooah, *Spectral Differential Privacy*, Table III, Fig. 6):
releases of our data with the paper's own B values, TrDP under several calibrations (the printed noise levels are
eq. (2) at ``paper_parameters.trdp_delta``). Rule body of ``spdp_paper_b``; see workflow/papers/spdp/spdp.md.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpgrid.core.io import save_npz, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms.correlated_gaussian import proposition2_lambda_bar
from dpgrid.mechanisms.spectral import release_metrics
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
from dpgrid.papers.spdp.home_series import evaluation_context, samples_in
from dpgrid.papers.spdp.paper import PAPER, RELEASES, calibration_label
from dpgrid.papers.spdp.stages.release import spdp_release


def _trdp_calibrations(cfg: dict) -> list[tuple[str, float]]:
    """(formula, delta) pairs of the paper-parameter variant: ours, the classical one, and the printed one."""
    delta = cfg["privacy"]["delta"]
    out = [(cfg["trdp"]["calibration"], delta)]
    for c in (("proposition1", delta), ("classical", delta), ("proposition1", cfg["paper_parameters"]["trdp_delta"])):
        if c not in out:
            out.append(c)
    return out


def paper_b_job(job) -> None:
    """Table III for the paper's B values (the paper-parameter variant): releases of our data with them.

    TrDP rows for each calibration of :func:`_trdp_calibrations` (``calibration`` = "formula@delta"; the
    paper's printed noise levels are eq. (2) at ``paper_parameters.trdp_delta``); the SpDP row uses
    B_SpDP = ``paper_parameters.b_spdp``. ``job.output.series``: the Fig. 6 snapshot of this variant
    (SpDP and the TrDP releases with the printed calibration).
    """
    cfg, seed, eps, delta, x, fs, ev = evaluation_context(job)
    pp = cfg["paper_parameters"]
    printed = calibration_label("proposition1", pp["trdp_delta"])
    rows, snap_series = [], {}
    for name, key in (("trdp_4h", "b_trdp_4h"), ("trdp_1week", "b_trdp_1week")):
        b = pp[key]
        for formula, d in _trdp_calibrations(cfg):
            label = calibration_label(formula, d)
            mech = TrajectoryGaussianMechanism(b, eps, d, calibration=formula)
            xr = mech.release(x, job_rng(seed, PAPER, "paper_b", name, label))
            rows.append(
                {
                    "series": name,
                    "b": b,
                    "calibration": label,
                    "sigma_formula": mech.sigma,
                    **release_metrics(x[ev], xr[ev]),
                }
            )
            if label == printed:
                snap_series[name] = xr
    sp = spdp_release(
        x,
        fs,
        cfg,
        pp["b_spdp"],
        job_rng(seed, PAPER, "paper_b", "spdp_psd"),
        job_rng(seed, PAPER, "paper_b", "spdp_stream"),
    )
    rows.append(
        {
            "series": "spdp",
            "b": pp["b_spdp"],
            "calibration": calibration_label("proposition2", delta),
            "sigma_formula": math.sqrt(proposition2_lambda_bar(pp["b_spdp"], eps, delta)),
            **release_metrics(x[ev], sp["released"][ev]),
        }
    )
    snap_series["spdp"] = sp["released"]
    write_table(pd.DataFrame(rows), job.output.table)
    day = samples_in(24, fs)
    d0 = cfg["evaluation"]["snapshot_day"] * day
    snap = slice(d0, d0 + day)
    save_npz(
        job.output.series,
        hours=np.arange(day) / fs,
        sensitive=x[snap],
        trdp_calibration=np.array(printed),
        **{name: snap_series[name][snap] for name in RELEASES},
    )

"""The spdp paper's data (Parker, Hale, Barooah, *Spectral Differential Privacy*, Sec. IV): the chosen home's
series from the meter data, its sampling rate, what a step other than the paper's 5 minutes changes, the PSD
estimator of ``spdp.psd`` and the evaluated slice after the streaming burn-in; shared by every spdp job.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pandas as pd

from dpgrid.data.meter import MeterData, MeterDataError, constant_meter_problem, resolution_note
from dpgrid.models.psd import PSDEstimator
from dpgrid.papers.spdp.paper import PAPER_STEP_MINUTES

LOG = logging.getLogger(__name__)
HOURS_PER_WEEK = 168.0


def load_series(readings: str, meters: str, cfg: dict) -> tuple[pd.Series, float, dict]:
    """The chosen home's series (kW), its sampling frequency (samples/hour) and a data description.

    Raises :class:`MeterDataError` naming the file and field when the data are unusable.
    """
    md = MeterData.load(readings, meters)
    wide = md.wide()
    meter = cfg["meter_id"] if cfg["meter_id"] is not None else wide.columns[0]
    if meter not in wide.columns:
        raise MeterDataError(f"{readings}: config spdp.meter_id = {meter!r} not among meters {list(wide.columns)[:5]}")
    s = wide[meter].dropna()
    step_h = md.step / pd.Timedelta(hours=1)
    weeks = len(s) * step_h / HOURS_PER_WEEK
    if weeks < cfg["min_weeks"]:
        raise MeterDataError(
            f"{readings}: meter {meter!r} covers {weeks:.1f} weeks; spdp needs at least "
            f"{cfg['min_weeks']} (config spdp.min_weeks; B_SpDP uses 7-12-week windows)"
        )
    constant = constant_meter_problem(s.to_numpy(), meter, str(readings))
    if constant:  # B_SpDP would be 0 (or the log-spectrum undefined): say which meter and why, before any PSD
        raise MeterDataError(constant)
    info = {
        "readings": str(readings),
        "meter_id": str(meter),
        "step_minutes": step_h * 60,
        "n_samples": len(s),
        "weeks": weeks,
        "start": str(s.index[0]),
        "end": str(s.index[-1]),
    }
    return s, 1.0 / step_h, info


def note_resolution(info: dict, cfg: dict) -> None:
    """Add to ``info`` (and log) what a step other than the paper's 5 minutes changes (PSD segment, grid)."""
    n = cfg["psd"]["n_points"]
    note = resolution_note(
        pd.Timedelta(minutes=info["step_minutes"]),
        PAPER_STEP_MINUTES,
        "spdp",
        lambda m: (
            f"a PSD segment of 2N = {2 * n} samples spans {2 * n * m / 60:g} h (paper: {2 * n * PAPER_STEP_MINUTES / 60:g} h) "
            f"and the frequency grid reaches {30 / m:g} cycles/hour (paper: {30 / PAPER_STEP_MINUTES:g})"
        ),
    )
    if note:
        LOG.warning(note)
        info["resolution_note"] = note


def psd_estimator(cfg: dict, fs: float) -> PSDEstimator:
    """The PSD estimator of ``spdp.psd`` (the one SpDPParams.from_config(cfg).estimator(fs) builds)."""
    return PSDEstimator(
        n_points=int(cfg["psd"]["n_points"]), fs_per_hour=fs, onesided=cfg["psd"]["convention"] == "one_sided"
    )


def samples_in(hours: float, fs: float) -> int:
    return int(round(hours * fs))


def data_label(data_cfg: Any) -> str:
    if isinstance(data_cfg, dict) and "source" in data_cfg:
        return str(data_cfg["source"])
    return "unknown"


def eval_slice(x: np.ndarray, fs: float, cfg: dict) -> slice:
    burn = samples_in(cfg["streaming"]["burn_in_hours"], fs)
    if burn >= x.size // 2:
        raise ValueError(
            f"config spdp.streaming.burn_in_hours = {cfg['streaming']['burn_in_hours']} leaves too little data"
        )
    return slice(burn, x.size)


def evaluation_context(job):
    """Config, seed, privacy budget, the home's series, its sampling rate and the evaluated slice."""
    cfg = job.params.cfg
    s, fs, _ = load_series(job.input.readings, job.input.meters, cfg)
    x = s.to_numpy()
    return (cfg, job.params.seed, cfg["privacy"]["epsilon"], cfg["privacy"]["delta"], x, fs, eval_slice(x, fs, cfg))

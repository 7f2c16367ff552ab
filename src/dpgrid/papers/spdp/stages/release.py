"""spdp releases (Parker, Hale, Barooah, *Spectral Differential Privacy*): Algorithm 1 on the sensitive PSD and
Algorithm 2's streaming release (SpDP), the TrDP releases (Proposition 1) at 4 h and 1 week; Tables I-III and the
data of Figs. 4 and 6. Rule body of ``spdp_release``; see workflow/papers/spdp/spdp.md.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpgrid.core.io import read_json, save_npz, write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms.spectral import release_metrics
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
from dpgrid.models.psd import sos_power_response
from dpgrid.papers.spdp.home_series import data_label, eval_slice, load_series, note_resolution, samples_in
from dpgrid.papers.spdp.paper import PAPER, PAPER_VALUES, RELEASES
from dpgrid.papers.spdp.pipeline import SpDPParams, run_spdp


def spdp_release(
    x: np.ndarray, fs: float, cfg: dict, b: float, rng_mech: np.random.Generator, rng_stream: np.random.Generator
):
    """Algorithm 1 on the PSD of the first ``psd_window_days`` and Algorithm 2 over the whole series."""
    return run_spdp(x, fs, SpDPParams.from_config(cfg), b, rng_mech, rng_stream)


def _releases(x: np.ndarray, fs: float, cfg: dict, cal: dict, seed) -> tuple[dict, dict, dict]:
    """The SpDP run (Algorithm 1 + 2 with our B_SpDP) and the released series of SpDP and TrDP-4h / 1-week
    (Proposition 1 with our B_TrDP), each from its own random stream; the TrDP noise stds."""
    eps, delta = cfg["privacy"]["epsilon"], cfg["privacy"]["delta"]
    sp = spdp_release(
        x,
        fs,
        cfg,
        cal["b_spdp"],
        job_rng(seed, PAPER, "release", "spdp_psd"),
        job_rng(seed, PAPER, "release", "spdp_stream"),
    )
    releases = {"spdp": sp["released"]}
    sigmas = {}
    for name in ("trdp_4h", "trdp_1week"):
        key = name.removeprefix("trdp_")
        b = cal["trdp"][key]["b"]
        mech = TrajectoryGaussianMechanism(b, eps, delta, calibration=cfg["trdp"]["calibration"])
        sigmas[name] = mech.sigma
        releases[name] = mech.release(x, job_rng(seed, PAPER, "release", name))
    return sp, releases, sigmas


def _tables_2_3(x: np.ndarray, ev: slice, releases: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table II (mean / std of the sensitive and released series) and Table III (release metrics) on ``ev``."""
    t2 = [{"series": "sensitive", "mean_kw": float(np.mean(x[ev])), "std_kw": float(np.std(x[ev], ddof=1))}]
    t3 = []
    for name in RELEASES:
        m = release_metrics(x[ev], releases[name][ev])
        t2.append({"series": name, "mean_kw": m["mean_kw"], "std_kw": m["std_kw"]})
        t3.append(
            {"series": name, **{k: m[k] for k in ("noise_std_kw", "correlation", "snr_db_paper", "snr_db_sensitive")}}
        )
    return pd.DataFrame(t2), pd.DataFrame(t3)


def _psd_table(x: np.ndarray, ev: slice, sp: dict) -> pd.DataFrame:
    """Fig. 4 data: Algorithm 1's PSDs (sensitive, noisy, privatised), F(z)'s power response, gamma and the PSD
    estimates of the released and sensitive series."""
    est, design, alg1 = sp["estimator"], sp["design"], sp["alg1"]
    return pd.DataFrame(
        {
            "frequency_per_hour": est.frequencies_per_hour,
            "phi": alg1.phi,
            "phi_noisy": alg1.phi_noisy,
            "phi_tilde": alg1.phi_tilde,
            "reduction_gain2": sos_power_response(design.reduction.sos, est.omega),
            "gamma": design.reduction.gamma,
            "released_psd_estimate": est.estimate(sp["released"][ev]),
            "sensitive_psd_full": est.estimate(x[ev]),
        }
    )


def _table1(cfg: dict, cal: dict, sp: dict, sigmas: dict, data: str) -> pd.DataFrame:
    """Table I: the configured and adapted parameters beside the printed ones, with the data they ran on."""
    eps, delta = cfg["privacy"]["epsilon"], cfg["privacy"]["delta"]
    design = sp["design"]
    rf = cfg["streaming"]["reduction_filter"]
    mcfg = cfg["mechanism"]
    t1 = [
        ("N", "number of NFFT points (PSD has N + 1 values)", cfg["psd"]["n_points"], 288, "none"),
        ("epsilon", "privacy level", eps, math.log(2), "none"),
        ("delta", "privacy failure parameter", delta, 0.01, "none"),
        ("beta", f"degree of noise correlation ({mcfg['correlation_structure']})", mcfg["beta"], 0.5, "none"),
        ("omega_N", "positive filter parameter (eq. 10)", mcfg["positive_filter"]["omega_n"], 0.39, "none"),
        ("K_p", "positive filter gain", mcfg["positive_filter"]["gain"], 0.8, "none"),
        ("omega_F_configured", "cutoff of F(z), configured", rf["cutoff_hz"], 2e-4, "Hz"),
        ("omega_F", "cutoff of F(z), after adaptation", design.reduction.cutoff_per_hour / 3600.0, 2e-4, "Hz"),
        ("K_F", "gain of F(z), after adaptation", design.reduction.gain, 0.8, "none"),
        ("F_order", "Butterworth order of F(z)", rf["order"], math.nan, "none"),
        ("adaptation_steps", "reduction-filter adaptation steps", len(design.reduction.steps) - 1, math.nan, "none"),
        (
            "gamma_clipped_bins",
            "bins where gamma was floored (gamma_handling = clip)",
            design.reduction.steps[0]["n_bins_not_positive"] if design.reduction.steps[0].get("clipped") else 0,
            math.nan,
            "none",
        ),
        ("B_SpDP", "SpDP adjacency parameter", cal["b_spdp"], PAPER_VALUES["b_spdp"], "kW^2 h"),
        ("B_TrDP_4h", "4-hour adjacency parameter", cal["trdp"]["4h"]["b"], PAPER_VALUES["b_trdp_4h"], "kW"),
        ("B_TrDP_1week", "1-week adjacency parameter", cal["trdp"]["1week"]["b"], PAPER_VALUES["b_trdp_1week"], "kW"),
        ("lambda_bar", "eq. (7) bound for B_SpDP", sp["mechanism"].lambda_bar, math.nan, "(kW^2 h)^2"),
        ("sigma_TrDP_4h", f"TrDP noise std ({cfg['trdp']['calibration']})", sigmas["trdp_4h"], 0.92, "kW"),
        ("sigma_TrDP_1week", f"TrDP noise std ({cfg['trdp']['calibration']})", sigmas["trdp_1week"], 180.0, "kW"),
    ]
    t1df = pd.DataFrame(t1, columns=["parameter", "description", "value", "paper_value", "unit"])
    t1df["data"] = data
    return t1df


def _snapshot_slice(x: np.ndarray, fs: float, cfg: dict) -> slice:
    """The day ``spdp.evaluation.snapshot_day`` of Fig. 6."""
    day = samples_in(24, fs)
    d0 = cfg["evaluation"]["snapshot_day"] * day
    if d0 + day > x.size:
        raise ValueError(
            f"config spdp.evaluation.snapshot_day = {cfg['evaluation']['snapshot_day']} is beyond the data"
        )
    return slice(d0, d0 + day)


def release_job(job) -> None:
    """SpDP and TrDP releases of the home's series: Tables I-III, the Fig. 4 PSDs, the Fig. 6 snapshot."""
    cfg = job.params.cfg
    s, fs, info = load_series(job.input.readings, job.input.meters, cfg)
    note_resolution(info, cfg)
    x = s.to_numpy()
    cal = read_json(job.input.calibration)
    sp, releases, sigmas = _releases(x, fs, cfg, cal, job.params.seed)
    ev = eval_slice(x, fs, cfg)
    t2, t3 = _tables_2_3(x, ev, releases)
    write_table(t2, job.output.table2)
    write_table(t3, job.output.table3)
    write_table(_psd_table(x, ev, sp), job.output.psd)
    data = f"{data_label(job.params.data)}: meter {info['meter_id']}, {info['weeks']:.1f} weeks" + (
        f"; {info['resolution_note']}" if "resolution_note" in info else ""
    )
    write_table(_table1(cfg, cal, sp, sigmas, data), job.output.table1)
    snap = _snapshot_slice(x, fs, cfg)
    save_npz(
        job.output.series,
        hours=np.arange(snap.stop - snap.start) / fs,
        sensitive=x[snap],
        **{name: releases[name][snap] for name in RELEASES},
    )
    design = sp["design"]
    write_json(
        {
            "data": info,
            "reduction_filter_steps": design.reduction.steps,
            "cutoff_hz": design.reduction.cutoff_per_hour / 3600.0,
            "gain": design.reduction.gain,
            "lambda_bar": sp["mechanism"].lambda_bar,
            "lambda_min": sp["mechanism"].lambda_min,
            "noise_marginal_std_kw2h": sp["mechanism"].marginal_std,
            "trdp_sigma_kw": sigmas,
            "trdp_calibration": cfg["trdp"]["calibration"],
        },
        job.output.design,
    )

"""Spectral differential privacy (Parker, Hale, Barooah): the bodies of the spdp rules that compute.

Jobs (one per rule in workflow/papers/spdp/spdp.smk; each reads ``job.params.cfg``, the slice of the
``spdp`` config section its rule passes, ``job.params.seed`` where it draws random numbers and
``job.params.data``, the data spec it records):

- :func:`calibration_job`     adjacency parameters B_SpDP (eq. 12) and B_TrDP(K) (eq. 13), the
                              distances of Figs. 1b and 3, the PSDs of Fig. 2, the demand trace of Fig. 1a;
- :func:`release_job`         Algorithm 1 on the sensitive PSD, Algorithm 2 streaming release, the TrDP
                              releases (Proposition 1) at 4 h and 1 week; Tables I-III, Fig. 4/6 data;
- :func:`paper_b_job`         the paper-parameter variant: Table III and Fig. 6 with the paper's own B values;
- :func:`duration_sweep_job`  correlation and added-noise std of TrDP vs protected duration, with SpDP;
- :func:`fidelity_job`        the fidelity sweeps and audits (docs/spdp.md, "Fidelity").

Figures are in :mod:`dpgrid.papers.spdp.figures`, claims in :mod:`dpgrid.papers.spdp.claims`.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np
import pandas as pd

from dpgrid.core.io import read_json, read_table, save_npz, write_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.data.meter import MeterData, MeterDataError, constant_meter_problem, resolution_note
from dpgrid.mechanisms.correlated_gaussian import proposition2_lambda_bar
from dpgrid.mechanisms.spectral import release_metrics
from dpgrid.mechanisms.spectral_adjacency import b_spdp, b_trdp, consecutive_distance, trajectory_distance_quantiles
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
from dpgrid.models.psd import PSDEstimator, sos_power_response
from dpgrid.papers.spdp import fidelity as spdp_fidelity
from dpgrid.papers.spdp.calibration_sweep import sigma_formula
from dpgrid.papers.spdp.paper import PAPER, PAPER_STEP_MINUTES, PAPER_VALUES, RELEASES, calibration_label
from dpgrid.papers.spdp.pipeline import SpDPParams, run_spdp

LOG = logging.getLogger(__name__)
HOURS_PER_WEEK = 168.0


# --------------------------------------------------------------------------- helpers


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


def _note_resolution(info: dict, cfg: dict) -> None:
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


def _estimator(cfg: dict, fs: float) -> PSDEstimator:
    """The PSD estimator of ``spdp.psd`` (the one SpDPParams.from_config(cfg).estimator(fs) builds)."""
    return PSDEstimator(
        n_points=int(cfg["psd"]["n_points"]), fs_per_hour=fs, onesided=cfg["psd"]["convention"] == "one_sided"
    )


def _samples(hours: float, fs: float) -> int:
    return int(round(hours * fs))


def _data_label(data_cfg: Any) -> str:
    if isinstance(data_cfg, dict) and "source" in data_cfg:
        return str(data_cfg["source"])
    return "unknown"


# --------------------------------------------------------------------------- calibration


def calibration(x: np.ndarray, fs: float, cfg: dict) -> dict:
    """B_SpDP (eq. 12) over windows of the configured weeks, B_TrDP(K) (eq. 13) for each K."""
    est = _estimator(cfg, fs)
    c = cfg["calibration"]
    weeks = range(c["spdp_window_weeks"][0], c["spdp_window_weeks"][1] + 1)
    sa = b_spdp(
        x, est, lengths=[_samples(w * HOURS_PER_WEEK, fs) for w in weeks], step=_samples(24 * c["window_step_days"], fs)
    )
    trdp = {}
    for name, hours in c["trdp_durations_hours"].items():
        k = _samples(hours, fs)
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
    info["source"] = _data_label(job.params.data)
    info["data_spec"] = job.params.data
    _note_resolution(info, cfg)
    res = calibration(x, fs, cfg)
    res["data"] = info
    res["fs_per_hour"] = fs
    est = _estimator(cfg, fs)

    # Fig. 1b and Fig. 3: time-domain D(K) and the PSD distance between consecutive windows
    rows = []
    for hours in cfg["distances"]["durations_hours"]:
        k = _samples(hours, fs)
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
        k = _samples(24 * days, fs)
        if k > x.size:
            raise MeterDataError(
                f"{job.input.readings}: config spdp.fig2_lengths_days asks for {days} days; "
                f"the data has {x.size / fs / 24:.1f}"
            )
        psds[f"psd_{days}d"] = est.estimate(x[:k])
    write_table(pd.DataFrame(psds), job.output.psd_lengths)

    # Fig. 1a: the demand trace (first configured days)
    k = _samples(24 * cfg["fig1_trace_days"], fs)
    trace = pd.DataFrame({"timestamp": s.index[:k].strftime("%Y-%m-%dT%H:%M:%S"), "kw": x[:k]})
    write_table(trace, job.output.trace)
    write_json(res, job.output.calibration)
    LOG.info(
        "B_SpDP = %.4g kW^2 h from %d windows; B_TrDP = %s",
        res["b_spdp"],
        res["b_spdp_n_windows"],
        {k: round(v["b"], 4) for k, v in res["trdp"].items()},
    )


# --------------------------------------------------------------------------- releases


def spdp_release(
    x: np.ndarray, fs: float, cfg: dict, b: float, rng_mech: np.random.Generator, rng_stream: np.random.Generator
):
    """Algorithm 1 on the PSD of the first ``psd_window_days`` and Algorithm 2 over the whole series."""
    return run_spdp(x, fs, SpDPParams.from_config(cfg), b, rng_mech, rng_stream)


def _eval_slice(x: np.ndarray, fs: float, cfg: dict) -> slice:
    burn = _samples(cfg["streaming"]["burn_in_hours"], fs)
    if burn >= x.size // 2:
        raise ValueError(
            f"config spdp.streaming.burn_in_hours = {cfg['streaming']['burn_in_hours']} leaves too little data"
        )
    return slice(burn, x.size)


def _evaluation_context(job):
    """Config, seed, privacy budget, the home's series, its sampling rate and the evaluated slice."""
    cfg = job.params.cfg
    s, fs, _ = load_series(job.input.readings, job.input.meters, cfg)
    x = s.to_numpy()
    return (cfg, job.params.seed, cfg["privacy"]["epsilon"], cfg["privacy"]["delta"], x, fs, _eval_slice(x, fs, cfg))


def release_job(job) -> None:
    cfg = job.params.cfg
    seed = job.params.seed
    s, fs, info = load_series(job.input.readings, job.input.meters, cfg)
    _note_resolution(info, cfg)
    x = s.to_numpy()
    cal = read_json(job.input.calibration)
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

    ev = _eval_slice(x, fs, cfg)
    t2 = [{"series": "sensitive", "mean_kw": float(np.mean(x[ev])), "std_kw": float(np.std(x[ev], ddof=1))}]
    t3 = []
    for name in RELEASES:
        m = release_metrics(x[ev], releases[name][ev])
        t2.append({"series": name, "mean_kw": m["mean_kw"], "std_kw": m["std_kw"]})
        t3.append(
            {"series": name, **{k: m[k] for k in ("noise_std_kw", "correlation", "snr_db_paper", "snr_db_sensitive")}}
        )
    write_table(pd.DataFrame(t2), job.output.table2)
    write_table(pd.DataFrame(t3), job.output.table3)

    est, design, alg1 = sp["estimator"], sp["design"], sp["alg1"]
    f2 = sos_power_response(design.reduction.sos, est.omega)
    psd = pd.DataFrame(
        {
            "frequency_per_hour": est.frequencies_per_hour,
            "phi": alg1.phi,
            "phi_noisy": alg1.phi_noisy,
            "phi_tilde": alg1.phi_tilde,
            "reduction_gain2": f2,
            "gamma": design.reduction.gamma,
            "released_psd_estimate": est.estimate(sp["released"][ev]),
            "sensitive_psd_full": est.estimate(x[ev]),
        }
    )
    write_table(psd, job.output.psd)

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
    t1df["data"] = f"{_data_label(job.params.data)}: meter {info['meter_id']}, {info['weeks']:.1f} weeks" + (
        f"; {info['resolution_note']}" if "resolution_note" in info else ""
    )
    write_table(t1df, job.output.table1)

    day = _samples(24, fs)
    d0 = cfg["evaluation"]["snapshot_day"] * day
    if d0 + day > x.size:
        raise ValueError(
            f"config spdp.evaluation.snapshot_day = {cfg['evaluation']['snapshot_day']} is beyond the data"
        )
    snap = slice(d0, d0 + day)
    save_npz(
        job.output.series,
        hours=np.arange(day) / fs,
        sensitive=x[snap],
        **{name: releases[name][snap] for name in RELEASES},
    )
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
    cfg, seed, eps, delta, x, fs, ev = _evaluation_context(job)
    pp = cfg["paper_parameters"]
    printed = calibration_label("proposition1", pp["trdp_delta"])
    rows, snap_series = [], {}
    for name, key in (("trdp_4h", "b_trdp_4h"), ("trdp_1week", "b_trdp_1week")):
        b = pp[key]
        for formula, d in _trdp_calibrations(cfg):
            label = calibration_label(formula, d)
            sigma = sigma_formula(formula, b, eps, d)
            xr = x + sigma * job_rng(seed, PAPER, "paper_b", name, label).standard_normal(x.size)
            rows.append(
                {"series": name, "b": b, "calibration": label, "sigma_formula": sigma, **release_metrics(x[ev], xr[ev])}
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
    day = _samples(24, fs)
    d0 = cfg["evaluation"]["snapshot_day"] * day
    snap = slice(d0, d0 + day)
    save_npz(
        job.output.series,
        hours=np.arange(day) / fs,
        sensitive=x[snap],
        trdp_calibration=np.array(printed),
        **{name: snap_series[name][snap] for name in RELEASES},
    )


def duration_sweep_job(job) -> None:
    """TrDP noise std and correlation vs protected duration K, with SpDP (ours and the paper's B_SpDP).

    B(K) from the data under each reading of ``spdp.sweep_readings`` (eq. 13 as written is
    ``max_all_pairs``); TrDP with our calibration and with the printed one (eq. 2 at
    ``paper_parameters.trdp_delta``). SpDP is duration-independent: one row per duration from Table III.
    """
    cfg, seed, eps, delta, x, fs, ev = _evaluation_context(job)
    t3 = read_table(job.input.table3).set_index("series")
    pb = read_table(job.input.paper_b)
    sp_pb = pb[pb["series"] == "spdp"].iloc[0]
    cals = [(cfg["trdp"]["calibration"], delta), ("proposition1", cfg["paper_parameters"]["trdp_delta"])]
    cals = list(dict.fromkeys(cals))
    rows = [
        {"mechanism": "trdp", **r}
        for r in spdp_fidelity.duration_sweep_rows(
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


def fidelity_job(job) -> None:
    """The fidelity sweeps and audits of docs/spdp.md ("Fidelity"): see dpgrid.papers.spdp.fidelity.

    Outputs (one CSV each): trdp_printed, window_evidence, b_readings, spdp_variants, data_sweep, exact_delta.
    The data sweep regenerates the stand-in home (same data stream as the meter_data job) for each HVAC
    share and heating fuel; it is empty when the data source is not ``spdp_standin``.
    """
    from dataclasses import replace

    from dpgrid.papers.spdp.standin import home_from_spec, standin_series

    cfg, seed, _, _, x, fs, ev = _evaluation_context(job)
    cal = read_json(job.input.calibration)
    spec = job.params.data
    fid = cfg["fidelity"]
    make = None
    if spec["source"] == "spdp_standin":

        def make(share: float, heating: str) -> np.ndarray:
            home = replace(home_from_spec(spec, job.params.data_source), hvac_energy_share=share, heating=heating)
            return standin_series(
                home,
                spec["start"],
                int(spec["days"]),
                int(spec["step_minutes"]),
                job_rng(seed, "data", job.params.data_source),
            )[0]

    c = cfg["calibration"]
    tables = spdp_fidelity.fidelity_tables(
        x,
        fs,
        SpDPParams.from_config(cfg),
        paper=cfg["paper_parameters"],
        b_ours={
            "b_spdp": cal["b_spdp"],
            "b_trdp_4h": cal["trdp"]["4h"]["b"],
            "b_trdp_1week": cal["trdp"]["1week"]["b"],
        },
        eval_slice=ev,
        variants=fid["variants"],
        n_seeds=fid["n_seeds"],
        rng_for=lambda *k: job_rng(seed, PAPER, "fidelity", *k),
        trdp_calibration=cfg["trdp"]["calibration"],
        spdp_weeks=tuple(c["spdp_window_weeks"]),
        spdp_step_days=c["window_step_days"],
        make_series=make,
        shares=fid["hvac_shares"],
        heatings=fid["heatings"],
        printed_sensitive=PAPER_VALUES["table2"]["sensitive"],
        printed_trdp_1week=(PAPER_VALUES["table3"]["trdp_1week"][1], PAPER_VALUES["table2"]["trdp_1week"][0]),
    )
    for name, rows in tables.items():
        df = pd.DataFrame(rows) if rows else pd.DataFrame(columns=["heating", "hvac_energy_share", "feasible", "note"])
        write_table(df, getattr(job.output, name))

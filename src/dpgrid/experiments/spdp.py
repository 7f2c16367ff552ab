"""Spectral differential privacy (Parker, Hale, Barooah): the bodies of the spdp rules.

Jobs (one per rule in workflow/rules/spdp.smk):

- :func:`calibration_job`     adjacency parameters B_SpDP (eq. 12) and B_TrDP(K) (eq. 13), the
                              distances of Figs. 1b and 3, the PSDs of Fig. 2, the demand trace of Fig. 1a;
- :func:`release_job`         Algorithm 1 on the sensitive PSD, Algorithm 2 streaming release, the TrDP
                              releases (Proposition 1) at 4 h and 1 week; Tables I-III, Fig. 4/6 data;
- :func:`paper_b_job`         Table III with the paper's own B values: calibration arithmetic (both
                              Gaussian calibrations) and releases of our data with those B values;
- :func:`duration_sweep_job`  correlation and added-noise std of TrDP vs protected duration, with SpDP;
- :func:`figure_job`          every figure, from the tables above;
- :func:`claims_job`          results/spdp/claims.csv.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np
import pandas as pd

from dpgrid.claims import (
    boolean_claim,
    calibration_target_claim,
    fmt,
    numeric_claim,
    write_claims,
)
from dpgrid.data.meter import MeterData, MeterDataError
from dpgrid.io import read_json, read_table, save_npz, write_json, write_table
from dpgrid.mechanisms import spdp_fidelity
from dpgrid.mechanisms.spdp_pipeline import SpDPParams, run_spdp
from dpgrid.mechanisms.spectral import release_metrics
from dpgrid.mechanisms.spectral_adjacency import (
    b_spdp,
    b_trdp,
    consecutive_distance,
    trajectory_distance_quantiles,
)
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
from dpgrid.models.psd import PSDEstimator, sos_power_response
from dpgrid.privacy.gaussian_calibration import (
    classical_sigma,
    proposition1_sigma,
    proposition2_lambda_bar,
    sigma_formula,
)
from dpgrid.seeds import job_rng

LOG = logging.getLogger(__name__)
PAPER = "spdp"
HOURS_PER_WEEK = 168.0

#: Numbers printed in the paper (Table I-III, Sec. IV-A), used only as the "paper" column of claims.
PAPER_VALUES = {
    "b_spdp": 0.12, "b_trdp_4h": 0.2, "b_trdp_1week": 39.0,
    "table2": {"sensitive": (1.73, 1.74), "spdp": (1.77, 1.91), "trdp_4h": (1.75, 1.97), "trdp_1week": (3.38, 180.0)},
    "table3": {"spdp": (2.1, 0.34, 1.86), "trdp_4h": (0.92, 0.88, 9.07), "trdp_1week": (180.0, -0.015, -5.5e-4)},
}
RELEASES = ("spdp", "trdp_4h", "trdp_1week")


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
        raise MeterDataError(f"{readings}: meter {meter!r} covers {weeks:.1f} weeks; spdp needs at least "
                             f"{cfg['min_weeks']} (config spdp.min_weeks; B_SpDP uses 7-12-week windows)")
    info = {"readings": str(readings), "meter_id": str(meter), "step_minutes": step_h * 60, "n_samples": len(s),
            "weeks": weeks, "start": str(s.index[0]), "end": str(s.index[-1])}
    return s, 1.0 / step_h, info


def _estimator(cfg: dict, fs: float) -> PSDEstimator:
    return SpDPParams.from_config(cfg).estimator(fs)


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
    sa = b_spdp(x, est, lengths=[_samples(w * HOURS_PER_WEEK, fs) for w in weeks],
                step=_samples(24 * c["window_step_days"], fs))
    trdp = {}
    for name, hours in c["trdp_durations_hours"].items():
        k = _samples(hours, fs)
        q = trajectory_distance_quantiles(x, k, (0.0, 0.5, 1.0))
        trdp[name] = {"hours": hours, "samples": k, "b": b_trdp(x, k), "min_distance": float(q[0]),
                      "median_distance": float(q[1])}
    return {"b_spdp": sa.b, "b_spdp_n_windows": len(sa.windows),
            "b_spdp_argmax_windows": [list(sa.windows[sa.argmax[0]]), list(sa.windows[sa.argmax[1]])],
            "trdp": trdp}


def calibration_job(smk) -> None:
    cfg = smk.config["spdp"]
    s, fs, info = load_series(smk.input.readings, smk.input.meters, cfg)
    x = s.to_numpy()
    info["source"] = _data_label(smk.params.data_spec)
    info["data_spec"] = smk.params.data_spec
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
        d_psd = float(np.linalg.norm(est.estimate(x[:k]) - est.estimate(x[k:2 * k]))) if k >= est.segment_length else math.nan
        rows.append({"hours": hours, "samples": k, "time_distance_kw": consecutive_distance(x, k),
                     "psd_distance_kw2h": d_psd})
    write_table(pd.DataFrame(rows), smk.output.distances)

    # Fig. 2: PSD estimates from several data lengths (first days of the data)
    psds = {"frequency_per_hour": est.frequencies_per_hour}
    for days in cfg["fig2_lengths_days"]:
        k = _samples(24 * days, fs)
        if k > x.size:
            raise MeterDataError(f"{smk.input.readings}: config spdp.fig2_lengths_days asks for {days} days; "
                                 f"the data has {x.size / fs / 24:.1f}")
        psds[f"psd_{days}d"] = est.estimate(x[:k])
    write_table(pd.DataFrame(psds), smk.output.psd_lengths)

    # Fig. 1a: the demand trace (first configured days)
    k = _samples(24 * cfg["fig1_trace_days"], fs)
    trace = pd.DataFrame({"timestamp": s.index[:k].strftime("%Y-%m-%dT%H:%M:%S"), "kw": x[:k]})
    write_table(trace, smk.output.trace)
    write_json(res, smk.output.calibration)
    LOG.info("B_SpDP = %.4g kW^2 h from %d windows; B_TrDP = %s", res["b_spdp"], res["b_spdp_n_windows"],
             {k: round(v["b"], 4) for k, v in res["trdp"].items()})


# --------------------------------------------------------------------------- releases

def spdp_release(x: np.ndarray, fs: float, cfg: dict, b: float, rng_mech: np.random.Generator,
                 rng_stream: np.random.Generator):
    """Algorithm 1 on the PSD of the first ``psd_window_days`` and Algorithm 2 over the whole series."""
    return run_spdp(x, fs, SpDPParams.from_config(cfg), b, rng_mech, rng_stream)


def _eval_slice(x: np.ndarray, fs: float, cfg: dict) -> slice:
    burn = _samples(cfg["streaming"]["burn_in_hours"], fs)
    if burn >= x.size // 2:
        raise ValueError(f"config spdp.streaming.burn_in_hours = {cfg['streaming']['burn_in_hours']} leaves too little data")
    return slice(burn, x.size)


def _evaluation_context(smk):
    """Config, seed, privacy budget, the home's series, its sampling rate and the evaluated slice."""
    cfg = smk.config["spdp"]
    s, fs, _ = load_series(smk.input.readings, smk.input.meters, cfg)
    x = s.to_numpy()
    return (cfg, smk.config["seed"], cfg["privacy"]["epsilon"], cfg["privacy"]["delta"], x, fs,
            _eval_slice(x, fs, cfg))


def release_job(smk) -> None:
    cfg = smk.config["spdp"]
    seed = smk.config["seed"]
    s, fs, info = load_series(smk.input.readings, smk.input.meters, cfg)
    x = s.to_numpy()
    cal = read_json(smk.input.calibration)
    eps, delta = cfg["privacy"]["epsilon"], cfg["privacy"]["delta"]

    sp = spdp_release(x, fs, cfg, cal["b_spdp"], job_rng(seed, PAPER, "release", "spdp_psd"),
                      job_rng(seed, PAPER, "release", "spdp_stream"))
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
        t3.append({"series": name, **{k: m[k] for k in ("noise_std_kw", "correlation", "snr_db_paper",
                                                        "snr_db_sensitive")}})
    write_table(pd.DataFrame(t2), smk.output.table2)
    write_table(pd.DataFrame(t3), smk.output.table3)

    est, design, alg1 = sp["estimator"], sp["design"], sp["alg1"]
    f2 = sos_power_response(design.reduction.sos, est.omega)
    psd = pd.DataFrame({
        "frequency_per_hour": est.frequencies_per_hour, "phi": alg1.phi, "phi_noisy": alg1.phi_noisy,
        "phi_tilde": alg1.phi_tilde, "reduction_gain2": f2, "gamma": design.reduction.gamma,
        "released_psd_estimate": est.estimate(sp["released"][ev]),
        "sensitive_psd_full": est.estimate(x[ev])})
    write_table(psd, smk.output.psd)

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
        ("gamma_clipped_bins", "bins where gamma was floored (gamma_handling = clip)",
         design.reduction.steps[0]["n_bins_not_positive"] if design.reduction.steps[0].get("clipped") else 0,
         math.nan, "none"),
        ("B_SpDP", "SpDP adjacency parameter", cal["b_spdp"], PAPER_VALUES["b_spdp"], "kW^2 h"),
        ("B_TrDP_4h", "4-hour adjacency parameter", cal["trdp"]["4h"]["b"], PAPER_VALUES["b_trdp_4h"], "kW"),
        ("B_TrDP_1week", "1-week adjacency parameter", cal["trdp"]["1week"]["b"], PAPER_VALUES["b_trdp_1week"], "kW"),
        ("lambda_bar", "eq. (7) bound for B_SpDP", sp["mechanism"].lambda_bar, math.nan, "(kW^2 h)^2"),
        ("sigma_TrDP_4h", f"TrDP noise std ({cfg['trdp']['calibration']})", sigmas["trdp_4h"], 0.92, "kW"),
        ("sigma_TrDP_1week", f"TrDP noise std ({cfg['trdp']['calibration']})", sigmas["trdp_1week"], 180.0, "kW"),
    ]
    t1df = pd.DataFrame(t1, columns=["parameter", "description", "value", "paper_value", "unit"])
    t1df["data"] = f"{_data_label(smk.params.data_spec)}: meter {info['meter_id']}, {info['weeks']:.1f} weeks"
    write_table(t1df, smk.output.table1)

    day = _samples(24, fs)
    d0 = cfg["evaluation"]["snapshot_day"] * day
    if d0 + day > x.size:
        raise ValueError(f"config spdp.evaluation.snapshot_day = {cfg['evaluation']['snapshot_day']} is beyond the data")
    snap = slice(d0, d0 + day)
    save_npz(smk.output.series, hours=np.arange(day) / fs, sensitive=x[snap],
             **{name: releases[name][snap] for name in RELEASES})
    write_json({"data": info, "reduction_filter_steps": design.reduction.steps,
                "cutoff_hz": design.reduction.cutoff_per_hour / 3600.0, "gain": design.reduction.gain,
                "lambda_bar": sp["mechanism"].lambda_bar, "lambda_min": sp["mechanism"].lambda_min,
                "noise_marginal_std_kw2h": sp["mechanism"].marginal_std, "trdp_sigma_kw": sigmas,
                "trdp_calibration": cfg["trdp"]["calibration"]}, smk.output.design)


def _trdp_calibrations(cfg: dict) -> list[tuple[str, float]]:
    """(formula, delta) pairs of the paper-parameter variant: ours, the classical one, and the printed one."""
    delta = cfg["privacy"]["delta"]
    out = [(cfg["trdp"]["calibration"], delta)]
    for c in (("proposition1", delta), ("classical", delta), ("proposition1", cfg["paper_parameters"]["trdp_delta"])):
        if c not in out:
            out.append(c)
    return out


def _calibration_label(formula: str, delta: float) -> str:
    return f"{formula}@{delta:g}"


def paper_b_job(smk) -> None:
    """Table III for the paper's B values (the paper-parameter variant): releases of our data with them.

    TrDP rows for each calibration of :func:`_trdp_calibrations` (``calibration`` = "formula@delta"; the
    paper's printed noise levels are eq. (2) at ``paper_parameters.trdp_delta``); the SpDP row uses
    B_SpDP = ``paper_parameters.b_spdp``. ``smk.output.series``: the Fig. 6 snapshot of this variant
    (SpDP and the TrDP releases with the printed calibration).
    """
    cfg, seed, eps, delta, x, fs, ev = _evaluation_context(smk)
    pp = cfg["paper_parameters"]
    printed = _calibration_label("proposition1", pp["trdp_delta"])
    rows, snap_series = [], {}
    for name, key in (("trdp_4h", "b_trdp_4h"), ("trdp_1week", "b_trdp_1week")):
        b = pp[key]
        for formula, d in _trdp_calibrations(cfg):
            label = _calibration_label(formula, d)
            sigma = sigma_formula(formula, b, eps, d)
            xr = x + sigma * job_rng(seed, PAPER, "paper_b", name, label).standard_normal(x.size)
            rows.append({"series": name, "b": b, "calibration": label, "sigma_formula": sigma,
                         **release_metrics(x[ev], xr[ev])})
            if label == printed:
                snap_series[name] = xr
    sp = spdp_release(x, fs, cfg, pp["b_spdp"], job_rng(seed, PAPER, "paper_b", "spdp_psd"),
                      job_rng(seed, PAPER, "paper_b", "spdp_stream"))
    rows.append({"series": "spdp", "b": pp["b_spdp"], "calibration": _calibration_label("proposition2", delta),
                 "sigma_formula": math.sqrt(proposition2_lambda_bar(pp["b_spdp"], eps, delta)),
                 **release_metrics(x[ev], sp["released"][ev])})
    snap_series["spdp"] = sp["released"]
    write_table(pd.DataFrame(rows), smk.output.table)
    day = _samples(24, fs)
    d0 = cfg["evaluation"]["snapshot_day"] * day
    snap = slice(d0, d0 + day)
    save_npz(smk.output.series, hours=np.arange(day) / fs, sensitive=x[snap], trdp_calibration=np.array(printed),
             **{name: snap_series[name][snap] for name in RELEASES})


def duration_sweep_job(smk) -> None:
    """TrDP noise std and correlation vs protected duration K, with SpDP (ours and the paper's B_SpDP).

    B(K) from the data under each reading of ``spdp.sweep_readings`` (eq. 13 as written is
    ``max_all_pairs``); TrDP with our calibration and with the printed one (eq. 2 at
    ``paper_parameters.trdp_delta``). SpDP is duration-independent: one row per duration from Table III.
    """
    cfg, seed, eps, delta, x, fs, ev = _evaluation_context(smk)
    t3 = read_table(smk.input.table3).set_index("series")
    pb = read_table(smk.input.paper_b)
    sp_pb = pb[pb["series"] == "spdp"].iloc[0]
    cals = [(cfg["trdp"]["calibration"], delta), ("proposition1", cfg["paper_parameters"]["trdp_delta"])]
    cals = list(dict.fromkeys(cals))
    rows = [{"mechanism": "trdp", **r} for r in spdp_fidelity.duration_sweep_rows(
        x, fs, cfg["sweep_durations_hours"], readings=cfg["sweep_readings"], calibrations=cals, eps=eps,
        eval_slice=ev, rng_for=lambda *k: job_rng(seed, PAPER, "sweep", *k))]
    for hours in sorted({r["hours"] for r in rows}):
        for mech, noise, corr, b in (("spdp", t3.loc["spdp", "noise_std_kw"], t3.loc["spdp", "correlation"], math.nan),
                                     ("spdp_paper_b", sp_pb["noise_std_kw"], sp_pb["correlation"], sp_pb["b"])):
            rows.append({"mechanism": mech, "hours": hours, "reading": "", "calibration": "proposition2", "b": b,
                         "sigma": math.nan, "noise_std_kw": float(noise), "correlation": float(corr)})
    write_table(pd.DataFrame(rows), smk.output.table)


def fidelity_job(smk) -> None:
    """The fidelity sweeps and audits of docs/spdp.md ("Fidelity"): see dpgrid.mechanisms.spdp_fidelity.

    Outputs (one CSV each): trdp_printed, window_evidence, b_readings, spdp_variants, data_sweep, exact_delta.
    The data sweep regenerates the stand-in home (same data stream as the meter_data job) for each HVAC
    share and heating fuel; it is empty when the data source is not ``spdp_standin``.
    """
    from dataclasses import replace

    from dpgrid.data.spdp_standin import home_from_spec, standin_series

    cfg, seed, _, _, x, fs, ev = _evaluation_context(smk)
    cal = read_json(smk.input.calibration)
    spec = smk.params.data_spec
    fid = cfg["fidelity"]
    make = None
    if spec["source"] == "spdp_standin":
        def make(share: float, heating: str) -> np.ndarray:
            home = replace(home_from_spec(spec, cfg["data_source"]), hvac_energy_share=share, heating=heating)
            return standin_series(home, spec["start"], int(spec["days"]), int(spec["step_minutes"]),
                                  job_rng(seed, "data", cfg["data_source"]))[0]
    c = cfg["calibration"]
    tables = spdp_fidelity.fidelity_tables(
        x, fs, SpDPParams.from_config(cfg), paper=cfg["paper_parameters"],
        b_ours={"b_spdp": cal["b_spdp"], "b_trdp_4h": cal["trdp"]["4h"]["b"], "b_trdp_1week": cal["trdp"]["1week"]["b"]},
        eval_slice=ev, variants=fid["variants"], n_seeds=fid["n_seeds"],
        rng_for=lambda *k: job_rng(seed, PAPER, "fidelity", *k), trdp_calibration=cfg["trdp"]["calibration"],
        spdp_weeks=tuple(c["spdp_window_weeks"]), spdp_step_days=c["window_step_days"], make_series=make,
        shares=fid["hvac_shares"], heatings=fid["heatings"],
        printed_sensitive=PAPER_VALUES["table2"]["sensitive"],
        printed_trdp_1week=(PAPER_VALUES["table3"]["trdp_1week"][1], PAPER_VALUES["table2"]["trdp_1week"][0]))
    for name, rows in tables.items():
        df = pd.DataFrame(rows) if rows else pd.DataFrame(columns=["heating", "hvac_energy_share", "feasible", "note"])
        write_table(df, getattr(smk.output, name))


# --------------------------------------------------------------------------- figures

def figure_job(smk) -> None:
    from dpgrid.figures.style import PALETTE, figure, save_figure

    logging.getLogger("fontTools").setLevel(logging.WARNING)   # PDF font subsetting chatter
    name = smk.wildcards.fig
    inp = smk.input
    if name == "fig1":
        trace = read_table(inp.trace)
        dist = read_table(inp.distances)
        fig, ax = figure(1, 2, width=8.0, height=3.0)
        t = np.arange(len(trace)) / read_json(inp.calibration)["fs_per_hour"] / 24
        ax[0].plot(t, trace["kw"], color=PALETTE["true"], lw=0.6)
        ax[0].set(xlabel="time (days)", ylabel="demand d (kW)", title="(a) a consumer's power demand")
        ax[1].plot(dist["hours"] / 24, dist["time_distance_kw"], "o-", color=PALETTE["trdp"], label="D(K), our data")
        cal = read_json(inp.calibration)
        for key, hours in (("4h", 4.0), ("1week", 168.0)):
            ax[1].plot(hours / 24, cal["trdp"][key]["b"], "x", color=PALETTE["trdp"], ms=7,
                       label="our B_TrDP, eq. (13) max" if key == "4h" else None)
            ax[1].plot(hours / 24, PAPER_VALUES[f"b_trdp_{key}"], "*", color="k", ms=9,
                       label="paper B_TrDP (Table I)" if key == "4h" else None)
        ax[1].set(xscale="log", yscale="log", xlabel="duration K (days)", ylabel="D(K) (kW)",
                  title="(b) ||d(1:K) - d(K+1:2K)||")
        ax[1].legend(fontsize=7)
    elif name == "fig2":
        p = read_table(inp.psd_lengths)
        fig, ax = figure()
        for col in [c for c in p.columns if c.startswith("psd_")]:
            ax.semilogy(p["frequency_per_hour"], p[col], lw=0.9, label=col.removeprefix("psd_").replace("d", " days"))
        ax.set(xlabel="frequency (1/hour)", ylabel="PSD (kW$^2$ h)", title="PSD estimates from data of varying length")
        ax.legend()
    elif name == "fig3":
        d = read_table(inp.distances).dropna()
        fig, ax = figure()
        ax.plot(d["hours"] / 24, d["time_distance_kw"], "o-", color=PALETTE["trdp"], label="time domain (kW)")
        ax.plot(d["hours"] / 24, d["psd_distance_kw2h"], "s-", color=PALETTE["spdp"], label="PSD (kW$^2$ h)")
        ax.axhline(PAPER_VALUES["b_spdp"], color=PALETTE["spdp"], ls=":", lw=1.0, label="paper B_SpDP = 0.12 kW$^2$ h")
        for key, hours in (("4h", 4.0), ("1week", 168.0)):
            ax.plot(hours / 24, PAPER_VALUES[f"b_trdp_{key}"], "*", color="k", ms=9,
                    label="paper B_TrDP (4 h, 1 week)" if key == "4h" else None)
        ax.set(xscale="log", yscale="log", xlabel="data duration (days)", ylabel="2-norm distance",
               title="distance between consecutive windows")
        ax.legend(loc="center left", fontsize=7)
    elif name == "fig4":
        p = read_table(inp.psd)
        fig, ax = figure()
        ax.semilogy(p["frequency_per_hour"], p["phi"], color=PALETTE["true"], label=r"sensitive $\phi$")
        ax.semilogy(p["frequency_per_hour"], p["phi_tilde"], color=PALETTE["spdp"], label=r"privatised $\tilde\phi$")
        ax.semilogy(p["frequency_per_hour"], p["released_psd_estimate"], color=PALETTE["no_noise"], lw=0.8,
                    ls="--", label="PSD of released series")
        ax.set(xlabel="frequency (1/hour)", ylabel="PSD (kW$^2$ h)", title="SpDP mechanism (Algorithm 1)")
        ax.legend()
    elif name in ("fig6", "fig6_paper_b"):
        z = np.load(inp.series)
        fig, ax = figure(3, 1, width=5.5, height=7.0, sharex=True)
        if name == "fig6":
            b = read_json(inp.calibration)
            titles = {"spdp": f"(a) SpDP, our B_SpDP = {b['b_spdp']:.3g} kW$^2$ h",
                      "trdp_4h": f"(b) TrDP, 4 hours, our B = {b['trdp']['4h']['b']:.3g} kW",
                      "trdp_1week": f"(c) TrDP, 1 week, our B = {b['trdp']['1week']['b']:.3g} kW"}
        else:
            titles = {"spdp": "(a) SpDP, paper's B_SpDP = 0.12 kW$^2$ h",
                      "trdp_4h": "(b) TrDP, 4 hours, paper's B = 0.2 kW (eq. 2, printed sigma)",
                      "trdp_1week": "(c) TrDP, 1 week, paper's B = 39 kW (eq. 2, printed sigma)"}
        met = read_table(inp.metrics)
        if name == "fig6_paper_b":   # the TrDP rows of the printed calibration (eq. 2 at the paper's delta)
            met = met[(met["series"] == "spdp") | (met["calibration"] == str(z["trdp_calibration"]))]
        met = met.drop_duplicates("series").set_index("series")
        for a, name_ in zip(ax, RELEASES):
            a.plot(z["hours"], z[name_], color=PALETTE["spdp" if name_ == "spdp" else "trdp"], lw=0.8, label="released")
            a.plot(z["hours"], z["sensitive"], color=PALETTE["true"], lw=1.0, label="sensitive d")
            a.set(ylabel="kW", title=titles[name_])
            a.legend(loc="upper right")
            pn, pc, _ = PAPER_VALUES["table3"][name_]
            a.text(0.01, 0.97, f"paper (Table III): corr {pc:g}, noise std {pn:g} kW\n"
                               f"this run (whole series): corr {met.loc[name_, 'correlation']:.2f}, "
                               f"noise std {met.loc[name_, 'noise_std_kw']:.3g} kW",
                   transform=a.transAxes, va="top", fontsize=7, bbox={"fc": "white", "alpha": 0.8, "lw": 0})
        ax[-1].set_xlabel("time (hours)")
    elif name == "fig_duration_sweep":
        d = read_table(inp.sweep)
        d["reading"] = d["reading"].fillna("")
        fig, ax = figure(1, 2, width=9.0, height=3.4)
        tr = d[d["mechanism"] == "trdp"]
        readings = list(dict.fromkeys(tr["reading"]))
        cals = list(dict.fromkeys(tr["calibration"]))
        colours = ["#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]   # no SpDP red
        for i, rd in enumerate(readings):
            for j, cal_ in enumerate(cals):
                g = tr[(tr["reading"] == rd) & (tr["calibration"] == cal_)]
                kw = {"ls": "-" if j == 0 else "--", "marker": "o", "ms": 2.5, "color": colours[i % len(colours)],
                      "label": f"TrDP, B: {rd}, {cal_}"}
                ax[0].plot(g["hours"], g["correlation"], **kw)
                ax[1].plot(g["hours"], g["noise_std_kw"], **kw)
        for mech, ls, lab in (("spdp", "-", "SpDP, our B_SpDP"), ("spdp_paper_b", "--", "SpDP, paper's B_SpDP")):
            g = d[d["mechanism"] == mech]
            for k, col in enumerate(("correlation", "noise_std_kw")):
                ax[k].plot(g["hours"], g[col], ls, color=PALETTE["spdp"], lw=1.6, label=lab)
        # paper overlay: Table III (TrDP at 4 h and 1 week; SpDP at any duration)
        t3p = PAPER_VALUES["table3"]
        for k, col in enumerate((1, 0)):
            unit = 1.0
            ax[k].plot([4, 168], [t3p["trdp_4h"][col] * unit, t3p["trdp_1week"][col] * unit], "*", color="k", ms=10,
                       label="paper, TrDP (Table III)")
            ax[k].axhline(t3p["spdp"][col], color="k", ls=":", lw=1.0, label="paper, SpDP (Table III)")
        ax[0].set(xscale="log", xlabel="protected duration K (hours)", ylabel="correlation coefficient")
        ax[1].set(xscale="log", yscale="log", xlabel="protected duration K (hours)", ylabel="added-noise std (kW)")
        ax[0].legend(fontsize=6, loc="upper right")
    elif name == "fig_fidelity":
        v = read_table(inp.variants)
        ds = read_table(inp.data_sweep)
        br = read_table(inp.b_readings)
        fig, ax = figure(2, 2, width=10.0, height=7.5)
        fig.subplots_adjust(hspace=0.5, wspace=0.45)
        ax = ax.ravel()
        pv = v[v["tag"] == "paper_b"].reset_index(drop=True)
        ys = np.arange(len(pv))
        for k, (col, paper_v, lab) in enumerate((("correlation", PAPER_VALUES["table3"]["spdp"][1], "correlation"),
                                                  ("noise_std_kw", PAPER_VALUES["table3"]["spdp"][0],
                                                   "added-noise std (kW)"))):
            ax[k].barh(ys, pv[col], xerr=pv[f"{col}_sd"], color=PALETTE["spdp"], alpha=0.7)
            ax[k].axvline(paper_v, color="k", ls=":", label=f"paper {paper_v:g} (Table III)")
            ax[k].set_yticks(ys, pv["variant"], fontsize=7)
            ax[k].set(xlabel=f"SpDP {lab}, paper's B_SpDP",
                      title=f"({'ab'[k]}) SpDP construction variants (mean +- s.d. over seeds)")
            ax[k].legend(fontsize=7, loc="lower right")
        if len(ds) and "correlation" in ds:
            for heating, g in ds[ds["feasible"].astype(bool)].groupby("heating", sort=False):
                ax[2].errorbar(g["hvac_energy_share"], g["correlation"], yerr=g["correlation_sd"], marker="o", ms=4,
                               label=f"stand-in, {heating}")
        ax[2].axhline(PAPER_VALUES["table3"]["spdp"][1], color="k", ls=":", label="paper 0.34")
        ax[2].set(xlabel="HVAC energy share (the stand-in's free property)", ylabel="SpDP correlation (paper's B)",
                  title="(c) the home's free property (base construction)")
        ax[2].legend(fontsize=7)
        tb = br[br["parameter"].isin(["b_trdp_4h", "b_trdp_1week"])]
        readings = list(dict.fromkeys(tb["reading"]))
        xs = np.arange(len(readings))
        for k, (par, g) in enumerate(tb.groupby("parameter", sort=False)):
            g = g.set_index("reading").loc[readings]
            ax[3].bar(xs + 0.4 * k - 0.2, g["value"], width=0.4, label=f"{par}, ours")
            ax[3].axhline(g["paper"].iloc[0], color="k", ls=":" if k else "--", lw=1.0, label=f"{par}, paper")
        ax[3].set_xticks(xs, readings, rotation=30, ha="right", fontsize=7)
        ax[3].set(yscale="log", ylabel="B_TrDP (kW)", title="(d) readings of eq. (13) on the data")
        ax[3].legend(fontsize=6)
    else:
        raise ValueError(f"unknown spdp figure {name!r}")
    save_figure(fig, smk.output.pdf)


# --------------------------------------------------------------------------- claims

#: A release "is useful" (non-vacuity precondition of the beats-claims) when its correlation with the
#: sensitive series is at least this (the paper calls SpDP's 0.34 "good utility").
USEFUL_CORR = 0.1


def _beats_claim(cid: str, desc: str, sweep: pd.DataFrame, spdp_mech: str, trdp_filter: dict) -> Any:
    """SpDP beats TrDP at every swept duration above 4 h (correlation and added-noise std), with the
    precondition that SpDP's own release is useful (corr >= USEFUL_CORR), else the claim would be vacuous."""
    sp = sweep[sweep["mechanism"] == spdp_mech].groupby("hours")[["correlation", "noise_std_kw"]].first()
    tr = sweep[sweep["mechanism"] == "trdp"]
    for k, v in trdp_filter.items():
        tr = tr[tr[k] == v]
    tr = tr.set_index("hours")
    above = [h for h in tr.index if h > 4]
    if not above or sp.empty:
        return boolean_claim(cid, PAPER, "fig_duration_sweep", desc, False, comparable=False,
                             note="precondition failed: no swept duration above 4 h")
    sp_corr, sp_noise = float(sp["correlation"].iloc[0]), float(sp["noise_std_kw"].iloc[0])
    lose = [h for h in above if not (sp_corr > tr.loc[h, "correlation"] and sp_noise < tr.loc[h, "noise_std_kw"])]
    useful = sp_corr >= USEFUL_CORR
    at4 = tr.loc[4.0, "correlation"] if 4.0 in tr.index else math.nan
    value = (f"SpDP corr {fmt(sp_corr, 2)}, noise {fmt(sp_noise, 3)} kW; beats TrDP at {len(above) - len(lose)}/"
             f"{len(above)} durations > 4 h" + (f" (loses at {', '.join(fmt(h, 3) for h in lose)} h)" if lose else "")
             + f"; TrDP corr at 4 h {fmt(at4, 2)}")
    if not useful:
        return boolean_claim(cid, PAPER, "fig_duration_sweep", desc, False, reproduced_value=value,
                             note=f"SpDP's own release is noise (corr {fmt(sp_corr, 2)} < {USEFUL_CORR}): 'SpDP beats "
                                  "TrDP' would hold only vacuously; see the B_SpDP row and fidelity_spdp_variants.csv")
    return boolean_claim(cid, PAPER, "fig_duration_sweep", desc, not lose, reproduced_value=value,
                         note="" if not lose else "TrDP has the higher correlation or lower noise at the listed "
                                              "durations (B(K) of this reading is small); see fidelity_b_readings.csv")


def _spdp_variant_note(var: pd.DataFrame, dsw: pd.DataFrame) -> str:
    """Why the paper-B SpDP row differs: the seed spread and the construction / data sweeps, with numbers."""
    pv = var[var["tag"] == "paper_b"].set_index("variant")

    def one(name):
        r = pv.loc[name]
        return (f"{name}: corr {fmt(r['correlation'], 2)}, std {fmt(r['std_kw'], 3)}, noise {fmt(r['noise_std_kw'], 3)} "
                f"kW")
    parts = []
    if "base" in pv.index:
        r = pv.loc["base"]
        parts.append(f"over {int(r['n_seeds'])} mechanism seeds the configured construction gives corr "
                     f"{fmt(r['correlation'], 2)} +- {fmt(r['correlation_sd'], 1)}")
    parts += [one(n) for n in ("adapt", "order2", "one_sided", "one_sided+order2") if n in pv.index]
    note = "; ".join(parts) + " (fidelity_spdp_variants.csv)"
    if len(dsw) and "correlation" in dsw:
        ok = dsw[dsw["feasible"].astype(bool)]
        if len(ok):
            lo, hi = ok.loc[ok["correlation"].idxmin()], ok.loc[ok["correlation"].idxmax()]
            note += (f"; the home's free property moves corr from {fmt(hi['correlation'], 2)} (HVAC share "
                     f"{fmt(hi['hvac_energy_share'], 2)}, {hi['heating']}) to {fmt(lo['correlation'], 2)} (share "
                     f"{fmt(lo['hvac_energy_share'], 2)}, {lo['heating']}) (fidelity_data_sweep.csv)")
    return note


def _mean_tol(series: str, noise_std: float, n: int) -> float | None:
    """TrDP's released mean is the sensitive mean plus the mean of n i.i.d. noise values: three standard
    errors (noise_std / sqrt(n)) of it are part of the tolerance (else a 180-kW noise mean could 'match')."""
    return 3.0 * noise_std / math.sqrt(n) if series.startswith("trdp") else None


def claims_job(smk) -> None:
    """results/spdp/claims.csv: our-B variant, paper-parameter variant, calibration arithmetic, qualitative claims.

    On the paper-matched stand-in (data source ``spdp_standin``) every data-dependent number is a held-out
    prediction; the two Table II "Sensitive" numbers are the stand-in's inputs (``calibration target``).
    On any other data those rows are ``not comparable``. Every ``differs`` note names the fidelity table
    that explains it (docs/spdp.md, "Fidelity").
    """
    cfg = smk.config["spdp"]
    cal = read_json(smk.input.calibration)
    t2 = read_table(smk.input.table2).set_index("series")
    t3 = read_table(smk.input.table3).set_index("series")
    pb = read_table(smk.input.paper_b)
    sweep = read_table(smk.input.sweep)
    sweep["reading"] = sweep["reading"].fillna("")
    br = read_table(smk.input.b_readings)
    var = read_table(smk.input.spdp_variants)
    dsw = read_table(smk.input.data_sweep)
    eps, delta = cfg["privacy"]["epsilon"], cfg["privacy"]["delta"]
    pp = cfg["paper_parameters"]
    data = cal["data"]
    standin = str(data.get("source", "")).startswith("spdp_standin")
    why = (f"data differ: {data['source']} ({data['weeks']:.0f} weeks, meter {data['meter_id']}); the paper used one "
           "Pecan Street home (not public); the stand-in source spdp_standin makes these rows comparable")
    C = []
    n_eval = int(data["n_samples"]) - _samples(cfg["streaming"]["burn_in_hours"], cal["fs_per_hour"])

    def num(cid, target, desc, paper, ours, note="", comparable=None, digits=4, **tol):
        comp = standin if comparable is None else comparable
        C.append(numeric_claim(cid, PAPER, target, desc, paper, ours, note=note if comp else why, comparable=comp,
                               digits=digits, **tol))

    def reading(par, rd):
        r = br[(br["parameter"] == par) & (br["reading"] == rd)]
        return float(r["value"].iloc[0]) if len(r) else math.nan

    # ---- adjacency parameters (eqs. 12-13) on the data
    bs = {rd: reading("b_spdp", f"{rd}/two_sided") for rd in ("sliding", "nested", "consecutive", "first_span")}
    num("b_spdp", "table1", "B_SpDP = max pairwise PSD distance, 7-12-week windows (eq. 12), kW^2 h",
        PAPER_VALUES["b_spdp"], cal["b_spdp"], rel_tol=0.25,
        note="readings of eq. (12) on this home: " + ", ".join(f"{k} {fmt(v, 3)}" for k, v in bs.items())
             + " (fidelity_b_readings.csv); none reaches 0.12: this home's PSD varies more between seasons")
    for key in ("4h", "1week"):
        par = f"b_trdp_{key}"
        r = br[br["parameter"] == par]
        row = r.iloc[0] if len(r) else None
        extra = "" if row is None else (
            f"; eq. (13)'s max >= std sqrt(2K(1 - profile share)) = {fmt(row['max_lower_bound'], 3)} kW here, and the "
            f"paper's value would need a block-profile share >= {fmt(row['profile_share_needed'], 4)} (this home: "
            f"{fmt(row['profile_share'], 2)}); readings: first pair D(K) {fmt(reading(par, 'first_pair'), 3)}, min "
            f"{fmt(reading(par, 'min_all_pairs'), 3)}, median {fmt(reading(par, 'median_all_pairs'), 3)} kW "
            "(fidelity_b_readings.csv)")
        num(par, "table1", f"B_TrDP({key}), eq. (13) (max over all pairs), kW", PAPER_VALUES[par],
            cal["trdp"][key]["b"], rel_tol=0.25, note="eq. (13) as written" + extra)

    # ---- Tables II-III with our B (our-B variant)
    ours_note = (f"our-B variant: B_SpDP {fmt(cal['b_spdp'], 3)} kW^2 h, B_TrDP {fmt(cal['trdp']['4h']['b'], 3)} / "
                 f"{fmt(cal['trdp']['1week']['b'], 3)} kW (see the b_* rows); the paper-parameter variant is in the "
                 "*_paper_b rows")
    for series, (pm, ps) in PAPER_VALUES["table2"].items():
        if series == "sensitive":
            for stat, pv, col in (("mean", pm, "mean_kw"), ("std", ps, "std_kw")):
                cid, desc = f"table2_sensitive_{stat}", f"Table II {stat} of the sensitive series (kW)"
                if standin:
                    C.append(calibration_target_claim(
                        cid, PAPER, "table2", desc, pv, float(t2.loc[series, col]),
                        note="stated data fact: the stand-in home's ratings are solved to match it over the whole "
                             "series (Table II is computed after the burn-in)"))
                else:
                    num(cid, "table2", desc, pv, float(t2.loc[series, col]), rel_tol=0.1)
            continue
        num(f"table2_{series}_mean", "table2", f"Table II mean of {series} (kW)", pm, float(t2.loc[series, "mean_kw"]),
            rel_tol=0.1, abs_tol=_mean_tol(series, float(t3.loc[series, "noise_std_kw"]), n_eval), note=ours_note)
        num(f"table2_{series}_std", "table2", f"Table II std of {series} (kW)", ps, float(t2.loc[series, "std_kw"]),
            rel_tol=0.1, note=ours_note)
    for series, (pn, pc, psnr) in PAPER_VALUES["table3"].items():
        r = t3.loc[series]
        num(f"table3_{series}_noise_std", "table3", f"Table III std of added noise, {series} (kW)", pn,
            float(r["noise_std_kw"]), rel_tol=0.1, note=ours_note)
        num(f"table3_{series}_corr", "table3", f"Table III correlation coefficient, {series}", pc,
            float(r["correlation"]), abs_tol=0.05, note=ours_note)
        num(f"table3_{series}_snr", "table3", f"Table III SNR (dB), {series}; 10 log10(sum x~^2 / sum (x~ - x)^2)",
            psnr, float(r["snr_db_paper"]), abs_tol=0.5, note=ours_note, digits=3)

    # ---- Tables II-III with the paper's B (paper-parameter variant)
    printed_cal = _calibration_label("proposition1", pp["trdp_delta"])
    spdp_note = _spdp_variant_note(var, dsw)
    for series in RELEASES:
        g = pb[pb["series"] == series]
        r = (g if series == "spdp" else g[g["calibration"] == printed_cal]).iloc[0]
        pm, ps = PAPER_VALUES["table2"][series]
        pn, pc, psnr = PAPER_VALUES["table3"][series]
        vnote = f"paper-parameter variant (B = {fmt(r['b'], 3)}, {r['calibration']}) on this home; " + (
            spdp_note if series == "spdp" else
            "the added noise is a realisation: the printed 1-week mean and correlation are 3 and 8 standard errors "
            "from their expectation for a year of samples but within 1.2 for a day or a week "
            "(fidelity_window_evidence.csv): Tables II-III were computed over a short window" if series == "trdp_1week"
            else "eq. (2) at the printed delta (fidelity_trdp_printed.csv)")
        num(f"table2_{series}_mean_paper_b", "table3_paper_b", f"Table II mean of {series}, paper's B (kW)", pm,
            float(r["mean_kw"]), rel_tol=0.1, abs_tol=_mean_tol(series, float(r["noise_std_kw"]), n_eval), note=vnote)
        num(f"table2_{series}_std_paper_b", "table3_paper_b", f"Table II std of {series}, paper's B (kW)", ps,
            float(r["std_kw"]), rel_tol=0.1, note=vnote)
        cid = "table3_spdp_noise_std_paper_b" if series == "spdp" else f"table3_{series}_noise_std_paper_b"
        num(cid, "table3_paper_b", f"Table III std of added noise, {series}, paper's B (kW)", pn,
            float(r["noise_std_kw"]), rel_tol=0.1, note=vnote)
        num(f"table3_{series}_corr_paper_b", "table3_paper_b", f"Table III correlation, {series}, paper's B", pc,
            float(r["correlation"]), abs_tol=0.05, note=vnote)
        num(f"table3_{series}_snr_paper_b", "table3_paper_b", f"Table III SNR (dB), {series}, paper's B", psnr,
            float(r["snr_db_paper"]), abs_tol=0.5, note=vnote, digits=3)

    # ---- Table III noise levels for the paper's B values: pure calibration arithmetic (printed precision)
    mean_p, std_p = PAPER_VALUES["table2"]["sensitive"]
    for series, key, paper_sigma, tol in (("trdp_4h", "b_trdp_4h", 0.92, 0.005), ("trdp_1week", "b_trdp_1week", 180.0, 5.0)):
        b = pp[key]
        expl = ("the printed digits are eq. (2) at delta = 1e-3 (fidelity_trdp_printed.csv: no formula at Table I's "
                "delta = 0.01 prints them)")
        num(f"table3_{series}_sigma_classical", "table3_paper_b",
            f"Table III noise std for the paper's B = {b:g} kW, classical sigma = B sqrt(2 ln(1.25/delta))/eps at "
            f"delta = {delta:g} (kW)", paper_sigma, classical_sigma(b, eps, delta), abs_tol=tol, comparable=True,
            note=expl)
        num(f"table3_{series}_sigma_prop1", "table3_paper_b",
            f"Table III noise std for the paper's B = {b:g} kW, Proposition 1 eq. (2) at delta = {delta:g} (kW)",
            paper_sigma, proposition1_sigma(b, eps, delta), abs_tol=tol, comparable=True, note=expl)
        num(f"table3_{series}_sigma_prop1_paper_delta", "table3_paper_b",
            f"Table III noise std for the paper's B = {b:g} kW, eq. (2) at delta = {pp['trdp_delta']:g} (kW)",
            paper_sigma, proposition1_sigma(b, eps, pp["trdp_delta"]), abs_tol=tol, comparable=True,
            note="eq. (2) reproduces the printed digit only at this delta, not at Table I's delta")
    exp = spdp_fidelity.trdp_expected_metrics(mean_p, std_p, proposition1_sigma(pp["b_trdp_4h"], eps, pp["trdp_delta"]))
    for metric, (pv, dec) in spdp_fidelity.PRINTED_TRDP["4h"].items():
        if metric == "sigma_kw":
            continue
        num(f"table3_trdp_4h_{metric}_expected", "table3_paper_b",
            f"TrDP-4h {metric} expected from the stated mean/std and eq. (2) at delta = {pp['trdp_delta']:g}",
            pv, exp[metric], abs_tol=0.5 * 10.0 ** (-dec), comparable=True,
            note="arithmetic from Table II's sensitive mean/std and the printed calibration", digits=4)

    # ---- qualitative claims
    cal_label = _calibration_label(cfg["trdp"]["calibration"], delta)
    C.append(_beats_claim(
        "spdp_beats_trdp_above_4h",
        f"our-B variant: SpDP has higher correlation and lower added-noise std than TrDP ({cal_label}, B(K) = eq. (13) "
        "max) at every swept duration above 4 h, and SpDP's release is useful (corr >= 0.1)",
        sweep, "spdp", {"reading": "max_all_pairs", "calibration": cal_label}))
    for rd in cfg["sweep_readings"]:
        C.append(_beats_claim(
            f"spdp_beats_trdp_above_4h_paper_b_{rd}",
            f"paper-parameter variant: SpDP with the paper's B_SpDP beats TrDP ({printed_cal}, B(K) = {rd} reading) "
            "at every swept duration above 4 h, SpDP useful",
            sweep, "spdp_paper_b", {"reading": rd, "calibration": printed_cal}))
    C.append(boolean_claim(
        "trdp_4h_beats_spdp", PAPER, "table3", "our-B variant: TrDP designed for 4 h has higher correlation than SpDP",
        bool(t3.loc["trdp_4h", "correlation"] > t3.loc["spdp", "correlation"]), comparable=standin,
        reproduced_value=f"TrDP-4h {fmt(float(t3.loc['trdp_4h', 'correlation']), 2)} vs SpDP "
                         f"{fmt(float(t3.loc['spdp', 'correlation']), 2)}",
        note=(why if not standin else f"our B_TrDP(4 h) = {fmt(cal['trdp']['4h']['b'], 3)} kW (eq. 13 max) makes the "
              "TrDP noise large; see b_trdp_4h")))
    g = pb[pb["series"] == "trdp_4h"]
    c4 = float(g[g["calibration"] == printed_cal]["correlation"].iloc[0])
    csp = float(pb[pb["series"] == "spdp"]["correlation"].iloc[0])
    C.append(boolean_claim(
        "trdp_4h_beats_spdp_paper_b", PAPER, "table3_paper_b",
        "paper-parameter variant: TrDP designed for 4 h has higher correlation than SpDP", c4 > csp,
        comparable=standin, reproduced_value=f"TrDP-4h {fmt(c4, 2)} vs SpDP {fmt(csp, 2)}",
        note=why if not standin else ""))
    write_claims(C, smk.output[0])

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

from dpgrid.claims import boolean_claim, fmt, numeric_claim, write_claims
from dpgrid.data.meter import MeterData, MeterDataError
from dpgrid.io import read_json, read_table, save_npz, write_json, write_table
from dpgrid.mechanisms.correlated_gaussian import CorrelatedGaussianMechanism
from dpgrid.mechanisms.spectral import design_streaming_release, release_metrics, spdp_mechanism
from dpgrid.mechanisms.spectral_adjacency import (b_spdp, b_trdp, consecutive_distance,
                                                  trajectory_distance_quantiles)
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
from dpgrid.models.psd import PSDEstimator, sos_power_response
from dpgrid.privacy.gaussian_calibration import (classical_sigma, proposition1_sigma, proposition2_lambda_bar,
                                                 trajectory_sigma)
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
    return PSDEstimator(n_points=cfg["psd"]["n_points"], fs_per_hour=fs)


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
                 rng_stream: np.random.Generator) -> dict:
    """Algorithm 1 on the PSD of the first ``psd_window_days`` and Algorithm 2 over the whole series."""
    est = _estimator(cfg, fs)
    m = cfg["mechanism"]
    st = cfg["streaming"]
    k = _samples(24 * m["psd_window_days"], fs)
    phi = est.estimate(x[:k], name="sensitive PSD window")
    mech = CorrelatedGaussianMechanism(phi.size, b, cfg["privacy"]["epsilon"], cfg["privacy"]["delta"],
                                       beta=m["beta"], structure=m["correlation_structure"])
    alg1 = spdp_mechanism(phi, mech, omega_n=m["positive_filter"]["omega_n"], gain=m["positive_filter"]["gain"],
                          rng=rng_mech)
    rf = st["reduction_filter"]
    mean = float(np.mean(x[:k])) if st["mean_handling"] == "restore" else 0.0
    design = design_streaming_release(
        phi, alg1.phi_tilde, est, mean=mean, cutoff_per_hour=rf["cutoff_hz"] * 3600.0, gain=rf["gain"],
        order=rf["order"], shrink=rf["adapt_factor"], min_cutoff_per_hour=rf["min_cutoff_hz"] * 3600.0,
        gamma_floor=rf["gamma_floor"])
    released = design.new_stream(rng_stream).push(x)
    return {"estimator": est, "mechanism": mech, "alg1": alg1, "design": design, "released": released}


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


def paper_b_job(smk) -> None:
    """Table III for the paper's B values: calibration arithmetic and releases of our data."""
    cfg, seed, eps, delta, x, fs, ev = _evaluation_context(smk)
    rows = []
    for name, key in (("trdp_4h", "b_trdp_4h"), ("trdp_1week", "b_trdp_1week")):
        b = PAPER_VALUES[key]
        for calib in ("proposition1", "classical"):
            mech = TrajectoryGaussianMechanism(b, eps, delta, calibration=calib)
            m = release_metrics(x[ev], mech.release(x, job_rng(seed, PAPER, "paper_b", name, calib))[ev])
            rows.append({"series": name, "b": b, "calibration": calib, "sigma_formula": mech.sigma, **m})
    sp = spdp_release(x, fs, cfg, PAPER_VALUES["b_spdp"], job_rng(seed, PAPER, "paper_b", "spdp_psd"),
                      job_rng(seed, PAPER, "paper_b", "spdp_stream"))
    m = release_metrics(x[ev], sp["released"][ev])
    rows.append({"series": "spdp", "b": PAPER_VALUES["b_spdp"], "calibration": "proposition2",
                 "sigma_formula": math.sqrt(proposition2_lambda_bar(PAPER_VALUES["b_spdp"], eps, delta)), **m})
    write_table(pd.DataFrame(rows), smk.output.table)


def duration_sweep_job(smk) -> None:
    """TrDP noise std and correlation vs protected duration K (B_TrDP(K) from the data), with SpDP."""
    cfg, seed, eps, delta, x, fs, ev = _evaluation_context(smk)
    t3 = read_table(smk.input.table3).set_index("series")
    rows = []
    for hours in cfg["sweep_durations_hours"]:
        k = _samples(hours, fs)
        if x.size // k < 2:
            LOG.info("sweep: %g h skipped (fewer than two trajectories)", hours)
            continue
        b = b_trdp(x, k)
        for calib in ("proposition1", "classical"):
            sigma = trajectory_sigma(b, eps, delta, calib)
            xr = x + sigma * job_rng(seed, PAPER, "sweep", hours, calib).standard_normal(x.size)
            m = release_metrics(x[ev], xr[ev])
            rows.append({"hours": hours, "mechanism": f"trdp_{calib}", "b": b, "sigma": sigma,
                         "noise_std_kw": m["noise_std_kw"], "correlation": m["correlation"]})
        rows.append({"hours": hours, "mechanism": "spdp", "b": math.nan, "sigma": math.nan,
                     "noise_std_kw": float(t3.loc["spdp", "noise_std_kw"]),
                     "correlation": float(t3.loc["spdp", "correlation"])})
    write_table(pd.DataFrame(rows), smk.output.table)


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
        ax[1].plot(dist["hours"] / 24, dist["time_distance_kw"], "o-", color=PALETTE["trdp"])
        ax[1].set(xscale="log", xlabel="duration K (days)", ylabel="D(K) (kW)",
                  title="(b) ||d(1:K) - d(K+1:2K)||")
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
        ax.set(xscale="log", yscale="log", xlabel="data duration (days)", ylabel="2-norm distance",
               title="distance between consecutive windows")
        ax.legend()
    elif name == "fig4":
        p = read_table(inp.psd)
        fig, ax = figure()
        ax.semilogy(p["frequency_per_hour"], p["phi"], color=PALETTE["true"], label=r"sensitive $\phi$")
        ax.semilogy(p["frequency_per_hour"], p["phi_tilde"], color=PALETTE["spdp"], label=r"privatised $\tilde\phi$")
        ax.semilogy(p["frequency_per_hour"], p["released_psd_estimate"], color=PALETTE["no_noise"], lw=0.8,
                    ls="--", label="PSD of released series")
        ax.set(xlabel="frequency (1/hour)", ylabel="PSD (kW$^2$ h)", title="SpDP mechanism (Algorithm 1)")
        ax.legend()
    elif name == "fig6":
        z = np.load(inp.series)
        fig, ax = figure(3, 1, width=5.5, height=7.0, sharex=True)
        titles = {"spdp": "(a) SpDP", "trdp_4h": "(b) TrDP, 4 hours", "trdp_1week": "(c) TrDP, 1 week"}
        for a, name_ in zip(ax, RELEASES):
            a.plot(z["hours"], z[name_], color=PALETTE["spdp" if name_ == "spdp" else "trdp"], lw=0.8, label="released")
            a.plot(z["hours"], z["sensitive"], color=PALETTE["true"], lw=1.0, label="sensitive d")
            a.set(ylabel="kW", title=titles[name_])
            a.legend(loc="upper right")
        ax[-1].set_xlabel("time (hours)")
    elif name == "fig_duration_sweep":
        d = read_table(inp.sweep)
        fig, ax = figure(1, 2, width=8.0, height=3.0)
        styles = {"spdp": (PALETTE["spdp"], "-", "SpDP (any duration)"),
                  "trdp_proposition1": (PALETTE["trdp"], "-", "TrDP, eq. (2)"),
                  "trdp_classical": (PALETTE["trdp"], "--", "TrDP, classical")}
        for mech, (c, ls, lab) in styles.items():
            g = d[d["mechanism"] == mech]
            ax[0].plot(g["hours"], g["correlation"], ls, marker="o", ms=3, color=c, label=lab)
            ax[1].plot(g["hours"], g["noise_std_kw"], ls, marker="o", ms=3, color=c, label=lab)
        ax[0].set(xscale="log", xlabel="protected duration K (hours)", ylabel="correlation coefficient")
        ax[1].set(xscale="log", yscale="log", xlabel="protected duration K (hours)", ylabel="added-noise std (kW)")
        ax[0].legend()
    else:
        raise ValueError(f"unknown spdp figure {name!r}")
    save_figure(fig, smk.output.pdf)


# --------------------------------------------------------------------------- claims

def claims_job(smk) -> None:
    cfg = smk.config["spdp"]
    cal = read_json(smk.input.calibration)
    t2 = read_table(smk.input.table2).set_index("series")
    t3 = read_table(smk.input.table3).set_index("series")
    pb = read_table(smk.input.paper_b)
    sweep = read_table(smk.input.sweep)
    eps, delta = cfg["privacy"]["epsilon"], cfg["privacy"]["delta"]
    data = cal["data"]
    # every data-dependent number is 'not comparable': the paper's Pecan Street home is not available
    data_comparable = False
    why = (f"data differ: {data['source']} household ({data['weeks']:.0f} weeks, meter {data['meter_id']}), "
           "the paper used one Pecan Street home (not public)")
    C = []

    def num(cid, target, desc, paper, ours, rel, note="", comparable=None, digits=4):
        C.append(numeric_claim(cid, PAPER, target, desc, paper, ours, rel_tol=rel, note=note,
                               comparable=data_comparable if comparable is None else comparable, digits=digits))

    num("b_spdp", "table1", "B_SpDP = max pairwise PSD distance, 7-12-week windows (eq. 12), kW^2 h",
        PAPER_VALUES["b_spdp"], cal["b_spdp"], 0.25, note=why)
    tq = cal["trdp"]
    num("b_trdp_4h", "table1", "B_TrDP(4 h), eq. (13), kW", PAPER_VALUES["b_trdp_4h"], tq["4h"]["b"], 0.25,
        note=why + f"; our min/median pairwise distance {fmt(tq['4h']['min_distance'], 3)}/"
                   f"{fmt(tq['4h']['median_distance'], 3)} kW (the paper's 0.2 kW is far below a max over 4-h "
                   "trajectories of a 1.7 kW-std home; its text also says K = 576 samples, which is 48 h)")
    num("b_trdp_1week", "table1", "B_TrDP(1 week), eq. (13), kW", PAPER_VALUES["b_trdp_1week"], tq["1week"]["b"], 0.25,
        note=why + f"; our min/median {fmt(tq['1week']['min_distance'], 3)}/{fmt(tq['1week']['median_distance'], 3)} kW")

    for series, (pm, ps) in PAPER_VALUES["table2"].items():
        num(f"table2_{series}_mean", "table2", f"Table II mean of {series} (kW)", pm, float(t2.loc[series, "mean_kw"]),
            0.1, note=why)
        num(f"table2_{series}_std", "table2", f"Table II std of {series} (kW)", ps, float(t2.loc[series, "std_kw"]),
            0.1, note=why)
    for series, (pn, pc, psnr) in PAPER_VALUES["table3"].items():
        r = t3.loc[series]
        num(f"table3_{series}_noise_std", "table3", f"Table III std of added noise, {series} (kW)", pn,
            float(r["noise_std_kw"]), 0.1, note=why)
        num(f"table3_{series}_corr", "table3", f"Table III correlation coefficient, {series}", pc,
            float(r["correlation"]), 0.1, note=why)
        num(f"table3_{series}_snr", "table3", f"Table III SNR (dB), {series}; 10 log10(sum x~^2 / sum (x~ - x)^2)",
            psnr, float(r["snr_db_paper"]), 0.1, note=why, digits=3)

    # Table III noise levels for the paper's own B values: pure calibration arithmetic
    for series, key, paper_sigma in (("trdp_4h", "b_trdp_4h", 0.92), ("trdp_1week", "b_trdp_1week", 180.0)):
        b = PAPER_VALUES[key]
        s_cl, s_p1 = classical_sigma(b, eps, delta), proposition1_sigma(b, eps, delta)
        emp = pb[(pb["series"] == series) & (pb["calibration"] == "classical")]["noise_std_kw"].iloc[0]
        num(f"table3_{series}_sigma_classical", "table3_paper_b",
            f"Table III noise std for the paper's B = {b:g} kW, classical sigma = B sqrt(2 ln(1.25/delta))/eps (kW)",
            paper_sigma, s_cl, 0.05, comparable=True,
            note=f"the paper's numbers match the classical calibration; empirical std of the added noise "
                 f"on our data {fmt(emp, 3)} kW")
        num(f"table3_{series}_sigma_prop1", "table3_paper_b",
            f"Table III noise std for the paper's B = {b:g} kW, Proposition 1 eq. (2) (kW)",
            paper_sigma, s_p1, 0.05, comparable=True,
            note="eq. (2), the calibration the paper states, gives less noise than the paper reports" if
            abs(s_p1 - paper_sigma) > 0.05 * paper_sigma else "")
    sp = pb[pb["series"] == "spdp"].iloc[0]
    num("table3_spdp_noise_std_paper_b", "table3_paper_b",
        "Table III SpDP added-noise std with the paper's B_SpDP = 0.12 kW^2 h on our data (kW)",
        PAPER_VALUES["table3"]["spdp"][0], float(sp["noise_std_kw"]), 0.25,
        note=("not pure arithmetic: the added noise is dominated by the clipped PSD noise (set by B, eps, delta, "
              "beta, K_p) but also depends on the home's PSD and the adapted F(z); " + why))

    # SpDP beats TrDP for any duration above four hours (sweep)
    cal_name = f"trdp_{cfg['trdp']['calibration']}"
    spc = sweep[sweep["mechanism"] == "spdp"].set_index("hours")["correlation"]
    tr = sweep[sweep["mechanism"] == cal_name].set_index("hours")
    above = tr.index[tr.index > 4]
    beats = [h for h in above if spc.loc[h] > tr.loc[h, "correlation"] and
             float(t3.loc["spdp", "noise_std_kw"]) < tr.loc[h, "noise_std_kw"]]
    holds = len(above) > 0 and len(beats) == len(above)
    at4 = bool(spc.loc[4] > tr.loc[4, "correlation"]) if 4 in tr.index else None
    C.append(boolean_claim(
        "spdp_beats_trdp_above_4h", PAPER, "fig_duration_sweep",
        f"SpDP has higher correlation and lower added-noise std than TrDP ({cfg['trdp']['calibration']}) "
        f"at every swept duration above 4 h ({', '.join(fmt(h, 3) for h in above)} h)", holds,
        reproduced_value=f"holds at {len(beats)}/{len(above)} durations" + (
            "" if at4 is None else f"; at 4 h SpDP {'also wins' if at4 else 'loses (as in the paper)'}"),
        note="" if holds else "TrDP wins at some duration above 4 h in our run"))
    C.append(boolean_claim(
        "trdp_4h_beats_spdp", PAPER, "table3", "TrDP designed for 4 h has higher correlation than SpDP (Table III)",
        bool(t3.loc["trdp_4h", "correlation"] > t3.loc["spdp", "correlation"]),
        comparable=data_comparable,
        note=why + f"; with our B_TrDP(4 h) = {fmt(tq['4h']['b'], 3)} kW the TrDP noise is large"))
    write_claims(C, smk.output[0])

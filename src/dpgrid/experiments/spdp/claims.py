"""Claims table rows of the spdp paper (results/spdp/claims.csv)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from dpgrid.claims import boolean_claim, calibration_target_claim, fmt, numeric_claim, write_claims
from dpgrid.experiments.spdp.paper import PAPER, PAPER_VALUES, RELEASES, calibration_label
from dpgrid.io import read_json, read_table
from dpgrid.mechanisms import spdp_fidelity
from dpgrid.mechanisms.trajectory_gaussian import trajectory_sigma


def _samples(hours: float, fs: float) -> int:
    return int(round(hours * fs))


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
        return boolean_claim(
            cid,
            PAPER,
            "fig_duration_sweep",
            desc,
            False,
            comparable=False,
            note="precondition failed: no swept duration above 4 h",
        )
    sp_corr, sp_noise = float(sp["correlation"].iloc[0]), float(sp["noise_std_kw"].iloc[0])
    lose = [h for h in above if not (sp_corr > tr.loc[h, "correlation"] and sp_noise < tr.loc[h, "noise_std_kw"])]
    useful = sp_corr >= USEFUL_CORR
    at4 = tr.loc[4.0, "correlation"] if 4.0 in tr.index else math.nan
    value = (
        f"SpDP corr {fmt(sp_corr, 2)}, noise {fmt(sp_noise, 3)} kW; beats TrDP at {len(above) - len(lose)}/"
        f"{len(above)} durations > 4 h"
        + (f" (loses at {', '.join(fmt(h, 3) for h in lose)} h)" if lose else "")
        + f"; TrDP corr at 4 h {fmt(at4, 2)}"
    )
    if not useful:
        return boolean_claim(
            cid,
            PAPER,
            "fig_duration_sweep",
            desc,
            False,
            reproduced_value=value,
            note=f"SpDP's own release is noise (corr {fmt(sp_corr, 2)} < {USEFUL_CORR}): 'SpDP beats "
            "TrDP' would hold only vacuously; see the B_SpDP row and fidelity_spdp_variants.csv",
        )
    return boolean_claim(
        cid,
        PAPER,
        "fig_duration_sweep",
        desc,
        not lose,
        reproduced_value=value,
        note=""
        if not lose
        else "TrDP has the higher correlation or lower noise at the listed "
        "durations (B(K) of this reading is small); see fidelity_b_readings.csv",
    )


def _spdp_variant_note(var: pd.DataFrame, dsw: pd.DataFrame) -> str:
    """Why the paper-B SpDP row differs: the seed spread and the construction / data sweeps, with numbers."""
    pv = var[var["tag"] == "paper_b"].set_index("variant")

    def one(name):
        r = pv.loc[name]
        return (
            f"{name}: corr {fmt(r['correlation'], 2)}, std {fmt(r['std_kw'], 3)}, noise {fmt(r['noise_std_kw'], 3)} kW"
        )

    parts = []
    if "base" in pv.index:
        r = pv.loc["base"]
        parts.append(
            f"over {int(r['n_seeds'])} mechanism seeds the configured construction gives corr "
            f"{fmt(r['correlation'], 2)} +- {fmt(r['correlation_sd'], 1)}"
        )
    parts += [one(n) for n in ("adapt", "order2", "one_sided", "one_sided+order2") if n in pv.index]
    note = "; ".join(parts) + " (fidelity_spdp_variants.csv)"
    if len(dsw) and "correlation" in dsw:
        ok = dsw[dsw["feasible"].astype(bool)]
        if len(ok):
            lo, hi = ok.loc[ok["correlation"].idxmin()], ok.loc[ok["correlation"].idxmax()]
            note += (
                f"; the home's free property moves corr from {fmt(hi['correlation'], 2)} (HVAC share "
                f"{fmt(hi['hvac_energy_share'], 2)}, {hi['heating']}) to {fmt(lo['correlation'], 2)} (share "
                f"{fmt(lo['hvac_energy_share'], 2)}, {lo['heating']}) (fidelity_data_sweep.csv)"
            )
    return note


def _mean_tol(series: str, noise_std: float, n: int) -> float | None:
    """TrDP's released mean is the sensitive mean plus the mean of n i.i.d. noise values: three standard
    errors (noise_std / sqrt(n)) of it are part of the tolerance (else a 180-kW noise mean could 'match')."""
    return 3.0 * noise_std / math.sqrt(n) if series.startswith("trdp") else None


def claims_job(job) -> None:
    """results/spdp/claims.csv: our-B variant, paper-parameter variant, calibration arithmetic, qualitative claims.

    On the paper-matched stand-in (data source ``spdp_standin``) every data-dependent number is a held-out
    prediction; the two Table II "Sensitive" numbers are the stand-in's inputs (``calibration target``).
    On any other data those rows are ``not comparable``. Every ``differs`` note names the fidelity table
    that explains it (docs/spdp.md, "Fidelity").
    """
    cfg = job.params.cfg
    cal = read_json(job.input.calibration)
    t2 = read_table(job.input.table2).set_index("series")
    t3 = read_table(job.input.table3).set_index("series")
    pb = read_table(job.input.paper_b)
    sweep = read_table(job.input.sweep)
    sweep["reading"] = sweep["reading"].fillna("")
    br = read_table(job.input.b_readings)
    var = read_table(job.input.spdp_variants)
    dsw = read_table(job.input.data_sweep)
    eps, delta = cfg["privacy"]["epsilon"], cfg["privacy"]["delta"]
    pp = cfg["paper_parameters"]
    data = cal["data"]
    standin = str(data.get("source", "")).startswith("spdp_standin")
    why = (
        f"data differ: {data['source']} ({data['weeks']:.0f} weeks, meter {data['meter_id']}); the paper used one "
        "Pecan Street home (not public); the stand-in source spdp_standin makes these rows comparable"
    )
    C = []
    n_eval = int(data["n_samples"]) - _samples(cfg["streaming"]["burn_in_hours"], cal["fs_per_hour"])

    def num(cid, target, desc, paper, ours, note="", comparable=None, digits=4, **tol):
        comp = standin if comparable is None else comparable
        C.append(
            numeric_claim(
                cid, PAPER, target, desc, paper, ours, note=note if comp else why, comparable=comp, digits=digits, **tol
            )
        )

    def reading(par, rd):
        r = br[(br["parameter"] == par) & (br["reading"] == rd)]
        return float(r["value"].iloc[0]) if len(r) else math.nan

    # ---- adjacency parameters (eqs. 12-13) on the data
    bs = {rd: reading("b_spdp", f"{rd}/two_sided") for rd in ("sliding", "nested", "consecutive", "first_span")}
    num(
        "b_spdp",
        "table1",
        "B_SpDP = max pairwise PSD distance, 7-12-week windows (eq. 12), kW^2 h",
        PAPER_VALUES["b_spdp"],
        cal["b_spdp"],
        rel_tol=0.25,
        note="readings of eq. (12) on this home: "
        + ", ".join(f"{k} {fmt(v, 3)}" for k, v in bs.items())
        + " (fidelity_b_readings.csv); none reaches 0.12: this home's PSD varies more between seasons",
    )
    for key in ("4h", "1week"):
        par = f"b_trdp_{key}"
        r = br[br["parameter"] == par]
        row = r.iloc[0] if len(r) else None
        extra = (
            ""
            if row is None
            else (
                f"; eq. (13)'s max >= std sqrt(2K(1 - profile share)) = {fmt(row['max_lower_bound'], 3)} kW here, and the "
                f"paper's value would need a block-profile share >= {fmt(row['profile_share_needed'], 4)} (this home: "
                f"{fmt(row['profile_share'], 2)}); readings: first pair D(K) {fmt(reading(par, 'first_pair'), 3)}, min "
                f"{fmt(reading(par, 'min_all_pairs'), 3)}, median {fmt(reading(par, 'median_all_pairs'), 3)} kW "
                "(fidelity_b_readings.csv)"
            )
        )
        num(
            par,
            "table1",
            f"B_TrDP({key}), eq. (13) (max over all pairs), kW",
            PAPER_VALUES[par],
            cal["trdp"][key]["b"],
            rel_tol=0.25,
            note="eq. (13) as written" + extra,
        )

    # ---- Tables II-III with our B (our-B variant)
    ours_note = (
        f"our-B variant: B_SpDP {fmt(cal['b_spdp'], 3)} kW^2 h, B_TrDP {fmt(cal['trdp']['4h']['b'], 3)} / "
        f"{fmt(cal['trdp']['1week']['b'], 3)} kW (see the b_* rows); the paper-parameter variant is in the "
        "*_paper_b rows"
    )
    for series, (pm, ps) in PAPER_VALUES["table2"].items():
        if series == "sensitive":
            for stat, pv, col in (("mean", pm, "mean_kw"), ("std", ps, "std_kw")):
                cid, desc = f"table2_sensitive_{stat}", f"Table II {stat} of the sensitive series (kW)"
                if standin:
                    C.append(
                        calibration_target_claim(
                            cid,
                            PAPER,
                            "table2",
                            desc,
                            pv,
                            float(t2.loc[series, col]),
                            note="stated data fact: the stand-in home's ratings are solved to match it over the whole "
                            "series (Table II is computed after the burn-in)",
                        )
                    )
                else:
                    num(cid, "table2", desc, pv, float(t2.loc[series, col]), rel_tol=0.1)
            continue
        num(
            f"table2_{series}_mean",
            "table2",
            f"Table II mean of {series} (kW)",
            pm,
            float(t2.loc[series, "mean_kw"]),
            rel_tol=0.1,
            abs_tol=_mean_tol(series, float(t3.loc[series, "noise_std_kw"]), n_eval),
            note=ours_note,
        )
        num(
            f"table2_{series}_std",
            "table2",
            f"Table II std of {series} (kW)",
            ps,
            float(t2.loc[series, "std_kw"]),
            rel_tol=0.1,
            note=ours_note,
        )
    for series, (pn, pc, psnr) in PAPER_VALUES["table3"].items():
        r = t3.loc[series]
        num(
            f"table3_{series}_noise_std",
            "table3",
            f"Table III std of added noise, {series} (kW)",
            pn,
            float(r["noise_std_kw"]),
            rel_tol=0.1,
            note=ours_note,
        )
        num(
            f"table3_{series}_corr",
            "table3",
            f"Table III correlation coefficient, {series}",
            pc,
            float(r["correlation"]),
            abs_tol=0.05,
            note=ours_note,
        )
        num(
            f"table3_{series}_snr",
            "table3",
            f"Table III SNR (dB), {series}; 10 log10(sum x~^2 / sum (x~ - x)^2)",
            psnr,
            float(r["snr_db_paper"]),
            abs_tol=0.5,
            note=ours_note,
            digits=3,
        )

    # ---- Tables II-III with the paper's B (paper-parameter variant)
    printed_cal = calibration_label("proposition1", pp["trdp_delta"])
    spdp_note = _spdp_variant_note(var, dsw)
    for series in RELEASES:
        g = pb[pb["series"] == series]
        r = (g if series == "spdp" else g[g["calibration"] == printed_cal]).iloc[0]
        pm, ps = PAPER_VALUES["table2"][series]
        pn, pc, psnr = PAPER_VALUES["table3"][series]
        vnote = f"paper-parameter variant (B = {fmt(r['b'], 3)}, {r['calibration']}) on this home; " + (
            spdp_note
            if series == "spdp"
            else "the added noise is a realisation: the printed 1-week mean and correlation are 3 and 8 standard errors "
            "from their expectation for a year of samples but within 1.2 for a day or a week "
            "(fidelity_window_evidence.csv): Tables II-III were computed over a short window"
            if series == "trdp_1week"
            else "eq. (2) at the printed delta (fidelity_trdp_printed.csv)"
        )
        num(
            f"table2_{series}_mean_paper_b",
            "table3_paper_b",
            f"Table II mean of {series}, paper's B (kW)",
            pm,
            float(r["mean_kw"]),
            rel_tol=0.1,
            abs_tol=_mean_tol(series, float(r["noise_std_kw"]), n_eval),
            note=vnote,
        )
        num(
            f"table2_{series}_std_paper_b",
            "table3_paper_b",
            f"Table II std of {series}, paper's B (kW)",
            ps,
            float(r["std_kw"]),
            rel_tol=0.1,
            note=vnote,
        )
        cid = "table3_spdp_noise_std_paper_b" if series == "spdp" else f"table3_{series}_noise_std_paper_b"
        num(
            cid,
            "table3_paper_b",
            f"Table III std of added noise, {series}, paper's B (kW)",
            pn,
            float(r["noise_std_kw"]),
            rel_tol=0.1,
            note=vnote,
        )
        num(
            f"table3_{series}_corr_paper_b",
            "table3_paper_b",
            f"Table III correlation, {series}, paper's B",
            pc,
            float(r["correlation"]),
            abs_tol=0.05,
            note=vnote,
        )
        num(
            f"table3_{series}_snr_paper_b",
            "table3_paper_b",
            f"Table III SNR (dB), {series}, paper's B",
            psnr,
            float(r["snr_db_paper"]),
            abs_tol=0.5,
            note=vnote,
            digits=3,
        )

    # ---- Table III noise levels for the paper's B values: pure calibration arithmetic (printed precision)
    mean_p, std_p = PAPER_VALUES["table2"]["sensitive"]
    for series, key, paper_sigma, tol in (
        ("trdp_4h", "b_trdp_4h", 0.92, 0.005),
        ("trdp_1week", "b_trdp_1week", 180.0, 5.0),
    ):
        b = pp[key]
        expl = (
            "the printed digits are eq. (2) at delta = 1e-3 (fidelity_trdp_printed.csv: no formula at Table I's "
            "delta = 0.01 prints them)"
        )
        num(
            f"table3_{series}_sigma_classical",
            "table3_paper_b",
            f"Table III noise std for the paper's B = {b:g} kW, classical sigma = B sqrt(2 ln(1.25/delta))/eps at "
            f"delta = {delta:g} (kW)",
            paper_sigma,
            trajectory_sigma(b, eps, delta, "classical"),
            abs_tol=tol,
            comparable=True,
            note=expl,
        )
        num(
            f"table3_{series}_sigma_prop1",
            "table3_paper_b",
            f"Table III noise std for the paper's B = {b:g} kW, Proposition 1 eq. (2) at delta = {delta:g} (kW)",
            paper_sigma,
            trajectory_sigma(b, eps, delta, "proposition1"),
            abs_tol=tol,
            comparable=True,
            note=expl,
        )
        num(
            f"table3_{series}_sigma_prop1_paper_delta",
            "table3_paper_b",
            f"Table III noise std for the paper's B = {b:g} kW, eq. (2) at delta = {pp['trdp_delta']:g} (kW)",
            paper_sigma,
            trajectory_sigma(b, eps, pp["trdp_delta"], "proposition1"),
            abs_tol=tol,
            comparable=True,
            note="eq. (2) reproduces the printed digit only at this delta, not at Table I's delta",
        )
    exp = spdp_fidelity.trdp_expected_metrics(
        mean_p, std_p, trajectory_sigma(pp["b_trdp_4h"], eps, pp["trdp_delta"], "proposition1")
    )
    for metric, (pv, dec) in spdp_fidelity.PRINTED_TRDP["4h"].items():
        if metric == "sigma_kw":
            continue
        num(
            f"table3_trdp_4h_{metric}_expected",
            "table3_paper_b",
            f"TrDP-4h {metric} expected from the stated mean/std and eq. (2) at delta = {pp['trdp_delta']:g}",
            pv,
            exp[metric],
            abs_tol=0.5 * 10.0 ** (-dec),
            comparable=True,
            note="arithmetic from Table II's sensitive mean/std and the printed calibration",
            digits=4,
        )

    # ---- qualitative claims
    cal_label = calibration_label(cfg["trdp"]["calibration"], delta)
    C.append(
        _beats_claim(
            "spdp_beats_trdp_above_4h",
            f"our-B variant: SpDP has higher correlation and lower added-noise std than TrDP ({cal_label}, B(K) = eq. (13) "
            "max) at every swept duration above 4 h, and SpDP's release is useful (corr >= 0.1)",
            sweep,
            "spdp",
            {"reading": "max_all_pairs", "calibration": cal_label},
        )
    )
    for rd in cfg["sweep_readings"]:
        C.append(
            _beats_claim(
                f"spdp_beats_trdp_above_4h_paper_b_{rd}",
                f"paper-parameter variant: SpDP with the paper's B_SpDP beats TrDP ({printed_cal}, B(K) = {rd} reading) "
                "at every swept duration above 4 h, SpDP useful",
                sweep,
                "spdp_paper_b",
                {"reading": rd, "calibration": printed_cal},
            )
        )
    C.append(
        boolean_claim(
            "trdp_4h_beats_spdp",
            PAPER,
            "table3",
            "our-B variant: TrDP designed for 4 h has higher correlation than SpDP",
            bool(t3.loc["trdp_4h", "correlation"] > t3.loc["spdp", "correlation"]),
            comparable=standin,
            reproduced_value=f"TrDP-4h {fmt(float(t3.loc['trdp_4h', 'correlation']), 2)} vs SpDP "
            f"{fmt(float(t3.loc['spdp', 'correlation']), 2)}",
            note=(
                why
                if not standin
                else f"our B_TrDP(4 h) = {fmt(cal['trdp']['4h']['b'], 3)} kW (eq. 13 max) makes the "
                "TrDP noise large; see b_trdp_4h"
            ),
        )
    )
    g = pb[pb["series"] == "trdp_4h"]
    c4 = float(g[g["calibration"] == printed_cal]["correlation"].iloc[0])
    csp = float(pb[pb["series"] == "spdp"]["correlation"].iloc[0])
    C.append(
        boolean_claim(
            "trdp_4h_beats_spdp_paper_b",
            PAPER,
            "table3_paper_b",
            "paper-parameter variant: TrDP designed for 4 h has higher correlation than SpDP",
            c4 > csp,
            comparable=standin,
            reproduced_value=f"TrDP-4h {fmt(c4, 2)} vs SpDP {fmt(csp, 2)}",
            note=why if not standin else "",
        )
    )
    write_claims(C, job.output[0])

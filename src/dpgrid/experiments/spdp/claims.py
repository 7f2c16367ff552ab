"""Claims table rows of the spdp paper (results/spdp/claims.csv)."""

from __future__ import annotations

from dpgrid.claims import boolean_claim, fmt, numeric_claim, write_claims
from dpgrid.experiments.spdp.paper import PAPER, PAPER_VALUES
from dpgrid.io import read_json, read_table
from dpgrid.mechanisms.trajectory_gaussian import trajectory_sigma


def claims_job(job) -> None:
    cfg = job.params.cfg
    cal = read_json(job.input.calibration)
    t2 = read_table(job.input.table2).set_index("series")
    t3 = read_table(job.input.table3).set_index("series")
    pb = read_table(job.input.paper_b)
    sweep = read_table(job.input.sweep)
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
        s_cl, s_p1 = trajectory_sigma(b, eps, delta, "classical"), trajectory_sigma(b, eps, delta, "proposition1")
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
    write_claims(C, job.output[0])

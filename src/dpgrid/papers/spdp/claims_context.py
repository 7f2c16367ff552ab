"""The context of the spdp claims job (:func:`dpgrid.papers.spdp.claims.claims_job`): the run's tables and the
values several claims share, loaded once, and the text arguments the claim descriptions name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dpgrid.core.claims import fmt
from dpgrid.core.io import read_json, read_table
from dpgrid.mechanisms.trajectory_gaussian import trajectory_sigma
from dpgrid.papers.spdp.fidelity_calibration import trdp_expected_metrics
from dpgrid.papers.spdp.paper import PAPER_VALUES, RELEASES, calibration_label


def _samples(hours: float, fs: float) -> int:
    return int(round(hours * fs))


def text_args(cfg: Mapping) -> dict:
    """The configured numbers and labels the descriptions name."""
    pp, delta = cfg["paper_parameters"], cfg["privacy"]["delta"]
    return {
        "delta": delta,
        "trdp_delta": pp["trdp_delta"],
        "b_trdp_4h": pp["b_trdp_4h"],
        "b_trdp_1week": pp["b_trdp_1week"],
        "cal_label": calibration_label(cfg["trdp"]["calibration"], delta),
        "printed_cal": calibration_label("proposition1", pp["trdp_delta"]),
    }


def _spdp_variant_note(var: pd.DataFrame, dsw: pd.DataFrame) -> str:
    """Why the paper-B SpDP row differs: the seed spread and the construction / data sweeps, with numbers."""
    pv = var[var["tag"] == "paper_b"].set_index("variant")
    failure = pv["failure"].fillna("").astype(str) if "failure" in pv else pd.Series("", index=pv.index)

    def one(name):
        r = pv.loc[name]
        if failure[name]:
            return f"{name}: failed ({failure[name]})"
        return (
            f"{name}: corr {fmt(r['correlation'], 2)}, std {fmt(r['std_kw'], 3)}, noise {fmt(r['noise_std_kw'], 3)} kW"
        )

    parts = []
    if "base" in pv.index and failure["base"]:
        parts.append(one("base"))
    elif "base" in pv.index:
        r = pv.loc["base"]
        parts.append(
            f"over {int(r['n_seeds'])} mechanism seeds the configured construction gives corr "
            f"{fmt(r['correlation'], 2)} +- {fmt(r['correlation_sd'], 1)}"
        )
    parts += [one(n) for n in ("adapt", "order2", "one_sided", "one_sided+order2") if n in pv.index]
    shown = {"base", "adapt", "order2", "one_sided", "one_sided+order2"}
    parts += [one(n) for n in pv.index if failure[n] and n not in shown]  # a failed variant is named, not hidden
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


@dataclass(kw_only=True)
class ClaimsContext:
    """What the measures of :data:`dpgrid.papers.spdp.claims.CLAIMS` read (built by :func:`claims_context`)."""

    #: the spdp section of the config, its paper parameters, and the release's (eps, delta)
    cfg: Mapping[str, Any]
    pp: Mapping[str, Any]
    eps: float
    delta: float
    trdp_delta: float
    #: the calibration rule of our TrDP rows and the printed one (:func:`text_args`)
    cal_label: str
    printed_cal: str
    #: calibration.json: sensitivities B, sampling rate, the data's description
    cal: dict[str, Any]
    #: Tables II and III (indexed by series), the duration sweep, the B readings, Fig. 1's distances, the PSDs
    t2: pd.DataFrame
    t3: pd.DataFrame
    sweep: pd.DataFrame
    br: pd.DataFrame
    distances: pd.DataFrame
    psd_lengths: pd.DataFrame
    psd_release: pd.DataFrame
    #: whether the data are the paper-matched stand-in, and why the rows are not comparable otherwise
    standin: bool
    why: str
    #: samples evaluated after the burn-in
    n_eval: int
    ours_note: str
    #: the paper-parameter rows (series -> row of paper_b.csv) and their notes
    paper_b: dict[str, pd.Series]
    paper_b_notes: dict[str, str]
    #: TrDP 4 h's expected metrics at the paper's parameters
    trdp_4h_expected: dict[str, float]
    #: the paper's rows of results/privacy_audits.csv
    privacy_audits: pd.DataFrame | None = None


def claims_context(job) -> ClaimsContext:
    """The run's tables (the spdp_claims rule's input files) and the values several claims share."""
    inputs, cfg = job.input, job.params.cfg
    cal = read_json(inputs.calibration)
    t2 = read_table(inputs.table2).set_index("series")
    t3 = read_table(inputs.table3).set_index("series")
    pb = read_table(inputs.paper_b)
    sweep = read_table(inputs.sweep)
    sweep["reading"] = sweep["reading"].fillna("")
    pp, eps, delta = cfg["paper_parameters"], cfg["privacy"]["epsilon"], cfg["privacy"]["delta"]
    args = text_args(cfg)
    data = cal["data"]
    paper_b = {}
    for series in RELEASES:  # the paper-parameter rows: SpDP, TrDP at the printed calibration
        g = pb[pb["series"] == series]
        paper_b[series] = (g if series == "spdp" else g[g["calibration"] == args["printed_cal"]]).iloc[0]
    spdp_note = _spdp_variant_note(read_table(inputs.spdp_variants), read_table(inputs.data_sweep))
    paper_b_notes = {
        series: f"paper-parameter variant (B = {fmt(r['b'], 3)}, {r['calibration']}) on this home; "
        + (
            spdp_note
            if series == "spdp"
            else "the added noise is a realisation: the printed 1-week mean and correlation are 3 and 8 standard "
            "errors from their expectation for a year of samples but within 1.2 for a day or a week "
            "(fidelity_window_evidence.csv): Tables II-III were computed over a short window"
            if series == "trdp_1week"
            else "eq. (2) at the printed delta (fidelity_trdp_printed.csv)"
        )
        for series, r in paper_b.items()
    }
    mean_p, std_p = PAPER_VALUES["table2"]["sensitive"]
    return ClaimsContext(
        cfg=cfg,
        pp=pp,
        eps=eps,
        delta=delta,
        trdp_delta=pp["trdp_delta"],
        cal_label=args["cal_label"],
        printed_cal=args["printed_cal"],
        cal=cal,
        t2=t2,
        t3=t3,
        sweep=sweep,
        br=read_table(inputs.b_readings),
        distances=read_table(inputs.distances),
        psd_lengths=read_table(inputs.psd_lengths),
        psd_release=read_table(inputs.psd_release),
        standin=str(data.get("source", "")).startswith("spdp_standin"),
        why=(
            f"data differ: {data['source']} ({data['weeks']:.0f} weeks, meter {data['meter_id']}); the paper used "
            "one Pecan Street home (not public); the stand-in source spdp_standin makes these rows comparable"
        ),
        n_eval=int(data["n_samples"]) - _samples(cfg["streaming"]["burn_in_hours"], cal["fs_per_hour"]),
        ours_note=(
            f"our-B variant: B_SpDP {fmt(cal['b_spdp'], 3)} kW^2 h, B_TrDP {fmt(cal['trdp']['4h']['b'], 3)} / "
            f"{fmt(cal['trdp']['1week']['b'], 3)} kW (see the b_* rows); the paper-parameter variant is in the "
            "*_paper_b rows"
        ),
        paper_b=paper_b,
        paper_b_notes=paper_b_notes,
        trdp_4h_expected=trdp_expected_metrics(
            mean_p, std_p, trajectory_sigma(pp["b_trdp_4h"], eps, pp["trdp_delta"], "proposition1")
        ),
        privacy_audits=read_table(inputs.privacy_audits),
    )

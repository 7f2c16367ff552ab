"""Why our spdp numbers differ from the paper's: every table of workflow/papers/spdp/spdp.md ("Fidelity") for one home's
series.

Parker, Hale, Barooah, *Spectral Differential Privacy*, Tables I-III, Sec. IV-A. :func:`fidelity_job` (the rule
body of ``spdp_fidelity``) writes them; :func:`fidelity_tables`
assembles the rows of :mod:`dpgrid.papers.spdp.fidelity_calibration` (printed TrDP rows, window evidence,
B readings, exact delta audit) and :mod:`dpgrid.papers.spdp.fidelity_sweeps` (SpDP construction variants,
data sweep).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pandas as pd

from dpgrid.core.io import read_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.papers.spdp.calibration_sweep import sigma_formula
from dpgrid.papers.spdp.fidelity_calibration import (
    PRINTED_TRDP,
    TRDP_CALIBRATIONS,
    b_reading_rows,
    delta_audit_rows,
    trdp_printed_check,
    window_evidence,
)
from dpgrid.papers.spdp.fidelity_sweeps import RngFactory, data_sweep_rows, spdp_params_variants, spdp_variant_rows
from dpgrid.papers.spdp.home_series import evaluation_context
from dpgrid.papers.spdp.paper import PAPER, PAPER_VALUES
from dpgrid.papers.spdp.pipeline import SpDPParams


def fidelity_tables(
    x,
    fs_per_hour: float,
    params: SpDPParams,
    *,
    paper: dict,
    b_ours: dict,
    eval_slice: slice,
    variants,
    n_seeds: int,
    rng_for: RngFactory,
    trdp_calibration: str,
    spdp_weeks: tuple[int, int] = (7, 12),
    spdp_step_days: float = 7.0,
    make_series: Callable[[float, str], np.ndarray] | None = None,
    shares=(),
    heatings=(),
    printed_sensitive: tuple[float, float] = (1.73, 1.74),
    printed_trdp_1week: tuple[float, float] = (-0.015, 3.38),
) -> dict[str, list[dict]]:
    """Every fidelity table of workflow/papers/spdp/spdp.md for one home's series ``x``.

    ``paper``: {b_spdp, b_trdp_4h, b_trdp_1week, trdp_delta}; ``b_ours``: {b_spdp, b_trdp_4h, b_trdp_1week}
    from the calibration job. Returns {table name: rows}: ``trdp_printed``, ``window_evidence``,
    ``b_readings``, ``spdp_variants``, ``data_sweep`` (empty without ``make_series``), ``exact_delta``.
    """
    x = np.asarray(x, dtype=float)
    mean_p, std_p = printed_sensitive
    out: dict[str, list[dict]] = {}
    rows = []
    for name, key in (("4h", "b_trdp_4h"), ("1week", "b_trdp_1week")):
        for r in trdp_printed_check(
            mean_p, std_p, paper[key], PRINTED_TRDP[name], eps=params.eps, calibrations=TRDP_CALIBRATIONS
        ):
            rows.append({"series": f"trdp_{name}", **r})
    out["trdp_printed"] = rows
    n_eval = eval_slice.stop - eval_slice.start
    rows = []
    for name, delta in (("proposition1", paper["trdp_delta"]), ("classical", params.delta)):
        sigma = sigma_formula(name, paper["b_trdp_1week"], params.eps, delta)
        for r in window_evidence(std_p, sigma, mean_p, *printed_trdp_1week, (288, 7 * 288, n_eval)):
            rows.append({"calibration": f"{name}@{delta:g}", "sigma_kw": sigma, **r})
    out["window_evidence"] = rows
    k = {"4h": round(4 * fs_per_hour), "1week": round(168 * fs_per_hour), "k576": 576}
    out["b_readings"] = b_reading_rows(
        x,
        fs_per_hour,
        trdp_samples=k,
        spdp_weeks=spdp_weeks,
        spdp_step_days=spdp_step_days,
        estimators={
            "two_sided": replace(params, onesided=False).estimator(fs_per_hour),
            "one_sided": replace(params, onesided=True).estimator(fs_per_hour),
        },
        paper_b={
            "4h": paper["b_trdp_4h"],
            "1week": paper["b_trdp_1week"],
            "k576": paper["b_trdp_4h"],
            "spdp": paper["b_spdp"],
        },
    )
    vs = spdp_params_variants(params, variants)
    rows = spdp_variant_rows(x, fs_per_hour, vs, paper["b_spdp"], eval_slice, rng_for, n_seeds, tag="paper_b")
    rows += spdp_variant_rows(
        x, fs_per_hour, {"base": params}, b_ours["b_spdp"], eval_slice, rng_for, n_seeds, tag="ours"
    )
    out["spdp_variants"] = rows
    out["data_sweep"] = (
        []
        if make_series is None
        else data_sweep_rows(
            make_series,
            fs_per_hour,
            params,
            paper["b_spdp"],
            shares=shares,
            heatings=heatings,
            eval_slice=eval_slice,
            rng_for=rng_for,
            n_seeds=n_seeds,
        )
    )
    trdp = [
        ("4 h, ours", b_ours["b_trdp_4h"], trdp_calibration, params.delta),
        ("1 week, ours", b_ours["b_trdp_1week"], trdp_calibration, params.delta),
        ("4 h, classical", b_ours["b_trdp_4h"], "classical", params.delta),
        ("4 h, paper B and printed sigma", paper["b_trdp_4h"], "proposition1", paper["trdp_delta"]),
        ("4 h, analytic Gaussian", b_ours["b_trdp_4h"], "analytic", params.delta),
    ]
    rows = delta_audit_rows(params, b_ours["b_spdp"], trdp)
    if params.noise_scaling != "marginal":
        rows += delta_audit_rows(replace(params, noise_scaling="marginal"), b_ours["b_spdp"], [])
    out["exact_delta"] = rows
    return out


def fidelity_job(job) -> None:
    """The fidelity sweeps and audits of workflow/papers/spdp/spdp.md ("Fidelity"): see :func:`fidelity_tables`.

    Outputs (one CSV each): trdp_printed, window_evidence, b_readings, spdp_variants, data_sweep, exact_delta.
    The data sweep regenerates the stand-in home (same data stream as the meter_data job) for each HVAC
    share and heating fuel; it is empty when the data source is not ``spdp_standin``.
    """
    from dataclasses import replace

    from dpgrid.papers.spdp.standin import home_from_spec, standin_series

    cfg, seed, _, _, x, fs, ev = evaluation_context(job)
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
                job_rng(job.params.data_seed, "data", job.params.data_source),
            )[0]

    c = cfg["calibration"]
    tables = fidelity_tables(
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

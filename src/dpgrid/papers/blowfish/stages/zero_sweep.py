"""blowfish's zero-probability sweep: one job per clipping threshold (``zero_sweep_threshold_job``), merged by
``zero_sweep_job``, which also draws the example days of the lambda figure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.core.sweeps import concat_sweep_points
from dpgrid.models import occupancy as occ
from dpgrid.papers.blowfish.day import day_profile, day_summary, seeded_day, settings_from_config
from dpgrid.papers.blowfish.paper import PAPER


def _zero_sweep_initials(sw: Mapping[str, Any]) -> list[str]:
    labels = [_initial_label(init) for init in sw["initial_distributions"]]
    if len(set(labels)) != len(labels):
        raise ValueError(f"config: field blowfish.zero_sweep.initial_distributions has duplicate settings {labels}")
    return labels


#: day-summary columns of the zero-probability sweep averaged over the sweep seeds in the per-threshold table
ZERO_SWEEP_MEANS = (
    "frac_households_zero_transition",
    "steps_lambda_zero",
    "min_kappa",
    "mean_kappa_fraction",
    "mean_lambda_ratio",
    "ratio_expected",
    "ratio_printed",
)
#: day-summary columns of the sweep's per-run table
ZERO_SWEEP_COLUMNS = (
    *ZERO_SWEEP_MEANS,
    "expected_rmsre_printed_blowfish",
    "expected_rmsre_printed_naive",
    "rmsre_printed_blowfish",
    "rmsre_printed_naive",
)


def zero_sweep_threshold_job(job) -> None:
    """One clipping threshold (wildcard ``threshold``) of the zero-probability sweep: every initial law x sweep seed,
    per-day rows and their (initial law, threshold) means.

    Every (threshold, initial law) point of one seed index k uses the same random stream
    ``job_rng(seed, "blowfish", "zero_sweep", k)`` (paired comparison): only the zero pattern changes
    along the sweep, and no job's draws depend on another job.
    """
    base = settings_from_config(job.params.cfg)
    sw = job.params.cfg["zero_sweep"]
    _zero_sweep_initials(sw)
    th = float(job.params.threshold)
    try:
        clip = occ.ClippingRule("threshold", th)
    except ValueError as exc:
        raise ValueError(f"config: field blowfish.zero_sweep.thresholds: {exc}") from None
    rows = []
    for init in sw["initial_distributions"]:
        s = replace(base, clipping=clip, initial_mode=str(init["mode"]), initial_p=float(init["occupied_probability"]))
        for k in range(int(sw["seeds"])):
            summ = day_summary(seeded_day(s, job.params.data_seed, job.params.seed, (PAPER, "zero_sweep", k)), s)
            rows.append(
                {
                    "initial": _initial_label(init),
                    "threshold": th,
                    "seed": k,
                    **{key: summ[key] for key in ZERO_SWEEP_COLUMNS},
                }
            )
    runs = pd.DataFrame(rows)
    write_table(runs, job.output.runs)
    agg = []
    for (init, t), g in runs.groupby(["initial", "threshold"], sort=False):
        row = {"initial": init, "threshold": t, "seeds": len(g)}
        for col in ZERO_SWEEP_MEANS:
            row[f"{col}_mean"] = g[col].mean()
        row["ratio_printed_std"] = g["ratio_printed"].std(ddof=1) if len(g) > 1 else 0.0
        agg.append(row)
    write_table(pd.DataFrame(agg), job.output.table)


def zero_sweep_job(job) -> None:
    """Merge the per-threshold tables of rule blowfish_zero_sweep_threshold in (initial law, threshold, seed)
    order, and draw the example days of the lambda figure (sweep seed 0)."""
    base = settings_from_config(job.params.cfg)
    sw = job.params.cfg["zero_sweep"]
    initials = _zero_sweep_initials(sw)
    thresholds = [float(th) for th in sw["thresholds"]]
    for key in ("runs", "table"):
        merged = concat_sweep_points(
            list(getattr(job.input, key)), "threshold", thresholds, "blowfish.zero_sweep.thresholds"
        )
        # per threshold file: initial law, then seed; the merged tables run initial law, threshold, seed
        order = merged["initial"].map({lab: i for i, lab in enumerate(initials)})
        if order.isna().any():
            raise ValueError(
                f"{list(getattr(job.input, key))}: field 'initial' has values "
                f"{sorted(set(merged['initial']) - set(initials))} not in config field "
                "blowfish.zero_sweep.initial_distributions"
            )
        write_table(merged.iloc[np.argsort(order.to_numpy(), kind="stable")], getattr(job.output, key))
    profiles = []
    for ex in sw["examples"]:
        s_ex = replace(
            base,
            clipping=occ.ClippingRule("threshold", float(ex["threshold"])),
            initial_mode=str(ex["initial_distribution"]["mode"]),
            initial_p=float(ex["initial_distribution"]["occupied_probability"]),
        )
        day = seeded_day(s_ex, job.params.data_seed, job.params.seed, (PAPER, "zero_sweep", 0))
        prof = day_profile(day, s_ex, 0)
        prof.insert(0, "setting", f"{_initial_label(ex['initial_distribution'])}, threshold {float(ex['threshold']):g}")
        profiles.append(prof)
    write_table(pd.concat(profiles, ignore_index=True), job.output.example)


def _initial_label(init: Mapping[str, Any]) -> str:
    if init["mode"] == "fixed":
        return f"fixed p={float(init['occupied_probability']):g}"
    return "cyclostationary"

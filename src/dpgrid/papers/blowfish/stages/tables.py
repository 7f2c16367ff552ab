"""blowfish's RMSRE and adversary tables: the seeded runs' summaries, spread over the seeds."""

from __future__ import annotations

import pandas as pd

from dpgrid.core.io import read_table, write_table
from dpgrid.papers.blowfish.day import MECHANISMS


def _spread(values: pd.Series) -> dict[str, float]:
    v = values.astype(float)
    return {"mean": v.mean(), "std": v.std(ddof=1) if len(v) > 1 else 0.0, "min": v.min(), "max": v.max(), "n": len(v)}


def tables_job(job) -> None:
    """RMSRE table (printed formula, plain RMS, expected) and adversary table, spread over seeds."""
    runs = read_table(job.input.runs)
    rows = []
    for metric in ("rmsre_printed", "rms_relative", "expected_rmsre_printed"):
        for m in MECHANISMS:
            rows.append({"metric": metric, "mechanism": m, **_spread(runs[f"{metric}_{m}"])})
    for metric in ("ratio_printed", "ratio_expected"):
        rows.append({"metric": metric, "mechanism": "naive/blowfish", **_spread(runs[metric])})
    rows.append(
        {
            "metric": "fraction_seeds_blowfish_leq_naive_sampled",
            "mechanism": "blowfish",
            **_spread((runs["rmsre_printed_blowfish"] <= runs["rmsre_printed_naive"]).astype(float)),
        }
    )
    for metric in ("eps_per_step", "eps_total_theorem2", "steps_lambda_zero", "min_kappa", "mean_lambda_ratio"):
        rows.append({"metric": metric, "mechanism": "blowfish", **_spread(runs[metric])})
    write_table(pd.DataFrame(rows), job.output.rmsre)
    adv = read_table(job.input.adversary)
    out = []
    for (pop, n, filt, release), g in adv.groupby(["population", "households", "filter", "release"], sort=False):
        row = {"population": pop, "households": n, "filter": filt, "release": release}
        for col in ("accuracy_prior", "accuracy_posterior", "accuracy_gain", "information_gain_bits"):
            sp = _spread(g[col])
            row[f"{col}_mean"], row[f"{col}_std"] = sp["mean"], sp["std"]
        row["seeds"] = len(g)
        out.append(row)
    write_table(pd.DataFrame(out), job.output.adversary)

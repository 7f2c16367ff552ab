"""Figs. 12-13 of the dpkmeans paper: voltage histograms on the two feeders, from the OPF result tables."""

from __future__ import annotations

import numpy as np

from dpgrid.core.io import read_table
from dpgrid.figures.layout import data_statement, describe_data, place_legend
from dpgrid.figures.style import PALETTE, draw_figure, figure
from dpgrid.grid.opf import failure_summary
from dpgrid.grid.voltage_stats import QUANTITIES, common_converged_hours
from dpgrid.papers.dpkmeans.opf.paper import FEEDER_TITLE, VOLT_DTYPES


def voltage_histograms(inp, params):
    """Fig. 12 / 13: histograms of voltage magnitude and angle, true vs synthetic (converged hours)."""
    feeder = params.feeder
    volt = read_table(inp.voltages, dtype=VOLT_DTYPES)
    status = read_table(inp.status, dtype=VOLT_DTYPES)
    hours = common_converged_hours(status)
    n_bins = int(params.bins)
    fig, axes = figure(1, 2, width=7.5, height=3.0, layout="constrained")
    for ax, (q, label) in zip(axes, QUANTITIES.items()):
        data = {p: volt[(volt.profiles == p) & volt.hour.isin(hours)][q].to_numpy(float) for p in ("true", "synthetic")}
        allv = np.concatenate(list(data.values()))
        if allv.size:
            lo, hi = float(allv.min()), float(allv.max())
            bins = np.linspace(lo, hi if hi > lo else lo + 1e-6, n_bins + 1)
            for p, v in data.items():
                ax.hist(
                    v,
                    bins=bins,
                    density=True,
                    histtype="step" if p == "true" else "stepfilled",
                    alpha=1.0 if p == "true" else 0.45,
                    color=PALETTE[p],
                    linewidth=1.3,
                    label=f"{p} profiles",
                    zorder=3 if p == "true" else 2,
                )
        ax.set_xlabel(label)
        ax.set_ylabel("density")
    lines = [f"{FEEDER_TITLE.get(feeder, feeder)}: {converged_title(status, len(hours))}"]
    taps = regulator_taps_title(feeder, status)
    if taps:
        lines.append(taps)
    failed = failure_summary(status)
    if failed:
        lines.append(f"not converged: {failed}")
    fig.suptitle("\n".join(lines), fontsize=9)
    place_legend(axes[0])
    data_statement(
        fig,
        f"Data: true and DP synthetic load profiles of {describe_data(params.data)}, assigned to the loads of "
        f"feeder {feeder}; hourly AC OPF snapshots, {len(hours)} hours in the histograms.",
    )
    return fig


def converged_title(status, n_common: int) -> str:
    """How many hourly snapshots converged, per profile set when the sets differ, and how many hours the
    histograms use (those converged for every set)."""
    per_set = status.groupby("profiles", sort=False)["converged"].agg(lambda c: int(c.astype(bool).sum()))
    totals = status.groupby("profiles", sort=False).size()
    if (per_set == n_common).all() and totals.nunique() == 1:
        return f"{n_common} of {int(totals.iloc[0])} hourly OPF snapshots converged for every profile set"
    counts = ", ".join(f"{p} {int(per_set[p])}/{int(totals[p])}" for p in per_set.index)
    return f"hourly OPF snapshots converged: {counts}; histograms over the {n_common} hours converged for every set"


def regulator_taps_title(feeder: str, status) -> str:
    """How the feeder's voltage-regulator taps were set (ieee123; "" for a feeder without regulators), read
    from the status table: ``regulator_taps`` is filled per snapshot when OpenDSS solved them
    (``grid.feeders.ieee123.regulator_taps: per_snapshot``) and empty when the import's taps were kept."""
    if feeder != "ieee123":
        return ""
    taps = status["regulator_taps"].fillna("").astype(str) if "regulator_taps" in status else None
    if taps is None or not (taps != "").any():
        return "regulator taps fixed at OpenDSS's base-case solution for every snapshot (regulator_taps: base_case)"
    return "regulator taps solved per snapshot by the feeder's OpenDSS RegControls (regulator_taps: per_snapshot)"


FIGURES = {"fig12": voltage_histograms, "fig13": voltage_histograms}


def figure_job(job) -> None:
    draw_figure(FIGURES, job)

"""Figs. 12-13 of the dpkmeans paper: voltage histograms on the two feeders, from the OPF result tables."""

from __future__ import annotations

import numpy as np

from dpgrid.experiments.opf.paper import FEEDER_TITLE, VOLT_DTYPES
from dpgrid.figures.style import PALETTE, draw_figure, figure
from dpgrid.grid.opf import failure_summary
from dpgrid.grid.voltage_stats import QUANTITIES, common_converged_hours
from dpgrid.io import read_table


def voltage_histograms(inp, params):
    """Fig. 12 / 13: histograms of voltage magnitude and angle, true vs synthetic (converged hours)."""
    feeder = params.feeder
    volt = read_table(inp.voltages, dtype=VOLT_DTYPES)
    status = read_table(inp.status, dtype=VOLT_DTYPES)
    hours = common_converged_hours(status)
    n_bins = int(params.bins)
    fig, axes = figure(1, 2, width=7.0, height=2.8)
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
    axes[0].legend(loc="upper left")
    n_total = status.groupby("profiles").size().max()
    failed = failure_summary(status)
    fig.suptitle(
        f"{FEEDER_TITLE.get(feeder, feeder)}: {len(hours)} of {n_total} hourly OPF snapshots "
        f"converged for every profile set" + (f"\nnot converged: {failed}" if failed else ""),
        fontsize=9,
    )
    if failed:
        fig.subplots_adjust(top=0.80)  # room for the second title line
    return fig


FIGURES = {"fig12": voltage_histograms, "fig13": voltage_histograms}


def figure_job(job) -> None:
    draw_figure(FIGURES, job)

"""The peers figure: Fig. 9 (centre) of the dpkmeans paper with the peers, from the result tables only."""

from __future__ import annotations

import numpy as np

from dpgrid.core.io import read_table
from dpgrid.figures.layout import data_statement, place_legend
from dpgrid.figures.style import PALETTE, draw_figure, figure

COLORS = {
    "colored": PALETTE["proposed"],
    "white": PALETTE["white"],
    "yu2016": "C2",
    "balcan2017": "C3",
    "ni2021": "C4",
    "cedskmeans": "#8c564b",
    "diffprivlib": "#17becf",
}
LABELS = {
    "colored": "colored (dpgrid)",
    "white": "white (dpgrid)",
    "cedskmeans": "CEDSKMeans (authors' code)",
    "diffprivlib": "diffprivlib KMeans",
}
STYLE = {"colored": "o-", "white": "x-.", "cedskmeans": "s--", "diffprivlib": "D--"}
FLOOR = 1e-12  # log axes: losses/errors at or below this are drawn at the floor


def fig9_peers(inp, params):
    acc = read_table(inp.accuracy)
    t = read_table(inp.table)
    fig, ax = figure(1, 3, width=12.0, height=4.2, layout="constrained")
    # centre panel of Fig. 9, with the peers
    for m, g in acc.groupby("method", sort=False):
        ax[0].loglog(
            g["eps_c"],
            g["mean_loss"].clip(lower=FLOOR),
            "o-",
            ms=3,
            color=COLORS.get(m),
            label=LABELS.get(m, m),
            alpha=1.0 if m in ("colored", "white") else 0.5,
        )
    for m in ("cedskmeans", "diffprivlib"):
        g = t[t["method"] == m]
        ax[0].loglog(
            g["eps_c"], g["dp_accuracy_loss"].clip(lower=FLOOR), STYLE[m], ms=4, color=COLORS[m], label=LABELS[m]
        )
    ax[0].set(xlabel="eps_c (stated)", ylabel="DP accuracy loss", title="Fig. 9 centre with the peers")
    # centroid error
    for m, g in t.groupby("method", sort=False):
        ax[1].loglog(
            g["eps_c"],
            g["centroid_error_kw"].clip(lower=FLOOR),
            STYLE[m],
            ms=4,
            color=COLORS.get(m),
            label=LABELS.get(m, m),
        )
    ax[1].set(xlabel="eps_c (stated)", ylabel="centroid error (kW, RMS over clusters)", title="centroid error")
    # epsilon actually spent
    eps = np.array(sorted(t["eps_c"].unique()))
    ax[2].loglog(eps, eps, "-", color="0.8", lw=4, label="spent = stated")
    for m, g in t.groupby("method", sort=False):
        ax[2].loglog(g["eps_c"], g["eps_spent"], STYLE[m], ms=4, color=COLORS.get(m), label=LABELS.get(m, m))
        if m == "cedskmeans":
            ax[2].loglog(
                g["eps_c"], g["eps_calibrated"], "^:", ms=3, color=COLORS[m], label="CEDSKMeans: eps it calibrates"
            )
    delta = float(t.loc[t["method"] == "colored", "delta_c"].iloc[0])
    ax[2].set(
        xlabel="eps_c (stated)",
        ylabel="eps spent",
        title=f"eps spent (Gaussian: exact at delta_c = {delta:g}; diffprivlib: composed)",
    )
    n = t.loc[t["method"] == "cedskmeans", "n_runs"]
    fig.suptitle(
        f"Peers on the Fig. 9 clustering ({int(n.iloc[0]) if len(n) else 0} runs per peer and eps_c); "
        "Gaussian noise: exact tails over dpgrid's leave-one-out shifts",
        fontsize=9,
    )
    for a in ax:
        place_legend(a, fontsize=6)
    data_statement(
        fig,
        "Data: the Fig. 9 clustering's meters (results/dpkmeans/fig9_accuracy.csv; the peers on the same "
        "profiles, results/peers/table.csv).",
    )
    return fig


FIGURES = {"fig9_peers": fig9_peers}


def figure_job(job) -> None:
    draw_figure(FIGURES, job)

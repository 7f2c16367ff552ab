"""Figures of the spdp paper (Figs. 1-4, 6 and the duration sweep), drawn from the result tables only."""

from __future__ import annotations

import numpy as np

from dpgrid.experiments.spdp.paper import RELEASES
from dpgrid.figures.style import PALETTE, draw_figure, figure
from dpgrid.io import read_json, read_table


def fig1(inp, params):
    trace = read_table(inp.trace)
    dist = read_table(inp.distances)
    fig, ax = figure(1, 2, width=8.0, height=3.0)
    t = np.arange(len(trace)) / read_json(inp.calibration)["fs_per_hour"] / 24
    ax[0].plot(t, trace["kw"], color=PALETTE["true"], lw=0.6)
    ax[0].set(xlabel="time (days)", ylabel="demand d (kW)", title="(a) a consumer's power demand")
    ax[1].plot(dist["hours"] / 24, dist["time_distance_kw"], "o-", color=PALETTE["trdp"])
    ax[1].set(xscale="log", xlabel="duration K (days)", ylabel="D(K) (kW)",
              title="(b) ||d(1:K) - d(K+1:2K)||")
    return fig


def fig2(inp, params):
    p = read_table(inp.psd_lengths)
    fig, ax = figure()
    for col in [c for c in p.columns if c.startswith("psd_")]:
        ax.semilogy(p["frequency_per_hour"], p[col], lw=0.9, label=col.removeprefix("psd_").replace("d", " days"))
    ax.set(xlabel="frequency (1/hour)", ylabel="PSD (kW$^2$ h)", title="PSD estimates from data of varying length")
    ax.legend()
    return fig


def fig3(inp, params):
    d = read_table(inp.distances).dropna()
    fig, ax = figure()
    ax.plot(d["hours"] / 24, d["time_distance_kw"], "o-", color=PALETTE["trdp"], label="time domain (kW)")
    ax.plot(d["hours"] / 24, d["psd_distance_kw2h"], "s-", color=PALETTE["spdp"], label="PSD (kW$^2$ h)")
    ax.set(xscale="log", yscale="log", xlabel="data duration (days)", ylabel="2-norm distance",
           title="distance between consecutive windows")
    ax.legend()
    return fig


def fig4(inp, params):
    p = read_table(inp.psd)
    fig, ax = figure()
    ax.semilogy(p["frequency_per_hour"], p["phi"], color=PALETTE["true"], label=r"sensitive $\phi$")
    ax.semilogy(p["frequency_per_hour"], p["phi_tilde"], color=PALETTE["spdp"], label=r"privatised $\tilde\phi$")
    ax.semilogy(p["frequency_per_hour"], p["released_psd_estimate"], color=PALETTE["no_noise"], lw=0.8,
                ls="--", label="PSD of released series")
    ax.set(xlabel="frequency (1/hour)", ylabel="PSD (kW$^2$ h)", title="SpDP mechanism (Algorithm 1)")
    ax.legend()
    return fig


def fig6(inp, params):
    z = np.load(inp.series)
    fig, ax = figure(3, 1, width=5.5, height=7.0, sharex=True)
    titles = {"spdp": "(a) SpDP", "trdp_4h": "(b) TrDP, 4 hours", "trdp_1week": "(c) TrDP, 1 week"}
    for a, name_ in zip(ax, RELEASES):
        a.plot(z["hours"], z[name_], color=PALETTE["spdp" if name_ == "spdp" else "trdp"], lw=0.8, label="released")
        a.plot(z["hours"], z["sensitive"], color=PALETTE["true"], lw=1.0, label="sensitive d")
        a.set(ylabel="kW", title=titles[name_])
        a.legend(loc="upper right")
    ax[-1].set_xlabel("time (hours)")
    return fig


def fig_duration_sweep(inp, params):
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
    return fig


FIGURES = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4, "fig6": fig6, "fig_duration_sweep": fig_duration_sweep}


def figure_job(job) -> None:
    draw_figure(FIGURES, job)

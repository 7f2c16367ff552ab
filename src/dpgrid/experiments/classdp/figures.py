"""Figures of the classdp paper (Figs. 1-4), drawn from the result tables only."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpgrid.experiments.classdp.paper import ClassdpConfigError
from dpgrid.figures.style import CYCLE, PALETTE, draw_figure, figure
from dpgrid.io import read_table
from dpgrid.mechanisms.gaussian_class import load_class_model


def _curve_panels(df: pd.DataFrame, rhos, title_fmt: str, eps_label="$\\epsilon$",
                  full_range: bool = True) -> None:
    """One panel per rho: no-noise, white and proposed delta(eps); y axis [0, 1] or zoomed to the data."""
    n = len(rhos)
    ncols = 2 if n > 1 else 1
    nrows = int(math.ceil(n / ncols))
    fig, axes = figure(nrows, ncols, sharex=True, sharey=full_range)
    axes = np.atleast_1d(axes).ravel()
    base = df[df["mechanism"] == "no_noise"].sort_values("epsilon")
    for ax, rho in zip(axes, rhos):
        ax.plot(base["epsilon"], base["delta"], color=PALETTE["no_noise"], ls="--", label="no noise")
        for name, lab in (("white", "white noise"), ("proposed", "proposed")):
            d = df[(df["mechanism"] == name) & np.isclose(df["rho"], rho)].sort_values("epsilon")
            ax.plot(d["epsilon"], d["delta"], color=PALETTE[name], label=lab)
        ax.set_title(title_fmt.format(rho=rho))
        if full_range:
            ax.set_ylim(-0.02, 1.02)
    for ax in axes[len(rhos):]:
        ax.set_visible(False)
    for ax in axes[-ncols:]:
        ax.set_xlabel(eps_label)
    for ax in axes[::ncols]:
        ax.set_ylabel("$\\delta$")
    axes[0].legend(loc="lower left")
    return fig


def fig1(inp, params):
    """Fig. 1: contours of the synthetic classes' query densities (no noise and proposed release)."""
    from scipy import stats

    model = load_class_model(inp.model)
    with np.load(inp.mechanisms, allow_pickle=False) as z:
        noise, rho = z["proposed"], float(z["rho"])
    if model.k != 2:
        raise ClassdpConfigError(f"Fig. 1 needs 2-D queries; config classdp.synthetic.dim = {model.k}")
    fig, axes = figure(1, 2, sharex=True, sharey=True)
    span = np.sqrt(max(np.max(model.covs[:, 0, 0] + noise[:, 0, 0]), np.max(model.covs[:, 1, 1] + noise[:, 1, 1])))
    lo = model.means.min(0) - 3 * span
    hi = model.means.max(0) + 3 * span
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], 200), np.linspace(lo[1], hi[1], 200))
    pts = np.dstack([gx, gy])
    for ax, extra, title in ((axes[0], 0 * noise, "query q (no noise)"), (axes[1], noise, f"released q~ (proposed, rho = {rho:g})")):
        for i in range(model.n):
            dist = stats.multivariate_normal(model.means[i], model.covs[i] + extra[i])
            peak = dist.pdf(model.means[i])
            ax.contour(gx, gy, dist.pdf(pts), levels=peak * np.array([0.05, 0.25, 0.6]), colors=CYCLE[i % len(CYCLE)], linewidths=0.9)
            ax.plot(*model.means[i], "o", color=CYCLE[i % len(CYCLE)], ms=3, label=model.label(i))
        ax.set_title(title)
        ax.set_xlabel("$q_1$")
    axes[0].set_ylabel("$q_2$")
    axes[0].legend(loc="upper left")
    return fig


def fig2(inp, params):
    """Fig. 2: (eps, delta) curves on the synthetic data for each rho."""
    df = read_table(inp.curves)
    return _curve_panels(df, params.rhos, "synthetic, $\\rho$ = {rho:g}")


def fig4(inp, params):
    """Fig. 4: (eps, delta) curves of the household forecasts for each rho."""
    df = read_table(inp.curves)
    # y axis zoomed to the data: on our households every curve lies close to 1
    return _curve_panels(df, params.rhos, "forecasts, $\\rho$ = {rho:g}", full_range=False)


def fig3(inp, params):
    """Fig. 3: three houses' past 24 h, truth, ARMA forecast and released forecast (kW)."""
    series = read_table(inp.series, dtype={"meter_id": str})
    mse = read_table(inp.table_mse, dtype={"meter_id": str})
    series["timestamp"] = pd.to_datetime(series["timestamp"])
    fig, axes = figure(len(mse), 1, width=5.5, height=2.0 * len(mse), sharex=True)
    axes = np.atleast_1d(axes)
    styles = {"past": dict(color="#9a9a9a", label="past 24 h"), "truth": dict(color="#d62728", label="truth"),
              "forecast": dict(color="#ff7f0e", label="ARMA forecast"),
              "released": dict(color="#1f77b4", label="released forecast")}
    for ax, (_, row) in zip(axes, mse.iterrows()):
        s = series[series["meter_id"] == row["meter_id"]]
        for kind, st in styles.items():
            d = s[s["kind"] == kind]
            ax.plot(d["timestamp"], d["kw"], **st)
        ax.set_title(f"{row['house']} ({row['meter_id']}): normalised MSE of release {row['nmse_proposed']:.3g}")
        ax.set_ylabel("kW")
    r = mse.iloc[0]
    axes[0].legend(loc="upper left", ncol=2)
    fig.suptitle(f"$\\rho$ = {r['rho']:g}, ($\\epsilon$, $\\delta$) = ({r['epsilon']:g}, {r['delta']:.4f})", y=1.0)
    fig.autofmt_xdate()
    return fig


FIGURES = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4}


def figure_job(job) -> None:
    draw_figure(FIGURES, job)

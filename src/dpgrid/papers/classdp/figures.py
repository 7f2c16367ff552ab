"""Figures of the classdp paper (Figs. 1-4), drawn from the result tables only."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpgrid.core.io import read_json, read_table
from dpgrid.figures.layout import data_statement, place_legend
from dpgrid.figures.readable import (
    choose_delta_scale,
    delta_for_axis,
    format_delta_axis,
    paper_markers,
    plain_text,
)
from dpgrid.figures.style import CYCLE, PALETTE, draw_figure, figure
from dpgrid.mechanisms.gaussian_class import load_class_model
from dpgrid.papers.classdp.paper import (
    CALIBRATION_TARGET,
    FIG3,
    FIG3_NMSE,
    FIG3_POINT,
    FIG4_POINTS,
    NO_NOISE_DELTA,
    PLAIN_MSE,
    STANDIN_SOURCE,
    ClassdpConfigError,
)


def _shade(ax, band: pd.DataFrame | None, name: str, rho: float | None, scale, floor: float) -> None:
    """Shade the range over the replicates of mechanism ``name``'s curve at ``rho`` (None: no noise), if a band is
    given (columns mechanism, rho, epsilon, low, high)."""
    if band is None:
        return
    rows = band[band["mechanism"] == name]
    rows = (rows if rho is None else rows[np.isclose(rows["rho"], rho)]).sort_values("epsilon")
    ax.fill_between(
        rows["epsilon"],
        delta_for_axis(rows["low"], scale, floor=floor),
        delta_for_axis(rows["high"], scale, floor=floor),
        color=PALETTE[name],
        alpha=0.18,
        lw=0,
        zorder=1,
    )


def _curve_panels(
    df: pd.DataFrame,
    rhos,
    title_fmt: str,
    eps_label="$\\epsilon$",
    *,
    paper_points=(),
    paper_no_noise: float | None = None,
    calibration=None,
    caption: str = "",
    floor: float = 1e-8,
    band: pd.DataFrame | None = None,
):
    """One panel per rho: no-noise, white and proposed delta(eps), and the paper's printed points ("paper").

    ``band`` (columns mechanism, rho, epsilon, low, high; rho empty for no noise): each curve's range over the
    replicates, shaded around it (the figures over seeds, whose curves are the replicates' medians).

    y axis: delta on [0, 1] (the paper's axis) unless every delta is above 0.95, then 1 - delta on a log axis
    (:mod:`dpgrid.figures.readable`; values below the evaluator's accuracy ``floor`` drawn at floor), so the
    panels stay readable for any data (no offset notation when every curve sits at 1 - 1e-7).
    """
    n = len(rhos)
    ncols = 2 if n > 1 else 1
    nrows = int(math.ceil(n / ncols))
    fig, axes = figure(nrows, ncols, sharex=True, sharey=True)
    axes = np.atleast_1d(axes).ravel()
    scale = choose_delta_scale(df["delta"] if band is None else pd.concat([df["delta"], band["low"], band["high"]]))
    base = df[df["mechanism"] == "no_noise"].sort_values("epsilon")
    for ax, rho in zip(axes, rhos):
        _shade(ax, band, "no_noise", None, scale, floor)
        ax.plot(
            base["epsilon"],
            delta_for_axis(base["delta"], scale, floor=floor),
            color=PALETTE["no_noise"],
            ls="--",
            label="no noise",
        )
        # white wide and light under the proposed curve: where the two coincide both stay visible
        for name, lab, style in (
            ("white", "white noise", {"lw": 3.2, "alpha": 0.45, "zorder": 2}),
            ("proposed", "proposed", {"lw": 1.2, "zorder": 3}),
        ):
            d = df[(df["mechanism"] == name) & np.isclose(df["rho"], rho)].sort_values("epsilon")
            _shade(ax, band, name, rho, scale, floor)
            ax.plot(
                d["epsilon"], delta_for_axis(d["delta"], scale, floor=floor), color=PALETTE[name], label=lab, **style
            )
        if paper_no_noise is not None:
            paper_markers(
                ax,
                [base["epsilon"].min(), base["epsilon"].max()],
                [paper_no_noise] * 2,
                scale=scale,
                floor=floor,
                mec=PALETTE["no_noise"],
                label="paper: no noise",
            )
        for name in ("white", "proposed"):
            pts = [p for p in paper_points if p.mechanism == name and np.isclose(p.rho, rho)]
            if pts:
                paper_markers(
                    ax,
                    [p.epsilon for p in pts],
                    [p.value for p in pts],
                    scale=scale,
                    floor=floor,
                    mec=PALETTE[name],
                    label=f"paper: {name}",
                )
        if calibration is not None and np.isclose(calibration.rho, rho):
            paper_markers(
                ax,
                [calibration.epsilon],
                [calibration.value],
                scale=scale,
                floor=floor,
                mec=PALETTE[calibration.mechanism],
                mfc=PALETTE[calibration.mechanism],
                label="paper: calibration target",
            )
        ax.set_title(title_fmt.format(rho=rho))
        format_delta_axis(ax, scale, floor=floor)
    for ax in axes[len(rhos) :]:
        ax.set_visible(False)
    for ax in axes[-ncols:]:
        ax.set_xlabel(eps_label)
    for ax in axes[1::ncols]:
        ax.set_ylabel("")
    handles = {}
    for ax in axes[: len(rhos)]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    legend = fig.legend(
        list(handles.values()),
        list(handles.keys()),
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=min(4, len(handles)),
        fontsize=7,
        frameon=False,
    )
    fig.canvas.draw()
    below = legend.get_window_extent().transformed(fig.transFigure.inverted()).y0
    data_statement(fig, caption, y=below - 0.01)
    return fig


def data_caption(spec: dict | None, summary: dict | None = None) -> str:
    """Which data a forecast figure shows (the ``data.experiments`` entry of classdp.forecast.data_source).

    ``summary`` (forecast/model_summary.json) gives the households the forecast model read (``households``) and
    used (``used``): a ``csv`` or real-data source states no count in its spec, so without it the caption had
    none."""
    if not spec:
        return ""
    if spec["source"] == STANDIN_SOURCE:
        return (
            f"Data: paper-matched stand-in (dpgrid.papers.classdp.standin), {spec['n_residential']} households, "
            f"{spec['step_minutes']} min, {spec['n_clusters']} regions, within-cluster similarity "
            f"{spec['within_cluster_similarity']:g} (calibrated on the paper's white-noise delta "
            f"{CALIBRATION_TARGET.value:g} at rho = {CALIBRATION_TARGET.rho:g}, "
            f"eps = {CALIBRATION_TARGET.epsilon:g})."
        )
    # pseudo-meters are windows of one home's record, not meters of different homes
    unit = "pseudo-meters (windows of one home)" if spec.get("pseudo_meters") else "meters"
    if summary and "households" in summary:
        n_read, n_used = int(summary["households"]), int(summary.get("used", summary["households"]))
        n = f"{n_read} {unit}" + (f", {n_used} used" if n_used != n_read else "")
    else:
        n = spec.get("n_residential", spec.get("n_meters", spec.get("pseudo_meters")))
        n = f"{n} {unit}" if n is not None else "meter count not stated"
    return f"Data: {spec['source']} ({n}), not the paper's households."


def readable_delta(delta: float) -> str:
    """delta to 4 decimals, or ``1 - x`` where it would print as 1.0000 (on real data every delta can sit within
    1e-5 of 1: then 1 - delta is the readable part)."""
    return f"{delta:.4f}" if delta < 0.99995 else f"1 - {1.0 - delta:.2g}"


def _summary(inp) -> dict | None:
    """The forecast model's summary (households read / used), if the figure rule passes it."""
    path = getattr(inp, "summary", None) if not isinstance(inp, dict) else inp.get("summary")
    return read_json(path) if path else None


#: Data statement of the synthetic-class figures (Figs. 1-2).
SYNTHETIC_CAPTION = (
    "Data: Sec. VI-A's synthetic classes (4 labels, 2-D queries, Wishart(I, 2) covariances; the paper's draw is "
    "not printed)."
)


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
    for ax, extra, title in (
        (axes[0], 0 * noise, "query q (no noise)"),
        (axes[1], noise, f"released q~ (proposed, rho = {rho:g})"),
    ):
        for i in range(model.n):
            dist = stats.multivariate_normal(model.means[i], model.covs[i] + extra[i])
            peak = dist.pdf(model.means[i])
            ax.contour(
                gx,
                gy,
                dist.pdf(pts),
                levels=peak * np.array([0.05, 0.25, 0.6]),
                colors=CYCLE[i % len(CYCLE)],
                linewidths=0.9,
            )
            ax.plot(*model.means[i], "o", color=CYCLE[i % len(CYCLE)], ms=3, label=plain_text(model.label(i)))
        ax.set_title(title)
        ax.set_xlabel("$q_1$")
    axes[0].set_ylabel("$q_2$")
    place_legend(axes[0])
    data_statement(fig, SYNTHETIC_CAPTION)
    return fig


def fig2(inp, params):
    """Fig. 2: (eps, delta) curves on the synthetic data for each rho."""
    df = read_table(inp.curves)
    return _curve_panels(
        df,
        params.rhos,
        "synthetic, $\\rho$ = {rho:g}",
        floor=params.delta_tolerance,
        caption=SYNTHETIC_CAPTION,
    )


def _calibration_target(params):
    """The printed point the stand-in was calibrated on when the forecast data are the stand-in, else None."""
    return CALIBRATION_TARGET if params.data and params.data["source"] == STANDIN_SOURCE else None


def _fig4_panels(df, params, title: str, caption: str, target, band: pd.DataFrame | None = None):
    """Fig. 4's panels (one per rho of ``params.rhos``) with the paper's printed points; ``target`` is
    :func:`_calibration_target`'s, drawn filled and left out of the plain points."""
    return _curve_panels(
        df,
        params.rhos,
        title,
        paper_points=[p for p in (*FIG4_POINTS, FIG3_POINT) if p is not target],
        paper_no_noise=NO_NOISE_DELTA,
        calibration=target,
        caption=caption,
        floor=params.delta_tolerance,
        band=band,
    )


def fig4(inp, params):
    """Fig. 4: (eps, delta) curves of the household forecasts for each rho, with the paper's printed points."""
    target = _calibration_target(params)
    cap = (
        data_caption(params.data, _summary(inp))
        + " Diamonds: numbers printed in the paper (Sec. VI-B-2; no noise: 'delta is "
        "always 1'" + ("; filled: the calibration target" if target else "") + "; rho = 0.45, eps = 0.8: Fig. 3's "
        "release, which cannot lie on the same curve as the printed 0.84 at eps = 1)."
    )
    return _fig4_panels(read_table(inp.curves), params, "forecasts, $\\rho$ = {rho:g}", cap, target)


def fig4_over_seeds(inp, params):
    """Fig. 4 over the data replicates: each (eps, delta) curve's median over the replicates of the household data
    (stand-in population and class model drawn again), shaded between the lowest and highest replicate, with the
    paper's printed points. Reads the spread table of delta_curves.csv (dpgrid.core.spread)."""
    spread = read_table(inp.spread)
    spread = spread[spread["quantity"] == "delta"]
    n = sorted(set(spread["replicates"]))
    target = _calibration_target(params)
    cap = (
        data_caption(params.data)
        + f" Lines: the median over {', '.join(map(str, n))} draws of the data (docs/seeds.md); shaded: lowest to "
        "highest draw. Diamonds: numbers printed in the paper (Sec. VI-B-2)"
        + ("; filled: the calibration target, met by the run's own draw only" if target else "")
        + "."
    )
    df = spread.rename(columns={"median": "delta"})
    return _fig4_panels(df, params, "forecasts over data draws, $\\rho$ = {rho:g}", cap, target, band=spread)


#: the figures of the target over_seeds, drawn from spread tables (workflow rule classdp_figure_over_seeds)
FIGURES_OVER_SEEDS = {"fig4": fig4_over_seeds}


def fig_similarity_sweep(inp, params):
    """delta vs the stand-in's within-cluster similarity at the swept eps (one panel per mechanism), with the
    main run's value (the calibrated similarity) and the paper's printed deltas as reference lines."""
    sw = read_table(inp.sweep)
    cur = read_table(inp.curves)
    mechs = ("no_noise", "white", "proposed")
    fig, axes = figure(1, 3, sharey=True, width=9.6, height=3.2)
    spec = params.data or {}
    lam0 = spec.get("within_cluster_similarity")
    if sw.empty:
        for ax in axes:
            ax.text(
                0.5,
                0.5,
                "no sweep: the data source is not the stand-in",
                ha="center",
                va="center",
                transform=ax.transAxes,
                fontsize=7,
            )
        data_statement(fig, data_caption(spec, _summary(inp)) or "Data: not stated.")
        return fig
    allv = np.concatenate([sw["delta"].to_numpy(), cur["delta"].to_numpy()])
    scale = choose_delta_scale(allv)
    floor = params.delta_tolerance
    eps_list = sorted(sw["epsilon"].unique())
    styles = ["-", "--", ":", "-."]
    for ax, mech in zip(axes, mechs):
        rhos = [float("nan")] if mech == "no_noise" else list(params.rhos)
        for ci, rho in enumerate(rhos):
            for k, e in enumerate(eps_list):
                d = sw[(sw["mechanism"] == mech) & np.isclose(sw["epsilon"], e)]
                d = d[d["rho"].isna()] if mech == "no_noise" else d[np.isclose(d["rho"].astype(float), rho)]
                if lam0 is not None:  # the main run is the calibrated point of the sweep
                    c = cur[(cur["mechanism"] == mech) & np.isclose(cur["epsilon"], e)]
                    c = c[c["rho"].isna()] if mech == "no_noise" else c[np.isclose(c["rho"].astype(float), rho)]
                    if len(c):
                        d = pd.concat(
                            [
                                d[["similarity", "delta"]],
                                pd.DataFrame({"similarity": [lam0], "delta": [float(c["delta"].iloc[0])]}),
                            ]
                        )
                d = d.sort_values("similarity")
                lab = f"eps {e:g}" if mech == "no_noise" else f"rho {rho:g}, eps {e:g}"
                ax.plot(
                    d["similarity"],
                    delta_for_axis(d["delta"], scale, floor=floor),
                    marker="o",
                    ms=3,
                    ls=styles[k % len(styles)],
                    color=CYCLE[ci % len(CYCLE)],
                    label=lab,
                )
        printed: dict[float, list[str]] = {}
        for p in (*FIG4_POINTS, FIG3_POINT):
            if p.mechanism == mech:
                printed.setdefault(p.value, []).append(f"rho {p.rho:g}, eps {p.epsilon:g}")
        for value, where in printed.items():  # one line per printed value (0.35 is printed twice)
            y = delta_for_axis([value], scale, floor=floor)[0]
            ax.axhline(y, color="black", lw=0.6, ls=":", label=f"paper {value:g} ({'; '.join(where)})")
        if mech == "no_noise":
            ax.axhline(delta_for_axis([NO_NOISE_DELTA], scale, floor=floor)[0], color="black", lw=0.6, ls=":")
        if lam0 is not None:
            ax.axvline(lam0, color="#999999", lw=0.8)
        ax.set_title(mech.replace("_", " "))
        ax.set_xlabel("within-cluster similarity $\\lambda$")
        format_delta_axis(ax, scale, floor=floor)
    for ax in axes[1:]:
        ax.set_ylabel("")
    fig.tight_layout()
    for ax in axes:
        place_legend(ax, fontsize=5)
    data_statement(
        fig,
        data_caption(spec, _summary(inp)) + " Grey vertical line: the calibrated similarity (the main run); dotted: "
        "the paper's printed deltas.",
    )
    return fig


def fig3(inp, params):
    """Fig. 3: three houses' past 24 h, truth, ARMA forecast and released forecast (kW)."""
    series = read_table(inp.series, dtype={"meter_id": str})
    mse = read_table(inp.table_mse, dtype={"meter_id": str})
    series["timestamp"] = pd.to_datetime(series["timestamp"])
    fig, axes = figure(len(mse), 1, width=5.5, height=2.0 * len(mse), sharex=True)
    axes = np.atleast_1d(axes)
    styles = {
        "past": dict(color="#9a9a9a", label="past 24 h"),
        "truth": dict(color="#d62728", label="truth"),
        "forecast": dict(color="#ff7f0e", label="ARMA forecast"),
        "released": dict(color="#1f77b4", label="released forecast"),
    }
    for ax, (_, row) in zip(axes, mse.iterrows()):
        s = series[series["meter_id"] == row["meter_id"]]
        for kind, st in styles.items():
            d = s[s["kind"] == kind]
            ax.plot(d["timestamp"], d["kw"], **st)
        pos = int(str(row["house"]).split()[-1]) - 1 if str(row["house"]).startswith("House ") else -1
        paper = (
            (
                f" (paper {FIG3_NMSE[pos]:.3g}); ARMA forecast MSE {row['mse_forecast_kw2']:.3g} kW$^2$ "
                f"(paper {PLAIN_MSE[pos]:.3g})"
            )
            if 0 <= pos < len(FIG3_NMSE)
            else ""
        )
        ax.set_title(
            f"{plain_text(row['house'])} ({plain_text(row['meter_id'])}): normalised MSE of release {row['nmse_proposed']:.3g}{paper}",
            fontsize=7,
        )
        ax.set_ylabel("kW")
    r = mse.iloc[0]
    cl = f", House 1's cluster {readable_delta(r['delta_cluster'])}" if "delta_cluster" in mse.columns else ""
    fig.suptitle(
        f"$\\rho$ = {r['rho']:g}, ($\\epsilon$, $\\delta$) = ({r['epsilon']:g}, {readable_delta(r['delta'])}){cl}; "
        f"paper ({FIG3['epsilon']:g}, {FIG3['delta']:g})",
        y=1.0,
        fontsize=8,
    )
    fig.autofmt_xdate()
    data_statement(
        fig,
        data_caption(params.data, _summary(inp)) + " Titles: 'paper' = the numbers printed in Sec. VI-B (the "
        "paper does not define its normalised MSE; every reading: forecast/mse_definitions.csv).",
    )
    # last: the date labels, titles and the statement set the axes' final shape, which the legend must fit
    place_legend(axes[0], ncol=2)
    return fig


FIGURES = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4, "fig_similarity_sweep": fig_similarity_sweep}


def figure_job(job) -> None:
    draw_figure(FIGURES, job)


def figure_over_seeds_job(job) -> None:
    draw_figure(FIGURES_OVER_SEEDS, job)

"""Figures of the dpkmeans paper (Figs. 3, 5-11), drawn from the result tables only."""

from __future__ import annotations

import math

import numpy as np

from dpgrid.core.io import read_json, read_table
from dpgrid.data.profiles import PROFILE_HOURS as HOURS
from dpgrid.figures.layout import data_statement, describe_data, place_legend
from dpgrid.figures.style import CYCLE, PALETTE, draw_figure, figure
from dpgrid.papers.dpkmeans.paper import PAPER_VALUES


def _meters(params) -> str:
    """What the data's rows are: meters, or pseudo-meters (windows of one home's record: ``pseudo_meters``)."""
    return "pseudo-meters" if (getattr(params, "data", None) or {}).get("pseudo_meters") else "meters"


def _data(fig, params, extra: str = "") -> None:
    """The dpkmeans figures' data statement: the meters' data source and sizes, and what the figure uses of it."""
    data_statement(fig, f"Data: {describe_data(params.data)}" + (f"; {extra}" if extra else "") + ".")


def fig3(inp, params):
    t = read_table(inp.table)
    info = read_json(inp.info)
    x = np.arange(len(t)) / 24.0
    fig, ax = figure(2, 1, width=6.0, height=4.6, sharex=True, layout="constrained")
    ax[0].plot(x, t["noisy_kw"], color=PALETTE["white"], lw=0.6, label=f"white noise, sigma = {info['sigma']:g} kW")
    ax[0].plot(x, t["average_kw"], color=PALETTE["true"], label="feeder average")
    ax[1].plot(
        x,
        t["filtered_kw"],
        color=PALETTE["proposed"],
        label=f"Savitzky-Golay (order {info['order']}, window {info['window']} samples = {info['window_hours']:g} h)",
    )
    ax[1].axhline(t["average_kw"].mean(), color="0.5", ls=":", lw=1.0, label="flat line at the mean")
    ax[1].plot(x, t["average_kw"], color=PALETTE["true"], label="feeder average")
    for a in ax:
        a.set_ylabel("kW")
    ax[1].set_xlabel("day")
    ax[0].set_title(
        f"Fig. 3: RMSE noisy {info['rmse_noisy']:.3f} kW, filtered {info['rmse_filtered']:.3f} kW, "
        f"flat line {info['rmse_flat']:.3f} kW",
        fontsize=8,
    )
    for a in ax:
        place_legend(a, fontsize=7)
    _data(fig, params, f"feeder average of the residential {_meters(params)}")
    return fig


def fig5(inp, params):
    pts = read_table(inp.points)
    cen = read_table(inp.centroids)
    info = read_json(inp.info)
    fig, ax = figure(width=5.0, height=4.6, layout="constrained")
    cols = np.array(CYCLE)[pts["label"].to_numpy() % len(CYCLE)]
    ax.scatter(pts["x"], pts["y"], c=list(cols), s=6, lw=0)
    L = pts["in_L"].astype(bool).to_numpy()
    ax.scatter(pts["x"][L], pts["y"][L], c=list(cols[L]), s=22, edgecolors="gold", linewidths=1.2, label="set L")
    fl = (pts["noisy_label"] != pts["label"]).to_numpy()
    ax.scatter(
        pts["x"][fl],
        pts["y"][fl],
        marker="s",
        facecolors="none",
        edgecolors="blue",
        s=50,
        linewidths=1.0,
        label="label changed by the mechanism",
    )
    ax.scatter(cen["x"], cen["y"], marker="*", c="k", s=90, label="centroids")
    ax.scatter(cen["noisy_x"], cen["noisy_y"], marker="X", c="red", s=50, label="DP centroids")
    ax.set_title(
        f"Fig. 5: P = {info['P']}, K = {info['K']}, |L| = {info['n_label_sensitive']}, "
        f"label sensitivity $\\Delta_1$ = {info['delta_1']}, $\\epsilon_l$ = {info['eps_l']:g}"
    )
    ax.set_aspect("equal")
    place_legend(ax, fontsize=7)
    data_statement(
        fig,
        f"Data: a synthetic Gaussian mixture (P = {info['P']} points, K = {info['K']} components; config "
        "dpkmeans.gaussian_mixture), not meter data.",
    )
    return fig


def fig6(inp, params):
    cur = read_table(inp.noise)
    dv = read_table(inp.variance)
    lab = read_table(inp.labels)
    fig, ax = figure(2, 2, width=8.0, height=6.4, layout="constrained")
    a = ax.ravel()
    for i, (eps, g) in enumerate(cur.groupby("eps_c")):
        col = f"C{i}"
        for calib, ls in (("exact_pdp", "-"), ("paper_eq13", "--")):
            h = g[g["calibration"] == calib]
            a[0].loglog(h["delta_c"], h["noise_variance"], ls, color=col, label=f"eps_c={eps:g}" if ls == "-" else None)
            a[2].loglog(
                h["delta_c"], h["expected_accuracy_loss"], ls, color=col, label=f"eps_c={eps:g}" if ls == "-" else None
            )
    for i, (eps, g) in enumerate(dv.groupby("eps_c")):
        a[1].loglog(
            g["noise_variance"], g["delta_c_exact"].clip(lower=1e-300), "-", color=f"C{i}", label=f"eps_c={eps:g}"
        )
        a[1].loglog(g["noise_variance"], g["delta_c_eq13"].clip(lower=1e-300), "--", color=f"C{i}")
    for eps, g in lab.groupby("eps_l"):
        a[3].plot(g["delta_1"], g["expected_error_pct"], "o-", ms=3, label=f"eps_l={eps:g}")
    a[0].set(xlabel="delta_c", ylabel="noise variance tr(Sigma)", title="noise variance vs delta_c")
    a[1].set(xlabel="noise variance tr(Sigma)", ylabel="delta_c", title="delta_c vs noise variance", ylim=(1e-12, 1.5))
    a[2].set(xlabel="delta_c", ylabel="expected DP accuracy loss", title="accuracy loss vs delta_c")
    a[3].set(xlabel="label sensitivity $\\Delta_1$", ylabel="expected label errors (%)", title="labels (delta_l = 0)")
    fig.suptitle("Fig. 6 (Gaussian mixture): solid exact PDP calibration, dashed eq. (13)")
    for x in a:
        place_legend(x, fontsize=7)
    data_statement(
        fig,
        "Data: none; noise calibration and expected errors computed for the synthetic Gaussian mixture's "
        "sensitivities (config dpkmeans.gaussian_mixture).",
    )
    return fig


def _mds_panel(ax, f, title, centroids=True, noisy=False, removed_label="outliers"):
    p = f[f["kind"] == "point"]
    cols = np.array(CYCLE)[p["label"].to_numpy().astype(int) % len(CYCLE)]
    ax.scatter(p["x"], p["y"], c=list(cols), s=5, lw=0)
    L = p["in_L"].astype(bool).to_numpy()
    ax.scatter(p["x"][L], p["y"][L], c=list(cols[L]), s=20, edgecolors="gold", linewidths=1.0, label="set L")
    out = p["is_outlier"].astype(bool).to_numpy()
    if out.any():
        ax.scatter(p["x"][out], p["y"][out], marker="x", c="k", s=30, label=removed_label)
    fl = (p["noisy_label"] != p["label"]).to_numpy()
    if fl.any():
        ax.scatter(
            p["x"][fl], p["y"][fl], marker="s", facecolors="none", edgecolors="blue", s=40, label="label changed"
        )
    c = f[f["kind"] == "centroid"]
    ax.scatter(c["x"], c["y"], marker="*", c="k", s=90, label="centroids")
    if noisy:
        n = f[f["kind"] == "noisy_centroid"]
        ax.scatter(n["x"], n["y"], marker="X", c="red", s=50, label="DP centroids")
    ax.set(title=title, xlabel="MDS 1", ylabel="MDS 2")
    place_legend(ax, fontsize=7)


def _mds_shown(f, P) -> str:
    """Title note when the MDS shows a subsample (config mds_max_points); empty when it shows all P."""
    n = int((f["kind"] == "point").sum())
    return "" if n == int(P) else f", {n} shown"


def fig7(inp, params):
    f = read_table(inp.mds)
    s = read_table(inp.sensitivity).set_index("dataset")
    fig, ax = figure(width=5.5, height=4.6, layout="constrained")
    sub = f[f["dataset"] == "with_outliers"]
    w = s.loc["with_outliers"]
    method = str(w.get("outlier_method", "knn"))
    _mds_panel(
        ax,
        sub,
        f"Fig. 7: all {_meters(params)} (P = {int(w['P'])}{_mds_shown(sub, w['P'])}), sensitivity $\\Delta_c$ = {w['delta_c']:.3g}",
        removed_label="removed: non-residential class" if method == "class" else "removed: 20-NN rule",
    )
    _data(
        fig,
        params,
        f"MDS of the {_meters(params)}' profiles. Paper: $\\Delta_c$ = {PAPER_VALUES['delta_c_with_outliers']:.2f}, "
        f"P = 1416, 7 outliers; ours: $\\Delta_c$ = {w['delta_c']:.3g}, {int(w['n_removed_outliers'])} removed "
        f"({int(w['n_knn_flagged'])} flagged by the 20-NN rule)",
    )
    return fig


def fig8(inp, params):
    f = read_table(inp.mds)
    s = read_table(inp.sensitivity).set_index("dataset")
    r = read_json(inp.release)
    fig, ax = figure(width=5.5, height=4.6, layout="constrained")
    sub = f[f["dataset"] == "without_outliers"]
    _mds_panel(
        ax,
        sub,
        f"Fig. 8: outliers removed (P = {int(s.loc['without_outliers', 'P'])}"
        f"{_mds_shown(sub, s.loc['without_outliers', 'P'])}), sensitivity $\\Delta_c$ = "
        f"{s.loc['without_outliers', 'delta_c']:.3g}\n"
        r"($\epsilon_c$, $\delta_c$, $\epsilon_l$, $\delta_l$) = "
        f"({r['eps_c']:g}, {r['delta_c']:g}, {r['eps_l']:g}, {r['delta_l']:.2g})",
        noisy=True,
    )
    _data(
        fig,
        params,
        f"MDS of the {_meters(params)}' profiles. Paper: $\\Delta_c$ = {PAPER_VALUES['delta_c_without_outliers']:.2f}, "
        f"P = {PAPER_VALUES['P_clean']}, (30, 0.2, 30, 0); ours: $\\Delta_c$ = "
        f"{s.loc['without_outliers', 'delta_c']:.3g}, P = {int(s.loc['without_outliers', 'P'])}, "
        f"{r['n_labels_changed']} labels changed",
    )
    return fig


def fig9(inp, params):
    pr = read_table(inp.privacy)
    acc = read_table(inp.accuracy)
    lab = read_table(inp.labels)
    fig, ax = figure(1, 3, width=12.0, height=4.0, layout="constrained")
    for i, (e, g) in enumerate(pr.groupby("calibrated_eps")):
        ax[0].semilogy(
            g["eps_c"],
            g["delta_c_exact"].clip(lower=1e-16),
            "-",
            color=f"C{i}",
            label=f"noise calibrated for $\\epsilon_c$ = {e:g}",
        )
        ax[0].semilogy(g["eps_c"], g["delta_c_eq13"].clip(lower=1e-16), "--", color=f"C{i}")
    ax[0].set(
        xlabel=r"$\epsilon_c$",
        ylabel=r"$\delta_c$",
        title="(a) privacy of the centroid noise:\n" r"$\delta_c$ at each $\epsilon_c$ (solid exact, dashed eq. 13)",
        ylim=(1e-16, 2),
    )
    colors = {
        "colored": PALETTE["proposed"],
        "white": PALETTE["white"],
        "yu2016": "C2",
        "balcan2017": "C3",
        "ni2021": "C4",
    }
    for m, g in acc.groupby("method", sort=False):
        ax[1].loglog(g["eps_c"], g["mean_loss"], "o-", ms=3, color=colors.get(m), label=m)
    var = read_table(inp.variants)
    pv = var[(var["figure"] == "fig9") & (var["dataset"] == "without_outliers") & (var["variant"] == "paper")]
    for m, g in pv.groupby("method", sort=False):
        ax[1].loglog(
            g["eps_c"],
            g["expected_loss"],
            ":",
            lw=1.4,
            color=colors.get(m),
            label=f"{m}, paper's $\\Delta_c$ = {g['delta_c'].iloc[0]:.2f} (expected)",
        )
    ours = var[(var["dataset"] == "without_outliers") & (var["variant"] == "ours")]["delta_c"]
    ax[1].set(
        xlabel=r"$\epsilon_c$",
        ylabel="DP accuracy loss",
        title="(b) accuracy of the DP centroids\n"
        rf"(Gaussian noise at $\delta_c$ = 0.01; our sensitivity $\Delta_c$ = {ours.iloc[0]:.3g})",
    )
    for (dname, dl), g in lab.groupby(["dataset", "delta_l"], sort=False):
        ax[2].plot(
            g["eps_l"],
            g["expected_error_pct"],
            ls="-" if dname == "without_outliers" else "--",
            label=f"{dname.replace('_', ' ')} (label sensitivity $\\Delta_1$ = {int(g['delta_1'].iloc[0])}), "
            f"$\\delta_l$ = {dl:g}",
        )
    ax[2].set(
        xlabel=r"$\epsilon_l$",
        ylabel=f"expected label errors (% of {_meters(params)})",
        title=f"(c) label privacy: expected share of {_meters(params)}\nwhose cluster label the mechanism changes",
    )
    for a in ax:
        place_legend(a, fontsize=7)
    _data(fig, params, "(c) 'without outliers': the outliers of dpkmeans.outliers removed")
    return fig


def fig10(inp, params):
    from scipy import stats

    cfg = params.cfg["fig10"]
    true = read_table(inp.profiles_true, dtype={"profile_id": str})
    bic = read_table(inp.bic)
    hours = cfg["hours_shown"]
    clusters = sorted(true["cluster"].unique())
    fig, ax = figure(
        len(clusters), len(hours), width=2.0 * len(hours), height=1.6 * len(clusters), layout="constrained"
    )
    ax = np.atleast_2d(ax)
    for i, k in enumerate(clusters):
        grp = true[true["cluster"] == k]
        for j, h in enumerate(hours):
            a = ax[i, j]
            x = grp[HOURS[h]].to_numpy(float)
            a.hist(x, bins=30, density=True, color="0.7")
            b = bic[(bic["cluster"] == k) & (bic["hour"] == h)]
            if len(b):
                grid = np.linspace(max(x.min(), 1e-3), x.max(), 200)
                for _, r in b[b["winner"].astype(bool) | (b["distribution"] == "lognorm")].iterrows():
                    dist = getattr(stats, r["distribution"])
                    args = ([r["shape"]] if np.isfinite(r["shape"]) else []) + [r["loc"], r["scale"]]
                    a.plot(
                        grid,
                        dist.pdf(grid, *args),
                        color="red" if r["winner"] else "blue",
                        lw=1.0,
                        ls="-" if r["distribution"] == "lognorm" else "--",
                        label=r["distribution"] + (" (best BIC)" if r["winner"] else ""),
                    )
                place_legend(a, fontsize=5)
            a.set_title(f"cluster {k} (n={len(x)}), {h:02d}:00", fontsize=7)
            a.tick_params(labelsize=6)
    fig.suptitle("Fig. 10: per-hour histograms; red = lowest BIC, blue = log-normal")
    _data(fig, params, "true daily profiles, clustered")
    return fig


def fig11(inp, params):
    cfg = params.cfg["synthetic"]
    bands = read_table(inp.bands)
    syn = read_table(inp.profiles_synthetic, dtype={"profile_id": str})
    info = read_json(inp.info)
    K = int(bands["cluster"].max()) + 1
    ncol = 3
    nrow = int(math.ceil(K / ncol))
    fig, ax = figure(nrow, ncol, width=10.0, height=3.0 * nrow, sharex=True, layout="constrained")
    ax = np.atleast_1d(ax).ravel()
    h = np.arange(25)
    for k in range(K):
        a = ax[k]
        b = bands[bands["cluster"] == k]
        s = syn[syn["cluster"] == k][HOURS].to_numpy()[: cfg["n_shown"]]
        for row in s:
            a.plot(h, row, color="0.6", lw=0.5)
        a.fill_between(h, b["true_lo"], b["true_hi"], color="saddlebrown", alpha=0.35, label="true 90 % band")
        a.fill_between(h, b["synthetic_lo"], b["synthetic_hi"], color="green", alpha=0.3, label="synthetic 90 % band")
        a.plot(h, b["true_mean"], color="saddlebrown", lw=1.5, label="true mean")
        a.plot(h, b["synthetic_mean"], color="green", lw=1.5, label="synthetic mean")
        a.set(
            title=f"cluster {k} (n = {int(b['n_true'].iloc[0])}, coverage {b['coverage'].mean():.2f})",
            xlabel="hour",
            ylabel="kW",
        )
    for a in ax[K:]:
        a.set_visible(False)
    neg = info.get("negative_share_synthetic")
    fig.suptitle(
        f"Fig. 11: DP log-normal daily shapes, alpha = {info['alpha']:g} kW, (eps_c, delta_c) = "
        f"({info['eps_c']:g}, {info['delta_c']:g}), covariance: {info['cov_mechanism']} "
        f"(eps_w = {info['eps_w']:g}, delta_w = {info['delta_w']:.3g})\n"
        f"band IoU {info['mean_iou']:.2f}"
        + (f", {100 * neg:.1f} % of synthetic hourly values negative" if neg is not None else "")
        + " (paper: synthetic shapes within the true bands; fig11_sweep)"
    )
    place_legend(ax[0], fontsize=6)
    _data(fig, params, f"true daily profiles; {cfg['n_shown']} synthetic profiles shown per cluster (grey)")
    return fig


def _sweep_curves(d):
    """(label, colour, rows) per covariance mechanism of a sweep table, in a fixed colour per mechanism."""
    out = []
    for (mech, deb, dw), g in d.assign(dwl=d["delta_w"].where(d["cov_mechanism"] == "analyze_gauss", 0.0)).groupby(
        ["cov_mechanism", "debias", "dwl"], sort=False
    ):
        deb = bool(deb)
        lab = mech + (" debiased" if deb else "") + (f", delta_w = {dw:g}" if mech == "analyze_gauss" else "")
        col = {("wishart", True): "C0", ("wishart", False): "C3", ("nonprivate", False): "k"}.get(
            (mech, deb), "C2" if dw <= 1e-4 else "C1"
        )
        out.append((lab, col, g))
    return out


def fig11_sweep(inp, params):
    """Fig. 11 sweep: band IoU and negative share versus eps_w per covariance mechanism; row bound and alpha."""
    sw = read_table(inp.sweep)
    info = read_json(inp.info)
    fig, ax = figure(2, 2, width=10.0, height=7.0, layout="constrained")
    a = ax.ravel()
    ref = sw[sw["axis"] == "reference"]
    for lab, col, g in _sweep_curves(sw[sw["axis"] == "eps_w"]):
        a[0].semilogx(g["eps_w"], g["mean_iou"], "o-", ms=3, color=col, label=lab)
        a[1].loglog(g["eps_w"], np.maximum(g["neg_synthetic"], 1e-5), "o-", ms=3, color=col, label=lab)
    for x in a[:2]:
        x.axvline(info["eps_w"], color="0.5", ls=":", lw=1.0, label=f"this run: eps_w = {info['eps_w']:g}")
    if len(ref):
        a[0].axhline(ref["mean_iou"].iloc[0], color="k", ls="--", lw=1.0, label="non-private covariance")
        a[1].axhline(
            max(ref["neg_synthetic"].iloc[0], 1e-5), color="k", ls="--", lw=1.0, label="non-private covariance"
        )
    a[0].axhline(0.5, color="saddlebrown", ls="-.", lw=0.8, label="claim threshold 0.5")
    a[0].set(xlabel="eps_w", ylabel="mean band IoU", title="band IoU vs eps_w", ylim=(0, 1.02))
    a[1].set(
        xlabel="eps_w",
        ylabel="share of negative values (floor 1e-5)",
        title="negative synthetic values vs eps_w (true profiles: none)",
    )
    for j, axis in ((2, "row_bound"), (3, "alpha")):
        d = sw[sw["axis"] == axis]
        for lab, col, g in _sweep_curves(d):
            a[j].semilogx(g[axis], g["mean_iou"], "o-", ms=3, color=col, label=f"IoU, {lab}")
            a[j].semilogx(g[axis], g["neg_synthetic"], "s--", ms=3, color=col, label=f"negative share, {lab}")
        if len(d):
            clip = d.drop_duplicates(axis).sort_values(axis)
            for r in clip.itertuples():
                a[j].annotate(
                    f"{100 * r.rows_clipped:.0f} %",
                    (getattr(r, axis), 0.98),
                    fontsize=6,
                    ha="center",
                    va="top",
                    color="0.4",
                )
        a[j].set(
            xlabel={
                "row_bound": "row bound B of log(1 + x/alpha) (top: % rows clipped)",
                "alpha": "alpha (kW) (top: % rows clipped at B)",
            }[axis],
            ylabel="IoU / share",
            title=f"at eps_w = {info['eps_w']:g}: {axis.replace('_', ' ')}",
            ylim=(0, 1.02),
        )
    fig.suptitle(
        "Fig. 11 sweep: Algorithm 2's band versus the covariance mechanism (DP means at "
        f"(eps_c, delta_c) = ({info['eps_c']:g}, {info['delta_c']:g}); paper: Wishart, alpha = 15 kW, "
        "eps_w not stated)"
    )
    for x in a:
        place_legend(x, fontsize=6)
    _data(fig, params, "true daily profiles")
    return fig


FIGURES = {
    "fig3": fig3,
    "fig5": fig5,
    "fig6": fig6,
    "fig7": fig7,
    "fig8": fig8,
    "fig9": fig9,
    "fig10": fig10,
    "fig11": fig11,
    "fig11_sweep": fig11_sweep,
}


def fig9_over_seeds(inp, params):
    """Fig. 9(b) over the replicates: each method's DP accuracy loss at each eps_c, the median over the replicates
    (data and noise drawn again) with a band from the lowest to the highest replicate. Reads the spread table of
    fig9_accuracy.csv (dpgrid.core.spread)."""
    spread = read_table(inp.spread)
    loss = spread[spread["quantity"] == "mean_loss"]
    colors = {"colored": PALETTE["proposed"], "white": PALETTE["white"]}
    fig, ax = figure(1, 1, width=6.0, height=4.2, layout="constrained")
    for i, (m, g) in enumerate(loss.groupby("method", sort=False)):
        g = g.sort_values("eps_c")
        color = colors.get(m, f"C{i + 2}")
        ax.fill_between(g["eps_c"], g["low"], g["high"], color=color, alpha=0.2, lw=0)
        ax.plot(g["eps_c"], g["median"], "o-", ms=3, color=color, label=m)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel=r"$\epsilon_c$",
        ylabel="DP accuracy loss",
        title="Fig. 9(b) over the replicates: accuracy of the DP centroids",
    )
    place_legend(ax, fontsize=7)
    n = ", ".join(map(str, sorted(set(loss["replicates"]))))
    _data(
        fig,
        params,
        f"lines: the median over {n} replicates (data and noise drawn again, docs/seeds.md); shaded: "
        "lowest to highest replicate",
    )
    return fig


#: the figures of the target over_seeds, drawn from spread tables (workflow rule dpkmeans_figure_over_seeds)
FIGURES_OVER_SEEDS = {"fig9": fig9_over_seeds}


def figure_job(job) -> None:
    draw_figure(FIGURES, job)


def figure_over_seeds_job(job) -> None:
    draw_figure(FIGURES_OVER_SEEDS, job)

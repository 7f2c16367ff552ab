"""Figures of the blowfish paper (Fig. 2, the lambda figure, the zero-probability sweep), from the result tables."""

from __future__ import annotations

from dpgrid.core.io import read_table
from dpgrid.figures.layout import data_statement, place_legend
from dpgrid.figures.style import CYCLE, PALETTE, draw_figure, figure
from dpgrid.papers.blowfish.paper import PAPER_RATIO


def _data(fig, cfg: dict, what: str) -> None:
    """The blowfish figures' data statement: the simulated population (Sec. IV) and the privacy budget."""
    data_statement(
        fig,
        f"Data: households simulated from the paper's occupancy model (Sec. IV), N = {cfg['households']}, "
        f"T = {cfg['steps_per_day']} steps per day, per-step eps = {cfg['epsilon']:g}; {what}.",
    )


def fig2(inp, params):
    """Fig. 2 (a) mean occupancy, (b) mean consumption, (c) optimal / Blowfish / naive rates (reference seed)."""
    prof = read_table(inp.profiles)
    ref = int(params.cfg["reference_seed"])
    p = prof[prof["seed"] == ref]
    fig, axes = figure(1, 3, width=10.5, height=3.2, layout="constrained")
    axes[0].plot(p["hour"], p["mean_occupancy"], color=PALETTE["true"], label="simulated")
    axes[0].plot(p["hour"], p["prior_mean_occupancy"], color=PALETTE["no_noise"], ls="--", label="model prior")
    axes[0].set(xlabel="hour of day", ylabel="mean occupancy", title="(a) Mean occupancy")
    axes[1].plot(p["hour"], p["mean_consumption"], color=PALETTE["true"])
    axes[1].set(xlabel="hour of day", ylabel="mean consumption", title="(b) Mean consumption")
    axes[2].plot(p["hour"], p["rate_naive"], color=PALETTE["naive"], lw=0.9, label="naive private")
    axes[2].plot(p["hour"], p["rate_blowfish"], color=PALETTE["blowfish"], lw=0.9, label="Blowfish private")
    axes[2].plot(p["hour"], p["rate_optimal"], color=PALETTE["true"], label="optimal")
    axes[2].set(xlabel="hour of day", ylabel="rate", title="(c) Calculated rates")
    for ax in axes:
        ax.set_xlim(0, 24)
        ax.set_xticks(range(0, 25, 6))
    place_legend(axes[0])
    place_legend(axes[2])
    _data(fig, params.cfg, f"seed {ref}")
    return fig


def fig_lambda(inp, params):
    """lambda^t over the day for both mechanisms and |kappa^t| / N: default setting (reference seed) and
    the zero-probability examples of the sweep (sweep seed 0)."""
    prof = read_table(inp.profiles)
    ref = int(params.cfg["reference_seed"])
    ex = read_table(inp.example)
    panels = [("default setting", prof[prof["seed"] == ref])] + [
        (str(k), g) for k, g in ex.groupby("setting", sort=False)
    ]
    fig, axes = figure(
        2, len(panels), width=3.3 * len(panels), height=4.8, sharex=True, layout="constrained", squeeze=False
    )
    for j, (title, p) in enumerate(panels):
        n = float(params.cfg["households"])
        top = 1.1 * float(max(p["lambda_naive"].max(), p["lambda_blowfish"].max()))
        axes[0, j].step(p["hour"], p["lambda_naive"], where="post", color=PALETTE["naive"], label="naive")
        axes[0, j].step(
            p["hour"], p["lambda_blowfish"], where="post", color=PALETTE["blowfish"], ls="--", label="Blowfish (Alg. 1)"
        )
        axes[0, j].set(
            title=title, xlim=(0, 24), ylim=(0, top), ylabel=r"$\lambda^t$ (noise Lap($\lambda^t/\epsilon$))"
        )
        axes[1, j].step(p["hour"], p["kappa_size"] / n, where="post", color=PALETTE["blowfish"])
        axes[1, j].set(xlabel="hour of day", ylabel=r"$|\kappa^t| / N$", xlim=(0, 24), ylim=(-0.02, 1.05))
        axes[1, j].set_xticks(range(0, 25, 6))
        place_legend(axes[0, j])
    _data(fig, params.cfg, f"default setting: seed {ref}; zero-probability settings: sweep seed 0")
    return fig


def fig_zero_sweep(inp, params):
    """Gain of Blowfish over naive vs the clipping threshold, per initial law."""
    tab = read_table(inp.table)
    fig, axes = figure(1, 2, width=9.0, height=3.3, layout="constrained")
    for i, (init, g) in enumerate(tab.groupby("initial", sort=False)):
        col = CYCLE[i % len(CYCLE)]
        axes[0].plot(g["threshold"], 100 * (g["ratio_expected_mean"] - 1), "o-", color=col, label=f"{init} (expected)")
        axes[0].errorbar(
            g["threshold"],
            100 * (g["ratio_printed_mean"] - 1),
            yerr=100 * g["ratio_printed_std"],
            fmt="x:",
            color=col,
            alpha=0.35,
            capsize=2,
            label=f"{init} (sampled, mean ± sd)",
        )
        if i == 0:  # the same draws for every initial law
            axes[1].plot(
                g["threshold"],
                g["frac_households_zero_transition_mean"],
                "o-",
                color="k",
                label="households with an exact-zero transition",
            )
        axes[1].plot(
            g["threshold"], g["mean_kappa_fraction_mean"], "s--", color=col, label=rf"mean $|\kappa^t|/N$ ({init})"
        )
    axes[0].axhline(100 * (PAPER_RATIO - 1), color="k", ls="--", lw=0.8, label="paper (5.5 %)")
    axes[0].set(xlabel="clipping threshold (perturbed p <= t set to 0)", ylabel="naive RMSRE / Blowfish RMSRE - 1 (%)")
    axes[1].set(xlabel="clipping threshold", ylabel="fraction", ylim=(-0.02, 1.02))
    place_legend(axes[0], fontsize=6)
    place_legend(axes[1], fontsize=6)
    _data(fig, params.cfg, f"{params.cfg['zero_sweep']['seeds']} seeds per threshold")
    return fig


FIGURES = {"fig2": fig2, "fig_lambda": fig_lambda, "fig_zero_sweep": fig_zero_sweep}


def figure_job(job) -> None:
    draw_figure(FIGURES, job)

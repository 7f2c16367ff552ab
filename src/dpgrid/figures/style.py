"""The project's single plotting style and the figure writer.

Every figure is saved with :func:`save_figure`, which first checks its layout
(:func:`dpgrid.figures.layout.check_layout`: no legend or text box over data, no label over another axes, a
data statement) and then writes a vector PDF and a PNG next to it, both atomically, with fixed metadata so
that reruns give identical files.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dpgrid.core.io import atomic_path  # noqa: E402
from dpgrid.figures.layout import check_layout, settle_legends  # noqa: E402

#: Colours by role, so a mechanism has the same colour in every paper's figures.
PALETTE = {
    "true": "#222222",
    "no_noise": "#7f7f7f",
    "white": "#1f77b4",
    "proposed": "#d62728",
    "naive": "#1f77b4",
    "blowfish": "#d62728",
    "spdp": "#d62728",
    "trdp": "#1f77b4",
    "synthetic": "#ff7f0e",
    "baseline": "#2ca02c",
}
#: Cycle for anything else (sweeps over rho, clusters, ...).
CYCLE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

_RC = {
    "figure.figsize": (5.0, 3.4),
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.3,
    "axes.prop_cycle": matplotlib.cycler(color=CYCLE),
    "pdf.fonttype": 42,
    "svg.hashsalt": "dpgrid",
}


def use_style() -> None:
    """Apply the project style to matplotlib's global rc (idempotent)."""
    plt.rcParams.update(_RC)


def figure(nrows: int = 1, ncols: int = 1, *, width: float | None = None, height: float | None = None, **kw):
    """``plt.subplots`` in the project style; width/height in inches (defaults scale with the grid)."""
    use_style()
    w = width if width is not None else 5.0 if ncols == 1 else 3.2 * ncols
    h = height if height is not None else 3.4 if nrows == 1 else 2.6 * nrows
    return plt.subplots(nrows, ncols, figsize=(w, h), **kw)


def save_figure(fig, pdf_path: str | os.PathLike, *, png: bool = True) -> None:
    """Re-place legends that the final layout put over data (:func:`dpgrid.figures.layout.settle_legends`), check
    ``fig``'s layout (:class:`dpgrid.figures.layout.FigureLayoutError` naming the figure and its problems, nothing
    written), then save it as ``<name>.pdf`` (vector) and ``<name>.png``, atomically, and close it."""
    pdf_path = Path(pdf_path)
    if pdf_path.suffix != ".pdf":
        raise ValueError(f"figure path must end in .pdf, got {pdf_path}")
    try:
        settle_legends(fig)
        check_layout(fig, str(pdf_path.with_suffix("")))
    except Exception:
        plt.close(fig)
        raise
    with atomic_path(pdf_path) as tmp:
        fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": "dpgrid"})
    if png:
        with atomic_path(pdf_path.with_suffix(".png")) as tmp:
            fig.savefig(tmp, format="png", metadata={"Software": "dpgrid"})
    plt.close(fig)


def draw_figure(figures, job) -> None:
    """Draw the figure named by ``job.wildcards.fig`` with ``figures[name](job.input, job.params)`` and save it.

    Every paper's ``figures`` module defines one function per figure, taking the job's input files
    (result tables) and params and returning the matplotlib figure, and a ``FIGURES`` registry.
    """
    name = job.wildcards.fig
    if name not in figures:
        raise ValueError(f"unknown figure {name!r} (known: {', '.join(sorted(figures))})")
    save_figure(figures[name](job.input, job.params), job.output.pdf)

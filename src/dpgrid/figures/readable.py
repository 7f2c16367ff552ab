"""Axes that stay readable for any data, and "paper" overlays.

* delta(eps) curves (classdp Figs. 2 and 4): on the paper's axis delta in [0, 1] when that shows
  the curves apart; when every curve sits close to 1 (e.g. delta = 1 - 1e-7 on real data, where
  a zoomed linear axis falls back to matplotlib's unreadable offset notation) the panel shows
  ``1 - delta`` on a log axis instead, and says so (:func:`choose_delta_scale`,
  :func:`delta_for_axis`, :func:`format_delta_axis`). Values of ``1 - delta`` below the delta
  evaluator's accuracy are drawn at that accuracy (they are numerically zero).
* :func:`finite_for_plot`: infinite values (e.g. a log error when a true load is 0) become gaps,
  with a note naming how many were dropped.
* :func:`paper_markers`: the paper's printed values as black-edged markers labelled "paper", in
  the axis's coordinates.
* :func:`plain_text`: free text (a meter id) shown as it is in a title, label or legend, even in a text
  that also holds math (``kW$^2$``).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "LINEAR",
    "ONE_MINUS_LOG",
    "choose_delta_scale",
    "delta_for_axis",
    "format_delta_axis",
    "finite_for_plot",
    "paper_markers",
    "plain_text",
]


def plain_text(text) -> str:
    """``text`` (free text such as a meter id) for a matplotlib text: every ``$`` escaped (``\\$``), so that it
    never opens mathtext (an id ``a$b`` alone, or two ``$`` in one title, crashed the figure or set the id in
    math), whether or not the text around it holds math. Outside math, ``$`` is the only character mathtext
    reads; matplotlib shows ``\\$`` as ``$``."""
    return str(text).replace("$", "\\$")


LINEAR = "linear"
ONE_MINUS_LOG = "one_minus_log"


def choose_delta_scale(deltas, *, crowded_above: float = 0.95) -> str:
    """``linear`` (delta on [0, 1], the papers' axis) unless every finite delta exceeds ``crowded_above``.

    Above that, the curves differ by less than 1 - crowded_above on a [0, 1] axis (invisible);
    ``one_minus_log`` then plots ``1 - delta`` on a log axis.
    """
    d = np.asarray(deltas, dtype=float)
    d = d[np.isfinite(d)]
    if d.size == 0 or np.min(d) <= crowded_above:
        return LINEAR
    return ONE_MINUS_LOG


def delta_for_axis(delta, scale: str, *, floor: float = 1e-8) -> np.ndarray:
    """Values to plot: delta itself (linear) or ``max(1 - delta, floor)`` (one_minus_log)."""
    d = np.asarray(delta, dtype=float)
    if scale == LINEAR:
        return d
    if scale == ONE_MINUS_LOG:
        return np.maximum(1.0 - d, floor)
    raise ValueError(f"unknown delta scale {scale!r}")


def format_delta_axis(ax, scale: str, *, floor: float = 1e-8, label: str = "$\\delta$") -> None:
    """y axis of a delta panel: [0, 1] (linear) or log ``1 - delta`` with its floor; never an offset."""
    if scale == LINEAR:
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel(label)
        ax.ticklabel_format(axis="y", useOffset=False, style="plain")
    elif scale == ONE_MINUS_LOG:
        ax.set_yscale("log")
        lo, hi = ax.get_ylim()
        ax.set_ylim(min(lo, floor / 2), max(hi, 1.0))
        ax.set_ylabel(f"1 - {label} (log; {floor:g} = numerically 0)")
    else:
        raise ValueError(f"unknown delta scale {scale!r}")


def finite_for_plot(values, what: str = "values") -> tuple[np.ndarray, str]:
    """(values with +-inf replaced by NaN so they are not drawn, a note or "")."""
    v = np.asarray(values, dtype=float).copy()
    bad = np.isinf(v)
    v[bad] = np.nan
    n = int(bad.sum())
    return v, (f"{n} infinite {what} not drawn" if n else "")


def paper_markers(ax, x, y, *, scale: str = LINEAR, label: str = "paper", floor: float = 1e-8, **kw):
    """The paper's printed points (x, y) as open black-edged diamonds labelled ``label``.

    ``y`` are deltas when ``scale`` is a delta scale (transformed like the curves)."""
    x = np.atleast_1d(np.asarray(x, dtype=float))
    y = np.atleast_1d(np.asarray(y, dtype=float))
    if scale in (LINEAR, ONE_MINUS_LOG):
        y = delta_for_axis(y, scale, floor=floor)
    style = {"marker": "D", "ms": 5, "mfc": "none", "mec": "black", "mew": 1.0, "ls": "none", "zorder": 5}
    style.update(kw)
    return ax.plot(x, y, label=label, **style)

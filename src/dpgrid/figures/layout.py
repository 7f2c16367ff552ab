"""Layout check of a drawn figure, in display coordinates (pixels of the figure's canvas).

:func:`layout_problems` reports, for a matplotlib figure:

* **over data**: a legend, or a text / annotation placed inside an axes (``ax.texts``), whose box meets the
  plotted data of its own axes: the segments and vertices of its data lines (``Line2D`` in data coordinates;
  reference lines such as ``axhline`` are guides, not data), scatter offsets, and the outlines and interiors
  of its filled patches and collections (bars, histograms, ``fill_between`` bands, contours, error bars);
* **over other axes**: a text element of one axes (title, axis labels, tick labels, its texts, its legend)
  whose box meets the area or a text element of another visible axes (twinned axes, drawn over one area,
  count as one); a figure-level text or legend (suptitle, footnotes, ``fig.legend``) meeting any axes' area
  or text elements;
* **over text**: a legend that meets a text of its own axes;
* **over figure text**: two figure-level texts or legends that meet;
* **no data statement**: the figure carries no data statement, a figure-level footnote set by
  :func:`data_statement` (text starting ``Data:`` naming the data source and sizes).

:func:`check_layout` raises :class:`FigureLayoutError` naming the figure and every problem;
:func:`dpgrid.figures.style.save_figure` calls it before writing, so every figure the workflow writes, in
any configuration, is checked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.transforms import Bbox

__all__ = [
    "DATA_STATEMENT_GID",
    "FigureLayoutError",
    "LayoutProblem",
    "check_layout",
    "data_statement",
    "describe_data",
    "layout_problems",
    "place_legend",
]

#: ``gid`` of the figure-level text that states the figure's data.
DATA_STATEMENT_GID = "dpgrid-data-statement"
#: Boxes are shrunk by this many pixels before testing, so that touching edges are not an overlap.
TOLERANCE_PX = 1.0


@dataclass(frozen=True)
class LayoutProblem:
    """One layout defect: its ``kind`` (see the module docstring), the element and what it meets."""

    kind: str
    element: str
    other: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.element} meets {self.other}" if self.other else f"{self.kind}: {self.element}"


class FigureLayoutError(ValueError):
    """A figure failed the layout check; the message names the figure and each problem."""


def data_statement(fig, text: str, *, y: float | None = None, fontsize: float = 7):
    """Put the figure's data statement (``Data: <source>, <sizes>...``) as a footnote below the axes and return it.

    The footnote is a figure-level text with gid :data:`DATA_STATEMENT_GID`, its top at ``y`` (figure fraction;
    default: below the figure's bottom edge and below every axes' labels as drawn now, where
    ``savefig.bbox = tight`` keeps it in the file), wrapped to the figure's width. Set it last."""
    text = str(text).strip()
    if not text.startswith("Data:"):
        raise ValueError(f"a data statement starts with 'Data:', got {text[:40]!r}")
    if y is None:
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        lows = [ax.get_tightbbox(renderer).y0 for ax in fig.axes if ax.get_visible()]
        lows += [leg.get_window_extent(renderer).y0 for leg in fig.legends]
        y = min([-0.01] + [fig.transFigure.inverted().transform((0, v))[1] - 0.01 for v in lows])
    return fig.text(0.01, y, text, ha="left", va="top", fontsize=fontsize, wrap=True, gid=DATA_STATEMENT_GID)


def describe_data(spec: dict | None) -> str:
    """A ``data.experiments`` entry in words: source, meter counts, duration and step (what the entry states)."""
    if not spec:
        return "data source not stated"
    parts = [str(spec.get("source", "unnamed source"))]
    meters = [
        f"{spec[k]} {w}" for k, w in (("n_residential", "residential"), ("n_commercial", "commercial")) if spec.get(k)
    ]
    if meters:
        parts.append(" + ".join(meters) + " meters")
    elif spec.get("n_meters"):
        parts.append(f"{spec['n_meters']} meters")
    elif spec.get("pseudo_meters"):  # windows of one home's record, not meters of different homes
        parts.append(f"{spec['pseudo_meters']} pseudo-meters (windows of one home)")
    if spec.get("days"):
        parts.append(f"{spec['days']} days" + (f" from {spec['start']}" if spec.get("start") else ""))
    if spec.get("step_minutes"):
        parts.append(f"{spec['step_minutes']}-min steps")
    return ", ".join(parts)


def _label(artist, owner: str) -> str:
    kind = type(artist).__name__
    text = artist.get_text() if hasattr(artist, "get_text") else ""
    text = " ".join(str(text).split())
    if len(text) > 50:
        text = text[:47] + "..."
    return f"{owner} {kind}" + (f" {text!r}" if text else "")


def _axes_name(fig, ax) -> str:
    i = fig.axes.index(ax)
    title = " ".join(ax.get_title().split())[:40]
    return f"axes {i}" + (f" ({title!r})" if title else "")


def _shrunk(bb: Bbox) -> Bbox:
    return Bbox.from_extents(bb.x0 + TOLERANCE_PX, bb.y0 + TOLERANCE_PX, bb.x1 - TOLERANCE_PX, bb.y1 - TOLERANCE_PX)


def _meets(a: Bbox, b: Bbox) -> bool:
    a, b = _shrunk(a), _shrunk(b)
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _text_box(text, renderer) -> Bbox | None:
    """Display box of a visible, non-empty text, including its drawn box (``bbox=``) if any."""
    if not text.get_visible() or not str(text.get_text()).strip():
        return None
    bb = text.get_window_extent(renderer)
    patch = text.get_bbox_patch()
    if patch is not None:
        bb = Bbox.union([bb, patch.get_window_extent(renderer)])
    return bb


def _segments_meet(pts: np.ndarray, box: Bbox, *, joined: bool) -> bool:
    """Whether a polyline (rows of display points, NaN breaks it) or its vertices meet ``box`` (Liang-Barsky)."""
    pts = np.asarray(pts, float)
    if pts.size == 0:
        return False
    x0, y0, x1, y1 = box.x0, box.y0, box.x1, box.y1
    ok = np.isfinite(pts).all(axis=1)
    p = pts[ok]
    if len(p) and np.any((p[:, 0] > x0) & (p[:, 0] < x1) & (p[:, 1] > y0) & (p[:, 1] < y1)):
        return True
    if not joined or len(pts) < 2:
        return False
    a, b = pts[:-1], pts[1:]
    good = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    a, b = a[good], b[good]
    d = b - a
    t0 = np.zeros(len(a))
    t1 = np.ones(len(a))
    alive = np.ones(len(a), bool)
    for p_, q_ in (
        (-d[:, 0], a[:, 0] - x0),
        (d[:, 0], x1 - a[:, 0]),
        (-d[:, 1], a[:, 1] - y0),
        (d[:, 1], y1 - a[:, 1]),
    ):
        par = p_ == 0
        alive &= ~(par & (q_ <= 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = q_ / p_
        t0 = np.where(~par & (p_ < 0), np.maximum(t0, r), t0)
        t1 = np.where(~par & (p_ > 0), np.minimum(t1, r), t1)
    return bool(np.any(alive & (t0 < t1)))


def _path_meets(path, transform, box: Bbox, *, filled: bool) -> bool:
    """Whether a path (its outline, and its interior if ``filled``) meets ``box``."""
    tpath = transform.transform_path(path)
    for poly in tpath.to_polygons(closed_only=False):
        if _segments_meet(poly, box, joined=True):
            return True
    if filled:
        corners = [(box.x0, box.y0), (box.x0, box.y1), (box.x1, box.y0), (box.x1, box.y1)]
        corners.append(((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2))
        if np.any(tpath.contains_points(corners)):
            return True
    return False


def _data_lines(ax):
    """The axes' lines whose vertices are in data coordinates (curves; not axhline/axvline guides)."""
    for line in ax.lines:
        if line.get_visible() and line.get_transform() is ax.transData:
            yield line


def _data_meets(ax, box: Bbox) -> str:
    """Name of the first plotted datum of ``ax`` that meets ``box`` ('' if none)."""
    box = _shrunk(box)
    for line in _data_lines(ax):
        pts = line.get_transform().transform(np.asarray(line.get_xydata(), float))
        joined = line.get_linestyle() not in ("None", "none", "", " ")
        if _segments_meet(pts, box, joined=joined):
            return f"line {line.get_label()!r}"
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection) and len(coll.get_offsets()):
            pts = coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), float))
            if _segments_meet(pts, box, joined=False):
                return f"points {coll.get_label()!r}"
            continue
        fc = coll.get_facecolor()
        filled = len(fc) > 0 and float(np.max(np.asarray(fc)[:, 3])) > 0
        tr = coll.get_transform()
        for path in coll.get_paths():
            if _path_meets(path, tr, box, filled=filled):
                return f"{type(coll).__name__} {coll.get_label()!r}"
    for patch in ax.patches:
        if patch.get_visible() and _path_meets(patch.get_path(), patch.get_transform(), box, filled=patch.get_fill()):
            return f"{type(patch).__name__} {patch.get_label()!r}"
    return ""


def _tick_labels(axis):
    """Tick labels the axis draws (ticks inside its view interval)."""
    out = []
    for tick in axis._update_ticks():  # the ticks draw() would draw
        for lab in (tick.label1, tick.label2):
            if lab.get_visible():
                out.append(lab)
    return out


def _axes_texts(ax):
    """Every text element an axes draws (titles, axis labels, tick labels, its texts, its legend)."""
    out = [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
    out += [ax.xaxis.get_offset_text(), ax.yaxis.get_offset_text()]
    out += _tick_labels(ax.xaxis) + _tick_labels(ax.yaxis) + list(ax.texts)
    return out


def layout_problems(fig) -> list[LayoutProblem]:
    """Every layout problem of ``fig`` (drawn here): see the module docstring."""
    if not isinstance(fig.canvas, FigureCanvasAgg):  # a Figure made without pyplot
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    area = {ax: ax.get_window_extent(renderer) for ax in axes}
    same_area = {
        ax: {o for o in axes if np.allclose(area[o].extents, area[ax].extents)} for ax in axes
    }  # twinned axes share one area
    texts = {ax: [(t, b) for t in _axes_texts(ax) if (b := _text_box(t, renderer)) is not None] for ax in axes}
    problems: list[LayoutProblem] = []
    for ax in axes:
        owner = _axes_name(fig, ax)
        boxes = [(leg, leg.get_window_extent(renderer)) for leg in [ax.get_legend()] if leg and leg.get_visible()]
        boxes += [(t, b) for t in ax.texts if (b := _text_box(t, renderer)) is not None]
        for artist, bb in boxes:
            hit = ""
            for same in same_area[ax]:
                hit = _data_meets(same, bb)
                if hit:
                    break
            if hit:
                problems.append(LayoutProblem("over data", _label(artist, owner), hit))
        if ax.get_legend() and ax.get_legend().get_visible():
            legend_box = boxes[0][1]
            for t, bb in boxes[1:]:
                if _meets(legend_box, bb):
                    problems.append(LayoutProblem("over text", _label(boxes[0][0], owner), _label(t, owner)))
        elements = texts[ax] + (boxes[:1] if ax.get_legend() and ax.get_legend().get_visible() else [])
        for other in axes:
            if other in same_area[ax]:
                continue
            for artist, bb in elements:
                if _meets(bb, area[other]) or any(_meets(bb, ob) for _, ob in texts[other]):
                    problems.append(LayoutProblem("over other axes", _label(artist, owner), _axes_name(fig, other)))
    figure_level = [(t, b) for t in fig.texts if (b := _text_box(t, renderer)) is not None]
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup not in fig.texts and (b := _text_box(sup, renderer)) is not None:
        figure_level.append((sup, b))
    figure_level += [(leg, leg.get_window_extent(renderer)) for leg in fig.legends if leg.get_visible()]
    for artist, bb in figure_level:
        for ax in axes:
            if _meets(bb, area[ax]) or any(_meets(bb, ob) for _, ob in texts[ax]):
                problems.append(LayoutProblem("over other axes", _label(artist, "figure"), _axes_name(fig, ax)))
    for i, (artist, bb) in enumerate(figure_level):
        for other, obb in figure_level[i + 1 :]:
            if _meets(bb, obb):
                problems.append(LayoutProblem("over figure text", _label(artist, "figure"), _label(other, "figure")))
    statements = [t for t in fig.texts if t.get_gid() == DATA_STATEMENT_GID and t.get_text().startswith("Data:")]
    if not statements:
        problems.append(LayoutProblem("no data statement", "figure", ""))
    return problems


#: Legend locations inside an axes, in the order :func:`place_legend` tries them.
INSIDE = (
    "upper right",
    "upper left",
    "lower right",
    "lower left",
    "center right",
    "center left",
    "upper center",
    "lower center",
)


def _covers_data(ax, legend, renderer) -> bool:
    """Whether the legend meets the axes' plotted data or one of its texts."""
    bb = legend.get_window_extent(renderer)
    texts = [b for t in ax.texts if (b := _text_box(t, renderer)) is not None]
    return bool(_data_meets(ax, bb)) or any(_meets(bb, b) for b in texts)


def _with_headroom(ax, share: float):
    """Raise the top of ``ax``'s y range by ``share`` of its span (in the axis's scale)."""
    lo, hi = ax.get_ylim()
    if ax.get_yscale() == "log" and lo > 0:
        ax.set_ylim(lo, hi * (hi / lo) ** share)
    else:
        ax.set_ylim(lo, hi + share * (hi - lo))


def _first_free_location(ax, legend, renderer, locations) -> bool:
    """Move ``legend`` to the first of ``locations`` where it covers no data of ``ax``; False if none is free
    (the legend is then left at the last one tried)."""
    for loc in locations:
        legend.set_loc(loc)
        if not _covers_data(ax, legend, renderer):
            return True
    return False


def _right_of(ax, legend) -> None:
    """Put ``legend`` outside ``ax``, right of it, its top at the axes' top."""
    legend.set_loc("upper left")
    legend.set_bbox_to_anchor((1.02, 1.0), transform=ax.transAxes)


def place_legend(ax, *, headroom: float = 0.45, **kw):
    """``ax.legend(**kw)`` where it covers no plotted data of ``ax``.

    Tries the locations :data:`INSIDE` in order; then the upper ones again with the y range raised by
    ``headroom`` of its span (room above the curves); then outside the axes, right of it (the figure's
    layout engine, or the caller, makes room). Call it after the axes' data and limits are set."""
    kw.pop("loc", None)
    legend = ax.legend(**kw)
    if legend is None or not legend.get_texts():
        return legend
    fig = ax.figure
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    if _first_free_location(ax, legend, renderer, INSIDE):
        return legend
    if headroom > 0:
        ylim = ax.get_ylim()
        _with_headroom(ax, headroom)
        fig.canvas.draw()
        if _first_free_location(ax, legend, renderer, ("upper right", "upper left", "upper center")):
            return legend
        ax.set_ylim(ylim)
    _right_of(ax, legend)
    return legend


def settle_legends(fig) -> None:
    """Re-place, in ``fig``'s final layout, every axes legend that meets its axes' data or texts.

    A legend placed by :func:`place_legend` can come to cover data when the figure's shape changes after it
    (titles, date labels, a data statement, the layout engine). Each such legend tries the :data:`INSIDE`
    locations again, and goes outside the axes, right of it, when none is free. Legends that cover nothing are
    left where they are, so a figure that passes :func:`check_layout` as drawn is saved unchanged."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible() or not _covers_data(ax, legend, renderer):
            continue
        if not _first_free_location(ax, legend, renderer, INSIDE):
            _right_of(ax, legend)
        fig.canvas.draw()


def check_layout(fig, name: str) -> None:
    """Raise :class:`FigureLayoutError` naming figure ``name`` and each problem, if ``fig`` has any."""
    problems = layout_problems(fig)
    if problems:
        listed = "\n  ".join(str(p) for p in problems)
        raise FigureLayoutError(f"figure {name}: {len(problems)} layout problem(s):\n  {listed}")

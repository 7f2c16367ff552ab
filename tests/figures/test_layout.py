"""The layout checker (dpgrid.figures.layout) on synthetic figures: each defect it names is found, and a figure
without it passes."""

import matplotlib
import numpy as np
import pytest

from dpgrid.figures.layout import (
    FigureLayoutError,
    check_layout,
    data_statement,
    describe_data,
    layout_problems,
    place_legend,
)
from dpgrid.figures.style import figure, save_figure

matplotlib.use("Agg")


def _kinds(fig):
    return [p.kind for p in layout_problems(fig)]


def _line_figure(legend_loc):
    fig, ax = figure()
    x = np.linspace(0, 1, 50)
    ax.plot(x, np.full_like(x, 0.5), label="flat line at 0.5")
    ax.set_ylim(0, 1)
    ax.legend(loc=legend_loc)
    data_statement(fig, "Data: 50 synthetic points.")
    return fig


def test_legend_over_a_line_is_reported():
    fig = _line_figure("center")
    problems = layout_problems(fig)
    assert [p.kind for p in problems] == ["over data"]
    assert "Legend" in problems[0].element and "flat line at 0.5" in problems[0].other


def test_moved_legend_passes():
    assert layout_problems(_line_figure("upper right")) == []


def test_segment_through_the_box_without_a_vertex_in_it_is_reported():
    fig, ax = figure()
    ax.plot([0, 1], [0, 1], label="diagonal")  # two vertices, both outside the centre box
    ax.legend(loc="center")
    data_statement(fig, "Data: none.")
    assert _kinds(fig) == ["over data"]


def test_annotation_box_over_scatter_points_and_bars_is_reported():
    fig, (a, b) = figure(1, 2, width=8, layout="constrained")
    a.scatter([0.5], [0.5])
    a.set(xlim=(0, 1), ylim=(0, 1))
    a.text(0.5, 0.5, "note", transform=a.transAxes, ha="center", va="center", bbox={"fc": "white"})
    b.bar([0, 1], [1, 1])
    b.text(0, 0.5, "inside a bar", ha="center")
    data_statement(fig, "Data: none.")
    assert _kinds(fig) == ["over data", "over data"]


def test_legend_over_a_fill_between_band_is_reported():
    fig, ax = figure()
    x = np.linspace(0, 1, 5)
    ax.fill_between(x, 0, 1, label="band")
    ax.set(xlim=(0, 1), ylim=(0, 2))
    ax.legend(loc="lower left")
    data_statement(fig, "Data: none.")
    assert _kinds(fig) == ["over data"]
    ax.get_legend().remove()
    ax.legend(loc="upper right")
    assert _kinds(fig) == []


def test_reference_lines_are_not_data():
    fig, ax = figure()
    ax.axhline(0.5, label="reference")
    ax.set_ylim(0, 1)
    ax.legend(loc="center left")
    data_statement(fig, "Data: none.")
    assert _kinds(fig) == []


def test_y_label_over_the_neighbour_axes_is_reported():
    fig = matplotlib.figure.Figure(figsize=(6, 3))
    left = fig.add_axes((0.1, 0.15, 0.38, 0.75))
    right = fig.add_axes((0.5, 0.15, 0.38, 0.75))
    for ax in (left, right):
        ax.plot([0, 1], [0, 1])
    right.set_ylabel("a long y-label of the right panel", labelpad=2)
    data_statement(fig, "Data: none.")
    problems = layout_problems(fig)
    assert any(
        p.kind == "over other axes" and "right panel" in p.element and p.other.startswith("axes 0") for p in problems
    )
    fig.subplots_adjust(wspace=0.5)
    right.set_position((0.62, 0.15, 0.3, 0.75))
    left.set_position((0.1, 0.15, 0.3, 0.75))
    assert layout_problems(fig) == []


def test_missing_data_statement_is_reported():
    fig, ax = figure()
    ax.plot([0, 1], [0, 1])
    assert _kinds(fig) == ["no data statement"]


def test_data_statement_must_say_data():
    fig, _ = figure()
    with pytest.raises(ValueError, match="starts with 'Data:'"):
        data_statement(fig, "synthetic")


def test_check_layout_names_figure_and_elements():
    with pytest.raises(FigureLayoutError, match=r"figure f9: 1 layout problem\(s\):\n  over data: axes 0 Legend"):
        check_layout(_line_figure("center"), "f9")


def test_figure_texts_that_meet_are_reported():
    fig, ax = figure()
    ax.plot([0, 1], [0, 1])
    fig.legend(["a line"], loc="upper left", bbox_to_anchor=(0.0, 0.0))
    data_statement(fig, "Data: none.", y=-0.01)
    assert _kinds(fig) == ["over figure text"]


def test_missing_data_statement_is_reported_and_save_refuses(tmp_path):
    fig, ax = figure()
    ax.plot([0, 1], [0, 1])
    assert _kinds(fig) == ["no data statement"]
    with pytest.raises(FigureLayoutError, match="nodata: 1 layout problem"):
        save_figure(fig, tmp_path / "nodata.pdf")
    assert not (tmp_path / "nodata.pdf").exists()


def test_legend_over_a_text_of_its_axes_is_reported_and_placement_avoids_it():
    fig, ax = figure()
    ax.plot([0, 1], [0, 0], label="bottom line")
    ax.set_ylim(-0.1, 1)
    ax.text(0.98, 0.98, "note", transform=ax.transAxes, ha="right", va="top")
    ax.legend(loc="upper right")
    data_statement(fig, "Data: none.")
    assert _kinds(fig) == ["over text"]
    place_legend(ax)
    assert _kinds(fig) == []
    assert ax.get_legend()._loc != 1  # not upper right, where the note is


def test_describe_data_states_source_sizes_and_duration():
    spec = {"source": "dpkmeans_standin", "n_residential": 300, "n_commercial": 3, "days": 14, "step_minutes": 60}
    assert describe_data(spec) == "dpkmeans_standin, 300 residential + 3 commercial meters, 14 days, 60-min steps"
    assert describe_data({"source": "csv", "n_meters": 12}) == "csv, 12 meters"
    assert describe_data(None) == "data source not stated"


def test_describe_data_calls_windows_of_one_home_pseudo_meters():
    """``pseudo_meters`` cuts one home's record into windows: the statement must not call them meters."""
    text = describe_data({"source": "uci_household", "pseudo_meters": 40})
    assert text == "uci_household, 40 pseudo-meters (windows of one home)"


def test_dpkmeans_figures_say_pseudo_meters_for_windows_of_one_home():
    from types import SimpleNamespace

    from dpgrid.papers.dpkmeans.figures import _meters

    assert _meters(SimpleNamespace(data={"source": "uci_household", "pseudo_meters": 40})) == "pseudo-meters"
    assert _meters(SimpleNamespace(data={"source": "csv", "n_meters": 12})) == "meters"
    assert _meters(SimpleNamespace(data=None)) == "meters"


@pytest.mark.parametrize("loc", ["center", "center left", "center right"])
def test_save_settles_a_legend_the_final_layout_put_over_data(tmp_path, loc):
    """A legend that covers data when the figure is saved (e.g. after titles and a statement reshaped the axes)
    is moved to a free spot, inside or right of the axes: the saved figure passes the check."""
    from dpgrid.figures.layout import settle_legends

    fig = _line_figure(loc)
    fig.axes[0].plot(np.linspace(0, 1, 50), np.linspace(0, 1, 50), label="diagonal")
    assert "over data" in _kinds(fig)
    settle_legends(fig)
    assert layout_problems(fig) == []
    fig = _line_figure(loc)
    save_figure(fig, tmp_path / "settled.pdf")
    assert (tmp_path / "settled.pdf").exists() and (tmp_path / "settled.png").exists()


def test_settle_leaves_a_free_legend_where_it_is():
    from dpgrid.figures.layout import settle_legends

    fig = _line_figure("upper right")
    before = fig.axes[0].get_legend()._loc
    settle_legends(fig)
    assert fig.axes[0].get_legend()._loc == before and layout_problems(fig) == []

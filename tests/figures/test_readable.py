"""dpgrid.figures.readable: delta axes readable for any data (no offset notation, 1 - delta on a log axis
when every curve is near 1), finite guards, paper markers."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.figures import figure
from dpgrid.figures.readable import (
    LINEAR,
    ONE_MINUS_LOG,
    choose_delta_scale,
    delta_for_axis,
    finite_for_plot,
    format_delta_axis,
    paper_markers,
)


def test_scale_choice():
    assert choose_delta_scale([0.3, 0.84, 1.0]) == LINEAR
    assert choose_delta_scale([1 - 1e-7, 1 - 3e-7, 1.0, np.nan]) == ONE_MINUS_LOG
    assert choose_delta_scale([np.nan]) == LINEAR


def test_curves_near_one_are_told_apart_without_offset_text():
    """Real-data case: delta = 1 - 1e-7 and 1 - 4e-7. On the log 1 - delta axis the two curves are a
    factor 4 apart and the tick labels carry no offset (the unreadable '1e-7 + 9.99999e-1')."""
    eps = np.linspace(0.1, 1.0, 5)
    a, b = np.full(5, 1 - 1e-7), np.full(5, 1 - 4e-7)
    scale = choose_delta_scale(np.r_[a, b, 1.0])
    fig, ax = figure()
    ya, yb = delta_for_axis(a, scale), delta_for_axis(b, scale)
    ax.plot(eps, ya)
    ax.plot(eps, yb)
    ax.plot(eps, delta_for_axis(np.ones(5), scale))  # no-noise at exactly 1
    paper_markers(ax, [0.1, 1.0], [0.8, 0.6], scale=scale)
    format_delta_axis(ax, scale)
    fig.canvas.draw()
    assert ax.get_yscale() == "log"
    np.testing.assert_allclose(yb / ya, 4.0, rtol=1e-6)
    assert ax.yaxis.get_offset_text().get_text() == ""
    lo, hi = ax.get_ylim()
    assert lo <= 1e-8 and hi >= 0.4  # floor and the paper's points are on the axis
    assert "1 - " in ax.get_ylabel()


def test_linear_axis_is_the_papers():
    fig, ax = figure()
    ax.plot([0.1, 1.0], [0.99999, 0.999995])
    format_delta_axis(ax, LINEAR)
    fig.canvas.draw()
    assert ax.get_ylim() == pytest.approx((-0.02, 1.02))
    assert ax.yaxis.get_offset_text().get_text() == ""


def test_finite_guard():
    v, note = finite_for_plot([1.0, np.inf, -np.inf, 2.0], "mse_log values")
    assert np.isnan(v[1]) and np.isnan(v[2]) and v[0] == 1.0
    assert note == "2 infinite mse_log values not drawn"
    assert finite_for_plot([1.0])[1] == ""
    with pytest.raises(ValueError):
        delta_for_axis([0.5], "bogus")


@settings(max_examples=15, deadline=None)
@given(
    ident=st.lists(
        st.sampled_from(["$", "$$", "^", "_", "{", "}", "\\", "a", "M", "0", " ", "%", "#", "&"]),
        min_size=1,
        max_size=10,
    ).map("".join)
)
def test_a_meter_id_reaches_any_figure_text_as_it_is(ident):
    """Any meter id, '$' included, drawn through plain_text in a title that also holds math (Fig. 3's kW$^2$), a
    title without math and a legend: the figure draws, and a text without math shows the id unchanged."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpgrid.figures.readable import plain_text

    fig, ax = plt.subplots()
    try:
        ax.set_title(f"House 1 ({plain_text(ident)}): MSE 0.1 kW$^2$")
        ax.set_xlabel(plain_text(ident))
        ax.plot([0, 1], [0, 1], label=plain_text("x" + ident))
        ax.legend()
        fig.canvas.draw()
        label = ax.xaxis.label
        shown, is_math = label._preprocess_math(label.get_text())
        assert not is_math and shown == ident
    finally:
        plt.close(fig)

"""dpgrid.papers.dpkmeans.stages.pitfall and the Fig. 3 claims: the window is the paper's in time, and the claim
'noise filtered out, shape kept' is judged against a flat line at the mean, checked here on synthetic series."""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.papers.dpkmeans import figure_measures
from dpgrid.papers.dpkmeans.stages.pitfall import filter_reading, window_samples


@given(
    samples=st.integers(3, 1000),
    paper_step=st.sampled_from([1, 5, 10, 15, 30, 60]),
    our_step=st.sampled_from([1, 5, 15, 30, 60]),
    order=st.integers(0, 3),
)
def test_window_is_the_papers_duration_in_our_samples(samples, paper_step, our_step, order):
    w = window_samples(samples, paper_step, our_step, order)
    assert w % 2 == 1 and w >= order + 2
    # within one of our steps of the paper's window in time (odd rounding), unless the order forces it longer
    assert abs(w * our_step - samples * paper_step) <= 1.5 * our_step or w <= order + 3


def _info(avg, noisy, window, order=1):
    _, row = filter_reading(avg, noisy, window, order)
    return {**row, "window": window, "window_hours": float(window), "step_minutes": 60.0, "sigma": 0.75}


@settings(max_examples=25, deadline=None)
@given(amplitude=st.floats(0.05, 2.0), sigma=st.floats(0.05, 1.0), window=st.sampled_from([3, 5, 9, 25, 301]))
def test_fig3_filter_holds_iff_noise_removed_and_the_filter_beats_the_flat_line(amplitude, sigma, window):
    """On a daily sine of 28 days plus white noise: the verdict equals the criterion computed here from the series."""
    from scipy.signal import savgol_filter

    t = np.arange(28 * 24)
    avg = 1.0 + amplitude * np.sin(2 * np.pi * t / 24)
    noisy = avg + sigma * np.random.default_rng(1).standard_normal(t.size)
    filt = savgol_filter(noisy, window, 1, mode="interp")
    err = np.sqrt(np.mean((filt - avg) ** 2))
    expected = err <= 0.5 * np.sqrt(np.mean((noisy - avg) ** 2)) and err < np.std(avg)
    m = figure_measures.fig3_filter(SimpleNamespace(pit=_info(avg, noisy, window)))
    assert m.value == expected
    if window == 301:  # a 12.5-day window keeps no daily cycle: it never beats the flat line by much
        assert err > 0.9 * np.std(avg)


def test_fig3_readings_row_needs_every_plausible_reading():
    ok = {"paper_step_minutes": 1, "window_hours": 5.0, "rmse_noisy": 0.75, "rmse_flat": 0.3, "rmse_filtered": 0.1}
    lost = {**ok, "paper_step_minutes": 60, "window_hours": 300.0, "rmse_filtered": 0.31}
    long = {**ok, "paper_step_minutes": 60, "window_hours": 300.0, "rmse_filtered": float("nan")}
    pit = {"sigma": 0.75, "step_minutes": 1.0}
    assert figure_measures.fig3_filter_readings(SimpleNamespace(pit={**pit, "readings": [ok]})).value
    lost_m = figure_measures.fig3_filter_readings(SimpleNamespace(pit={**pit, "readings": [ok, lost]}))
    assert not lost_m.value and "shape lost" in lost_m.shown and lost_m.status == "compared"
    assert (
        "longer than the series"
        in figure_measures.fig3_filter_readings(SimpleNamespace(pit={**pit, "readings": [long]})).shown
    )


@pytest.mark.parametrize("data_step", [1.0, 5.0, 15.0, 60.0])
def test_fig3_readings_finer_than_the_series_are_not_comparable(data_step):
    """A reading of k-minute data is compared only on data at k minutes or finer: on coarser data its 300-sample
    window holds fewer, coarser samples (not the filter the reading describes)."""
    readings = [
        {"paper_step_minutes": m, "window_hours": 5.0 * m, "rmse_noisy": 0.75, "rmse_flat": 0.3, "rmse_filtered": 0.1}
        for m in (1, 5, 15, 60)
    ]
    m = figure_measures.fig3_filter_readings(
        SimpleNamespace(pit={"sigma": 0.75, "step_minutes": data_step, "readings": readings})
    )
    finer = [r["paper_step_minutes"] for r in readings if r["paper_step_minutes"] < data_step]
    assert (m.status == "not comparable") == bool(finer)
    if finer:
        assert "need data at those steps" in m.note and f"{data_step:g}-min readings" in m.note


def test_a_window_longer_than_the_series_is_reported_not_filtered():
    avg = np.ones(10)
    filt, row = filter_reading(avg, avg, 11, 1)
    assert filt is None and np.isnan(row["rmse_filtered"])


@settings(max_examples=25, deadline=None)
@given(shift=st.floats(0.0, 30.0), n_removed=st.integers(1, 12))
def test_fig7_clear_outliers_iff_the_removed_points_stand_apart_and_number_close_to_7(shift, n_removed):
    """The criterion computed here from the MDS table: every removed point >= 1.25 x as far from the median as every
    other point, and 7 +- 2 of them."""
    import pandas as pd

    rng = np.random.default_rng(3)
    xy = rng.standard_normal((200 + n_removed, 2))
    xy[200:] *= 0.1
    xy[200:, 0] += shift
    removed = np.r_[np.zeros(200, bool), np.ones(n_removed, bool)]
    mds = pd.DataFrame(
        {"dataset": "with_outliers", "kind": "point", "x": xy[:, 0], "y": xy[:, 1], "is_outlier": removed}
    )
    d = np.linalg.norm(xy - np.median(xy, axis=0), axis=1)
    expected = d[removed].min() >= 1.25 * d[~removed].max() and abs(n_removed - 7) <= 2
    assert (
        figure_measures.fig7_clear_outliers(SimpleNamespace(mds=mds, standin=True, paper_sized=True)).value == expected
    )


@settings(max_examples=20, deadline=None)
@given(days=st.integers(1, 12), window=st.sampled_from([301, 601]))
def test_fig3_filter_on_a_series_shorter_than_the_window_is_not_comparable(days, window):
    """A few days of real data cannot hold the paper's 300-h window: no filtered series, and the claim row is 'not
    comparable', naming the window and the series length (it must not pass or fail on a filter that did not run)."""
    from dpgrid.core.claims import NOT_COMPARABLE

    t = np.arange(days * 24)
    avg = 1.0 + np.sin(2 * np.pi * t / 24)
    noisy = avg + 0.75 * np.random.default_rng(2).standard_normal(t.size)
    filt, row = filter_reading(avg, noisy, window, 1)
    assert filt is None and np.isnan(row["rmse_filtered"])
    info = {**_info(avg, noisy, window), "series_samples": t.size}
    m = figure_measures.fig3_filter(SimpleNamespace(pit=info))
    assert m.status == NOT_COMPARABLE
    assert f"{window} samples" in m.note and f"{t.size} samples" in m.note

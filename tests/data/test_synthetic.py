"""Tests of the offline synthetic meter-data model (dpgrid.data.synthetic)."""

import hashlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgrid.data.meter import MeterData, MeterDataError, validate_readings
from dpgrid.data.profiles import daily_profiles, daily_profiles_from_files
from dpgrid.data.sources import load_experiment_data, write_experiment_data
from dpgrid.data.synthetic import synthesize_meter_blocks, synthesize_meter_data
from dpgrid.data.synthetic_base import event_energy, interval_fraction, meter_ids

START = "2019-01-07"  # a Monday


@pytest.fixture(scope="module")
def hourly():
    return synthesize_meter_data(60, 3, START, 28, 60, np.random.default_rng(11))


@pytest.fixture(scope="module")
def quarter_hour():
    return synthesize_meter_data(40, 0, START, 21, 15, np.random.default_rng(12))


def test_shapes_dtypes_ids_and_validation(hourly):
    r, m = hourly.readings, hourly.meters
    assert list(r.columns) == ["meter_id", "timestamp", "kw"]
    assert len(r) == 63 * 28 * 24
    assert r["timestamp"].dtype == np.dtype("datetime64[ns]")
    assert r["kw"].dtype == np.float64
    assert list(m["meter_id"][:2]) == ["R0001", "R0002"] and list(m["meter_id"][-3:]) == ["C001", "C002", "C003"]
    assert (m["customer_class"] == "residential").sum() == 60 and (m["customer_class"] == "commercial").sum() == 3
    assert hourly.step == pd.Timedelta(hours=1)
    assert r["timestamp"].min() == pd.Timestamp(START)
    assert r["timestamp"].max() == pd.Timestamp(START) + pd.Timedelta(days=28) - pd.Timedelta(hours=1)
    v = validate_readings(r, "synthetic", min_samples=24)
    assert len(v) == len(r)


def test_meter_id_width_grows():
    assert meter_ids("R", 3, 4) == ["R0001", "R0002", "R0003"]
    assert meter_ids("C", 1200, 3)[-1] == "C1200"


def test_determinism_same_seed_identical_different_seed_differs():
    a = synthesize_meter_data(5, 1, START, 3, 30, np.random.default_rng(3))
    b = synthesize_meter_data(5, 1, START, 3, 30, np.random.default_rng(3))
    c = synthesize_meter_data(5, 1, START, 3, 30, np.random.default_rng(4))
    pd.testing.assert_frame_equal(a.readings, b.readings)
    pd.testing.assert_frame_equal(a.meters, b.meters)
    assert not np.allclose(a.readings["kw"], c.readings["kw"])


def test_strictly_positive_and_realistic_magnitudes(hourly, quarter_hour):
    for md in (hourly, quarter_hour):
        assert (md.readings["kw"] > 0).all()
        assert np.isfinite(md.readings["kw"]).all()
    w = quarter_hour.wide()
    means = w.mean()
    assert 0.3 < means.median() < 1.5
    assert ((means > 0.1) & (means < 4.0)).all()
    assert w.max().max() > 2.5  # appliance bursts reach several kW at 15 min


def test_commercial_much_larger_than_residential(hourly):
    means = hourly.wide().mean()
    res = means[[c for c in means.index if c.startswith("R")]]
    com = means[[c for c in means.index if c.startswith("C")]]
    assert com.min() > 10 * res.median()
    assert com.min() > res.max()  # outliers for K-means


def _acf(x, lag):
    x = x - x.mean()
    return float(np.dot(x[:-lag], x[lag:]) / np.dot(x, x))


def test_daily_periodicity(quarter_hour):
    w = quarter_hour.wide().to_numpy()
    spd = 96
    acf24 = np.array([_acf(w[:, i], spd) for i in range(w.shape[1])])
    acf12 = np.array([_acf(w[:, i], spd // 2) for i in range(w.shape[1])])
    assert np.median(acf24) > np.median(acf12) + 0.15
    assert np.mean(acf24 > acf12) > 0.8


def test_daily_shape_has_evening_peak_and_night_trough(quarter_hour):
    prof = quarter_hour.wide().mean(axis=1)
    by_hour = prof.groupby(prof.index.hour).mean()
    assert by_hour.loc[18:21].mean() > 1.5 * by_hour.loc[1:4].mean()


def test_weekday_weekend_difference(hourly):
    w = hourly.wide()
    res = w[[c for c in w.columns if c.startswith("R")]].mean(axis=1)
    com = w[[c for c in w.columns if c.startswith("C")]].mean(axis=1)
    midday = (res.index.hour >= 10) & (res.index.hour < 16)
    weekend = res.index.weekday >= 5
    # households are home more at weekends around midday; businesses are mostly closed
    assert res[midday & weekend].mean() > 1.1 * res[midday & ~weekend].mean()
    assert com[midday & weekend].mean() < 0.8 * com[midday & ~weekend].mean()
    # weekday mornings are earlier: 6-7 h load higher on weekdays
    early = res.index.hour == 6
    assert res[early & ~weekend].mean() > res[early & weekend].mean()


def test_heterogeneity_across_households(quarter_hour):
    w = quarter_hour.wide()
    means = w.mean()
    assert means.std() / means.mean() > 0.3  # coefficient of variation of household means
    # different schedules: the hour of each household's peak mean profile varies
    peak_hours = w.groupby(w.index.hour).mean().idxmax()
    assert peak_hours.nunique() >= 3
    corr = np.corrcoef(w.to_numpy().T)
    off = corr[~np.eye(len(corr), dtype=bool)]
    assert off.mean() < 0.6  # households are not copies of one profile


def test_seasonal_heating_component():
    rng = np.random.default_rng(5)
    winter = synthesize_meter_data(150, 0, "2019-01-07", 14, 60, rng).wide().mean().mean()
    rng = np.random.default_rng(5)
    spring = synthesize_meter_data(150, 0, "2019-04-22", 14, 60, rng).wide().mean().mean()
    assert winter > 1.15 * spring


def test_generation_at_step_is_consistent_with_finer_step():
    # Households, schedules and weather are drawn before any step-dependent draw, so the same seed
    # gives the same population at 60 and 5 minutes; the step only changes the integration, so the
    # mean load per household agrees (up to event/noise sampling), and hourly means of the 5-minute
    # series track the hourly series.
    a = synthesize_meter_data(200, 0, START, 7, 60, np.random.default_rng(8)).wide()
    b = synthesize_meter_data(200, 0, START, 7, 5, np.random.default_rng(8)).wide()
    assert abs(a.mean().mean() - b.mean().mean()) / b.mean().mean() < 0.03
    np.testing.assert_allclose(a.mean(), b.mean(), rtol=0.35)
    hourly_of_b = b.mean(axis=1).resample("h").mean()
    assert np.corrcoef(hourly_of_b, a.mean(axis=1))[0, 1] > 0.95


def test_event_energy_matches_fine_grid_integration():
    rng = np.random.default_rng(0)
    n_meters, n_steps, step_h = 3, 20, 0.25
    n_ev = 40
    h_idx = rng.integers(0, n_meters, n_ev)
    start = rng.uniform(0, n_steps * step_h, n_ev)
    dur = rng.uniform(0.01, 1.5, n_ev)
    power = rng.uniform(0.5, 3.0, n_ev)
    got = event_energy(h_idx, start, dur, power, n_meters, n_steps, step_h)
    # independent computation: exact overlap of each event with each interval, by loops
    want = np.zeros((n_meters, n_steps))
    for h, s, d, p in zip(h_idx, start, dur, power):
        for j in range(n_steps):
            a, b = j * step_h, (j + 1) * step_h
            want[h, j] += p * max(0.0, min(b, s + d) - max(a, s)) / step_h
    np.testing.assert_allclose(got, want, atol=1e-10)


def test_interval_fraction_spills_past_midnight():
    grid = np.arange(24.0)
    start = np.array([[22.0, 22.0]])
    end = np.array([[25.5, 23.0]])  # day 0: 22:00 -> 01:30 next day
    f = interval_fraction(start, end, grid, 1.0)
    assert f.shape == (1, 2, 24)
    np.testing.assert_allclose(f[0, 0, 22:], [1, 1])
    np.testing.assert_allclose(f[0, 1, :2], [1, 0.5])
    assert f[0, 1, 2:22].sum() == 0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_residential=0, n_commercial=0), "at least one meter"),
        (dict(step_minutes=7), "divide 1440"),
        (dict(start="2019-01-07 03:00"), "midnight"),
        (dict(days=0), "days"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = dict(n_residential=2, n_commercial=0, start=START, days=2, step_minutes=60)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        synthesize_meter_data(rng=np.random.default_rng(0), **args)


def test_kw_stream_pinned():
    # SHA-256 of the kW values computed with the one-pass model before it was split into blocks
    # (commit 5cb6785): the order of the random draws, and so every synthetic data set, is unchanged.
    md = synthesize_meter_data(9, 2, START, 3, 30, np.random.default_rng(3))
    digest = hashlib.sha256(md.readings["kw"].to_numpy().tobytes()).hexdigest()
    assert digest == "f008ba6c5795ac45e9e91a42903ae098fb66b264cc16c998a1db626a7f9bf66c"


@pytest.mark.parametrize("n_res, n_com, days, step, block", [(23, 2, 4, 60, 1), (23, 2, 4, 60, 5), (40, 0, 2, 15, 16)])
def test_blocks_are_the_one_pass_rows_bit_for_bit(n_res, n_com, days, step, block):
    # The household model draws each quantity for all households at once; in blocks it replays the
    # same stream: same rows bit for bit, blocks of the requested size, and the generator left where the
    # one-pass model leaves it (so anything drawn afterwards is unchanged too).
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    md = synthesize_meter_data(n_res, n_com, START, days, step, rng_a)
    meters, timestamps, blocks = synthesize_meter_blocks(n_res, n_com, START, days, step, rng_b, block=block)
    parts = list(blocks)
    assert [len(ids) for ids, _ in parts[: n_res // block]] == [block] * (n_res // block)
    kw = np.vstack([k for _, k in parts])
    assert [i for ids, _ in parts for i in ids] == list(meters["meter_id"])
    pd.testing.assert_frame_equal(meters, md.meters)
    assert kw.shape == (n_res + n_com, len(timestamps))
    np.testing.assert_array_equal(kw.ravel().view(np.int64), md.readings["kw"].to_numpy().view(np.int64))
    assert rng_a.random() == rng_b.random()


def test_blocks_reject_empty_block():
    with pytest.raises(ValueError, match="block"):
        list(synthesize_meter_blocks(5, 0, START, 1, 60, np.random.default_rng(0), block=0)[2])


def test_write_experiment_data_streams_the_bytes_of_load_and_save(tmp_path):
    # Rule meter_data writes the synthetic source block by block (memory bounded whatever the number of
    # meters): the files are those of the whole table saved at once, for any block size.
    spec = {
        "source": "synthetic",
        "start": START,
        "days": 3,
        "step_minutes": 60,
        "n_residential": 11,
        "n_commercial": 2,
    }
    md = load_experiment_data(spec, np.random.default_rng(5), name="x")
    md.save(tmp_path / "whole_r.csv", tmp_path / "whole_m.csv")
    for cells in (72, 5 * 72, 10**6):  # blocks of 1 and 5 households, and one block
        info = write_experiment_data(
            spec, np.random.default_rng(5), tmp_path / "r.csv", tmp_path / "m.csv", name="x", block_cells=cells
        )
        assert (tmp_path / "r.csv").read_bytes() == (tmp_path / "whole_r.csv").read_bytes()
        assert (tmp_path / "m.csv").read_bytes() == (tmp_path / "whole_m.csv").read_bytes()
        means = md.readings.groupby("meter_id")["kw"].mean()
        assert info["n_meters"] == 13 and info["n_readings"] == 13 * 72 and info["step"] == pd.Timedelta(hours=1)
        assert info["mean_kw_min"] == pytest.approx(means.min()) and info["mean_kw_max"] == pytest.approx(means.max())


def test_daily_profiles_from_files_in_blocks_equal_one_pass(tmp_path):
    # Rule dpkmeans_profiles reads the readings file in blocks of rows: for any block size (cutting a
    # meter in two, or many meters per block) the profiles are those of the whole file, bit for bit.
    md = synthesize_meter_data(9, 2, START, 3, 30, np.random.default_rng(1))
    md.save(tmp_path / "r.csv", tmp_path / "m.csv")
    want = daily_profiles(MeterData.load(tmp_path / "r.csv", tmp_path / "m.csv"))
    assert len(want) == 11
    for rows in (7, 144, 145, 10_000):
        got = daily_profiles_from_files(tmp_path / "r.csv", tmp_path / "m.csv", chunk_rows=rows)
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    # a meter whose rows are not together is refused (the file is not one written by rule meter_data)
    lines = (tmp_path / "r.csv").read_text().splitlines()
    # (meter R0001's last reading moved after meter R0002's readings)
    (tmp_path / "bad.csv").write_text("\n".join([lines[0], *lines[1:144], *lines[145:289], lines[144]]) + "\n")
    with pytest.raises(MeterDataError, match="not together"):
        daily_profiles_from_files(tmp_path / "bad.csv", tmp_path / "m.csv", chunk_rows=50)


#: Texts pandas reads as missing by default (each is a legal meter id) and plain ids.
_NA_LIKE = ["NA", "nan", "NaN", "None", "N/A", "n/a", "NULL", "null", "#N/A", "<NA>", "#NA", "#N/A N/A", "1.#IND"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ids=st.lists(st.sampled_from([*_NA_LIKE, "M1", "M2"]), min_size=1, max_size=4, unique=True),
    rows=st.integers(5, 200),
)
def test_daily_profiles_from_files_keep_na_like_meter_ids(tmp_path_factory, ids, rows):
    """Rule dpkmeans_profiles reads the canonical files: a meter called NA, None, #N/A... keeps its id and its
    profile (that of MeterData.load, which reads ids verbatim), for any block size."""
    d = tmp_path_factory.mktemp("na_ids")
    md = synthesize_meter_data(len(ids), 0, START, 2, 60, np.random.default_rng(3))
    rename = dict(zip(md.meters["meter_id"], ids))
    MeterData(
        md.readings.assign(meter_id=md.readings["meter_id"].map(rename)),
        md.meters.assign(meter_id=md.meters["meter_id"].map(rename)),
        "test",
    ).save(d / "r.csv", d / "m.csv")
    want = daily_profiles(MeterData.load(d / "r.csv", d / "m.csv"))
    got = daily_profiles_from_files(d / "r.csv", d / "m.csv", chunk_rows=rows)
    assert sorted(got["meter_id"]) == sorted(ids)
    pd.testing.assert_frame_equal(got, want, check_exact=True)

"""Tests of the real-format loaders, resampling, load_experiment_data and the meter_data job."""

import hashlib
import re

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.csv_loader import load_csv
from dpgrid.data.jobs import meter_data_job
from dpgrid.data.meter import MeterData, MeterDataError
from dpgrid.data.resample import resample_to_step
from dpgrid.data.sources import load_experiment_data
from dpgrid.data.uci_eld import load_uci_eld
from dpgrid.data.uci_household import load_uci_household
from tests.helpers.formats import write_eld, write_readings_csv, write_uci_household
from tests.helpers.repo import REPO

HEAD = REPO.parent / "shared" / "data" / "uci_household" / "household_power_consumption_head.txt"
RESAMPLE = dict(min_coverage=0.8, max_fill_intervals=8)


# ------------------------------------------------------------------------------------------- UCI household


@pytest.mark.skipif(not HEAD.is_file(), reason="../shared/data mirror not present")
def test_uci_household_real_excerpt_matches_independent_resampling():
    md, report = load_uci_household(HEAD, start="2006-12-17", days=1, step_minutes=15, **RESAMPLE)
    assert list(md.meters["meter_id"]) == ["UCI_HH"] and md.step == pd.Timedelta(minutes=15)
    assert len(md.readings) == 96 and report.dropped["UCI_HH"] == 0
    raw = pd.read_csv(HEAD, sep=";", na_values="?")
    ts = pd.to_datetime(raw["Date"] + " " + raw["Time"], dayfirst=True)
    want = raw.set_index(ts)["Global_active_power"].resample("15min").mean().loc["2006-12-17"]
    np.testing.assert_allclose(md.readings["kw"].to_numpy(), want.to_numpy(), rtol=1e-12)
    assert md.readings["timestamp"].iloc[0] == pd.Timestamp("2006-12-17")


@pytest.mark.skipif(not HEAD.is_file(), reason="../shared/data mirror not present")
def test_uci_household_window_beyond_excerpt_is_a_clear_error():
    with pytest.raises(MeterDataError, match=r"household_power_consumption_head\.txt.*gap of"):
        load_uci_household(HEAD, start="2006-12-17", days=3, step_minutes=15, **RESAMPLE)
    with pytest.raises(MeterDataError, match="outside the file's data"):
        load_uci_household(HEAD, start="2010-01-01", days=1, step_minutes=15, **RESAMPLE)


def test_uci_household_missing_minutes_coverage_rule(tmp_path):
    # 3 hours at 1 minute; 60-minute step. Hour 0: 12 of 60 missing (80 % present: kept, mean of the
    # rest); hour 1: 13 missing (below 80 %: dropped and interpolated); hour 2 complete.
    kw = ["1.0"] * 180
    for i in range(12):
        kw[i] = "?"
    kw[12:60] = ["2.0"] * 48
    for i in range(60, 73):
        kw[i] = "?"
    kw[120:180] = ["5.0"] * 60
    path = write_uci_household(tmp_path / "hh.txt", kw)
    # the 3-hour file does not fill a day: give a window of one day with a big gap allowance
    md, report = load_uci_household(
        path, start="2007-01-01", days=1, step_minutes=60, min_coverage=0.8, max_fill_intervals=24
    )
    kwh = md.readings["kw"].to_numpy()
    assert kwh[0] == pytest.approx(2.0)  # kept: mean of the present minutes only
    assert kwh[1] == pytest.approx((2.0 + 5.0) / 2)  # dropped, linearly interpolated
    assert kwh[2] == pytest.approx(5.0)
    assert report.dropped["UCI_HH"] == 1 + 21 and report.filled["UCI_HH"] == 22
    with pytest.raises(MeterDataError, match=r"gap of 21 interval"):
        load_uci_household(path, start="2007-01-01", days=1, step_minutes=60, min_coverage=0.8, max_fill_intervals=8)


def test_uci_household_bad_value_names_file_and_line(tmp_path):
    kw = ["1.0"] * 30
    kw[6] = "abc"
    path = write_uci_household(tmp_path / "bad.txt", kw)
    with pytest.raises(
        MeterDataError,
        match=r"bad\.txt: field 'Global_active_power' is not a number .* in line\(s\) 8 "
        r"\('abc'\)",
    ):
        load_uci_household(path, start="2007-01-01", days=1, step_minutes=15, **RESAMPLE)


def _minute_series(days: int, start="2007-01-01"):
    """Minute loads that identify their date and time: kw = 1 + day index / 10 + minute of day / 2000."""
    t = pd.date_range(start, periods=days * 1440, freq="min")
    kw = 1.0 + (t - pd.Timestamp(start)).days.to_numpy() / 10 + (t.hour * 60 + t.minute).to_numpy() / 2000
    return t, np.round(kw, 3)


def test_uci_household_pseudo_meters_windows_weekday_and_values(tmp_path):
    t, kw = _minute_series(40)  # 2007-01-01 (a Monday) .. 2007-02-09
    path = write_uci_household(tmp_path / "hh.txt", kw)
    md, report = load_uci_household(path, start="2007-01-03", days=3, step_minutes=60, pseudo_meters=4, **RESAMPLE)
    ids = ["UCI_HH_w001", "UCI_HH_w002", "UCI_HH_w003", "UCI_HH_w004"]
    assert list(md.meters["meter_id"]) == ids and set(md.meters["customer_class"]) == {"residential"}
    assert report.skipped == {} and report.intervals == 72
    w = md.wide()
    # every pseudo-meter is on the first window's axis: 3 days from Wednesday 2007-01-03 midnight
    assert list(w.index) == list(pd.date_range("2007-01-03", periods=72, freq="h"))
    hourly = pd.Series(kw, index=t).resample("h").mean()
    for k, wid in enumerate(ids):
        # stride 7 days (3 rounded up to a week): window k starts on Wednesday 2007-01-03 + 7 k days
        w0 = pd.Timestamp("2007-01-03") + pd.Timedelta(days=7 * k)
        assert w0.weekday() == 2
        np.testing.assert_allclose(
            w[wid].to_numpy(), hourly.loc[w0 : w0 + pd.Timedelta(hours=71)].to_numpy(), rtol=1e-12
        )


def test_uci_household_pseudo_meters_whole_weeks_are_adjacent(tmp_path):
    t, kw = _minute_series(21)
    path = write_uci_household(tmp_path / "hh.txt", kw)
    md, _ = load_uci_household(path, start="2007-01-01", days=7, step_minutes=1440, pseudo_meters=3, **RESAMPLE)
    daily = pd.Series(kw, index=t).resample("D").mean().to_numpy()
    np.testing.assert_allclose(md.wide().to_numpy().T.ravel(), daily, rtol=1e-12)  # the 3 weeks, no day left out
    with pytest.raises(
        MeterDataError,
        match=r"only 3 usable window\(s\) of 7 day\(s\) \(every 7 days from "
        r"2007-01-01, a Monday\).*pseudo_meters = 4 requested",
    ):
        load_uci_household(path, start="2007-01-01", days=7, step_minutes=1440, pseudo_meters=4, **RESAMPLE)


def test_uci_household_pseudo_meters_skip_windows_with_gaps(tmp_path):
    t, kw = _minute_series(40)
    kw = kw.astype(object)
    kw[(t >= "2007-01-11") & (t < "2007-01-12 12:00")] = "?"  # 36-hour outage inside window 2
    kw[(t >= "2007-01-17 03:00") & (t < "2007-01-17 05:00")] = "?"  # 2-hour outage in window 3: filled
    path = write_uci_household(tmp_path / "hh.txt", kw)
    md, report = load_uci_household(path, start="2007-01-03", days=3, step_minutes=60, pseudo_meters=3, **RESAMPLE)
    assert list(md.meters["meter_id"]) == ["UCI_HH_w001", "UCI_HH_w003", "UCI_HH_w004"]
    assert list(report.skipped) == ["UCI_HH_w002"]
    assert (
        "gap of 36 interval" in report.skipped["UCI_HH_w002"]
        and "2007-01-10 .. 2007-01-13" in report.skipped["UCI_HH_w002"]
    )
    assert report.filled["UCI_HH_w003"] == 2 and report.filled["UCI_HH_w001"] == 0
    assert "1 window(s) skipped (UCI_HH_w002)" in report.summary()
    # 6 candidate windows end within the 40 days (the last one on 2007-02-10 00:00); one is skipped: 5 usable
    with pytest.raises(
        MeterDataError,
        match=r"hh\.txt: only 5 usable window.*pseudo_meters = 6 requested.*"
        r"1 window\(s\) skipped for gaps, e\.g\. UCI_HH_w002: .*gap of 36",
    ):
        load_uci_household(path, start="2007-01-03", days=3, step_minutes=60, pseudo_meters=6, **RESAMPLE)


def test_uci_household_pseudo_meters_through_load_experiment_data(tmp_path):
    _, kw = _minute_series(15)
    path = write_uci_household(tmp_path / "hh.txt", kw)
    spec = dict(source="uci_household", start="2007-01-01", days=2, step_minutes=30, pseudo_meters=2)
    md = load_experiment_data(spec, np.random.default_rng(0), resample=RESAMPLE, input_path=path, name="dpkmeans")
    assert list(md.meters["meter_id"]) == ["UCI_HH_w001", "UCI_HH_w002"] and len(md.readings) == 2 * 96
    one = load_experiment_data(
        dict(spec, pseudo_meters=None), np.random.default_rng(0), resample=RESAMPLE, input_path=path, name="dpkmeans"
    )
    assert list(one.meters["meter_id"]) == ["UCI_HH"]
    np.testing.assert_array_equal(one.readings["kw"].to_numpy(), md.wide()["UCI_HH_w001"].to_numpy())
    spec.pop("pseudo_meters")
    with pytest.raises(MeterDataError, match=r"data\.experiments\.dpkmeans: missing key 'pseudo_meters'"):
        load_experiment_data(spec, np.random.default_rng(0), resample=RESAMPLE, input_path=path, name="dpkmeans")


DATA_SCHEMA = str(REPO / "workflow" / "schemas" / "data.schema.yaml")


@pytest.mark.parametrize(
    "spec,error",
    [
        (dict(source="uci_household", pseudo_meters=None), None),
        (dict(source="uci_household", pseudo_meters=24), None),
        (dict(source="uci_household"), "'pseudo_meters' is a required property"),  # null = one meter, explicitly
        (dict(source="uci_household", pseudo_meters=0), r"experiments\.dpkmeans\.pseudo_meters = 0 is not valid"),
        (dict(source="uci_household", pseudo_meters="24"), r"experiments\.dpkmeans\.pseudo_meters = '24' is not valid"),
        (
            dict(source="uci_eld", n_meters=5, pseudo_meters=3),
            r"experiments\.dpkmeans = 'pseudo_meters' is not valid: 'pseudo_meters' is not one of \['n_meters'\]",
        ),
        (dict(source="csv", readings="r.csv", meters=None, pseudo_meters=3), None),  # issue 28 (6)
        (
            dict(source="csv", readings="r.csv", pseudo_meters=0),
            r"experiments\.dpkmeans\.pseudo_meters = 0 is not valid",
        ),
        (
            dict(source="synthetic", n_residential=3, n_commercial=0, pseudo_meters=3),
            r"experiments\.dpkmeans = 'pseudo_meters' is not valid",
        ),
    ],
    ids=[
        "uci_household-null",
        "uci_household-24",
        "uci_household-missing",
        "uci_household-0",
        "uci_household-str",
        "uci_eld",
        "csv",
        "csv-0",
        "synthetic",
    ],
)
def test_schema_pseudo_meters_only_for_uci_household_and_csv(spec, error):
    import yaml

    from dpgrid.core.config import ConfigError, validate_config

    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    validate_config(cfg["data"], DATA_SCHEMA)  # the shipped data section (with the papers' stand-in sources) is valid
    cfg["data"]["experiments"]["dpkmeans"] = dict(start="2007-01-01", days=3, step_minutes=60, **spec)
    if error is None:
        validate_config(cfg["data"], DATA_SCHEMA)
    else:
        with pytest.raises(ConfigError, match=re.compile(error, re.S)):
            validate_config(cfg["data"], DATA_SCHEMA)


# ------------------------------------------------------------------------------------------- UCI ELD


def test_uci_eld_units_label_shift_late_start_and_selection(tmp_path):
    rng = np.random.default_rng(0)
    n = 96 * 3
    vals = rng.uniform(1.0, 50.0, (n, 4)).round(6)
    vals[: 96 + 8, 0] = 0.0  # MT_001 starts on day 2 at 02:00: ineligible for a window from day 2
    vals[96 * 2 + 10 : 96 * 2 + 20, 2] = 0.0  # MT_003: short zero run (2.5 h): still eligible
    path = write_eld(tmp_path / "LD.txt", "2011-01-01 00:15:00", vals)
    md, _ = load_uci_eld(path, start="2011-01-02", days=1, step_minutes=60, n_meters=2, **RESAMPLE)
    assert list(md.meters["meter_id"]) == ["MT_002", "MT_003"]
    assert set(md.meters["customer_class"]) == {"unknown"}
    # label 00:15 is the interval 00:00-00:15: the hour starting 2011-01-02 00:00 averages file rows 96..99
    w = md.wide()
    np.testing.assert_allclose(w["MT_002"].iloc[0], vals[96:100, 1].mean(), rtol=1e-9)
    np.testing.assert_allclose(w["MT_002"].to_numpy(), vals[96:192, 1].reshape(24, 4).mean(axis=1), rtol=1e-9)
    with pytest.raises(MeterDataError, match=r"only 3 client\(s\) are active"):
        load_uci_eld(path, start="2011-01-02", days=1, step_minutes=60, n_meters=4, **RESAMPLE)
    # from day 3 on MT_001 is active
    md3, _ = load_uci_eld(path, start="2011-01-03", days=1, step_minutes=15, n_meters=4, **RESAMPLE)
    np.testing.assert_allclose(md3.wide()["MT_001"].to_numpy(), vals[192:, 0], rtol=1e-9)


def test_uci_eld_march_dst_zeros_are_filled(tmp_path):
    vals = np.full((96 * 2, 2), 10.0)
    vals[:, 1] = 20.0
    # 2012-03-25 is the last Sunday of March; labels 01:15..02:00 (intervals 01:00-02:00) are zero
    labels = pd.date_range("2012-03-24 00:15:00", periods=len(vals), freq="15min")
    zero = (labels > pd.Timestamp("2012-03-25 01:00")) & (labels <= pd.Timestamp("2012-03-25 02:00"))
    vals[zero] = 0.0
    path = write_eld(tmp_path / "LD.txt", "2012-03-24 00:15:00", vals)
    md, report = load_uci_eld(path, start="2012-03-25", days=1, step_minutes=15, n_meters=2, **RESAMPLE)
    # the window ends at the last full interval in the file; last label 2012-03-26 00:00 -> start 23:45
    w = md.wide()
    assert (w > 0).all().all()
    np.testing.assert_allclose(w["MT_001"], 10.0)
    assert report.filled["MT_001"] == 4


def test_uci_eld_bad_number_names_line(tmp_path):
    vals = np.full((96, 2), 3.0)
    path = write_eld(tmp_path / "LD.txt", "2011-01-01 00:15:00", vals)
    lines = path.read_text().splitlines()
    lines[5] = lines[5].rsplit(";", 1)[0] + ";x,5"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(MeterDataError, match=r"LD\.txt: field 'MT_002' is not a number in line 6 \(value 'x,5'\)"):
        load_uci_eld(path, start="2011-01-01", days=1, step_minutes=60, n_meters=1, **RESAMPLE)


# ------------------------------------------------------------------------------------------- CSV


def _good_rows(days=2, step="30min", meters=("A", "B")):
    t = pd.date_range("2020-03-02", periods=days * 48 if step == "30min" else days * 24, freq=step)
    rows = []
    for k, m in enumerate(meters):
        rows += [(m, f"{x:%Y-%m-%d %H:%M:%S}", 0.5 + k + 0.01 * i) for i, x in enumerate(t)]
    return rows


def test_csv_roundtrip_with_meters_and_resampling(tmp_path):
    readings = write_readings_csv(tmp_path / "r.csv", _good_rows())
    meters = tmp_path / "m.csv"
    meters.write_text("meter_id,customer_class\nB,commercial\nA,residential\n")
    md, _ = load_csv(readings, meters, start="2020-03-02", days=2, step_minutes=60, **RESAMPLE)
    assert md.step == pd.Timedelta(hours=1)
    assert dict(zip(md.meters["meter_id"], md.meters["customer_class"])) == {"A": "residential", "B": "commercial"}
    a = md.wide()["A"].to_numpy()
    want = (0.5 + 0.01 * np.arange(96)).reshape(48, 2).mean(axis=1)
    np.testing.assert_allclose(a, want, rtol=1e-12)
    md2, _ = load_csv(readings, None, start="2020-03-02", days=1, step_minutes=30, **RESAMPLE)
    assert set(md2.meters["customer_class"]) == {"residential"} and len(md2.readings) == 96


def test_csv_meters_keep_file_order(tmp_path):
    rows = _good_rows(days=1, meters=("Z9", "A1", "M5"))
    readings = write_readings_csv(tmp_path / "r.csv", rows)
    md, _ = load_csv(readings, None, start="2020-03-02", days=1, step_minutes=60, **RESAMPLE)
    assert list(md.meters["meter_id"]) == ["Z9", "A1", "M5"] and list(md.wide().columns) == ["Z9", "A1", "M5"]
    np.testing.assert_allclose(md.wide()["Z9"].iloc[0], 0.505)  # first meter of the file: 0.5 + 0.01 * (0, 1) / 2
    meters = tmp_path / "m.csv"
    meters.write_text("meter_id,customer_class\nA1,commercial\nM5,residential\nZ9,residential\n")
    md, _ = load_csv(readings, meters, start="2020-03-02", days=1, step_minutes=60, **RESAMPLE)
    assert list(md.meters["meter_id"]) == ["Z9", "A1", "M5"] and list(md.meters["customer_class"]) == [
        "residential",
        "commercial",
        "residential",
    ]


BAD = {
    "non-numeric": (
        lambda r: r.__setitem__(5, ("A", r[5][1], "high")),
        r"field 'kw' is not numeric in row\(s\) 7 \('high'\)",
    ),
    "implausible": (
        lambda r: r.__setitem__(3, ("A", r[3][1], -51.0)),
        r"field 'kw' is outside the plausible range \[-50, 500\] kW in row\(s\) 5 \(-51\)",
    ),
    "duplicate": (
        lambda r: r.__setitem__(2, r[1]),
        r"duplicate \(meter_id, timestamp\) in row\(s\) 4 "
        r"\('A, 2020-03-02 00:30:00 as in row 3'\)",
    ),
    "too short": (
        lambda r: r.append(("C", "2020-03-02 00:00:00", 1.0)),
        r"meter 'C' has a gap of 47 interval\(s\) of 30 min in the window: first missing 2020-03-02 00:30:00, "
        r"last missing 2020-03-02 23:30:00",
    ),
    "bad timestamp": (
        lambda r: r.__setitem__(1, ("A", "yesterday", 1.0)),
        r"'timestamp' is not an ISO 8601 date-time in row\(s\) 3 \('yesterday'\)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_csv_bad_input_clear_error(tmp_path, case):
    rows = _good_rows(days=1)
    mutate, pattern = BAD[case]
    mutate(rows)
    path = write_readings_csv(tmp_path / "bad.csv", rows)
    with pytest.raises(MeterDataError, match=r"bad\.csv: .*" + pattern):
        load_csv(path, None, start="2020-03-02", days=1, step_minutes=30, **RESAMPLE)


def test_csv_rules_that_replaced_old_rejections(tmp_path):
    """Formerly rejected, now handled by the documented rules: a missing row or a NaN reading is a gap
    (filled), rows in any order are sorted, a negative load inside the plausible range is kept."""
    rows = _good_rows(days=1)
    a = [r for r in rows if r[0] == "A"]
    clean, _ = load_csv(
        write_readings_csv(tmp_path / "clean.csv", rows), None, start="2020-03-02", days=1, step_minutes=30, **RESAMPLE
    )
    kw = clean.wide()["A"].to_numpy()
    gap = [r for r in rows if r != a[10]]  # row of 05:00 missing
    md, rep = load_csv(
        write_readings_csv(tmp_path / "gap.csv", gap), None, start="2020-03-02", days=1, step_minutes=30, **RESAMPLE
    )
    assert rep.filled == {"A": 1, "B": 0}
    np.testing.assert_allclose(md.wide()["A"].to_numpy(), kw, rtol=1e-12)  # a linear ramp: interpolation is exact
    nan = [(m, t, float("nan") if (m, t) == a[10][:2] else v) for m, t, v in rows]
    md, rep = load_csv(
        write_readings_csv(tmp_path / "nan.csv", nan), None, start="2020-03-02", days=1, step_minutes=30, **RESAMPLE
    )
    assert rep.filled == {"A": 1, "B": 0}
    np.testing.assert_allclose(md.wide()["A"].to_numpy(), kw, rtol=1e-12)
    shuffled = [rows[i] for i in np.random.default_rng(0).permutation(len(rows))]
    md, _ = load_csv(
        write_readings_csv(tmp_path / "shuffled.csv", shuffled),
        None,
        start="2020-03-02",
        days=1,
        step_minutes=30,
        **RESAMPLE,
    )
    pd.testing.assert_frame_equal(md.readings, clean.readings)
    neg = [(m, t, -1.5 if (m, t) == a[3][:2] else v) for m, t, v in rows]
    md, _ = load_csv(
        write_readings_csv(tmp_path / "neg.csv", neg), None, start="2020-03-02", days=1, step_minutes=30, **RESAMPLE
    )
    assert md.wide()["A"].iloc[3] == -1.5


def test_csv_window_not_covered_and_meters_mismatch(tmp_path):
    path = write_readings_csv(tmp_path / "r.csv", _good_rows(days=1))
    with pytest.raises(MeterDataError, match=r"r\.csv: meter 'A' has a gap of 24 interval"):
        load_csv(path, None, start="2020-03-02", days=2, step_minutes=60, **RESAMPLE)
    meters = tmp_path / "m.csv"
    meters.write_text("meter_id,customer_class\nA,residential\n")
    with pytest.raises(MeterDataError, match=r"m\.csv: meter\(s\) 'B' \(first in row 50\) of .*r\.csv are not listed"):
        load_csv(path, meters, start="2020-03-02", days=1, step_minutes=60, **RESAMPLE)
    with pytest.raises(MeterDataError, match="multiple of the source step"):
        load_csv(path, None, start="2020-03-02", days=1, step_minutes=20, **RESAMPLE)


def test_resample_to_step_counts_and_errors():
    idx = pd.date_range("2021-01-01", periods=8, freq="min")
    wide = pd.DataFrame({"m": [1, 1, np.nan, 3, np.nan, np.nan, np.nan, 9.0]}, index=idx)
    out, rep = resample_to_step(
        wide,
        pd.Timedelta("1min"),
        pd.Timedelta("4min"),
        idx[0],
        idx[0] + pd.Timedelta("8min"),
        min_coverage=0.75,
        max_fill_intervals=1,
        source="s",
    )
    assert out["m"].tolist() == [
        pytest.approx(5 / 3),
        pytest.approx(5 / 3),
    ]  # second interval (25 %) filled from the first
    assert rep.dropped == {"m": 1} and rep.filled == {"m": 1}


# ------------------------------------------------------------------------------------------- sources and the job


def test_load_experiment_data_synthetic_uses_rng_and_window():
    spec = dict(source="synthetic", start="2019-01-07", days=2, step_minutes=60, n_residential=3, n_commercial=1)
    a = load_experiment_data(spec, np.random.default_rng(1), name="x")
    b = load_experiment_data(spec, np.random.default_rng(1), name="x")
    pd.testing.assert_frame_equal(a.readings, b.readings)
    assert len(a.readings) == 4 * 48
    with pytest.raises(MeterDataError, match="data.experiments.x.source is 'pecan'"):
        load_experiment_data(dict(spec, source="pecan"), np.random.default_rng(1), name="x")


def _job(rule_job, tmp_path, spec, seed=7, raw=None):
    """The meter_data job of experiment classdp_forecast with ``spec`` as its data spec (real rule params)."""
    from dpgrid.data.download import write_digest

    out = tmp_path / "resources" / "meters" / "classdp_forecast"
    inputs = {}
    if raw is not None:
        inputs = {"raw": str(raw), "raw_digest": str(write_digest(raw))}  # as the download rule leaves it
    job = rule_job(
        "meter_data",
        wildcards={"experiment": "classdp_forecast"},
        config={"seed": seed, "data": {"resample": RESAMPLE, "experiments": {"classdp_forecast": spec}}},
        input=inputs,
        output=dict(readings=out / "readings.csv", meters=out / "meters.csv"),
        targets=["resources/quick/meters/classdp_forecast/readings.csv"],  # the quick run; papers may refuse
    )
    return job, out


def _bad_uci(tmp_path):
    kw = ["1.0"] * (3 * 1440)
    kw[1500] = "-0.5"
    return (
        write_uci_household(tmp_path / "household_power_consumption.txt", kw),
        dict(source="uci_household", start="2007-01-01", days=3, step_minutes=60, pseudo_meters=None),
        r"household_power_consumption\.txt: field 'Global_active_power' is negative in line\(s\) 1502 "
        r"\('-0\.5'\)",
    )


def _bad_eld(tmp_path):
    path = write_eld(tmp_path / "LD2011_2014.txt", "2011-01-01 00:15:00", np.full((96 * 2, 3), 2.5))
    lines = path.read_text().splitlines()
    lines[100] = lines[100].replace(";2,5;", ";2;5;", 1)  # one field too many in line 101
    path.write_text("\n".join(lines) + "\n")
    return (
        path,
        dict(source="uci_eld", start="2011-01-01", days=1, step_minutes=60, n_meters=3),
        r"LD2011_2014\.txt: not in the ElectricityLoadDiagrams format .*Expected 4 fields in line 101, saw 5",
    )


def _bad_csv(tmp_path):
    rows = _good_rows(days=1)
    rows[7] = ("A", rows[7][1], "n/a")
    bad = write_readings_csv(tmp_path / "bad.csv", rows)
    return (
        None,
        dict(source="csv", start="2020-03-02", days=1, step_minutes=30, readings=str(bad), meters=None),
        r"bad\.csv: field 'kw' is not numeric in row\(s\) 9 \('n/a'\)",
    )


@pytest.mark.parametrize("make_bad", [_bad_uci, _bad_eld, _bad_csv], ids=["uci_household", "uci_eld", "csv"])
def test_meter_data_job_writes_nothing_on_bad_input(tmp_path, make_bad, rule_job):
    raw, spec, pattern = make_bad(tmp_path)
    job, out = _job(rule_job, tmp_path, spec, raw=raw)
    with pytest.raises(MeterDataError, match=pattern):
        meter_data_job(job)
    assert not (out / "readings.csv").exists() and not (out / "meters.csv").exists()
    assert not out.exists() or list(out.iterdir()) == []


def test_meter_data_job_is_byte_reproducible(tmp_path, rule_job):
    spec = dict(source="synthetic", start="2019-01-07", days=3, step_minutes=60, n_residential=4, n_commercial=1)
    digests = []
    for run in ("a", "b"):
        job, out = _job(rule_job, tmp_path / run, spec)
        meter_data_job(job)
        digests.append(hashlib.sha256((out / "readings.csv").read_bytes()).hexdigest())
        md = MeterData.load(out / "readings.csv", out / "meters.csv")
        assert len(md.meters) == 5 and md.step == pd.Timedelta(hours=1)
    assert digests[0] == digests[1]
    job, out = _job(rule_job, tmp_path / "c", spec, seed=8)
    meter_data_job(job)
    assert hashlib.sha256((out / "readings.csv").read_bytes()).hexdigest() != digests[0]


def test_longest_zero_run_matches_loop():
    from dpgrid.data.uci_eld import _longest_zero_run

    rng = np.random.default_rng(3)
    x = (rng.random((200, 7)) < 0.6).astype(float) * rng.random((200, 7))
    want = []
    for col in x.T:
        best = run = 0
        for v in col:
            run = run + 1 if v == 0 else 0
            best = max(best, run)
        want.append(best)
    np.testing.assert_array_equal(_longest_zero_run(x), want)


def test_csv_pseudo_meters_equal_the_uci_household_ones_and_need_one_meter(tmp_path):
    """Issue 28 (6): a one-home CSV cut into N pseudo-meters like uci_household: the same minute record written in
    both formats gives the same windows and values (ids <meter>_w001...), a window with a long gap is skipped,
    the meter's class is kept, and a file of several meters is an error naming the file, the key and the meters."""
    t, kw = _minute_series(40)
    kw_gap = kw.astype(object)
    kw_gap[(t >= "2007-01-11") & (t < "2007-01-12 12:00")] = "?"  # 36-hour outage inside window 2
    uci = write_uci_household(tmp_path / "hh.txt", kw_gap)
    present = np.asarray([v != "?" for v in kw_gap])
    csv = write_readings_csv(
        tmp_path / "home.csv",
        pd.DataFrame({"meter_id": "H7", "timestamp": t[present].strftime("%Y-%m-%d %H:%M:%S"), "kw": kw[present]}),
    )
    meters = tmp_path / "meters.csv"
    meters.write_text("meter_id,customer_class\nH7,commercial\n")
    kw_args = dict(start="2007-01-03", days=3, step_minutes=60, pseudo_meters=3, **RESAMPLE)
    ref, ref_report = load_uci_household(uci, **kw_args)
    md, report = load_csv(csv, meters, **kw_args)
    assert list(md.meters["meter_id"]) == ["H7_w001", "H7_w003", "H7_w004"]
    assert list(ref.meters["meter_id"]) == ["UCI_HH_w001", "UCI_HH_w003", "UCI_HH_w004"]
    assert set(md.meters["customer_class"]) == {"commercial"}
    assert list(report.skipped) == ["H7_w002"] and "gap of 36 interval" in report.skipped["H7_w002"]
    np.testing.assert_allclose(md.wide().to_numpy(), ref.wide().to_numpy(), rtol=1e-12)
    assert list(md.wide().index) == list(ref.wide().index)
    with pytest.raises(MeterDataError, match=r"only 5 usable window\(s\).*data\.experiments\.x\.pseudo_meters = 6"):
        load_csv(csv, None, key="data.experiments.x", **{**kw_args, "pseudo_meters": 6})
    two = write_readings_csv(
        tmp_path / "two.csv",
        [("A", "2007-01-03 00:00:00", 1.0), ("A", "2007-01-03 01:00:00", 1.0), ("B", "2007-01-03 00:00:00", 2.0)],
    )
    with pytest.raises(
        MeterDataError, match=r"two\.csv: data\.experiments\.x\.pseudo_meters .* has 2 meters \('A', 'B'\)"
    ):
        load_csv(two, None, key="data.experiments.x", **kw_args)

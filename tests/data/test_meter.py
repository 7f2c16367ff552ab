"""Tests of the canonical meter-data form and its validator (dpgrid.data.meter)."""

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.meter import MeterData, MeterDataError, validate_readings, write_readings


def _frame(n=6, meters=("A", "B"), step="15min"):
    t = pd.date_range("2021-05-03", periods=n, freq=step)
    rows = [(m, ts.isoformat(), 0.1 * (i + 1) + k) for k, m in enumerate(meters) for i, ts in enumerate(t)]
    return pd.DataFrame(rows, columns=["meter_id", "timestamp", "kw"]).astype({"kw": object})


def test_valid_frame_is_normalised_and_sorted():
    df = _frame().iloc[::-1].reset_index(drop=True)  # reversed rows: sorting is not validation
    df = df.sort_values(["meter_id", "timestamp"], ascending=[False, True]).reset_index(drop=True)
    out = validate_readings(df, "f.csv")
    assert list(out.columns) == ["meter_id", "timestamp", "kw"]
    assert out["timestamp"].dtype == np.dtype("datetime64[ns]") and out["kw"].dtype == np.float64
    assert list(out["meter_id"].unique()) == ["A", "B"]
    assert out.groupby("meter_id")["timestamp"].apply(lambda s: s.is_monotonic_increasing).all()


def test_strips_meter_ids_and_timezones():
    df = _frame(meters=(" A ",))
    df["timestamp"] = pd.to_datetime(df["timestamp"]).dt.tz_localize("UTC")
    out = validate_readings(df, "f.csv")
    assert set(out["meter_id"]) == {"A"} and out["timestamp"].dt.tz is None


@pytest.mark.parametrize(
    "mutate, pattern",
    [
        (lambda d: d.drop(columns="kw"), r"f\.csv: missing column\(s\) \['kw'\]"),
        (lambda d: d.assign(meter_id=d["meter_id"].where(d.index != 3, "  ")), r"'meter_id' is empty in row\(s\) 5"),
        (
            lambda d: d.assign(kw=d["kw"].where(d.index != 2, "1,5")),
            r"f\.csv: field 'kw' is not numeric in row\(s\) 4 \('1,5'\)",
        ),
        (lambda d: d.assign(kw=d["kw"].where(d.index != 1, np.nan)), r"'kw' is missing \(NaN\) in row\(s\) 3"),
        (lambda d: d.assign(kw=d["kw"].where(d.index != 4, -0.2)), r"'kw' is negative in row\(s\) 6"),
        (lambda d: d.assign(kw=d["kw"].where(d.index != 4, np.inf)), r"'kw' is infinite in row\(s\) 6"),
        (
            lambda d: d.assign(timestamp=d["timestamp"].where(d.index != 0, "31/02/2021")),
            r"'timestamp' is not an ISO 8601 date-time in row\(s\) 2 \('31/02/2021'\)",
        ),
    ],
)
def test_bad_fields_name_file_field_and_row(mutate, pattern):
    with pytest.raises(MeterDataError, match=pattern):
        validate_readings(mutate(_frame()), "f.csv")


def test_allow_flags():
    d = _frame()
    d.loc[2, "kw"] = -1.0
    d.loc[3, "kw"] = np.nan
    out = validate_readings(d, "f.csv", allow_negative=True, allow_nan=True)
    assert out["kw"].iloc[2] == -1.0 and np.isnan(out["kw"].iloc[3])


def test_duplicates_order_irregular_and_short_series():
    d = _frame()
    d.loc[1, "timestamp"] = d.loc[0, "timestamp"]
    with pytest.raises(MeterDataError, match=r"duplicate \(meter_id, timestamp\) in row\(s\) 3"):
        validate_readings(d, "f.csv")
    d = _frame()
    d.loc[[1, 2], "timestamp"] = d.loc[[2, 1], "timestamp"].to_numpy()
    with pytest.raises(
        MeterDataError,
        match=r"timestamps are not in increasing order per meter in row\(s\) 4 "
        r"\('A, 2021-05-03 00:15:00'\)",
    ):
        validate_readings(d, "f.csv")
    d = _frame(n=8).drop(index=4).reset_index(drop=True)
    with pytest.raises(
        MeterDataError,
        match=r"meter 'A' is sampled irregularly: the usual step is 15 min, but row\(s\) 6 "
        r"\('2021-05-03 01:15:00'\)",
    ):
        validate_readings(d, "f.csv")
    with pytest.raises(MeterDataError, match=r"too few readings \(at least 10 are needed\): 'A' \(6\), 'B' \(6\)"):
        validate_readings(_frame(), "f.csv", min_samples=10)


def test_row_offset_and_many_rows_are_summarised():
    d = _frame(n=20)
    d.loc[:, "kw"] = -1.0
    with pytest.raises(MeterDataError, match=r"row\(s\) 0 \(-1\), 1 \(-1\), 2 \(-1\), 3 \(-1\), 4 \(-1\) and 35 more"):
        validate_readings(d, "f.csv", row_offset=0)


def test_meterdata_save_load_roundtrip_select_wide_step(tmp_path):
    r = validate_readings(_frame(n=4, meters=("A", "B", "C")), "mem")
    m = pd.DataFrame({"meter_id": ["C", "A", "B"], "customer_class": ["commercial", "residential", "residential"]})
    md = MeterData(r, m, "mem")
    assert md.step == pd.Timedelta(minutes=15)
    assert list(md.wide().columns) == ["C", "A", "B"]  # metadata order
    sub = md.select(["B"])
    assert list(sub.meters["meter_id"]) == ["B"] and set(sub.readings["meter_id"]) == {"B"}
    md.save(tmp_path / "r.csv", tmp_path / "m.csv")
    back = MeterData.load(tmp_path / "r.csv", tmp_path / "m.csv")
    pd.testing.assert_frame_equal(back.readings, md.readings)
    pd.testing.assert_frame_equal(back.meters, md.meters)


def test_write_readings_blocks_give_the_bytes_of_save_and_fail_atomically(tmp_path):
    r = validate_readings(_frame(n=7, meters=("A", "B", "C")), "mem")
    m = pd.DataFrame({"meter_id": ["A", "B", "C"], "customer_class": ["residential"] * 3})
    MeterData(r, m, "mem").save(tmp_path / "whole.csv", tmp_path / "m.csv")
    # uneven blocks, an empty one, and pieces of 2 rows inside each block
    blocks = [r.iloc[:5], r.iloc[5:5], r.iloc[5:16], r.iloc[16:]]
    write_readings(tmp_path / "blocks.csv", blocks, chunk_rows=2)
    assert (tmp_path / "blocks.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()

    def failing():
        yield r.iloc[:5]
        raise MeterDataError("bad block")

    with pytest.raises(MeterDataError, match="bad block"):
        write_readings(tmp_path / "partial.csv", failing())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocks.csv", "m.csv", "whole.csv"]


def test_meterdata_rejects_missing_metadata_and_mixed_steps():
    r = validate_readings(_frame(), "mem")
    with pytest.raises(MeterDataError, match=r"mem: meter\(s\) \['B'\] have readings but no metadata"):
        MeterData(r, pd.DataFrame({"meter_id": ["A"], "customer_class": ["residential"]}), "mem")
    with pytest.raises(MeterDataError, match="lacks column"):
        MeterData(r, pd.DataFrame({"meter_id": ["A", "B"]}), "mem")
    a = validate_readings(_frame(meters=("A",), step="15min"), "mem")
    b = validate_readings(_frame(meters=("B",), step="30min"), "mem")
    md = MeterData(
        pd.concat([a, b], ignore_index=True),
        pd.DataFrame({"meter_id": ["A", "B"], "customer_class": ["residential"] * 2}),
        "mem",
    )
    with pytest.raises(MeterDataError, match="different sampling steps"):
        _ = md.step

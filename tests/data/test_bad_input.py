"""Bad bring-your-own meter data: one clear message per case (file, field, rows, value, what to do), and the
documented rules (time zones, DST, gaps, grid, plausible range, optional meters file) applied, never a
silent reinterpretation. One test per row of the hostile-user table (issue "bad meter data"), plus the
rules' positive side (what is accepted, with which values)."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.csv_loader import load_csv
from dpgrid.data.csvfile import read_readings_csv
from dpgrid.data.meter import MeterData, MeterDataError
from dpgrid.data.sources import load_experiment_data
from tests.helpers.formats import write_readings_csv
from tests.helpers.repo import REPO

RESAMPLE = {"min_coverage": 0.8, "max_fill_intervals": 8}
README = "see README 'Your own meter data'"


def _rows(meters=("A", "B"), start="2020-03-02", days=1, step="30min", kw=None):
    t = pd.date_range(start, periods=int(pd.Timedelta(days=days) / pd.Timedelta(step)), freq=step)
    out = []
    for k, m in enumerate(meters):
        out += [(m, f"{x:%Y-%m-%d %H:%M:%S}", (0.5 + k + 0.01 * i) if kw is None else kw) for i, x in enumerate(t)]
    return out


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _load(path, meters=None, start="2020-03-02", days=1, step_minutes=30, **kw):
    return load_csv(
        path,
        meters,
        start=start,
        days=days,
        step_minutes=step_minutes,
        **{**RESAMPLE, **{k: v for k, v in kw.items() if k in RESAMPLE}},
        **{k: v for k, v in kw.items() if k not in RESAMPLE},
    )


def _error(path, pattern, **kw) -> str:
    """The loader's error for ``path``: it names the file, matches ``pattern`` and points to the README."""
    with pytest.raises(MeterDataError) as e:
        _load(path, **kw)
    msg = str(e.value)
    assert str(path) in msg and re.search(pattern, msg, re.DOTALL), msg
    assert README in msg, msg
    return msg


def _aware(meter, local_start, local_end, step, zone, value=None):
    """Rows with ISO timestamps carrying the zone's UTC offset; kw = hours since the first instant (UTC)."""
    t0 = pd.Timestamp(local_start, tz=zone).tz_convert("UTC")
    utc = pd.date_range(t0, pd.Timestamp(local_end, tz=zone).tz_convert("UTC"), freq=step, inclusive="left")
    hours = (utc - t0) / pd.Timedelta(hours=1)
    return [
        (meter, t.isoformat(), round(1.0 + h, 6) if value is None else value)
        for t, h in zip(utc.tz_convert(zone), hours)
    ]


# ----------------------------------------------------------------------------------- time zones and DST


def test_mixed_offsets_across_dst_need_a_timezone_then_work(tmp_path):
    """Row 1: offsets change across the spring DST day (+01:00 then +02:00)."""
    rows = _aware("A", "2020-03-29", "2020-03-30", "15min", "Europe/Paris")
    assert rows[7][1].endswith("+01:00") and rows[-1][1].endswith("+02:00")
    path = write_readings_csv(tmp_path / "dst.csv", rows)
    msg = _error(
        path,
        r"field 'timestamp' carries a UTC offset but no time zone is set in row\(s\) 2 "
        r"\('2020-03-29T00:00:00\+01:00'\), 3 .* and 87 more; set data\.experiments\.<experiment>\."
        r"timezone",
        start="2020-03-29",
    )
    assert "Europe/Paris" in msg  # the example of what to write
    # with the rule: converted to Paris wall-clock time; the skipped hour 02:00-03:00 is filled even with
    # no gap allowance (it does not exist on the clock)
    md, rep = _load(path, start="2020-03-29", step_minutes=15, timezone="Europe/Paris", max_fill_intervals=0)
    w = md.wide()["A"]
    assert list(w.index) == list(pd.date_range("2020-03-29", periods=96, freq="15min"))
    assert w["2020-03-29 01:45"] == pytest.approx(1.0 + 1.75)  # 01:45+01:00 = 00:45Z
    assert w["2020-03-29 03:00"] == pytest.approx(1.0 + 2.0)  # 03:00+02:00 = 01:00Z
    np.testing.assert_allclose(
        w["2020-03-29 02:00":"2020-03-29 02:45"].to_numpy(), np.interp([1, 2, 3, 4], [0, 5], [2.75, 3.0])
    )  # linear between its neighbours
    assert rep.clock_gap == 4 and rep.dropped == {"A": 0} and rep.filled == {"A": 4}


def test_autumn_repeated_hour_is_averaged_under_the_rule(tmp_path):
    rows = _aware("A", "2020-10-25", "2020-10-26", "15min", "Europe/Paris")
    path = write_readings_csv(tmp_path / "autumn.csv", rows)
    r = read_readings_csv(path, timezone="Europe/Paris")
    assert r.folded == 4 and r.n_rows == 100  # 25 real hours
    md, _ = _load(path, start="2020-10-25", step_minutes=15, timezone="Europe/Paris")
    w = md.wide()["A"]
    assert len(w) == 96
    # local 02:00 occurs at 00:00Z (+02:00) and 01:00Z (+01:00): hours 2 and 3 after 22:00Z -> mean 2.5
    assert w["2020-10-25 02:00"] == pytest.approx(1.0 + 2.5)
    assert w["2020-10-25 03:00"] == pytest.approx(1.0 + 4.0)  # 03:00+01:00 = 02:00Z, 4 h after 22:00Z


def test_single_offset_is_not_dropped_silently(tmp_path):
    """Row 2: one offset everywhere (+01:00, or Z): rejected without a zone, converted with one."""
    utc = [
        ("A", f"{t:%Y-%m-%dT%H:%M:%S}Z", float(i))
        for i, t in enumerate(pd.date_range("2020-03-01 12:00", periods=96, freq="30min"))
    ]
    path = write_readings_csv(tmp_path / "utc.csv", utc)
    _error(
        path,
        r"field 'timestamp' carries a UTC offset but no time zone is set in row\(s\) 2 "
        r"\('2020-03-01T12:00:00Z'\)",
    )
    same, _ = _load(path, timezone="UTC")
    assert same.wide()["A"]["2020-03-02 00:00"] == 24.0  # UTC kept as UTC
    paris, _ = _load(path, timezone="Europe/Paris")
    assert paris.wide()["A"]["2020-03-02 00:00"] == 22.0  # 00:00 in Paris = 23:00Z (winter)
    plus1 = write_readings_csv(tmp_path / "plus1.csv", [(m, t[:-1] + "+01:00", v) for m, t, v in utc])
    _error(plus1, r"carries a UTC offset .* row\(s\) 2 \('2020-03-01T12:00:00\+01:00'\)")
    with pytest.raises(MeterDataError, match=r"unknown time zone 'Europe/Pariss'"):
        _load(plus1, timezone="Europe/Pariss")


def test_local_wall_clock_export_with_dst_says_dst(tmp_path):
    """Row 12: a naive local-time export: the autumn hour repeats (duplicates), the spring hour is missing."""
    t = pd.date_range("2020-10-25", "2020-10-26", freq="15min", inclusive="left")
    rows = [("A", f"{x:%Y-%m-%d %H:%M:%S}", 1.0) for x in t]
    rows[12:12] = [("A", f"{x:%Y-%m-%d %H:%M:%S}", 2.0) for x in t[8:12]]  # 02:00-02:45 again
    path = write_readings_csv(tmp_path / "local.csv", rows)
    _error(
        path,
        r"duplicate \(meter_id, timestamp\) in row\(s\) 14 "
        r"\('A, 2020-10-25 02:00:00 as in row 10'\), 15 .* 17 .*daylight saving time ends",
        start="2020-10-25",
        step_minutes=15,
    )
    _error(
        path,
        r"duplicate .* row\(s\) 14 .*Europe/Paris repeats when daylight saving time ends: naive "
        r"timestamps cannot tell",
        start="2020-10-25",
        step_minutes=15,
        timezone="Europe/Paris",
    )
    # spring, 5-minute data without 02:00-02:55: a gap of 12 > 8 intervals; the message says DST
    t = pd.date_range("2020-03-29", "2020-03-30", freq="5min", inclusive="left")
    rows = [("A", f"{x:%Y-%m-%d %H:%M:%S}", 1.0) for x in t if x.hour != 2]
    path = write_readings_csv(tmp_path / "spring.csv", rows)
    _error(
        path,
        r"meter 'A' has a gap of 12 interval\(s\) of 5 min in the window: first missing 2020-03-29 02:00:00, "
        r"last missing 2020-03-29 02:55:00; a one-hour gap: .*daylight saving time starts",
        start="2020-03-29",
        step_minutes=5,
    )
    md, rep = _load(path, start="2020-03-29", step_minutes=5, timezone="Europe/Paris")  # naive = Paris clock
    assert rep.clock_gap == 12 and len(md.readings) == 288
    # a naive time inside the skipped hour is named
    bad = write_readings_csv(tmp_path / "bad.csv", rows[:24] + [("A", "2020-03-29 02:30:00", 1.0)] + rows[24:])
    _error(
        bad,
        r"field 'timestamp' is a time that does not exist in Europe/Paris .* in row\(s\) 26 "
        r"\('2020-03-29 02:30:00'\)",
        start="2020-03-29",
        step_minutes=5,
        timezone="Europe/Paris",
    )


def test_offsets_and_naive_times_mixed_are_named(tmp_path):
    rows = _aware("A", "2020-03-02", "2020-03-03", "30min", "Europe/Paris")
    rows[5] = ("A", rows[5][1][:-6], rows[5][2])
    path = write_readings_csv(tmp_path / "mixed.csv", rows)
    _error(
        path,
        r"field 'timestamp' has no UTC offset in row\(s\) 7 \('2020-03-02T02:30:00'\); other rows carry "
        r"one, e\.g\. row\(s\) 2 \('2020-03-02T00:00:00\+01:00'\)",
        timezone="Europe/Paris",
    )


# ----------------------------------------------------------------------------------- gaps, grid, window


def test_one_missing_interval_is_filled_as_documented(tmp_path):
    """Row 3: one missing interval inside a meter's data is filled by linear interpolation."""
    rows = _rows()
    del rows[10]  # A at 05:00
    md, rep = _load(write_readings_csv(tmp_path / "gap.csv", rows))
    assert rep.filled == {"A": 1, "B": 0}
    assert md.wide()["A"]["2020-03-02 05:00"] == pytest.approx(0.5 + 0.1)  # the ramp's value
    docs = (REPO / "docs" / "data.md").read_text()
    assert "Your own meter data" in docs and "max_fill_intervals" in docs


def test_gaps_outside_the_window_do_not_matter_and_several_meters_are_named(tmp_path):
    """Row 11: missing half-hours outside the window are ignored; NaN is a gap; long gaps of several meters."""
    rows = _rows(meters=("A", "B", "C"), start="2020-03-01", days=3)
    day1 = [r for r in rows if r[1].startswith("2020-03-02")]
    keep = [r for r in rows if not (r[1].startswith("2020-03-01 1") or r[1].startswith("2020-03-03 0"))]
    keep = [(m, t, "NaN" if (m, t) == ("B", "2020-03-02 07:00:00") else v) for m, t, v in keep]
    path = write_readings_csv(tmp_path / "outside.csv", keep)
    md, rep = _load(path)
    assert rep.filled == {"A": 0, "B": 1, "C": 0} and len(md.readings) == 3 * 48
    np.testing.assert_allclose(md.wide()["B"].to_numpy(), [v for m, _, v in day1 if m == "B"], rtol=1e-12)
    long = [r for r in keep if not (r[0] in ("A", "C") and "2020-03-02 1" in r[1])]
    path = write_readings_csv(tmp_path / "long.csv", long)
    msg = _error(
        path,
        r"meter 'A' has a gap of 20 interval\(s\) of 30 min in the window: first missing "
        r"2020-03-02 10:00:00, last missing 2020-03-02 19:30:00.*\n.*meter 'C' has a gap of 20",
    )
    assert "max_fill_intervals" in msg


def test_off_grid_timestamps_are_named_not_no_data(tmp_path):
    """Row 7: :30 timestamps with a 60-minute step."""
    t = pd.date_range("2020-03-02 00:30", periods=24, freq="60min")
    path = write_readings_csv(tmp_path / "offgrid.csv", [("A", f"{x:%Y-%m-%d %H:%M:%S}", 1.0) for x in t])
    msg = _error(
        path,
        r"field 'timestamp' is off the 60 min grid in row\(s\) 2 \('2020-03-02 00:30:00'\), 3 "
        r"\('2020-03-02 01:30:00'\).* and 19 more; timestamps must be multiples of the step",
        step_minutes=60,
    )
    assert "no data" not in msg


def test_window_outside_and_meter_without_readings_in_window(tmp_path):
    rows = _rows() + _rows(meters=("C",), start="2020-03-05")
    path = write_readings_csv(tmp_path / "w.csv", rows)
    _error(
        path,
        r"meter\(s\) 'C' \(readings 2020-03-05 00:00:00 .. 2020-03-05 23:30:00, first row 98\) have no "
        r"readings in the window",
    )
    _error(
        path,
        r"the requested window 2021-01-01 00:00:00 .. 2021-01-02 00:00:00 lies outside the file's data",
        start="2021-01-01",
    )


def test_different_steps_per_meter_are_named(tmp_path):
    rows = _rows(meters=("A",)) + _rows(meters=("B",), step="60min") + _rows(meters=("C",))
    _error(
        write_readings_csv(tmp_path / "steps.csv", rows),
        r"meters are sampled at different steps: most readings are 30 min apart, but meter\(s\) 'B' \(every "
        r"60 min, first row 50\) are not",
    )


# ----------------------------------------------------------------------------------- file structure


def test_empty_file(tmp_path):
    """Row 4."""
    _error(
        _write(tmp_path / "empty.csv", ""),
        r"empty\.csv: the file is empty: .*header line "
        r"'meter_id,timestamp,kw'",
    )


def test_header_only(tmp_path):
    """Row 5."""
    _error(
        _write(tmp_path / "header.csv", "meter_id,timestamp,kw\n"),
        r"no readings: the file has a header line but no data rows",
    )


def test_unquoted_decimal_comma(tmp_path):
    """Row 6: every row (pandas would take the first column as an index) and a single row."""
    text = "meter_id,timestamp,kw\nH1,2020-03-02 00:00:00,0,41\nH1,2020-03-02 00:30:00,0,38\n"
    _error(
        _write(tmp_path / "comma.csv", text),
        r"wrong number of fields in row\(s\) 2 \('H1,2020-03-02 00:00:00,0,41'\), 3 \('H1,2020-03-02 "
        r"00:30:00,0,38'\) \(the header has 3\); a decimal comma \(0,41\) splits",
    )
    rows = "".join(f"H1,{r[1]},0.5\n" for r in _rows(meters=("H1",)))
    lines = ("meter_id,timestamp,kw\n" + rows).splitlines()
    lines[9] = lines[9].rsplit(",", 1)[0] + ",0,41"
    _error(
        _write(tmp_path / "one.csv", "\n".join(lines) + "\n"),
        r"wrong number of fields in row\(s\) 10 \('H1,2020-03-02 04:00:00,0,41'\)",
    )
    quoted = "meter_id,timestamp,kw\n" + rows.replace("0.5\n", '"0,5"\n', 1)
    _error(
        _write(tmp_path / "quoted.csv", quoted),
        r"field 'kw' is not numeric in row\(s\) 2 \('0,5'\); write kW with a decimal point",
    )


def test_unclosed_quote(tmp_path):
    """A field that opens a double quote and never closes it (hypothesis found it: pandas' C parser fails while
    reading its first buffer, before the chunk loop), in the first row and further down: a named error."""
    rows = "".join(f"H1,{r[1]},0.5\n" for r in _rows(meters=("H1",)))
    for name, text in (
        ("first.csv", 'meter_id,timestamp,kw\n",2020-03-02 00:00:00,0.5\n' + rows),
        ("later.csv", "meter_id,timestamp,kw\n" + rows + 'H1,2020-03-09 00:00:00,"0.5\n'),
    ):
        _error(_write(tmp_path / name, text), rf"{name}: cannot be read as CSV: a double quote .* is never closed")


def test_wrong_header_and_separator(tmp_path):
    _error(
        _write(tmp_path / "semi.csv", "meter_id;timestamp;kw\nA;2020-03-02 00:00:00;1.0\n"),
        r"missing column\(s\) \['meter_id', 'timestamp', 'kw'\].*seems to use ';' as separator",
    )
    _error(_write(tmp_path / "extra.csv", "meter_id,timestamp,kw,kw\n"), r"column\(s\) \['kw'\] appear twice")
    _error(_write(tmp_path / "kwh.csv", "meter_id,timestamp,kw,kwh\n"), r"unexpected column\(s\) \['kwh'\]")


def test_many_bad_rows_listed_across_chunks_with_blank_lines(tmp_path):
    rows = _rows(meters=("A", "B", "C"))
    text = ["meter_id,timestamp,kw"] + [f"{m},{t},{v}" for m, t, v in rows]
    for i in (11, 40, 77, 100, 120, 130, 140):
        m, t, _ = rows[i - 2]
        text[i - 1] = f"{m},{t},x{i}"
    text.insert(20, "")  # a blank line: skipped, later rows keep their line numbers
    path = _write(tmp_path / "many.csv", "\n".join(text) + "\n")
    for chunksize in (7, 1000):
        with pytest.raises(MeterDataError) as e:
            read_readings_csv(path, chunksize=chunksize)
        assert (
            "field 'kw' is not numeric in row(s) 11 ('x11'), 41 ('x40'), 78 ('x77'), 101 ('x100'), "
            "121 ('x120') and 2 more"
        ) in str(e.value)


def test_empty_fields_and_bad_timestamps_together(tmp_path):
    rows = [list(r) for r in _rows(meters=("A",))]
    rows[3][0] = ""
    rows[6][1] = "02/03/2020 03:00"
    rows[8][2] = 1e12
    path = write_readings_csv(tmp_path / "several.csv", [tuple(r) for r in rows])
    msg = _error(path, r"field 'meter_id' is empty in row\(s\) 5 \('2020-03-02 01:30:00'\)")
    assert "field 'timestamp' is not an ISO 8601 date-time in row(s) 8 ('02/03/2020 03:00')" in msg
    assert "field 'kw' is outside the plausible range [-50, 500] kW in row(s) 10 (1e+12)" in msg
    assert len(msg.splitlines()) == 3  # one line per kind of problem, all found in one pass


# ----------------------------------------------------------------------------------- values


def test_implausible_kw_is_named_and_the_range_is_configurable(tmp_path):
    """Row 8: kw = 1e12 fails here, not later in dpkmeans."""
    rows = _rows(meters=("A",))
    rows[4] = ("A", rows[4][1], 1e12)
    rows[9] = ("A", rows[9][1], -60.0)
    path = write_readings_csv(tmp_path / "big.csv", rows)
    _error(
        path,
        r"field 'kw' is outside the plausible range \[-50, 500\] kW in row\(s\) 6 \(1e\+12\), 11 \(-60\); "
        r"kw is the average power in kW: is the unit W or Wh\?",
    )
    md, _ = _load(path, plausible_kw=(-100, 2e12))
    assert md.wide()["A"].max() == 1e12
    ok = write_readings_csv(tmp_path / "ok.csv", _rows(meters=("A",), kw=600.0))
    _error(ok, r"outside the plausible range \[-50, 500\]")
    spec = {"source": "csv", "start": "2020-03-02", "days": 1, "step_minutes": 30, "readings": str(ok)}
    md = load_experiment_data(
        spec, np.random.default_rng(0), resample=RESAMPLE, name="dpkmeans", plausible_kw=[0, 1000]
    )
    assert md.readings["kw"].eq(600.0).all()


# ----------------------------------------------------------------------------------- meters file


def test_meters_file_naming_meters_without_readings(tmp_path):
    """Row 9."""
    path = write_readings_csv(tmp_path / "r.csv", _rows())
    meters = _write(
        tmp_path / "m.csv", "meter_id,customer_class\nA,residential\nGHOST,commercial\nB,residential\nX9,residential\n"
    )
    with pytest.raises(MeterDataError) as e:
        _load(path, meters)
    msg = str(e.value)
    assert (
        f"{meters}: field 'meter_id' names meter(s) with no readings in {path}: 'GHOST' (row 3), 'X9' (row 5); "
        f"remove them or add their readings"
    ) in msg and README in msg
    meters = _write(tmp_path / "m2.csv", "meter_id,customer_class\nA,residential\nA,commercial\n,residential\n")
    with pytest.raises(
        MeterDataError,
        match=r"m2\.csv: field 'meter_id' is empty in row\(s\) 4 .*\n.*duplicate "
        r"meter_id in row\(s\) 3 \('A'\)",
    ):
        _load(path, meters)
    with pytest.raises(MeterDataError, match=r"m3\.csv: the file is empty"):
        _load(path, _write(tmp_path / "m3.csv", ""))


def test_meters_key_is_optional(tmp_path):
    """Row 13: leaving out `meters:` is valid (schema) and means every meter is residential."""
    import yaml

    from dpgrid.core.config import validate_config

    path = write_readings_csv(tmp_path / "r.csv", _rows())
    spec = {"source": "csv", "start": "2020-03-02", "days": 1, "step_minutes": 30, "readings": str(path)}
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    cfg["data"]["experiments"]["dpkmeans"] = dict(spec)
    validate_config(cfg["data"], REPO / "workflow" / "schemas" / "data.schema.yaml")
    md = load_experiment_data(spec, np.random.default_rng(0), resample=RESAMPLE, name="dpkmeans")
    assert list(md.meters["meter_id"]) == ["A", "B"] and set(md.meters["customer_class"]) == {"residential"}


SCHEMA_CASES = [
    ({"source": "csv", "readings": "r.csv", "timezone": "Europe/Paris"}, None),
    ({"source": "csv", "readings": "r.csv", "meters": None, "timezone": None}, None),
    ({"source": "csv", "meters": "m.csv"}, "'readings' is a required property"),
    (
        {"source": "synthetic", "n_residential": 3, "n_commercial": 0, "timezone": "UTC"},
        r"experiments\.spdp = 'timezone' is not valid",
    ),
    ({"source": "uci_eld", "n_meters": 3, "timezone": "UTC"}, r"experiments\.spdp = 'timezone' is not valid"),
]


@pytest.mark.parametrize(
    "spec,error", SCHEMA_CASES, ids=["csv-tz", "csv-nulls", "csv-no-readings", "synthetic-tz", "eld-tz"]
)
def test_schema_timezone_only_for_csv(spec, error):
    import yaml

    from dpgrid.core.config import ConfigError, validate_config

    repo = REPO
    cfg = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    cfg["data"]["experiments"]["spdp"] = dict(start="2020-03-02", days=7, step_minutes=15, **spec)
    schema = repo / "workflow" / "schemas" / "data.schema.yaml"
    if error is None:
        validate_config(cfg["data"], schema)
    else:
        with pytest.raises(ConfigError, match=re.compile(error, re.DOTALL)):
            validate_config(cfg["data"], schema)


def test_schema_plausible_kw_required_pair():
    import yaml

    from dpgrid.core.config import ConfigError, validate_config

    repo = REPO
    cfg = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    schema = repo / "workflow" / "schemas" / "data.schema.yaml"
    assert cfg["data"]["plausible_kw"] == [-50, 500]
    validate_config(cfg["data"], schema)  # the shipped section is valid: each failure below is the pair's
    for bad in ([-50], [-50, 500, 1], ["low", 500]):
        with pytest.raises(ConfigError, match=r"plausible_kw"):
            validate_config({**cfg["data"], "plausible_kw": bad}, schema)
    del cfg["data"]["plausible_kw"]
    with pytest.raises(ConfigError, match="'plausible_kw' is a required property"):
        validate_config(cfg["data"], schema)


# ----------------------------------------------------------------------------------- canonical output


def test_save_is_byte_identical_to_the_reference_writer(tmp_path):
    """MeterData.save (chunked, each distinct value formatted once) == dpgrid.core.io.write_table of the old form."""
    from dpgrid.core.io import write_table

    rng = np.random.default_rng(5)
    n = 1000
    ids = np.array(["R0001", "C,01", 'q"x', " sp", "R0002"], dtype=object)[rng.integers(0, 5, n)]
    kw = rng.lognormal(0, 2, n) * rng.choice([1, -1, 1e-9, 1e9], n)
    kw[:3] = [0.0, -0.0, 1 / 3]
    r = pd.DataFrame(
        {
            "meter_id": ids,
            "timestamp": pd.Timestamp("2019-01-07") + pd.to_timedelta(rng.integers(0, 10**6, n), unit="s"),
            "kw": kw,
        }
    )
    md = MeterData(r, pd.DataFrame({"meter_id": sorted(set(ids)), "customer_class": "residential"}), "mem")
    md.save(tmp_path / "new.csv", tmp_path / "m.csv", chunk_rows=77)
    ref = r.copy()
    ref["timestamp"] = ref["timestamp"].dt.strftime("%Y-%m-%dT%H:%M:%S")
    write_table(ref, tmp_path / "ref.csv")
    assert (tmp_path / "new.csv").read_bytes() == (tmp_path / "ref.csv").read_bytes()


def test_plausible_range_applies_to_the_uci_sources(tmp_path):
    from dpgrid.data.uci_eld import load_uci_eld
    from dpgrid.data.uci_household import load_uci_household
    from tests.helpers.formats import write_eld, write_uci_household

    kw = ["1.0"] * 1440
    kw[100] = "900.0"
    hh = write_uci_household(tmp_path / "hh.txt", kw)
    with pytest.raises(
        MeterDataError,
        match=r"hh\.txt: field 'Global_active_power' is outside the plausible range "
        r"\[-50, 500\] kW \(data\.plausible_kw\) in line\(s\) 102 \('900\.0'\)",
    ):
        load_uci_household(hh, start="2007-01-01", days=1, step_minutes=60, **RESAMPLE)
    md, _ = load_uci_household(hh, start="2007-01-01", days=1, step_minutes=60, plausible_kw=(0, 1000), **RESAMPLE)
    assert md.readings["kw"].max() == pytest.approx((59 + 900) / 60)
    vals = np.full((96 * 2, 3), 10.0)
    vals[96 + 5, 1] = 800.0  # MT_002, second day (the window), file line 2 + 101
    vals[10, 1] = 900.0  # before the window: not used, not checked
    eld = write_eld(tmp_path / "LD.txt", "2011-01-01 00:15:00", vals)
    with pytest.raises(
        MeterDataError,
        match=r"LD\.txt: field 'MT_002' is outside the plausible range \[-50, 500\] kW "
        r"in line\(s\) 103 \(800\)",
    ):
        load_uci_eld(eld, start="2011-01-02", days=1, step_minutes=60, n_meters=3, **RESAMPLE)


@pytest.mark.parametrize("where", ["header buffer", "later chunk"])
def test_cp1252_file_names_the_line_byte_and_encoding(tmp_path, where):
    """A file saved as cp1252 (Excel's plain 'CSV' on Western-European Windows): a MeterDataError naming the
    file, the line and byte offset of the first non-UTF-8 byte and the encoding - never a raw UnicodeDecodeError,
    wherever the byte is (the header's decoding buffer or a block pandas decodes later)."""
    rows = _rows(meters=("M1",), days=60 if where == "later chunk" else 1, step="1h")
    rows += [("Maison é", t, 0.5) for _, t, _ in rows]
    lines = ["meter_id,timestamp,kw"] + [f"{m},{t},{v}" for m, t, v in rows]
    data = ("\n".join(lines) + "\n").encode("cp1252")
    bad_line = next(i for i, line in enumerate(lines, start=1) if "é" in line)
    bad_byte = data.index(b"\xe9")
    p = tmp_path / "windows.csv"
    p.write_bytes(data)
    with pytest.raises(MeterDataError) as info:
        read_readings_csv(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}: not UTF-8 text: line {bad_line} (byte {bad_byte} of the file) holds byte 0xe9")
    assert "Maison é" in msg and "cp1252" in msg and "save it as UTF-8" in msg


@pytest.mark.parametrize("zone", [None, "Europe/Paris"])
def test_duplicate_outside_the_repeated_hour_does_not_suggest_dst(tmp_path, zone):
    """A row duplicated at noon in March is a plain duplicate: the message must not suggest the hour repeated when
    daylight saving time ends, which no zone repeats at noon (with a time zone set: not that zone's repeated
    hour). The same duplication in the hour that Europe/Paris repeats names the zones that repeat it."""
    t = pd.date_range("2020-03-10", periods=96, freq="15min")
    rows = [("A", f"{x:%Y-%m-%d %H:%M:%S}", 1.0) for x in t]
    rows.insert(50, rows[48])  # 12:00 twice
    path = write_readings_csv(tmp_path / "noon.csv", rows)
    with pytest.raises(MeterDataError) as info:
        _load(path, start="2020-03-10", step_minutes=15, timezone=zone)
    msg = str(info.value)
    assert "duplicate (meter_id, timestamp) in row(s) 52 ('A, 2020-03-10 12:00:00 as in row 50')" in msg
    assert "daylight saving" not in msg and "each (meter_id, timestamp) may appear once" in msg
    if zone is None:
        autumn = [("A", f"{x:%Y-%m-%d %H:%M:%S}", 1.0) for x in pd.date_range("2020-10-25", periods=96, freq="15min")]
        autumn.insert(12, autumn[9])  # 02:15 twice: the hour Europe/Paris repeats
        path = write_readings_csv(tmp_path / "autumn.csv", autumn)
        with pytest.raises(MeterDataError, match=r"which Europe/Amsterdam, .* repeat when daylight saving time ends"):
            _load(path, start="2020-10-25", step_minutes=15)

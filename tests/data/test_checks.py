"""Tests of the checks the meter-data readers share (dpgrid.data.checks): one plausible-range rule, one duplicate
report, used by validate_readings, the bring-your-own CSV reader and the UCI loaders."""

import re

import numpy as np
import pandas as pd
import pytest

from dpgrid.data.checks import duplicate_value, implausible_kw, outside_range, plausible_range, validate_readings
from dpgrid.data.csvfile import read_readings_csv
from dpgrid.data.problems import MeterDataError
from dpgrid.data.uci_household import read_uci_household_minutes
from tests.helpers.formats import write_readings_csv, write_uci_household

LO, HI = -50.0, 500.0


def test_implausible_kw_is_each_former_formulation():
    """The one mask equals the three range checks it replaced: the CSV reader's (non-NaN values outside the range or
    infinite), the canonical validator's (finite values outside the range, next to its own infinity check) and the
    UCI loaders' (x < lo or x > hi, NaN never flagged)."""
    rng = np.random.default_rng(0)
    kw = rng.uniform(-200.0, 800.0, 2000)
    kw[rng.choice(kw.size, 60, replace=False)] = np.nan
    kw[rng.choice(kw.size, 20, replace=False)] = np.inf
    kw[rng.choice(kw.size, 20, replace=False)] = -np.inf
    kw[:4] = [LO, HI, np.nextafter(LO, -np.inf), np.nextafter(HI, np.inf)]  # the bounds are plausible, beyond not
    mask = implausible_kw(kw, LO, HI)
    with np.errstate(invalid="ignore"):
        assert np.array_equal(mask, ~np.isnan(kw) & ((kw < LO) | (kw > HI) | ~np.isfinite(kw)))
        assert np.array_equal(mask & np.isfinite(kw), np.isfinite(kw) & ((kw < LO) | (kw > HI)))
        assert np.array_equal(mask, (kw < LO) | (kw > HI))
    assert mask[:4].tolist() == [False, False, True, True]
    assert implausible_kw(kw.reshape(40, 50), LO, HI).shape == (40, 50)  # the ELD loader's (lines x clients)


def test_one_range_message_for_every_reader(tmp_path):
    """The CSV reader, validate_readings and the UCI household loader name the same range in the same words."""
    assert outside_range(LO, HI) == "is outside the plausible range [-50, 500] kW"
    words = re.escape(outside_range(LO, HI))
    csv_path = write_readings_csv(
        tmp_path / "r.csv", [("A", "2020-03-02 00:00:00", 1.0), ("A", "2020-03-02 01:00:00", 900.0)]
    )
    with pytest.raises(MeterDataError, match=rf"r\.csv: field 'kw' {words} in row\(s\) 3 \(900\)"):
        read_readings_csv(csv_path)
    df = pd.DataFrame(
        {"meter_id": ["A", "A"], "timestamp": ["2020-03-02 00:00", "2020-03-02 01:00"], "kw": [1.0, 900.0]}
    )
    with pytest.raises(MeterDataError, match=rf"f\.csv: field 'kw' {words} in row\(s\) 3 \(900\)"):
        validate_readings(df, "f.csv", plausible_kw=(LO, HI))
    kw = ["1.0"] * 10
    kw[4] = "900.0"
    hh = write_uci_household(tmp_path / "hh.txt", kw)
    with pytest.raises(
        MeterDataError, match=rf"field 'Global_active_power' {words} \(data\.plausible_kw\) in line\(s\) 6"
    ):
        read_uci_household_minutes(hh, (LO, HI))


def test_plausible_range_needs_low_below_high(tmp_path):
    assert plausible_range([-50, 500]) == (-50.0, 500.0)
    for bad in ([5, 5], [10, 0]):
        with pytest.raises(
            MeterDataError,
            match=rf"data\.plausible_kw must be \[low, high\] with low < high, got {re.escape(str(bad))}",
        ):
            plausible_range(bad)
    hh = write_uci_household(tmp_path / "hh.txt", ["1.0"] * 10)
    with pytest.raises(MeterDataError, match="data.plausible_kw must be"):  # the UCI loaders check it too now
        read_uci_household_minutes(hh, (500, -50))


def test_one_duplicate_report_for_the_csv_reader_and_validate_readings(tmp_path):
    """Both name the later row, its meter and time and the row it repeats, in the same words."""
    assert duplicate_value("A", pd.Timestamp("2020-03-02 01:00").value, 3) == "A, 2020-03-02 01:00:00 as in row 3"
    rows = [("A", "2020-03-02 00:00:00", 1.0), ("A", "2020-03-02 01:00:00", 2.0), ("A", "2020-03-02 01:00:00", 3.0)]
    expected = r"duplicate \(meter_id, timestamp\) in row\(s\) 4 \('A, 2020-03-02 01:00:00 as in row 3'\)"
    with pytest.raises(MeterDataError, match=expected):
        read_readings_csv(write_readings_csv(tmp_path / "d.csv", rows))
    df = pd.DataFrame(rows, columns=["meter_id", "timestamp", "kw"])
    with pytest.raises(MeterDataError, match=expected):
        validate_readings(df, "d.csv")

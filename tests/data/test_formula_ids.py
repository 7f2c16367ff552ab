"""Meter ids that a spreadsheet would run as a formula (first character = + - @, or a tab/CR/LF) are refused at
load, naming the file, the meter's first row and the id; the same characters later in an id are ordinary."""

import csv

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgrid.data.csv_loader import load_csv
from dpgrid.data.fields import FORMULA_PREFIXES
from dpgrid.data.meter import MeterDataError

START = pd.Timestamp("2020-03-02")
TAIL = st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Cs", "Zl", "Zp"]), max_size=8)


def _write(path, ids):
    times = pd.date_range(START, periods=24, freq="1h")
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["meter_id", "timestamp", "kw"])
        for k, m in enumerate(ids):
            w.writerows((m, t.isoformat(), 0.5 + k) for t in times)


def _load(path):
    return load_csv(path, None, start=START, days=1, step_minutes=60, min_coverage=1.0, max_fill_intervals=0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    prefix=st.sampled_from(["=", "+", "-", "@"]),
    tail=TAIL,
    blank=st.sampled_from(["", " ", "\t", "  \t"]),
    position=st.integers(0, 2),
)
def test_formula_like_ids_are_refused_naming_the_rows(tmp_path_factory, prefix, tail, blank, position):
    hostile = blank + prefix + tail
    ids = ["MAC000002", "MAC000003"]
    ids.insert(position, hostile)
    path = tmp_path_factory.mktemp("formula") / "readings.csv"
    _write(path, ids)
    with pytest.raises(MeterDataError) as err:
        _load(path)
    msg = str(err.value)
    first_row = 2 + 24 * position  # the header is row 1
    assert str(path) in msg and "formula" in msg and f"{first_row}" in msg
    assert repr((prefix + tail).strip())[1:-1] in msg or (prefix + tail).strip() in msg


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(head=st.sampled_from(["A", "MAC", "0", "é", "#", "_"]), tail=TAIL)
def test_the_same_characters_inside_an_id_are_ordinary(tmp_path_factory, head, tail):
    ident = (head + tail.replace("\t", "")).strip()
    if not ident or ident.startswith(FORMULA_PREFIXES):
        return
    path = tmp_path_factory.mktemp("ok") / "readings.csv"
    _write(path, [ident, "MAC000002=1+2"])
    data, _ = _load(path)
    assert sorted(data.meters["meter_id"]) == sorted([ident, "MAC000002=1+2"])

"""Canonical meter data: a tidy table of readings with a validator.

Readings: one row per (meter, timestamp) with columns

==================  =====================================================================
``meter_id``        string identifier of the meter (household or customer)
``timestamp``       ``datetime64[ns]``, naive local time, start of the interval
``kw``              average active power over the interval, kW (float64)
==================  =====================================================================

Meters: one row per meter with ``meter_id`` and ``customer_class`` (``residential`` or
``commercial``; a bring-your-own CSV may give other class names).

:func:`validate_readings` rejects non-numeric values, NaN or negative loads where not allowed,
duplicate or unordered timestamps, irregular sampling and too-short series, with an error that
names the source (file) and the offending rows. Callers validate before writing anything.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.io import write_table

READING_COLUMNS = ["meter_id", "timestamp", "kw"]
METER_COLUMNS = ["meter_id", "customer_class"]
_MAX_ROWS_SHOWN = 5


class MeterDataError(ValueError):
    """Meter data that cannot be used; the message names the source, field and rows."""


def format_rows(idx, offset: int) -> str:
    """Row numbers as a user sees them (``offset`` added), at most a few, then a count."""
    idx = list(idx)
    shown = ", ".join(str(int(i) + offset) for i in idx[:_MAX_ROWS_SHOWN])
    more = f" and {len(idx) - _MAX_ROWS_SHOWN} more" if len(idx) > _MAX_ROWS_SHOWN else ""
    return f"{shown}{more}"


def validate_readings(
    df: pd.DataFrame,
    source: str,
    *,
    allow_negative: bool = False,
    allow_nan: bool = False,
    min_samples: int = 2,
    row_offset: int = 2,
) -> pd.DataFrame:
    """Check and normalise a readings table; return it sorted by meter and time.

    ``source`` names where the data came from (a file path) and appears in every error.
    ``row_offset`` converts the frame's positional index to the row numbers a user sees
    (2 for a CSV with a header line: the first data row is line 2).

    Raises :class:`MeterDataError` naming the source, the field and the offending rows.
    """
    missing = [c for c in READING_COLUMNS if c not in df.columns]
    if missing:
        raise MeterDataError(f"{source}: missing column(s) {missing}; found {list(df.columns)}")
    df = df.reset_index(drop=True).copy()

    ids = df["meter_id"]
    bad = ids.isna() | (ids.astype(str).str.strip() == "")
    if bad.any():
        raise MeterDataError(f"{source}: field 'meter_id' is empty in row(s) {format_rows(np.flatnonzero(bad), row_offset)}")
    df["meter_id"] = ids.astype(str).str.strip()

    if pd.api.types.is_datetime64_any_dtype(df["timestamp"]):
        ts = df["timestamp"]
    else:
        ts = pd.to_datetime(df["timestamp"], errors="coerce", format="ISO8601")
    bad = ts.isna() & df["timestamp"].notna()
    bad |= df["timestamp"].isna()
    if bad.any():
        first = df.loc[bad, "timestamp"].iloc[0]
        raise MeterDataError(f"{source}: field 'timestamp' is not a date-time in row(s) "
                             f"{format_rows(np.flatnonzero(bad), row_offset)} (first value: {first!r})")
    if getattr(ts.dt, "tz", None) is not None:
        ts = ts.dt.tz_localize(None)
    df["timestamp"] = ts.astype("datetime64[ns]")

    raw = df["kw"]
    kw = pd.to_numeric(raw, errors="coerce")
    non_numeric = kw.isna() & raw.notna() & (raw.astype(str).str.strip().str.lower() != "nan")
    if non_numeric.any():
        first = raw[non_numeric].iloc[0]
        raise MeterDataError(f"{source}: field 'kw' is not numeric in row(s) "
                             f"{format_rows(np.flatnonzero(non_numeric), row_offset)} (first value: {first!r})")
    if not allow_nan and kw.isna().any():
        raise MeterDataError(f"{source}: field 'kw' is missing (NaN) in row(s) {format_rows(np.flatnonzero(kw.isna()), row_offset)}")
    if not allow_negative and (kw < 0).any():
        neg = np.flatnonzero(kw < 0)
        raise MeterDataError(f"{source}: field 'kw' is negative in row(s) {format_rows(neg, row_offset)} "
                             f"(first value: {kw.iloc[neg[0]]!r}); negative loads are not allowed here")
    if np.isinf(kw).any():
        raise MeterDataError(f"{source}: field 'kw' is infinite in row(s) {format_rows(np.flatnonzero(np.isinf(kw)), row_offset)}")
    df["kw"] = kw.astype("float64")

    dup = df.duplicated(["meter_id", "timestamp"], keep="first")
    if dup.any():
        raise MeterDataError(f"{source}: duplicate (meter_id, timestamp) in row(s) {format_rows(np.flatnonzero(dup), row_offset)}")

    for meter, g in df.groupby("meter_id", sort=False):
        t = g["timestamp"].to_numpy()
        d = np.diff(t).astype("timedelta64[ns]").astype(np.int64)
        if (d <= 0).any():
            where = g.index[1:][d <= 0]
            raise MeterDataError(f"{source}: timestamps of meter {meter!r} are not in increasing order at row(s) "
                                 f"{format_rows(where, row_offset)}")
        if len(g) < min_samples:
            raise MeterDataError(f"{source}: meter {meter!r} has {len(g)} reading(s); at least {min_samples} are needed")
        if len(d):
            step = np.bincount(np.unique(d, return_inverse=True)[1]).argmax()
            step = np.unique(d)[step]
            irregular = d != step
            if irregular.any():
                where = g.index[1:][irregular]
                raise MeterDataError(
                    f"{source}: meter {meter!r} is sampled irregularly: the usual step is "
                    f"{pd.Timedelta(int(step), 'ns')}, but row(s) {format_rows(where, row_offset)} break it "
                    f"(fill or drop gaps first; see README 'Bring your own meter data')")
    return df.sort_values(["meter_id", "timestamp"], kind="stable").reset_index(drop=True)[READING_COLUMNS]


@dataclass
class MeterData:
    """Validated readings plus per-meter metadata."""

    readings: pd.DataFrame
    meters: pd.DataFrame
    source: str

    def __post_init__(self) -> None:
        missing = [c for c in METER_COLUMNS if c not in self.meters.columns]
        if missing:
            raise MeterDataError(f"{self.source}: meter table lacks column(s) {missing}")
        unknown = sorted(set(self.readings["meter_id"]) - set(self.meters["meter_id"]))
        if unknown:
            raise MeterDataError(f"{self.source}: meter(s) {unknown[:5]} have readings but no metadata")

    @property
    def step(self) -> pd.Timedelta:
        """The sampling step (common to all meters, checked)."""
        steps = set()
        for _, g in self.readings.groupby("meter_id", sort=False):
            if len(g) > 1:
                steps.add(g["timestamp"].iloc[1] - g["timestamp"].iloc[0])
        if len(steps) != 1:
            raise MeterDataError(f"{self.source}: meters have different sampling steps {sorted(steps)}")
        return steps.pop()

    def wide(self) -> pd.DataFrame:
        """Readings as a (timestamp x meter_id) frame, meters in metadata order."""
        w = self.readings.pivot(index="timestamp", columns="meter_id", values="kw")
        return w[[m for m in self.meters["meter_id"] if m in w.columns]]

    def select(self, meter_ids) -> "MeterData":
        meter_ids = list(meter_ids)
        r = self.readings[self.readings["meter_id"].isin(meter_ids)].reset_index(drop=True)
        m = self.meters.set_index("meter_id").loc[meter_ids].reset_index()
        return MeterData(r, m, self.source)

    def save(self, readings_path: str | os.PathLike, meters_path: str | os.PathLike) -> None:
        """Write both tables atomically (canonical CSV)."""
        r = self.readings.copy()
        r["timestamp"] = r["timestamp"].dt.strftime("%Y-%m-%dT%H:%M:%S")
        write_table(r, readings_path)
        write_table(self.meters, meters_path)

    @classmethod
    def load(cls, readings_path: str | os.PathLike, meters_path: str | os.PathLike, **validate_kw) -> "MeterData":
        """Read tables written by :meth:`save` (or a bring-your-own CSV pair) and validate them."""
        readings_path = Path(readings_path)
        r = pd.read_csv(readings_path, dtype={"meter_id": str, "kw": object, "timestamp": object})
        r = validate_readings(r, str(readings_path), **validate_kw)
        m = pd.read_csv(meters_path, dtype={"meter_id": str, "customer_class": str})
        return cls(r, m, str(readings_path))

"""Canonical meter data: a tidy table of readings and a table of meters (validated by :mod:`dpgrid.data.checks`).

Readings: one row per (meter, timestamp) with columns

==================  =====================================================================
``meter_id``        string identifier of the meter (household or customer)
``timestamp``       ``datetime64[ns]``, naive local time, start of the interval
``kw``              average active power over the interval, kW (float64)
==================  =====================================================================

Meters: one row per meter with ``meter_id`` and ``customer_class`` (``residential`` or
``commercial``; a bring-your-own CSV may give other class names).

:func:`dpgrid.data.checks.validate_readings` rejects non-numeric values, NaN or negative loads where not allowed,
values outside a plausible range, timestamps carrying a UTC offset, duplicate or unordered
timestamps, irregular sampling and too-short series, with an error that names the source (file),
the field, the offending rows (several, capped) and their values. Callers validate before writing
anything. Bring-your-own CSV files are read by :mod:`dpgrid.data.csvfile`, which applies the
documented time-zone, gap and resampling rules first (README "Your own meter data").

Errors (:class:`dpgrid.data.problems.MeterDataError`) and the fields' parsing (:mod:`dpgrid.data.fields`) have
their own modules.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.core.io import FLOAT_FORMAT, atomic_path, read_csv_keeping_ids, write_table
from dpgrid.data.checks import validate_readings
from dpgrid.data.fields import METER_COLUMNS, READING_COLUMNS
from dpgrid.data.problems import MeterDataError


def _csv_fields(values: np.ndarray, fmt) -> list[str]:
    """CSV fields of ``values``: each distinct value formatted by ``fmt`` (array of uniques -> texts)
    and quoted as :mod:`csv` does (QUOTE_MINIMAL), once."""
    codes, uniques = pd.factorize(values)
    texts = fmt(np.asarray(uniques))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    quoted = []
    for t in texts:
        t = str(t)
        if any(ch in t for ch in ',"\r\n') or t.strip() != t or t == "":
            buf.seek(0)
            buf.truncate()
            w.writerow([t, ""])
            t = buf.getvalue()[:-2]  # the field as the csv module writes it (drop ',' + line end)
        quoted.append(t)
    return np.asarray(quoted, dtype=object)[codes].tolist()


def write_readings(path: str | os.PathLike, parts: Iterable[pd.DataFrame], chunk_rows: int = 500_000) -> None:
    """Write a readings table given in row blocks ``parts`` (each with :data:`READING_COLUMNS`) atomically.

    The bytes of :meth:`MeterData.save` of the concatenated table, whatever the blocks (each row is
    formatted on its own): ``timestamp`` as ``%Y-%m-%dT%H:%M:%S``, ``kw`` in :data:`dpgrid.core.io.FLOAT_FORMAT`,
    fields quoted by the csv module as pandas does, each distinct value of a piece of at most ``chunk_rows``
    rows formatted once. Only one block is in memory at a time (synthetic data of any size:
    :func:`dpgrid.data.sources.write_experiment_data`). An exception raised by ``parts`` leaves ``path``
    untouched.
    """
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(READING_COLUMNS)
        for block in parts:
            for a in range(0, len(block), chunk_rows):
                part = block.iloc[a : a + chunk_rows]
                ids = _csv_fields(part["meter_id"].to_numpy(dtype=object), lambda v: v)
                ts = _csv_fields(
                    part["timestamp"].to_numpy(dtype="datetime64[ns]").view(np.int64),
                    lambda u: np.datetime_as_string(u.view("datetime64[ns]"), unit="s").tolist(),
                )
                kw = _csv_fields(
                    part["kw"].to_numpy(dtype="float64").view(np.int64),
                    lambda u: ["" if np.isnan(v) else FLOAT_FORMAT % v for v in u.view("float64")],
                )
                fh.write("\n".join(map(",".join, zip(ids, ts, kw))))
                fh.write("\n")


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
        unknown = sorted(set(pd.unique(self.readings["meter_id"])) - set(self.meters["meter_id"]))
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

    def select(self, meter_ids) -> MeterData:
        meter_ids = list(meter_ids)
        r = self.readings[self.readings["meter_id"].isin(meter_ids)].reset_index(drop=True)
        m = self.meters.set_index("meter_id").loc[meter_ids].reset_index()
        return MeterData(r, m, self.source)

    def save(self, readings_path: str | os.PathLike, meters_path: str | os.PathLike, chunk_rows: int = 500_000) -> None:
        """Write both tables atomically (canonical CSV).

        The bytes are those of :func:`dpgrid.core.io.write_table` of the readings with ``timestamp`` formatted
        ``%Y-%m-%dT%H:%M:%S`` (``kw`` in :data:`dpgrid.core.io.FLOAT_FORMAT`, fields quoted by the csv module as
        pandas does; a test compares them), written in chunks of ``chunk_rows`` rows with each distinct
        value formatted once, so that a big table is written fast and without a copy in memory.
        """
        r = self.readings
        write_readings(readings_path, [r], chunk_rows)
        write_table(self.meters, meters_path)

    @classmethod
    def load(cls, readings_path: str | os.PathLike, meters_path: str | os.PathLike, **validate_kw) -> MeterData:
        """Read tables written by :meth:`save` and validate them (bring-your-own files: use
        :func:`dpgrid.data.csv_loader.load_csv`, which applies the time-zone and gap rules)."""
        readings_path = Path(readings_path)
        # meter ids verbatim (``NA``, ``None``, ``#N/A`` are names, as for the loaders); kw empty = missing
        r = read_csv_keeping_ids(readings_path, dtype={"meter_id": str, "kw": object, "timestamp": object})
        r = validate_readings(r, str(readings_path), **validate_kw)
        m = read_csv_keeping_ids(meters_path, dtype={"meter_id": str, "customer_class": str})
        return cls(r, m, str(readings_path))


#: Mean load (kW) above which a *residential* meter is implausible: a home averaging 20 kW would use 480 kWh a
#: day, about 50 times a typical European or US household (8-30 kWh). Readings in W of a home (a few hundred
#: "kW", all inside ``data.plausible_kw``) are caught by this instead.
RESIDENTIAL_MEAN_KW_MAX = 20.0


def constant_meter_problem(values, meter_id, source: str) -> str:
    """Why a meter's series (kW) cannot feed a spectral or shape-based analysis: it is constant ('' if not).

    A constant series has no power away from frequency 0: spdp's adjacency parameter B_SpDP (largest PSD
    difference between windows, Parker-Hale-Barooah eq. 12) is then 0 and its calibration fails
    ("adjacency parameter B must be positive"); an all-zero series also has no log-spectrum ("math domain
    error"). The message names the meter, its value and the cause."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if not len(v) or v.min() != v.max():
        return ""
    what = (
        "every reading is 0 kW (an all-zero meter: disconnected, or a placeholder)"
        if v[0] == 0
        else (f"every reading is {v[0]:g} kW")
    )
    return (
        f"{source}: meter {str(meter_id)!r} is constant ({what}, {len(v)} readings): its load has no variation, "
        f"so its spectrum is zero away from frequency 0 and spdp's adjacency parameter B_SpDP would be 0; "
        f"choose another meter (spdp.meter_id) or check the export"
    )


def meter_warnings(md: MeterData) -> list[str]:
    """Per-meter findings that are legal but suspicious, each naming the meter: constant series
    (:func:`constant_meter_problem`) and residential meters whose mean load exceeds
    :data:`RESIDENTIAL_MEAN_KW_MAX` (readings in W rather than kW)."""
    out = []
    stats = md.readings.groupby("meter_id", sort=False)["kw"].agg(["min", "max", "mean"])
    classes = dict(zip(md.meters["meter_id"], md.meters["customer_class"]))
    for meter, row in stats.iterrows():
        if row["min"] == row["max"]:
            out.append(
                constant_meter_problem(md.readings.loc[md.readings["meter_id"] == meter, "kw"], meter, md.source)
            )
        elif str(classes.get(meter, "")).strip().lower() == "residential" and row["mean"] > RESIDENTIAL_MEAN_KW_MAX:
            out.append(
                f"{md.source}: meter {str(meter)!r} (residential) averages {row['mean']:.4g} kW (up to "
                f"{row['max']:.4g} kW): implausible for a home (over {RESIDENTIAL_MEAN_KW_MAX:g} kW, "
                f"{24 * RESIDENTIAL_MEAN_KW_MAX:g} kWh a day); is the unit W? kw must be kW (divide W by 1000)"
            )
    return out


def resolution_note(step: pd.Timedelta, paper_minutes: float, what: str, changes) -> str:
    """Empty when the data's ``step`` is the paper's; else a sentence saying what the other step changes.

    ``changes(step_minutes)`` returns the consequences at the data's step (e.g. "the 12-step horizon
    covers 6 h, not 3 h"). Experiments write the note into their log and result tables, so a run at
    another resolution never changes a result's meaning silently.
    """
    minutes = step / pd.Timedelta(minutes=1)
    if abs(minutes - paper_minutes) < 1e-9:
        return ""
    return f"{what} data at {minutes:g}-minute steps, the paper's at {paper_minutes:g}-minute steps: {changes(minutes)}"


def spec_value(spec: dict, key: str, name: str):
    """``spec[key]``, or a :class:`MeterDataError` naming ``data.experiments.<name>`` and the source."""
    if key not in spec:
        raise MeterDataError(f"config: data.experiments.{name}: missing key {key!r} for source {spec.get('source')!r}")
    return spec[key]


def spec_window(spec: dict, name: str) -> tuple[str, int, int]:
    """``(start, days, step_minutes)`` of an experiment entry ``spec`` (``data.experiments.<name>``), each
    missing key reported by :func:`spec_value`."""
    return (
        spec_value(spec, "start", name),
        int(spec_value(spec, "days", name)),
        int(spec_value(spec, "step_minutes", name)),
    )

"""The bring-your-own CSV source (files read and checked by :mod:`dpgrid.data.csvfile`): readings ``meter_id,timestamp,kw`` (kW averaged
over the interval that starts at ``timestamp``), optional meters CSV ``meter_id,customer_class``
(without it every meter is ``residential``). Missing readings (absent rows, empty/NaN ``kw``) are
gaps; UTC offsets are converted to ``timezone``; see :mod:`dpgrid.data.csvfile` and docs/data.md for every
rule.
Meters keep the order of their first row in the readings file.

The loader returns :class:`dpgrid.data.meter.MeterData` resampled to the experiment's step by the rule of
:mod:`dpgrid.data.resample`; errors name the file, the field, the rows (line numbers of the file, header = line 1)
and the values. Values outside ``plausible_kw`` (config ``data.plausible_kw``) are errors
(:func:`dpgrid.data.checks.implausible_kw`).
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from dpgrid.data.checks import DEFAULT_PLAUSIBLE_KW, step_text
from dpgrid.data.csv_format import CsvReadings, nonexistent_times
from dpgrid.data.csvfile import default_meters, read_meters_csv, read_readings_csv
from dpgrid.data.meter import MeterData, meter_warnings
from dpgrid.data.problems import SEE_README, MeterDataError
from dpgrid.data.resample import ResampleReport, resample_values, wide_to_meterdata, window_bounds
from dpgrid.data.uci_household import pseudo_meter_windows

LOG = logging.getLogger(__name__)


def load_csv(
    readings_path,
    meters_path=None,
    *,
    start,
    days,
    step_minutes,
    min_coverage,
    max_fill_intervals,
    timezone: str | None = None,
    plausible_kw=DEFAULT_PLAUSIBLE_KW,
    key: str = "data.experiments.<experiment>",
    pseudo_meters: int | None = None,
) -> tuple[MeterData, ResampleReport]:
    """Bring-your-own CSV readings (and optional meters CSV), checked, cut to the window and resampled.

    Rules: :mod:`dpgrid.data.csvfile` (format, time zones, duplicates, step and grid) and
    :func:`resample_values` (gaps). ``key`` names the config entry in messages. Everything is checked
    in memory; nothing is written. ``pseudo_meters=N`` (a file of **one** meter): N pseudo-meters cut from
    that home's record as for ``uci_household`` (:func:`csv_pseudo_meters`).
    """
    readings = read_readings_csv(readings_path, timezone=timezone, plausible_kw=plausible_kw, key=key)
    meters = read_meters_csv(meters_path, readings, key) if meters_path is not None else default_meters(readings)
    t0, t1 = window_bounds(start, days)
    if pseudo_meters is not None:
        md, report = csv_pseudo_meters(
            readings,
            meters,
            t0,
            days,
            pd.Timedelta(minutes=step_minutes),
            int(pseudo_meters),
            min_coverage=min_coverage,
            max_fill_intervals=max_fill_intervals,
            key=key,
        )
    else:
        try:
            md, report = csv_window(
                readings,
                meters,
                t0,
                t1,
                pd.Timedelta(minutes=step_minutes),
                min_coverage=min_coverage,
                max_fill_intervals=max_fill_intervals,
                key=key,
            )
        except MeterDataError as e:
            raise MeterDataError(str(e) + _every_meter_hint(readings, key)) from None
    for warning in meter_warnings(md):  # constant meters, homes in W: legal, named in the job's log
        LOG.warning("%s", warning)
    return md, report


def _every_meter_hint(readings: CsvReadings, key: str) -> str:
    """For an error about the meters of a file of several: every meter of the file is loaded and checked, whichever
    meter a paper then reads, and how to load only the meters used."""
    if len(readings.names) < 2:
        return ""
    return (
        f"\n{key} loads every meter of the file ({len(readings.names)}: first {str(readings.names[0])!r}), whichever "
        f"meter a paper reads (a paper reading one meter, such as spdp with spdp.meter_id, null = the first, takes it "
        f"from them): to use one meter of this file, give a readings file of that meter's rows alone, or choose a "
        f"window without the gap"
    )


def csv_pseudo_meters(
    readings: CsvReadings,
    meters: pd.DataFrame,
    t0: pd.Timestamp,
    days: int,
    step: pd.Timedelta,
    n: int,
    *,
    min_coverage: float,
    max_fill_intervals: int,
    key: str = "data.experiments.<experiment>",
) -> tuple[MeterData, ResampleReport]:
    """N pseudo-meters ``<meter>_w001``... cut from a one-meter CSV on the windows of :func:`pseudo_meter_windows`.

    The same rule as ``uci_household``'s (:func:`load_uci_household`): consecutive windows of ``days`` days every
    ``7 ceil(days / 7)`` days from ``t0``, taken in order; a window that fails the gap rule (or has no reading)
    is skipped and listed in ``report.skipped``; every pseudo-meter is relabelled onto ``[t0, t0 + days)``
    and keeps the meter's customer class. One household at different times, not independent households
    (docs/data.md). Fewer than ``n`` usable windows is an error naming the file, the record's span and the
    first skipped windows."""
    path = readings.path
    if n < 1:
        raise MeterDataError(f"{path}: {key}.pseudo_meters must be >= 1 or null, got {n}")
    if len(readings.names) != 1:
        shown = ", ".join(repr(str(m)) for m in readings.names[:5])
        raise MeterDataError(
            f"{path}: {key}.pseudo_meters cuts one home's record into windows, but the file has "
            f"{len(readings.names)} meters ({shown}{', ...' if len(readings.names) > 5 else ''}); remove "
            f"pseudo_meters to use the meters as they are, or give a file of one meter ({SEE_README})"
        )
    name = str(readings.names[0])
    first, last = readings.span()
    stride = pd.Timedelta(days=7 * -(-days // 7))
    end_of_record = last + readings.step
    n_candidates = max(int((end_of_record - t0 - pd.Timedelta(days=days)) // stride) + 1, 0)
    t1 = t0 + pd.Timedelta(days=days)
    columns, skipped, dropped, filled = {}, {}, {}, {}
    for wid, w0, w1 in pseudo_meter_windows(t0, days, n_candidates, prefix=name):
        if len(columns) == n:
            break
        try:
            md, rep = csv_window(
                readings,
                meters,
                w0,
                w1,
                step,
                min_coverage=min_coverage,
                max_fill_intervals=max_fill_intervals,
                key=key,
            )
        except MeterDataError as e:
            skipped[wid] = str(e)
            LOG.info("%s: pseudo-meter window %s (%s .. %s) skipped: %s", path, wid, w0, w1, e)
            continue
        columns[wid] = md.readings["kw"].to_numpy(dtype=float)
        dropped[wid], filled[wid] = rep.dropped[name], rep.filled[name]
        LOG.info("%s: pseudo-meter %s = meter %s from %s to %s", path, wid, name, w0, w1)
    if len(columns) < n:
        reasons = "; ".join(f"{k}: {v}" for k, v in list(skipped.items())[:3])
        raise MeterDataError(
            f"{path}: only {len(columns)} usable window(s) of {days} day(s) (every {stride.days} days from "
            f"{t0:%Y-%m-%d}, a {t0:%A}) in the record {first} .. {last}; {key}.pseudo_meters = {n} requested: "
            "lower it, shorten 'days' or move 'start' earlier"
            + (f". {len(skipped)} window(s) skipped, e.g. {reasons}" if skipped else "")
        )
    index = pd.date_range(t0, t1, freq=step, inclusive="left")
    out = pd.DataFrame(columns, index=index)
    cls = str(meters["customer_class"].iloc[0])
    pseudo = pd.DataFrame({"meter_id": list(columns), "customer_class": cls})
    return wide_to_meterdata(out, pseudo, path), ResampleReport(len(index), dropped, filled, skipped)


def csv_window(
    readings: CsvReadings,
    meters: pd.DataFrame,
    t0: pd.Timestamp,
    t1: pd.Timestamp,
    step: pd.Timedelta,
    *,
    min_coverage: float,
    max_fill_intervals: int,
    key: str = "data.experiments.<experiment>",
) -> tuple[MeterData, ResampleReport]:
    """The window ``[t0, t1)`` of checked CSV readings at ``step`` (the gap rule of :func:`resample_values`)."""
    path = readings.path
    src = readings.step
    if step < src or step % src != pd.Timedelta(0):
        raise MeterDataError(
            f"{path}: the file's step ({step_text(src.value)}) does not divide the experiment's step "
            f"({step_text(step.value)}): the step must be a multiple of the source step; set "
            f"{key}.step_minutes accordingly ({SEE_README})"
        )
    if (t1 - t0) % step != pd.Timedelta(0) or (t0 - pd.Timestamp(0)) % step != pd.Timedelta(0):
        raise MeterDataError(f"{path}: the window {t0} .. {t1} is not on the {step_text(step.value)} grid")
    ts, code = readings.ts, readings.code
    inside = (ts >= t0.value) & (ts < t1.value)
    first, last = readings.span()
    if not inside.any():
        raise MeterDataError(
            f"{path}: the requested window {t0} .. {t1} lies outside the file's data ({first} .. "
            f"{last}); set {key}.start/days ({SEE_README})"
        )
    n_m = len(readings.names)
    have = np.bincount(code[inside], minlength=n_m)
    absent = np.flatnonzero(have == 0)
    if len(absent):
        lo, hi = readings.meter_spans()
        shown = ", ".join(
            f"{readings.names[k]!r} (readings {pd.Timestamp(int(lo[k]))} .. {pd.Timestamp(int(hi[k]))}, "
            f"first row {readings.first_row[k]})"
            for k in absent[:5]
        )
        more = f" and {len(absent) - 5} more" if len(absent) > 5 else ""
        raise MeterDataError(
            f"{path}: meter(s) {shown}{more} have no readings in the window {t0} .. {t1}; move "
            f"{key}.start/days or remove these meters from the files ({SEE_README})"
        )
    n_fine = int((t1 - t0) / src)
    vals = np.full((n_fine, n_m), np.nan)
    if inside.all():
        vals[(ts - t0.value) // src.value, code] = readings.kw
    else:
        vals[(ts[inside] - t0.value) // src.value, code[inside]] = readings.kw[inside]
    del inside
    skips = None
    if readings.timezone is not None:
        grid = t0.value + np.arange(n_fine, dtype=np.int64) * src.value
        skips = nonexistent_times(grid, readings.timezone)
        if not skips.any():
            skips = None
    hint = (
        "; a one-hour gap: if the timestamps are local wall-clock time, this is the hour skipped when daylight "
        f"saving time starts - set {key}.timezone and it is filled whatever its length"
        if readings.timezone is None
        else ""
    )
    columns = list(readings.names)
    try:
        out, report = resample_values(
            vals,
            columns,
            src,
            step,
            t0,
            t1,
            min_coverage=min_coverage,
            max_fill_intervals=max_fill_intervals,
            source=path,
            clock_skips=skips,
            dst_hint=hint,
        )
    except MeterDataError as e:
        raise MeterDataError(f"{e} ({SEE_README})") from None
    del vals
    return wide_to_meterdata(out, meters, path), report

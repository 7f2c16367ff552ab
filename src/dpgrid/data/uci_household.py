"""The UCI household source (``household_power_consumption.txt``, DOI 10.24432/C58K54): ``;``-separated,
columns ``Date`` (dd/mm/yyyy), ``Time`` (hh:mm:ss), ``Global_active_power`` (minute-averaged kW)
and six others; ``?`` marks a missing minute. One meter ``UCI_HH`` (residential), or, with
``pseudo_meters=N``, N *pseudo-meters* ``UCI_HH_w001``... cut from the one household's record
(:func:`pseudo_meter_windows`): one household at different times, **not** independent households.

The loader returns :class:`dpgrid.data.meter.MeterData` resampled to the experiment's step by the rule of
:mod:`dpgrid.data.resample`; errors name the file, the field, the rows (line numbers of the file, header = line 1)
and the values. Values outside ``plausible_kw`` (config ``data.plausible_kw``) are errors
(:func:`dpgrid.data.checks.implausible_kw`).
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.checks import DEFAULT_PLAUSIBLE_KW, implausible_kw, outside_range, plausible_range, validate_readings
from dpgrid.data.meter import MeterData
from dpgrid.data.problems import MeterDataError, format_cells
from dpgrid.data.resample import ResampleReport, open_source_text, resample_to_step, wide_to_meterdata, window_bounds

LOG = logging.getLogger(__name__)

UCI_HOUSEHOLD_METER = "UCI_HH"


def read_uci_household_minutes(path: str | Path, plausible_kw=DEFAULT_PLAUSIBLE_KW) -> pd.DataFrame:
    """Minute readings of the UCI household file: tidy frame (meter_id, timestamp, kw with NaN for '?').

    Values outside ``plausible_kw`` are errors (naming the lines and values)."""
    path = Path(path)
    with open_source_text(path, "household_power_consumption.txt") as fh:
        try:
            raw = pd.read_csv(
                fh, sep=";", dtype=str, keep_default_na=False, usecols=["Date", "Time", "Global_active_power"]
            )
        except ValueError as e:
            raise MeterDataError(
                f"{path}: not in the UCI household format (Date;Time;Global_active_power;...): {e}"
            ) from e
    ts = pd.to_datetime(raw["Date"] + " " + raw["Time"], format="%d/%m/%Y %H:%M:%S", errors="coerce")
    if ts.isna().any():
        bad = np.flatnonzero(ts.isna())
        raise MeterDataError(
            f"{path}: fields 'Date'/'Time' are not dd/mm/yyyy hh:mm:ss in line(s) "
            f"{format_cells(bad + 2, (raw['Date'] + ' ' + raw['Time']).iloc[bad[:5]])}"
        )
    gap = raw["Global_active_power"].str.strip()
    kw = gap.mask(gap == "?", "nan")
    num = pd.to_numeric(kw, errors="coerce")
    lo, hi = plausible_range(plausible_kw)
    for bad, what in (
        (num.isna() & (gap != "?"), "is not a number (or '?' for a missing minute)"),
        (num < 0, "is negative"),
        (implausible_kw(num.to_numpy(dtype=float), lo, hi), f"{outside_range(lo, hi)} (data.plausible_kw)"),
    ):
        if bad.any():
            rows = np.flatnonzero(bad)
            raise MeterDataError(
                f"{path}: field 'Global_active_power' {what} in line(s) {format_cells(rows + 2, gap.iloc[rows[:5]])}"
            )
    df = pd.DataFrame({"meter_id": UCI_HOUSEHOLD_METER, "timestamp": ts, "kw": num.rename("kw")})
    # the checks name the file's line numbers (header = line 1)
    df = validate_readings(df, str(path), allow_nan=True, min_samples=2, row_offset=2)
    step = df["timestamp"].diff().dropna()
    if len(step) and not (step == pd.Timedelta(minutes=1)).all():
        raise MeterDataError(
            f"{path}: the UCI household file should be sampled every minute, found step {step.iloc[0]}"
        )
    return df


def pseudo_meter_windows(
    start: str | pd.Timestamp, days: int, count: int, prefix: str = UCI_HOUSEHOLD_METER
) -> list[tuple[str, pd.Timestamp, pd.Timestamp]]:
    """The first ``count`` candidate windows of pseudo-meters cut from one home's record: ``(id, t0, t1)``.

    Window ``k`` (1-based) is ``[start + (k-1) s, start + (k-1) s + days)`` with the stride
    ``s = 7 * ceil(days / 7)`` days: consecutive, non-overlapping, and every window starts on the
    weekday of ``start`` (when ``days`` is not a multiple of 7, the ``s - days`` days between two
    windows are not used). Its id is ``{prefix}_w{k:03d}`` (``UCI_HH_w001``...; a csv source's meter id).
    """
    t0, _ = window_bounds(start, days)
    stride = pd.Timedelta(days=7 * -(-days // 7))
    return [
        (f"{prefix}_w{k:03d}", t0 + (k - 1) * stride, t0 + (k - 1) * stride + pd.Timedelta(days=days))
        for k in range(1, count + 1)
    ]


def load_uci_household(
    path,
    *,
    start,
    days,
    step_minutes,
    min_coverage,
    max_fill_intervals,
    pseudo_meters: int | None = None,
    plausible_kw=DEFAULT_PLAUSIBLE_KW,
) -> tuple[MeterData, ResampleReport]:
    """UCI household data in the window ``[start, start + days)`` averaged to ``step_minutes``.

    ``pseudo_meters=None``: one meter ``UCI_HH``. ``pseudo_meters=N``: N pseudo-meters cut from the
    household's record, on the windows of :func:`pseudo_meter_windows` that end within the record,
    taken in order; a window that fails the coverage/gap rule (an outage longer than
    ``max_fill_intervals`` intervals) is skipped (logged, and listed in ``report.skipped``), so ids
    can have holes (``UCI_HH_w001, UCI_HH_w003``: window 2 was skipped). Every pseudo-meter's readings are
    relabelled onto the first window's time axis ``[start, start + days)`` (same weekday, same time
    of day), which the paper rules need (a common time axis). Raises :class:`MeterDataError` when
    fewer than N windows are usable.
    """
    path = Path(path)
    minutes = read_uci_household_minutes(path, plausible_kw)
    first, last = minutes["timestamp"].iloc[0], minutes["timestamp"].iloc[-1]
    t0, t1 = window_bounds(start, days)
    step = pd.Timedelta(minutes=step_minutes)
    if t0 >= last or t1 <= first:
        raise MeterDataError(
            f"{path}: the requested window {t0} .. {t1} lies outside the file's data "
            f"({first} .. {last}); set data.experiments.<experiment>.start/days"
        )
    wide = minutes.set_index("timestamp")[["kw"]].rename(columns={"kw": UCI_HOUSEHOLD_METER})
    if pseudo_meters is None:
        out, report = resample_to_step(
            wide,
            pd.Timedelta(minutes=1),
            step,
            t0,
            t1,
            min_coverage=min_coverage,
            max_fill_intervals=max_fill_intervals,
            source=str(path),
        )
        meters = pd.DataFrame({"meter_id": [UCI_HOUSEHOLD_METER], "customer_class": ["residential"]})
        return wide_to_meterdata(out, meters, str(path), min_samples=2), report
    n = int(pseudo_meters)
    if n < 1:
        raise MeterDataError(
            f"{path}: pseudo_meters must be >= 1 or null, got {pseudo_meters!r} "
            f"(data.experiments.<experiment>.pseudo_meters)"
        )
    end_of_record = last + pd.Timedelta(minutes=1)
    stride = pd.Timedelta(days=7 * -(-days // 7))
    n_candidates = max(int((end_of_record - t0 - pd.Timedelta(days=days)) // stride) + 1, 0)
    columns, skipped, dropped, filled = {}, {}, {}, {}
    for wid, w0, w1 in pseudo_meter_windows(t0, days, n_candidates):
        if len(columns) == n:
            break
        part = wide.iloc[wide.index.searchsorted(w0) : wide.index.searchsorted(w1)]
        part = part.rename(columns={UCI_HOUSEHOLD_METER: wid})
        try:
            out, rep = resample_to_step(
                part,
                pd.Timedelta(minutes=1),
                step,
                w0,
                w1,
                min_coverage=min_coverage,
                max_fill_intervals=max_fill_intervals,
                log_level=logging.DEBUG,
                source=f"{path} ({wid}: {w0:%Y-%m-%d} .. {w1:%Y-%m-%d})",
            )
        except MeterDataError as e:
            skipped[wid] = str(e)
            LOG.info("%s: pseudo-meter window %s (%s .. %s) skipped: %s", path, wid, w0, w1, e)
            continue
        columns[wid] = out[wid].to_numpy()
        dropped[wid], filled[wid] = rep.dropped[wid], rep.filled[wid]
        LOG.info(
            "%s: pseudo-meter %s = the household from %s to %s (%d dropped, %d filled intervals)",
            path,
            wid,
            w0,
            w1,
            dropped[wid],
            filled[wid],
        )
    if len(columns) < n:
        reasons = "; ".join(f"{k}: {v}" for k, v in list(skipped.items())[:3])
        raise MeterDataError(
            f"{path}: only {len(columns)} usable window(s) of {days} day(s) (every {stride.days} days from "
            f"{t0:%Y-%m-%d}, a {t0:%A}) in the record {first} .. {last}; pseudo_meters = {n} requested "
            f"(data.experiments.<experiment>.pseudo_meters): lower it, shorten 'days' or move 'start' earlier"
            + (f". {len(skipped)} window(s) skipped for gaps, e.g. {reasons}" if skipped else "")
        )
    index = pd.date_range(t0, t1, freq=step, inclusive="left")
    out = pd.DataFrame(columns, index=index)
    report = ResampleReport(len(index), dropped, filled, skipped)
    meters = pd.DataFrame({"meter_id": list(columns), "customer_class": "residential"})
    return wide_to_meterdata(out, meters, str(path), min_samples=2), report

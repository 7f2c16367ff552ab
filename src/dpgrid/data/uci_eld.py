"""The UCI ElectricityLoadDiagrams20112014 source (``LD2011_2014.txt``, DOI 10.24432/C58C86): ``;``-separated
with a *comma* decimal mark; first column the timestamp, then ``MT_001`` ... ``MT_370``. Per the
dataset's documentation the values are kW averaged over each 15-minute interval (divide by 4 for
kWh) and the timestamp labels the *end* of the interval (the first row is 00:15). Rules applied:

- timestamps are shifted by -15 min so that they mark the interval start (dpgrid's convention);
- a client that starts later than 2011 has zeros before its first reading: a client is *eligible*
  for a window only if its first non-zero value is at or before the window start and it has no run
  of zeros of one day or longer inside the window (disconnected); the first ``n_meters`` eligible
  clients in column order are used (no random selection);
- on the March daylight-saving day (last Sunday of March) the dataset stores zeros between 01:00
  and 02:00 for every client: those four intervals are treated as missing (then filled by the gap
  rule of :mod:`dpgrid.data.resample`). The October change-over hour holds two hours' consumption and is kept as is.
- The clients are of unknown type: ``customer_class`` is ``unknown``.

The loader returns :class:`dpgrid.data.meter.MeterData` resampled to the experiment's step by the rule of
:mod:`dpgrid.data.resample`; errors name the file, the field, the rows (line numbers of the file, header = line 1)
and the values. Values outside ``plausible_kw`` (config ``data.plausible_kw``) are errors
(:func:`dpgrid.data.checks.implausible_kw`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.checks import DEFAULT_PLAUSIBLE_KW, implausible_kw, outside_range, plausible_range
from dpgrid.data.meter import MeterData
from dpgrid.data.problems import MeterDataError, format_cells, format_rows
from dpgrid.data.resample import ResampleReport, open_source_text, resample_to_step, wide_to_meterdata, window_bounds

ELD_STEP = pd.Timedelta(minutes=15)


def _march_dst_mask(index: pd.DatetimeIndex) -> np.ndarray:
    """Intervals starting in [01:00, 02:00) on the last Sunday of March (zeros in the ELD file)."""
    d = index.normalize()
    last_sunday = (index.month == 3) & (index.weekday == 6) & (index.day + 7 > 31)
    return np.asarray(last_sunday & (index - d >= pd.Timedelta(hours=1)) & (index - d < pd.Timedelta(hours=2)))


def _longest_zero_run(values: np.ndarray) -> np.ndarray:
    """Length of the longest run of exact zeros in each column of ``values`` (rows x columns)."""
    zero = values == 0
    count = np.cumsum(zero, axis=0)
    # count at the last non-zero row before each row (0 if none): subtract it to restart the runs
    reset = np.maximum.accumulate(np.where(~zero, count, 0), axis=0)
    return (count - reset).max(axis=0, initial=0)


def _parsed_chunks(reader, path: Path):
    """The reader's chunks; a malformed line (wrong number of fields) is a :class:`MeterDataError`."""
    while True:
        try:
            chunk = next(reader)
        except StopIteration:
            return
        except (pd.errors.ParserError, UnicodeDecodeError) as e:
            raise MeterDataError(
                f"{path}: not in the ElectricityLoadDiagrams format (';'-separated, one timestamp "
                f"and one value per client on every line): {e}"
            ) from e
        yield chunk


def _checked_chunk(chunk: pd.DataFrame, path: Path, line: int, last_ts) -> tuple[pd.DataFrame, pd.DatetimeIndex]:
    """One chunk of LD2011_2014 checked (timestamps every 15 minutes and increasing across chunks, numbers with a
    decimal comma, none negative; errors name the line): the values (kW) and their interval starts."""
    if chunk.shape[1] < 2:
        raise MeterDataError(
            f"{path}: not in the ElectricityLoadDiagrams format "
            f"(';'-separated, timestamp then MT_001...); columns: {list(chunk.columns)}"
        )
    ts_raw = chunk.iloc[:, 0]
    ts = pd.to_datetime(ts_raw, format="%Y-%m-%d %H:%M:%S", errors="coerce")
    if ts.isna().any():
        bad = np.flatnonzero(ts.isna())
        raise MeterDataError(
            f"{path}: first column is not a timestamp (YYYY-mm-dd HH:MM:SS) in line(s) "
            f"{format_rows(bad, line)} (first value: {ts_raw.iloc[bad[0]]!r})"
        )
    vals = chunk.iloc[:, 1:].apply(lambda c: pd.to_numeric(c.str.replace(",", ".", regex=False), errors="coerce"))
    if vals.isna().any().any():
        r, c = np.argwhere(vals.isna().to_numpy())[0]
        raise MeterDataError(
            f"{path}: field {vals.columns[c]!r} is not a number in line {line + r} (value {chunk.iloc[r, c + 1]!r})"
        )
    if (vals < 0).any().any():
        r, c = np.argwhere((vals < 0).to_numpy())[0]
        raise MeterDataError(
            f"{path}: field {vals.columns[c]!r} is negative in line {line + r} (value {chunk.iloc[r, c + 1]!r})"
        )
    start_ts = pd.DatetimeIndex(ts) - ELD_STEP  # label = interval end -> interval start
    if last_ts is not None and start_ts[0] <= last_ts:
        raise MeterDataError(f"{path}: timestamps not increasing at line {line}")
    d = np.diff(start_ts.asi8)
    if (d != ELD_STEP.value).any():
        r = int(np.flatnonzero(d != ELD_STEP.value)[0]) + 1
        raise MeterDataError(
            f"{path}: timestamps are not every 15 minutes at line {line + r} "
            f"({ts_raw.iloc[r - 1]!r} -> {ts_raw.iloc[r]!r})"
        )
    return vals, start_ts


def load_uci_eld(
    path,
    *,
    start,
    days,
    step_minutes,
    n_meters,
    min_coverage,
    max_fill_intervals,
    chunksize: int = 20_000,
    plausible_kw=DEFAULT_PLAUSIBLE_KW,
) -> tuple[MeterData, ResampleReport]:
    """The first ``n_meters`` eligible clients of LD2011_2014 in the window, averaged to ``step_minutes``.

    Reads the file in chunks up to the window end only (the file is about 700 MB). The chosen clients'
    values in the window must lie in ``plausible_kw`` (an error names the client, lines and values).
    """
    path = Path(path)
    t0, t1 = window_bounds(start, days)
    first_nonzero: pd.Series | None = None
    parts, part_lines = [], []
    line = 2
    last_ts = None
    with open_source_text(path, "LD2011_2014.txt") as fh:
        reader = pd.read_csv(fh, sep=";", dtype=str, chunksize=chunksize, keep_default_na=False)
        for chunk in _parsed_chunks(reader, path):
            vals, start_ts = _checked_chunk(chunk, path, line, last_ts)
            last_ts = start_ts[-1]
            vals.index = start_ts
            before = vals[vals.index <= t0]
            nz = (before > 0).any()
            first_nonzero = nz if first_nonzero is None else (first_nonzero | nz)
            in_window = (vals.index >= t0) & (vals.index < t1)
            inside = vals[in_window]
            if len(inside):
                parts.append(inside)
                part_lines.append(line + np.flatnonzero(in_window))
            line += len(chunk)
            if start_ts[-1] >= t1:
                break
    if first_nonzero is None:
        raise MeterDataError(f"{path}: no data rows")
    if not parts:
        raise MeterDataError(f"{path}: the requested window {t0} .. {t1} lies outside the file's data")
    window = pd.concat(parts)
    # clients active from the window start and never disconnected for a day or longer inside it
    per_day = int(pd.Timedelta(days=1) / ELD_STEP)
    dst = _march_dst_mask(window.index)
    longest = _longest_zero_run(window.to_numpy()[~dst])
    eligible = [
        c
        for c, ok_start, lg in zip(window.columns, first_nonzero.reindex(window.columns).fillna(False), longest)
        if ok_start and lg < per_day
    ]
    if len(eligible) < n_meters:
        raise MeterDataError(
            f"{path}: only {len(eligible)} client(s) are active throughout {t0} .. {t1} "
            f"(first non-zero reading at or before the start, no day-long run of zeros); "
            f"{n_meters} requested (data.experiments.<experiment>.n_meters)"
        )
    chosen = eligible[:n_meters]
    window = window[chosen].copy()
    lo, hi = plausible_range(plausible_kw)
    lines = np.concatenate(part_lines)
    values = window.to_numpy()
    implausible = implausible_kw(values, lo, hi)
    bad_cols = np.flatnonzero(implausible.any(axis=0))
    if len(bad_cols):
        msg = []
        for j in bad_cols[:5]:
            r = np.flatnonzero(implausible[:, j])
            msg.append(
                f"{path}: field {chosen[j]!r} {outside_range(lo, hi)} in line(s) {format_cells(lines[r], values[r, j])}"
            )
        raise MeterDataError(
            "\n".join(msg) + f"; this client is not a household-sized load: widen data.plausible_kw "
            f"or choose other clients ({len(bad_cols)} client(s))"
        )
    window.loc[dst] = np.nan
    out, report = resample_to_step(
        window,
        ELD_STEP,
        pd.Timedelta(minutes=step_minutes),
        t0,
        t1,
        min_coverage=min_coverage,
        max_fill_intervals=max_fill_intervals,
        source=str(path),
    )
    meters = pd.DataFrame({"meter_id": chosen, "customer_class": "unknown"})
    return wide_to_meterdata(out, meters, str(path), min_samples=2), report

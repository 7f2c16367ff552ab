"""Loaders for real meter-data formats, and resampling to an experiment's step.

Every loader returns :class:`dpgrid.data.meter.MeterData` whose readings went through
:func:`dpgrid.data.meter.validate_readings`; errors name the file, the field and the rows (line
numbers of the file, header = line 1).

Formats
-------
* **UCI household** (``household_power_consumption.txt``, DOI 10.24432/C58K54): ``;``-separated,
  columns ``Date`` (dd/mm/yyyy), ``Time`` (hh:mm:ss), ``Global_active_power`` (minute-averaged kW)
  and six others; ``?`` marks a missing minute. One meter ``UCI_HH`` (residential), or, with
  ``pseudo_meters=N``, N *pseudo-meters* ``UCI_HH_w001``... cut from the one household's record
  (:func:`pseudo_meter_windows`): one household at different times, **not** independent households.
* **UCI ElectricityLoadDiagrams20112014** (``LD2011_2014.txt``, DOI 10.24432/C58C86): ``;``-separated
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
    rule below). The October change-over hour holds two hours' consumption and is kept as is.
  - The clients are of unknown type: ``customer_class`` is ``unknown``.
* **Bring-your-own CSV**: readings ``meter_id,timestamp,kw`` (kW averaged over the interval that starts
  at ``timestamp``, every meter sampled at one regular step, no gaps); optional meters CSV
  ``meter_id,customer_class`` (without it every meter is ``residential``). Meters keep the order of
  their first row in the readings file. See docs/data.md.

Resampling rule (:func:`resample_to_step`)
------------------------------------------
Source samples are averaged over each interval of the experiment's step. An interval is *kept* when
at least ``min_coverage`` of the source samples it should contain are present (non-missing);
otherwise it is missing. Runs of at most ``max_fill_intervals`` consecutive missing intervals are filled
by linear interpolation in time (at the ends of the window: nearest kept value); a longer run is an
error naming the meter and the gap. The number of dropped and filled intervals is logged and returned.
"""

from __future__ import annotations

import logging
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.meter import METER_COLUMNS, MeterData, MeterDataError, validate_readings, format_rows

LOG = logging.getLogger(__name__)

UCI_HOUSEHOLD_METER = "UCI_HH"
ELD_STEP = pd.Timedelta(minutes=15)


@dataclass
class ResampleReport:
    """What :func:`resample_to_step` did, per meter (counts of intervals)."""

    intervals: int
    dropped: dict      # meter -> intervals below min_coverage (before filling)
    filled: dict       # meter -> intervals filled by interpolation
    skipped: dict = field(default_factory=dict)  # UCI pseudo-meters: window id -> why it was not used

    def summary(self) -> str:
        nd, nf = sum(self.dropped.values()), sum(self.filled.values())
        out = (f"{len(self.dropped)} meter(s) x {self.intervals} interval(s): {nd} below coverage, "
               f"{nf} filled by interpolation")
        if self.skipped:
            out += f"; {len(self.skipped)} window(s) skipped ({', '.join(self.skipped)})"
        return out


def window_bounds(start: str | pd.Timestamp, days: int) -> tuple[pd.Timestamp, pd.Timestamp]:
    start = pd.Timestamp(start)
    if start != start.normalize():
        raise ValueError(f"window start must be a midnight, got {start}")
    return start, start + pd.Timedelta(days=days)


def resample_to_step(
    wide: pd.DataFrame,
    source_step: pd.Timedelta,
    step: pd.Timedelta,
    start: pd.Timestamp,
    end: pd.Timestamp,
    *,
    min_coverage: float,
    max_fill_intervals: int,
    source: str,
    log_level: int = logging.INFO,
) -> tuple[pd.DataFrame, ResampleReport]:
    """Average a (timestamp x meter) frame of ``source_step`` samples (NaN = missing) to ``step``.

    Returns the complete (no NaN) frame on the grid ``[start, end)`` at ``step`` and a report.
    See the module docstring for the coverage and gap-filling rule.
    """
    if step < source_step or step % source_step != pd.Timedelta(0):
        raise MeterDataError(f"{source}: cannot resample {source_step} data to a step of {step} "
                             f"(the step must be a multiple of the source step)")
    per = int(step / source_step)
    fine = pd.date_range(start, end, freq=source_step, inclusive="left")
    wide = wide.reindex(fine)  # minutes outside the file's range are missing
    n_int = len(fine) // per
    vals = wide.to_numpy(dtype=float).reshape(n_int, per, wide.shape[1])
    present = np.isfinite(vals)
    count = present.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, np.nansum(vals, axis=1) / np.maximum(count, 1), np.nan)
    keep = count >= min_coverage * per - 1e-9
    mean[~keep] = np.nan
    index = pd.date_range(start, end, freq=step, inclusive="left")
    out = pd.DataFrame(mean, index=index, columns=wide.columns)
    dropped, filled = {}, {}
    for j, meter in enumerate(out.columns):
        miss = ~keep[:, j]
        dropped[meter] = int(miss.sum())
        if not miss.any():
            filled[meter] = 0
            continue
        if miss.all():
            raise MeterDataError(f"{source}: meter {meter!r} has no data in the window "
                                 f"{start} .. {end} (at {step} with min_coverage {min_coverage})")
        # runs of missing intervals
        d = np.diff(np.concatenate([[0], miss.astype(int), [0]]))
        run_starts, run_ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        lengths = run_ends - run_starts
        if lengths.max() > max_fill_intervals:
            k = int(np.argmax(lengths))
            raise MeterDataError(
                f"{source}: meter {meter!r} has a gap of {lengths[k]} interval(s) of {step} from "
                f"{index[run_starts[k]]} to {index[run_ends[k] - 1] + step} (fewer than "
                f"{min_coverage:.0%} of the samples present); at most {max_fill_intervals} can be filled "
                f"(data.resample.max_fill_intervals): choose another window or raise the limit")
        x = np.arange(n_int)
        col = out.iloc[:, j].to_numpy()
        col[miss] = np.interp(x[miss], x[~miss], col[~miss])
        out.iloc[:, j] = col
        filled[meter] = int(miss.sum())
    report = ResampleReport(n_int, dropped, filled)
    LOG.log(log_level, "%s: resampled %s -> %s: %s", source, source_step, step, report.summary())
    return out, report


def _wide_to_meterdata(wide: pd.DataFrame, meters: pd.DataFrame, source: str, min_samples: int) -> MeterData:
    wide = wide.copy()
    wide.index.name = "timestamp"
    wide.columns.name = "meter_id"
    long = wide.stack().rename("kw").reset_index()
    long = long.sort_values(["meter_id", "timestamp"], kind="stable").reset_index(drop=True)
    readings = validate_readings(long[["meter_id", "timestamp", "kw"]], source, min_samples=min_samples)
    return MeterData(readings, meters[METER_COLUMNS].reset_index(drop=True), source)


def _open_text(path: Path, member: str | None):
    """A text stream of ``path`` (a text file, or ``member`` of a zip archive)."""
    if path.suffix.lower() == ".zip":
        zf = zipfile.ZipFile(path)
        names = zf.namelist()
        name = member if member in names else next((n for n in names if n.lower().endswith(".txt")
                                                    and not n.startswith("__MACOSX")), None)
        if name is None:
            raise MeterDataError(f"{path}: archive holds no {member or '.txt'} file (members: {names[:5]})")
        return zf.open(name)
    return open(path, "rb")


# --------------------------------------------------------------------------------------------- UCI household

def read_uci_household_minutes(path: str | Path) -> pd.DataFrame:
    """Minute readings of the UCI household file: tidy frame (meter_id, timestamp, kw with NaN for '?')."""
    path = Path(path)
    with _open_text(path, "household_power_consumption.txt") as fh:
        try:
            raw = pd.read_csv(fh, sep=";", dtype=str, keep_default_na=False,
                              usecols=["Date", "Time", "Global_active_power"])
        except ValueError as e:
            raise MeterDataError(f"{path}: not in the UCI household format (Date;Time;Global_active_power;...): {e}") from e
    ts = pd.to_datetime(raw["Date"] + " " + raw["Time"], format="%d/%m/%Y %H:%M:%S", errors="coerce")
    if ts.isna().any():
        bad = np.flatnonzero(ts.isna())
        raise MeterDataError(f"{path}: fields 'Date'/'Time' are not dd/mm/yyyy hh:mm:ss in line(s) "
                             f"{format_rows(bad, 2)} (first value: {raw['Date'].iloc[bad[0]]!r} {raw['Time'].iloc[bad[0]]!r})")
    gap = raw["Global_active_power"].str.strip()
    kw = gap.mask(gap == "?", "nan")
    num = pd.to_numeric(kw, errors="coerce")
    for bad, what in ((num.isna() & (gap != "?"), "is not a number (or '?' for a missing minute)"),
                      (num < 0, "is negative")):
        if bad.any():
            rows = np.flatnonzero(bad)
            raise MeterDataError(f"{path}: field 'Global_active_power' {what} in line(s) {format_rows(rows, 2)} "
                                 f"(first value: {gap.iloc[rows[0]]!r})")
    df = pd.DataFrame({"meter_id": UCI_HOUSEHOLD_METER, "timestamp": ts, "kw": kw.rename("kw")})
    # the checks name the file's line numbers (header = line 1)
    df = validate_readings(df, str(path), allow_nan=True, min_samples=2, row_offset=2)
    step = df["timestamp"].diff().dropna()
    if len(step) and not (step == pd.Timedelta(minutes=1)).all():
        raise MeterDataError(f"{path}: the UCI household file should be sampled every minute, found step {step.iloc[0]}")
    return df


def pseudo_meter_windows(start: str | pd.Timestamp, days: int,
                         count: int) -> list[tuple[str, pd.Timestamp, pd.Timestamp]]:
    """The first ``count`` candidate windows of the UCI household pseudo-meters: ``(id, t0, t1)``.

    Window ``k`` (1-based) is ``[start + (k-1) s, start + (k-1) s + days)`` with the stride
    ``s = 7 * ceil(days / 7)`` days: consecutive, non-overlapping, and every window starts on the
    weekday of ``start`` (when ``days`` is not a multiple of 7, the ``s - days`` days between two
    windows are not used). Its id is ``UCI_HH_w{k:03d}``.
    """
    t0, _ = window_bounds(start, days)
    stride = pd.Timedelta(days=7 * -(-days // 7))
    return [(f"{UCI_HOUSEHOLD_METER}_w{k:03d}", t0 + (k - 1) * stride, t0 + (k - 1) * stride + pd.Timedelta(days=days))
            for k in range(1, count + 1)]


def load_uci_household(path, *, start, days, step_minutes, min_coverage, max_fill_intervals,
                       pseudo_meters: int | None = None) -> tuple[MeterData, ResampleReport]:
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
    minutes = read_uci_household_minutes(path)
    first, last = minutes["timestamp"].iloc[0], minutes["timestamp"].iloc[-1]
    t0, t1 = window_bounds(start, days)
    step = pd.Timedelta(minutes=step_minutes)
    if t0 >= last or t1 <= first:
        raise MeterDataError(f"{path}: the requested window {t0} .. {t1} lies outside the file's data "
                             f"({first} .. {last}); set data.experiments.<experiment>.start/days")
    wide = minutes.set_index("timestamp")[["kw"]].rename(columns={"kw": UCI_HOUSEHOLD_METER})
    if pseudo_meters is None:
        out, report = resample_to_step(wide, pd.Timedelta(minutes=1), step, t0, t1, min_coverage=min_coverage,
                                       max_fill_intervals=max_fill_intervals, source=str(path))
        meters = pd.DataFrame({"meter_id": [UCI_HOUSEHOLD_METER], "customer_class": ["residential"]})
        return _wide_to_meterdata(out, meters, str(path), min_samples=2), report
    n = int(pseudo_meters)
    if n < 1:
        raise MeterDataError(f"{path}: pseudo_meters must be >= 1 or null, got {pseudo_meters!r} "
                             f"(data.experiments.<experiment>.pseudo_meters)")
    end_of_record = last + pd.Timedelta(minutes=1)
    stride = pd.Timedelta(days=7 * -(-days // 7))
    n_candidates = max(int((end_of_record - t0 - pd.Timedelta(days=days)) // stride) + 1, 0)
    columns, skipped, dropped, filled = {}, {}, {}, {}
    for wid, w0, w1 in pseudo_meter_windows(t0, days, n_candidates):
        if len(columns) == n:
            break
        part = wide.iloc[wide.index.searchsorted(w0):wide.index.searchsorted(w1)]
        part = part.rename(columns={UCI_HOUSEHOLD_METER: wid})
        try:
            out, rep = resample_to_step(part, pd.Timedelta(minutes=1), step, w0, w1, min_coverage=min_coverage,
                                        max_fill_intervals=max_fill_intervals, log_level=logging.DEBUG,
                                        source=f"{path} ({wid}: {w0:%Y-%m-%d} .. {w1:%Y-%m-%d})")
        except MeterDataError as e:
            skipped[wid] = str(e)
            LOG.info("%s: pseudo-meter window %s (%s .. %s) skipped: %s", path, wid, w0, w1, e)
            continue
        columns[wid] = out[wid].to_numpy()
        dropped[wid], filled[wid] = rep.dropped[wid], rep.filled[wid]
        LOG.info("%s: pseudo-meter %s = the household from %s to %s (%d dropped, %d filled intervals)",
                 path, wid, w0, w1, dropped[wid], filled[wid])
    if len(columns) < n:
        reasons = "; ".join(f"{k}: {v}" for k, v in list(skipped.items())[:3])
        raise MeterDataError(
            f"{path}: only {len(columns)} usable window(s) of {days} day(s) (every {stride.days} days from "
            f"{t0:%Y-%m-%d}, a {t0:%A}) in the record {first} .. {last}; pseudo_meters = {n} requested "
            f"(data.experiments.<experiment>.pseudo_meters): lower it, shorten 'days' or move 'start' earlier"
            + (f". {len(skipped)} window(s) skipped for gaps, e.g. {reasons}" if skipped else ""))
    index = pd.date_range(t0, t1, freq=step, inclusive="left")
    out = pd.DataFrame(columns, index=index)
    report = ResampleReport(len(index), dropped, filled, skipped)
    meters = pd.DataFrame({"meter_id": list(columns), "customer_class": "residential"})
    return _wide_to_meterdata(out, meters, str(path), min_samples=2), report


# --------------------------------------------------------------------------------------------- UCI ELD

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
            raise MeterDataError(f"{path}: not in the ElectricityLoadDiagrams format (';'-separated, one timestamp "
                                 f"and one value per client on every line): {e}") from e
        yield chunk


def load_uci_eld(path, *, start, days, step_minutes, n_meters, min_coverage, max_fill_intervals,
                 chunksize: int = 20_000) -> tuple[MeterData, ResampleReport]:
    """The first ``n_meters`` eligible clients of LD2011_2014 in the window, averaged to ``step_minutes``.

    Reads the file in chunks up to the window end only (the file is about 700 MB).
    """
    path = Path(path)
    t0, t1 = window_bounds(start, days)
    first_nonzero: pd.Series | None = None
    parts = []
    line = 2
    last_ts = None
    with _open_text(path, "LD2011_2014.txt") as fh:
        reader = pd.read_csv(fh, sep=";", dtype=str, chunksize=chunksize, keep_default_na=False)
        for chunk in _parsed_chunks(reader, path):
            if chunk.shape[1] < 2:
                raise MeterDataError(f"{path}: not in the ElectricityLoadDiagrams format "
                                     f"(';'-separated, timestamp then MT_001...); columns: {list(chunk.columns)}")
            ts_raw = chunk.iloc[:, 0]
            ts = pd.to_datetime(ts_raw, format="%Y-%m-%d %H:%M:%S", errors="coerce")
            if ts.isna().any():
                bad = np.flatnonzero(ts.isna())
                raise MeterDataError(f"{path}: first column is not a timestamp (YYYY-mm-dd HH:MM:SS) in line(s) "
                                     f"{format_rows(bad, line)} (first value: {ts_raw.iloc[bad[0]]!r})")
            vals = chunk.iloc[:, 1:].apply(lambda c: pd.to_numeric(c.str.replace(",", ".", regex=False), errors="coerce"))
            if vals.isna().any().any():
                r, c = np.argwhere(vals.isna().to_numpy())[0]
                raise MeterDataError(f"{path}: field {vals.columns[c]!r} is not a number in line {line + r} "
                                     f"(value {chunk.iloc[r, c + 1]!r})")
            if (vals < 0).any().any():
                r, c = np.argwhere((vals < 0).to_numpy())[0]
                raise MeterDataError(f"{path}: field {vals.columns[c]!r} is negative in line {line + r} "
                                     f"(value {chunk.iloc[r, c + 1]!r})")
            start_ts = pd.DatetimeIndex(ts) - ELD_STEP  # label = interval end -> interval start
            if last_ts is not None and start_ts[0] <= last_ts:
                raise MeterDataError(f"{path}: timestamps not increasing at line {line}")
            d = np.diff(start_ts.asi8)
            if (d != ELD_STEP.value).any():
                r = int(np.flatnonzero(d != ELD_STEP.value)[0]) + 1
                raise MeterDataError(f"{path}: timestamps are not every 15 minutes at line {line + r} "
                                     f"({ts_raw.iloc[r - 1]!r} -> {ts_raw.iloc[r]!r})")
            last_ts = start_ts[-1]
            vals.index = start_ts
            before = vals[vals.index <= t0]
            nz = (before > 0).any()
            first_nonzero = nz if first_nonzero is None else (first_nonzero | nz)
            inside = vals[(vals.index >= t0) & (vals.index < t1)]
            if len(inside):
                parts.append(inside)
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
    eligible = [c for c, ok_start, lg in zip(window.columns, first_nonzero.reindex(window.columns).fillna(False),
                                            longest) if ok_start and lg < per_day]
    if len(eligible) < n_meters:
        raise MeterDataError(f"{path}: only {len(eligible)} client(s) are active throughout {t0} .. {t1} "
                             f"(first non-zero reading at or before the start, no day-long run of zeros); "
                             f"{n_meters} requested (data.experiments.<experiment>.n_meters)")
    chosen = eligible[:n_meters]
    window = window[chosen].copy()
    window.loc[dst] = np.nan
    out, report = resample_to_step(window, ELD_STEP, pd.Timedelta(minutes=step_minutes), t0, t1,
                                   min_coverage=min_coverage, max_fill_intervals=max_fill_intervals, source=str(path))
    meters = pd.DataFrame({"meter_id": chosen, "customer_class": "unknown"})
    return _wide_to_meterdata(out, meters, str(path), min_samples=2), report


# --------------------------------------------------------------------------------------------- CSV

def load_csv(readings_path, meters_path=None, *, start, days, step_minutes, min_coverage,
             max_fill_intervals) -> tuple[MeterData, ResampleReport]:
    """Bring-your-own CSV readings (and optional meters CSV), cut to the window and resampled."""
    readings_path = Path(readings_path)
    if not readings_path.is_file():
        raise MeterDataError(f"{readings_path}: readings file not found (data.experiments.<experiment>.readings)")
    try:
        raw = pd.read_csv(readings_path, dtype=str, keep_default_na=False, na_values=[""])
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise MeterDataError(f"{readings_path}: cannot parse as CSV: {e}") from e
    extra = [c for c in raw.columns if c not in ("meter_id", "timestamp", "kw")]
    if extra:
        raise MeterDataError(f"{readings_path}: unexpected column(s) {extra}; expected meter_id,timestamp,kw")
    readings = validate_readings(raw, str(readings_path), min_samples=2, row_offset=2)
    # meters in the order of their first row in the file ("the first meter" is the file's first)
    order = list(dict.fromkeys(raw["meter_id"].astype(str).str.strip()))
    if meters_path is not None:
        meters_path = Path(meters_path)
        if not meters_path.is_file():
            raise MeterDataError(f"{meters_path}: meters file not found (data.experiments.<experiment>.meters)")
        meters = pd.read_csv(meters_path, dtype=str, keep_default_na=False)
        missing = [c for c in METER_COLUMNS if c not in meters.columns]
        if missing:
            raise MeterDataError(f"{meters_path}: missing column(s) {missing}; expected meter_id,customer_class")
        empty = (meters["meter_id"].str.strip() == "") | (meters["customer_class"].str.strip() == "")
        if empty.any():
            raise MeterDataError(f"{meters_path}: empty meter_id or customer_class in row(s) {format_rows(np.flatnonzero(empty), 2)}")
        dup = meters["meter_id"].duplicated()
        if dup.any():
            raise MeterDataError(f"{meters_path}: duplicate meter_id in row(s) {format_rows(np.flatnonzero(dup), 2)}")
        unknown = sorted(set(readings["meter_id"]) - set(meters["meter_id"]))
        if unknown:
            raise MeterDataError(f"{meters_path}: meter(s) {unknown[:5]} of {readings_path} are not listed")
        meters = meters.set_index("meter_id").loc[order].reset_index()[METER_COLUMNS]
    else:
        meters = pd.DataFrame({"meter_id": order, "customer_class": "residential"})
    steps = {m: g["timestamp"].iloc[1] - g["timestamp"].iloc[0] for m, g in readings.groupby("meter_id", sort=False)}
    if len(set(steps.values())) != 1:
        raise MeterDataError(f"{readings_path}: meters are sampled at different steps "
                             f"{ {m: str(s) for m, s in list(steps.items())[:5]} }")
    source_step = next(iter(steps.values()))
    t0, t1 = window_bounds(start, days)
    wide = readings.pivot(index="timestamp", columns="meter_id", values="kw")[list(meters["meter_id"])]
    outside = (wide.index.max() < t0) or (wide.index.min() >= t1)
    if outside:
        raise MeterDataError(f"{readings_path}: the requested window {t0} .. {t1} lies outside the file's data "
                             f"({wide.index.min()} .. {wide.index.max()})")
    out, report = resample_to_step(wide, source_step, pd.Timedelta(minutes=step_minutes), t0, t1,
                                   min_coverage=min_coverage, max_fill_intervals=max_fill_intervals,
                                   source=str(readings_path))
    return _wide_to_meterdata(out, meters, str(readings_path), min_samples=2), report

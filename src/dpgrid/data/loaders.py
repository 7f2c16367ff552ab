"""Loaders for real meter-data formats, and resampling to an experiment's step.

Every loader returns :class:`dpgrid.data.meter.MeterData` with complete readings on the window's grid
(:func:`dpgrid.data.sources.check_window` checks them again); errors name the file, the field, the rows
(line numbers of the file, header = line 1) and the values. Values outside ``plausible_kw`` (config
``data.plausible_kw``) are errors.

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
* **Bring-your-own CSV** (:mod:`dpgrid.data.csvfile`): readings ``meter_id,timestamp,kw`` (kW averaged
  over the interval that starts at ``timestamp``), optional meters CSV ``meter_id,customer_class``
  (without it every meter is ``residential``). Missing readings (absent rows, empty/NaN ``kw``) are
  gaps; UTC offsets are converted to ``timezone``; see that module and docs/data.md for every rule.
  Meters keep the order of their first row in the readings file.

Resampling rule (:func:`resample_to_step`), the same for every real source
------------------------------------------------------------------------------
Source samples are averaged over each interval of the experiment's step. An interval is *kept* when
at least ``min_coverage`` of the source samples it should contain are present (non-missing);
otherwise it is missing. Runs of at most ``max_fill_intervals`` consecutive missing intervals are filled
by linear interpolation in time (at the ends of the window: nearest kept value); longer runs are an
error naming every such meter (capped), the first and last missing interval and the run's length.
Only the window ``[start, start + days)`` matters: data outside it is never looked at for gaps. When
the source's local clock skips an hour (daylight saving time starts, known from a CSV's ``timezone``),
the source samples of that hour do not exist: coverage counts only existing samples, and intervals with
no existing sample are filled by interpolation without counting against ``max_fill_intervals``. The
number of dropped and filled intervals is logged and returned.
"""

from __future__ import annotations

import logging
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.csvfile import (
    DEFAULT_PLAUSIBLE_KW,
    CsvReadings,
    default_meters,
    nonexistent_times,
    read_meters_csv,
    read_readings_csv,
)
from dpgrid.data.meter import (
    METER_COLUMNS,
    SEE_README,
    MeterData,
    MeterDataError,
    format_cells,
    format_rows,
    meter_warnings,
    step_text,
    validate_readings,
)

LOG = logging.getLogger(__name__)

UCI_HOUSEHOLD_METER = "UCI_HH"
ELD_STEP = pd.Timedelta(minutes=15)


@dataclass
class ResampleReport:
    """What :func:`resample_to_step` did, per meter (counts of intervals)."""

    intervals: int
    dropped: dict  # meter -> intervals below min_coverage (before filling)
    filled: dict  # meter -> intervals filled by interpolation
    skipped: dict = field(default_factory=dict)  # UCI pseudo-meters: window id -> why it was not used
    clock_gap: int = 0  # intervals that do not exist on the local clock (DST start), filled, not counted

    def summary(self) -> str:
        nd, nf = sum(self.dropped.values()), sum(self.filled.values())
        out = (
            f"{len(self.dropped)} meter(s) x {self.intervals} interval(s): {nd} below coverage, "
            f"{nf} filled by interpolation"
        )
        if self.clock_gap:
            out += f"; {self.clock_gap} interval(s) per meter skipped by the clock (DST start) filled"
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
        raise MeterDataError(
            f"{source}: cannot resample {source_step} data to a step of {step} "
            f"(the step must be a multiple of the source step)"
        )
    fine = pd.date_range(start, end, freq=source_step, inclusive="left")
    vals = wide.reindex(fine).to_numpy(dtype=float)  # samples outside the source's range are missing
    return resample_values(
        vals,
        list(wide.columns),
        source_step,
        step,
        start,
        end,
        min_coverage=min_coverage,
        max_fill_intervals=max_fill_intervals,
        source=source,
        log_level=log_level,
    )


def resample_values(
    vals: np.ndarray,
    columns: list,
    source_step: pd.Timedelta,
    step: pd.Timedelta,
    start: pd.Timestamp,
    end: pd.Timestamp,
    *,
    min_coverage: float,
    max_fill_intervals: int,
    source: str,
    clock_skips: np.ndarray | None = None,
    dst_hint: str = "",
    log_level: int = logging.INFO,
) -> tuple[pd.DataFrame, ResampleReport]:
    """The resampling rule on an array: ``vals`` is (source samples of ``[start, end)`` x meters), NaN = missing.

    ``clock_skips`` marks source samples that do not exist on the local clock (the hour skipped when DST
    starts): they do not count as missing. ``dst_hint`` is appended to a gap error that spans exactly one
    hour (a CSV without a time zone). Raises :class:`MeterDataError` listing every meter with no usable
    data or a gap longer than ``max_fill_intervals`` (a few meters, then a count).
    """
    per = int(step / source_step)
    n_int = vals.shape[0] // per
    m = vals.shape[1]
    v = vals.reshape(n_int, per, m)
    count = np.isfinite(v).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, np.nansum(v, axis=1) / np.maximum(count, 1), np.nan)
    exist = np.full(n_int, per) if clock_skips is None else per - clock_skips.reshape(n_int, per).sum(axis=1)
    skipped = exist == 0  # intervals the local clock skips entirely
    keep = (count > 0) & (count >= min_coverage * exist[:, None] - 1e-9)
    mean[~keep] = np.nan
    index = pd.date_range(start, end, freq=step, inclusive="left")
    dropped, filled, empty, long_gaps = {}, {}, [], []
    x = np.arange(n_int)
    for j, meter in enumerate(columns):
        miss = ~keep[:, j]
        real = miss & ~skipped
        dropped[meter] = int(real.sum())
        filled[meter] = 0
        if not miss.any():
            continue
        if miss.all():
            empty.append(meter)
            continue
        d = np.diff(np.concatenate([[0], miss.astype(np.int8), [0]]))
        run_starts, run_ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        creal = np.concatenate([[0], np.cumsum(real)])
        lengths = creal[run_ends] - creal[run_starts]  # missing intervals that exist on the clock
        if lengths.max() > max_fill_intervals:
            k = int(np.argmax(lengths))
            long_gaps.append(
                (
                    meter,
                    int(lengths[k]),
                    index[run_starts[k]],
                    index[run_ends[k] - 1],
                    int((lengths > max_fill_intervals).sum()),
                )
            )
            continue
        col = mean[:, j]
        col[miss] = np.interp(x[miss], x[~miss], col[~miss])
        filled[meter] = int(miss.sum())
    lines = []
    if empty:
        shown = ", ".join(repr(mt) for mt in empty[:5]) + (f" and {len(empty) - 5} more" if len(empty) > 5 else "")
        lines.append(
            f"{source}: meter(s) {shown} have no data in the window {start} .. {end} (no interval of "
            f"{step_text(step.value)} with {min_coverage:.0%} of its readings present)"
        )
    for meter, length, first, last, n_long in long_gaps[:5]:
        hint = dst_hint if dst_hint and length * step == pd.Timedelta(hours=1) else ""
        more = f" (and {n_long - 1} more gap(s) over the limit)" if n_long > 1 else ""
        lines.append(
            f"{source}: meter {meter!r} has a gap of {length} interval(s) of {step_text(step.value)} in the "
            f"window: first missing {first}, last missing {last}{more}{hint}"
        )
    if len(long_gaps) > 5:
        lines.append(f"{source}: and {len(long_gaps) - 5} more meter(s) with gaps over the limit")
    if lines:
        tail = ""
        if long_gaps:
            tail = (
                f"; an interval is missing when fewer than {min_coverage:.0%} of its readings are present, and "
                f"runs of at most {max_fill_intervals} missing intervals are filled (data.resample."
                f"max_fill_intervals): choose another window, fill the gap in the data or raise the limit"
            )
        raise MeterDataError("\n".join(lines) + tail)
    out = pd.DataFrame(mean, index=index, columns=columns)
    report = ResampleReport(n_int, dropped, filled, clock_gap=int(skipped.sum()))
    LOG.log(log_level, "%s: resampled %s -> %s: %s", source, source_step, step, report.summary())
    return out, report


def _wide_to_meterdata(wide: pd.DataFrame, meters: pd.DataFrame, source: str, min_samples: int = 2) -> MeterData:
    """Canonical readings from a complete (timestamp x meter) frame: sorted by meter id, then time."""
    if wide.isna().to_numpy().any() or len(wide) < min_samples:
        raise AssertionError(f"{source}: resampled frame is incomplete")  # guaranteed by resample_values
    names = np.asarray(list(wide.columns), dtype=object)
    order = np.argsort(names, kind="stable")
    n = len(wide)
    readings = pd.DataFrame(
        {
            "meter_id": np.repeat(names[order], n),
            "timestamp": np.tile(wide.index.to_numpy(dtype="datetime64[ns]"), len(names)),
            "kw": np.ascontiguousarray(wide.to_numpy(dtype="float64").T[order]).ravel(),
        },
        copy=False,
    )
    return MeterData(readings, meters[METER_COLUMNS].reset_index(drop=True), source)


def _open_text(path: Path, member: str | None):
    """A text stream of ``path`` (a text file, or ``member`` of a zip archive)."""
    if path.suffix.lower() == ".zip":
        zf = zipfile.ZipFile(path)
        names = zf.namelist()
        name = (
            member
            if member in names
            else next((n for n in names if n.lower().endswith(".txt") and not n.startswith("__MACOSX")), None)
        )
        if name is None:
            raise MeterDataError(f"{path}: archive holds no {member or '.txt'} file (members: {names[:5]})")
        return zf.open(name)
    return open(path, "rb")


# --------------------------------------------------------------------------------------------- UCI household


def read_uci_household_minutes(path: str | Path, plausible_kw=DEFAULT_PLAUSIBLE_KW) -> pd.DataFrame:
    """Minute readings of the UCI household file: tidy frame (meter_id, timestamp, kw with NaN for '?').

    Values outside ``plausible_kw`` are errors (naming the lines and values)."""
    path = Path(path)
    with _open_text(path, "household_power_consumption.txt") as fh:
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
    lo, hi = (float(v) for v in plausible_kw)
    for bad, what in (
        (num.isna() & (gap != "?"), "is not a number (or '?' for a missing minute)"),
        (num < 0, "is negative"),
        ((num < lo) | (num > hi), f"is outside the plausible range [{lo:g}, {hi:g}] kW (data.plausible_kw)"),
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
        return _wide_to_meterdata(out, meters, str(path), min_samples=2), report
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
            raise MeterDataError(
                f"{path}: not in the ElectricityLoadDiagrams format (';'-separated, one timestamp "
                f"and one value per client on every line): {e}"
            ) from e
        yield chunk


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
    with _open_text(path, "LD2011_2014.txt") as fh:
        reader = pd.read_csv(fh, sep=";", dtype=str, chunksize=chunksize, keep_default_na=False)
        for chunk in _parsed_chunks(reader, path):
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
            vals = chunk.iloc[:, 1:].apply(
                lambda c: pd.to_numeric(c.str.replace(",", ".", regex=False), errors="coerce")
            )
            if vals.isna().any().any():
                r, c = np.argwhere(vals.isna().to_numpy())[0]
                raise MeterDataError(
                    f"{path}: field {vals.columns[c]!r} is not a number in line {line + r} "
                    f"(value {chunk.iloc[r, c + 1]!r})"
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
    lo, hi = (float(v) for v in plausible_kw)
    lines = np.concatenate(part_lines)
    values = window.to_numpy()
    bad_cols = [j for j in range(len(chosen)) if ((values[:, j] < lo) | (values[:, j] > hi)).any()]
    if bad_cols:
        msg = []
        for j in bad_cols[:5]:
            r = np.flatnonzero((values[:, j] < lo) | (values[:, j] > hi))
            msg.append(
                f"{path}: field {chosen[j]!r} is outside the plausible range [{lo:g}, {hi:g}] kW in line(s) "
                f"{format_cells(lines[r], values[r, j])}"
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
    return _wide_to_meterdata(out, meters, str(path), min_samples=2), report


# --------------------------------------------------------------------------------------------- CSV


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
    for warning in meter_warnings(md):  # constant meters, homes in W: legal, named in the job's log
        LOG.warning("%s", warning)
    return md, report


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
    return _wide_to_meterdata(out, pseudo, path), ResampleReport(len(index), dropped, filled, skipped)


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
    return _wide_to_meterdata(out, meters, path), report

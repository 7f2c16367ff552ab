"""Bring-your-own CSV meter data: read, check and put on the meters' local clock (README "Your own meter data").

Readings file: a header line naming the columns ``meter_id``, ``timestamp``, ``kw`` (any order), then one
row per meter and interval. Row numbers in messages are the file's line numbers (the header is row 1,
the first reading row 2), as an editor or a spreadsheet shows them.

Rules applied by :func:`read_readings_csv` (every one documented in docs/data.md):

* ``kw`` is the average power over the interval in kW; an empty field or ``NaN``/``nan``/``NA`` is a
  *missing reading* (treated like an absent row: a gap); any other non-number is an error; finite values
  outside ``plausible_kw`` (default -50 .. 500 kW) are errors.
* ``timestamp`` is ISO 8601 (``2020-03-02 00:30:00``, ``2020-03-02T00:30``, ...) and marks the *start*
  of the interval. Without a UTC offset it is the meters' local wall-clock time, taken as is. With an
  offset (``+01:00``, ``Z``) it is an instant: ``timezone`` (an IANA name such as ``Europe/Paris``) must
  then be given, and the instant is converted to that zone's wall-clock time and made naive; without
  ``timezone`` such a file is rejected. When daylight saving time ends, the zone's repeated hour holds
  two readings per local interval: they are averaged. The local hour skipped when it starts has no
  readings: the loader fills it like a gap but does not count it against the fill limit
  (:func:`dpgrid.data.loaders.resample_to_step`). With ``timezone`` set, naive timestamps are that zone's
  wall-clock time (a time that does not exist there is an error). Naive timestamps cannot tell the two
  occurrences of the repeated hour apart: a duplicate there is an error that says so.
* Rows may come in any order; meters keep the order of their first row. Duplicate (meter, time) rows
  are errors. The file's step is the most frequent difference between consecutive readings of a meter;
  every meter must have that step, the step must divide a day, and every timestamp must lie on the
  step's grid (a multiple of the step after midnight) - off-grid timestamps are errors, never
  reinterpreted.

Errors are :class:`dpgrid.data.meter.MeterDataError` naming the file, the field, rows and values (all
kinds of row problems found in one pass, a few rows each). The file is read in chunks with typed
columns; each distinct timestamp text is parsed once.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.data.meter import (
    METER_COLUMNS,
    READING_COLUMNS,
    SEE_README,
    TS_BAD,
    TS_EMPTY,
    TS_NAIVE,
    TS_OFFSET,
    MeterDataError,
    Problems,
    clean_coded_ids,
    clean_meter_ids,
    format_cells,
    modal_step,
    parse_timestamp_texts,
    step_text,
    zone_or_error,
)

#: Default physical range of a meter's average power, kW (config ``data.plausible_kw``).
DEFAULT_PLAUSIBLE_KW = (-50.0, 500.0)
#: Texts of ``kw`` that mean "missing reading".
MISSING_KW = ["", "NaN", "nan", "NA"]
CHUNK_ROWS = 500_000
_DAY_NS = 86_400 * 10**9
_HOUR_NS = 3_600 * 10**9
_SHOWN = 5
_DECIMAL_COMMA = re.compile(r"^\s*[+-]?\d+,\d+\s*$")
_INTEGER = re.compile(r"^\s*[+-]?\d+\s*$")


@dataclass
class CsvReadings:
    """A checked readings file, sorted by meter (order of first appearance) then local time."""

    path: str
    names: np.ndarray  # meter ids in order of first appearance (object)
    first_row: np.ndarray  # file row of each meter's first reading
    code: np.ndarray  # per reading: index into names
    ts: np.ndarray  # per reading: local wall-clock time, int64 ns (naive)
    kw: np.ndarray  # per reading: kW, NaN = missing reading
    row: np.ndarray  # per reading: file row
    step_ns: int  # the file's step
    n_rows: int  # reading rows in the file (blank lines not counted)
    folded: int  # readings averaged into another one (the repeated DST hour)
    timezone: str | None
    offsets: bool  # the timestamps carried UTC offsets (converted to ``timezone``)

    @property
    def step(self) -> pd.Timedelta:
        return pd.Timedelta(int(self.step_ns), "ns")

    def span(self) -> tuple[pd.Timestamp, pd.Timestamp]:
        return pd.Timestamp(int(self.ts.min())), pd.Timestamp(int(self.ts.max()))

    def meter_spans(self) -> tuple[np.ndarray, np.ndarray]:
        """First and last local time (int64 ns) of each meter."""
        starts = np.searchsorted(self.code, np.arange(len(self.names)), side="left")
        ends = np.searchsorted(self.code, np.arange(len(self.names)), side="right") - 1
        return self.ts[starts], self.ts[ends]


def _fail(path, text: str) -> MeterDataError:
    return MeterDataError(f"{path}: {text} ({SEE_README})")


def _not_utf8(path: Path) -> MeterDataError:
    """The error for a file that is not UTF-8: the line, byte offset and byte value of its first invalid byte,
    and the line as Windows-1252 (Excel's "CSV" on Western-European Windows) would read it."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, line, tail = 0, 1, b""
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            try:
                decoder.decode(block)
            except UnicodeDecodeError as e:
                # e.start counts from the decoder's pending bytes (an incomplete sequence) plus this block
                pending = len(e.object) - len(block)
                bad = offset - pending + e.start
                data = tail + block
                before = data[: bad - (offset - len(tail))]
                line += before.count(b"\n")
                start = before.rfind(b"\n") + 1
                end = data.find(b"\n", len(before))
                text = data[start : end if end >= 0 else len(data)].decode("cp1252", errors="replace").rstrip("\r")
                return _fail(
                    path,
                    f"not UTF-8 text: line {line} (byte {bad} of the file) holds byte 0x{data[len(before)]:02x}, "
                    f"which is not valid UTF-8 ({e.reason}); read as Windows-1252 the line is {text!r}: the file "
                    f"was probably saved in a legacy encoding (cp1252/Latin-1); save it as UTF-8 CSV "
                    f"(Excel: 'CSV UTF-8')",
                )
            line += block.count(b"\n")
            last = block.rfind(b"\n")
            tail = block[last + 1 :] if last >= 0 else tail + block
            offset += len(block)
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as e:
        return _fail(path, f"not UTF-8 text: the file ends inside a multi-byte character ({e.reason}) on line {line}")
    return _fail(path, "not UTF-8 text; save the file as UTF-8 CSV")


def _read_header(path: Path, expected: tuple[str, ...], what: str, allow_extra: bool = False) -> list[str]:
    """Column names of the first line (stripped); errors for an empty file or a wrong header."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            first = fh.readline()
            rest = fh.read(1) if not first.strip() else "x"
    except UnicodeDecodeError as e:
        raise _not_utf8(path) from e
    want = ",".join(expected)
    if not first.strip():
        if not rest:
            raise _fail(
                path,
                f"the file is empty: the {what} file needs a header line '{want}' and one row per "
                f"{'meter and interval' if 'kw' in expected else 'meter'}",
            )
        raise _fail(path, f"the first line is blank: it must be the header '{want}'")
    names = [n.strip() for n in next(csv.reader([first]))]
    missing = [c for c in expected if c not in names]
    if missing:
        hint = ""
        if len(names) == 1:
            sep = next((s for s in (";", "\t", "|") if s in names[0]), None)
            if sep:
                hint = f"; the file seems to use {sep!r} as separator: dpgrid reads ',' only"
        raise _fail(path, f"missing column(s) {missing} in the header {first.strip()!r}; expected '{want}'{hint}")
    extra = [n for n in names if n not in expected]
    if extra and not allow_extra:
        raise _fail(
            path,
            f"unexpected column(s) {extra} in the header {first.strip()!r}; expected '{want}' "
            f"(kw in kW: convert other units and drop other columns)",
        )
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise _fail(path, f"column(s) {dups} appear twice in the header {first.strip()!r}")
    return names


def _field_count_error(path: Path, n_fields: int, header: str, chunk_error: str = "") -> MeterDataError:
    """Scan the file for rows whose number of fields differs from the header's (error path only)."""
    rows, values, total, comma = [], [], 0, False
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        next(reader, None)
        try:
            for fields in reader:
                if not fields or len(fields) == n_fields:
                    continue
                total += 1
                if len(rows) < _SHOWN:
                    rows.append(reader.line_num)
                    values.append(",".join(fields))
                if len(fields) == n_fields + 1 and all(_INTEGER.match(f) for f in fields[-2:]):
                    comma = True
        except csv.Error as e:
            raise _fail(path, f"cannot be read as CSV near row {reader.line_num}: {e}") from e
    if not total:
        return _fail(path, f"cannot be read as CSV: {chunk_error}")
    hint = f"each row needs {n_fields} fields like the header {header!r}; a field that holds a comma must be quoted"
    if comma:
        hint = (
            "a decimal comma (0,41) splits a number into two fields: write numbers with a decimal point (0.41); " + hint
        )
    return _fail(
        path,
        f"wrong number of fields in row(s) {format_cells(rows, values, total)} (the header has {n_fields}); {hint}",
    )


def _chunks(path: Path, names: list[str], dtype: dict, na_values: dict, chunksize: int, fast: bool = False):
    """Chunks of the file with typed columns and checked shape (row index = position in the file).

    With ``fast`` (a float column), a value the C parser cannot convert raises :class:`_SlowPath`."""
    try:  # the reader decodes its first buffer already
        reader = pd.read_csv(
            path,
            header=0,
            names=names,
            dtype=dtype,
            keep_default_na=False,
            na_values=na_values,
            skip_blank_lines=False,
            chunksize=chunksize,
            encoding="utf-8-sig",
        )
    except UnicodeDecodeError as e:
        raise _not_utf8(path) from e
    start = 0
    header = ",".join(names)
    with reader:
        while True:
            try:
                chunk = next(reader)
            except StopIteration:
                return
            except UnicodeDecodeError as e:
                raise _not_utf8(path) from e
            except pd.errors.ParserError as e:
                raise _field_count_error(path, len(names), header, str(e)) from e
            except ValueError as e:
                if fast:
                    raise _SlowPath() from e
                raise _fail(path, f"cannot be read as CSV: {e}") from e
            if not isinstance(chunk.index, pd.RangeIndex) or chunk.index.start != start:
                raise _field_count_error(path, len(names), header)
            yield start, chunk
            start += len(chunk)


def _utc_to_local(ns: np.ndarray, zone: str) -> np.ndarray:
    return pd.DatetimeIndex(ns.view("datetime64[ns]"), tz="UTC").tz_convert(zone).tz_localize(None).asi8


def _localize_flags(ns: np.ndarray, zone: str) -> tuple[np.ndarray, np.ndarray]:
    """(nonexistent, ambiguous) masks of naive wall-clock times in ``zone``."""
    idx = pd.DatetimeIndex(ns.view("datetime64[ns]"))
    ones = np.ones(len(idx), dtype=bool)
    as_dst = idx.tz_localize(zone, ambiguous=ones, nonexistent="NaT")
    as_std = idx.tz_localize(zone, ambiguous=~ones, nonexistent="NaT")
    nonexistent = np.asarray(as_dst.isna())
    ambiguous = ~nonexistent & (as_dst.asi8 != as_std.asi8)
    return nonexistent, ambiguous


def nonexistent_times(ns: np.ndarray, zone: str | None) -> np.ndarray:
    """Mask of naive wall-clock times (int64 ns) that do not exist in ``zone`` (skipped when DST starts)."""
    if zone is None:
        return np.zeros(len(ns), dtype=bool)
    return _localize_flags(np.asarray(ns, dtype=np.int64), zone)[0]


def read_readings_csv(
    path,
    *,
    timezone: str | None = None,
    plausible_kw=DEFAULT_PLAUSIBLE_KW,
    chunksize: int = CHUNK_ROWS,
    key: str = "data.experiments.<experiment>",
) -> CsvReadings:
    """Read and check a readings file (see the module docstring for the rules).

    ``key`` is the config entry the messages point to (``data.experiments.dpkmeans``).
    Raises :class:`MeterDataError`; nothing is written.
    """
    path = Path(path)
    if not path.is_file():
        raise _fail(path, f"readings file not found ({key}.readings)")
    lo, hi = (float(v) for v in plausible_kw)
    if not lo < hi:
        raise MeterDataError(f"config: data.plausible_kw must be [low, high] with low < high, got {list(plausible_kw)}")
    zone = None
    if timezone is not None:
        zone_or_error(timezone, f"config: {key}.timezone")
        zone = str(timezone)
    names = _read_header(path, tuple(READING_COLUMNS), "readings")
    na = {"meter_id": [""], "timestamp": [""], "kw": MISSING_KW}
    for fast in (True, False):
        try:
            return _read_readings(path, names, na, fast, zone, lo, hi, chunksize, key)
        except _SlowPath:
            continue
    raise AssertionError("unreachable")


class _SlowPath(Exception):
    """A kw value is not a float: read again with kw as text to name the rows."""


def _few(cat: pd.Categorical, idx: np.ndarray) -> np.ndarray:
    """The texts of a categorical column at the first few positions ``idx`` (missing: '')."""
    v = np.asarray(cat[idx[:_SHOWN]], dtype=object)
    return np.array(["" if pd.isna(x) else x for x in v], dtype=object)


def _read_readings(path, names, na, fast, zone, lo, hi, chunksize, key) -> CsvReadings:
    problems = Problems(str(path))
    dtype = {"meter_id": "category", "timestamp": "category", "kw": "float64" if fast else str}
    ids: dict[str, int] = {}
    id_names: list[str] = []
    first_rows: list[int] = []
    parts = []
    naive_rows, offset_rows = [], []  # a few examples of each kind, for the "mixed" message
    n_naive = n_offset = 0
    tz_hint = (
        f"set {key}.timezone to the meters' IANA time zone (e.g. 'Europe/Paris'): timestamps with a UTC "
        f"offset are then converted to that zone's wall-clock time (validate: --timezone)"
    )
    for start, chunk in _chunks(path, names, dtype, na, chunksize, fast):
        rows = start + 2 + np.arange(len(chunk))
        id_cat = chunk["meter_id"].array
        ts_cat = chunk["timestamp"].array
        if fast:
            kw = chunk["kw"].to_numpy(dtype="float64")
            kw_missing = np.isnan(kw)
        else:
            raw_kw = chunk["kw"].to_numpy(dtype=object)
            kw = pd.to_numeric(chunk["kw"], errors="coerce").to_numpy(dtype="float64")
            kw_missing = pd.isna(raw_kw)
            bad = np.flatnonzero(np.isnan(kw) & ~kw_missing)
            if len(bad):
                vals = raw_kw[bad]
                comma = any(_DECIMAL_COMMA.match(str(v)) for v in vals[:_SHOWN])
                problems.add(
                    "kw-num",
                    "field 'kw' is not numeric",
                    rows[bad],
                    vals,
                    "write kW with a decimal point (0.41), not a decimal comma"
                    if comma
                    else "kw must be a number (average kW over the interval); leave it empty for a missing reading",
                )
        codes, local_names = clean_coded_ids(id_cat.codes, id_cat.categories)
        ts_codes = np.asarray(ts_cat.codes, dtype=np.int64)
        blank = (codes < 0) & (ts_codes < 0) & kw_missing
        no_id = np.flatnonzero((codes < 0) & ~blank)
        problems.add(
            "id",
            "field 'meter_id' is empty",
            rows[no_id],
            _few(ts_cat, no_id),
            "every row needs the meter's id (shown: the row's timestamp)",
        )
        # local meter codes -> file-wide codes, in order of first appearance
        lut = np.full(len(local_names) + 1, -1, dtype=np.int64)
        if len(local_names):
            valid = np.flatnonzero(codes >= 0)
            firsts = pd.Series(codes[valid]).drop_duplicates()
            first_pos = np.empty(len(local_names), dtype=np.int64)
            first_pos[firsts.to_numpy()] = valid[firsts.index.to_numpy()]
            for j in np.argsort(first_pos, kind="stable"):
                name = local_names[j]
                if name not in ids:
                    ids[name] = len(id_names)
                    id_names.append(name)
                    first_rows.append(int(rows[first_pos[j]]))
                lut[j] = ids[name]
        codes = lut[codes]

        u_ns, u_kind = parse_timestamp_texts(ts_cat.categories)
        ns, kind = u_ns[ts_codes], u_kind[ts_codes]
        keep = ~blank
        empty = np.flatnonzero((kind == TS_EMPTY) & keep)
        problems.add(
            "ts-empty",
            "field 'timestamp' is empty",
            rows[empty],
            _few(id_cat, empty),
            "every row needs the start of its interval (shown: the row's meter_id)",
        )
        badts = np.flatnonzero(kind == TS_BAD)
        problems.add(
            "ts-bad",
            "field 'timestamp' is not an ISO 8601 date-time",
            rows[badts],
            _few(ts_cat, badts),
            "write e.g. 2020-03-02 00:30:00 (the start of the interval), optionally with a UTC offset",
        )
        off = kind == TS_OFFSET
        naive = (kind == TS_NAIVE) & keep
        n_off_chunk = int(off.sum())
        n_offset += n_off_chunk
        n_naive += int(naive.sum())
        if n_off_chunk and len(offset_rows) < _SHOWN:
            i = np.flatnonzero(off)
            offset_rows += list(zip(rows[i[:_SHOWN]], _few(ts_cat, i)))
        if len(naive_rows) < _SHOWN and naive.any():
            i = np.flatnonzero(naive)
            naive_rows += list(zip(rows[i[:_SHOWN]], _few(ts_cat, i)))
        inst = None
        if zone is None:
            i = np.flatnonzero(off)
            problems.add(
                "ts-offset",
                "field 'timestamp' carries a UTC offset but no time zone is set",
                rows[i],
                _few(ts_cat, i),
                tz_hint,
            )
        else:
            inst = ns.copy()  # the instant (UTC) for offset times, the wall-clock time for naive ones
            if n_off_chunk:
                ns[off] = _utc_to_local(ns[off], zone)
            if naive.any():
                nonexist = np.zeros(len(ns), dtype=bool)
                nonexist[naive] = nonexistent_times(ns[naive], zone)
                i = np.flatnonzero(nonexist)
                problems.add(
                    "ts-nonexistent",
                    f"field 'timestamp' is a time that does not exist in {zone} "
                    f"(the hour skipped when daylight saving time starts)",
                    rows[i],
                    _few(ts_cat, i),
                    "check the export's clock, or export timestamps with UTC offsets",
                )

        out = np.flatnonzero(~np.isnan(kw) & ((kw < lo) | (kw > hi) | ~np.isfinite(kw)))
        problems.add(
            "kw-range",
            f"field 'kw' is outside the plausible range [{lo:g}, {hi:g}] kW",
            rows[out],
            kw[out],
            "kw is the average power in kW: is the unit W or Wh? Convert to kW, or widen data.plausible_kw "
            "(validate: --plausible-kw)",
        )
        ok = keep & ((kind == TS_NAIVE) | (kind == TS_OFFSET)) & (codes >= 0)
        if ok.all():  # the usual case: the part's rows are start + 2, start + 3, ... (not stored)
            parts.append((codes.astype(np.int32), ns, kw, inst, None, start))
        else:
            parts.append(
                (codes[ok].astype(np.int32), ns[ok], kw[ok], None if inst is None else inst[ok], rows[ok], start)
            )

    if zone is not None and n_offset and n_naive:
        r, v = zip(*offset_rows[:_SHOWN])
        problems.add(
            "ts-mixed",
            "field 'timestamp' has no UTC offset",
            [r for r, _ in naive_rows],
            [v for _, v in naive_rows],
            f"other rows carry one, e.g. row(s) {format_cells(r, v, n_offset)}: give every timestamp an "
            f"offset, or none",
            total=n_naive,
        )
    problems.raise_if_any()
    n_rows = sum(len(p[0]) for p in parts)
    if n_rows == 0:
        raise _fail(path, "no readings: the file has a header line but no data rows")

    code = np.concatenate([p[0] for p in parts])
    ts = np.concatenate([p[1] for p in parts])
    kw = np.concatenate([p[2] for p in parts])
    inst = np.concatenate([p[3] for p in parts]) if zone is not None else None
    if all(p[4] is None for p in parts):  # no blank or skipped line: row = position + 2
        row = None
    else:
        row = np.concatenate([p[4] if p[4] is not None else p[5] + 2 + np.arange(len(p[0])) for p in parts])
    del parts
    # sort by meter, then time (stable: equal keys keep the file's order); skipped when already sorted
    same = code[1:] == code[:-1]
    if not ((code[1:] >= code[:-1]).all() and ((ts[1:] > ts[:-1]) | ~same).all()):
        order = np.lexsort((ts, code))
        code, ts, kw = code[order], ts[order], kw[order]
        row = (order + 2) if row is None else row[order]
        if inst is not None:
            inst = inst[order]
        del order
    elif row is None:
        row = np.arange(2, n_rows + 2, dtype=np.int64)
    if len(row) and row.max() < 2**31:
        row = row.astype(np.int32)
    names = np.asarray(id_names, dtype=object)

    # duplicates; with a time zone, two instants on one local time are the repeated DST hour: averaged
    eq = (code[1:] == code[:-1]) & (ts[1:] == ts[:-1])
    folded = 0
    if eq.any():
        dup = eq if inst is None else eq & (inst[1:] == inst[:-1])
        if dup.any():
            later = np.flatnonzero(dup) + 1
            j = np.argsort(row[later], kind="stable")
            later = later[j]
            vals = [f"{names[code[i]]}, {pd.Timestamp(int(ts[i]))} as in row {row[i - 1]}" for i in later[:_SHOWN]]
            problems.add(
                "dup", "duplicate (meter_id, timestamp)", row[later], vals, _dst_duplicate_hint(ts[later], zone, key)
            )
            problems.raise_if_any()
        fold = np.flatnonzero(eq) + 1
        folded = len(fold)
        keep = np.ones(len(ts), dtype=bool)
        keep[fold] = False
        starts = np.flatnonzero(keep)
        present = ~np.isnan(kw)
        sums = np.add.reduceat(np.where(present, kw, 0.0), starts)
        cnt = np.add.reduceat(present.astype(np.int64), starts)
        with np.errstate(invalid="ignore", divide="ignore"):
            kw = np.where(cnt > 0, sums / np.maximum(cnt, 1), np.nan)
        code, ts, row = code[starts], ts[starts], row[starts]

    # the step: most frequent difference between consecutive readings of a meter
    same = code[1:] == code[:-1]
    d = (ts[1:] - ts[:-1])[same]
    if not len(d):
        raise _fail(
            path,
            f"every meter has a single reading ({len(names)} meter(s)): the sampling step cannot be "
            f"inferred; give each meter its readings at one regular step",
        )
    if (d == d[0]).all():
        step = int(d[0])
    else:
        vals, counts = np.unique(d, return_counts=True)
        step = int(vals[np.argmax(counts)])
        dc = code[1:][same]
        n_all = np.bincount(dc, minlength=len(names))
        n_step = np.bincount(dc[d == step], minlength=len(names))
        odd = np.flatnonzero(2 * n_step < n_all)
        if len(odd):
            sub = np.isin(dc, odd)
            own = modal_step(dc[sub], d[sub])
            odd = [k for k in odd if own.get(int(k), step) != step]
            if odd:
                listed = ", ".join(
                    f"{names[k]!r} (every {step_text(own[int(k)])}, first row {first_rows[k]})" for k in odd[:_SHOWN]
                )
                more = f" and {len(odd) - _SHOWN} more" if len(odd) > _SHOWN else ""
                raise _fail(
                    path,
                    f"meters are sampled at different steps: most readings are {step_text(step)} "
                    f"apart, but meter(s) {listed}{more} are not; give every meter the same step",
                )
    if _DAY_NS % step:
        raise _fail(
            path,
            f"the file's step ({step_text(step)}, the most frequent difference between consecutive "
            f"readings of a meter) does not divide a day",
        )
    off = np.flatnonzero(ts % step)
    if len(off):
        j = np.argsort(row[off], kind="stable")
        off = off[j]
        problems.add(
            "grid",
            f"field 'timestamp' is off the {step_text(step)} grid" + (f" (local time in {zone})" if zone else ""),
            row[off],
            ts[off].view("datetime64[ns]"),
            f"timestamps must be multiples of the step ({step_text(step)}) after midnight, each marking the "
            f"START of its interval; if yours mark the end or the middle of the interval, shift them "
            f"(e.g. 00:30 -> 00:00)",
        )
        problems.raise_if_any()
    return CsvReadings(
        str(path),
        names,
        np.asarray(first_rows, dtype=np.int64),
        code.astype(np.int32),
        ts,
        kw,
        row,
        step,
        n_rows,
        folded,
        zone,
        n_offset > 0,
    )


def _dst_duplicate_hint(ts: np.ndarray, zone: str | None, key: str) -> str:
    """Say 'daylight saving time' when the duplicated local times look like the repeated hour."""
    hours = np.unique(ts // _HOUR_NS)
    if zone is not None:
        _, ambiguous = _localize_flags(ts, zone)
        if ambiguous.all():
            h = pd.Timestamp(int(hours[0]) * _HOUR_NS)
            return (
                f"these are in the hour from {h} that {zone} repeats when daylight saving time ends: naive "
                f"timestamps cannot tell its two occurrences apart; export timestamps with UTC offsets"
            )
        return "each (meter_id, timestamp) may appear once"
    if len(hours) <= 2 and (hours.max() - hours.min()) <= 1:
        h = pd.Timestamp(int(hours.min()) * _HOUR_NS)
        zones = zones_repeating(ts)
        if zones:
            shown = ", ".join(zones[:3]) + (f" and {len(zones) - 3} more zones" if len(zones) > 3 else "")
            return (
                f"all of them in the hour from {h}, which {shown} repeat when daylight saving time ends: naive "
                f"timestamps cannot tell its two occurrences apart; export timestamps in UTC or with UTC offsets "
                f"and set {key}.timezone"
            )
    return "each (meter_id, timestamp) may appear once"


def zones_repeating(ts: np.ndarray) -> list[str]:
    """IANA zones (``Region/City`` names; Europe, America, Australia, Pacific first, then alphabetically) in which
    every naive wall-clock time of ``ts`` (int64 ns) lies in the hour repeated when daylight saving time ends
    (its first occurrence has the larger UTC offset)."""
    import zoneinfo
    from datetime import datetime

    times = [datetime.fromisoformat(str(pd.Timestamp(int(t)))) for t in np.unique(ts)]
    out = []
    regions = ["Europe", "America", "Australia", "Pacific"]

    def order(name: str):
        region = name.split("/")[0]
        return (regions.index(region) if region in regions else len(regions), name)

    for name in sorted(zoneinfo.available_timezones(), key=order):
        if "/" not in name or name.startswith(("Etc/", "SystemV/")):
            continue
        z = zoneinfo.ZoneInfo(name)
        if all(t.replace(tzinfo=z, fold=0).utcoffset() > t.replace(tzinfo=z, fold=1).utcoffset() for t in times):
            out.append(name)
    return out


def read_meters_csv(path, readings: CsvReadings, key: str = "data.experiments.<experiment>") -> pd.DataFrame:
    """The meters file (``meter_id,customer_class``), checked against the readings; returned in the
    readings' meter order."""
    path = Path(path)
    if not path.is_file():
        raise _fail(
            path,
            f"meters file not found ({key}.meters; leave the key out or set it to null to make "
            f"every meter residential)",
        )
    names = _read_header(path, tuple(METER_COLUMNS), "meters", allow_extra=True)
    chunks = list(_chunks(path, names, {n: str for n in names}, {n: [""] for n in names}, CHUNK_ROWS))
    m = pd.concat([c for _, c in chunks], ignore_index=True) if chunks else pd.DataFrame(columns=names)
    rows = np.arange(len(m)) + 2
    problems = Problems(str(path))
    raw_id = m["meter_id"].to_numpy(dtype=object)
    codes, _ = clean_meter_ids(raw_id)
    cls = m["customer_class"].to_numpy(dtype=object)
    cls_s = np.array(["" if pd.isna(c) else str(c).strip() for c in cls], dtype=object)
    blank = (codes < 0) & (cls_s == "")
    no_id = (codes < 0) & ~blank
    problems.add("id", "field 'meter_id' is empty", rows[no_id], cls_s[no_id])
    ids = np.array(["" if pd.isna(v) else str(v).strip() for v in raw_id], dtype=object)
    no_cls = (cls_s == "") & (codes >= 0)
    problems.add(
        "cls",
        "field 'customer_class' is empty",
        rows[no_cls],
        ids[no_cls],
        "give a class such as residential or commercial (shown: the meter_id)",
    )
    valid = codes >= 0
    dup = valid & pd.Series(ids).duplicated().to_numpy()
    problems.add("dup", "duplicate meter_id", rows[dup], ids[dup])
    problems.raise_if_any()
    listed = dict(zip(ids[valid], zip(cls_s[valid], rows[valid])))
    if not listed:
        raise _fail(path, "no meters: the file has a header line but no data rows")
    unknown = [k for k, name in enumerate(readings.names) if name not in listed]
    lines = []
    if unknown:
        shown = ", ".join(f"{readings.names[k]!r} (first in row {readings.first_row[k]})" for k in unknown[:_SHOWN])
        more = f" and {len(unknown) - _SHOWN} more" if len(unknown) > _SHOWN else ""
        lines.append(
            f"{path}: meter(s) {shown}{more} of {readings.path} are not listed; add a row "
            f"'meter_id,customer_class' for each"
        )
    have = set(readings.names.tolist())
    absent = [(name, r) for name, (_, r) in listed.items() if name not in have]
    if absent:
        shown = ", ".join(f"{name!r} (row {r})" for name, r in absent[:_SHOWN])
        more = f" and {len(absent) - _SHOWN} more" if len(absent) > _SHOWN else ""
        lines.append(
            f"{path}: field 'meter_id' names meter(s) with no readings in {readings.path}: {shown}{more}; "
            f"remove them or add their readings"
        )
    if lines:
        raise MeterDataError("\n".join(lines) + f" ({SEE_README})")
    return pd.DataFrame({"meter_id": list(readings.names), "customer_class": [listed[n][0] for n in readings.names]})[
        METER_COLUMNS
    ]


def default_meters(readings: CsvReadings) -> pd.DataFrame:
    """Without a meters file every meter is residential (readings' meter order)."""
    return pd.DataFrame({"meter_id": list(readings.names), "customer_class": "residential"})[METER_COLUMNS]
